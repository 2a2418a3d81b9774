/*
 * consumer_app: a CUDA program whose counts are known region by region (consumer_app.h), for
 * running cupti_cb inside the performance tools that consume PAPI (scripts/consumers/run-gpu):
 *
 *   tau_exec -T papi,pthread consumer_app          (TAU: a timer per region)
 *   hpcrun -e cupti_cb:::kernel.launches@100 consumer_app
 *   LD_PRELOAD=libcaliper.so consumer_app          (Caliper: a region per region)
 *   consumer_app --expect                          (prints the expected values, no GPU needed)
 *
 * It marks its regions through TAU's Tau_start/Tau_stop and Caliper's cali_begin_region/
 * cali_end_region when the process has them (looked up with dlsym, so that the program links
 * neither tool and runs the same alone).  Each region's work is in a function of its own, which
 * is where a sampling profiler should put a sample taken on that work.
 *
 * Without a usable GPU it says why and exits 77 (a skip); a CUDA error exits 1.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <cuda_runtime.h>

#include "consumer_app.h"

typedef void (*region_fn)(const char *);
static region_fn tau_start, tau_stop, cali_begin, cali_end;

/* The tools' region calls, where the process has them (a tool preloaded or linked). */
static void regions_find(void)
{
    tau_start = (region_fn)dlsym(RTLD_DEFAULT, "Tau_start");
    tau_stop = (region_fn)dlsym(RTLD_DEFAULT, "Tau_stop");
    cali_begin = (region_fn)dlsym(RTLD_DEFAULT, "cali_begin_region");
    cali_end = (region_fn)dlsym(RTLD_DEFAULT, "cali_end_region");
    if (!tau_start || !tau_stop)
        tau_start = tau_stop = NULL;
    if (!cali_begin || !cali_end)
        cali_begin = cali_end = NULL;
}

static void region_begin(const char *name)
{
    if (tau_start)
        tau_start(name);
    if (cali_begin)
        cali_begin(name);
}

static void must(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "consumer_app: line %d: %s: %s\n", line, what, cudaGetErrorString(e));
        exit(1);
    }
}
#define MUST(call) must((call), #call, __LINE__)

/* Every region ends here: all its GPU work finished and its activity records handed over. */
static void region_end(const char *name)
{
    MUST(cudaDeviceSynchronize());
    std::this_thread::sleep_for(std::chrono::milliseconds(CA_SETTLE_MS));
    if (cali_end)
        cali_end(name);
    if (tau_stop)
        tau_stop(name);
}

__global__ void ca_scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 1.5f;
}

/* noinline: each region's calls stay in a frame of their own for a sampling profiler. */
__attribute__((noinline)) static void ca_launch(float *d, int n, int launches)
{
    for (int i = 0; i < launches; i++)
        ca_scale<<<CA_GRID, CA_BLOCK>>>(d, n);
    MUST(cudaGetLastError());
}

__attribute__((noinline)) static void ca_copy(float *d, const char *host)
{
    for (int i = 0; i < CA_COPIES; i++)
        MUST(cudaMemcpy(d, host, CA_COPY_BYTES, cudaMemcpyHostToDevice));
}

__attribute__((noinline)) static void ca_graph(float *d, int n)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    MUST(cudaGraphCreate(&graph, 0));
    void *args[] = {&d, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)ca_scale;
    kp.gridDim = dim3(CA_GRID);
    kp.blockDim = dim3(CA_BLOCK);
    kp.kernelParams = args;
    cudaGraphNode_t prev = NULL, node;
    for (int i = 0; i < CA_GRAPH_NODES; i++) {
        MUST(cudaGraphAddKernelNode(&node, graph, prev ? &prev : NULL, prev ? 1 : 0, &kp));
        prev = node;
    }
    MUST(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < CA_GRAPH_LAUNCHES; i++)
        MUST(cudaGraphLaunch(exec, 0));
    MUST(cudaStreamSynchronize(0));
    MUST(cudaGraphExecDestroy(exec));
    MUST(cudaGraphDestroy(graph));
}

static void ca_threads(float *d, int n)
{
    std::vector<std::thread> threads;
    for (int t = 0; t < CA_THREADS; t++)
        threads.emplace_back([t, d, n] {
            MUST(cudaSetDevice(0));
            region_begin("ca_thread");
            ca_launch(d, n, (t + 1) * CA_T_LAUNCHES);
            region_end("ca_thread");
        });
    for (std::thread &th : threads)
        th.join();
}

/* The values a tool should report, one line per region and event: "REGION EVENT VALUE...", one
 * value per thread that runs the region (in any order for ca_thread). */
static void print_expect(void)
{
    const long kernels = (long)CA_GRAPH_NODES * CA_GRAPH_LAUNCHES;
    printf("ca_launch kernel.launches %d\n", CA_LAUNCHES);
    printf("ca_launch gpu.kernels %d\n", CA_LAUNCHES);
    printf("ca_launch memcpy.bytes_htod 0\n");
    printf("ca_launch graph.launches 0\n");
    printf("ca_copy kernel.launches 0\n");
    printf("ca_copy gpu.kernels 0\n");
    printf("ca_copy memcpy.bytes_htod %ld\n", (long)CA_COPIES * CA_COPY_BYTES);
    printf("ca_copy graph.launches 0\n");
    printf("ca_graph kernel.launches 0\n");
    printf("ca_graph gpu.kernels %ld\n", kernels);
    printf("ca_graph memcpy.bytes_htod 0\n");
    printf("ca_graph graph.launches %d\n", CA_GRAPH_LAUNCHES);
    const char *ev[] = {"kernel.launches", "gpu.kernels"};
    for (int e = 0; e < 2; e++) {
        printf("ca_thread %s", ev[e]);
        for (int t = 0; t < CA_THREADS; t++)
            printf(" %d", (t + 1) * CA_T_LAUNCHES);
        printf("\n");
    }
    printf("ca_thread memcpy.bytes_htod");
    for (int t = 0; t < CA_THREADS; t++)
        printf(" 0");
    printf("\nca_thread graph.launches");
    for (int t = 0; t < CA_THREADS; t++)
        printf(" 0");
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--expect")) {
        print_expect();
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: consumer_app [--expect]\n");
        return 2;
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("consumer_app: no CUDA device to run on (%s): nothing to do\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices");
        return 77;
    }
    regions_find();
    printf("consumer_app: regions through%s%s%s\n", tau_start ? " TAU" : "", cali_begin ? " Caliper" : "",
           tau_start || cali_begin ? "" : " nothing (no tool in the process)");
    const int n = CA_GRID * CA_BLOCK;
    float *d;
    char *host = (char *)calloc(1, CA_COPY_BYTES);
    if (!host)
        return 1;
    const size_t bytes = (size_t)n * sizeof(float) > CA_COPY_BYTES ? (size_t)n * sizeof(float) : CA_COPY_BYTES;
    MUST(cudaMalloc((void **)&d, bytes));

    region_begin("ca_launch");
    ca_launch(d, n, CA_LAUNCHES);
    region_end("ca_launch");

    region_begin("ca_copy");
    ca_copy(d, (const char *)host);
    region_end("ca_copy");

    region_begin("ca_graph");
    ca_graph(d, n);
    region_end("ca_graph");

    ca_threads(d, n);

    MUST(cudaFree(d));
    free(host);
    printf("consumer_app: done\n");
    return 0;
}
