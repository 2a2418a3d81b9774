/* bench_app_loop: an ordinary CUDA program, with no PAPI and no CUPTI in it, for measuring
 * what a tool that attaches from outside (cupti_cb_run, nsys) costs it.
 *
 *   bench_app_loop [--threads=T] [--iters=N] [--copies=C] [--pause-ms=P]
 *
 * Each of T threads launches N empty kernels on its own stream, with a 4 KiB host-to-device
 * copy every N/C launches, then synchronizes.  A first round of N/10 launches warms up (it pays
 * for the first CUDA call, where tools load), then the program waits P ms (default 0: room for a
 * tool that starts counting later, such as cupti_cb_run --start-after).  Prints one line:
 *   app threads=T iters=N ns_per_launch=X loop_ms=Y first_call_ms=Z
 * ns_per_launch: wall time of the timed loop (all threads) / N launches of one thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define BENCH_PROG "bench_app_loop"
#include "bench_args.h"

static long iters = 20000, copies = 100, pause_ms = 0;
static int threads = 1;
static pthread_barrier_t go;

__global__ void empty_kernel(void) {}

static void loop(cudaStream_t s, void *dev, const void *host, long n)
{
    long every = copies > 0 ? n / copies : 0;
    for (long i = 0; i < n; i++) {
        empty_kernel<<<1, 1, 0, s>>>();
        if (every > 0 && i % every == 0)
            CHECK(cudaMemcpyAsync(dev, host, 4096, cudaMemcpyHostToDevice, s));
    }
    CHECK(cudaStreamSynchronize(s));
}

static void *worker(void *arg)
{
    /* the first thread's timed loop is what libbench_where.so samples: its launching thread */
    int first = arg != NULL;
    cudaStream_t s;
    void *dev;
    static char host[4096];
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&dev, 4096));
    loop(s, dev, host, iters / 10 + 1);	/* warm-up */
    pthread_barrier_wait(&go);
    pthread_barrier_wait(&go);
    if (first && bench_where_begin)
        bench_where_begin();
    loop(s, dev, host, iters);
    if (first && bench_where_end)
        bench_where_end();
    pthread_barrier_wait(&go);
    CHECK(cudaFree(dev));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(int argc, char **argv)
{
    threads = (int)bench_opt(argc, argv, "--threads", 1);
    iters = bench_opt(argc, argv, "--iters", iters);
    copies = bench_opt(argc, argv, "--copies", copies);
    pause_ms = bench_opt(argc, argv, "--pause-ms", 0);
    if (threads < 1 || iters < 1) {
        fprintf(stderr, "usage: bench_app_loop [--threads=T] [--iters=N] [--copies=C]\n");
        return 2;
    }
    unsigned long long t0 = bench_now_ns();
    int n;
    CHECK(cudaGetDeviceCount(&n));
    double first_ms = (double)(bench_now_ns() - t0) / 1e6;
    pthread_t *tid = (pthread_t *)calloc((size_t)threads, sizeof *tid);
    pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, worker, i == 0 ? (void *)&go : NULL);
    pthread_barrier_wait(&go);	/* every thread warmed up */
    if (pause_ms > 0) {
        struct timespec p = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
        nanosleep(&p, NULL);
    }
    unsigned long long t1 = bench_now_ns();
    pthread_barrier_wait(&go);
    pthread_barrier_wait(&go);	/* every thread done */
    unsigned long long t2 = bench_now_ns();
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    printf("app threads=%d iters=%ld ns_per_launch=%.1f loop_ms=%.3f first_call_ms=%.3f\n", threads, iters,
           (double)(t2 - t1) / (double)iters, (double)(t2 - t1) / 1e6, first_ms);
    return 0;
}
