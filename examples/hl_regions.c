/*
 * hl_regions: the PAPI high-level API around two regions of CUDA copies; the events come from
 * PAPI_EVENTS when the program runs (write qualifiers without '='):
 *
 *   PAPI_EVENTS="cupti_cb:::memcpy.calls,cupti_cb:::memcpy.bytes_htod" ./hl_regions
 *
 * PAPI writes one JSON file per process into papi_hl_output/ at exit (PAPI_REPORT=1 also prints
 * it).  The README's third example: plain C, no kernel, so no nvcc.  Without a usable GPU it says
 * why in one sentence and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <papi.h>

#define BYTES (1 << 20)

int main(void)
{
    int ndev = 0;
    void *d;
    char *h = calloc(1, BYTES);

    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("hl_regions: no CUDA device to run on (%s): nothing to do\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "the driver lists none");
        free(h);
        return 0;
    }
    if (!h || cudaMalloc(&d, BYTES) != cudaSuccess) {
        fprintf(stderr, "hl_regions: no memory for the copies\n");
        return 1;
    }

    PAPI_hl_region_begin("upload");     /* 2 copies, 2 MiB to the device */
    cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
    cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
    PAPI_hl_region_end("upload");

    PAPI_hl_region_begin("download");   /* 1 copy back */
    cudaMemcpy(h, d, BYTES, cudaMemcpyDeviceToHost);
    PAPI_hl_region_end("download");

    cudaFree(d);
    free(h);
    printf("hl_regions: done; PAPI writes its report into papi_hl_output/ at exit\n");
    return 0;
}
