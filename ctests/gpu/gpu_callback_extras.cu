/*
 * gpu_callback_extras: the callback events read from launch parameters, return values, the
 * allocation gauges and single-call times, on a real GPU.
 *
 * launches: <<<(3,2,1),(32,4,1),256>>> on the legacy default stream, <<<4,64>>> on a created
 *   stream, cudaLaunchKernelEx (grid 2, block 96, 128 bytes) on it, <<<1,32>>> on
 *   cudaStreamPerThread and <<<1,16>>> on cudaStreamLegacy: kernel.launches == 5, kernel.threads
 *   == 768 + 256 + 192 + 32 + 16, kernel.dyn_smem_bytes == 256 + 128, legacy == 2, other == 3.
 * errors: cudaSetDevice(9999) fails, cudaStreamQuery on a stream whose kernel still spins returns
 *   cudaErrorNotReady, cudaFree of a pointer CUDA never gave fails: each function's .errors == 1,
 *   api.errors == 3.
 * live/peak: cudaMalloc 1 MiB and 3 MiB, cudaFree of the 3 MiB, cudaMalloc 512 KiB, a failed
 *   cudaFree: alloc.live_bytes and alloc.peak_bytes exact after each step, after PAPI_reset the
 *   change of each since (a 4 MiB cudaMalloc raises the peak from 4 to 5.5 MiB, the frees take
 *   1.5 MiB off the live bytes), and 0 live once everything is freed; alloc.live_bytes:thread
 *   refused with PAPI_ENOEVNT.
 * min/max: a cudaDeviceSynchronize waiting for a spin kernel and one with nothing to wait for:
 *   calls == 2, 0 < min <= max, and max >= the kernel's time measured with CUDA events less the
 *   host time from the start event's record to the synchronize (a lower bound only).
 */
#include "ctest_util.h"

#include <time.h>

__global__ void shared_noop(int *out)
{
    extern __shared__ int dyn[];
    if (out && threadIdx.x == 0)
        out[0] = dyn[0];
}

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

static long long host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void launches(cudaStream_t s)
{
    ct_values r = ct_measure({"kernel.launches", "kernel.threads", "kernel.dyn_smem_bytes",
                              "kernel.launches_legacy_stream", "kernel.launches_other_stream",
                              "kernel.threads:device0"},
                             [&] {
                                 shared_noop<<<dim3(3, 2, 1), dim3(32, 4, 1), 256>>>(nullptr);
                                 shared_noop<<<4, 64, 0, s>>>(nullptr);
                                 cudaLaunchConfig_t cfg = {};
                                 cfg.gridDim = dim3(2, 1, 1);
                                 cfg.blockDim = dim3(96, 1, 1);
                                 cfg.dynamicSmemBytes = 128;
                                 cfg.stream = s;
                                 CUDA_MUST(cudaLaunchKernelEx(&cfg, shared_noop, (int *)nullptr));
                                 shared_noop<<<1, 32, 0, cudaStreamPerThread>>>(nullptr);
                                 shared_noop<<<1, 16, 0, cudaStreamLegacy>>>(nullptr);
                                 CUDA_MUST(cudaGetLastError());
                             });
    CHECK_EQ("launches: kernel.launches", r.v[0], 5);
    CHECK_EQ("launches: kernel.threads", r.v[1], 768 + 256 + 192 + 32 + 16);
    CHECK_EQ("launches: kernel.dyn_smem_bytes", r.v[2], 256 + 128);
    CHECK_EQ("launches: legacy stream (<<<>>> on stream 0 and on cudaStreamLegacy)", r.v[3], 2);
    CHECK_EQ("launches: other streams (created, per-thread default)", r.v[4], 3);
    CHECK_EQ("launches: kernel.threads:device0", r.v[5], r.v[1]);
    CUDA_MUST(cudaDeviceSynchronize());
}

static void errors(cudaStream_t s, long long cycles)
{
    ct_values r = ct_measure({"api.errors", "cudaSetDevice.errors", "cudaStreamQuery.errors", "cudaFree.errors",
                              "cudaStreamQuery.calls"},
                             [&] {
                                 if (cudaSetDevice(9999) != cudaErrorInvalidDevice)
                                     ct_fatal("cudaSetDevice(9999) did not fail with cudaErrorInvalidDevice");
                                 spin<<<1, 1, 0, s>>>(cycles);
                                 cudaError_t q = cudaStreamQuery(s);
                                 if (q != cudaErrorNotReady)
                                     ct_fatal("cudaStreamQuery during a %lld-cycle spin: %s", cycles,
                                              cudaGetErrorName(q));
                                 CUDA_MUST(cudaStreamSynchronize(s));
                                 if (cudaFree((void *)(uintptr_t)0x1234) == cudaSuccess)
                                     ct_fatal("cudaFree of a pointer CUDA never gave succeeded");
                             });
    CHECK_EQ("errors: api.errors (cudaSetDevice, cudaStreamQuery, cudaFree)", r.v[0], 3);
    CHECK_EQ("errors: cudaSetDevice.errors", r.v[1], 1);
    CHECK_EQ("errors: cudaStreamQuery.errors (cudaErrorNotReady)", r.v[2], 1);
    CHECK_EQ("errors: cudaFree.errors", r.v[3], 1);
    CHECK_EQ("errors: cudaStreamQuery.calls", r.v[4], 1);
}

static void live_and_peak(void)
{
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_EQ("alloc.live_bytes:thread is refused", ct_add(es, "alloc.live_bytes:thread"), PAPI_ENOEVNT);
    PAPI_MUST(PAPI_destroy_eventset(&es));

    const long long MiB = 1 << 20;
    es = ct_started({"alloc.live_bytes", "alloc.peak_bytes", "alloc.live_bytes:device0", "alloc.peak_bytes:device0"});
    long long v[4];
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("live at the first start (nothing seen before)", v[0], 0);
    void *a, *b, *c;
    CUDA_MUST(cudaMalloc(&a, MiB));
    CUDA_MUST(cudaMalloc(&b, 3 * MiB));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("live: 1 MiB + 3 MiB", v[0], 4 * MiB);
    CHECK_EQ("peak: 4 MiB", v[1], 4 * MiB);
    CUDA_MUST(cudaFree(b));
    CUDA_MUST(cudaMalloc(&c, MiB / 2));
    if (cudaFree((void *)(uintptr_t)0x1234) == cudaSuccess)
        ct_fatal("cudaFree of a pointer CUDA never gave succeeded");
    (void)cudaGetLastError(); /* the runtime keeps the last error: clear it */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("live: 1.5 MiB (a failed free changes nothing)", v[0], MiB + MiB / 2);
    CHECK_EQ("peak: still 4 MiB", v[1], 4 * MiB);
    CHECK_EQ("live on device 0", v[2], MiB + MiB / 2);
    CHECK_EQ("peak on device 0", v[3], 4 * MiB);
    /* After a reset a read gives the change since (the pieces add up under read + reset). */
    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("reset: no change of live since", v[0], 0);
    CHECK_EQ("reset: no change of the peak since", v[1], 0);
    void *d;
    CUDA_MUST(cudaMalloc(&d, 4 * MiB));
    CUDA_MUST(cudaFree(d));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("4 MiB allocated and freed: live unchanged", v[0], 0);
    CHECK_EQ("the peak rose from 4 to 5.5 MiB", v[1], MiB + MiB / 2);
    CHECK_EQ("the peak of device 0 too", v[3], MiB + MiB / 2);
    CUDA_MUST(cudaFree(a));
    CUDA_MUST(cudaFree(c));
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("everything freed: 1.5 MiB fewer live since the reset", v[0], -(MiB + MiB / 2));
    CHECK_EQ("live on device 0 too", v[2], -(MiB + MiB / 2));
    CHECK_EQ("peak since the reset", v[1], MiB + MiB / 2);
    ct_destroy(&es);
}

static void single_calls(long long cycles)
{
    cudaEvent_t e0, e1;
    CUDA_MUST(cudaEventCreate(&e0));
    CUDA_MUST(cudaEventCreate(&e1));
    long long t_record = 0, t_sync = 0;
    ct_values r = ct_measure({"cudaDeviceSynchronize.time_ns_min", "cudaDeviceSynchronize.time_ns_max",
                              "cudaDeviceSynchronize.calls", "cudaDeviceSynchronize.time_ns_min:process"},
                             [&] {
                                 t_record = host_ns();
                                 CUDA_MUST(cudaEventRecord(e0, 0));
                                 spin<<<1, 1>>>(cycles);
                                 CUDA_MUST(cudaEventRecord(e1, 0));
                                 t_sync = host_ns();
                                 CUDA_MUST(cudaDeviceSynchronize());
                                 CUDA_MUST(cudaDeviceSynchronize()); /* nothing left to wait for */
                             });
    float ms = 0;
    CUDA_MUST(cudaEventElapsedTime(&ms, e0, e1));
    /* The synchronize returns after e1, which is at least ms after e0, which the GPU cannot
     * reach before the host recorded it: the wait is at least ms less (t_sync - t_record). */
    long long bound = (long long)(ms * 1e6) - (t_sync - t_record);
    ct_note("spin: %.3f ms between the events, %lld ns from the record to the synchronize", ms,
            t_sync - t_record);
    CHECK_EQ("cudaDeviceSynchronize.calls", r.v[2], 2);
    CHECK_REL("the bound means something (the spin outlasts the launch)", bound, ">", 1000000);
    CHECK_REL("time_ns_max >= the spin's lower bound", r.v[1], ">=", bound);
    CHECK_REL("time_ns_min > 0", r.v[0], ">", 0);
    CHECK_REL("time_ns_min <= time_ns_max", r.v[0], "<=", r.v[1]);
    CHECK_REL("time_ns_min:process <= this thread's min", r.v[3], "<=", r.v[0]);
    CUDA_MUST(cudaEventDestroy(e0));
    CUDA_MUST(cudaEventDestroy(e1));
}

int main()
{
    ct_gpu_ready(0);
    cudaStream_t s;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int clock_khz = 0;
    CUDA_MUST(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const long long cycles = 20LL * clock_khz; /* >= 20 ms at the peak clock, longer below it */
    shared_noop<<<1, 1, 16>>>(nullptr);         /* module load outside the regions */
    spin<<<1, 1>>>(1);
    CUDA_MUST(cudaDeviceSynchronize());

    live_and_peak(); /* first: no set has seen an allocation before */
    launches(s);
    errors(s, cycles);
    (void)cudaGetLastError();
    single_calls(cycles);
    CUDA_MUST(cudaStreamDestroy(s));
    return ct_done();
}
