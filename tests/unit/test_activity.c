/* test_activity.c: the pieces of the GPU activity source that need no
 * CUPTI: the correlation table (issuing thread by correlation id), the
 * union of busy intervals, the processing of one buffer of records into
 * process and thread totals, with exact values, the buffer pool
 * (bounded, and never one buffer to two takers, under threads), and reads
 * from a SIGPROF handler at 1 kHz while a producer thread, the flushing
 * thread and the main thread deliver records (built under ThreadSanitizer
 * too, which also reports calls that are not async-signal-safe in the
 * handler). */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "check.h"
#include "cupti_cb_activity_buffers.h"
#include "cupti_cb_correlation.h"
#include "cupti_cb_services.h"
#include "cupti_cb_signal_context.h"

static struct cupti_cb_correlation_map map;

#define THREADS 4
#define PER_THREAD 10000

/* Each thread writes its own correlation ids (interleaved, as CUPTI hands
 * them out across threads) and reads them back. */
static void *writer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg, wrong = 0;
	for (uint32_t i = 0; i < PER_THREAD; i++) {
		uint32_t corr = 1000 + i * THREADS + t;
		cupti_cb_correlation_put(&map, corr, t + 1);
		if (cupti_cb_correlation_get(&map, corr) != t + 1)
			wrong++;
	}
	return (void *)(uintptr_t)wrong;
}

static void corr_table(void)
{
	CHECK_EQ(cupti_cb_correlation_get(&map, 7), 0, "an empty table knows nothing");
	cupti_cb_correlation_put(&map, 7, 3);
	CHECK_EQ(cupti_cb_correlation_get(&map, 7), 3, "a recorded call's block");
	CHECK_EQ(cupti_cb_correlation_get(&map, 8), 0, "another id is not found");
	CHECK_EQ(cupti_cb_correlation_get(&map, 7 + CUPTI_CB_CORRELATION_SLOTS), 0, "an id of the same slot is not found");
	cupti_cb_correlation_put(&map, 7 + CUPTI_CB_CORRELATION_SLOTS, 5);
	CHECK_EQ(cupti_cb_correlation_get(&map, 7 + CUPTI_CB_CORRELATION_SLOTS), 5, "the newer call takes the slot");
	CHECK_EQ(cupti_cb_correlation_get(&map, 7), 0, "the oldest is overwritten: a miss, never a wrong block");
	CHECK_EQ(cupti_cb_correlation_get(&map, 0), 0, "id 0 of an empty slot is a miss");

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
		found += cupti_cb_correlation_get(&map, c) == (c - 1000) % THREADS + 1;
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

/* CUPTI's layout as this test writes it: records 8-byte aligned, one
 * after the other. */
static size_t rec_size(CUpti_ActivityKind k)
{
	size_t n = k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof(CUpti_ActivityKernel10)
		 : k == CUPTI_ACTIVITY_KIND_MEMCPY	      ? sizeof(CUpti_ActivityMemcpy6)
							      : sizeof(CUpti_ActivityMemset4);
	return (n + 7) & ~(size_t)7;
}

static CUptiResult walk(uint8_t *buf, size_t valid, CUpti_Activity **r)
{
	size_t off = *r ? (size_t)((uint8_t *)*r - buf) + rec_size((*r)->kind) : 0;
	if (off >= valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*r = (CUpti_Activity *)(buf + off);
	return CUPTI_SUCCESS;
}

static _Alignas(8) uint8_t buffer[4096];

static size_t put_kernel(size_t off, uint32_t corr, uint32_t dev, uint64_t s, uint64_t e)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.correlationId = corr, k.deviceId = dev, k.start = s, k.end = e;
	memcpy(buffer + off, &k, sizeof k);
	return off + rec_size(k.kind);
}

static size_t put_copy(size_t off, uint32_t corr, uint32_t dev, uint8_t kind, uint64_t bytes)
{
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = kind, m.bytes = bytes, m.correlationId = corr, m.deviceId = dev, m.start = 10, m.end = 15;
	memcpy(buffer + off, &m, sizeof m);
	return off + rec_size(m.kind);
}

static size_t put_memset(size_t off, uint32_t corr, uint32_t dev, uint64_t bytes)
{
	CUpti_ActivityMemset4 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.bytes = bytes, m.correlationId = corr, m.deviceId = dev, m.start = 20, m.end = 27;
	memcpy(buffer + off, &m, sizeof m);
	return off + rec_size(m.kind);
}

static uint64_t at(const _Atomic uint64_t *rows, unsigned row, unsigned slot)
{
	return atomic_load(&rows[(size_t)row * CUPTI_CB_N_ACT_SLOTS + slot]);
}

static void processing(void)
{
	static struct cupti_cb_services eng;
	static struct cupti_cb_activity a;
	struct cupti_cb_layout lay;
	cupti_cb_layout_init(&lay, 2);
	size_t act = cupti_cb_layout_add(&lay, (size_t)lay.n_devrows * CUPTI_CB_N_ACT_SLOTS);
	CHECK_EQ(cupti_cb_thread_registry_init(&eng.reg, &lay), 0, "registry");
	eng.n_devices = 2;
	CHECK_EQ(cupti_cb_activity_init(&a, &eng), -1, "no libcupti: activity says it cannot work");
	a.off = act;
	CHECK(a.why[0] != 0, "why: %s", a.why);
	a.fn.next_record = walk;
	a.map = calloc(1, sizeof *a.map);
	struct cupti_cb_thread_counters *b = cupti_cb_thread_counters_slow(&eng.reg);
	CHECK(b && b->id == 1, "the first block has id 1");
	cupti_cb_correlation_put(a.map, 10, b->id);
	cupti_cb_correlation_put(a.map, 12, b->id);

	size_t off = put_kernel(0, 10, 1, 100, 200);
	off = put_kernel(off, 10, 1, 150, 260);			/* a graph's second kernel */
	off = put_copy(off, 12, 0, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, 64);
	off = put_copy(off, 12, 0, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, 32);
	off = put_memset(off, 11, 7, 4096);			/* no recorded call, unknown device */
	cupti_cb_activity_process(&a, buffer, off);

	const _Atomic uint64_t *own = b->c + a.off;
	CHECK_EQ(atomic_load(&a.records), 5, "five records processed");
	CHECK_EQ(at(own, 1, CUPTI_CB_A_KERNELS), 2, "thread: two kernels on device 1");
	CHECK_EQ(at(own, 1, CUPTI_CB_A_KERNEL_TIME), 210, "thread: their time");
	CHECK_EQ(at(own, 1, CUPTI_CB_A_BUSY), 160, "thread: their union on device 1");
	CHECK_EQ(at(own, 0, CUPTI_CB_A_BYTES_DTOH), 64, "thread: AtoH is dtoh");
	CHECK_EQ(at(own, 0, CUPTI_CB_A_BYTES_PEER), 32, "thread: PtoP is peer");
	CHECK_EQ(at(own, 0, CUPTI_CB_A_MEMCPY_COUNT), 2, "thread: two copies on device 0");
	CHECK_EQ(at(own, 0, CUPTI_CB_A_MEMCPY_TIME), 10, "thread: their time");
	CHECK_EQ(at(own, 2, CUPTI_CB_A_MEMSET_COUNT), 0, "thread: the unattributed memset is not the thread's");
	CHECK_EQ(at(a.all, 2, CUPTI_CB_A_MEMSET_COUNT), 1, "process: a device beyond the count lands in the last row");
	CHECK_EQ(at(a.all, 2, CUPTI_CB_A_MEMSET_BYTES), 4096, "process: its bytes");
	CHECK_EQ(at(a.all, 1, CUPTI_CB_A_KERNELS), 2, "process: the kernels");
	CHECK_EQ(at(a.all, 0, CUPTI_CB_A_BYTES_DTOH) + at(a.all, 0, CUPTI_CB_A_BYTES_PEER), 96, "process: the bytes");
	CHECK_EQ(atomic_load(&a.unattributed), 1, "one record without an issuing thread");
	cupti_cb_activity_process(&a, buffer, 0);
	CHECK_EQ(atomic_load(&a.records), 5, "an empty buffer adds nothing");
}

static struct cupti_cb_activity pool;

/* Every buffer is owned by one taker at a time: a taker stamps it with its
 * id and checks the stamp before it gives it back. */
static void *pool_user(void *arg)
{
	uintptr_t me = (uintptr_t)arg, wrong = 0;
	for (unsigned i = 0; i < 20000; i++) {
		uint8_t *b = cupti_cb_activity_buffer_get(&pool);
		if (!b) {
			wrong++;	/* 8 takers never exhaust 64 buffers */
			continue;
		}
		memcpy(b, &me, sizeof me);
		if (i % 64 == 0)
			sched_yield();
		uintptr_t seen;
		memcpy(&seen, b, sizeof seen);
		wrong += seen != me;
		cupti_cb_activity_buffer_put(&pool, b);
	}
	return (void *)wrong;
}

static void buffer_pool(void)
{
	uint8_t *got[CUPTI_CB_ACT_BUF_MAX + 1];
	unsigned n = 0, distinct = 1;
	pthread_mutex_init(&pool.grow_lock, NULL);
	while (n <= CUPTI_CB_ACT_BUF_MAX && (got[n] = cupti_cb_activity_buffer_get(&pool)))
		n++;
	CHECK_EQ(n, CUPTI_CB_ACT_BUF_MAX, "the pool hands out at most its bound, then NULL");
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			distinct &= got[i] != got[j];
	CHECK(distinct, "every buffer handed out is a different one");
	for (unsigned i = 0; i < n; i++)
		cupti_cb_activity_buffer_put(&pool, got[i]);
	uint8_t *again = cupti_cb_activity_buffer_get(&pool);
	CHECK(again != NULL, "a returned buffer is handed out again");
	if (again)
		cupti_cb_activity_buffer_put(&pool, again);
	CHECK_EQ(atomic_load(&pool.n_bufs), CUPTI_CB_ACT_BUF_MAX, "without allocating more");

	/* A fresh pool under 8 threads: the buffers above go back to libc. */
	for (unsigned i = 0; i < CUPTI_CB_ACT_BUF_MAX; i++)
		free(atomic_exchange(&pool.free_slot[i], NULL));
	atomic_store(&pool.n_bufs, 0);
	pthread_t t[8];
	uintptr_t wrong = 0;
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, pool_user, (void *)(i + 1));
	for (unsigned i = 0; i < 8; i++) {
		void *w;
		pthread_join(t[i], &w);
		wrong += (uintptr_t)w;
	}
	CHECK_EQ(wrong, 0, "8 threads x 20000 takes: never a buffer owned twice, never refused");
	/* A taker that scans past a slot just before a buffer lands in it grows
	 * the pool: the promise is the bound, not the fewest buffers. */
	CHECK(atomic_load(&pool.n_bufs) <= CUPTI_CB_ACT_BUF_MAX, "within the bound (%u buffers)",
	      atomic_load(&pool.n_bufs));
	for (unsigned i = 0; i < CUPTI_CB_ACT_BUF_MAX; i++)
		free(atomic_exchange(&pool.free_slot[i], NULL));
}

/* ---- reads in a signal handler ------------------------------------------- */

#define HANDLER_KERNELS 20000
static struct cupti_cb_services heng;
static struct cupti_cb_activity hact;
static struct cupti_cb_busy_window *hwin;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fake_cupti_lock = PTHREAD_MUTEX_INITIALIZER;	/* CUPTI's own, held in a flush */
static _Alignas(8) uint8_t pending[64 * 1024], flushing[64 * 1024];
static size_t n_pending;
static atomic_int produced_all;

/* cuptiActivityFlushAll as CUPTI does it: under its own lock, hands the
 * records written so far to the buffer-completed processing. */
static CUptiResult fake_flush_all(uint32_t flag)
{
	(void)flag;
	pthread_mutex_lock(&fake_cupti_lock);
	pthread_mutex_lock(&pending_lock);
	size_t n = n_pending;
	memcpy(flushing, pending, n);
	n_pending = 0;
	pthread_mutex_unlock(&pending_lock);
	cupti_cb_activity_process(&hact, flushing, n);
	pthread_mutex_unlock(&fake_cupti_lock);
	return CUPTI_SUCCESS;
}

static void *producer(void *arg)
{
	(void)arg;
	size_t rec = rec_size(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	for (uint64_t i = 0; i < HANDLER_KERNELS;) {
		pthread_mutex_lock(&pending_lock);
		if (n_pending + rec <= sizeof pending) {
			CUpti_ActivityKernel10 k;
			memset(&k, 0, sizeof k);
			k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
			k.deviceId = 0, k.start = 100 * i + 1, k.end = 100 * i + 61;
			memcpy(pending + n_pending, &k, sizeof k);
			n_pending += rec;
			i++;
		}
		pthread_mutex_unlock(&pending_lock);
		if (i % 64 == 0)
			sched_yield();
	}
	atomic_store(&produced_all, 1);
	return NULL;
}

static volatile sig_atomic_t h_reads, h_down, h_not_ctx;
static uint64_t h_last_kernels, h_last_busy;

/* What the activity source's read does in a handler: loads, no flush. */
static void handler_read(int sig)
{
	(void)sig;
	if (!cupti_cb_in_signal_context())
		h_not_ctx = 1;
	uint64_t k = atomic_load_explicit(&hact.all[CUPTI_CB_A_KERNELS], memory_order_relaxed);
	uint64_t b = atomic_load_explicit(&hwin->total, memory_order_relaxed);
	if (k < h_last_kernels || b < h_last_busy)
		h_down = 1;
	h_last_kernels = k, h_last_busy = b;
	h_reads++;
}

static void flush_for_flusher(void *a)
{
	cupti_cb_activity_flush(a);
}

static void handler_reads(void)
{
	struct cupti_cb_layout lay;
	cupti_cb_layout_init(&lay, 1);
	size_t act = cupti_cb_layout_add(&lay, (size_t)lay.n_devrows * CUPTI_CB_N_ACT_SLOTS);
	CHECK_EQ(cupti_cb_thread_registry_init(&heng.reg, &lay), 0, "registry");
	heng.n_devices = 1;
	cupti_cb_activity_init(&hact, &heng);
	hact.off = act;
	hact.fn.next_record = walk;
	hact.fn.flush_all = fake_flush_all;
	hwin = cupti_cb_busy_window_new(CUPTI_CB_BUSY_PROCESS, NULL, 0, -1, hact.n_devrows);
	cupti_cb_activity_window_add(&hact, hwin);
	cupti_cb_flusher_init(&hact.flusher, 1, flush_for_flusher, &hact);
	CHECK_EQ(cupti_cb_flusher_start(&hact.flusher), 0, "the flushing thread starts");
	cupti_cb_signal_context_mark();	/* the thread's own code, as its PAPI_start marks it */
	CHECK_EQ(cupti_cb_in_signal_context(), 0, "outside a handler: not a signal context");

	signal(SIGPROF, handler_read);
	timer_t t;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0, "a 1 kHz SIGPROF timer");
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	timer_settime(t, 0, &it, NULL);

	pthread_t p;
	pthread_create(&p, NULL, producer, NULL);
	unsigned restarts = 0;
	while (!atomic_load(&produced_all) || h_reads < 200) {
		cupti_cb_activity_flush(&hact);	/* an ordinary read's flush */
		if (++restarts % 50 == 0) {
			uint64_t base;
			cupti_cb_activity_window_restart(&hact, hwin, 1, &base);
		}
		usleep(200);
	}
	pthread_join(p, NULL);
	timer_delete(t);
	signal(SIGPROF, SIG_IGN);
	cupti_cb_flusher_stop(&hact.flusher);
	cupti_cb_activity_flush(&hact);

	CHECK(h_reads >= 200, "the handler read %d times", (int)h_reads);
	CHECK_EQ(h_not_ctx, 0, "inside the handler: a signal context");
	CHECK_EQ(h_down, 0, "no value read in the handler went down");
	CHECK_EQ(atomic_load(&hact.all[CUPTI_CB_A_KERNELS]), HANDLER_KERNELS, "every kernel was processed once");
	CHECK_EQ(atomic_load(&hwin->total), 60 * (uint64_t)HANDLER_KERNELS, "the window: their disjoint 60 ns each");
	CHECK(hact.flusher.rounds > 0, "the flushing thread flushed (%lu rounds)", hact.flusher.rounds);
	cupti_cb_activity_window_remove(&hact, hwin);
	free(hwin);
}

/* fork() while another thread holds the flushing thread's lock: the child
 * (which has no flushing thread) stops it without waiting for that lock,
 * as its exit handler does; before, it waited for ever. */
static void flush_nothing(void *arg)
{
	(void)arg;
}

static pthread_mutex_t *held_mu;
static int holding, release_it;
static pthread_mutex_t hold_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;

static void *hold_lock(void *arg)
{
	(void)arg;
	pthread_mutex_lock(held_mu);
	pthread_mutex_lock(&hold_m);
	holding = 1;
	pthread_cond_broadcast(&hold_cv);
	while (!release_it)
		pthread_cond_wait(&hold_cv, &hold_m);
	pthread_mutex_unlock(&hold_m);
	pthread_mutex_unlock(held_mu);
	return NULL;
}

static void flusher_fork(void)
{
	static struct cupti_cb_flusher f;
	cupti_cb_flusher_init(&f, 1000, flush_nothing, NULL);
	CHECK_EQ(cupti_cb_flusher_start(&f), 0, "a flushing thread starts");
	held_mu = &f.mu;
	pthread_t t;
	pthread_create(&t, NULL, hold_lock, NULL);
	pthread_mutex_lock(&hold_m);
	while (!holding)
		pthread_cond_wait(&hold_cv, &hold_m);
	pthread_mutex_unlock(&hold_m);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(5);	/* a wait for ever is a SIGALRM */
		cupti_cb_flusher_stop(&f);
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a fork child stops the flusher with its lock held at the fork (child %s %d)",
	      WIFSIGNALED(status) ? "killed by signal" : "exit status",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	pthread_mutex_lock(&hold_m);
	release_it = 1;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&hold_m);
	pthread_join(t, NULL);
	cupti_cb_flusher_stop(&f);
}

int main(void)
{
	corr_table();
	busy_union();
	processing();
	buffer_pool();
	handler_reads();
	flusher_fork();
	return checks_done();
}
