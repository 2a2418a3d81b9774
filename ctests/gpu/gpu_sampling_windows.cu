/*
 * gpu_sampling_windows: sampled windows as users measure them, with no sleep anywhere: PAPI_start,
 * launches, cudaDeviceSynchronize, PAPI_stop; and TAU's PAPI_read + PAPI_reset at region
 * boundaries right after each region's synchronization.  The bytes moved come from the Range
 * Profiler over the same launches (dram__bytes_read.sum, exact over a range), measured at the end.
 * The kernel reads a buffer of B = 1 GiB (far larger than the L2) once per launch.
 *
 *   windows   for 4, 40, 400 and 4000 launches (about 1 ms, 10 ms, 100 ms and 1 s of work), three
 *             windows each, every window started right after 8 synchronized launches of its own
 *             (work that ended just before the start must not count): sampled / bytes moved within
 *             0.1% from 10 ms on and within 2% at 1 ms.  The cost of each PAPI_start and PAPI_stop
 *             is printed (median and largest).
 *   regions   12 regions of 4 launches, each synchronized, PAPI_read + PAPI_reset at each boundary:
 *             the regions add up, within 0.1%, to a whole window of a second set on another thread
 *             and to the bytes moved; each region's ratio to its own bytes is printed.
 *   exact     (own process, CUPTI_CB_SAMPLING_EXACT=1) the same regions: each within 1% of its own
 *             bytes; the cost of such a read is printed.
 * SKIP (exit 77): no GPU; no profiling permission; no PM sampling (compute capability below 7.5).
 */
#include "ctest_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_kernels.h"

static const size_t B = 1ull << 30;
static const size_t N4 = B / sizeof(float4);
#define GRID 1024
#define BLOCK 256

static const char *const RD = "dram__bytes_read.sum:sampled";
static const char *const RP = "dram__bytes_read.sum";

static float4 *g_buf;
static float *g_sink;

static void launches(int n)
{
    for (int i = 0; i < n; i++)
        stream_read<<<GRID, BLOCK>>>(g_buf, N4, g_sink);
    CUDA_MUST(cudaGetLastError());
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int within(const char *what, double got, double want, double rel)
{
    double off = want ? fabs(got - want) / want : fabs(got);
    return ct_result(off <= rel, "%s: %.0f for %.0f bytes, ratio %.5f (limit +-%.2f%%)", what, got, want,
                     want ? got / want : 0, rel * 100);
}

static void costs(const char *what, std::vector<double> &ms)
{
    std::sort(ms.begin(), ms.end());
    ct_note("cost of %s: median %.3f ms, largest %.3f ms (%zu calls)", what, ms[ms.size() / 2], ms.back(), ms.size());
}

/* Bytes one launch reads, by the Range Profiler over 20 launches (its value is exact over a range). */
static double bytes_per_launch(void)
{
    long long v;
    int es = ct_started({RP});
    launches(20);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, &v));
    ct_destroy(&es);
    ct_note("Range Profiler: %lld bytes read by 20 launches (%.6f of 20 GiB)", v, (double)v / (20.0 * B));
    return (double)v / 20;
}

struct window { int n; double got; };

static void windows_case(std::vector<window> &out)
{
    const char *names[] = { RD };
    int es = ct_eventset(1, names);
    std::vector<double> start_ms, stop_ms;
    for (int n : {4, 40, 400, 4000})
        for (int rep = 0; rep < 3; rep++) {
            long long v;
            launches(8); /* work that ends right before the start */
            CUDA_MUST(cudaDeviceSynchronize());
            double t0 = now_ms();
            PAPI_MUST(PAPI_start(es));
            double t1 = now_ms();
            launches(n);
            CUDA_MUST(cudaDeviceSynchronize());
            double t2 = now_ms();
            PAPI_MUST(PAPI_stop(es, &v));
            double t3 = now_ms();
            start_ms.push_back(t1 - t0);
            stop_ms.push_back(t3 - t2);
            out.push_back({n, (double)v});
        }
    ct_destroy(&es);
    costs("PAPI_start of a sampled set (it cuts at its moment: waits for its sample and the next)", start_ms);
    costs("PAPI_stop of a sampled set right after the synchronization (waits for the samples that cover it)", stop_ms);
}

static pthread_barrier_t bar;
static double g_whole;

static void *whole_thread(void *)
{
    long long v;
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_started({RD});
    pthread_barrier_wait(&bar); /* 1: the whole counts */
    pthread_barrier_wait(&bar); /* 2: the regions are over */
    PAPI_MUST(PAPI_stop(es, &v));
    ct_destroy(&es);
    g_whole = (double)v;
    return nullptr;
}

/* 12 regions of 4 launches; returns each region's value. */
static std::vector<double> regions(std::vector<double> &read_ms)
{
    std::vector<double> r;
    long long v;
    int es = ct_started({RD});
    for (int i = 0; i < 12; i++) {
        launches(4);
        CUDA_MUST(cudaDeviceSynchronize());
        double t0 = now_ms();
        PAPI_MUST(PAPI_read(es, &v));
        read_ms.push_back(now_ms() - t0);
        PAPI_MUST(PAPI_reset(es));
        r.push_back((double)v);
    }
    PAPI_MUST(PAPI_stop(es, &v));
    ct_destroy(&es);
    r.push_back((double)v); /* after the last boundary: nothing */
    return r;
}

static void report_regions(const std::vector<double> &r, double per_region, int exact)
{
    char line[1024];
    int at = 0;
    for (size_t i = 0; i < 12; i++)
        at += snprintf(line + at, sizeof line - at, " %.4f", r[i] / per_region);
    ct_note("regions / own bytes:%s; after the last: %.0f bytes", line, r[12]);
    if (exact)
        for (size_t i = 0; i < 12; i++) {
            char what[96];
            snprintf(what, sizeof what, "exact: region %zu reads its own bytes within 1%%", i + 1);
            within(what, r[i], per_region, 0.01);
        }
}

static int exact_mode(void)
{
    require_gpu(1);
    ct_gpu_ready(1);
    CUDA_MUST(cudaMalloc(&g_buf, B));
    CUDA_MUST(cudaMemset(g_buf, 0, B));
    CUDA_MUST(cudaMalloc(&g_sink, sizeof(float)));
    std::vector<double> read_ms;
    std::vector<double> r = regions(read_ms);
    costs("a read with CUPTI_CB_SAMPLING_EXACT=1 (cuts at its moment)", read_ms);
    double per_launch = bytes_per_launch();
    report_regions(r, 4 * per_launch, 1);
    double sum = 0;
    for (double x : r)
        sum += x;
    within("exact: the regions add up to the bytes moved", sum, 48 * per_launch, 0.001);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exact"))
        return exact_mode();
    require_gpu(1);
    ct_gpu_ready(1);
    CUDA_MUST(cudaMalloc(&g_buf, B));
    CUDA_MUST(cudaMemset(g_buf, 0, B));
    CUDA_MUST(cudaMalloc(&g_sink, sizeof(float)));
    {
        int es = PAPI_NULL;
        PAPI_MUST(PAPI_create_eventset(&es));
        int rc = ct_add(es, RD);
        if (rc == PAPI_OK)
            rc = PAPI_start(es);
        if (rc == PAPI_EPERM)
            ct_skip("%s: no profiling permission (run as root)", RD);
        int major = 0;
        CUDA_MUST(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
        if (rc == PAPI_ENOSUPP && major < 8)
            ct_skip("%s: PM sampling needs compute capability 7.5", RD);
        if (rc != PAPI_OK)
            ct_fatal("%s: %s (PAPI_VERBOSE=1 prints the sentence)", RD, ct_papi_err(rc));
        long long v;
        PAPI_MUST(PAPI_stop(es, &v));
        ct_destroy(&es);
    }

    std::vector<window> w;
    windows_case(w);

    std::vector<double> read_ms, r;
    pthread_t th;
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&th, NULL, whole_thread, NULL);
    pthread_barrier_wait(&bar);
    r = regions(read_ms);
    pthread_barrier_wait(&bar);
    pthread_join(th, NULL);
    costs("a default read (a copy)", read_ms);

    /* The sampled sets are gone: the Range Profiler may count the device now. */
    double per_launch = bytes_per_launch();
    for (const window &x : w) {
        char what[128];
        double want = x.n * per_launch;
        snprintf(what, sizeof what, "start / %d launches (%.1f ms of work) / synchronize / stop", x.n,
                 x.n * 0.27);
        within(what, x.got, want, x.n >= 40 ? 0.001 : 0.02);
    }
    double sum = 0;
    for (double x : r)
        sum += x;
    report_regions(r, 4 * per_launch, 0);
    within("regions: they add up to the whole window of another set", sum, g_whole, 0.001);
    within("regions: they add up to the bytes moved", sum, 48 * per_launch, 0.001);

    ct_note("exact regions (own process, CUPTI_CB_SAMPLING_EXACT=1):");
    int rc = ct_run_self(argv[0], "exact", "CUPTI_CB_SAMPLING_EXACT", "1");
    CHECK_EQ("exact regions (own process): exit", rc, 0);
    return ct_done();
}
