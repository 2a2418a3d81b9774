/*
 * gpu_memset_alloc_sync: memset.*, alloc.*, free.* and sync.* count each operation once.
 *
 * memset: cudaMemset, cudaMemsetAsync, cudaMemset2D (width*height bytes), cuMemsetD8,
 *   cuMemsetD32 (4 bytes per element): memset.calls == 1, memset.bytes exact, the API counter == 1.
 * alloc/free: cudaMalloc/cudaFree, cudaMallocHost/cudaFreeHost, cudaMallocManaged/cudaFree,
 *   cudaMallocAsync/cudaFreeAsync, cuMemAlloc/cuMemFree, both inside the region:
 *   alloc.calls == free.calls == 1, alloc.bytes == free.bytes == the size.
 *   A free of memory allocated before PAPI_start: free.calls == 1, free.bytes == 0 (only
 *   allocations seen while counting are known), alloc.* == 0.
 * sync: cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, each after a kernel
 *   that spins >= 2 ms (clock64 loop sized from the peak clock): sync.calls == 1, the API counter
 *   == 1, 1 ms <= sync.time_ns <= wall time of the region.
 */
#include "ctest_util.h"

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

template <class F>
static void memset_form(const char *label, const char *api_event, long long bytes, F work)
{
    ct_region(label, {{"memset.calls", 1}, {"memset.bytes", bytes}, {api_event, 1}}, work);
}

template <class F>
static void alloc_form(const char *label, const char *alloc_api, const char *free_api, long long bytes, F work)
{
    ct_region(label,
              {{"alloc.calls", 1}, {"alloc.bytes", bytes}, {"free.calls", 1}, {"free.bytes", bytes},
               {alloc_api, 1}, {free_api, 1}},
              work);
}

template <class F>
static void sync_form(const char *label, const char *api_event, F work)
{
    std::string l(label);
    ct_values r = ct_measure({"sync.calls", "sync.time_ns", api_event}, work);
    CHECK_EQ((l + ": sync.calls").c_str(), r.v[0], 1);
    CHECK_EQ((l + ": " + api_event).c_str(), r.v[2], 1);
    CHECK_REL((l + ": sync.time_ns >= 1 ms (kernel spins >= 2 ms)").c_str(), r.v[1], ">=", 1000000);
    CHECK_REL((l + ": sync.time_ns <= wall time of the region").c_str(), r.v[1], "<=", r.wall_ns);
}

int main()
{
    require_gpu(1);
    ct_use_device(0);
    ct_library_init();

    cudaStream_t s;
    cudaEvent_t ev;
    char *d;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_MUST(cudaEventCreate(&ev));
    CUDA_MUST(cudaMalloc(&d, 1 << 20));
    const CUdeviceptr dp = (CUdeviceptr)d;
    auto p_cuMemsetD8 = CT_DRV(cuMemsetD8);
    auto p_cuMemsetD32 = CT_DRV(cuMemsetD32);
    auto p_cuMemAlloc = CT_DRV(cuMemAlloc);
    auto p_cuMemFree = CT_DRV(cuMemFree);

    memset_form("cudaMemset", "cudaMemset.calls", 3001, [&] { CUDA_MUST(cudaMemset(d, 1, 3001)); });
    memset_form("cudaMemsetAsync", "cudaMemsetAsync.calls", 3002,
                [&] { CUDA_MUST(cudaMemsetAsync(d, 2, 3002, s)); });
    memset_form("cudaMemset2D 100x31 (pitch 128)", "cudaMemset2D.calls", 100 * 31,
                [&] { CUDA_MUST(cudaMemset2D(d, 128, 3, 100, 31)); });
    memset_form("cuMemsetD8", "cuMemsetD8.calls", 3003, [&] { CU_MUST(p_cuMemsetD8(dp, 4, 3003)); });
    memset_form("cuMemsetD32 1001 elements", "cuMemsetD32.calls", 4 * 1001,
                [&] { CU_MUST(p_cuMemsetD32(dp, 5, 1001)); });
    CUDA_MUST(cudaDeviceSynchronize());

    alloc_form("cudaMalloc+cudaFree", "cudaMalloc.calls", "cudaFree.calls", 4001, [&] {
        void *p;
        CUDA_MUST(cudaMalloc(&p, 4001));
        CUDA_MUST(cudaFree(p));
    });
    alloc_form("cudaMallocHost+cudaFreeHost", "cudaMallocHost.calls", "cudaFreeHost.calls", 4002, [&] {
        void *p;
        CUDA_MUST(cudaMallocHost(&p, 4002));
        CUDA_MUST(cudaFreeHost(p));
    });
    alloc_form("cudaMallocManaged+cudaFree", "cudaMallocManaged.calls", "cudaFree.calls", 4003, [&] {
        void *p;
        CUDA_MUST(cudaMallocManaged(&p, 4003));
        CUDA_MUST(cudaFree(p));
    });
    alloc_form("cudaMallocAsync+cudaFreeAsync", "cudaMallocAsync.calls", "cudaFreeAsync.calls", 4004, [&] {
        void *p;
        CUDA_MUST(cudaMallocAsync(&p, 4004, s));
        CUDA_MUST(cudaFreeAsync(p, s));
    });
    CUDA_MUST(cudaStreamSynchronize(s));
    alloc_form("cuMemAlloc+cuMemFree", "cuMemAlloc.calls", "cuMemFree.calls", 4005, [&] {
        CUdeviceptr p;
        CU_MUST(p_cuMemAlloc(&p, 4005));
        CU_MUST(p_cuMemFree(p));
    });

    void *before;
    CUDA_MUST(cudaMalloc(&before, 4006));
    ct_region("cudaFree of memory allocated before PAPI_start",
              {{"alloc.calls", 0}, {"alloc.bytes", 0}, {"free.calls", 1}, {"free.bytes", 0}},
              [&] { CUDA_MUST(cudaFree(before)); });

    int clock_khz = 0;
    CUDA_MUST(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const long long cycles = 2LL * clock_khz; /* >= 2 ms at the peak clock, longer below it */
    ct_note("spin kernel: %lld cycles (peak clock %d kHz)", cycles, clock_khz);
    spin<<<1, 1>>>(1); /* warm-up: module load */
    CUDA_MUST(cudaDeviceSynchronize());

    sync_form("cudaDeviceSynchronize", "cudaDeviceSynchronize.calls", [&] {
        spin<<<1, 1>>>(cycles);
        CUDA_MUST(cudaDeviceSynchronize());
    });
    sync_form("cudaStreamSynchronize", "cudaStreamSynchronize.calls", [&] {
        spin<<<1, 1, 0, s>>>(cycles);
        CUDA_MUST(cudaStreamSynchronize(s));
    });
    sync_form("cudaEventSynchronize", "cudaEventSynchronize.calls", [&] {
        spin<<<1, 1, 0, s>>>(cycles);
        CUDA_MUST(cudaEventRecord(ev, s));
        CUDA_MUST(cudaEventSynchronize(ev));
    });

    CUDA_MUST(cudaFree(d));
    CUDA_MUST(cudaEventDestroy(ev));
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_shutdown();
    return ct_done();
}
