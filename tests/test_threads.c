/* test_threads.c: the lock-free pieces under real concurrency, for
 * ThreadSanitizer (test_threads_tsan) as much as for the values:
 *
 *  - the allocation table: threads insert distinct pointers and another
 *    thread takes them (an allocation freed by another thread), while
 *    readers probe for pointers that are not there, over several rounds so
 *    that slots are reused;
 *  - the counter blocks: threads count into their own blocks while readers
 *    sum every block (process scope) and must never see a sum go down; then
 *    new threads adopt the blocks of exited ones while the readers go on. */
#include <pthread.h>

#include "check.h"
#include "cupti_cb_allocs.h"
#include "cupti_cb_blocks.h"
#include "cupti_cb_derived.h"

/* ---- the allocation table ------------------------------------------------- */

#define A_WRITERS 4
#define A_READERS 2
#define A_PER_WRITER 4096
#define A_ROUNDS 8

static struct cupti_cb_allocs table;
static pthread_barrier_t a_barrier;
static atomic_int a_done;

static uint64_t a_ptr(unsigned writer, unsigned round, unsigned i)
{
	/* Like device addresses: 512-byte aligned, one range per writer. */
	return ((uint64_t)(writer + 1) << 36) + ((uint64_t)round << 24) + ((uint64_t)i << 9);
}

static uint64_t a_size(unsigned writer, unsigned round, unsigned i)
{
	return 1 + i + 10000u * writer + 1000000u * round;
}

struct a_result {
	unsigned refused, wrong, leftover;
};

static void *a_writer(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg, from = (w + 1) % A_WRITERS;
	struct a_result *r = calloc(1, sizeof *r);
	for (unsigned round = 0; round < A_ROUNDS; round++) {
		for (unsigned i = 0; i < A_PER_WRITER; i++)
			r->refused += cupti_cb_allocs_insert(&table, a_ptr(w, round, i), a_size(w, round, i)) != 0;
		pthread_barrier_wait(&a_barrier);
		/* Free what the next writer allocated. */
		for (unsigned i = 0; i < A_PER_WRITER; i++)
			r->wrong += cupti_cb_allocs_take(&table, a_ptr(from, round, i)) != a_size(from, round, i);
		pthread_barrier_wait(&a_barrier);
		for (unsigned i = 0; i < A_PER_WRITER; i += 7)
			r->leftover += cupti_cb_allocs_take(&table, a_ptr(w, round, i)) != 0;
	}
	return r;
}

static void *a_reader(void *arg)
{
	uint64_t found = 0, n = 0;
	(void)arg;
	/* Pointers no writer ever inserts: between two writers' ranges. */
	while (!atomic_load(&a_done)) {
		uint64_t p = ((uint64_t)(n % A_WRITERS + 1) << 36) + ((uint64_t)A_ROUNDS << 24) + ((n & 4095) << 9);
		found += cupti_cb_allocs_take(&table, p) != 0;
		n++;
	}
	return (void *)(uintptr_t)found;
}

static void allocs(void)
{
	CHECK_EQ(cupti_cb_allocs_init(&table, 16), 0, "table of 65536 slots");
	pthread_barrier_init(&a_barrier, NULL, A_WRITERS);
	pthread_t w[A_WRITERS], r[A_READERS];
	for (uintptr_t i = 0; i < A_READERS; i++)
		pthread_create(&r[i], NULL, a_reader, NULL);
	for (uintptr_t i = 0; i < A_WRITERS; i++)
		pthread_create(&w[i], NULL, a_writer, (void *)i);
	struct a_result sum = { 0, 0, 0 };
	for (int i = 0; i < A_WRITERS; i++) {
		void *res;
		pthread_join(w[i], &res);
		struct a_result *one = res;
		sum.refused += one->refused;
		sum.wrong += one->wrong;
		sum.leftover += one->leftover;
		free(one);
	}
	atomic_store(&a_done, 1);
	uint64_t found = 0;
	for (int i = 0; i < A_READERS; i++) {
		void *res;
		pthread_join(r[i], &res);
		found += (uintptr_t)res;
	}
	CHECK_EQ(sum.refused, 0, "no insert refused at a quarter load");
	CHECK_EQ(sum.wrong, 0, "every pointer freed by another thread gives back its exact size");
	CHECK_EQ(sum.leftover, 0, "and is gone afterwards");
	CHECK_EQ(found, 0, "concurrent lookups of absent pointers find nothing");
	CHECK_EQ(atomic_load(&table.dropped), 0, "nothing dropped");
	pthread_barrier_destroy(&a_barrier);
	cupti_cb_allocs_fini(&table);
}

/* ---- the counter blocks ------------------------------------------------------- */

#define B_COUNTERS 6
#define B_READERS 2
#define B_PER_THREAD 20000
#define B_WAVES 3

static struct cupti_cb_registry reg;
static struct cupti_cb_probe p_calls, p_launch_dev1, p_launches;
static atomic_int b_done;
static pthread_barrier_t b_barrier;	/* the counting threads of a wave live together */

static void *b_counter(void *arg)
{
	(void)arg;
	struct cupti_cb_block *b = cupti_cb_block_self(&reg);
	pthread_barrier_wait(&b_barrier);
	if (!b) {
		fprintf(stderr, "no block: out of memory\n");
		exit(1);
	}
	uint64_t calls0 = cupti_cb_probe_block(&p_calls, b), dev0 = cupti_cb_probe_block(&p_launch_dev1, b);
	size_t launch1 = reg.lay.dev + 1 * CUPTI_CB_N_DEV_CTRS + CUPTI_CB_C_LAUNCHES;
	for (unsigned i = 0; i < B_PER_THREAD; i++) {
		b = cupti_cb_block_self(&reg);	/* as every callback does */
		cupti_cb_bump(&b->c[reg.lay.thr + CUPTI_CB_C_API_CALLS], 1);
		if (i % 2)
			cupti_cb_bump(&b->c[launch1], 2);
	}
	/* Thread scope: this thread's counts only, adopted counts excluded. */
	int bad = cupti_cb_probe_block(&p_calls, b) - calls0 != B_PER_THREAD ||
		  cupti_cb_probe_block(&p_launch_dev1, b) - dev0 != B_PER_THREAD;
	pthread_barrier_wait(&b_barrier);
	return (void *)(uintptr_t)bad;
}

struct b_seen {
	uint64_t reads, decreases, last_calls;
};

static void *b_reader(void *arg)
{
	struct b_seen *s = arg;
	uint64_t last_many[2] = { 0, 0 };
	const struct cupti_cb_probe many[2] = { p_calls, p_launches };
	const uint8_t which[2] = { 1, 1 };
	while (!atomic_load(&b_done)) {
		uint64_t v = cupti_cb_probe_process(&p_calls, &reg), out[2];
		s->decreases += v < s->last_calls;
		s->last_calls = v;
		cupti_cb_probe_process_many(many, which, 2, &reg, out);
		s->decreases += out[0] < last_many[0] || out[1] < last_many[1];
		last_many[0] = out[0];
		last_many[1] = out[1];
		s->reads++;
	}
	return NULL;
}

static void blocks(void)
{
	struct cupti_cb_layout lay;
	cupti_cb_layout_init(&lay, 8, 2);
	CHECK_EQ(cupti_cb_registry_init(&reg, &lay), 0, "registry");
	p_calls = (struct cupti_cb_probe){ (uint32_t)(lay.thr + CUPTI_CB_C_API_CALLS), 1, 1, 0, 0 };
	p_launch_dev1 = (struct cupti_cb_probe){
		(uint32_t)(lay.dev + 1 * CUPTI_CB_N_DEV_CTRS + CUPTI_CB_C_LAUNCHES), 1, 1, 0, 0 };
	/* kernel.launches, all devices: one counter in each device row. */
	p_launches = (struct cupti_cb_probe){ (uint32_t)(lay.dev + CUPTI_CB_C_LAUNCHES), 1,
					      (uint16_t)lay.n_devrows, CUPTI_CB_N_DEV_CTRS, 0 };

	pthread_barrier_init(&b_barrier, NULL, B_COUNTERS);
	struct b_seen seen[B_READERS] = { { 0, 0, 0 } };
	pthread_t r[B_READERS], c[B_COUNTERS];
	for (int i = 0; i < B_READERS; i++)
		pthread_create(&r[i], NULL, b_reader, &seen[i]);
	unsigned bad = 0, blocks_after_first = 0;
	for (int wave = 0; wave < B_WAVES; wave++) {
		for (int i = 0; i < B_COUNTERS; i++)
			pthread_create(&c[i], NULL, b_counter, NULL);
		for (int i = 0; i < B_COUNTERS; i++) {
			void *res;
			pthread_join(c[i], &res);
			bad += (uintptr_t)res != 0;
		}
		if (wave == 0)
			blocks_after_first = atomic_load(&reg.n_blocks);
	}
	atomic_store(&b_done, 1);
	uint64_t reads = 0, decreases = 0;
	for (int i = 0; i < B_READERS; i++) {
		pthread_join(r[i], NULL);
		reads += seen[i].reads;
		decreases += seen[i].decreases;
	}
	CHECK_EQ(bad, 0, "each thread's own block holds exactly its counts");
	CHECK_EQ(blocks_after_first, B_COUNTERS, "one block per counting thread");
	CHECK_EQ(atomic_load(&reg.n_blocks), B_COUNTERS, "later waves adopt the blocks of exited threads");
	CHECK_EQ(cupti_cb_probe_process(&p_calls, &reg), (uint64_t)B_WAVES * B_COUNTERS * B_PER_THREAD,
		 "process scope: every count of every thread, exited ones included");
	CHECK_EQ(cupti_cb_probe_process(&p_launches, &reg), (uint64_t)B_WAVES * B_COUNTERS * B_PER_THREAD,
		 "process scope over the device rows");
	CHECK(reads > 0, "the readers read %" PRIu64 " times while threads counted", reads);
	CHECK_EQ(decreases, 0, "a process-scope sum never went down");
	pthread_barrier_destroy(&b_barrier);
	cupti_cb_registry_fini(&reg);
}

int main(void)
{
	allocs();
	blocks();
	return checks_done();
}
