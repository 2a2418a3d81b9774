/*
 * mixed_sources: one event set over cupti_cb's sources: a callback event (what the host issued),
 * GPU activity events (what the GPU ran) and, if named on the command line, hardware metrics:
 *
 *   mixed_sources                                   # callbacks and GPU activity
 *   mixed_sources cupti_cb:::dram__bytes_read.sum   # and a hardware metric
 *
 * The README's second example.  Without a usable GPU it says why in one sentence and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <papi.h>

#define MAX_EVENTS 8

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

static void check(int rc, const char *what)
{
    if (rc != PAPI_OK) {
        fprintf(stderr, "mixed_sources: %s: %s\n", what, PAPI_strerror(rc));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *events[MAX_EVENTS] = {
        "cupti_cb:::kernel.launches",   /* callback source: counted when the launch is issued */
        "cupti_cb:::gpu.kernels",       /* activity source: counted when the GPU ran it */
        "cupti_cb:::gpu.kernel_time_ns",
    };
    int nev = 3, es = PAPI_NULL, ndev = 0;
    const int n = 1 << 16;
    long long v[MAX_EVENTS];
    float *d;

    for (int i = 1; i < argc && nev < MAX_EVENTS; i++)
        events[nev++] = argv[i];
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("mixed_sources: no CUDA device to run on (%s): nothing to do\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the driver lists none");
        return 0;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "mixed_sources: PAPI_library_init failed\n");
        return 1;
    }
    check(PAPI_create_eventset(&es), "PAPI_create_eventset");
    for (int i = 0; i < nev; i++)
        check(PAPI_add_named_event(es, events[i]), events[i]);
    cudaMalloc((void **)&d, n * sizeof *d);

    check(PAPI_start(es), "PAPI_start");
    for (int k = 0; k < 5; k++)
        add_one<<<n / 256, 256>>>(d, n);
    /* gpu.* events count work the GPU finished: synchronize before the read for whole values. */
    cudaDeviceSynchronize();
    check(PAPI_stop(es, v), "PAPI_stop");
    check(PAPI_cleanup_eventset(es), "PAPI_cleanup_eventset");
    check(PAPI_destroy_eventset(&es), "PAPI_destroy_eventset");

    for (int i = 0; i < nev; i++)
        printf("%s %lld\n", events[i], v[i]);
    cudaFree(d);
    return 0;
}
