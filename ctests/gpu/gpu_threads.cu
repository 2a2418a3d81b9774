/*
 * gpu_threads: thread scope and process scope with 16 threads x 1000 launches.
 *
 * Each worker registers with PAPI, starts its own event set {kernel.launches,
 * kernel.launches:thread, kernel.launches:scope=thread}, waits at a barrier until every worker's
 * set is started, launches 1000 kernels (cudaLaunchKernel on its own stream) and stops:
 * exactly 1000 for each of the three spellings, whatever the other threads do.
 * The main thread starts {kernel.launches:process, kernel.launches:scope=process,
 * kernel.launches} before the workers exist and reads it after they have all exited:
 * 16000, 16000, and 0 (the main thread itself launches nothing in the region).
 */
#include "ctest_util.h"

static const int THREADS = 16, LAUNCHES = 1000;
static pthread_barrier_t started;

static void *worker(void *arg)
{
    long id = (long)arg;
    char label[96];
    cudaStream_t s;
    long long v[3];
    const char *names[] = {"kernel.launches", "kernel.launches:thread", "kernel.launches:scope=thread"};

    PAPI_MUST(PAPI_register_thread());
    CUDA_MUST(cudaSetDevice(0));
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int es = ct_eventset(3, names);
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&started);
    ct_launch(LAUNCHES, s);
    PAPI_MUST(PAPI_stop(es, v));
    for (int i = 0; i < 3; i++) {
        snprintf(label, sizeof label, "thread %2ld: %s", id, names[i]);
        CHECK_EQ(label, v[i], LAUNCHES);
    }
    ct_destroy(&es);
    CUDA_MUST(cudaStreamSynchronize(s));
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_MUST(PAPI_unregister_thread());
    return nullptr;
}

int main()
{
    ct_gpu_ready(1);

    const char *names[] = {"kernel.launches:process", "kernel.launches:scope=process", "kernel.launches"};
    long long v[3];
    int es = ct_eventset(3, names);
    PAPI_MUST(PAPI_start(es));

    pthread_t t[THREADS];
    pthread_barrier_init(&started, nullptr, THREADS);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], nullptr, worker, (void *)i))
            ct_fatal("pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], nullptr);
    pthread_barrier_destroy(&started);

    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("main, read after all workers exited: kernel.launches:process", v[0], THREADS * LAUNCHES);
    CHECK_EQ("main, read after all workers exited: kernel.launches:scope=process", v[1], THREADS * LAUNCHES);
    CHECK_EQ("main, read after all workers exited: kernel.launches (main thread only)", v[2], 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("main, at stop: kernel.launches:process", v[0], THREADS * LAUNCHES);
    ct_destroy(&es);
    PAPI_shutdown();
    return ct_done();
}
