/*
 * gpu_sampling: hardware metrics through CUPTI's PM sampling (the ':sampled' events), with values
 * that can be checked against the bytes the kernels move and against the Range Profiler (the same
 * names without ':sampled').  Sampled counts are device-wide, so every measured window begins after
 * a settle (a read of a separate buffer larger than the L2, synchronized: no dirty line of earlier
 * work is written back inside the window; no wait), and a window that writes ends with the same
 * read inside it (its own dirty lines are written back before its stop).  Every stop comes right
 * after the synchronization, with no sleep, as users stop; only the age case waits, as it measures
 * the age of a read.
 * B = 512 MiB per buffer.
 *
 *   exact      r reads and w writes of B, then the closing flush read: sampled dram__bytes_read.sum
 *              and dram__bytes_write.sum after sync + PAPI_stop within 3% of the bytes moved, and
 *              within 0.1% of a Range Profiler set over the same work run right after (writes: 0.1%
 *              from 16 GiB written, 0.2% below, see exact_case); then (own
 *              processes, before anything else) the same at CUPTI_CB_SAMPLING_INTERVAL_US = 100
 *              and 2000.
 *   midreads   kernels for 200 ms with a PAPI_read after every 3 launches: reads never go down,
 *              the stop is the largest and within 3% of the bytes moved.  Then the age of a read:
 *              after synchronized work, a read at once, after 1 ms, and after 2 x interval +
 *              decode period + 1 ms (3 ms by default), against the stop that follows with no
 *              work between: the last must see 99.9% of it; the others are reported.
 *   tau        TAU's pattern: 20 regions of known work, PAPI_read + PAPI_reset at each boundary;
 *              the sum of the regions equals, within 0.1%, the total of a second sampled set on
 *              another thread running over the same period.
 *   threads    two threads, each with its own sampled set on device 0, each running its own
 *              work: both sets count both threads' work (within 3%) and agree within 0.1%.
 *   sigprof    a SIGPROF timer at 1 kHz reads the running set {dram__bytes_read.sum:sampled,
 *              kernel.launches} in its handler while the main thread runs and reads kernels for
 *              1 s: every handler read PAPI_OK, no value goes down, no hang (watchdog 60 s), the
 *              stop exact (launches) and within 0.1% of a Range Profiler set over the same work.
 *   conflicts  a Range Profiler set counting device 0, then a sampled set on device 0: PAPI_ECNFLCT
 *              at add or start; after the Range Profiler set is stopped and destroyed (a stopped set
 *              keeps its metrics, and so the device's counters, until its cleanup), the sampled set
 *              starts and counts; and the other way round.
 *   devices    one set of :device=0 and :device=1 events, different work on each device: each
 *              event counts its device's work (SKIP of this case with one GPU).
 * Own-process modes for ctests/gpu/ncu-crosscheck.sh:
 *   values     prints "<kernels>@<range> <metric> <value>" of one stream_read (dram__bytes_read.sum)
 *              and of NW stream_writes (16 GiB) followed by the flush read that writes their dirty
 *              L2 lines back ("stream_write*32+flush_read@2", dram__bytes_write.sum, less the writes
 *              the read's window saw outside any kernel), each in a sampled window of its own;
 *   ncu        the same kernels without PAPI, each part in a profiler range of its own
 *              (cudaProfilerStart/Stop), for Nsight Compute's range replay to measure;
 *   under-ncu  run under ncu: a sampled set must be refused with PAPI_ECNFLCT (or PAPI_EPERM);
 *              if it starts, its values must be right.
 * Options: --interval-us=N sets CUPTI_CB_SAMPLING_INTERVAL_US for this process; a mode name
 * (exact, values, ncu, under-ncu) runs that mode only.
 * SKIP (exit 77): no GPU; no profiling permission (PAPI_EPERM); PAPI_ENOSUPP on a device of compute
 * capability below 7.5 (no PM sampling).  Any other refusal of a sampled set is a failure.
 */
#include "ctest_util.h"

#include <cmath>
#include <cuda_profiler_api.h>
#include <signal.h>

#include "gpu_kernels.h"

static const size_t B = 512ull << 20;
static const size_t N4 = B / sizeof(float4);
#define GRID 1024
#define BLOCK 256

/* The writes of one window compared with Nsight Compute: 16 GiB, so that the few MB the DRAM
 * writes outside any kernel (see exact_case) stay under 0.05% of them. */
#define NW 32

static const char *const RD = "dram__bytes_read.sum:sampled";
static const char *const WR = "dram__bytes_write.sum:sampled";

/* stream_read under another name: Nsight Compute's lines of the measured kernels are told apart
 * from those of the settling reads by the kernel's name. */
__global__ void flush_read(const float4 *p, size_t n, float *out)
{
    float s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = p[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.0f) /* never: the buffer holds zeros */
        out[0] = s;
}

struct dev_bufs {
    int dev;
    float4 *rd, *rd2, *wr, *fl;
    float *sink;
};

static long env_us(const char *var, long dflt)
{
    const char *s = getenv(var);
    return s && *s ? atol(s) : dflt;
}

static long interval_us(void)
{
    return env_us("CUPTI_CB_SAMPLING_INTERVAL_US", 500);
}

/* How long after synchronized work a read must see all of it: the age of a read (cupti_cb-sampling(7): an
 * interval and two decode periods), with one more interval and 1 ms of margin. */
static long settle_read_us(void)
{
    return 2 * interval_us() + 2 * env_us("CUPTI_CB_SAMPLING_DECODE_US", 1000) + 1000;
}

/* A stop right after the synchronized work, as users stop: a sampled window ends at the stop by
 * the samples' timestamps (PAPI_stop waits for the samples that cover it). */
static void sleep_us(long us);
static void stop_now(int es, long long *v)
{
    PAPI_MUST(PAPI_stop(es, v));
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void sleep_us(long us)
{
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&t, &t) != 0) {
    }
}

static void reads(const dev_bufs &d, int k, const float4 *buf = nullptr)
{
    for (int i = 0; i < k; i++)
        stream_read<<<GRID, BLOCK>>>(buf ? buf : d.rd, N4, d.sink);
    CUDA_MUST(cudaGetLastError());
}

static void writes(const dev_bufs &d, int k)
{
    for (int i = 0; i < k; i++)
        stream_write<<<GRID, BLOCK>>>(d.wr, N4, 0.0f);
    CUDA_MUST(cudaGetLastError());
}

static void flush(const dev_bufs &d)
{
    flush_read<<<GRID, BLOCK>>>(d.fl, N4, d.sink);
    CUDA_MUST(cudaGetLastError());
}

/* No dirty line of earlier work left in the L2 of d's device (the flush read writes them back), so
 * that a window that starts next counts no write of earlier work; no wait: the window starts at
 * its PAPI_start by the samples' timestamps. */
static void settle(const dev_bufs &d)
{
    CUDA_MUST(cudaSetDevice(d.dev));
    flush(d);
    CUDA_MUST(cudaDeviceSynchronize());
}

static dev_bufs make_bufs(int dev)
{
    dev_bufs d;
    d.dev = dev;
    CUDA_MUST(cudaSetDevice(dev));
    float4 **all[] = {&d.rd, &d.rd2, &d.wr, &d.fl};
    for (float4 **p : all) {
        CUDA_MUST(cudaMalloc(p, B));
        CUDA_MUST(cudaMemset(*p, 0, B));
    }
    CUDA_MUST(cudaMalloc(&d.sink, sizeof(float)));
    /* The memsets leave dirty lines in the L2: read everything once. */
    for (float4 **p : all)
        flush_read<<<GRID, BLOCK>>>(*p, N4, d.sink);
    CUDA_MUST(cudaDeviceSynchronize());
    settle(d);
    return d;
}

static std::string err(int rc)
{
    return ct_papi_err(rc);
}

/* A value as a double: integer or FP64 events alike. */
static double val(const char *name, long long v)
{
    char full[PAPI_HUGE_STR_LEN];
    int code;
    PAPI_event_info_t info;
    if (PAPI_event_name_to_code(ct_full_name(name, full, sizeof full), &code) == PAPI_OK &&
        PAPI_get_event_info(code, &info) == PAPI_OK && info.data_type == PAPI_DATATYPE_FP64) {
        double x;
        memcpy(&x, &v, sizeof x);
        return x;
    }
    return (double)v;
}

static int within(const std::string &what, double got, double want, double rel)
{
    double off = want ? fabs(got - want) / want : fabs(got);
    return ct_result(off <= rel, "%s: got %.0f, want %.0f +- %.2f%% (off by %.4f%%)", what.c_str(), got, want,
                     rel * 100, off * 100);
}

/* ---------------------------------------------------------------- SKIP rules */

/* A sampled set is added and started once: no permission or no PM sampling is a SKIP, any
 * other refusal a failure. */
static void probe_sampling(void)
{
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int rc = ct_add(es, RD);
    const char *at = "PAPI_add_named_event";
    if (rc == PAPI_OK) {
        rc = PAPI_start(es);
        at = "PAPI_start";
    }
    if (rc == PAPI_EPERM)
        ct_skip("%s(%s): %s: no profiling permission (run as root, or with NVreg_RestrictProfilingToAdminUsers=0)",
                at, RD, err(rc).c_str());
    /* PM sampling needs compute capability 7.5; on a device that has it, a refusal is a failure
     * (the sentence says whether CUPTI, the chip's catalogue or the device refused). */
    int major = 0, minor = 0;
    CUDA_MUST(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    CUDA_MUST(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    if (rc == PAPI_ENOSUPP && major * 10 + minor < 75)
        ct_skip("%s(%s): %s: device 0 has compute capability %d.%d, PM sampling needs 7.5", at, RD, err(rc).c_str(),
                major, minor);
    if (rc != PAPI_OK)
        ct_fatal("%s(%s): %s (PAPI_VERBOSE=1 or CUPTI_CB_TRACE=1 prints the sentence; another profiler "
                 "holding the counters?)", at, RD, err(rc).c_str());
    long long v[1];
    stop_now(es, v);
    ct_destroy(&es);
}

/* ---------------------------------------------------------------- exact */

struct bytes2 {
    double rd, wr;
};

/* w writes and r reads of B and the closing flush in one window of a set of the two metrics with
 * tag ":sampled" or "" (the Range Profiler). */
static bytes2 window(const dev_bufs &d, const char *tag, int r, int w)
{
    char n0[96], n1[96];
    snprintf(n0, sizeof n0, "dram__bytes_read.sum%s", tag);
    snprintf(n1, sizeof n1, "dram__bytes_write.sum%s", tag);
    settle(d);
    long long v[2];
    int es = ct_started({n0, n1});
    writes(d, w);
    reads(d, r);
    flush(d);
    CUDA_MUST(cudaDeviceSynchronize());
    stop_now(es, v);
    ct_destroy(&es);
    return {val(n0, v[0]), val(n1, v[1])};
}

static void exact_case(const dev_bufs &d)
{
    static const int rw[][2] = {{1, 0}, {4, 2}, {2, 6}, {2, 32}};
    ct_note("exact: sampling interval %ld us, decode period %ld us", interval_us(),
            env_us("CUPTI_CB_SAMPLING_DECODE_US", 1000));
    /* A window's writes include DRAM writes outside the measured kernels: a window of reads only
     * showed 2.4-2.8 MB sampled (device-wide) and 3.1-3.6 MB, once 13 MB, for the Range Profiler
     * (H200, bf3c3ae and 44bc2e3), which vary from window to window, so that subtracting them does
     * not help. That is a few MB whatever the work: 0.2-0.6% of 1 GiB written, under 0.05% of
     * 16 GiB. Writes are compared within 0.1% from 16 GiB written (32 writes of 512 MiB), within
     * 0.2% below; reads within 0.1% always. */
    double s_bg = 0, p_bg = 0;
    for (const auto &c : rw) {
        int r = c[0], w = c[1];
        bytes2 s = window(d, ":sampled", r, w);
        bytes2 p = window(d, "", r, w);
        if (w == 0)
            s_bg = s.wr, p_bg = p.wr;
        char what[128];
        snprintf(what, sizeof what, "exact (%ld us), %d reads + %d writes of 512 MiB + the flush read", interval_us(),
                 r, w);
        std::string l(what);
        within(l + ": sampled dram__bytes_read.sum = the bytes read", s.rd, (double)(r + 1) * B, 0.03);
        within(l + ": sampled dram__bytes_read.sum = the Range Profiler's", s.rd, p.rd, 0.001);
        if (w > 0) {
            within(l + ": sampled dram__bytes_write.sum = the bytes written", s.wr, (double)w * B, 0.03);
            ct_note("%s: dram__bytes_write.sum sampled %.0f, Range Profiler %.0f; in the window of reads only %.0f "
                    "and %.0f", what, s.wr, p.wr, s_bg, p_bg);
            if (w >= 32)
                within(l + ": sampled dram__bytes_write.sum = the Range Profiler's", s.wr, p.wr, 0.001);
            else
                within(l + ": sampled dram__bytes_write.sum = the Range Profiler's (under 16 GiB: 0.2%)", s.wr,
                       p.wr, 0.002);
        } else {
            ct_note("%s: dram__bytes_write.sum sampled %.0f, Range Profiler %.0f", what, s.wr, p.wr);
            CHECK_REL((l + ": sampled dram__bytes_write.sum of read-only work: under 1% of B").c_str(), (long long)s.wr,
                      "<", B / 100);
        }
    }
}

/* ---------------------------------------------------------------- midreads */

static void midreads_case(const dev_bufs &d)
{
    long long v[2], last[2] = {0, 0};
    int down = 0, nreads = 0, iters = 0;
    settle(d);
    int es = ct_started({RD, WR});
    double t0 = now_us();
    while (now_us() - t0 < 200000) {
        reads(d, 2);
        writes(d, 1);
        iters++;
        PAPI_MUST(PAPI_read(es, v));
        nreads++;
        down += v[0] < last[0] || v[1] < last[1]; /* raw compare: also right for FP64 >= 0 */
        memcpy(last, v, sizeof v);
        if (iters % 8 == 0) /* keeps the queue of launched work short */
            CUDA_MUST(cudaDeviceSynchronize());
    }
    flush(d);
    CUDA_MUST(cudaDeviceSynchronize());
    double ms = (now_us() - t0) / 1e3;
    stop_now(es, v);
    ct_destroy(&es);
    ct_note("midreads: %d rounds of 2 reads + 1 write in %.1f ms, %d reads; last read %.0f / %.0f, stop %.0f / %.0f",
            iters, ms, nreads, val(RD, last[0]), val(WR, last[1]), val(RD, v[0]), val(WR, v[1]));
    CHECK_REL("midreads: reads while kernels run", nreads, ">=", 100);
    CHECK_EQ("midreads: reads that went down", down, 0);
    CHECK_TRUE("midreads: the stop is the largest value (both metrics)", v[0] >= last[0] && v[1] >= last[1]);
    within("midreads: dram__bytes_read.sum at the stop = the bytes read", val(RD, v[0]), (2.0 * iters + 1) * B, 0.03);
    within("midreads: dram__bytes_write.sum at the stop = the bytes written", val(WR, v[1]), (double)iters * B, 0.03);

    long wait = settle_read_us();
    for (int rep = 0; rep < 5; rep++) {
        long long r0, r1, r2, s;
        settle(d);
        es = ct_started({RD});
        reads(d, 8);
        CUDA_MUST(cudaDeviceSynchronize());
        double ts = now_us();
        PAPI_MUST(PAPI_read(es, &r0));
        double t_r0 = now_us() - ts;
        sleep_us(1000);
        PAPI_MUST(PAPI_read(es, &r1));
        double t_r1 = now_us() - ts;
        double left = (double)wait - (now_us() - ts);
        if (left > 0)
            sleep_us((long)left);
        PAPI_MUST(PAPI_read(es, &r2));
        double t_r2 = now_us() - ts;
        stop_now(es, &s);
        ct_destroy(&es);
        double fs = val(RD, s);
        ct_note("age %d: of the %.0f bytes of synchronized work (8 reads of 512 MiB), a read %.0f us after the sync "
                "saw %.2f%%, at %.0f us %.2f%%, at %.0f us %.2f%%", rep, fs, t_r0, 100 * val(RD, r0) / fs, t_r1,
                100 * val(RD, r1) / fs, t_r2, 100 * val(RD, r2) / fs);
        CHECK_TRUE("age: reads in order never go down, the stop is the largest", r0 <= r1 && r1 <= r2 && r2 <= s);
        char what[160];
        snprintf(what, sizeof what, "age: a read %.0f us after synchronized work sees all of it (the stop's value)", t_r2);
        within(what, val(RD, r2), fs, 0.001);
    }
}

/* ---------------------------------------------------------------- tau */

static pthread_barrier_t bar;
static const dev_bufs *g_d;
static double g_whole;
static double g_region[20], g_tail;

static void *tau_whole(void *)
{
    long long v;
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_started({RD});
    pthread_barrier_wait(&bar); /* 1: the whole-run set counts */
    pthread_barrier_wait(&bar); /* 2: the regions are over */
    stop_now(es, &v);
    ct_destroy(&es);
    g_whole = val(RD, v);
    return nullptr;
}

static void *tau_regions(void *)
{
    long long v;
    CUDA_MUST(cudaSetDevice(0));
    pthread_barrier_wait(&bar);
    int es = ct_started({RD});
    for (int i = 0; i < 20; i++) {
        reads(*g_d, 1 + i % 4);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_read(es, &v));
        PAPI_MUST(PAPI_reset(es));
        g_region[i] = val(RD, v);
    }
    stop_now(es, &v);
    ct_destroy(&es);
    g_tail = val(RD, v);
    pthread_barrier_wait(&bar);
    return nullptr;
}

static void tau_case(const dev_bufs &d)
{
    pthread_t t[2];
    g_d = &d;
    settle(d);
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&t[0], NULL, tau_whole, NULL);
    pthread_create(&t[1], NULL, tau_regions, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    double sum = 0, ideal = 0;
    std::string per;
    for (int i = 0; i < 20; i++) {
        char one[32];
        sum += g_region[i];
        ideal += (1 + i % 4) * (double)B;
        snprintf(one, sizeof one, " %.3f", g_region[i] / ((1 + i % 4) * (double)B));
        per += one;
    }
    /* Each region's read is a copy, at most an age old (its own bytes may show in a later region);
     * the stop right after the last reset ends the last window at its moment. */
    ct_note("tau: each region's dram__bytes_read.sum / its bytes:%s; after the last reset: %.0f", per.c_str(), g_tail);
    within("tau: the 20 regions read + reset and the stop's value add up to the whole run of a set on another thread",
           sum + g_tail, g_whole, 0.001);
    within("tau: the whole run = the bytes read", g_whole, ideal, 0.03);
}

/* ---------------------------------------------------------------- threads */

struct thread_arg {
    int id;
    double rd, wr;
};

static void *threads_main(void *p)
{
    thread_arg *a = (thread_arg *)p;
    long long v[2];
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_started({RD, WR});
    pthread_barrier_wait(&bar);
    if (a->id == 0) {
        reads(*g_d, 3);
    } else {
        reads(*g_d, 2, g_d->rd2);
        writes(*g_d, 1);
    }
    CUDA_MUST(cudaDeviceSynchronize());
    pthread_barrier_wait(&bar);
    if (a->id == 1) { /* the write's lines back in DRAM inside both windows */
        flush(*g_d);
        CUDA_MUST(cudaDeviceSynchronize());
    }
    pthread_barrier_wait(&bar);
    stop_now(es, v);
    ct_destroy(&es);
    a->rd = val(RD, v[0]);
    a->wr = val(WR, v[1]);
    return nullptr;
}

static void threads_case(const dev_bufs &d)
{
    pthread_t t[2];
    thread_arg a[2] = {{0, 0, 0}, {1, 0, 0}};
    g_d = &d;
    settle(d);
    pthread_barrier_init(&bar, NULL, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, threads_main, &a[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    for (int i = 0; i < 2; i++) {
        char what[160];
        snprintf(what, sizeof what, "threads: thread %d's set: dram__bytes_read.sum of both threads' 5 reads + the flush", i);
        within(what, a[i].rd, 6.0 * B, 0.03);
        snprintf(what, sizeof what, "threads: thread %d's set: dram__bytes_write.sum of thread 1's write", i);
        within(what, a[i].wr, (double)B, 0.03);
    }
    within("threads: the two sets agree (dram__bytes_read.sum)", a[0].rd, a[1].rd, 0.001);
    within("threads: the two sets agree (dram__bytes_write.sum)", a[0].wr, a[1].wr, 0.001);
}

/* ---------------------------------------------------------------- sigprof */

static int g_es = PAPI_NULL;
static volatile sig_atomic_t g_reads, g_bad_rc, g_down;
static long long g_last[2];

static void reader(int)
{
    int saved = errno;
    long long v[2];
    int rc = PAPI_read(g_es, v);
    if (rc != PAPI_OK) {
        g_bad_rc = rc;
    } else {
        if (v[0] < g_last[0] || v[1] < g_last[1])
            g_down = 1;
        memcpy(g_last, v, sizeof v);
        g_reads++;
    }
    errno = saved;
}

static volatile int g_dog_done;
static void *watchdog(void *)
{
    for (int i = 0; i < 600 && !g_dog_done; i++)
        sleep_us(100000);
    if (!g_dog_done) {
        fflush(stdout); /* _exit below does not */
        fprintf(stderr, "FAIL: sigprof still running after 60 s: a read in the SIGPROF handler hangs\n");
        _exit(1);
    }
    return nullptr;
}

static void sigprof_case(const dev_bufs &d)
{
    long long v[2], mine[2] = {0, 0};
    pthread_t dog;
    int kernels = 0, main_down = 0;
    g_dog_done = 0;
    pthread_create(&dog, nullptr, watchdog, nullptr);
    settle(d);
    g_es = ct_started({RD, "kernel.launches"});
    signal(SIGPROF, reader);
    timer_t t = ct_sigprof_timer(1000);
    double t0 = now_us();
    while (now_us() - t0 < 1e6) {
        reads(d, 2);
        kernels += 2;
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_read(g_es, v));
        main_down += v[0] < mine[0] || v[1] < mine[1];
        memcpy(mine, v, sizeof v);
    }
    timer_delete(t);
    signal(SIGPROF, SIG_IGN);
    stop_now(g_es, v);
    ct_destroy(&g_es);
    g_dog_done = 1;
    pthread_join(dog, nullptr);
    ct_note("sigprof: %d reads in the handler over %d kernels; stop: dram__bytes_read.sum %.0f, kernel.launches %lld",
            (int)g_reads, kernels, val(RD, v[0]), v[1]);
    CHECK_REL("sigprof: reads in the handler (1 kHz for 1 s)", g_reads, ">=", 500);
    CHECK_EQ("sigprof: every read in the handler returned PAPI_OK", g_bad_rc, PAPI_OK);
    CHECK_EQ("sigprof: no value read in the handler went down", g_down, 0);
    CHECK_EQ("sigprof: no value read by the main thread went down", main_down, 0);
    CHECK_EQ("sigprof: the stop: kernel.launches", v[1], kernels);
    double sampled = val(RD, v[0]);
    within("sigprof: the stop: dram__bytes_read.sum = the bytes read", sampled, (double)kernels * B, 0.03);
    settle(d);
    long long rp;
    int es = ct_started({"dram__bytes_read.sum"});
    reads(d, kernels);
    CUDA_MUST(cudaDeviceSynchronize());
    stop_now(es, &rp);
    ct_destroy(&es);
    within("sigprof: the stop = a Range Profiler set over the same kernels", sampled, val("dram__bytes_read.sum", rp),
           0.001);
}

/* ---------------------------------------------------------------- conflicts */

/* With the set `holder` of the other kind running on device 0, a set of `name` is refused with
 * PAPI_ECNFLCT at add or at start; once holder is stopped and destroyed, it starts and counts 2
 * reads of B. */
static void conflict_one(const dev_bufs &d, const char *holder, const char *name, const char *label)
{
    long long v;
    int held = ct_started({holder});
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int add = ct_add(es, name), start = PAPI_ENOEVST;
    if (add == PAPI_OK) {
        start = PAPI_start(es);
        if (start == PAPI_OK) /* wrongly accepted: put it back as it was */
            stop_now(es, &v);
    }
    ct_result(add == PAPI_ECNFLCT || (add == PAPI_OK && start == PAPI_ECNFLCT),
              "conflicts: %s: PAPI_ECNFLCT at add or start: add %s, start %s", label, err(add).c_str(),
              add == PAPI_OK ? err(start).c_str() : "not tried");
    stop_now(held, &v);
    ct_destroy(&held);
    if (add != PAPI_OK)
        CHECK_PAPI(ct_add(es, name));
    settle(d);
    int rc = PAPI_start(es);
    ct_check_rc((std::string("conflicts: ") + label + ": once the other was stopped and destroyed, PAPI_start").c_str(),
                rc, PAPI_OK);
    if (rc == PAPI_OK) {
        reads(d, 2);
        CUDA_MUST(cudaDeviceSynchronize());
        stop_now(es, &v);
        within(std::string("conflicts: ") + label + ": then it counts 2 reads of 512 MiB", val(name, v), 2.0 * B, 0.03);
    }
    ct_destroy(&es);
}

static void conflicts_case(const dev_bufs &d)
{
    conflict_one(d, "dram__bytes_read.sum:device=0", "dram__bytes_read.sum:sampled:device=0",
                 "a sampled set while a Range Profiler set counts device 0");
    conflict_one(d, "dram__bytes_read.sum:sampled:device=0", "dram__bytes_read.sum:device=0",
                 "a Range Profiler set while a sampled set counts device 0");
}

/* ---------------------------------------------------------------- devices */

static void devices_case(const dev_bufs &d0, int n_devices)
{
    if (n_devices < 2) {
        ct_note("devices: SKIP, needs 2 GPUs, found %d", n_devices);
        return;
    }
    dev_bufs d1 = make_bufs(1);
    long long v[2];
    settle(d0);
    settle(d1);
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_started({"dram__bytes_read.sum:sampled:device=0", "dram__bytes_read.sum:sampled:device=1"});
    CUDA_MUST(cudaSetDevice(1));
    reads(d1, 3);
    CUDA_MUST(cudaSetDevice(0));
    reads(d0, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    CUDA_MUST(cudaSetDevice(1));
    CUDA_MUST(cudaDeviceSynchronize());
    CUDA_MUST(cudaSetDevice(0));
    stop_now(es, v);
    ct_destroy(&es);
    within("devices: :device=0 counts device 0's 1 read of 512 MiB", val(RD, v[0]), (double)B, 0.03);
    within("devices: :device=1 counts device 1's 3 reads of 512 MiB", val(RD, v[1]), 3.0 * B, 0.03);
}

/* ---------------------------------------------------------------- for ncu-crosscheck */

static int values_mode(void)
{
    ct_gpu_ready(0);
    probe_sampling();
    dev_bufs d = make_bufs(0);
    double background = 0; /* the writes of the read-only window (see exact_case) */
    for (int k = 0; k < 2; k++) {
        long long v[2];
        settle(d);
        int es = ct_started({RD, WR});
        if (k == 0) {
            reads(d, 1);
        } else {
            /* The write and the read that writes its dirty L2 lines back: Nsight Compute (with
             * --cache-control none) counts them in the two kernels, the window in one. */
            writes(d, NW);
            flush(d);
        }
        CUDA_MUST(cudaDeviceSynchronize());
        stop_now(es, v);
        ct_destroy(&es);
        if (k == 0) {
            printf("stream_read@1 dram__bytes_read.sum %.0f\n", val(RD, v[0]));
            background = val(WR, v[1]);
        } else {
            fprintf(stderr, "# stream_write*%d+flush_read: sampled dram__bytes_write.sum %.0f, less %.0f of "
                            "background (the writes of the read-only window)\n", NW, val(WR, v[1]), background);
            printf("stream_write*%d+flush_read@2 dram__bytes_write.sum %.0f\n", NW, val(WR, v[1]) - background);
        }
    }
    return 0;
}

/* Each measured part is a range of its own (cudaProfilerStart/Stop) for ncu's range replay, which
 * measures it as one, as the sampled window does: measured kernel by kernel, ncu would miss the
 * dirty lines the L2 writes back between two kernels (0.8 MB each, seen on an H200). */
static int ncu_mode(void)
{
    require_gpu(1);
    ct_use_device(0);
    dev_bufs d = make_bufs(0);
    settle(d);
    CUDA_MUST(cudaProfilerStart());
    reads(d, 1);
    CUDA_MUST(cudaProfilerStop());
    CUDA_MUST(cudaDeviceSynchronize());
    settle(d);
    CUDA_MUST(cudaProfilerStart());
    writes(d, NW);
    flush(d);
    CUDA_MUST(cudaProfilerStop());
    CUDA_MUST(cudaDeviceSynchronize());
    return 0;
}

/* Under Nsight Compute, which holds the counters while it profiles the kernels. */
static int under_ncu_mode(void)
{
    ct_gpu_ready(0); /* one kernel, profiled by ncu */
    dev_bufs d = make_bufs(0);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int add = ct_add(es, RD), start = PAPI_ENOEVST;
    if (add == PAPI_OK)
        start = PAPI_start(es);
    int rc = add == PAPI_OK ? start : add;
    int cid = PAPI_get_component_index(CT_COMPONENT);
    const PAPI_component_info_t *ci = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
    ct_note("under ncu: add %s, start %s; component %s%s", err(add).c_str(),
            add == PAPI_OK ? err(start).c_str() : "not tried", ci && ci->disabled ? "disabled: " : "enabled",
            ci && ci->disabled ? ci->disabled_reason : "");
    if (rc == PAPI_ECNFLCT || rc == PAPI_EPERM) {
        ct_result(1, "under ncu: the sampled set is refused with %s", err(rc).c_str());
    } else if (rc == PAPI_OK) {
        long long v;
        reads(d, 2);
        CUDA_MUST(cudaDeviceSynchronize());
        stop_now(es, &v);
        within("under ncu: the sampled set started (not refused): its value must then be right: 2 reads of 512 MiB",
               val(RD, v), 2.0 * B, 0.03);
    } else {
        ct_result(0, "under ncu: the sampled set is refused with PAPI_ECNFLCT or PAPI_EPERM: got %s", err(rc).c_str());
    }
    ct_destroy(&es);
    return ct_done();
}

int main(int argc, char **argv)
{
    const char *mode = "all";
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--interval-us=", 14))
            setenv("CUPTI_CB_SAMPLING_INTERVAL_US", argv[i] + 14, 1);
        else
            mode = argv[i];
    }
    if (!strcmp(mode, "values"))
        return values_mode();
    if (!strcmp(mode, "ncu"))
        return ncu_mode();
    if (!strcmp(mode, "under-ncu"))
        return under_ncu_mode();
    int all = !strcmp(mode, "all");
    if (!all && strcmp(mode, "exact"))
        ct_fatal("unknown mode %s (all, exact, values, ncu, under-ncu; --interval-us=N)", mode);
    int n = require_gpu(1);
    if (all) {
        /* Other intervals in processes of their own (the interval is read once per process), run
         * first: this process's sampling session would hold the device. */
        for (const char *us : {"100", "2000"}) {
            ct_note("exact at CUPTI_CB_SAMPLING_INTERVAL_US=%s (own process):", us);
            int rc = ct_run_self(argv[0], "exact", "CUPTI_CB_SAMPLING_INTERVAL_US", us);
            if (rc == 77)
                ct_note("exact at %s us: SKIP (its reason above)", us);
            else
                CHECK_EQ((std::string("exact at CUPTI_CB_SAMPLING_INTERVAL_US=") + us + " (own process): exit").c_str(),
                         rc, 0);
        }
    }
    ct_gpu_ready(1);
    probe_sampling();
    dev_bufs d = make_bufs(0);
    exact_case(d);
    if (all) {
        midreads_case(d);
        tau_case(d);
        threads_case(d);
        sigprof_case(d);
        conflicts_case(d);
        devices_case(d, n);
    }
    return ct_done();
}
