/*
 * inj_driver_app: a program that uses the CUDA driver API only (no runtime): it loads a PTX
 * kernel with cuModuleLoadData and launches it with cuLaunchKernel; the counts are in
 * src/demo/cupti_cb_demo.h.  libcuda is dlopen()ed, so that the program starts where there is no
 * driver: then it prints one sentence and exits 0.  Run by gpu_run_driver under
 * libcupti_cb_inject.so.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "cupti_cb_demo.h"

/* Each thread writes its index at p[tid]: PTX, compiled by the driver for whatever GPU. */
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry demo_store(.param .u64 demo_store_p)\n"
    "{\n"
    "  .reg .b32 %r<2>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [demo_store_p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r1;\n"
    "  ret;\n"
    "}\n";

static void *lib;
#define FN(name, type) ((type)dlsym(lib, name))

static void must(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        CUresult (*err)(CUresult, const char **) = FN("cuGetErrorString", CUresult(*)(CUresult, const char **));
        if (err)
            err(r, &s);
        fprintf(stderr, "inj_driver_app: %s: error %d (%s)\n", what, (int)r, s ? s : "?");
        exit(1);
    }
}

int main(void)
{
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        printf("inj_driver_app: no CUDA driver (%s): nothing to do\n", dlerror());
        return 0;
    }
    CUresult (*init)(unsigned) = FN("cuInit", CUresult(*)(unsigned));
    CUresult (*count)(int *) = FN("cuDeviceGetCount", CUresult(*)(int *));
    int n = 0;
    CUresult r = init ? init(0) : CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS)
        r = count(&n);
    if (r != CUDA_SUCCESS || n == 0) {
        printf("inj_driver_app: no CUDA device to run on (cuInit/cuDeviceGetCount: %d, %d devices): nothing to do\n",
               (int)r, n);
        return 0;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr d;
    static unsigned host[DEMO_D_BYTES / 4];
    must(FN("cuDeviceGet", CUresult(*)(CUdevice *, int))(&dev, 0), "cuDeviceGet");
    must(FN("cuDevicePrimaryCtxRetain", CUresult(*)(CUcontext *, CUdevice))(&ctx, dev), "cuDevicePrimaryCtxRetain");
    must(FN("cuCtxSetCurrent", CUresult(*)(CUcontext))(ctx), "cuCtxSetCurrent");
    must(FN("cuModuleLoadData", CUresult(*)(CUmodule *, const void *))(&mod, ptx), "cuModuleLoadData");
    must(FN("cuModuleGetFunction", CUresult(*)(CUfunction *, CUmodule, const char *))(&fn, mod, "demo_store"),
         "cuModuleGetFunction");
    must(FN("cuMemAlloc_v2", CUresult(*)(CUdeviceptr *, size_t))(&d, DEMO_D_BYTES), "cuMemAlloc");
    must(FN("cuMemcpyHtoD_v2", CUresult(*)(CUdeviceptr, const void *, size_t))(d, host, DEMO_D_BYTES), "cuMemcpyHtoD");
    void *args[] = {&d};
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                       void **, void **) =
        FN("cuLaunchKernel", CUresult(*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                         unsigned, CUstream, void **, void **));
    for (int i = 0; i < DEMO_D_LAUNCHES; i++)
        must(launch(fn, DEMO_D_GRID, 1, 1, DEMO_D_BLOCK, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel");
    must(FN("cuCtxSynchronize", CUresult(*)(void))(), "cuCtxSynchronize");
    must(FN("cuMemcpyDtoH_v2", CUresult(*)(void *, CUdeviceptr, size_t))(host, d, DEMO_D_BYTES), "cuMemcpyDtoH");
    must(FN("cuMemFree_v2", CUresult(*)(CUdeviceptr))(d), "cuMemFree");
    must(FN("cuModuleUnload", CUresult(*)(CUmodule))(mod), "cuModuleUnload");
    must(FN("cuDevicePrimaryCtxRelease_v2", CUresult(*)(CUdevice))(dev), "cuDevicePrimaryCtxRelease");
    if (host[DEMO_D_BLOCK - 1] != DEMO_D_BLOCK - 1) {
        fprintf(stderr, "inj_driver_app: the kernel did not run (host[%d] = %u)\n", DEMO_D_BLOCK - 1,
                host[DEMO_D_BLOCK - 1]);
        return 1;
    }
    printf("inj_driver_app: %d launches through the driver API: done\n", DEMO_D_LAUNCHES);
    return 0;
}
