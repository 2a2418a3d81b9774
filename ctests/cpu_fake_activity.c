/*
 * cpu_fake_activity: the GPU activity source (gpu.* events) through PAPI, with the fake
 * libcupti's Activity API (fake_activity.c) playing the records CUPTI would deliver.  Each case
 * is a fresh process.
 *
 *   listing  - the 14 gpu.* events are listed with :process and :device=N qualifiers; names
 *              round-trip, units and data types are right; bad names get PAPI_ENOEVNT.
 *   threads  - 4 threads each issue a different number of launches (thread 0 also a graph
 *              launch of 3 kernels): each thread's set counts exactly the kernels of its own
 *              calls, the process-scope set all of them plus a record no thread issued.
 *   copies   - copies of distinct sizes in each CUPTI copy kind: exact bytes per direction,
 *              count and time; memsets; :device=1 sees only device 1's work.
 *   busy     - overlapping kernels: gpu.busy_ns is their union (less than the sum, at least
 *              the longest), per thread and per process.
 *   window   - records delivered before the start are not counted; records are counted by
 *              the read whose flush delivered them.
 *   straddle - gpu.busy_ns of a window is the union of the work that window counts: a kernel
 *              overlapping one of the window before (after a reset, after a stop and start)
 *              counts whole, never less than itself; a set that was not reset sees the union of
 *              both.
 *   handler  - PAPI_read from a SIGPROF handler at 1 kHz on the thread that plays CUDA calls and
 *              activity records, reads, resets and flushes: no hang (a watchdog), no value goes
 *              down between resets, and the ordinary reads stay exact.
 *   nested   - a SIGPROF handler's read inside the flush of an ordinary read right after a
 *              reset: it gets the values since the reset (the last completed read's), never
 *              the window before the reset.
 *   atexit   - a program that exits with a gpu.* set running, without PAPI_shutdown: the
 *              flushing thread is stopped before libcupti's teardown (a flush after it
 *              aborts the fake).
 *   flusher  - a set read only from a signal handler sees records the flushing thread delivered
 *              (CUPTI_CB_FLUSH_MS); with CUPTI_CB_FLUSH_MS=0 only those of the last ordinary read.
 *   readreset - TAU's and Caliper's read + reset at every boundary, with CUPTI's worker thread
 *              delivering records between the read and the reset (of work issued before the
 *              read): the windows' values add up to the whole, in ordinary code and with SIGPROF
 *              blocked (a signal handler's reads); work issued between them still closes the
 *              window before the reset (the window case).
 *   handlerbase - TAU's read + reset with its SIGPROF sampler's read in between, after a record
 *              of work issued before the read arrived: the reset continues from the thread's
 *              read, not the handler's; the windows add up to both kernels (1 + 1, not 1 + 0).
 *   inflight - CUPTI's worker thread is handing a buffer of a thread's kernels over when that
 *              thread reads (its flush finds nothing left): the read waits for the buffer and
 *              counts every kernel, not only those handed over so far.
 *   dropped  - dropped records: the read still returns the values, PAPI prints a warning, and
 *              CUPTI_CB_TRACE=1 prints how many.
 *   noflush  - a set without gpu.* events never flushes, registers or enables activity.
 *   mixed    - callback and activity events in one set.
 *   refused  - another tool owns the activity buffers: the start of a gpu.* set fails with
 *              PAPI_ECNFLCT and a sentence; callback sets keep counting.
 *   synced   - records of work the thread synchronized come late (CUPTI's flushes hand over
 *              nothing while a buffer holds another thread's unfinished work): a stop right
 *              after cuCtxSynchronize flushes until they are in, and counts every kernel and copy;
 *              a launch that failed is not waited for.
 *   missing  - they do not come within CUPTI_CB_ACTIVITY_WAIT_MS: the read fails with
 *              PAPI_ECLOST and says how many are missing; the next read, once they came, is exact;
 *              work issued after the last synchronization is never waited for.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include <cupti_activity.h>

#define NTHREADS 4

/* One driver call of an operation; returns its correlation id, as CUPTI's record carries it. */
static uint32_t issue(CUpti_CallbackId cbid, const void *params, CUcontext ctx)
{
    struct fake_call c;
    fake_call_init(&c, FAKE_DRV, cbid, params, CUDA_SUCCESS, ctx);
    fake_enter(&c);
    fake_exit(&c);
    return c.correlation_id;
}

static uint32_t launch(CUcontext ctx)
{
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    return issue(DCB(cuLaunchKernel), &p, ctx);
}

static uint32_t graph_launch(CUcontext ctx)
{
    cuGraphLaunch_params p;
    memset(&p, 0, sizeof p);
    return issue(DCB(cuGraphLaunch), &p, ctx);
}

static uint32_t copy_call(CUcontext ctx)
{
    static char host[16];
    cuMemcpyHtoD_v2_params p = {fake_dev_ptr(0, 0), host, 16};
    return issue(DCB(cuMemcpyHtoD_v2), &p, ctx);
}

static uint32_t memset_call(CUcontext ctx)
{
    cuMemsetD8_v2_params p = {fake_dev_ptr(0, 0), 0, 16};
    return issue(DCB(cuMemsetD8_v2), &p, ctx);
}

static void check_name(const char *name, const char *want_back, const char *units)
{
    int code = 0;
    char back[PAPI_MAX_STR_LEN] = "";
    PAPI_event_info_t info;
    int rc = PAPI_event_name_to_code(name, &code);
    if (!ct_result(rc == PAPI_OK, "%s resolves (%s)", name, ct_papi_err(rc)))
        return;
    PAPI_event_code_to_name(code, back);
    ct_result(!strcmp(back, want_back), "%s names back as %s (got %s)", name, want_back, back);
    memset(&info, 0, sizeof info);
    PAPI_get_event_info(code, &info);
    ct_result(!strcmp(info.units, units), "%s: units \"%s\" (got \"%s\")", name, units, info.units);
    ct_result(info.data_type == PAPI_DATATYPE_UINT64, "%s: UINT64 (got %d)", name, info.data_type);
}

static void check_bad(const char *name)
{
    int code = 0, rc = PAPI_event_name_to_code(name, &code);
    ct_result(rc == PAPI_ENOEVNT, "%s -> PAPI_ENOEVNT (got %s)", name, ct_papi_err(rc));
}

static int listing_case(void)
{
    static const char *const want[] = { "gpu.kernels", "gpu.kernel_time_ns", "gpu.memcpy.count",
        "gpu.memcpy.bytes", "gpu.memcpy.bytes_htod", "gpu.memcpy.bytes_dtoh", "gpu.memcpy.bytes_dtod",
        "gpu.memcpy.bytes_htoh", "gpu.memcpy.bytes_peer", "gpu.memcpy.time_ns", "gpu.memset.count",
        "gpu.memset.bytes", "gpu.memset.time_ns", "gpu.busy_ns" };
    fake_device_count(CUDA_SUCCESS, 2);
    ct_library_init();
    int cidx = cb_cidx(), code = PAPI_NATIVE_MASK, n_gpu = 0, in_order = 1, quals = 0;
    /* The driver stage first, so that the walk lists device qualifiers. */
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx));
    do {
        PAPI_event_info_t info;
        if (PAPI_get_event_info(code, &info) != PAPI_OK || !strstr(info.symbol, ":::gpu."))
            continue;
        if (n_gpu < 14 && strcmp(strstr(info.symbol, ":::") + 3, want[n_gpu]))
            in_order = 0;
        if (n_gpu++ == 0) {
            int q = code;
            while (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK)
                quals++;
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    CHECK_EQ("14 gpu.* events listed", n_gpu, 14);
    CHECK_TRUE("in the documented order, with the documented names", in_order);
    CHECK_EQ("gpu.kernels takes :process, :device=0, :device=1", quals, 3);
    for (unsigned i = 0; i < 14; i++) {
        char full[128];
        snprintf(full, sizeof full, "cupti_cb:::%s", want[i]);
        const char *u = strstr(want[i], "_ns") ? "ns" : strstr(want[i], "bytes") ? "bytes" : "";
        check_name(full, full, u);
    }
    check_name("cupti_cb:::gpu.kernels:device1", "cupti_cb:::gpu.kernels:device=1", "");
    check_name("cupti_cb:::gpu.busy_ns:device=0:process", "cupti_cb:::gpu.busy_ns:device=0:process", "ns");
    check_name("cupti_cb:::gpu.memcpy.bytes:thread", "cupti_cb:::gpu.memcpy.bytes", "bytes");
    check_bad("cupti_cb:::gpu.kernelz");
    check_bad("cupti_cb:::gpu.kernels:device=2");
    check_bad("cupti_cb:::gpu.kernels:nosuch");
    check_bad("cupti_cb:::gpu.");
    return ct_done();
}

/* ---- threads ---- */

static pthread_barrier_t bar;
static long long thread_seen[NTHREADS];
static const int per_thread[NTHREADS] = { 2, 5, 7, 11 };

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, es = PAPI_NULL;
    long long v[2];
    PAPI_MUST(PAPI_register_thread());
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(ct_add(es, "gpu.kernel_time_ns"));
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&bar);
    for (int i = 0; i < per_thread[t]; i++) {
        uint32_t corr = launch(FAKE_CTX0);
        uint64_t t0 = 1000000u * (uint64_t)(t + 1) + 1000u * (uint64_t)i;
        fake_activity_kernel(corr, t0, t0 + 100, 0);
    }
    if (t == 0) {
        uint32_t corr = graph_launch(FAKE_CTX0);
        for (int k = 0; k < 3; k++)
            fake_activity_kernel(corr, 9000000u + 1000u * (uint64_t)k, 9000000u + 1000u * (uint64_t)k + 100, 0);
    }
    pthread_barrier_wait(&bar);	/* every record played: each read flushes them all */
    PAPI_MUST(PAPI_read(es, v));
    thread_seen[t] = v[0];
    ct_result(v[1] == 100 * v[0], "thread %d: kernel time %lld ns = 100 ns per kernel", t, v[1]);
    pthread_barrier_wait(&bar);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    PAPI_MUST(PAPI_unregister_thread());
    return NULL;
}

static int threads_case(void)
{
    long long v[2];
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    int proc = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&proc));
    PAPI_MUST(ct_add(proc, "gpu.kernels:process"));
    PAPI_MUST(ct_add(proc, "gpu.kernels"));
    PAPI_MUST(PAPI_start(proc));
    pthread_t th[NTHREADS];
    pthread_barrier_init(&bar, NULL, NTHREADS + 1);
    for (intptr_t t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    pthread_barrier_wait(&bar);
    fake_activity_kernel(0x7fffffffu, 50, 60, 0);	/* work no recorded call issued */
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    long long total = 0;
    for (int t = 0; t < NTHREADS; t++) {
        long long want = per_thread[t] + (t == 0 ? 3 : 0);
        char what[96];
        snprintf(what, sizeof what, "thread %d's set sees exactly its kernels (graph kernels included)", t);
        CHECK_EQ(what, thread_seen[t], want);
        total += want;
    }
    PAPI_MUST(PAPI_stop(proc, v));
    CHECK_EQ("the process-scope event sees every kernel, unattributed ones included", v[0], total + 1);
    CHECK_EQ("main thread's own thread-scope event sees none", v[1], 0);
    return ct_done();
}

/* ---- copies ---- */

static int copies_case(void)
{
    static const char *const names[] = { "gpu.memcpy.bytes_htod", "gpu.memcpy.bytes_dtoh",
        "gpu.memcpy.bytes_dtod", "gpu.memcpy.bytes_htoh", "gpu.memcpy.bytes_peer", "gpu.memcpy.bytes",
        "gpu.memcpy.count", "gpu.memcpy.time_ns", "gpu.memset.count", "gpu.memset.bytes",
        "gpu.memset.time_ns", "gpu.memcpy.bytes:device=1", "gpu.memcpy.count:device=0" };
    enum { N = sizeof names / sizeof names[0] };
    long long v[N];
    fake_device_count(CUDA_SUCCESS, 2);
    ct_library_init();
    int es = ct_eventset(N, names);
    PAPI_MUST(PAPI_start(es));
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1000, 0, 10, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, 1, 20, 30, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 2000, 40, 50, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, 2, 60, 70, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 30000, 80, 90, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, 3, 100, 110, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, 400000, 120, 130, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX1), CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, 5000000, 140, 150, 1);
    fake_activity_peer(copy_call(FAKE_CTX1), 60000000, 160, 170, 1);
    fake_activity_memset(memset_call(FAKE_CTX0), 777, 200, 233, 0);
    fake_activity_memset(memset_call(FAKE_CTX0), 223, 300, 301, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("htod: HtoD and HtoA", v[0], 1001);
    CHECK_EQ("dtoh: DtoH and AtoH", v[1], 2002);
    CHECK_EQ("dtod: DtoD and AtoA", v[2], 30003);
    CHECK_EQ("htoh", v[3], 400000);
    CHECK_EQ("peer: PtoP in a memcpy record and a peer record", v[4], 65000000);
    CHECK_EQ("memcpy.bytes: every direction", v[5], 1001 + 2002 + 30003 + 400000 + 65000000);
    CHECK_EQ("memcpy.count", v[6], 9);
    CHECK_EQ("memcpy.time_ns", v[7], 90);
    CHECK_EQ("memset.count", v[8], 2);
    CHECK_EQ("memset.bytes", v[9], 1000);
    CHECK_EQ("memset.time_ns", v[10], 34);
    CHECK_EQ("memcpy.bytes:device=1: the two peer copies", v[11], 65000000);
    CHECK_EQ("memcpy.count:device=0", v[12], 7);
    return ct_done();
}

/* ---- busy ---- */

static int busy_case(void)
{
    static const char *const names[] = { "gpu.busy_ns", "gpu.kernel_time_ns", "gpu.busy_ns:process",
                                         "gpu.busy_ns:device=0" };
    long long v[4];
    ct_library_init();
    int es = ct_eventset(4, names);
    PAPI_MUST(PAPI_start(es));
    fake_activity_kernel(launch(FAKE_CTX0), 1000, 6000, 0);	/* 5 us on one stream */
    fake_activity_kernel(launch(FAKE_CTX0), 2000, 11000, 0);	/* 9 us on another, overlapping */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("kernel time: the sum", v[1], 14000);
    CHECK_EQ("busy: the union", v[0], 10000);
    CHECK_TRUE("less than the sum, at least the longest", v[0] < 14000 && v[0] >= 9000);
    CHECK_EQ("process busy: the union", v[2], 10000);
    CHECK_EQ("busy:device=0", v[3], 10000);
    fake_activity_memset(memset_call(FAKE_CTX0), 8, 10000, 12000, 0);	/* overlaps by 1 us */
    fake_activity_kernel(launch(FAKE_CTX0), 20000, 21000, 0);	/* after an idle gap */
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("busy after a memset overlapping the end and a later kernel", v[0], 10000 + 1000 + 1000);
    return ct_done();
}

/* ---- straddle ---- */

static unsigned long pthread_self_id(void)
{
    return (unsigned long)pthread_self();
}

/* A set of gpu.busy_ns:process on its own thread (PAPI runs one set of a
 * component per thread), started at step 0 and read at step 1. */
static pthread_barrier_t steps;
static long long other_busy;

static void *other_set(void *arg)
{
    (void)arg;
    int es = PAPI_NULL;
    long long v[1];
    PAPI_register_thread();
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.busy_ns:process"));
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&steps);
    pthread_barrier_wait(&steps);
    PAPI_MUST(PAPI_stop(es, v));
    other_busy = v[0];
    pthread_barrier_wait(&steps);
    return NULL;
}

static int straddle_case(void)
{
    static const char *const names[] = { "gpu.busy_ns", "gpu.busy_ns:process" };
    long long v[2];
    pthread_t other;
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(pthread_self_id));
    pthread_barrier_init(&steps, NULL, 2);
    pthread_create(&other, NULL, other_set, NULL);
    pthread_barrier_wait(&steps);
    int es = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(es));
    fake_activity_kernel(launch(FAKE_CTX0), 0, 10000, 0);	/* 10 us */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("the first window: its kernel", v[0], 10000);
    PAPI_MUST(PAPI_reset(es));
    fake_activity_kernel(launch(FAKE_CTX0), 5000, 25000, 0);	/* 20 us, overlapping the first by 5 */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("after a reset: the kernel in the window counts whole", v[0], 20000);
    CHECK_EQ("process scope too", v[1], 20000);
    PAPI_MUST(PAPI_stop(es, v));
    PAPI_MUST(PAPI_start(es));
    fake_activity_kernel(launch(FAKE_CTX0), 20000, 30000, 0);	/* inside the union of the window before */
    fake_activity_kernel(launch(FAKE_CTX0), 40000, 41000, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after a stop and a start: both kernels whole", v[0], 11000);
    pthread_barrier_wait(&steps);
    pthread_barrier_wait(&steps);
    CHECK_EQ("a set that ran throughout: the union, 0..30 us and 40..41 us", other_busy, 31000);
    pthread_join(other, NULL);
    return ct_done();
}

/* ---- handler ---- */

#define HANDLER_EVENTS 4
static int sig_es = PAPI_NULL;
static volatile sig_atomic_t sig_gen;		/* bumped by the main thread after each reset */
static long long sig_last[HANDLER_EVENTS];
static int sig_last_gen = -1;
static volatile sig_atomic_t sig_reads, sig_bad_rc, sig_went_down;

static void sigprof_reader(int sig)
{
    (void)sig;
    int saved = errno;
    long long v[HANDLER_EVENTS];
    int rc = PAPI_read(sig_es, v);
    if (rc != PAPI_OK) {
        sig_bad_rc = rc;
    } else {
        if (sig_last_gen == sig_gen && sig_gen % 2 == 0)
            for (int i = 0; i < HANDLER_EVENTS; i++)
                if (v[i] < sig_last[i])
                    sig_went_down = 1;
        memcpy(sig_last, v, sizeof v);
        sig_last_gen = sig_gen;
        sig_reads++;
    }
    errno = saved;
}

static void *watchdog(void *arg)
{
    sleep((unsigned)(uintptr_t)arg);
    fflush(stdout); /* _exit below does not */
    fprintf(stderr, "FAIL: handler: still running after %u s: a read in the SIGPROF handler hangs\n",
            (unsigned)(uintptr_t)arg);
    _exit(1);
    return NULL;
}

static int handler_case(void)
{
    static const char *const names[HANDLER_EVENTS] = { "kernel.launches", "gpu.kernels", "gpu.busy_ns",
                                                       "gpu.kernel_time_ns:process" };
    long long v[HANDLER_EVENTS];
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, (void *)(uintptr_t)60);
    ct_library_init();
    sig_es = ct_eventset(HANDLER_EVENTS, names);
    PAPI_MUST(PAPI_start(sig_es));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sigprof_reader;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    timer_t t = ct_sigprof_timer(1000);
    uint64_t clock = 0;
    long long launched = 0, exact_misses = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int round = 0;; round++) {
        for (int k = 0; k < 50; k++, clock += 100, launched++)
            fake_activity_kernel(launch(FAKE_CTX0), clock, clock + 60, 0);
        PAPI_MUST(PAPI_read(sig_es, v));	/* an ordinary read flushes: exact */
        exact_misses += v[0] != launched || v[1] != launched || v[2] != 60 * launched;
        if (round % 10 == 9) {
            sig_gen++;	/* odd: a reset in progress, whose reads compare with nothing */
            PAPI_MUST(PAPI_reset(sig_es));
            launched = 0;
            sig_gen++;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= 3 && sig_reads >= 500)
            break;
        if (now.tv_sec - t0.tv_sec >= 30)
            break;
    }
    timer_delete(t);
    signal(SIGPROF, SIG_IGN);
    PAPI_MUST(PAPI_stop(sig_es, v));
    printf("handler: %d reads in the handler\n", (int)sig_reads);
    CHECK_TRUE("the handler read at least 500 times", sig_reads >= 500);
    CHECK_EQ("every read in the handler returned PAPI_OK", sig_bad_rc, PAPI_OK);
    CHECK_EQ("no value went down between resets", sig_went_down, 0);
    CHECK_EQ("the ordinary reads stayed exact", exact_misses, 0);
    CHECK_EQ("the stop: exact", v[1], launched);
    return ct_done();
}

/* ---- flusher ---- */

static long long handler_value;

static void read_once(int sig)
{
    (void)sig;
    long long v[1];
    if (PAPI_read(sig_es, v) == PAPI_OK)
        handler_value = v[0];
}

/* sig_es: {gpu.kernels}, started, read once by each SIGPROF (read_once). */
static void start_read_once_set(void)
{
    sig_es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&sig_es));
    PAPI_MUST(ct_add(sig_es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(sig_es));
    signal(SIGPROF, read_once);
}

/* The kernels a read in a SIGPROF handler sees 300 ms after they were played. */
static long long seen_from_handler(void)
{
    long long v[1];
    ct_library_init();
    start_read_once_set();
    for (int i = 0; i < 7; i++)
        fake_activity_kernel(launch(FAKE_CTX0), 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    usleep(300000);
    handler_value = -1;
    raise(SIGPROF);
    PAPI_MUST(PAPI_stop(sig_es, v));
    CHECK_EQ("the stop (an ordinary read): all 7", v[0], 7);
    return handler_value;
}

static int flusher_case(void)
{
    CHECK_EQ("a read in a handler: the 7 kernels the flushing thread delivered", seen_from_handler(), 7);
    return ct_done();
}

static int noflusher_case(void)
{
    setenv("CUPTI_CB_FLUSH_MS", "0", 1);
    CHECK_EQ("no flushing thread: a read in a handler sees the last ordinary read's", seen_from_handler(), 0);
    return ct_done();
}

/* ---- nested ---- */

static int nested_case(void)
{
    long long v[1];
    ct_library_init();
    start_read_once_set();
    for (int i = 0; i < 5; i++)
        fake_activity_kernel(launch(FAKE_CTX0), 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    PAPI_MUST(PAPI_read(sig_es, v));
    CHECK_EQ("before the reset: 5 kernels", v[0], 5);
    PAPI_MUST(PAPI_reset(sig_es));
    fake_activity_kernel(launch(FAKE_CTX0), 1000, 1050, 0);
    handler_value = -1;
    fake_activity_signal_in_flush(SIGPROF);
    PAPI_MUST(PAPI_read(sig_es, v));
    CHECK_EQ("the handler read inside the read after the reset: the window since the reset", handler_value, 0);
    CHECK_EQ("the ordinary read: 1 kernel since the reset", v[0], 1);
    PAPI_MUST(PAPI_stop(sig_es, v));
    return ct_done();
}

/* ---- atexit ---- */

static int atexit_case(void)
{
    setenv("CUPTI_CB_FLUSH_MS", "1", 1);
    setenv("FAKE_CUPTI_EXIT_PAUSE_MS", "200", 1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    fake_activity_kernel(launch(FAKE_CTX0), 10, 20, 0);
    usleep(20000);
    CHECK_REL("the flushing thread flushed meanwhile", fake_activity_flushes(), ">=", 2);
    return ct_done();	/* exits with the set running */
}

/* ---- window ---- */

static int window_case(void)
{
    long long v[1];
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    PAPI_MUST(PAPI_stop(es, v));
    /* Work finished while the set was stopped: delivered by the next start's flush, which
     * counts it before the window opens. */
    fake_activity_kernel(launch(FAKE_CTX0), 10, 20, 0);
    PAPI_MUST(PAPI_start(es));
    CHECK_EQ("the start's flush delivered the earlier record", fake_activity_queued(), 0);
    fake_activity_kernel(launch(FAKE_CTX0), 30, 40, 0);
    fake_activity_kernel(launch(FAKE_CTX0), 50, 60, 0);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("a read counts what its flush delivered", v[0], 2);
    fake_activity_kernel(launch(FAKE_CTX0), 70, 80, 0);
    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("a reset's flush closes the window before it", v[0], 0);
    fake_activity_kernel(launch(FAKE_CTX0), 90, 100, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("stop counts what its flush delivered", v[0], 1);
    return ct_done();
}

/* ---- inflight ---- */

static void *cupti_worker(void *arg)
{
    (void)arg;
    fake_activity_deliver(300);
    return NULL;
}

static void *cupti_worker_now(void *arg)
{
    (void)arg;
    fake_activity_deliver(0);
    return NULL;
}

static int inflight_case(void)
{
    long long v[1];
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    for (int i = 0; i < 10; i++)
        fake_activity_kernel(launch(FAKE_CTX0), 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    pthread_t w;
    pthread_create(&w, NULL, cupti_worker, NULL);
    while (!fake_activity_delivering())
        sched_yield();
    CHECK_EQ("the worker holds the records", fake_activity_queued(), 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("the stop counts the kernels of the buffer the worker was handing over", v[0], 10);
    pthread_join(w, NULL);
    return ct_done();
}

/* ---- readreset ---- */

static void deliver_now(void)
{
    pthread_t w;
    pthread_create(&w, NULL, cupti_worker_now, NULL);
    pthread_join(w, NULL);
}

static void ignore_prof(int sig)
{
    (void)sig;
}

/* Rounds of two launches; the first kernel's record is delivered before the read, the
 * second's between the read and the reset; in_handler: SIGPROF, which has a handler, blocked
 * meanwhile (as inside that handler). */
static void read_reset_rounds(int in_handler)
{
    enum { ROUNDS = 5 };
    long long v[2], sum[2] = { 0, 0 };
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    signal(SIGPROF, in_handler ? ignore_prof : SIG_DFL);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(ct_add(es, "gpu.busy_ns"));
    PAPI_MUST(PAPI_start(es));
    for (uint64_t r = 0; r < ROUNDS; r++) {
        uint32_t k1 = launch(FAKE_CTX0), k2 = launch(FAKE_CTX0);
        if (in_handler)
            pthread_sigmask(SIG_BLOCK, &prof, NULL);
        fake_activity_kernel(k1, 100 * r, 100 * r + 10, 0);
        if (in_handler)
            deliver_now();	/* a read in a handler does not flush */
        PAPI_MUST(PAPI_read(es, v));
        fake_activity_kernel(k2, 100 * r + 50, 100 * r + 70, 0);
        deliver_now();
        PAPI_MUST(PAPI_reset(es));
        if (in_handler)
            pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
        sum[0] += v[0], sum[1] += v[1];
    }
    PAPI_MUST(PAPI_stop(es, v));
    sum[0] += v[0], sum[1] += v[1];
    CHECK_EQ(in_handler ? "handler: the windows' kernels add up to every kernel" :
                          "the windows' kernels add up to every kernel", sum[0], 2 * ROUNDS);
    CHECK_EQ(in_handler ? "handler: the windows' busy time adds up to the whole" :
                          "the windows' busy time adds up to the whole", sum[1], 30 * ROUNDS);
    PAPI_MUST(PAPI_cleanup_eventset(es));
    PAPI_MUST(PAPI_destroy_eventset(&es));
}

static int readreset_case(void)
{
    setenv("CUPTI_CB_FLUSH_MS", "0", 1);	/* only this test's deliveries */
    ct_library_init();
    read_reset_rounds(0);
    read_reset_rounds(1);
    return ct_done();
}

/* ---- handlerbase ---- */

static int hb_es = PAPI_NULL, hb_rc = PAPI_OK;
static long long hb_seen[2];

static void hb_on_prof(int sig)
{
    (void)sig;
    hb_rc = PAPI_read(hb_es, hb_seen);
}

/* TAU's read + reset, with its SIGPROF sampler reading the same set in between, after a
 * record of work issued before the read arrived: the reset continues from the thread's read,
 * not from the handler's, so the windows still add up to every kernel. */
static int handlerbase_case(void)
{
    long long first[2], second[2];
    setenv("CUPTI_CB_FLUSH_MS", "0", 1);	/* only this test's deliveries */
    ct_library_init();
    static const char *const names[] = { "gpu.kernels", "gpu.busy_ns" };
    hb_es = ct_eventset(2, names);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hb_on_prof;
    sigaction(SIGPROF, &sa, NULL);
    PAPI_MUST(PAPI_start(hb_es));
    uint32_t k1 = launch(FAKE_CTX0), k2 = launch(FAKE_CTX0);
    fake_activity_kernel(k1, 100, 110, 0);
    PAPI_MUST(PAPI_read(hb_es, first));
    fake_activity_kernel(k2, 200, 230, 0);
    deliver_now();	/* CUPTI's worker hands the second kernel over */
    raise(SIGPROF);	/* the sampler reads between the read and the reset */
    PAPI_MUST(PAPI_reset(hb_es));
    PAPI_MUST(PAPI_stop(hb_es, second));
    signal(SIGPROF, SIG_IGN);
    CHECK_EQ("the handler's read is PAPI_OK", hb_rc, PAPI_OK);
    CHECK_EQ("and sees both kernels", hb_seen[0], 2);
    CHECK_EQ("the thread's read saw the first", first[0], 1);
    CHECK_EQ("the windows' kernels add up to both (1 + 1, not 1 + 0)", first[0] + second[0], 2);
    CHECK_EQ("the windows' busy time adds up to both kernels'", first[1] + second[1], 40);
    return ct_done();
}

/* ---- dropped ---- */

static int dropped_case(void)
{
    char err[8192] = "";
    long long v[1];
    setenv("PAPI_VERBOSE", "1", 1);
    setenv("CUPTI_CB_TRACE", "1", 1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    fake_activity_kernel(launch(FAKE_CTX0), 10, 20, 0);
    fake_activity_drop(5);
    int rc = CAPTURED(err, PAPI_read(es, v));
    CHECK_EQ("the read still succeeds", rc, PAPI_OK);
    CHECK_EQ("with the records that were delivered", v[0], 1);
    CHECK_TRUE("PAPI warns that gpu.* values undercount", strstr(err, "dropped GPU activity records") != NULL);
    CHECK_TRUE("the trace says how many", strstr(err, "5 records dropped") != NULL);
    rc = CAPTURED(err, PAPI_read(es, v));
    CHECK_TRUE("no new drop, no new warning", rc == PAPI_OK && !strstr(err, "dropped GPU activity"));
    PAPI_MUST(PAPI_stop(es, v));
    return ct_done();
}

/* ---- noflush ---- */

static int noflush_case(void)
{
    long long v[2];
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "kernel.launches"));
    PAPI_MUST(ct_add(es, "memcpy.bytes"));
    PAPI_MUST(PAPI_start(es));
    play_launches(3, FAKE_CTX0);
    PAPI_MUST(PAPI_read(es, v));
    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    CHECK_EQ("a set without gpu.* events never flushes", fake_activity_flushes(), 0);
    CHECK_EQ("nor registers activity buffers", fake_activity_register_calls(), 0);
    CHECK_EQ("nor enables kernel records", fake_activity_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 0);
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    CHECK_EQ("a gpu.* set enables kernel records", fake_activity_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 1);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("and keeps them after stop", fake_activity_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 1);
    CHECK_REL("its start and stop flush", fake_activity_flushes(), ">=", 2);
    ct_destroy(&es);
    CHECK_EQ("cleanup disables them", fake_activity_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 0);
    return ct_done();
}

/* ---- mixed ---- */

static int mixed_case(void)
{
    static const char *const names[] = { "kernel.launches", "gpu.kernels", "memcpy.calls", "gpu.memcpy.bytes",
                                         "api.calls" };
    long long v[5];
    ct_library_init();
    int es = ct_eventset(5, names);
    PAPI_MUST(PAPI_start(es));
    for (int i = 0; i < 4; i++)
        fake_activity_kernel(launch(FAKE_CTX0), 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 16, 1000, 1010, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("kernel.launches (callback)", v[0], 4);
    CHECK_EQ("gpu.kernels (activity)", v[1], 4);
    CHECK_EQ("memcpy.calls (callback)", v[2], 1);
    CHECK_EQ("gpu.memcpy.bytes (activity)", v[3], 16);
    CHECK_EQ("api.calls (callback)", v[4], 5);
    return ct_done();
}

/* ---- refused ---- */

static int refused_case(void)
{
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    fake_activity_register_error(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "gpu.kernels"));
    int rc = CAPTURED(err, PAPI_start(es));
    CHECK_EQ("start of a gpu.* set -> PAPI_ECNFLCT", rc, PAPI_ECNFLCT);
    CHECK_TRUE("with its sentence", strstr(err, "Another tool owns CUPTI's activity buffers") != NULL);
    CHECK_EQ("callback events keep counting", play_counted_launches(3), 3);
    return ct_done();
}

/* ---- synced, missing ---- */

/* A failed launch: no record will ever come for it. */
static void failed_launch(void)
{
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    struct fake_call c;
    fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_ERROR_INVALID_VALUE, FAKE_CTX0);
    fake_enter(&c);
    fake_exit(&c);
}

/* Five kernels, a copy and a failed launch, synchronized; their records played. */
static void synchronized_work(void)
{
    for (int i = 0; i < 5; i++)
        fake_activity_kernel(launch(FAKE_CTX0), 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    fake_activity_memcpy(copy_call(FAKE_CTX0), CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 16, 600, 700, 0);
    failed_launch();
    play_sync();
}

static int synced_case(void)
{
    long long v[2];
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(ct_add(es, "gpu.memcpy.count"));
    PAPI_MUST(PAPI_start(es));
    synchronized_work();
    fake_activity_hold(3);	/* CUPTI keeps the buffer back three flushes long */
    int before = fake_activity_flushes();
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("a stop right after the synchronization counts every kernel", v[0], 5);
    CHECK_EQ("and the copy", v[1], 1);
    CHECK_TRUE("it flushed until the records came", fake_activity_flushes() - before >= 4);
    return ct_done();
}

static int missing_case(void)
{
    long long v[1] = {-1};
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    setenv("CUPTI_CB_ACTIVITY_WAIT_MS", "20", 1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    synchronized_work();
    fake_activity_hold(-1);	/* never, until released */
    int rc = CAPTURED(err, PAPI_read(es, v));
    CHECK_EQ("a read whose synchronized work has no records fails: PAPI_ECLOST", rc, PAPI_ECLOST);
    CHECK_TRUE("and says how many are missing",
               strstr(err, "6 of the GPU operations this thread issued before its last synchronization") != NULL);
    /* Said once: the next read does not wait for them again (one flush). */
    int before = fake_activity_flushes();
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("the next read flushes once", fake_activity_flushes() - before, 1);
    CHECK_EQ("and returns what came", v[0], 0);
    fake_activity_hold(0);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("once they came, the read is exact", v[0], 5);
    /* Work after the last synchronization: never waited for. */
    fake_activity_hold(-1);
    setenv("CUPTI_CB_ACTIVITY_WAIT_MS", "60000", 1);
    launch(FAKE_CTX0);
    before = fake_activity_flushes();
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("unsynchronized work: one flush, no wait", fake_activity_flushes() - before, 1);
    fake_activity_hold(0);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        { "inflight", inflight_case },
        { "listing", listing_case }, { "threads", threads_case }, { "copies", copies_case },
        { "busy", busy_case },       { "window", window_case },   { "dropped", dropped_case },
        { "noflush", noflush_case }, { "mixed", mixed_case },     { "refused", refused_case },
        { "straddle", straddle_case }, { "handler", handler_case }, { "flusher", flusher_case },
        { "noflusher", noflusher_case }, { "atexit", atexit_case },
        { "nested", nested_case }, { "readreset", readreset_case },
        { "synced", synced_case }, { "missing", missing_case },
        { "handlerbase", handlerbase_case },
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
