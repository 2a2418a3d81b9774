// inj_flame_paths: a CUDA program with known call paths, for gpu_run_flame (cupti_cb_run --flame
// on the GPU).  The CUDA runtime is linked statically, as nvcc links it by default, and the
// kernels are launched with <<<>>>:
//
//   main > a > b > k1<<<>>>          k1 runs 10 ms (the GPU's own clock, %globaltimer)
//   main > c > k2<<<>>>              k2 runs 20 ms
//   main > d > cudaMemcpy            64 MiB host to device
//   worker > a > b > k1, worker > c > k2, on each of two threads
//
// so that the flame graph must hold exactly these stacks, with the k2 stacks weighing twice
// the k1 stacks of the same thread.  Prints "flame_paths ok" and exits 0, or says what failed.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <cuda_runtime.h>

#define PATH_FN __attribute__((noinline))
#define STAY() __asm__ volatile("" ::: "memory")

static int failed;

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "inj_flame_paths: %s: %s\n", what, cudaGetErrorString(e));
        failed = 1;
    }
}

// Spins ns nanoseconds of the GPU's global timer: a kernel of a known duration.
static __device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void k1(long long ns)
{
    unsigned long long end = now_ns() + (unsigned long long)ns;
    while (now_ns() < end)
        ;
}

__global__ void k2(long long ns)
{
    unsigned long long end = now_ns() + (unsigned long long)ns;
    while (now_ns() < end)
        ;
}

PATH_FN static void b()
{
    k1<<<1, 1>>>(10000000LL);
    check(cudaGetLastError(), "k1<<<>>>");
    STAY();
}

PATH_FN static void a()
{
    b();
    STAY();
}

PATH_FN static void c()
{
    k2<<<1, 1>>>(20000000LL);
    check(cudaGetLastError(), "k2<<<>>>");
    STAY();
}

PATH_FN static void d(void *dst, const void *src, size_t n)
{
    check(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "cudaMemcpy");
    STAY();
}

PATH_FN static void *worker(void *)
{
    a();
    c();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (worker)");
    STAY();
    return nullptr;
}

int main()
{
    const size_t n = 64u << 20;
    void *dev = nullptr;
    void *host = calloc(1, n);
    check(cudaMalloc(&dev, n), "cudaMalloc");
    if (failed || !host)
        return 1;
    a();
    c();
    d(dev, host, n);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], nullptr, worker, nullptr) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], nullptr);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check(cudaFree(dev), "cudaFree");
    free(host);
    if (!failed)
        printf("flame_paths ok\n");
    return failed;
}
