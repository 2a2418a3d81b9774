/* test_allocs.c: the live-allocation table, alone and under concurrent
 * inserts and removals from several threads. */
#include <pthread.h>

#include "check.h"
#include "cupti_cb_callback_allocations.h"

static struct cupti_cb_allocs t;

#define THREADS 4
#define PER_THREAD 20000

static void *churn(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg << 40, lost = 0;
	for (uint64_t i = 0; i < PER_THREAD; i++) {
		uint64_t p = base + (i << 12);
		if (cupti_cb_allocs_insert(&t, p, i + 1) == 0 && cupti_cb_allocs_take(&t, p) != i + 1)
			lost++;
	}
	return (void *)(uintptr_t)lost;
}

int main(void)
{
	CHECK_EQ(cupti_cb_allocs_init(&t, 10), 0, "table of 1024 slots");
	CHECK_EQ(cupti_cb_allocs_insert(&t, 0x7000, 100), 0, "insert");
	CHECK_EQ(cupti_cb_allocs_insert(&t, 0x8000, 200), 0, "insert another");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0x7000), 100, "take returns the size");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0x7000), 0, "a second take finds nothing");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0x9000), 0, "unknown pointer");
	CHECK_EQ(cupti_cb_allocs_insert(&t, 0, 5), -1, "NULL is refused");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0x8000), 200, "the other survived the tombstone");
	cupti_cb_allocs_insert(&t, 0xa000, 10);	/* freed while nothing counted */
	CHECK_EQ(cupti_cb_allocs_insert(&t, 0xa000, 20), 0, "the address comes back");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0xa000), 20, "a reused address reports its new size");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0xa000), 0, "and only once");
	uint64_t replaced = 99;
	CHECK_EQ(cupti_cb_allocs_put(&t, 0xb000, 30, &replaced), 0, "put");
	CHECK_EQ(replaced, 0, "put over nothing replaces nothing");
	CHECK_EQ(cupti_cb_allocs_put(&t, 0xb000, 40, &replaced), 0, "put at an address whose free was not seen");
	CHECK_EQ(replaced, 30, "put reports the size it overwrote");
	CHECK_EQ(cupti_cb_allocs_take(&t, 0xb000), 40, "the new size is kept");

	/* Fill until the bounded probe gives up: inserts fail, nothing breaks. */
	unsigned ok = 0;
	for (uint64_t i = 1; i <= 2048; i++)
		ok += cupti_cb_allocs_insert(&t, i << 12, i) == 0;
	CHECK(ok <= 1024 && ok > 512, "%u of 2048 inserts fit in 1024 slots", ok);
	CHECK_EQ(atomic_load(&t.dropped), 2048 - ok, "refused inserts are counted");
	unsigned back = 0;
	for (uint64_t i = 1; i <= 2048; i++)
		back += cupti_cb_allocs_take(&t, i << 12) == i;
	CHECK_EQ(back, ok, "every stored size comes back exactly");
	cupti_cb_allocs_fini(&t);

	CHECK_EQ(cupti_cb_allocs_init(&t, 16), 0, "table of 65536 slots");
	pthread_t th[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, churn, (void *)(i + 1));
	uint64_t lost = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		lost += (uintptr_t)r;
	}
	CHECK_EQ(lost, 0, "concurrent insert/take pairs lose nothing");
	CHECK_EQ(atomic_load(&t.dropped), 0, "nothing dropped at low load");
	cupti_cb_allocs_fini(&t);
	return checks_done();
}
