/*
 * fake_cuda.c: a test-only libcuda (tests/fakes/libcuda.so) for the PAPI-level tests; see
 * fake_cuda.h.  It has the entry points cupti_cb's loader resolves, with settable results, and
 * it reports its own cuPointerGetAttributes calls to the fake CUPTI as a driver call, as the real
 * driver does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fake_cuda.h"

void fake_cupti_reset_faults(void); /* fake_cupti.c */

static atomic_int init_result = CUDA_SUCCESS, count_result = CUDA_SUCCESS, n_devices = 1;
static atomic_int n_cuinit;
static atomic_long cuda_calls;

void fake_cuinit_result(CUresult r)
{
    atomic_store(&init_result, (int)r);
}

void fake_device_count(CUresult r, int n)
{
    atomic_store(&count_result, (int)r);
    atomic_store(&n_devices, n);
}

int fake_devices(void)
{
    return atomic_load(&n_devices);
}

int fake_cuinit_calls(void)
{
    return atomic_load(&n_cuinit);
}

long fake_cuda_calls(void)
{
    return atomic_load(&cuda_calls);
}

void fake_reset_faults(void)
{
    fake_cupti_reset_faults();
    atomic_store(&init_result, CUDA_SUCCESS);
    atomic_store(&count_result, CUDA_SUCCESS);
    atomic_store(&n_devices, 1);
}

/*
 * What the real driver does with CUDA_INJECTION64_PATH: inside the process's first cuInit it
 * dlopen()s that library and calls its InitializeInjection.  A cuInit made meanwhile (the
 * injected library's own, through cupti_cb) returns at once, like any later one.
 */
static atomic_int injected, injecting;

int fake_injecting(void)
{
    return atomic_load(&injecting);
}

static void inject(void)
{
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (!path || !*path || atomic_exchange(&injected, 1))
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init) {
        fprintf(stderr, "fake libcuda: cannot inject %s: %s\n", path, dlerror());
        return;
    }
    atomic_store(&injecting, 1);
    int rc = init();
    atomic_store(&injecting, 0);
    if (rc != 1)
        fprintf(stderr, "fake libcuda: InitializeInjection of %s did not return 1\n", path);
}

/* NVML, as far as the injected library asks it the device count (src/inject/cupti_cb_inject_devices.c):
 * a test that names this file libnvidia-ml.so.1 in LD_LIBRARY_PATH has the library find the
 * fake's devices, as it finds a GPU machine's, and give cupti_cb the count inside cuInit. */
int nvmlInit_v2(void)
{
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
    *count = (unsigned)atomic_load(&n_devices);
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}

CUresult CUDAAPI cuInit(unsigned int flags)
{
    atomic_fetch_add(&cuda_calls, 1);
    atomic_fetch_add(&n_cuinit, 1);
    inject();
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return (CUresult)atomic_load(&init_result);
}

CUresult CUDAAPI cuDriverGetVersion(int *version)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    if (atomic_load(&n_cuinit) == 0)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = (CUresult)atomic_load(&count_result);
    if (r == CUDA_SUCCESS)
        *count = atomic_load(&n_devices);
    return r;
}

CUresult CUDAAPI cuGetErrorString(CUresult r, const char **str)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (!str)
        return CUDA_ERROR_INVALID_VALUE;
    switch (r) {
    case CUDA_SUCCESS: *str = "fake: no error"; break;
    case CUDA_ERROR_INVALID_VALUE: *str = "fake: invalid argument"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *str = "fake: initialization error"; break;
    case CUDA_ERROR_NO_DEVICE: *str = "fake: no CUDA-capable device is detected"; break;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        *str = "fake: system has unsupported display driver / cuda driver combination";
        break;
    default: *str = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* [1<<32, 2<<32) is device 0, [2<<32, 3<<32) device 1; other addresses are unknown to the driver. */
static CUresult locate(unsigned n, CUpointer_attribute *attrs, void **out, CUdeviceptr p)
{
    int dev = (int)(p >> 32) - 1;
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)out[i] = CU_MEMORYTYPE_DEVICE; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)out[i] = dev; break;
        default: break;
        }
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **out, CUdeviceptr p)
{
    atomic_fetch_add(&cuda_calls, 1);
    cuPointerGetAttributes_params params = {n, attrs, out, p};
    struct fake_call c;
    /* The caller's context is unknown here; the lookup is a driver call like any other. */
    fake_call_init(&c, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes, &params,
                   CUDA_SUCCESS, FAKE_CTX0);
    fake_enter(&c);
    c.ret = (int)locate(n, attrs, out, p);
    fake_exit(&c);
    return (CUresult)c.ret;
}

/* ---- contexts: FAKE_CTX0 / FAKE_CTX1 are the primary contexts of devices 0 and 1 ------------ */

static _Thread_local CUcontext current;
static atomic_int primary_active = 1;

void fake_set_current(CUcontext ctx)
{
    current = ctx;
}

void fake_primary_active(int active)
{
    atomic_store(&primary_active, active);
}

CUresult CUDAAPI cuDeviceGet(CUdevice *dev, int ordinal)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (ordinal < 0 || ordinal >= atomic_load(&n_devices))
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx)
{
    atomic_fetch_add(&cuda_calls, 1);
    *ctx = current;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    atomic_fetch_add(&cuda_calls, 1);
    (void)ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *ctx)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (ctx)
        *ctx = current;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    atomic_fetch_add(&cuda_calls, 1);
    *flags = 0;
    *active = dev >= 0 && dev < 2 && atomic_load(&primary_active);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    atomic_fetch_add(&cuda_calls, 1);
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    *ctx = dev ? FAKE_CTX1 : FAKE_CTX0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    atomic_fetch_add(&cuda_calls, 1);
    return dev >= 0 && dev <= 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
