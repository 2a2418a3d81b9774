/*
 * fake_play.h: CUDA calls as an application makes them, played into the fake CUPTI
 * (fake_cuda.h) with real parameter structs.  A runtime call encloses the driver call it ends
 * in, on the same thread, as CUDA 13 does (facts.md): cudaLaunchKernel -> cuLaunchKernel,
 * cudaMemcpy -> cuMemcpyHtoD_v2 / cuMemcpyDtoH_v2 / cuMemcpy, cudaMemset -> cuMemsetD8_v2,
 * cudaMalloc -> cuMemAlloc_v2, cudaFree -> cuMemFree_v2, cudaDeviceSynchronize ->
 * cuCtxGetCurrent + cuCtxSynchronize_v2, cudaGetDevice -> (nothing).  Runtime calls carry no
 * parameter struct (the component reads none).
 *
 * Include after ctest_util.h.
 */
#ifndef FAKE_PLAY_H
#define FAKE_PLAY_H

#include "fake_cuda.h"

#define RCB(f) CUPTI_RUNTIME_TRACE_CBID_##f
#define DCB(f) CUPTI_DRIVER_TRACE_CBID_##f

/* Before PAPI_library_init: the component is pointed at the fakes, or the test stops. */
static inline void fake_setup(void)
{
    if (fake_point_component_here(1) != 0)
        ct_fatal("the component cannot be pointed at the fake libraries");
}

/* n kernel launches through the runtime (cudaLaunchKernel -> cuLaunchKernel) in ctx. */
static inline void play_launches(int n, CUcontext ctx)
{
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    for (int i = 0; i < n; i++) {
        struct fake_call rt;
        fake_call_init(&rt, FAKE_RT, RCB(cudaLaunchKernel_v7000), NULL, 0, ctx);
        fake_enter(&rt);
        fake_driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, ctx);
        fake_exit(&rt);
    }
}

/* n launches in FAKE_CTX0 counted by a set of kernel.launches of its own, made, started and
 * stopped around them: the count, which a source's refusal elsewhere must leave exact. */
static inline long long play_counted_launches(int n)
{
    static const char *const names[] = { "kernel.launches" };
    long long v = -1;
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_start(es));
    play_launches(n, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, &v));
    ct_destroy(&es);
    return v;
}

/* n launches straight through the driver (cuLaunchKernel only). */
static inline void play_driver_launches(int n, CUcontext ctx)
{
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    for (int i = 0; i < n; i++)
        fake_driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, ctx);
}

/* cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) on device dev. */
static inline void play_htod(size_t bytes, int dev)
{
    static char host[16];
    CUcontext ctx = dev ? FAKE_CTX1 : FAKE_CTX0;
    cuMemcpyHtoD_v2_params p = {fake_dev_ptr(dev, 0), host, bytes};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMemcpy_v3020), NULL, 0, ctx);
    fake_enter(&rt);
    fake_driver(DCB(cuMemcpyHtoD_v2), &p, CUDA_SUCCESS, ctx);
    fake_exit(&rt);
}

/* cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) on device dev. */
static inline void play_dtoh(size_t bytes, int dev)
{
    static char host[16];
    CUcontext ctx = dev ? FAKE_CTX1 : FAKE_CTX0;
    cuMemcpyDtoH_v2_params p = {host, fake_dev_ptr(dev, 0), bytes};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMemcpy_v3020), NULL, 0, ctx);
    fake_enter(&rt);
    fake_driver(DCB(cuMemcpyDtoH_v2), &p, CUDA_SUCCESS, ctx);
    fake_exit(&rt);
}

/* cudaMemcpy(dst, src, bytes, cudaMemcpyDefault): the runtime calls cuMemcpy, whose direction
 * the component finds with cuPointerGetAttributes.  dst_dev/src_dev: -1 for host memory. */
static inline void play_copy_default(size_t bytes, int dst_dev, int src_dev)
{
    static char host[16];
    CUdeviceptr dst = dst_dev >= 0 ? fake_dev_ptr(dst_dev, 64) : (CUdeviceptr)(uintptr_t)host;
    CUdeviceptr src = src_dev >= 0 ? fake_dev_ptr(src_dev, 128) : (CUdeviceptr)(uintptr_t)(host + 8);
    cuMemcpy_params p = {dst, src, bytes};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMemcpy_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&rt);
    fake_driver(DCB(cuMemcpy), &p, CUDA_SUCCESS, FAKE_CTX0);
    fake_exit(&rt);
}

/* cudaMemset(ptr, 0, bytes) on device dev. */
static inline void play_memset(size_t bytes, int dev)
{
    CUcontext ctx = dev ? FAKE_CTX1 : FAKE_CTX0;
    cuMemsetD8_v2_params p = {fake_dev_ptr(dev, 0), 0, bytes};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMemset_v3020), NULL, 0, ctx);
    fake_enter(&rt);
    fake_driver(DCB(cuMemsetD8_v2), &p, CUDA_SUCCESS, ctx);
    fake_exit(&rt);
}

/* cudaMalloc of bytes on device 0 at fake_dev_ptr(0, off); returns the pointer. */
static inline CUdeviceptr play_malloc(size_t bytes, uint64_t off)
{
    CUdeviceptr ptr = 0;
    cuMemAlloc_v2_params p = {&ptr, bytes};
    struct fake_call rt, drv;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMalloc_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&rt);
    fake_call_init(&drv, FAKE_DRV, DCB(cuMemAlloc_v2), &p, CUDA_SUCCESS, FAKE_CTX0);
    fake_enter(&drv);
    ptr = fake_dev_ptr(0, off); /* the driver writes the result before its EXIT */
    fake_exit(&drv);
    fake_exit(&rt);
    return ptr;
}

/* cudaFree(ptr) on device 0. */
static inline void play_free(CUdeviceptr ptr)
{
    cuMemFree_v2_params p = {ptr};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaFree_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&rt);
    fake_driver(DCB(cuMemFree_v2), &p, CUDA_SUCCESS, FAKE_CTX0);
    fake_exit(&rt);
}

/* cudaDeviceSynchronize -> cuCtxGetCurrent + cuCtxSynchronize_v2. */
static inline void play_sync(void)
{
    CUcontext cur = FAKE_CTX0;
    cuCtxGetCurrent_params g = {&cur};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaDeviceSynchronize_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&rt);
    fake_driver(DCB(cuCtxGetCurrent), &g, CUDA_SUCCESS, FAKE_CTX0);
    cuCtxSynchronize_v2_params s = {FAKE_CTX0};
    fake_driver(DCB(cuCtxSynchronize_v2), &s, CUDA_SUCCESS, FAKE_CTX0);
    fake_exit(&rt);
}

/* n cudaGetDevice calls (runtime only). */
static inline void play_get_device(int n)
{
    for (int i = 0; i < n; i++)
        fake_runtime(RCB(cudaGetDevice_v3020), NULL, 0, FAKE_CTX0);
}

/* Captures what PAPI writes on stderr (PAPI_VERBOSE=1 makes it print component errors) between
 * capture_stderr_begin() and capture_stderr_end(), which returns it (at most len - 1 bytes). */
static int capture_saved_fd = -1;
static FILE *capture_file;
static inline void capture_stderr_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    if (!capture_file)
        ct_fatal("tmpfile failed");
    capture_saved_fd = dup(2);
    dup2(fileno(capture_file), 2);
}
static inline const char *capture_stderr_end(char *buf, size_t len)
{
    fflush(stderr);
    dup2(capture_saved_fd, 2);
    close(capture_saved_fd);
    rewind(capture_file);
    size_t n = fread(buf, 1, len - 1, capture_file);
    buf[n] = '\0';
    fclose(capture_file);
    if (n)
        ct_note("stderr: %s", buf);
    return buf;
}

/* The value of call (an int), made with PAPI's stderr captured into buf (an array). */
#define CAPTURED(buf, call)                                   \
    __extension__({                                           \
        capture_stderr_begin();                               \
        int captured_rc_ = (call);                            \
        capture_stderr_end((buf), sizeof(buf));               \
        captured_rc_;                                         \
    })

/* The component's index, and its disabled reason ("" while enabled). */
static inline int cb_cidx(void)
{
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    if (cidx < 0)
        ct_fatal("no component %s in this libpapi", CT_COMPONENT);
    return cidx;
}

/* One test case per process. Without an argument, runs this program again once per case and
 * checks that each exits 0; with a case's name, points the component at the fakes and runs it. */
struct fake_case {
    const char *name;
    int (*run)(void);
};

static inline int fake_run_cases(int argc, char **argv, const struct fake_case *cases, unsigned n)
{
    if (argc > 1) {
        fake_setup();
        for (unsigned i = 0; i < n; i++)
            if (!strcmp(argv[1], cases[i].name))
                return cases[i].run();
        ct_fatal("no case %s", argv[1]);
    }
    for (unsigned i = 0; i < n; i++) {
        int st = ct_run_self(argv[0], cases[i].name, NULL, NULL);
        ct_result(st == 0, "case %s (exit %d)", cases[i].name, st);
    }
    return ct_done();
}

#endif /* FAKE_PLAY_H */
