/* test_threads.c: the lock-free pieces under real concurrency, for
 * ThreadSanitizer (test_threads_tsan) as much as for the values:
 *
 *  - the allocation table: threads insert distinct pointers and another
 *    thread takes them (an allocation freed by another thread), while
 *    readers probe for pointers that are not there, over several rounds so
 *    that slots are reused;
 *  - the counter blocks: threads count into their own blocks while readers
 *    sum every block (process scope) and must never see a sum go down; then
 *    new threads adopt the blocks of exited ones (past a lowered bound)
 *    while the readers go on and list the blocks' owners; with the default
 *    bound every thread keeps a block of its own, with its tid and name;
 *  - the engine: threads make counted calls through a fake CUPTI while
 *    other threads start, read and stop event sets (the start/stop churn
 *    of TAU and of the churn test), and one set runs throughout. */
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "cupti_cb_callback_allocations.h"
#include "cupti_cb_thread_counters.h"
#include "cupti_cb_callback_derived.h"
#include "cupti_cb_callback_state.h"
#include "catalog_code.h"
#include "fake_subscriber.h"

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

static struct cupti_cb_thread_registry reg;
static struct cupti_cb_callback_layout clay;	/* the callback counters' regions in reg's counters */
static struct cupti_cb_probe p_calls, p_launch_dev1, p_launches;
static atomic_int b_done;
static pthread_barrier_t b_barrier;	/* the counting threads of a wave live together */

static long b_tids[B_WAVES][B_COUNTERS];
static atomic_int b_readers_seen;	/* readers that read and listed owners while threads counted */

static void *b_counter(void *arg)
{
	unsigned wave = (unsigned)(uintptr_t)arg / B_COUNTERS, i = (unsigned)(uintptr_t)arg % B_COUNTERS;
	char name[16];
	snprintf(name, sizeof name, "w%u-c%u", wave, i);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	b_tids[wave][i] = (long)syscall(SYS_gettid);
	struct cupti_cb_thread_counters *b = cupti_cb_thread_counters_self(&reg);
	pthread_barrier_wait(&b_barrier);
	if (!b) {
		fprintf(stderr, "no block: out of memory\n");
		exit(1);
	}
	uint64_t calls0 = cupti_cb_probe_thread(&p_calls, b), dev0 = cupti_cb_probe_thread(&p_launch_dev1, b);
	size_t launch1 = clay.dev + 1 * CUPTI_CB_N_DEV_CTRS + CUPTI_CB_C_LAUNCHES;
	for (unsigned i = 0; i < B_PER_THREAD; i++) {
		b = cupti_cb_thread_counters_self(&reg);	/* as every callback does */
		cupti_cb_bump(&b->c[clay.thr + CUPTI_CB_C_API_CALLS], 1);
		if (i % 2)
			cupti_cb_bump(&b->c[launch1], 2);
	}
	/* Thread scope: this thread's counts only, adopted counts excluded. */
	int bad = cupti_cb_probe_thread(&p_calls, b) - calls0 != B_PER_THREAD ||
		  cupti_cb_probe_thread(&p_launch_dev1, b) - dev0 != B_PER_THREAD;
	/* The first wave lives until every reader has read and listed while
	 * it counted: on a loaded machine the readers may not have run yet. */
	while (wave == 0 && atomic_load(&b_readers_seen) < B_READERS)
		sched_yield();
	pthread_barrier_wait(&b_barrier);
	return (void *)(uintptr_t)bad;
}

struct b_seen {
	uint64_t reads, decreases, last_calls, listed;
	int counted_while;
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
		/* The owners, while threads take, adopt and leave blocks. */
		struct cupti_cb_thread_owner o[B_COUNTERS * B_WAVES];
		unsigned n = cupti_cb_thread_registry_list(&reg, o, B_COUNTERS * B_WAVES);
		uint64_t listed = s->listed;
		for (unsigned k = 0; k < n && k < B_COUNTERS * B_WAVES; k++)
			s->listed += o[k].tid != 0;
		if (!s->counted_while && s->listed > listed && atomic_load(&b_done) == 0) {
			s->counted_while = 1;
			atomic_fetch_add(&b_readers_seen, 1);
		}
	}
	return NULL;
}

/* own_max: the adoption bound (B_COUNTERS: later waves adopt; the default:
 * every thread a block of its own). */
static void blocks(unsigned own_max)
{
	struct cupti_cb_layout lay;
	cupti_cb_layout_init(&lay, 2);
	cupti_cb_callback_layout(&clay, 8, 2, cupti_cb_layout_add(&lay, cupti_cb_callback_fixed_words(8) +
								      (size_t)lay.n_devrows * CUPTI_CB_N_DEV_CTRS));
	CHECK_EQ(cupti_cb_thread_registry_init(&reg, &lay), 0, "registry");
	CHECK_EQ(reg.own_max, CUPTI_CB_THREAD_COUNTERS_OWN, "the default adoption bound");
	reg.own_max = own_max;
	atomic_store(&b_done, 0);
	atomic_store(&b_readers_seen, 0);
	p_calls = (struct cupti_cb_probe){ (uint32_t)(clay.thr + CUPTI_CB_C_API_CALLS), 1, 1, 0, 0 };
	p_launch_dev1 = (struct cupti_cb_probe){
		(uint32_t)(clay.dev + 1 * CUPTI_CB_N_DEV_CTRS + CUPTI_CB_C_LAUNCHES), 1, 1, 0, 0 };
	/* kernel.launches, all devices: one counter in each device row. */
	p_launches = (struct cupti_cb_probe){ (uint32_t)(clay.dev + CUPTI_CB_C_LAUNCHES), 1,
					      (uint16_t)lay.n_devrows, CUPTI_CB_N_DEV_CTRS, 0 };

	pthread_barrier_init(&b_barrier, NULL, B_COUNTERS);
	struct b_seen seen[B_READERS] = { { 0, 0, 0, 0, 0 } };
	pthread_t r[B_READERS], c[B_COUNTERS];
	for (int i = 0; i < B_READERS; i++)
		pthread_create(&r[i], NULL, b_reader, &seen[i]);
	unsigned bad = 0, blocks_after_first = 0;
	for (int wave = 0; wave < B_WAVES; wave++) {
		for (int i = 0; i < B_COUNTERS; i++)
			pthread_create(&c[i], NULL, b_counter, (void *)(uintptr_t)(wave * B_COUNTERS + i));
		for (int i = 0; i < B_COUNTERS; i++) {
			void *res;
			pthread_join(c[i], &res);
			bad += (uintptr_t)res != 0;
		}
		if (wave == 0)
			blocks_after_first = atomic_load(&reg.n_counters);
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
	struct cupti_cb_thread_owner o[B_COUNTERS * B_WAVES];
	unsigned n = cupti_cb_thread_registry_list(&reg, o, B_COUNTERS * B_WAVES);
	unsigned exited = 0, named = 0, last_wave = 0, owners = 0;
	for (unsigned k = 0; k < n && k < B_COUNTERS * B_WAVES; k++) {
		char want[16];
		exited += o[k].exited == 1;
		owners += o[k].owners;
		for (unsigned w = 0; w < B_WAVES; w++)
			for (unsigned i = 0; i < B_COUNTERS; i++)
				if (b_tids[w][i] == o[k].tid) {
					snprintf(want, sizeof want, "w%u-c%u", w, i);
					named += !strcmp(o[k].name, want);
					last_wave += w == B_WAVES - 1;
				}
	}
	CHECK_EQ(exited, n, "every block's owner exited");
	CHECK_EQ(named, n, "every block carries its latest owner's tid and name");
	CHECK_EQ(owners, B_WAVES * B_COUNTERS, "every thread is counted in exactly one block");
	if (own_max == B_COUNTERS) {
		CHECK_EQ(atomic_load(&reg.n_counters), B_COUNTERS, "past the bound, later waves adopt exited threads' blocks");
		CHECK_EQ(last_wave, B_COUNTERS, "the adopters own the blocks now");
		for (unsigned k = 0; k < n && k < B_COUNTERS; k++)
			CHECK_EQ(o[k].owners, B_WAVES, "each block holds one thread of each wave (shared)");
	} else {
		CHECK_EQ(atomic_load(&reg.n_counters), B_WAVES * B_COUNTERS, "below the bound, every thread a block of its own");
		for (unsigned k = 0; k < n && k < B_WAVES * B_COUNTERS; k++) {
			const struct cupti_cb_thread_counters *found[2];
			CHECK_EQ(o[k].owners, 1, "not shared");
			CHECK_EQ(cupti_cb_thread_registry_find(&reg, o[k].tid, found, 2), 1, "one block for each tid");
			CHECK_EQ(cupti_cb_probe_thread(&p_calls, found[0]), B_PER_THREAD, "a thread's own counts, after it exited");
		}
	}
	CHECK_EQ(cupti_cb_probe_process(&p_calls, &reg), (uint64_t)B_WAVES * B_COUNTERS * B_PER_THREAD,
		 "process scope: every count of every thread, exited ones included");
	CHECK_EQ(cupti_cb_probe_process(&p_launches, &reg), (uint64_t)B_WAVES * B_COUNTERS * B_PER_THREAD,
		 "process scope over the device rows");
	CHECK(reads > 0, "the readers read %" PRIu64 " times while threads counted", reads);
	CHECK_EQ(decreases, 0, "a process-scope sum never went down");
	CHECK(seen[0].listed + seen[1].listed > 0, "the readers listed owners while threads counted");
	pthread_barrier_destroy(&b_barrier);
	cupti_cb_thread_registry_fini(&reg);
}

/* ---- the engine under start/stop churn ------------------------------------ */

#define E_CALLERS 4
#define E_CHURNERS 2
#define E_CALLS 20000
#define DRV CUPTI_CB_DOMAIN_DRIVER_API

static struct cupti_cb_services eng;
static struct cupti_cb_callback cb;
static atomic_int e_done;
static CUcontext const CTX0 = (CUcontext)0x1000;

static CUptiResult fake_device_id(CUcontext ctx, uint32_t *id)
{
	(void)ctx;
	*id = 0;
	return CUPTI_SUCCESS;
}

static CUresult fake_pointer_attrs(unsigned n, CUpointer_attribute *a, void **out, CUdeviceptr p)
{
	(void)n, (void)a, (void)out, (void)p;
	return CUDA_ERROR_INVALID_VALUE;
}

/* One driver call, its enter and exit delivered as CUPTI does. */
static void driver_call(CUpti_CallbackId cbid, const void *params, uint32_t id)
{
	CUresult ret = CUDA_SUCCESS;
	uint64_t corr = 0;
	CUpti_CallbackData cd = { 0 };
	cd.functionParams = params;
	cd.functionReturnValue = &ret;
	cd.context = CTX0;
	cd.correlationData = &corr;
	cd.correlationId = id;
	for (int site = 0; site < 2; site++) {
		if (!atomic_load(&enabled[1][cbid]))
			continue;
		cd.callbackSite = site ? CUPTI_API_EXIT : CUPTI_API_ENTER;
		cupti_cb_services_callback(&eng, DRV, cbid, &cd);
	}
}

static void *e_caller(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg * 10 * E_CALLS;
	cuLaunchKernel_params lk = { 0 };
	for (unsigned i = 0; i < E_CALLS; i++) {
		driver_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &lk, ++id);
		if (i % 16 == 0)
			driver_call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, NULL, ++id);
	}
	return NULL;
}

/* Starts, reads and stops sets as fast as it can, as a profiler timing many
 * short regions does; every value read must be plausible. */
static void *e_churner(void *arg)
{
	const char *const names[][3] = {
		{ "kernel.launches:process", "sync.time_ns:process", "cuLaunchKernel.calls" },
		{ "sync.calls:process", "api.calls", "kernel.launches" },
	};
	uint32_t codes[3];
	unsigned k = (unsigned)(uintptr_t)arg % 2, bad = 0, rounds = 0;
	for (int i = 0; i < 3; i++)
		codes[i] = catalog_code(&cb.cat, names[k][i]);
	while (!atomic_load(&e_done)) {
		struct cupti_cb_hold hold = { 0 };
		if (cupti_cb_callback_acquire(&cb, &hold, codes, 3)) {
			bad++;
			break;
		}
		uint64_t base[3], v[3];
		struct cupti_cb_probe p[3];
		for (int i = 0; i < 3; i++) {
			p[i] = cupti_cb_callback_probe(&cb, codes[i]);
			base[i] = cupti_cb_callback_raw(&cb, &p[i], CUPTI_CB_CODE_PROC(codes[i]) ? NULL :
							    cupti_cb_services_thread_counters(&eng));
		}
		cupti_cb_clock_calibrate(&eng.clock);
		for (int i = 0; i < 3; i++) {
			v[i] = cupti_cb_callback_raw(&cb, &p[i], CUPTI_CB_CODE_PROC(codes[i]) ? NULL :
							 cupti_cb_services_thread_counters(&eng));
			/* Counters never go down, and no window exceeds every call. */
			if (v[i] < base[i] ||
			    (!p[i].ticks && v[i] - base[i] > (uint64_t)E_CALLERS * E_CALLS * 2))
				bad++;
			(void)cupti_cb_callback_value(&cb, &p[i], v[i] - base[i]);
		}
		/* This thread makes no CUDA call: its thread-scope counts stay 0. */
		if (k == 0 && v[2] != base[2])
			bad++;
		cupti_cb_services_unhold(&eng, &hold);
		rounds++;
	}
	return (void *)(uintptr_t)(bad ? 1000000u + bad : rounds);
}

static void engine_churn(void)
{
	char why[512];
	if (cupti_cb_load_cupti(&eng.api, why, sizeof why)) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	fake_subscriber_install(&eng.api);
	eng.api.cuptiGetDeviceId = fake_device_id;
	eng.api.cuPointerGetAttributes = fake_pointer_attrs;
	CHECK_EQ(cupti_cb_callback_setup(&cb, &eng, 1), 0, "engine set up with 1 device");

	/* The set that runs throughout: its count must be exact. */
	uint32_t whole[2] = { catalog_code(&cb.cat, "kernel.launches:process"), catalog_code(&cb.cat, "sync.calls:process") };
	struct cupti_cb_hold whole_hold = { 0 };
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &whole_hold, whole, 2), 0, "a set runs throughout");
	struct cupti_cb_probe p0 = cupti_cb_callback_probe(&cb, whole[0]), p1 = cupti_cb_callback_probe(&cb, whole[1]);
	uint64_t l0 = cupti_cb_callback_raw(&cb, &p0, NULL), s0 = cupti_cb_callback_raw(&cb, &p1, NULL);

	pthread_t callers[E_CALLERS], churners[E_CHURNERS];
	for (uintptr_t i = 0; i < E_CHURNERS; i++)
		pthread_create(&churners[i], NULL, e_churner, (void *)i);
	for (uintptr_t i = 0; i < E_CALLERS; i++)
		pthread_create(&callers[i], NULL, e_caller, (void *)(i + 1));
	for (int i = 0; i < E_CALLERS; i++)
		pthread_join(callers[i], NULL);
	atomic_store(&e_done, 1);
	unsigned rounds = 0, bad = 0;
	for (int i = 0; i < E_CHURNERS; i++) {
		void *r;
		pthread_join(churners[i], &r);
		if ((uintptr_t)r >= 1000000u)
			bad += (unsigned)((uintptr_t)r - 1000000u);
		else
			rounds += (unsigned)(uintptr_t)r;
	}
	CHECK(rounds > 0, "%u start/read/stop rounds ran beside the calls", rounds);
	CHECK_EQ(bad, 0, "implausible values or failed starts in the churning sets");
	CHECK_EQ(cupti_cb_callback_raw(&cb, &p0, NULL) - l0, (uint64_t)E_CALLERS * E_CALLS,
		 "the set running throughout counts every launch");
	CHECK_EQ(cupti_cb_callback_raw(&cb, &p1, NULL) - s0, (uint64_t)E_CALLERS * ((E_CALLS + 15) / 16),
		 "and every synchronization");
	cupti_cb_services_unhold(&eng, &whole_hold);
	unsigned on = 0;
	for (size_t c = 0; c < sizeof enabled[1]; c++)
		on += atomic_load(&enabled[1][c]) + atomic_load(&enabled[0][c]);
	CHECK_EQ(on, 0, "nothing enabled once every set stopped");
	cupti_cb_callback_destroy(&cb);
}

int main(void)
{
	allocs();
	blocks(B_COUNTERS);
	blocks(CUPTI_CB_THREAD_COUNTERS_OWN);
	engine_churn();
	return checks_done();
}
