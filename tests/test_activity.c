/* test_activity.c: the pieces of the GPU activity source that need no
 * CUPTI: the correlation table (issuing thread by correlation id) and the
 * union of busy intervals, with exact values. */
#include <pthread.h>

#include "check.h"
#include "cupti_cb_activity.h"
#include "cupti_cb_corr.h"

static struct cupti_cb_corrmap map;

#define THREADS 4
#define PER_THREAD 10000

/* Each thread writes its own correlation ids (interleaved, as CUPTI hands
 * them out across threads) and reads them back. */
static void *writer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg, wrong = 0;
	for (uint32_t i = 0; i < PER_THREAD; i++) {
		uint32_t corr = 1000 + i * THREADS + t;
		cupti_cb_corr_put(&map, corr, t + 1);
		if (cupti_cb_corr_get(&map, corr) != t + 1)
			wrong++;
	}
	return (void *)(uintptr_t)wrong;
}

static void corr_table(void)
{
	CHECK_EQ(cupti_cb_corr_get(&map, 7), 0, "an empty table knows nothing");
	cupti_cb_corr_put(&map, 7, 3);
	CHECK_EQ(cupti_cb_corr_get(&map, 7), 3, "a recorded call's block");
	CHECK_EQ(cupti_cb_corr_get(&map, 8), 0, "another id is not found");
	CHECK_EQ(cupti_cb_corr_get(&map, 7 + CUPTI_CB_CORR_SLOTS), 0, "an id of the same slot is not found");
	cupti_cb_corr_put(&map, 7 + CUPTI_CB_CORR_SLOTS, 5);
	CHECK_EQ(cupti_cb_corr_get(&map, 7 + CUPTI_CB_CORR_SLOTS), 5, "the newer call takes the slot");
	CHECK_EQ(cupti_cb_corr_get(&map, 7), 0, "the oldest is overwritten: a miss, never a wrong block");
	CHECK_EQ(cupti_cb_corr_get(&map, 0), 0, "id 0 of an empty slot is a miss");

	pthread_t th[THREADS];
	for (uintptr_t t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, writer, (void *)t);
	uintptr_t wrong = 0;
	for (int t = 0; t < THREADS; t++) {
		void *r;
		pthread_join(th[t], &r);
		wrong += (uintptr_t)r;
	}
	CHECK_EQ(wrong, 0, "4 threads: each finds its own calls while the others write");
	unsigned found = 0;
	for (uint32_t c = 1000; c < 1000 + THREADS * PER_THREAD; c++)
		found += cupti_cb_corr_get(&map, c) == (c - 1000) % THREADS + 1;
	CHECK_EQ(found, THREADS * PER_THREAD, "every call maps to the thread that issued it");
}

/* Merges [s, e) pairs in order; returns the union's length. */
static uint64_t busy(const uint64_t *iv, unsigned n)
{
	uint64_t start = 0, end = 0, total = 0;
	for (unsigned i = 0; i < n; i++)
		total += cupti_cb_busy_merge(&start, &end, iv[2 * i], iv[2 * i + 1]);
	return total;
}

static void busy_union(void)
{
	static const uint64_t disjoint[] = { 100, 110, 200, 230 };
	static const uint64_t overlap[] = { 100, 200, 150, 260 };
	static const uint64_t inside[] = { 100, 200, 120, 130, 190, 200 };
	static const uint64_t touching[] = { 100, 200, 200, 300 };
	static const uint64_t late_long[] = { 110, 120, 100, 200 };	/* completion order: short first */
	static const uint64_t before[] = { 500, 600, 100, 200 };	/* out of order, disjoint */
	static const uint64_t empty[] = { 100, 100, 300, 200, 400, 450 };
	static const uint64_t two_streams[] = { 1000, 6000, 2000, 11000 };	/* 5 us and 9 us */
	CHECK_EQ(busy(disjoint, 2), 40, "disjoint intervals: their sum");
	CHECK_EQ(busy(overlap, 2), 160, "overlapping intervals: the union");
	CHECK_EQ(busy(inside, 3), 100, "intervals inside another add nothing");
	CHECK_EQ(busy(touching, 2), 200, "touching intervals");
	CHECK_EQ(busy(late_long, 2), 100, "a longer interval delivered after one inside it: the union");
	CHECK_EQ(busy(before, 2), 200, "an earlier disjoint interval delivered late counts whole");
	CHECK_EQ(busy(empty, 3), 50, "empty and reversed intervals add nothing");
	uint64_t u = busy(two_streams, 2);
	CHECK_EQ(u, 10000, "two overlapping kernels: 10 us");
	CHECK(u < 5000 + 9000 && u >= 9000, "less than the sum, at least the longest");
}

int main(void)
{
	corr_table();
	busy_union();
	return checks_done();
}
