/*
 * fake_cuda.h: the control API of the test-only fake libcupti and libcuda (tests/fakes/fake_cupti.c,
 * tests/fakes/fake_cuda.c, built by `make check` into tests/fakes/).
 *
 * A test program links both fake libraries (by absolute path) and, before PAPI_library_init,
 * calls fake_point_component_here(), which sets CUPTI_CB_CUPTI_LIB and CUPTI_CB_CUDA_LIB to the
 * files the dynamic loader mapped.  The component's dlopen() then returns the libraries the
 * program already holds, so the program and the component share one fake CUPTI and one fake
 * driver.  The program plays CUDA calls into whatever subscribed (the component), the way CUPTI
 * delivers them: ENTER then EXIT, only for enabled callback IDs, with a fresh correlationId per
 * call (a driver call made inside a runtime call of the same thread shares the runtime call's
 * id) and one correlationData slot shared by the ENTER and EXIT of a call.
 *
 * What libcupti names (cuptiGetCallbackName, cuptiGetResultString, cuptiGetVersion) comes from
 * the real libcupti, so the component's catalogue is the real one.  Everything else is faked.
 * Every function is thread-safe.
 *
 * Contexts: FAKE_CTX0 and FAKE_CTX1 are on devices 0 and 1 (cuptiGetDeviceId), and so is
 * FAKE_CTX0B on device 0; any other context is unknown.  Device memory: fake_dev_ptr(0, off) lies in [1<<32, 2<<32) on device 0,
 * fake_dev_ptr(1, off) in [2<<32, 3<<32) on device 1 (cuPointerGetAttributes); anything else is
 * memory the driver does not know (host memory).
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cupti.h>

#define FAKE_MAX_SUBS 4 /* subscribers at once (several only as CUPTI 13.2 allows them) */
#define FAKE_CTX0 ((CUcontext)(uintptr_t)0x1000)
#define FAKE_CTX1 ((CUcontext)(uintptr_t)0x2000)
#define FAKE_CTX0B ((CUcontext)(uintptr_t)0x1800) /* a second context of device 0 (not primary) */
#define FAKE_RT CUPTI_CB_DOMAIN_RUNTIME_API
#define FAKE_DRV CUPTI_CB_DOMAIN_DRIVER_API

static inline CUdeviceptr fake_dev_ptr(int dev, uint64_t off)
{
    return ((CUdeviceptr)(dev + 1) << 32) + off;
}

/* ------------------------------------------------------------------ playing calls (libcupti) */

/*
 * One CUDA call, owned by the caller (on its stack is fine).  ret is the call's return value
 * (a CUresult for the driver domain, a cudaError_t for the runtime domain).
 */
struct fake_call {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    const void *params;
    int ret;
    CUcontext ctx;
    uint32_t correlation_id;
    uint64_t correlation_data; /* the slot CUPTI hands to both sites of this call */
    const char *name;          /* cuptiGetCallbackName of the call */
    struct fake_call *outer;   /* the runtime call this one is nested in, on this thread */
    int state;                 /* 0 new, 1 entered, 2 exited */
};

/* Prepares a call: a fresh correlationId, or the enclosing runtime call's for a driver call made
 * while a runtime call of this thread is open (fake_enter'ed and not yet fake_exit'ed). */
void fake_call_init(struct fake_call *c, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const void *params, int ret, CUcontext ctx);
/* The ENTER site: delivered to each subscriber that has the CBID enabled at this moment (in the
 * order they subscribed, while their slots are not reused).  A runtime call stays open on this thread until fake_exit. */
void fake_enter(struct fake_call *c);
/* The EXIT site, under the same rule (a CBID disabled since the ENTER gets no EXIT). */
void fake_exit(struct fake_call *c);
/* A whole call: init, ENTER, EXIT. */
void fake_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *params, int ret,
               CUcontext ctx);
static inline void fake_driver(CUpti_CallbackId cbid, const void *params, CUresult ret, CUcontext ctx)
{
    fake_call(FAKE_DRV, cbid, params, (int)ret, ctx);
}
static inline void fake_runtime(CUpti_CallbackId cbid, const void *params, int ret, CUcontext ctx)
{
    fake_call(FAKE_RT, cbid, params, ret, ctx);
}

/* ------------------------------------------------------------------ time (libcupti) */

/* Freezes CLOCK_MONOTONIC at ns (not 0) for the whole process; 0 thaws it.  The component reads
 * it when CUPTI_CB_CLOCK=monotonic was set before PAPI_library_init: then a call's host time is
 * exactly what the program advanced the clock by between its ENTER and its EXIT. */
void fake_time_freeze(uint64_t ns);
void fake_time_advance(uint64_t ns);
/* The same for the calling thread only (not 0; 0 thaws it): the other threads' clocks run. */
void fake_time_freeze_thread(uint64_t ns);
void fake_time_advance_thread(uint64_t ns);
/* cuptiGetTimestamp reads CLOCK_MONOTONIC (as its caller's thread reads it) plus this offset:
 * 0, unless CUPTI_CB_FAKE_CUPTI_CLOCK=realtime (then about CLOCK_REALTIME - CLOCK_MONOTONIC). */
uint64_t fake_gpu_clock_offset(void);
/* A whole call that takes ns on the frozen clock: init, ENTER, advance, EXIT. */
void fake_call_timed(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *params, int ret,
                     CUcontext ctx, uint64_t ns);

/* ------------------------------------------------------------------ faults (libcupti) */

/* The n-th cuptiEnableCallback(enable=1) from now (1: the next one) returns err and changes
 * nothing.  n = 0 disarms. */
void fake_fail_enable(int n, CUptiResult err);
/* The n-th cuptiEnableCallback(enable=1) from now blocks, inside CUPTI, until
 * fake_release_enable(); fake_wait_enable_blocked() waits until a caller is blocked there. */
void fake_block_enable(int n);
void fake_wait_enable_blocked(void);
void fake_release_enable(void);
/* The next n EXIT sites that would be delivered are dropped. */
void fake_drop_exits(int n);
/* The next n sites that are delivered are delivered twice. */
void fake_repeat_sites(int n);
/* While name is not NULL, another tool holds CUPTI: every subscribe fails with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and cuptiSubscribe_v2 writes name into
 * oldSubscriberName ("" leaves it empty). */
void fake_other_subscriber(const char *name);
/* While name is not NULL, every subscribe that asks to share (allowMultipleSubscribers = 1) fails with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED naming name, even alone: the choice of a
 * subscriber that has left, kept for the process. */
void fake_refuse_sharing(const char *name);
/* While err is not CUPTI_SUCCESS, every subscribe fails with err. */
void fake_subscribe_error(CUptiResult err);
/* What cuptiGetVersion returns from now (e.g. 130001 for 13.0, 130500 for 13.5); 0: the real
 * libcupti's.  From 130200 on, subscribers that all pass allowMultipleSubscribers = 1 share
 * the process (see fake_cupti.c); below it, one subscriber at a time. */
void fake_cupti_version(unsigned version);
/* Disarms every fault above (libcupti and libcuda alike), and the version override; for PM
 * sampling, its faults, fake_pm_unsupported, the decode delay, the call counts, and the lost
 * counts of devices not enabled (an enabled object stays, with its state). */
void fake_reset_faults(void);

/* ------------------------------------------------------------------ queries (libcupti) */

int fake_subscribed(void);          /* subscriptions held now (0 or 1, unless shared) */
/* The last cuptiSubscribe / _v2 call, failed or not: 1 if it asked to share
 * (allowMultipleSubscribers = 1), 0 if it refused (= 0, or cuptiSubscribe), 2 if it did not say
 * (13.0's CUpti_SubscriberParams, without the field), and the structSize of its
 * CUpti_SubscriberParams in *struct_size (0: none passed); -1 if none yet. */
int fake_last_subscribe(size_t *struct_size);
/* The subscriber holding CUPTI now under this subscriberName: its allowMultipleSubscribers and
 * structSize, as fake_last_subscribe; -1 if there is none. */
int fake_subscriber(const char *name, size_t *struct_size);
int fake_subscribe_calls(void);     /* successful cuptiSubscribe / cuptiSubscribe_v2 calls */
int fake_unsubscribe_calls(void);   /* successful cuptiUnsubscribe calls */
int fake_enable_calls(void);        /* cuptiEnableCallback calls with enable=1, failed ones too */
int fake_enabled_count(CUpti_CallbackDomain domain); /* CBIDs enabled now, summed over subscribers */
int fake_is_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid); /* by any subscriber */
long fake_delivered(void);          /* sites delivered to the subscriber so far */
long fake_cupti_calls(void);        /* calls of any libcupti entry point by anyone */
const char *fake_real_cupti(void);  /* the real libcupti names are taken from */

/* ------------------------------------------------------------------ profiler (libcupti) */

/* The Profiler Host API is the real libcupti's; the target and the Range Profiler are faked
 * (fake_profiler.c).  cuptiDeviceGetChipName names this chip ("GH100" by default). */
void fake_chip(const char *name);
/* What cuptiRangeProfilerEnable and every later Range Profiler call, and
 * cuptiProfilerGetCounterAvailability, return (CUPTI_ERROR_NOT_SUPPORTED by default: no GPU). */
void fake_range_error(CUptiResult err);
int fake_profiler_init_calls(void);  /* cuptiProfilerInitialize calls */
int fake_profiler_up(void);          /* 1 between cuptiProfilerInitialize and DeInitialize */
int fake_profiler_double_inits(void); /* cuptiProfilerInitialize calls while it was up */
int fake_range_enable_calls(void);   /* cuptiRangeProfilerEnable calls */
/* With fake_range_error(CUPTI_SUCCESS) the Range Profiler works (fake_profiler.c): v is added to
 * the metric (CUPTI's name, e.g. "dram__bytes_read.sum") in the ranges started now, as GPU work
 * would be; nothing is added while no range is started.  fake_range_starts() counts the
 * successful cuptiRangeProfilerStart calls. */
void fake_metric_add(const char *name, double v);
/* The same, counted only by a range started on context ctx (what an H100 does: a range counts
 * the work of its own context, not that of another context of the device). */
void fake_metric_add_ctx(CUcontext ctx, const char *name, double v);
int fake_range_starts(void);
/* The next n calls of the Range Profiler function call ("cuptiRangeProfilerStop",
 * "cuptiRangeProfilerDecodeData", "cuptiRangeProfilerStart") fail with err; a failed stop
 * stops the range and loses what it held.  n = 0 disarms. */
void fake_range_fault(const char *call, int n, CUptiResult err);
long fake_profiler_calls(void);      /* Range Profiler calls of any kind so far */
/* While on, cuptiProfilerDeviceSupported says every device is a vGPU without profiling. */
void fake_device_vgpu_unsupported(int on);
/* While on, cuptiProfilerInitialize fails with CUPTI_ERROR_NOT_INITIALIZED when called inside the
 * InitializeInjection of the first cuInit (fake_injecting()): what a driver that is not yet
 * initialized may answer there. */
void fake_profiler_refuse_in_cuinit(int on);
/* Every cuptiProfilerInitialize fails with err (CUPTI_SUCCESS: as usual again), as under Nsight
 * Compute, which holds CUPTI's profiler (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED). */
void fake_profiler_init_error(CUptiResult err);
int fake_profiler_refused_in_cuinit(void); /* the calls so refused */

/* ------------------------------------------------------------------ PM sampling (libcupti) */

/*
 * The PM Sampling API (cupti_pmsampling.h; fake_pmsampling.c says how it works).  In short: one
 * object per device (index < fake_devices(), at most 8) from cuptiPmSamplingEnable, which needs
 * the profiler up (cuptiProfilerInitialize), to cuptiPmSamplingDisable.  While started, time
 * (CLOCK_MONOTONIC, which fake_time_freeze freezes) is cut into samples of samplingInterval ns
 * (in both trigger modes).  A metric counts only if cuptiPmSamplingGetCounterDataSize named it on
 * the device's object before the value was added (at most FAKE_PM_MAX_METRICS names).  Completed
 * samples wait in a hardware buffer of hardwareBufferSize / FAKE_PM_RECORD_BYTES records until
 * cuptiPmSamplingDecodeData moves them into a counter-data image (the fake's own layout, no
 * pointers in it: a memcpy of a fresh image is a fresh image), whose samples
 * cuptiProfilerHostEvaluateToGpuValues evaluates (rangeIndex: the sample).  While PM sampling is
 * started on a device, cuptiRangeProfilerStart on a context of it returns
 * CUPTI_ERROR_HARDWARE_BUSY, and cuptiPmSamplingStart returns it while a range is started on a
 * context of the device.
 */
#define FAKE_PM_RECORD_BYTES 4096 /* hardware-buffer bytes one sample takes */
#define FAKE_PM_MAX_METRICS 64    /* different names one object counts */
/* v is added to metric (CUPTI's full name, e.g. "dram__bytes_read.sum") in the sample open now on
 * device dev, as GPU work would be; lost while the device is not started, or when metric is not
 * one the object was asked for. */
void fake_pm_add(int dev, const char *metric, double v);
/* The GPU does work v of metric over [from, to) (the fake's CLOCK_MONOTONIC, ns; a span that
 * began before now is fine): each sample that overlaps the span gets v times the overlap over
 * the span's length, as a kernel's bytes land in the samples of the time it ran. Samples taken
 * while sampling was stopped lose their part. */
void fake_pm_add_span(int dev, const char *metric, double v, uint64_t from, uint64_t to);
/* The sample open on dev completes now (its end: now); the next one opens. Nothing if stopped. */
/* The next n samples of device dev that complete are left out of the hardware buffer, with no
 * overflow: a gap between two decoded samples, as the GPU left beside several threads' first CUDA
 * calls (H200, CUDA 13.0). */
/* As CUPTI 13.0 on an H100: a second cuptiPmSamplingSetConfig on one object succeeds, and no sample
 * of that object completes again; an enabled object, started or not, makes the Range Profiler's start
 * on its device return CUPTI_ERROR_HARDWARE_BUSY. */
void fake_pm_skip(int dev, int n);
void fake_pm_tick(int dev);
/* The next n calls of cuptiPmSampling<call> ("Enable", "Disable", "SetConfig", "Start", "Stop",
 * "DecodeData", "GetCounterAvailability", "GetCounterDataSize", "CounterDataImageInitialize",
 * "GetCounterDataInfo", "CounterDataGetSampleInfo") fail with err and change nothing; n = -1:
 * every call until fake_pm_fault(call, 0, 0).  Another name aborts the program. */
void fake_pm_fault(const char *call, int n, CUptiResult err);
/* Calls of cuptiPmSampling<call> (named as above), failed ones too, since the last
 * fake_reset_faults; -1 for an unknown name. */
int fake_pm_calls(const char *call);
int fake_pm_started(int dev);           /* 1 while PM sampling is started on dev */
/* Samples dropped on dev (buffer full) since its last cuptiPmSamplingEnable. */
/* Decodes in their delay (fake_pm_decode_delay_us) right now: a tool's decode thread is inside one. */
int fake_pm_decoding(void);
unsigned long fake_pm_lost(int dev);
size_t fake_pm_buffered(int dev);       /* completed samples waiting in dev's hardware buffer */
/* Each cuptiPmSamplingDecodeData first sleeps us microseconds (holding no lock of the fake). */
void fake_pm_decode_delay_us(unsigned us);
/* While on, cuptiProfilerDeviceSupported with api CUPTI_PROFILER_PM_SAMPLING says unsupported,
 * by architecture (isSupported and architecture CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED). */
void fake_pm_unsupported(int on);

/* ------------------------------------------------------------------ activity (libcupti) */

/* The Activity API (fake_activity.c).  Records of enabled kinds wait until cuptiActivityFlushAll,
 * which hands them to the registered callbacks in buffers, as CUPTI does.  copy_kind is a
 * CUpti_ActivityMemcpyKind. */
void fake_activity_kernel(uint32_t corr, uint64_t start, uint64_t end, uint32_t device);
/* The records played from now on run on stream (0 until said), and the kernels without a name of
 * their own (fake_activity_kernel_named) are named
 * kernel_name (NULL until said; the string must outlive the records). */
void fake_activity_on(uint32_t stream, const char *kernel_name);
/* The same with the kernel's name (a string that lives until the records are flushed). */
void fake_activity_kernel_named(uint32_t corr, const char *name, uint64_t start, uint64_t end, uint32_t device);
void fake_activity_memcpy(uint32_t corr, int copy_kind, uint64_t bytes, uint64_t start, uint64_t end,
                          uint32_t device);
void fake_activity_peer(uint32_t corr, uint64_t bytes, uint64_t start, uint64_t end, uint32_t device);
void fake_activity_memset(uint32_t corr, uint64_t bytes, uint64_t start, uint64_t end, uint32_t device);
/* cuptiActivityGetNumDroppedRecords reports n more dropped records. */
void fake_activity_drop(size_t n);
/* While err is not CUPTI_SUCCESS, cuptiActivityRegisterCallbacks fails with it (another tool). */
void fake_activity_register_error(CUptiResult err);
int fake_activity_flushes(void);           /* cuptiActivityFlushAll calls */
/* CUPTI's worker thread: the calling thread hands the queued records to the completed callback
 * in one buffer, pausing ms after the first record; fake_activity_delivering() is 1 during the
 * pause (a cuptiActivityFlushAll meanwhile finds nothing to flush). */
void fake_activity_deliver(unsigned ms);
/* The next `flushes` calls of cuptiActivityFlushAll(0) hand nothing over (-1: all of them until
 * fake_activity_hold(0)), as CUPTI's do while a buffer holds an incomplete record of work still
 * running; a forced flush is not held back.  fake_reset_faults sets it back to 0. */
void fake_activity_hold(int flushes);
/* 1 once the fake libcupti's teardown at exit has begun (FAKE_CUPTI_EXIT_PAUSE_MS makes it last):
 * a tool's thread calling it from then on is caught (the call aborts). */
int fake_cupti_finalized(void);
/* The next cuptiActivityFlushAll raises sig on the flushing thread (once). */
void fake_activity_signal_in_flush(int sig);
int fake_activity_delivering(void);
int fake_activity_register_calls(void);    /* cuptiActivityRegisterCallbacks and _v2 calls */
/* Calls of the process-wide entry points (cuptiActivityRegisterCallbacks, Enable, Disable,
 * GetNextRecord, GetNumDroppedRecords) and of their subscriber-scoped _v2 variants (CUPTI 13.2),
 * with a valid subscriber handle; a _v2 call with a handle that is not subscribed fails with
 * CUPTI_ERROR_INVALID_PARAMETER and counts in fake_activity_bad_handles.  cuptiActivityFlushAll
 * has no variant and counts in neither. */
int fake_activity_v1_calls(void);
int fake_activity_v2_calls(void);
int fake_activity_bad_handles(void);
int fake_activity_enabled(CUpti_ActivityKind kind);
size_t fake_activity_queued(void);         /* records waiting for a flush */

/* ------------------------------------------------------------------ libcuda */

/* cuInit returns r (CUDA_SUCCESS by default) and counts every call. */
void fake_cuinit_result(CUresult r);
/* cuDeviceGetCount returns r and, when r is CUDA_SUCCESS, n (default: success, 1 device). */
void fake_device_count(CUresult r, int n);
int fake_cuinit_calls(void);
int fake_devices(void);             /* the device count set by fake_device_count (1 by default) */
/* 1 while the first cuInit runs the injected library's InitializeInjection (CUDA_INJECTION64_PATH). */
int fake_injecting(void);
/* The fake libcuda also answers NVML's device count (nvmlInit_v2, nvmlDeviceGetCount_v2,
 * nvmlShutdown: the fake's devices), for a test that names it libnvidia-ml.so.1. */
long fake_cuda_calls(void);         /* calls of any libcuda entry point by anyone */
/* Contexts: FAKE_CTX0 and FAKE_CTX1 are the primary contexts of devices 0 and 1, active unless
 * fake_primary_active(0); cuCtxGetCurrent gives what fake_set_current set on this thread (NULL
 * by default); cuCtxPushCurrent/PopCurrent succeed and change nothing. */
void fake_set_current(CUcontext ctx);
void fake_primary_active(int active);

/* ------------------------------------------------------------------ wiring */

/* The file a symbol was loaded from, or NULL. */
static inline const char *fake_file_of(void *symbol)
{
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname || info.dli_fname[0] != '/')
        return NULL;
    return info.dli_fname;
}

/*
 * Points cupti_cb at the fake libraries this program holds: sets CUPTI_CB_CUPTI_LIB and
 * CUPTI_CB_CUDA_LIB to their absolute paths, and checks that a dlopen() of those paths returns
 * the very libraries this program is linked with (the component's dlopen does the same).  Call
 * it before PAPI_library_init.  Returns 0, or -1 with a message on stderr.
 */
static inline int fake_point_component_here(int verbose)
{
    const char *cupti = fake_file_of((void *)fake_call), *cuda = fake_file_of((void *)fake_cuinit_calls);
    if (!cupti || !cuda) {
        fprintf(stderr, "fake: cannot find the files of the fake libraries\n");
        return -1;
    }
    void *h1 = dlopen(cupti, RTLD_NOW | RTLD_LOCAL), *h2 = dlopen(cuda, RTLD_NOW | RTLD_LOCAL);
    int same = h1 && h2 && dlsym(h1, "fake_call") == (void *)fake_call &&
               dlsym(h2, "fake_cuinit_calls") == (void *)fake_cuinit_calls &&
               dlsym(h1, "cuptiSubscribe") == dlsym(RTLD_DEFAULT, "cuptiSubscribe") &&
               dlsym(h2, "cuInit") == dlsym(RTLD_DEFAULT, "cuInit");
    if (h1)
        dlclose(h1);
    if (h2)
        dlclose(h2);
    if (!same) {
        fprintf(stderr, "fake: dlopen(%s) / dlopen(%s) does not return the linked fakes\n", cupti, cuda);
        return -1;
    }
    setenv("CUPTI_CB_CUPTI_LIB", cupti, 1);
    setenv("CUPTI_CB_CUDA_LIB", cuda, 1);
    if (verbose)
        printf("# fake libcupti: %s (names from %s)\n# fake libcuda:  %s\n", cupti, fake_real_cupti(), cuda);
    return 0;
}

#endif /* FAKE_CUDA_H */
