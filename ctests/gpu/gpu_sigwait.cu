/*
 * gpu_sigwait: programs that block signals for their own reasons get exact values from every
 * source on the GPU (cupti_cb-threads(7), "Signal handlers").  Every signal is blocked in main
 * before PAPI_library_init, so every thread inherits the mask; one thread waits for SIGUSR1 with
 * sigwait (the pattern of servers and MPI progress threads), and a worker thread and main each
 * measure, with no sleep: a set of kernel.launches (callback), gpu.kernels (activity) and
 * dram__bytes_read.sum:sampled (PM sampling) over 20 launches of a 1 GiB read, stopped right
 * after the synchronization, then a set of the Range Profiler's dram__bytes_read.sum over the
 * same launches.  Every start PAPI_OK; launches and kernels exactly 20; the sampled bytes within
 * 0.1% of the Range Profiler's; the sigwaiting thread gets its SIGUSR1.
 * SKIP (exit 77): no GPU; no profiling permission.
 */
#include "ctest_util.h"

#include <cmath>
#include <signal.h>

#include "gpu_kernels.h"

static const size_t B = 1ull << 30;
static const size_t N4 = B / sizeof(float4);
static float4 *g_buf;
static float *g_sink;

static void launches(int n)
{
    for (int i = 0; i < n; i++)
        stream_read<<<1024, 256>>>(g_buf, N4, g_sink);
    CUDA_MUST(cudaGetLastError());
}

/* One measurement on the calling thread, whose mask blocks every signal. */
static void measure(const char *who)
{
    const char *three[] = { "kernel.launches", "gpu.kernels", "dram__bytes_read.sum:sampled" };
    const char *range[] = { "dram__bytes_read.sum" };
    long long v[3], r;
    char what[160];
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_eventset(3, three);
    int rc = PAPI_start(es);
    if (rc == PAPI_EPERM)
        ct_skip("%s: PAPI_start: no profiling permission (run as root)", who);
    snprintf(what, sizeof what, "%s: PAPI_start of the three sources with every signal blocked", who);
    CHECK_EQ(what, rc, PAPI_OK);
    if (rc != PAPI_OK)
        return;
    launches(20);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    es = ct_eventset(1, range);
    PAPI_MUST(PAPI_start(es));
    launches(20);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, &r));
    ct_destroy(&es);
    snprintf(what, sizeof what, "%s: kernel.launches", who);
    CHECK_EQ(what, v[0], 20);
    snprintf(what, sizeof what, "%s: gpu.kernels", who);
    CHECK_EQ(what, v[1], 20);
    double off = fabs((double)v[2] - (double)r) / (double)r;
    ct_result(off <= 0.001, "%s: dram__bytes_read.sum:sampled %lld, the Range Profiler's %lld (off by %.4f%%)", who,
              v[2], r, off * 100);
}

static void *worker(void *)
{
    measure("a thread created with every signal blocked");
    return nullptr;
}

static volatile int g_got;
static void *waiter(void *)
{
    sigset_t set;
    int sig = 0;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    if (sigwait(&set, &sig) == 0)
        g_got = sig;
    return nullptr;
}

int main(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    require_gpu(1);
    ct_gpu_ready(1);
    CUDA_MUST(cudaMalloc(&g_buf, B));
    CUDA_MUST(cudaMemset(g_buf, 0, B));
    CUDA_MUST(cudaMalloc(&g_sink, sizeof(float)));
    pthread_t w, s;
    pthread_create(&s, NULL, waiter, NULL);
    pthread_create(&w, NULL, worker, NULL);
    pthread_join(w, NULL);
    measure("main, every signal blocked");
    pthread_kill(s, SIGUSR1);
    pthread_join(s, NULL);
    CHECK_EQ("the sigwaiting thread got its SIGUSR1", g_got, SIGUSR1);
    return ct_done();
}
