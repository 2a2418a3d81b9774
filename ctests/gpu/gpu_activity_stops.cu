/*
 * gpu_activity_stops: every thread's PAPI_stop right after its own synchronization counts all
 * the kernels it launched, at many threads, with no sleep anywhere.
 *
 * T threads each start a set {gpu.kernels, kernel.launches}, launch N tiny kernels on a
 * stream of their own, call cudaStreamSynchronize and at once PAPI_stop, R rounds: every stop
 * must give gpu.kernels = kernel.launches = N with PAPI_OK.  Shapes: 64 x 500 and 16 x 2,000,
 * 10 rounds each (CUDA 13.0 without the component's wait: 192 of 192 stops short at 64 x 500,
 * 5 of 80 at 16 x 2,000).  Also a PAPI_read right after the synchronization, then more launches
 * and cudaDeviceSynchronize before the stop.  Prints, per shape, the stops that were exact and
 * the median and longest stop (the cost of the wait).
 *
 * Optional arguments: T N R, one shape only.
 */
#include "ctest_util.h"

#include <algorithm>
#include <execinfo.h>
#include <vector>

/* A crash says where it happened (the installed suite's programs carry their symbols). */
static void on_crash(int sig)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    static const char msg[] = "gpu_activity_stops: crashed; backtrace:\n";
    (void)!write(2, msg, sizeof msg - 1);
    backtrace_symbols_fd(frames, n, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

__global__ void tiny(int *p)
{
    if (p && threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(p, 1);
}

struct shape {
    int threads, launches, rounds;
};

struct worker_arg {
    int launches, rounds;
    pthread_barrier_t *bar;
    int exact, wrong_rc, short_by;
    std::vector<double> stop_us;
};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void *worker(void *p)
{
    worker_arg *w = (worker_arg *)p;
    ct_use_device(0);
    cudaStream_t s;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_register_thread());
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(ct_add(es, "kernel.launches"));
    for (int r = 0; r < w->rounds; r++) {
        long long v[2] = { -1, -1 };
        pthread_barrier_wait(w->bar);
        PAPI_MUST(PAPI_start(es));
        for (int i = 0; i < w->launches; i++)
            tiny<<<1, 32, 0, s>>>(NULL);
        CUDA_MUST(cudaStreamSynchronize(s));
        double t0 = now_us();
        int rc = PAPI_stop(es, v);
        w->stop_us.push_back(now_us() - t0);
        if (rc != PAPI_OK) {
            /* A failed stop leaves the set running (PAPI's rule): stop it again, which does
             * not wait for what the first one said was missing. */
            w->wrong_rc++;
            if (w->wrong_rc <= 2)
                ct_note("round %d: PAPI_stop: %s", r, ct_papi_err(rc));
            PAPI_MUST(PAPI_stop(es, v));
        } else if (v[0] == w->launches && v[1] == w->launches)
            w->exact++;
        else
            w->short_by += (int)(w->launches - v[0]);
    }
    ct_destroy(&es);
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_MUST(PAPI_unregister_thread());
    return NULL;
}

static void run_shape(shape sh)
{
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)sh.threads);
    std::vector<worker_arg> args(sh.threads);
    std::vector<pthread_t> th(sh.threads);
    for (int t = 0; t < sh.threads; t++) {
        args[t].launches = sh.launches;
        args[t].rounds = sh.rounds;
        args[t].bar = &bar;
        args[t].exact = args[t].wrong_rc = args[t].short_by = 0;
        pthread_create(&th[t], NULL, worker, &args[t]);
    }
    int exact = 0, wrong_rc = 0, short_by = 0;
    std::vector<double> all;
    for (int t = 0; t < sh.threads; t++) {
        pthread_join(th[t], NULL);
        exact += args[t].exact;
        wrong_rc += args[t].wrong_rc;
        short_by += args[t].short_by;
        all.insert(all.end(), args[t].stop_us.begin(), args[t].stop_us.end());
    }
    pthread_barrier_destroy(&bar);
    std::sort(all.begin(), all.end());
    int stops = sh.threads * sh.rounds;
    printf("# %d threads x %d launches, %d rounds: %d of %d stops exact, %d failed, %d kernels missing; "
           "stop median %.1f us, longest %.1f us\n",
           sh.threads, sh.launches, sh.rounds, exact, stops, wrong_rc, short_by, all[all.size() / 2], all.back());
    char name[128];
    snprintf(name, sizeof name, "%d x %d: every stop exact", sh.threads, sh.launches);
    CHECK_EQ(name, exact, stops);
}

/* A read right after the synchronization, more work, a device synchronization, the stop. */
static void read_then_stop(void)
{
    int es = PAPI_NULL;
    long long v[1];
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_start(es));
    for (int i = 0; i < 300; i++)
        tiny<<<1, 32>>>(NULL);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("a read right after cudaDeviceSynchronize", v[0], 300);
    for (int i = 0; i < 200; i++)
        tiny<<<1, 32>>>(NULL);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("the stop after more work and another synchronization", v[0], 500);
    /* GPU_STOPS_KEEP=1: the set stays, so GPU activity stays enabled while the threads start. */
    if (!getenv("GPU_STOPS_KEEP"))
        ct_destroy(&es);
}

int main(int argc, char **argv)
{
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    ct_gpu_ready(1);
    read_then_stop();
    if (argc == 4) {
        run_shape({ atoi(argv[1]), atoi(argv[2]), atoi(argv[3]) });
    } else {
        run_shape({ 64, 500, 10 });
        run_shape({ 16, 2000, 10 });
        run_shape({ 4, 5000, 3 });
    }
    PAPI_shutdown();
    return ct_done();
}
