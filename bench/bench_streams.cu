/* bench_streams: a CUDA program in the manner of NVIDIA's simpleStreams sample, with no PAPI and
 * no CUPTI in it: work cut into S streams, each stream's part launched as a kernel and copied back
 * to pinned host memory, an event recorded after them and waited for; repeated.  run-runner-bench
 * measures it bare and under each tool.
 *
 *   bench_streams [--streams=S] [--iters=N] [--kib=K] [--pause-ms=P]
 *
 * K KiB of ints in all (default 1024: small enough that the host's calls, where tools add their
 * cost, are a good part of an iteration).  A first round of N/10 iterations warms up, then the
 * program waits P ms, then times N iterations.  Prints one line:
 *   streams streams=S iters=N us_per_iter=X loop_ms=Y first_call_ms=Z
 * Every iteration's copies are checked: a wrong value exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#define BENCH_PROG "bench_streams"
#include "bench_args.h"

__global__ void init_array(int *a, int n, int value)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = value + i;
}

struct work {
    int streams, per; /* ints per stream */
    int *h, *d;
    cudaStream_t *s;
    cudaEvent_t done;
};

static void run(const struct work *w, long iters, int check)
{
    for (long it = 0; it < iters; it++) {
        int value = (int)(it & 0xffff);
        for (int i = 0; i < w->streams; i++) {
            int *d = w->d + (size_t)i * w->per;
            init_array<<<(w->per + 255) / 256, 256, 0, w->s[i]>>>(d, w->per, value);
            CHECK(cudaMemcpyAsync(w->h + (size_t)i * w->per, d, (size_t)w->per * sizeof(int), cudaMemcpyDeviceToHost,
                                  w->s[i]));
        }
        CHECK(cudaEventRecord(w->done, 0));
        CHECK(cudaEventSynchronize(w->done));
        if (check && (w->h[0] != value || w->h[(size_t)w->streams * w->per - 1] != value + w->per - 1)) {
            fprintf(stderr, "bench_streams: iteration %ld: wrong values copied back\n", it);
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    struct work w;
    w.streams = (int)bench_opt(argc, argv, "--streams", 4);
    long iters = bench_opt(argc, argv, "--iters", 5000), kib = bench_opt(argc, argv, "--kib", 1024);
    long pause_ms = bench_opt(argc, argv, "--pause-ms", 0);
    if (w.streams < 1 || w.streams > 64 || iters < 1 || kib < 1 || kib * 256 / w.streams < 1) {
        fprintf(stderr, "usage: bench_streams [--streams=1..64] [--iters=N] [--kib=K] [--pause-ms=P]\n");
        return 2;
    }
    w.per = (int)(kib * 256 / w.streams);
    unsigned long long t0 = bench_now_ns();
    CHECK(cudaSetDevice(0));
    double first_ms = (double)(bench_now_ns() - t0) / 1e6;
    size_t bytes = (size_t)w.streams * w.per * sizeof(int);
    CHECK(cudaMallocHost(&w.h, bytes));
    CHECK(cudaMalloc(&w.d, bytes));
    w.s = (cudaStream_t *)calloc((size_t)w.streams, sizeof *w.s);
    for (int i = 0; i < w.streams; i++)
        CHECK(cudaStreamCreate(&w.s[i]));
    CHECK(cudaEventCreateWithFlags(&w.done, cudaEventDisableTiming));
    run(&w, iters / 10 + 1, 1); /* warm-up */
    if (pause_ms > 0) {
        struct timespec p = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
        nanosleep(&p, NULL);
    }
    if (bench_where_begin)
        bench_where_begin();
    unsigned long long t1 = bench_now_ns();
    run(&w, iters, 1);
    unsigned long long t2 = bench_now_ns();
    if (bench_where_end)
        bench_where_end();
    for (int i = 0; i < w.streams; i++)
        CHECK(cudaStreamDestroy(w.s[i]));
    CHECK(cudaEventDestroy(w.done));
    CHECK(cudaFree(w.d));
    CHECK(cudaFreeHost(w.h));
    printf("streams streams=%d iters=%ld us_per_iter=%.3f loop_ms=%.3f first_call_ms=%.3f\n", w.streams, iters,
           (double)(t2 - t1) / 1e3 / (double)iters, (double)(t2 - t1) / 1e6, first_ms);
    return 0;
}
