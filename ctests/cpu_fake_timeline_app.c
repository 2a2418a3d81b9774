/*
 * cpu_fake_timeline_app: the application of tests/runner/run_timeline.sh, run under
 * cupti_cb_run --timeline with the fake libraries (CUPTI_CB_CLOCK=monotonic).  It makes known
 * CUDA calls at known times of its threads' clocks (each frozen for its thread alone, at F, a
 * CLOCK_MONOTONIC of the start) and plays the GPU records of their work on CUPTI's clock (the
 * fake's cuptiGetTimestamp with CUPTI_CB_FAKE_CUPTI_CLOCK=realtime: CLOCK_MONOTONIC + an offset D,
 * so G = F + D is F on that clock):
 *
 *   main thread   F+0      cudaLaunchKernel, 10 us; cuLaunchKernel inside, F+1000 .. F+7000
 *                 F+20000  cudaMemcpy (HtoD, 1000 bytes), 30 us; cuMemcpyHtoD_v2, F+25000 .. F+45000
 *   "tl-worker"   F+100000 cudaMemset (256 bytes), 5 us; cuMemsetD8_v2, F+101000 .. F+104000
 *   device 0      the kernel _Z5scaleIfEvPT_i on stream 7, G+500000 .. G+530000
 *                 the copy on stream 7, G+600000 .. G+605000
 *                 the memset on stream 9, G+700000 .. G+702500
 * (times in ns)
 *
 * With APP_LIVE_MS=N it lives N ms after its work (for the ticks of an --interval); with
 * APP_LAUNCHES=N it makes N more launches and prints its peak resident memory; with
 * APP_SPAWN=1 it then runs itself again as a child process.
 * Prints one line for the test: "G <G> <pid> <worker tid> <c1> <c2> <c3>", the correlation ids of
 * the launch, the copy and the memset.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <sys/syscall.h>
#include <sys/wait.h>

static uint64_t F;

/* A runtime call and the driver call inside it, at F+at on the caller's clock: the driver
 * call from +d0 to +d1, the runtime call ends at +end.  Returns the correlation id. */
static uint32_t pair(CUpti_CallbackId rt_cbid, CUpti_CallbackId drv_cbid, const void *params, uint64_t at,
                     uint64_t d0, uint64_t d1, uint64_t end)
{
    struct fake_call rt, drv;
    fake_time_freeze_thread(F + at);
    fake_call_init(&rt, FAKE_RT, rt_cbid, NULL, 0, FAKE_CTX0);
    fake_enter(&rt);
    fake_time_freeze_thread(F + at + d0);
    fake_call_init(&drv, FAKE_DRV, drv_cbid, params, CUDA_SUCCESS, FAKE_CTX0);
    fake_enter(&drv);
    fake_time_freeze_thread(F + at + d1);
    fake_exit(&drv);
    fake_time_freeze_thread(F + at + end);
    fake_exit(&rt);
    return rt.correlation_id;
}

static uint32_t c3;
static long worker_tid;

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "tl-worker");
    worker_tid = (long)syscall(SYS_gettid);
    cuMemsetD8_v2_params p = {fake_dev_ptr(0, 0), 0, 256};
    c3 = pair(RCB(cudaMemset_v3020), DCB(cuMemsetD8_v2), &p, 100000, 1000, 4000, 5000);
    fake_time_freeze_thread(0);
    return NULL;
}

int main(void)
{
    fake_setup();
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    F = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    uint64_t G = F + fake_gpu_clock_offset();

    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    uint32_t c1 = pair(RCB(cudaLaunchKernel_v7000), DCB(cuLaunchKernel), &lk, 0, 1000, 7000, 10000);
    static char host[1000];
    cuMemcpyHtoD_v2_params cp = {fake_dev_ptr(0, 0), host, sizeof host};
    uint32_t c2 = pair(RCB(cudaMemcpy_v3020), DCB(cuMemcpyHtoD_v2), &cp, 20000, 5000, 25000, 30000);
    fake_time_freeze_thread(0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);

    fake_activity_on(7, "_Z5scaleIfEvPT_i");
    fake_activity_kernel(c1, G + 500000, G + 530000, 0);
    fake_activity_memcpy(c2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1000, G + 600000, G + 605000, 0);
    fake_activity_on(9, NULL);
    fake_activity_memset(c3, 256, G + 700000, G + 702500, 0);
    /* APP_LAUNCHES=N: N more launches (cudaLaunchKernel with cuLaunchKernel inside), as fast
     * as they come; then the peak resident memory (VmHWM, kB) is printed. */
    const char *more = getenv("APP_LAUNCHES");
    if (more && *more) {
        play_launches(atoi(more), FAKE_CTX0);
        char st[4096] = "";
        FILE *f = fopen("/proc/self/status", "r");
        size_t n = f ? fread(st, 1, sizeof st - 1, f) : 0;
        if (f)
            fclose(f);
        st[n] = '\0';
        const char *hwm = strstr(st, "VmHWM:");
        printf("hwm_kb %ld\n", hwm ? atol(hwm + 6) : -1L);
    }
    /* APP_LIVE_MS: the program lives that long after its work (ticks of an --interval). */
    const char *live = getenv("APP_LIVE_MS");
    if (live && *live) {
        long ms = atol(live);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    printf("G %llu %ld %ld %u %u %u\n", (unsigned long long)G, (long)getpid(), worker_tid, c1, c2, c3);
    /* APP_SPAWN=1: then the program runs itself once more, as a child process, which makes the
     * same calls into the same --timeline file. */
    const char *spawn = getenv("APP_SPAWN");
    if (spawn && *spawn) {
        fflush(stdout);
        unsetenv("APP_SPAWN");
        pid_t c = fork();
        if (c == 0) {
            execl("/proc/self/exe", "cpu_fake_timeline_app", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 20;
    }
    return 0;
}
