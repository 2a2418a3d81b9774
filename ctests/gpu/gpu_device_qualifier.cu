/*
 * gpu_device_qualifier: :device=N / :deviceN select one device (needs 2 GPUs, else SKIP).
 *
 * In one region: on device 0 (cudaSetDevice) 3 launches and a 1000-byte HtoD cudaMemcpy, on
 * device 1 5 launches and a 3000-byte HtoD cudaMemcpy, plus a 500-byte cudaMemset on each.
 * kernel.launches:device=0 == 3, kernel.launches:device1 == 5, kernel.launches == 8;
 * memcpy.bytes:device=0 == 1000, memcpy.bytes:device1 == 3000, memcpy.bytes == 4000;
 * memset.bytes:device=1 == 500.
 */
#include "ctest_util.h"

int main()
{
    require_gpu(2);
    char *h = (char *)calloc(3000, 1), *d[2];
    for (int dev = 0; dev < 2; dev++) {
        ct_use_device(dev);
        CUDA_MUST(cudaMalloc(&d[dev], 3000));
        ct_launch(1, 0); /* warm-up: module load in this device's context */
        CUDA_MUST(cudaDeviceSynchronize());
    }
    ct_library_init();

    const int launches[2] = {3, 5};
    const size_t bytes[2] = {1000, 3000};
    ct_region("3 launches + 1000 B on device 0, 5 launches + 3000 B on device 1",
              {{"kernel.launches:device=0", 3},
               {"kernel.launches:device1", 5},
               {"kernel.launches", 8},
               {"memcpy.bytes:device=0", 1000},
               {"memcpy.bytes:device1", 3000},
               {"memcpy.bytes", 4000},
               {"memset.bytes:device=1", 500}},
              [&] {
                  for (int dev = 0; dev < 2; dev++) {
                      CUDA_MUST(cudaSetDevice(dev));
                      ct_launch(launches[dev], 0);
                      CUDA_MUST(cudaMemcpy(d[dev], h, bytes[dev], cudaMemcpyHostToDevice));
                      CUDA_MUST(cudaMemset(d[dev], 0, 500));
                  }
              });

    for (int dev = 0; dev < 2; dev++) {
        CUDA_MUST(cudaSetDevice(dev));
        CUDA_MUST(cudaDeviceSynchronize());
        CUDA_MUST(cudaFree(d[dev]));
    }
    free(h);
    PAPI_shutdown();
    return ct_done();
}
