/*
 * gpu_per_api: per-function counters and api.* are exact.
 *
 * Region 1 runs before any CUDA context exists (PAPI_start with no context must work):
 *   1000 cudaGetDevice -> cudaGetDevice.calls == 1000, api.calls == 1000,
 *   0 < cudaGetDevice.time_ns <= api.time_ns <= wall time of the region.
 * Region 2 (context created): 1000 cudaGetDevice + 10 cudaMemcpy HtoD (4 KiB, pageable)
 *   + 5 cuDriverGetVersion called by the application:
 *   cudaGetDevice.calls == 1000, cudaMemcpy.calls == 10,
 *   cuMemcpyHtoD.calls == 10 (driver counters count the calls the runtime makes for the
 *   application), cuDriverGetVersion.calls == 5,
 *   api.calls == 1015 (application calls only: the driver calls nested in cudaMemcpy do not count),
 *   0 < api.time_ns <= wall time.
 */
#include "ctest_util.h"

static void get_device_n(int n)
{
    int dev;
    for (int i = 0; i < n; i++)
        CUDA_MUST(cudaGetDevice(&dev));
}

int main()
{
    require_gpu(1); /* cudaGetDeviceCount: no context yet */
    ct_library_init();
    auto p_cuDriverGetVersion = CT_DRV(cuDriverGetVersion);
    CUcontext ctx = nullptr;
    CU_MUST(CT_DRV(cuCtxGetCurrent)(&ctx));
    ct_note("current context before region 1: %p (expected none)", (void *)ctx);

    ct_values r = ct_measure({"cudaGetDevice.calls", "cudaGetDevice.time_ns", "api.calls", "api.time_ns"},
                             [&] { get_device_n(1000); });
    CHECK_EQ("no context: cudaGetDevice.calls", r.v[0], 1000);
    CHECK_EQ("no context: api.calls", r.v[2], 1000);
    CHECK_REL("no context: cudaGetDevice.time_ns > 0", r.v[1], ">", 0);
    CHECK_REL("no context: cudaGetDevice.time_ns < wall time", r.v[1], "<", r.wall_ns);
    CHECK_REL("no context: cudaGetDevice.time_ns <= api.time_ns", r.v[1], "<=", r.v[3]);
    CHECK_REL("no context: api.time_ns <= wall time", r.v[3], "<=", r.wall_ns);
    ct_note("1000 cudaGetDevice: %lld ns inside, %lld ns wall", r.v[1], r.wall_ns);

    ct_use_device(0);
    const size_t SZ = 4096;
    char *h = (char *)calloc(SZ, 1), *d;
    CUDA_MUST(cudaMalloc(&d, SZ));
    CUDA_MUST(cudaMemcpy(d, h, SZ, cudaMemcpyHostToDevice)); /* warm-up */

    ct_region("1000 cudaGetDevice + 10 cudaMemcpy HtoD + 5 cuDriverGetVersion",
              {{"cudaGetDevice.calls", 1000},
               {"cudaMemcpy.calls", 10},
               {"cuMemcpyHtoD.calls", 10},
               {"cuDriverGetVersion.calls", 5},
               {"api.calls", 1015}},
              [&] {
                  int v;
                  get_device_n(1000);
                  for (int i = 0; i < 10; i++)
                      CUDA_MUST(cudaMemcpy(d, h, SZ, cudaMemcpyHostToDevice));
                  for (int i = 0; i < 5; i++)
                      CU_MUST(p_cuDriverGetVersion(&v));
              });

    r = ct_measure({"api.calls", "api.time_ns", "cudaMemcpy.time_ns"}, [&] {
        for (int i = 0; i < 10; i++)
            CUDA_MUST(cudaMemcpy(d, h, SZ, cudaMemcpyHostToDevice));
    });
    CHECK_EQ("10 cudaMemcpy: api.calls", r.v[0], 10);
    CHECK_REL("10 cudaMemcpy: cudaMemcpy.time_ns > 0", r.v[2], ">", 0);
    CHECK_REL("10 cudaMemcpy: cudaMemcpy.time_ns <= api.time_ns", r.v[2], "<=", r.v[1]);
    CHECK_REL("10 cudaMemcpy: api.time_ns <= wall time", r.v[1], "<=", r.wall_ns);

    CUDA_MUST(cudaFree(d));
    free(h);
    PAPI_shutdown();
    return ct_done();
}
