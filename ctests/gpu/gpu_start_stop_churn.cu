/*
 * gpu_start_stop_churn: many threads start and stop their own event sets at
 * unrelated times while other threads are in the middle of CUDA calls: the
 * pattern under which CUPTI 13.0 was measured to lose enables when callbacks
 * were toggled at every start/stop (results/bench/RESULTS.md). Every window must
 * count exactly the calls its own thread made in it, in the default
 * configuration (a set keeps its callbacks from its first start to its
 * cleanup). Sets are destroyed between the two passes, so the component
 * unsubscribes and subscribes again in between.
 *
 * THREADS threads x ROUNDS rounds: start {cudaGetDevice.calls}, make
 * 50 + id + round calls, stop. A second pass does the same with
 * {kernel.launches} and launches.
 */
#include "ctest_util.h"

static const int THREADS = 32, ROUNDS = 20;
static int use_launches;
static long long wrong;
static pthread_mutex_t wrong_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    long id = (long)arg;
    cudaStream_t s;
    long long v[1];
    const char *names[] = {use_launches ? "kernel.launches" : "cudaGetDevice.calls"};
    int dev;

    PAPI_MUST(PAPI_register_thread());
    CUDA_MUST(cudaSetDevice(0));
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int es = ct_eventset(1, names);
    for (int r = 0; r < ROUNDS; r++) {
        int calls = 50 + (int)id + r;
        PAPI_MUST(PAPI_start(es));
        if (use_launches)
            ct_launch(calls, s);
        else
            for (int i = 0; i < calls; i++)
                CUDA_MUST(cudaGetDevice(&dev));
        PAPI_MUST(PAPI_stop(es, v));
        if (v[0] != calls) {
            pthread_mutex_lock(&wrong_lock);
            if (wrong++ < 10)
                ct_note("thread %ld round %d: %s = %lld, want %d", id, r, names[0], v[0], calls);
            pthread_mutex_unlock(&wrong_lock);
        }
        /* Work outside any window, which must not count anywhere. */
        for (int i = 0; i < 20; i++)
            CUDA_MUST(cudaGetDevice(&dev));
    }
    ct_destroy(&es);
    CUDA_MUST(cudaStreamSynchronize(s));
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_MUST(PAPI_unregister_thread());
    return nullptr;
}

static void pass(int launches)
{
    pthread_t t[THREADS];
    use_launches = launches;
    wrong = 0;
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], nullptr, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], nullptr);
    CHECK_EQ(launches ? "windows with a wrong kernel.launches count"
                      : "windows with a wrong cudaGetDevice.calls count",
             wrong, 0);
}

int main()
{
    ct_gpu_ready(1);
    pass(0);
    pass(1);
    return ct_done();
}
