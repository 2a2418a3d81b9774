/*
 * gpu_sigprof: PAPI_read from a SIGPROF handler, as TAU's and Caliper's samplers call it, on a
 * GPU with the real CUPTI.  A read in a handler must never hang, never fail and never go down
 * between resets; ordinary reads stay exact (cupti_cb-threads(7), "Signal handlers").
 *
 *   sampler    a SIGPROF timer at 1 kHz aimed at the main thread, whose handler reads a set of
 *              {kernel.launches, cudaLaunchKernel.calls, gpu.kernels, gpu.busy_ns} while the
 *              main thread launches kernels in rounds of 50, synchronizes, reads (exact: 50 x
 *              rounds since the last reset) and resets every 10 rounds, for 3 s; a watchdog ends
 *              the process after 60 s (the old read flushed CUPTI's buffers in the handler and
 *              hung).  Then the same with a hardware metric (smsp__inst_executed.sum) in the set.
 *   handleronly a set read only from a handler (HPCToolkit's way through PAPI_overflow): 7
 *              kernels, synchronized; 200 ms later a read in a handler sees all 7 (delivered by
 *              cupti_cb's flushing thread).
 *   straddle   kernels of 10 ms and 30 ms started together on two streams; the 10 ms one is
 *              read (until CUPTI delivered it) and the set reset while the 30 ms one still runs:
 *              the window after the reset has gpu.busy_ns at least its one kernel's time (it was
 *              20 ms when the union was shared with the window before).  SKIP of this case when
 *              CUPTI had not delivered the 10 ms kernel alone before the reset.
 */
#include "ctest_util.h"

#include <signal.h>
#include <time.h>

static const long long MS = 1000000; /* ns */

__device__ __forceinline__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(long long ns)
{
    unsigned long long t0 = global_ns();
    while ((long long)(global_ns() - t0) < ns) {
    }
}

#define MAXEV 5
static int g_es = PAPI_NULL;
static int g_n;
static volatile sig_atomic_t g_gen, g_reads, g_bad_rc, g_down;
static long long g_last[MAXEV], g_seen = -1;
static int g_last_gen = -1;

static void reader(int)
{
    int saved = errno;
    long long v[MAXEV];
    int rc = PAPI_read(g_es, v);
    if (rc != PAPI_OK) {
        g_bad_rc = rc;
    } else {
        if (g_last_gen == g_gen && g_gen % 2 == 0)
            for (int i = 0; i < g_n; i++)
                if (v[i] < g_last[i])
                    g_down = 1;
        memcpy(g_last, v, sizeof v);
        g_last_gen = g_gen;
        g_seen = v[0];
        g_reads++;
    }
    errno = saved;
}

static void *watchdog(void *)
{
    sleep(60);
    fflush(stdout); /* _exit below does not */
    fprintf(stderr, "FAIL: still running after 60 s: a read in the SIGPROF handler hangs\n");
    _exit(1);
    return nullptr;
}

static void sampler_case(const char *label, std::initializer_list<const char *> names)
{
    long long v[MAXEV];
    g_n = (int)names.size();
    g_reads = 0, g_bad_rc = 0, g_down = 0, g_last_gen = -1;
    g_es = ct_started(names);
    signal(SIGPROF, reader);
    timer_t t = ct_sigprof_timer(1000);
    long long launched = 0, misses = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int round = 0;; round++) {
        ct_launch(50, 0);
        launched += 50;
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_read(g_es, v));
        misses += v[0] != launched || v[1] != launched;
        if (round % 10 == 9) {
            g_gen++;
            PAPI_MUST(PAPI_reset(g_es));
            launched = 0;
            g_gen++;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= 3)
            break;
    }
    timer_delete(t);
    signal(SIGPROF, SIG_IGN);
    PAPI_MUST(PAPI_stop(g_es, v));
    ct_destroy(&g_es);
    ct_note("%s: %d reads in the handler", label, (int)g_reads);
    std::string l(label);
    CHECK_REL((l + ": reads in the handler").c_str(), g_reads, ">=", 500);
    CHECK_EQ((l + ": every read in the handler returned PAPI_OK").c_str(), g_bad_rc, PAPI_OK);
    CHECK_EQ((l + ": no value read in the handler went down between resets").c_str(), g_down, 0);
    CHECK_EQ((l + ": ordinary reads exact (launches)").c_str(), misses, 0);
    CHECK_EQ((l + ": the stop: launches since the last reset").c_str(), v[0], launched);
}

static void handleronly_case(void)
{
    long long v[1];
    g_n = 1;
    g_es = ct_started({"gpu.kernels"});
    signal(SIGPROF, reader);
    ct_launch(7, 0);
    CUDA_MUST(cudaDeviceSynchronize());
    usleep(200000);
    g_seen = -1;
    raise(SIGPROF);
    signal(SIGPROF, SIG_IGN);
    CHECK_EQ("handleronly: a read in a handler 200 ms after the work: gpu.kernels", g_seen, 7);
    PAPI_MUST(PAPI_stop(g_es, v));
    ct_destroy(&g_es);
    CHECK_EQ("handleronly: the stop", v[0], 7);
}

static void straddle_case(void)
{
    cudaStream_t a, b;
    long long v[3];
    CUDA_MUST(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CUDA_MUST(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    int es = ct_started({"gpu.busy_ns", "gpu.kernel_time_ns", "gpu.kernels"});
    spin<<<1, 1, 0, b>>>(30 * MS);
    spin<<<1, 1, 0, a>>>(10 * MS);
    CUDA_MUST(cudaStreamSynchronize(a));
    /* CUPTI completes the 10 ms kernel's record shortly after the GPU: read
     * until it is there, while the 30 ms one still runs (20 ms left). */
    for (int i = 0; i < 10; i++) {
        PAPI_MUST(PAPI_read(es, v));
        if (v[2] >= 1)
            break;
        usleep(1000);
    }
    ct_note("straddle: window 1: gpu.busy_ns %lld, gpu.kernel_time_ns %lld, gpu.kernels %lld", v[0], v[1], v[2]);
    int delivered_first = v[2] == 1;
    PAPI_MUST(PAPI_reset(es));
    CUDA_MUST(cudaStreamSynchronize(b));
    usleep(5000);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    ct_note("straddle: window 2: gpu.busy_ns %lld, gpu.kernel_time_ns %lld, gpu.kernels %lld", v[0], v[1], v[2]);
    if (!delivered_first || v[2] != 1) {
        ct_note("straddle: SKIP, the 10 ms kernel was not alone in the first window (CUPTI's delivery)");
    } else {
        CHECK_REL("straddle: window 2 holds the 30 ms kernel alone: its time", v[1], ">=", 30 * MS);
        CHECK_REL("straddle: window 2: gpu.busy_ns at least its one kernel", v[0], ">=", v[1]);
    }
    CUDA_MUST(cudaStreamDestroy(a));
    CUDA_MUST(cudaStreamDestroy(b));
}

int main()
{
    pthread_t dog;
    ct_gpu_ready(1);
    pthread_create(&dog, nullptr, watchdog, nullptr);
    sampler_case("sampler", {"kernel.launches", "cudaLaunchKernel.calls", "gpu.kernels", "gpu.busy_ns"});
    sampler_case("sampler with a metric",
                 {"kernel.launches", "cudaLaunchKernel.calls", "gpu.kernels", "smsp__inst_executed.sum"});
    handleronly_case();
    straddle_case();
    PAPI_shutdown();
    return ct_done();
}
