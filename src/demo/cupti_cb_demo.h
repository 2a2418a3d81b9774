/*
 * cupti_cb_demo.h: what cupti_cb_demo does, in numbers.  The demo (cupti_cb_demo.cu) and the
 * tests that check its counts (ctests/gpu/gpu_run_*) take them from here and nowhere else.
 *
 * Default mode, on device 0, every call on the legacy default stream:
 *   3 cudaMalloc (A, B, C bytes), 3 cudaMemcpy host to device (A, B, C bytes: every buffer
 *   filled), 1 cudaMemset (MEMSET bytes of C), LAUNCHES launches of demo_scale<<<GRID, BLOCK>>>,
 *   one graph of GRAPH_NODES kernel nodes (cudaGraphAddKernelNode) launched GRAPH_LAUNCHES
 *   times, 1 cudaStreamSynchronize, 1 cudaMemcpy device to host (DTOH bytes of B),
 *   1 cudaDeviceSynchronize, 3 cudaFree.
 * "threads" mode: 1 cudaMalloc (T_BUF bytes), then T_THREADS threads, thread t making
 *   T_LAUNCHES launches and 1 cudaMemcpy host to device of (t + 1) * T_CHUNK bytes, then
 *   1 cudaDeviceSynchronize each; then 1 cudaFree.
 * The driver-API program of the tests (ctests/gpu/inj_driver_app.c): cuModuleLoadData of a PTX
 *   kernel, 1 cuMemAlloc and 1 cuMemcpyHtoD of D_BYTES, D_LAUNCHES cuLaunchKernel with
 *   D_GRID x D_BLOCK, 1 cuCtxSynchronize, 1 cuMemcpyDtoH of D_BYTES, 1 cuMemFree.
 */
#ifndef CUPTI_CB_DEMO_H
#define CUPTI_CB_DEMO_H

#define DEMO_BYTES_A (1 << 20)		/* 1048576 */
#define DEMO_BYTES_B (3 << 18)		/* 786432 */
#define DEMO_BYTES_C (1 << 16)		/* 65536 */
#define DEMO_BYTES_DTOH 40960
#define DEMO_BYTES_MEMSET 32768
#define DEMO_GRID 4
#define DEMO_BLOCK 128
#define DEMO_LAUNCHES 5
#define DEMO_GRAPH_NODES 3
#define DEMO_GRAPH_LAUNCHES 2

/* the counts that follow */
#define DEMO_ALLOC_BYTES (DEMO_BYTES_A + DEMO_BYTES_B + DEMO_BYTES_C)
#define DEMO_HTOD_BYTES DEMO_ALLOC_BYTES
#define DEMO_MEMCPY_CALLS 4
#define DEMO_SYNC_CALLS 2
#define DEMO_GPU_KERNELS (DEMO_LAUNCHES + DEMO_GRAPH_NODES * DEMO_GRAPH_LAUNCHES)

#define DEMO_T_THREADS 4
#define DEMO_T_LAUNCHES 25
#define DEMO_T_CHUNK 4096
#define DEMO_T_BUF (DEMO_T_THREADS * DEMO_T_CHUNK)
#define DEMO_T_HTOD_BYTES (DEMO_T_CHUNK * DEMO_T_THREADS * (DEMO_T_THREADS + 1) / 2)	/* 40960 */

#define DEMO_D_BYTES 8192
#define DEMO_D_LAUNCHES 7
#define DEMO_D_GRID 2
#define DEMO_D_BLOCK 64

#endif /* CUPTI_CB_DEMO_H */
