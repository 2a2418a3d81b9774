/*
 * gpu_more_ops: CUDA arrays, mipmapped arrays and physical memory count as allocations and frees;
 * prefetches and host functions count in no derived event.
 *
 * Arrays, each allocated and freed inside one region: alloc.calls == free.calls == 1,
 *   alloc.bytes == free.bytes == width x height x depth x element size (a height or depth of 0
 *   counts as 1), the runtime function's own counters == 1, and exactly one driver array create
 *   (cuArrayCreate.calls + cuArray3DCreate.calls == 1, whichever the runtime uses) and one
 *   cuArrayDestroy:
 *   cudaMallocArray float 100x7 = 2800; cudaMallocArray float2 1000 (1D) = 8000;
 *   cudaMalloc3DArray uchar4 17x5x3 = 1020; 1D layered float 16 x 5 layers = 320;
 *   cubemap short 8x8 x 6 faces = 768; cuArrayCreate half2 30x4 = 480;
 *   cuArray3DCreate uint4 5x6x7 = 3360.
 * Mipmapped arrays: every level, each half the one above in every dimension (rounded down, at
 *   least 1): cudaMallocMipmappedArray float 64x32, 4 levels = (2048+512+128+32) x 4 = 10880;
 *   cuMipmappedArrayCreate uchar 16x8x4, 3 levels = 512+64+8 = 584.
 * An array allocated before PAPI_start and freed inside: free.calls 1, free.bytes 0, alloc.* 0.
 * Physical memory: cuMemCreate (one granularity g), cuMemAddressReserve, cuMemMap,
 *   cuMemSetAccess, cudaMemset of the mapping, cuMemUnmap, cuMemRelease, cuMemAddressFree:
 *   alloc.calls 1, alloc.bytes g, free.calls 1, free.bytes g (matched by handle), memset.bytes g,
 *   each driver function's counter 1.  Two handles of g and 3g released in the opposite order:
 *   free.bytes 4g.  A handle created before PAPI_start, released inside: free.calls 1,
 *   free.bytes 0.
 * Not counted (cupti_cb-diagnostics(7), LIMITATIONS): cudaMemPrefetchAsync and cuMemPrefetchAsync of managed
 *   memory: memcpy.calls == memcpy.bytes == 0, the function's counter 1.  cudaLaunchHostFunc and
 *   cuLaunchHostFunc: kernel.launches 0, the function's counter 1, and the host function ran.
 */
#include "ctest_util.h"

static long long g_pass;

/* The derived counters of one allocation and its free, plus API counters that must be 1 and
 * groups of API counters whose sum must be 1. */
template <class F>
static void alloc_free(const char *label, long long bytes, std::vector<std::string> ones,
                       std::vector<std::vector<std::string>> sums, F work)
{
    std::vector<std::string> names = {"alloc.calls", "alloc.bytes", "free.calls", "free.bytes"};
    for (const std::string &n : ones)
        names.push_back(n);
    for (const std::vector<std::string> &g : sums)
        for (const std::string &n : g)
            names.push_back(n);
    ct_values r = ct_measure(names, work);
    std::string l(label);
    CHECK_EQ((l + ": alloc.calls").c_str(), r.v[0], 1);
    CHECK_EQ((l + ": alloc.bytes").c_str(), r.v[1], bytes);
    CHECK_EQ((l + ": free.calls").c_str(), r.v[2], 1);
    CHECK_EQ((l + ": free.bytes").c_str(), r.v[3], bytes);
    size_t k = 4;
    for (const std::string &n : ones)
        CHECK_EQ((l + ": " + n).c_str(), r.v[k++], 1);
    for (const std::vector<std::string> &g : sums) {
        long long sum = 0;
        std::string sum_name;
        for (const std::string &n : g) {
            ct_note("%s: %s = %lld", label, n.c_str(), r.v[k]);
            sum += r.v[k++];
            sum_name += (sum_name.empty() ? "" : " + ") + n;
        }
        CHECK_EQ((l + ": " + sum_name).c_str(), sum, 1);
    }
}

static const std::vector<std::string> k_array_create = {"cuArrayCreate.calls", "cuArray3DCreate.calls"};

static void host_fn(void *arg)
{
    *(volatile long long *)arg += 1;
}

int main()
{
    ct_gpu_ready(0);
    cudaStream_t s;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    auto p_cuArrayCreate = CT_DRV(cuArrayCreate);
    auto p_cuArray3DCreate = CT_DRV(cuArray3DCreate);
    auto p_cuArrayDestroy = CT_DRV(cuArrayDestroy);
    auto p_cuMipmappedArrayCreate = CT_DRV(cuMipmappedArrayCreate);
    auto p_cuMipmappedArrayDestroy = CT_DRV(cuMipmappedArrayDestroy);
    auto p_cuDeviceGetAttribute = CT_DRV(cuDeviceGetAttribute);
    auto p_cuMemGetAllocationGranularity = CT_DRV(cuMemGetAllocationGranularity);
    auto p_cuMemCreate = CT_DRV(cuMemCreate);
    auto p_cuMemRelease = CT_DRV(cuMemRelease);
    auto p_cuMemAddressReserve = CT_DRV(cuMemAddressReserve);
    auto p_cuMemAddressFree = CT_DRV(cuMemAddressFree);
    auto p_cuMemMap = CT_DRV(cuMemMap);
    auto p_cuMemUnmap = CT_DRV(cuMemUnmap);
    auto p_cuMemSetAccess = CT_DRV(cuMemSetAccess);
    auto p_cuMemPrefetchAsync = CT_DRV(cuMemPrefetchAsync);
    auto p_cuLaunchHostFunc = CT_DRV(cuLaunchHostFunc);

    /* ---- arrays through the runtime */
    cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
    cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
    cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
    cudaChannelFormatDesc s1 = cudaCreateChannelDesc<short>();
    const std::vector<std::string> rt_array = {"cudaMallocArray.calls", "cudaFreeArray.calls", "cuArrayDestroy.calls"};
    const std::vector<std::string> rt_3d = {"cudaMalloc3DArray.calls", "cudaFreeArray.calls", "cuArrayDestroy.calls"};
    { /* warm-up: whatever the runtime does at the first use of arrays stays out of the regions */
        cudaArray_t a;
        cudaMipmappedArray_t m;
        CUDA_MUST(cudaMallocArray(&a, &f1, 8, 8));
        CUDA_MUST(cudaFreeArray(a));
        CUDA_MUST(cudaMalloc3DArray(&a, &f1, make_cudaExtent(8, 8, 8)));
        CUDA_MUST(cudaFreeArray(a));
        CUDA_MUST(cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(8, 8, 0), 2));
        CUDA_MUST(cudaFreeMipmappedArray(m));
    }

    alloc_free("cudaMallocArray float 100x7", 100 * 7 * 4, rt_array, {k_array_create}, [&] {
        cudaArray_t a;
        CUDA_MUST(cudaMallocArray(&a, &f1, 100, 7));
        CUDA_MUST(cudaFreeArray(a));
    });
    alloc_free("cudaMallocArray float2 1000 (1D)", 1000 * 8, rt_array, {k_array_create}, [&] {
        cudaArray_t a;
        CUDA_MUST(cudaMallocArray(&a, &f2, 1000));
        CUDA_MUST(cudaFreeArray(a));
    });
    alloc_free("cudaMalloc3DArray uchar4 17x5x3", 17 * 5 * 3 * 4, rt_3d, {k_array_create}, [&] {
        cudaArray_t a;
        CUDA_MUST(cudaMalloc3DArray(&a, &u4, make_cudaExtent(17, 5, 3)));
        CUDA_MUST(cudaFreeArray(a));
    });
    alloc_free("cudaMalloc3DArray 1D layered float 16 x 5 layers", 16 * 5 * 4, rt_3d, {k_array_create}, [&] {
        cudaArray_t a;
        CUDA_MUST(cudaMalloc3DArray(&a, &f1, make_cudaExtent(16, 0, 5), cudaArrayLayered));
        CUDA_MUST(cudaFreeArray(a));
    });
    alloc_free("cudaMalloc3DArray cubemap short 8x8 x 6", 8 * 8 * 6 * 2, rt_3d, {k_array_create}, [&] {
        cudaArray_t a;
        CUDA_MUST(cudaMalloc3DArray(&a, &s1, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
        CUDA_MUST(cudaFreeArray(a));
    });

    /* ---- arrays through the driver */
    alloc_free("cuArrayCreate half2 30x4", 30 * 4 * 2 * 2, {"cuArrayCreate.calls", "cuArrayDestroy.calls"}, {}, [&] {
        CUDA_ARRAY_DESCRIPTOR d = {};
        d.Width = 30;
        d.Height = 4;
        d.Format = CU_AD_FORMAT_HALF;
        d.NumChannels = 2;
        CUarray a;
        CU_MUST(p_cuArrayCreate(&a, &d));
        CU_MUST(p_cuArrayDestroy(a));
    });
    alloc_free("cuArray3DCreate uint4 5x6x7", 5 * 6 * 7 * 16, {"cuArray3DCreate.calls", "cuArrayDestroy.calls"}, {},
               [&] {
                   CUDA_ARRAY3D_DESCRIPTOR d = {};
                   d.Width = 5;
                   d.Height = 6;
                   d.Depth = 7;
                   d.Format = CU_AD_FORMAT_UNSIGNED_INT32;
                   d.NumChannels = 4;
                   CUarray a;
                   CU_MUST(p_cuArray3DCreate(&a, &d));
                   CU_MUST(p_cuArrayDestroy(a));
               });

    /* ---- mipmapped arrays */
    alloc_free("cudaMallocMipmappedArray float 64x32, 4 levels", (64 * 32 + 32 * 16 + 16 * 8 + 8 * 4) * 4,
               {"cudaMallocMipmappedArray.calls", "cudaFreeMipmappedArray.calls", "cuMipmappedArrayCreate.calls",
                "cuMipmappedArrayDestroy.calls"},
               {}, [&] {
                   cudaMipmappedArray_t m;
                   CUDA_MUST(cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(64, 32, 0), 4));
                   CUDA_MUST(cudaFreeMipmappedArray(m));
               });
    alloc_free("cuMipmappedArrayCreate uchar 16x8x4, 3 levels", 16 * 8 * 4 + 8 * 4 * 2 + 4 * 2 * 1,
               {"cuMipmappedArrayCreate.calls", "cuMipmappedArrayDestroy.calls"}, {}, [&] {
                   CUDA_ARRAY3D_DESCRIPTOR d = {};
                   d.Width = 16;
                   d.Height = 8;
                   d.Depth = 4;
                   d.Format = CU_AD_FORMAT_UNSIGNED_INT8;
                   d.NumChannels = 1;
                   CUmipmappedArray m;
                   CU_MUST(p_cuMipmappedArrayCreate(&m, &d, 3));
                   CU_MUST(p_cuMipmappedArrayDestroy(m));
               });

    cudaArray_t before;
    CUDA_MUST(cudaMallocArray(&before, &f1, 100, 7));
    ct_region("cudaFreeArray of an array allocated before PAPI_start",
              {{"alloc.calls", 0}, {"alloc.bytes", 0}, {"free.calls", 1}, {"free.bytes", 0}, {"cuArrayDestroy.calls", 1}},
              [&] { CUDA_MUST(cudaFreeArray(before)); });

    /* ---- physical memory */
    int vmm = 0;
    CU_MUST(p_cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    if (CHECK_TRUE("device 0 supports virtual memory management", vmm)) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t g = 0;
        CU_MUST(p_cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        ct_note("allocation granularity: %zu bytes", g);
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

        ct_region("cuMemCreate, reserve, map, memset, unmap, cuMemRelease",
                  {{"alloc.calls", 1},
                   {"alloc.bytes", (long long)g},
                   {"free.calls", 1},
                   {"free.bytes", (long long)g},
                   {"memset.calls", 1},
                   {"memset.bytes", (long long)g},
                   {"cuMemCreate.calls", 1},
                   {"cuMemRelease.calls", 1},
                   {"cuMemAddressReserve.calls", 1},
                   {"cuMemAddressFree.calls", 1},
                   {"cuMemMap.calls", 1},
                   {"cuMemUnmap.calls", 1},
                   {"cuMemSetAccess.calls", 1}},
                  [&] {
                      CUmemGenericAllocationHandle h;
                      CUdeviceptr va;
                      CU_MUST(p_cuMemCreate(&h, g, &prop, 0));
                      CU_MUST(p_cuMemAddressReserve(&va, g, 0, 0, 0));
                      CU_MUST(p_cuMemMap(va, g, 0, h, 0));
                      CU_MUST(p_cuMemSetAccess(va, g, &access, 1));
                      CUDA_MUST(cudaMemset((void *)va, 0, g));
                      CUDA_MUST(cudaDeviceSynchronize());
                      CU_MUST(p_cuMemUnmap(va, g));
                      CU_MUST(p_cuMemRelease(h));
                      CU_MUST(p_cuMemAddressFree(va, g));
                  });
        ct_region("two cuMemCreate (g, 3g), released in the opposite order",
                  {{"alloc.calls", 2},
                   {"alloc.bytes", 4 * (long long)g},
                   {"free.calls", 2},
                   {"free.bytes", 4 * (long long)g}},
                  [&] {
                      CUmemGenericAllocationHandle h1, h3;
                      CU_MUST(p_cuMemCreate(&h1, g, &prop, 0));
                      CU_MUST(p_cuMemCreate(&h3, 3 * g, &prop, 0));
                      CU_MUST(p_cuMemRelease(h3));
                      CU_MUST(p_cuMemRelease(h1));
                  });
        CUmemGenericAllocationHandle old;
        CU_MUST(p_cuMemCreate(&old, g, &prop, 0));
        ct_region("cuMemRelease of a handle created before PAPI_start",
                  {{"alloc.calls", 0}, {"free.calls", 1}, {"free.bytes", 0}, {"cuMemRelease.calls", 1}},
                  [&] { CU_MUST(p_cuMemRelease(old)); });
    }

    /* ---- prefetches: not copies */
    int managed = 0;
    CUDA_MUST(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, 0));
    if (CHECK_TRUE("device 0 has concurrent managed access (prefetch supported)", managed)) {
        const size_t n = 1 << 20;
        void *m;
        CUDA_MUST(cudaMallocManaged(&m, n));
        CUDA_MUST(cudaMemset(m, 1, n));
        CUDA_MUST(cudaDeviceSynchronize());
        cudaMemLocation to_dev = {};
        to_dev.type = cudaMemLocationTypeDevice;
        to_dev.id = 0;
        ct_region("cudaMemPrefetchAsync to device 0",
                  {{"memcpy.calls", 0}, {"memcpy.bytes", 0}, {"cudaMemPrefetchAsync.calls", 1}},
                  [&] { CUDA_MUST(cudaMemPrefetchAsync(m, n, to_dev, 0, s)); });
        CUDA_MUST(cudaStreamSynchronize(s));
        CUmemLocation to_host = {};
        to_host.type = CU_MEM_LOCATION_TYPE_HOST;
        to_host.id = 0;
        ct_region("cuMemPrefetchAsync to the host",
                  {{"memcpy.calls", 0}, {"memcpy.bytes", 0}, {"cuMemPrefetchAsync.calls", 1}},
                  [&] { CU_MUST(p_cuMemPrefetchAsync((CUdeviceptr)m, n, to_host, 0, (CUstream)s)); });
        CUDA_MUST(cudaStreamSynchronize(s));
        CUDA_MUST(cudaFree(m));
    }

    /* ---- host functions: not kernel launches */
    g_pass = 0;
    ct_region("cudaLaunchHostFunc", {{"kernel.launches", 0}, {"cudaLaunchHostFunc.calls", 1}},
              [&] { CUDA_MUST(cudaLaunchHostFunc(s, host_fn, &g_pass)); });
    CUDA_MUST(cudaStreamSynchronize(s));
    ct_region("cuLaunchHostFunc", {{"kernel.launches", 0}, {"cuLaunchHostFunc.calls", 1}},
              [&] { CU_MUST(p_cuLaunchHostFunc((CUstream)s, host_fn, &g_pass)); });
    CUDA_MUST(cudaStreamSynchronize(s));
    CHECK_EQ("both host functions ran", g_pass, 2);

    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_shutdown();
    return ct_done();
}
