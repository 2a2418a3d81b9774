/*
 * count_region: what the host asked of the GPU in one region, from cupti_cb's callback events.
 * The README's first example.  Build it against an installed prefix P:
 *
 *   nvcc -o count_region count_region.cu -IP/include -LP/lib -lpapi -Xlinker -rpath=P/lib
 *
 * Without a usable GPU it says why in one sentence and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <papi.h>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

static void check(int rc, const char *what)
{
    if (rc != PAPI_OK) {
        fprintf(stderr, "count_region: %s: %s\n", what, PAPI_strerror(rc));
        exit(1);
    }
}

int main(void)
{
    const char *events[] = {
        "cupti_cb:::kernel.launches",         /* this thread (the default scope) */
        "cupti_cb:::memcpy.bytes_htod",
        "cupti_cb:::cudaMemcpy.calls",
        "cupti_cb:::kernel.launches:process", /* every thread of the process */
    };
    const int nev = 4, n = 1 << 20;
    long long v[4];
    int es = PAPI_NULL, ndev = 0;
    float *d;

    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("count_region: no CUDA device to run on (%s): nothing to do\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the driver lists none");
        return 0;
    }
    float *h = (float *)calloc(n, sizeof *h);
    if (!h || PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "count_region: PAPI_library_init failed\n");
        return 1;
    }
    check(PAPI_create_eventset(&es), "PAPI_create_eventset");
    for (int i = 0; i < nev; i++)
        check(PAPI_add_named_event(es, events[i]), events[i]);
    cudaMalloc((void **)&d, n * sizeof *d);

    check(PAPI_start(es), "PAPI_start");
    cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice);
    for (int k = 0; k < 10; k++)
        scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
    cudaMemcpy(h, d, n * sizeof *d, cudaMemcpyDeviceToHost);
    check(PAPI_stop(es, v), "PAPI_stop");
    /* A set keeps its CUPTI callbacks until it is cleaned up: clean up what you no longer need. */
    check(PAPI_cleanup_eventset(es), "PAPI_cleanup_eventset");
    check(PAPI_destroy_eventset(&es), "PAPI_destroy_eventset");

    for (int i = 0; i < nev; i++)
        printf("%s %lld\n", events[i], v[i]);
    cudaFree(d);
    free(h);
    return 0;
}
