/*
 * gpu_memcpy_forms: every form of memcpy is one memcpy.calls (a batch: one per copy in it) and
 * its bytes land in memcpy.bytes and in exactly one direction counter; all other directions stay 0.
 * Sizes are distinct per form, so a count attributed to the wrong form or direction shows.
 * 2D/3D copies count width*height(*depth) bytes, not pitch*height.  The form's own API counter
 * (e.g. cudaMemcpy2D.calls) must be 1.  cudaMemcpyDefault and cuMemcpy are resolved to their real
 * direction.  cudaMemcpyPeer needs 2 devices (otherwise skipped, and said so).
 */
#include "ctest_util.h"

enum Dir { HTOD, DTOH, DTOD, HTOH, PEER, NDIR };
static const char *const dir_event[NDIR] = {"memcpy.bytes_htod", "memcpy.bytes_dtoh", "memcpy.bytes_dtod",
                                            "memcpy.bytes_htoh", "memcpy.bytes_peer"};

__device__ char g_symbol[16384];

template <class F>
static void form(const char *label, const char *api_event, long long calls, Dir dir, long long bytes, F work)
{
    std::vector<ct_expect> ex = {{"memcpy.calls", calls}, {"memcpy.bytes", bytes}, {api_event, 1}};
    for (int d = 0; d < NDIR; d++)
        ex.push_back({dir_event[d], d == dir ? bytes : 0});
    ct_region(label, ex, work);
    CUDA_MUST(cudaDeviceSynchronize());
}

int main()
{
    const size_t BUF = 1 << 20;
    int ndev = require_gpu(1);
    ct_use_device(0);
    ct_library_init();

    char *d_a, *d_b, *h_pin, *h_pin2;
    char *h_page = (char *)calloc(BUF, 1), *h_page2 = (char *)calloc(BUF, 1);
    CUDA_MUST(cudaMalloc(&d_a, BUF));
    CUDA_MUST(cudaMalloc(&d_b, BUF));
    CUDA_MUST(cudaMallocHost(&h_pin, BUF));
    CUDA_MUST(cudaMallocHost(&h_pin2, BUF));
    cudaStream_t s;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    auto p_cuMemcpyHtoD = CT_DRV(cuMemcpyHtoD);
    auto p_cuMemcpyDtoH = CT_DRV(cuMemcpyDtoH);
    auto p_cuMemcpyDtoD = CT_DRV(cuMemcpyDtoD);
    auto p_cuMemcpy = CT_DRV(cuMemcpy);
    const CUdeviceptr da = (CUdeviceptr)d_a, db = (CUdeviceptr)d_b;

    /* cudaMemcpy, each kind */
    form("cudaMemcpy HtoD", "cudaMemcpy.calls", 1, HTOD, 1001,
         [&] { CUDA_MUST(cudaMemcpy(d_a, h_page, 1001, cudaMemcpyHostToDevice)); });
    form("cudaMemcpy DtoH", "cudaMemcpy.calls", 1, DTOH, 1002,
         [&] { CUDA_MUST(cudaMemcpy(h_page, d_a, 1002, cudaMemcpyDeviceToHost)); });
    form("cudaMemcpy DtoD", "cudaMemcpy.calls", 1, DTOD, 1003,
         [&] { CUDA_MUST(cudaMemcpy(d_b, d_a, 1003, cudaMemcpyDeviceToDevice)); });
    form("cudaMemcpy HtoH", "cudaMemcpy.calls", 1, HTOH, 1004,
         [&] { CUDA_MUST(cudaMemcpy(h_page2, h_page, 1004, cudaMemcpyHostToHost)); });

    /* cudaMemcpyDefault: the direction comes from the pointers (pageable and pinned host) */
    form("cudaMemcpyDefault pageable->device", "cudaMemcpy.calls", 1, HTOD, 1005,
         [&] { CUDA_MUST(cudaMemcpy(d_a, h_page, 1005, cudaMemcpyDefault)); });
    form("cudaMemcpyDefault device->pinned", "cudaMemcpy.calls", 1, DTOH, 1006,
         [&] { CUDA_MUST(cudaMemcpy(h_pin, d_a, 1006, cudaMemcpyDefault)); });
    form("cudaMemcpyDefault device->device", "cudaMemcpy.calls", 1, DTOD, 1007,
         [&] { CUDA_MUST(cudaMemcpy(d_b, d_a, 1007, cudaMemcpyDefault)); });

    /* cudaMemcpyAsync with pinned host memory */
    form("cudaMemcpyAsync HtoD", "cudaMemcpyAsync.calls", 1, HTOD, 2001,
         [&] { CUDA_MUST(cudaMemcpyAsync(d_a, h_pin, 2001, cudaMemcpyHostToDevice, s)); });
    form("cudaMemcpyAsync DtoH", "cudaMemcpyAsync.calls", 1, DTOH, 2002,
         [&] { CUDA_MUST(cudaMemcpyAsync(h_pin, d_a, 2002, cudaMemcpyDeviceToHost, s)); });
    form("cudaMemcpyAsync DtoD", "cudaMemcpyAsync.calls", 1, DTOD, 2003,
         [&] { CUDA_MUST(cudaMemcpyAsync(d_b, d_a, 2003, cudaMemcpyDeviceToDevice, s)); });
    form("cudaMemcpyAsync HtoH", "cudaMemcpyAsync.calls", 1, HTOH, 2004,
         [&] { CUDA_MUST(cudaMemcpyAsync(h_pin2, h_pin, 2004, cudaMemcpyHostToHost, s)); });

    /* 2D and 3D: width*height(*depth) bytes */
    form("cudaMemcpy2D HtoD 100x30 (pitches 128/256)", "cudaMemcpy2D.calls", 1, HTOD, 100 * 30,
         [&] { CUDA_MUST(cudaMemcpy2D(d_a, 256, h_page, 128, 100, 30, cudaMemcpyHostToDevice)); });
    form("cudaMemcpy2DAsync DtoH 64x47 (pitches 96/128)", "cudaMemcpy2DAsync.calls", 1, DTOH, 64 * 47,
         [&] { CUDA_MUST(cudaMemcpy2DAsync(h_pin, 96, d_a, 128, 64, 47, cudaMemcpyDeviceToHost, s)); });
    form("cudaMemcpy3D HtoD 45x7x13 (pitches 45/512)", "cudaMemcpy3D.calls", 1, HTOD, 45 * 7 * 13, [&] {
        cudaMemcpy3DParms p = {};
        p.srcPtr = make_cudaPitchedPtr(h_page, 45, 45, 7);
        p.dstPtr = make_cudaPitchedPtr(d_a, 512, 45, 7);
        p.extent = make_cudaExtent(45, 7, 13);
        p.kind = cudaMemcpyHostToDevice;
        CUDA_MUST(cudaMemcpy3D(&p));
    });

    /* symbols */
    form("cudaMemcpyToSymbol", "cudaMemcpyToSymbol.calls", 1, HTOD, 5001,
         [&] { CUDA_MUST(cudaMemcpyToSymbol(g_symbol, h_page, 5001)); });
    form("cudaMemcpyFromSymbol", "cudaMemcpyFromSymbol.calls", 1, DTOH, 5002,
         [&] { CUDA_MUST(cudaMemcpyFromSymbol(h_page, g_symbol, 5002)); });

    /* peer */
    if (ndev >= 2) {
        char *d_peer;
        ct_use_device(1);
        CUDA_MUST(cudaMalloc(&d_peer, BUF));
        CUDA_MUST(cudaSetDevice(0));
        form("cudaMemcpyPeer dev0->dev1", "cudaMemcpyPeer.calls", 1, PEER, 6001,
             [&] { CUDA_MUST(cudaMemcpyPeer(d_peer, 1, d_a, 0, 6001)); });
        CUDA_MUST(cudaFree(d_peer));
    } else {
        ct_note("SKIP cudaMemcpyPeer: only %d CUDA device, it needs 2", ndev);
    }

    /* driver API, called by the application */
    form("cuMemcpyHtoD", "cuMemcpyHtoD.calls", 1, HTOD, 7001, [&] { CU_MUST(p_cuMemcpyHtoD(da, h_page, 7001)); });
    form("cuMemcpyDtoH", "cuMemcpyDtoH.calls", 1, DTOH, 7002, [&] { CU_MUST(p_cuMemcpyDtoH(h_page, da, 7002)); });
    form("cuMemcpyDtoD", "cuMemcpyDtoD.calls", 1, DTOD, 7003, [&] { CU_MUST(p_cuMemcpyDtoD(db, da, 7003)); });
    form("cuMemcpy pinned->device (unified)", "cuMemcpy.calls", 1, HTOD, 7004,
         [&] { CU_MUST(p_cuMemcpy(da, (CUdeviceptr)h_pin, 7004)); });

    /* a batch of 3 host->device copies: 3 memcpy.calls, one API call */
    form("cudaMemcpyBatchAsync 3 x HtoD", "cudaMemcpyBatchAsync.calls", 3, HTOD, 8001 + 8002 + 8003, [&] {
        void *dsts[3] = {d_a, d_a + 16384, d_a + 32768};
        const void *srcs[3] = {h_pin, h_pin + 16384, h_pin + 32768};
        size_t sizes[3] = {8001, 8002, 8003};
        cudaMemcpyAttributes attr = {};
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        attr.srcLocHint.type = cudaMemLocationTypeHost; /* hints only matter for managed memory */
        attr.dstLocHint.type = cudaMemLocationTypeDevice;
        attr.dstLocHint.id = 0;
        size_t attr_idx = 0;
        CUDA_MUST(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &attr_idx, 1, s));
    });

    CUDA_MUST(cudaStreamDestroy(s));
    CUDA_MUST(cudaFree(d_a));
    CUDA_MUST(cudaFree(d_b));
    CUDA_MUST(cudaFreeHost(h_pin));
    CUDA_MUST(cudaFreeHost(h_pin2));
    free(h_page);
    free(h_page2);
    PAPI_shutdown();
    return ct_done();
}
