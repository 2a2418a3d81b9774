/*
 * cupti_cb_demo: a CUDA program whose counts are known (cupti_cb_demo.h), for trying
 * cupti_cb_run and for the tests of the injected library:
 *
 *   cupti_cb_run cupti_cb_demo            (or: cupti_cb_demo threads)
 *   cupti_cb_run --metrics sol cupti_cb_demo --pause-ms=1000
 *
 * --pause-ms=N waits N ms after the first allocation: cupti_cb_run's hardware metrics start on a
 * thread of its library some 200 ms after a program's first GPU work, and the demo's work is
 * done well before that.
 *
 * Without a usable GPU it prints one sentence saying why and exits 0.  Any CUDA error after
 * that is printed and makes the exit status 1.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "cupti_cb_demo.h"

__global__ void demo_scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}

static void must(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cupti_cb_demo: line %d: %s: %s\n", line, what, cudaGetErrorString(e));
        exit(1);
    }
}
#define MUST(call) must((call), #call, __LINE__)

static int demo_default(long pause_ms)
{
    const size_t sizes[3] = {DEMO_BYTES_A, DEMO_BYTES_B, DEMO_BYTES_C};
    float *d[3];
    char *host = (char *)calloc(1, DEMO_BYTES_A);
    if (!host)
        return 1;
    for (int i = 0; i < 3; i++)
        MUST(cudaMalloc((void **)&d[i], sizes[i]));
    if (pause_ms > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    for (int i = 0; i < 3; i++)
        MUST(cudaMemcpy(d[i], host, sizes[i], cudaMemcpyHostToDevice));
    MUST(cudaMemset(d[2], 0, DEMO_BYTES_MEMSET));
    int n = DEMO_GRID * DEMO_BLOCK;
    for (int i = 0; i < DEMO_LAUNCHES; i++)
        demo_scale<<<DEMO_GRID, DEMO_BLOCK>>>(d[0], n);

    /* A graph of kernel nodes in a chain, built without launching anything. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    MUST(cudaGraphCreate(&graph, 0));
    void *args[] = {&d[1], &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)demo_scale;
    kp.gridDim = dim3(DEMO_GRID);
    kp.blockDim = dim3(DEMO_BLOCK);
    kp.kernelParams = args;
    cudaGraphNode_t prev = NULL, node;
    for (int i = 0; i < DEMO_GRAPH_NODES; i++) {
        MUST(cudaGraphAddKernelNode(&node, graph, prev ? &prev : NULL, prev ? 1 : 0, &kp));
        prev = node;
    }
    MUST(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < DEMO_GRAPH_LAUNCHES; i++)
        MUST(cudaGraphLaunch(exec, 0));
    MUST(cudaStreamSynchronize(0));

    MUST(cudaMemcpy(host, d[1], DEMO_BYTES_DTOH, cudaMemcpyDeviceToHost));
    MUST(cudaDeviceSynchronize());
    MUST(cudaGraphExecDestroy(exec));
    MUST(cudaGraphDestroy(graph));
    for (int i = 0; i < 3; i++)
        MUST(cudaFree(d[i]));
    free(host);
    printf("cupti_cb_demo: %d launches, %d graph launches of %d kernels, %d copies, 1 memset: done\n",
           DEMO_LAUNCHES, DEMO_GRAPH_LAUNCHES, DEMO_GRAPH_NODES, DEMO_MEMCPY_CALLS);
    return 0;
}

static int demo_threads(void)
{
    float *buf;
    MUST(cudaMalloc((void **)&buf, DEMO_T_BUF));
    std::vector<std::thread> threads;
    for (int t = 0; t < DEMO_T_THREADS; t++)
        threads.emplace_back([t, buf] {
            std::vector<char> host((size_t)(t + 1) * DEMO_T_CHUNK);
            int n = DEMO_T_BUF / (int)sizeof(float);
            MUST(cudaSetDevice(0));
            for (int i = 0; i < DEMO_T_LAUNCHES; i++)
                demo_scale<<<DEMO_GRID, DEMO_BLOCK>>>(buf, n);
            MUST(cudaMemcpy(buf, host.data(), host.size(), cudaMemcpyHostToDevice));
            MUST(cudaDeviceSynchronize());
        });
    for (std::thread &th : threads)
        th.join();
    MUST(cudaFree(buf));
    printf("cupti_cb_demo: %d threads, %d launches each: done\n", DEMO_T_THREADS, DEMO_T_LAUNCHES);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("cupti_cb_demo: no CUDA device to run on (%s): nothing to do\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "threads"))
        return demo_threads();
    long pause_ms = 0;
    if (argc > 1 && !strncmp(argv[1], "--pause-ms=", 11)) {
        char *end;
        pause_ms = strtol(argv[1] + 11, &end, 10);
        if (*end || pause_ms < 0)
            pause_ms = -1;
    }
    if (argc > 2 || pause_ms < 0 || (argc > 1 && !pause_ms && strcmp(argv[1], "--pause-ms=0"))) {
        fprintf(stderr, "usage: cupti_cb_demo [threads | --pause-ms=N]\n");
        return 2;
    }
    return demo_default(pause_ms);
}
