/* bench_activity: what the GPU activity source (the gpu.* events) costs an
 * application, against bare launches and against CUPTI's own activity floor.
 *
 *   bench_activity --part=launch --mode=M --threads=1,4,16 --iters=N
 *       The host cost of one empty kernel launch, as bench_calls --api=launch
 *       measures it: T threads start together on a barrier, each launches
 *       empty<<<1,1,0,s>>>() N times into a non-blocking stream of its own and
 *       ends with cudaStreamSynchronize(s) (throughput cost of a launch: the
 *       launch and its share of the final synchronization), after N/10 warm-up
 *       launches.  One repetition is the mean over threads of elapsed / N; the
 *       line is the median of REPS repetitions:
 *         launch mode=M threads=T iters=N ns_per_launch=X check=ok|FAIL|- reps=a/b/c/d/e
 *   bench_activity --part=read [--reads=N] [--pending=P]
 *       PAPI_read latency, each read timed alone (the median cost of two clock
 *       reads subtracted), median and 99th percentile over N reads (default
 *       2000), in one process:
 *         cb_alone       a set {kernel.launches} (no gpu.* event) of the main
 *                        thread, before any gpu.* set exists;
 *         cb_beside_gpu  the same set, read the same way while another thread
 *                        runs a {gpu.kernels} set with records pending (the
 *                        other thread launched 1000 kernels that completed; no
 *                        read has flushed their records, unless CUPTI delivered
 *                        a buffer on its own): it must cost the same;
 *         gpu_idle       the {gpu.kernels} set read with nothing pending (each
 *                        read still flushes CUPTI's buffers);
 *         gpu_pending    the same set, P (default 100) empty kernels launched
 *                        and synchronized before each timed read: the read
 *                        flushes and counts their records (check=ok: the value
 *                        read is every kernel the thread launched);
 *       and in --mode=floor (no PAPI) the same two cases for the benchmark's
 *       own activity client calling cuptiActivityFlushAll(0) alone:
 *         flush_idle, flush_pending.
 *         read case=C reads=N pending=P median_ns=M p99_ns=Q timer_ns=X check=ok|FAIL|-
 *
 * Modes of --part=launch (one per process: CUPTI allows one subscriber, and
 * one owner of the activity buffers, per process):
 *   bare      nothing
 *   floor     the benchmark's own minimal activity client: buffers of
 *             BENCH_ACTIVITY_BUF_KIB KiB (default 1024) recycled through a
 *             free list (requested: pop or malloc; completed: push back,
 *             records not read), cuptiActivityEnable(CONCURRENT_KERNEL).  No
 *             callback, no PAPI.  CUPTI's own cost of kernel records.
 *   floor_cb  floor plus an empty CUPTI callback on the driver launch CBIDs
 *             (cuLaunchKernel, cuLaunchKernel_ptsz), what bench_calls' floor
 *             enables for launches: the floor of a tool that attributes
 *             records to the thread that issued them.
 *   callback  a cupti_cb set per thread with kernel.launches (the callback
 *             source only).
 *   counted   a cupti_cb set per thread with gpu.kernels (the activity source)
 *             BENCH_RECHECK=1: before PAPI_stop, reads again (2 ms apart) until the kernels
 *             are all there, and says how long that took.
 *             check=ok: at PAPI_stop, after the stream was synchronized, the
 *             value equals the launches the thread made.
 * Under Nsight Systems: run-activity-bench runs mode bare under
 * nsys profile --trace=cuda. */
#include <cuda_runtime.h>
#include <cupti.h>

#include <atomic>
#include <vector>

#include "bench_util.h"

#define REPS 5

__global__ void empty(void) {}

#define CUPTI_CHECK(call)                                                     \
    do {                                                                      \
        CUptiResult rc_ = (call);                                             \
        if (rc_ != CUPTI_SUCCESS) {                                           \
            const char *s_ = "?";                                             \
            cuptiGetResultString(rc_, &s_);                                   \
            die("%s: %s", #call, s_);                                         \
        }                                                                     \
    } while (0)

enum mode { BARE, FLOOR, FLOOR_CB, CALLBACK, COUNTED, NMODES };
static const char *const MODE_NAMES[NMODES] = {"bare", "floor", "floor_cb", "callback", "counted"};
static const char *const GPU_EVENT = "cupti_cb:::gpu.kernels";
static const char *const CB_EVENT = "cupti_cb:::kernel.launches";

static enum mode g_mode;
static pthread_barrier_t g_barrier;

/* ---- the floor: a minimal activity client ------------------------------- */

#define ALIGN 8
static size_t g_buf_size;
static pthread_mutex_t g_free_lock = PTHREAD_MUTEX_INITIALIZER;
static std::vector<uint8_t *> *g_free;
static std::atomic<unsigned long long> g_buffers, g_valid_bytes;

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *b = NULL;
    pthread_mutex_lock(&g_free_lock);
    if (!g_free->empty()) {
        b = g_free->back();
        g_free->pop_back();
    }
    pthread_mutex_unlock(&g_free_lock);
    if (!b && posix_memalign((void **)&b, ALIGN, g_buf_size) != 0)
        b = NULL; /* CUPTI drops the records of a request without a buffer */
    *buffer = b;
    *size = b ? g_buf_size : 0;
    *max_records = 0;
}

static void CUPTIAPI buf_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid)
{
    g_buffers.fetch_add(1, std::memory_order_relaxed);
    g_valid_bytes.fetch_add(valid, std::memory_order_relaxed);
    if (!buffer)
        return;
    pthread_mutex_lock(&g_free_lock);
    g_free->push_back(buffer);
    pthread_mutex_unlock(&g_free_lock);
}

static void CUPTIAPI cb_empty(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

static void floor_start(int with_callback)
{
    const char *kib = getenv("BENCH_ACTIVITY_BUF_KIB");
    g_buf_size = (size_t)(kib && atoi(kib) > 0 ? atoi(kib) : 1024) * 1024;
    g_free = new std::vector<uint8_t *>();
    CUPTI_CHECK(cuptiActivityRegisterCallbacks(buf_requested, buf_completed));
    CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    if (with_callback) {
        CUpti_SubscriberHandle sub;
        CUPTI_CHECK(cuptiSubscribe(&sub, (CUpti_CallbackFunc)cb_empty, NULL));
        CUPTI_CHECK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
        CUPTI_CHECK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz));
    }
}

/* After the measurement: what the floor's client received (to the log). */
static void floor_report(void)
{
    size_t dropped = 0;
    CUPTI_CHECK(cuptiActivityFlushAll(1));
    cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    fprintf(stderr, "bench_activity: mode=%s: %llu buffers of %zu KiB completed, %llu bytes of records, %zu dropped\n",
            MODE_NAMES[g_mode], g_buffers.load(), g_buf_size / 1024, g_valid_bytes.load(), dropped);
}

/* ---- launch cost --------------------------------------------------------- */

static void launch(int n, cudaStream_t s)
{
    for (int i = 0; i < n; i++)
        empty<<<1, 1, 0, s>>>();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));
}

struct worker {
    int iters;
    double ns[REPS];
    int check; /* -1: not checked, 0: failed, 1: ok */
};

static int papi_mode(void)
{
    return g_mode == CALLBACK || g_mode == COUNTED;
}

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    int warm = w->iters / 10 > 0 ? w->iters / 10 : 1;
    int set = PAPI_NULL;
    long long v[1] = {0};
    cudaStream_t s;

    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (papi_mode()) {
        PAPI_CHECK(PAPI_register_thread());
        PAPI_CHECK(PAPI_create_eventset(&set));
        PAPI_CHECK(PAPI_add_named_event(set, g_mode == COUNTED ? GPU_EVENT : CB_EVENT));
        PAPI_CHECK(PAPI_start(set));
    }
    launch(warm, s);
    for (int r = 0; r < REPS; r++) {
        pthread_barrier_wait(&g_barrier);
        uint64_t t0 = now_ns();
        launch(w->iters, s);
        w->ns[r] = (double)(now_ns() - t0) / w->iters;
    }
    if (papi_mode()) {
        long long want = warm + (long long)REPS * w->iters;
        if (getenv("BENCH_RECHECK")) {
            /* How long records of finished kernels take to be delivered: read until they are
             * all there (2 ms apart, at most 100 reads). */
            int n = 0;
            PAPI_CHECK(PAPI_read(set, v));
            for (; v[0] < want && n < 100; n++) {
                struct timespec ts = {0, 2000000};
                nanosleep(&ts, NULL);
                PAPI_CHECK(PAPI_read(set, v));
            }
            if (n)
                fprintf(stderr, "bench_activity: recheck: %lld of %lld after %d more reads (%d ms)\n", v[0], want,
                        n, 2 * n);
        }
        PAPI_CHECK(PAPI_stop(set, v));
        w->check = v[0] == want;
        if (!w->check)
            fprintf(stderr, "bench_activity: mode=%s: counter %lld, expected %lld\n", MODE_NAMES[g_mode], v[0], want);
        PAPI_CHECK(PAPI_cleanup_eventset(set));
        PAPI_CHECK(PAPI_destroy_eventset(&set));
        PAPI_CHECK(PAPI_unregister_thread());
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return NULL;
}

static void run_round(int threads, int iters)
{
    struct worker *w = (struct worker *)calloc((size_t)threads, sizeof *w);
    if (!w)
        die("out of memory");
    for (int i = 0; i < threads; i++) {
        w[i].iters = iters;
        w[i].check = -1;
    }
    pthread_barrier_init(&g_barrier, NULL, (unsigned)threads);
    run_threads(threads, worker_main, w, sizeof *w);
    pthread_barrier_destroy(&g_barrier);

    double rep[REPS], sorted[REPS];
    int check = -1;
    for (int r = 0; r < REPS; r++) {
        rep[r] = 0;
        for (int i = 0; i < threads; i++)
            rep[r] += w[i].ns[r] / threads;
        sorted[r] = rep[r];
    }
    for (int i = 0; i < threads; i++)
        if (w[i].check >= 0)
            check = (check != 0) && w[i].check;
    printf("launch mode=%s threads=%d iters=%d ns_per_launch=%.1f check=%s reps=", MODE_NAMES[g_mode], threads, iters,
           quantile(sorted, REPS, 0.5), check < 0 ? "-" : check ? "ok" : "FAIL");
    for (int r = 0; r < REPS; r++)
        printf("%s%.1f", r ? "/" : "", rep[r]);
    printf("\n");
    fflush(stdout);
    free(w);
}

/* ---- read latency -------------------------------------------------------- */

static double g_timer_ns; /* median cost of two back-to-back now_ns() */

static void calibrate_timer(void)
{
    std::vector<double> b(10000);
    for (double &x : b) {
        uint64_t t0 = now_ns();
        x = (double)(now_ns() - t0);
    }
    g_timer_ns = quantile(b.data(), b.size(), 0.5);
}

static void print_read(const char *label, std::vector<double> &t, int pending, const char *check)
{
    double med = quantile(t.data(), t.size(), 0.5) - g_timer_ns, p99 = quantile(t.data(), t.size(), 0.99) - g_timer_ns;
    printf("read case=%s reads=%zu pending=%d median_ns=%.0f p99_ns=%.0f timer_ns=%.0f check=%s\n", label, t.size(),
           pending, med > 0 ? med : 0, p99 > 0 ? p99 : 0, g_timer_ns, check);
    fflush(stdout);
}

/* Times reads of set (PAPI_read) or, with set < 0, cuptiActivityFlushAll(0);
 * with pending > 0, launches and synchronizes that many kernels before each.
 * Returns the last value read. */
static long long time_reads(int set, int reads, int pending, cudaStream_t s, std::vector<double> &t)
{
    long long v[1] = {0};
    t.clear();
    for (int i = 0; i < reads + 100; i++) { /* the first 100: warm-up, not kept */
        if (pending)
            launch(pending, s);
        uint64_t t0 = now_ns();
        if (set >= 0)
            PAPI_CHECK(PAPI_read(set, v));
        else
            CUPTI_CHECK(cuptiActivityFlushAll(0));
        double dt = (double)(now_ns() - t0);
        if (i >= 100)
            t.push_back(dt);
    }
    return v[0];
}

/* The thread that runs the gpu.* set while main reads its callback-only set. */
static pthread_barrier_t g_phase;
struct gpu_thread {
    int reads, pending;
};

static void *gpu_thread_main(void *arg)
{
    struct gpu_thread *g = (struct gpu_thread *)arg;
    int set = PAPI_NULL;
    long long v[1];
    cudaStream_t s;
    std::vector<double> t;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    PAPI_CHECK(PAPI_register_thread());
    PAPI_CHECK(PAPI_create_eventset(&set));
    PAPI_CHECK(PAPI_add_named_event(set, GPU_EVENT));
    PAPI_CHECK(PAPI_start(set));
    launch(1000, s); /* completed, not delivered: pending while main reads */
    pthread_barrier_wait(&g_phase);
    pthread_barrier_wait(&g_phase); /* main has measured cb_beside_gpu */

    long long launched = 1000;
    (void)time_reads(set, g->reads, 0, s, t);
    print_read("gpu_idle", t, 0, "-");
    long long got = time_reads(set, g->reads, g->pending, s, t);
    launched += (long long)(g->reads + 100) * g->pending;
    print_read("gpu_pending", t, g->pending, got == launched ? "ok" : "FAIL");
    if (got != launched)
        fprintf(stderr, "bench_activity: gpu_pending: gpu.kernels read %lld, launched %lld\n", got, launched);
    PAPI_CHECK(PAPI_stop(set, v));
    PAPI_CHECK(PAPI_cleanup_eventset(set));
    PAPI_CHECK(PAPI_destroy_eventset(&set));
    PAPI_CHECK(PAPI_unregister_thread());
    CUDA_CHECK(cudaStreamDestroy(s));
    return NULL;
}

static void part_read(int reads, int pending)
{
    std::vector<double> t;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    calibrate_timer();
    if (g_mode == FLOOR) {
        launch(1000, s);
        CUPTI_CHECK(cuptiActivityFlushAll(0));
        (void)time_reads(-1, reads, 0, s, t);
        print_read("flush_idle", t, 0, "-");
        (void)time_reads(-1, reads, pending, s, t);
        print_read("flush_pending", t, pending, "-");
        floor_report();
        return;
    }
    int set = PAPI_NULL;
    long long v[1];
    PAPI_CHECK(PAPI_create_eventset(&set));
    PAPI_CHECK(PAPI_add_named_event(set, CB_EVENT));
    PAPI_CHECK(PAPI_start(set));
    launch(10, s);
    long long got = time_reads(set, reads, 0, s, t);
    print_read("cb_alone", t, 0, got == 10 ? "ok" : "FAIL");

    struct gpu_thread g = {reads, pending};
    pthread_t tid;
    pthread_barrier_init(&g_phase, NULL, 2);
    if (pthread_create(&tid, NULL, gpu_thread_main, &g) != 0)
        die("pthread_create");
    pthread_barrier_wait(&g_phase); /* the gpu.* set runs, its records pending */
    got = time_reads(set, reads, 0, s, t);
    print_read("cb_beside_gpu", t, 0, got == 10 ? "ok" : "FAIL");
    pthread_barrier_wait(&g_phase);
    pthread_join(tid, NULL);
    pthread_barrier_destroy(&g_phase);
    PAPI_CHECK(PAPI_stop(set, v));
    PAPI_CHECK(PAPI_cleanup_eventset(set));
    PAPI_CHECK(PAPI_destroy_eventset(&set));
    CUDA_CHECK(cudaStreamDestroy(s));
}

int main(int argc, char **argv)
{
    const char *part = opt_str(argc, argv, "part", "launch");
    const char *mode = opt_str(argc, argv, "mode", strcmp(part, "read") == 0 ? "counted" : "bare");
    const char *threads = opt_str(argc, argv, "threads", "1,4,16");
    int iters_arg = atoi(opt_str(argc, argv, "iters", "2000"));
    int reads = atoi(opt_str(argc, argv, "reads", "2000"));
    int pending = atoi(opt_str(argc, argv, "pending", "100"));

    int m = 0;
    while (m < NMODES && strcmp(mode, MODE_NAMES[m]) != 0)
        m++;
    g_mode = (enum mode)m;
    int is_read = strcmp(part, "read") == 0;
    if (g_mode == NMODES || (!is_read && strcmp(part, "launch") != 0) || iters_arg <= 0 || reads <= 0 ||
        pending <= 0 || (is_read && g_mode != COUNTED && g_mode != FLOOR))
        die("usage: bench_activity --part=launch --mode=bare|floor|floor_cb|callback|counted --threads=T[,T...] "
            "--iters=N | --part=read [--mode=counted|floor] [--reads=N] [--pending=P]");

    bench_require_gpu();
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(0)); /* create the context before anything is timed */
    if (g_mode == FLOOR || g_mode == FLOOR_CB)
        floor_start(g_mode == FLOOR_CB);
    if (papi_mode())
        bench_papi_init();

    if (is_read) {
        part_read(reads, pending);
        return 0;
    }
    for (const char *p = threads; *p;) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end == p || t < 1 || t > 1024)
            die("bad --threads=%s", threads);
        run_round((int)t, iters_arg);
        p = *end == ',' ? end + 1 : end;
    }
    if (g_mode == FLOOR || g_mode == FLOOR_CB)
        floor_report();
    return 0;
}
