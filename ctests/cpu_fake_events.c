/*
 * cpu_fake_events: the events that are not plain counters, and the counters read from a call's
 * return value or a launch's parameters, with exact values from played calls.
 *
 *   minmax  - <func>.time_ns_min/_max on a frozen clock (CUPTI_CB_CLOCK=monotonic and the fake's
 *             clock_gettime): this thread, the process (an exited thread's calls included), a
 *             call whose ENTER was not seen, PAPI_reset (a read gives the change of the minimum or
 *             maximum since), a new start;
 *   twosets - two threads' sets timing one function at once (the first window's entries inline
 *             in the function's counters, the second's out of line): each sees its own calls
 *             since its own start, and the process since its start;
 *   errors  - <func>.errors and api.errors from calls returning errors (cudaErrorNotReady of a
 *             query too; a failing driver call nested in a runtime call is one application call);
 *   launch  - kernel.threads, kernel.dyn_smem_bytes and the legacy/other stream split from
 *             cuLaunchKernel[Ex][_ptsz] and cooperative launches, per device;
 *   live    - alloc.live_bytes and alloc.peak_bytes through allocations, frees, a failed free,
 *             a free of memory never seen, PAPI_reset and PAPI_accum (changes since the reset,
 *             which add up) and a second set; :thread refused;
 *   limits  - a set timing 256 functions is refused (PAPI_ECNFLCT), and so is a ninth running
 *             set with such events while eight run.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <pthread.h>

#define T0 1000000000ull /* the frozen clock's start (a time of 0 means "not timed") */

static void frozen_init(int devices)
{
    setenv("CUPTI_CB_CLOCK", "monotonic", 1);
    fake_device_count(CUDA_SUCCESS, devices);
    fake_time_freeze(T0);
    ct_library_init();
}

static void get_device(uint64_t ns, int ret)
{
    fake_call_timed(FAKE_RT, RCB(cudaGetDevice_v3020), NULL, ret, FAKE_CTX0, ns);
}

/* ---- minmax -------------------------------------------------------------------------------- */

static void *other_thread_calls(void *arg)
{
    (void)arg;
    get_device(50, 0);
    get_device(900, 0);
    return NULL;
}

static int run_minmax(void)
{
    static const char *const names[] = {"cudaGetDevice.time_ns_min", "cudaGetDevice.time_ns_max",
        "cudaGetDevice.time_ns_min:process", "cudaGetDevice.time_ns_max:process", "cudaGetDevice.calls",
        "cudaGetDevice.time_ns", "cudaMalloc.time_ns_max"};
    long long v[7];
    frozen_init(1);
    int es = ct_eventset(7, names);

    /* A call that entered before the first start: its ENTER was not delivered. */
    struct fake_call early;
    fake_call_init(&early, FAKE_RT, RCB(cudaGetDevice_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&early);
    PAPI_MUST(PAPI_start(es));
    fake_time_advance(100000);
    fake_exit(&early);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("ENTER not seen: counted in .calls", v[4], 1);
    CHECK_EQ("ENTER not seen: no time", v[5], 0);
    CHECK_EQ("ENTER not seen: not in .time_ns_max", v[1], 0);
    CHECK_EQ("ENTER not seen: not in .time_ns_min", v[0], 0);

    get_device(300, 0);
    get_device(100, 0);
    get_device(700, 0);
    pthread_t t;
    pthread_create(&t, NULL, other_thread_calls, NULL);
    pthread_join(t, NULL);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("thread: min of 300, 100, 700", v[0], 100);
    CHECK_EQ("thread: max", v[1], 700);
    CHECK_EQ("process: min (an exited thread's 50)", v[2], 50);
    CHECK_EQ("process: max (an exited thread's 900)", v[3], 900);
    CHECK_EQ("calls of this thread", v[4], 4);
    CHECK_EQ("time of this thread", v[5], 1100);
    CHECK_EQ("a function not called: max 0", v[6], 0);

    /* After a reset a read gives how much the minimum or maximum changed since. */
    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("after reset, no call: min unchanged", v[0], 0);
    CHECK_EQ("after reset, no call: max unchanged", v[1], 0);
    CHECK_EQ("after reset, no call: process max unchanged", v[3], 0);
    get_device(400, 0); /* between the minimum and the maximum: moves neither */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("after reset, a call of 400: min unchanged", v[0], 0);
    CHECK_EQ("after reset, a call of 400: max unchanged", v[1], 0);
    get_device(40, 0);
    get_device(800, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after reset: min went from 100 to 40", v[0], -60);
    CHECK_EQ("after reset: max went from 700 to 800", v[1], 100);
    CHECK_EQ("after reset: process min went from 50 to 40", v[2], -10);
    CHECK_EQ("after reset: process max stayed 900 (the exited thread's)", v[3], 0);
    CHECK_EQ("after reset: calls", v[4], 3);

    /* A new start is a new window. */
    PAPI_MUST(PAPI_start(es));
    get_device(20, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("second window: min", v[0], 20);
    CHECK_EQ("second window: max (not the first window's 800)", v[1], 20);
    ct_destroy(&es);
    return ct_done();
}

/* ---- twosets ------------------------------------------------------------------------------- */

static pthread_barrier_t step;

/* The second set, on a thread of its own, started after the first's calls of 300 and 10. */
static void *second_set(void *arg)
{
    static const char *const names[] = {"cudaGetDevice.time_ns_min", "cudaGetDevice.time_ns_max",
        "cudaGetDevice.time_ns_min:process", "cudaGetDevice.time_ns_max:process"};
    long long *v = arg;
    int es = ct_eventset(4, names);
    PAPI_MUST(PAPI_start(es));
    get_device(60, 0);
    get_device(500, 0);
    pthread_barrier_wait(&step); /* the first thread calls 200 and 950 */
    pthread_barrier_wait(&step);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    return NULL;
}

static int run_twosets(void)
{
    static const char *const names[] = {"cudaGetDevice.time_ns_min", "cudaGetDevice.time_ns_max"};
    long long v[2], w[4];
    frozen_init(1);
    int es = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(es));
    get_device(300, 0);
    get_device(10, 0);
    pthread_barrier_init(&step, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, second_set, w);
    pthread_barrier_wait(&step); /* the second set runs and its thread called 60 and 500 */
    get_device(200, 0);
    get_device(950, 0);
    pthread_barrier_wait(&step);
    pthread_join(t, NULL);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("first set: this thread's min (10, before the second set began)", v[0], 10);
    CHECK_EQ("first set: this thread's max", v[1], 950);
    CHECK_EQ("second set: its thread's min", w[0], 60);
    CHECK_EQ("second set: its thread's max", w[1], 500);
    CHECK_EQ("second set: the process's min since it began (not the first thread's 10)", w[2], 60);
    CHECK_EQ("second set: the process's max since it began", w[3], 950);

    /* The first set again (a new window, the entries of the old one stale) while none other runs. */
    PAPI_MUST(PAPI_start(es));
    get_device(70, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("first set again: min", v[0], 70);
    CHECK_EQ("first set again: max (not 950)", v[1], 70);
    pthread_barrier_destroy(&step);
    ct_destroy(&es);
    return ct_done();
}

/* ---- errors -------------------------------------------------------------------------------- */

static int run_errors(void)
{
    static const char *const names[] = {"api.errors", "cudaGetDevice.errors", "cudaStreamQuery.errors",
        "cudaMalloc.errors", "cuMemAlloc.errors", "cuCtxSynchronize.errors", "api.calls", "cudaGetDevice.calls",
        "alloc.calls"};
    long long v[9];
    frozen_init(1);
    int es = ct_eventset(9, names);
    PAPI_MUST(PAPI_start(es));
    get_device(10, 0);
    get_device(10, 101);                                                     /* cudaErrorInvalidDevice */
    fake_runtime(RCB(cudaStreamQuery_v3020), NULL, 600, FAKE_CTX0);          /* cudaErrorNotReady */
    fake_runtime(RCB(cudaStreamQuery_v3020), NULL, 0, FAKE_CTX0);
    /* cudaMalloc failing in its cuMemAlloc: one application call, two functions' errors. */
    CUdeviceptr ptr = 0;
    cuMemAlloc_v2_params a = {&ptr, 4096};
    struct fake_call rt;
    fake_call_init(&rt, FAKE_RT, RCB(cudaMalloc_v3020), NULL, 2 /* cudaErrorMemoryAllocation */, FAKE_CTX0);
    fake_enter(&rt);
    fake_driver(DCB(cuMemAlloc_v2), &a, CUDA_ERROR_OUT_OF_MEMORY, FAKE_CTX0);
    fake_exit(&rt);
    /* A driver call of the application's own, failing. */
    cuCtxSynchronize_v2_params s = {FAKE_CTX0};
    fake_driver(DCB(cuCtxSynchronize_v2), &s, CUDA_ERROR_LAUNCH_FAILED, FAKE_CTX0);
    fake_driver(DCB(cuCtxSynchronize_v2), &s, CUDA_SUCCESS, FAKE_CTX0);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("api.errors: cudaGetDevice, cudaStreamQuery (not ready), cudaMalloc, cuCtxSynchronize", v[0], 4);
    CHECK_EQ("cudaGetDevice.errors", v[1], 1);
    CHECK_EQ("cudaStreamQuery.errors (cudaErrorNotReady counts)", v[2], 1);
    CHECK_EQ("cudaMalloc.errors", v[3], 1);
    CHECK_EQ("cuMemAlloc.errors (nested in cudaMalloc)", v[4], 1);
    CHECK_EQ("cuCtxSynchronize.errors", v[5], 1);
    CHECK_EQ("api.calls (2 + 2 + cudaMalloc + 2 cuCtxSynchronize)", v[6], 7);
    CHECK_EQ("cudaGetDevice.calls (failed ones included)", v[7], 2);
    CHECK_EQ("alloc.calls (a failed allocation is none)", v[8], 0);
    PAPI_MUST(PAPI_reset(es));
    get_device(10, 101);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after reset: api.errors", v[0], 1);
    CHECK_EQ("after reset: cudaGetDevice.errors", v[1], 1);
    CHECK_EQ("after reset: cudaStreamQuery.errors", v[2], 0);
    ct_destroy(&es);
    return ct_done();
}

/* ---- launch -------------------------------------------------------------------------------- */

#define STREAM ((CUstream)(uintptr_t)0x7000) /* a created stream */

static void launch(CUpti_CallbackId cbid, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned smem, CUstream st, CUcontext ctx, CUresult ret)
{
    cuLaunchKernel_params p = {NULL, gx, gy, gz, bx, by, bz, smem, st, NULL, NULL};
    fake_driver(cbid, &p, ret, ctx); /* the _ptsz and cooperative structs begin the same way */
}

static void launch_ex(CUpti_CallbackId cbid, unsigned gx, unsigned bx, unsigned smem, CUstream st)
{
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = gx;
    cfg.gridDimY = 2;
    cfg.gridDimZ = 1;
    cfg.blockDimX = bx;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.sharedMemBytes = smem;
    cfg.hStream = st;
    cuLaunchKernelEx_params p = {&cfg, NULL, NULL, NULL};
    fake_driver(cbid, &p, CUDA_SUCCESS, FAKE_CTX0);
}

static int run_launch(void)
{
    static const char *const names[] = {"kernel.launches", "kernel.threads", "kernel.dyn_smem_bytes",
        "kernel.launches_legacy_stream", "kernel.launches_other_stream", "kernel.threads:device1",
        "kernel.launches_legacy_stream:device1", "kernel.dyn_smem_bytes:device0", "cuLaunchKernel.errors"};
    long long v[9];
    frozen_init(2);
    int es = ct_eventset(9, names);
    PAPI_MUST(PAPI_start(es));
    /* Device 0. */
    launch(DCB(cuLaunchKernel), 2, 3, 4, 32, 2, 1, 1024, NULL, FAKE_CTX0, CUDA_SUCCESS);      /* 1536, legacy */
    launch(DCB(cuLaunchKernel), 1, 1, 1, 256, 1, 1, 0, CU_STREAM_LEGACY, FAKE_CTX0, CUDA_SUCCESS); /* 256, legacy */
    launch(DCB(cuLaunchKernel), 10, 1, 1, 64, 1, 1, 48, STREAM, FAKE_CTX0, CUDA_SUCCESS);     /* 640, other */
    launch(DCB(cuLaunchKernel_ptsz), 3, 1, 1, 5, 1, 1, 8, NULL, FAKE_CTX0, CUDA_SUCCESS);     /* 15, other */
    launch(DCB(cuLaunchKernel_ptsz), 1, 1, 1, 7, 1, 1, 0, CU_STREAM_LEGACY, FAKE_CTX0, CUDA_SUCCESS); /* 7, legacy */
    launch(DCB(cuLaunchCooperativeKernel_ptsz), 4, 1, 1, 4, 1, 1, 16, NULL, FAKE_CTX0, CUDA_SUCCESS); /* 16, other */
    launch(DCB(cuLaunchKernel), 99, 1, 1, 99, 1, 1, 99, NULL, FAKE_CTX0, CUDA_ERROR_INVALID_VALUE); /* failed */
    launch_ex(DCB(cuLaunchKernelEx), 5, 128, 512, CU_STREAM_PER_THREAD);                     /* 1280, other */
    launch_ex(DCB(cuLaunchKernelEx), 1, 32, 0, NULL);                                         /* 64, legacy */
    launch_ex(DCB(cuLaunchKernelEx_ptsz), 2, 10, 4, NULL);                                    /* 40, other */
    /* Device 1. */
    launch(DCB(cuLaunchCooperativeKernel), 2, 2, 1, 8, 8, 1, 256, NULL, FAKE_CTX1, CUDA_SUCCESS); /* 256, legacy */
    launch(DCB(cuLaunchKernel), 1, 1, 1, 1000, 1, 1, 0, STREAM, FAKE_CTX1, CUDA_SUCCESS);     /* 1000, other */
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("kernel.launches (the failed one is none)", v[0], 11);
    CHECK_EQ("kernel.threads", v[1], 1536 + 256 + 640 + 15 + 7 + 16 + 1280 + 64 + 40 + 256 + 1000);
    CHECK_EQ("kernel.dyn_smem_bytes", v[2], 1024 + 48 + 8 + 16 + 512 + 4 + 256);
    CHECK_EQ("kernel.launches_legacy_stream", v[3], 5);
    CHECK_EQ("kernel.launches_other_stream", v[4], 6);
    CHECK_EQ("legacy + other == launches", v[3] + v[4], v[0]);
    CHECK_EQ("kernel.threads:device1", v[5], 1256);
    CHECK_EQ("kernel.launches_legacy_stream:device1", v[6], 1);
    CHECK_EQ("kernel.dyn_smem_bytes:device0", v[7], 1024 + 48 + 8 + 16 + 512 + 4);
    CHECK_EQ("cuLaunchKernel.errors", v[8], 1);
    ct_destroy(&es);
    return ct_done();
}

/* ---- live ---------------------------------------------------------------------------------- */

static void mem_alloc(int dev, uint64_t off, size_t bytes)
{
    CUdeviceptr ptr = fake_dev_ptr(dev, off); /* written by the driver before its EXIT */
    cuMemAlloc_v2_params a = {&ptr, bytes};
    fake_driver(DCB(cuMemAlloc_v2), &a, CUDA_SUCCESS, dev ? FAKE_CTX1 : FAKE_CTX0);
}

static void mem_free(int dev, uint64_t off, CUresult ret, CUcontext ctx)
{
    cuMemFree_v2_params f = {fake_dev_ptr(dev, off)};
    fake_driver(DCB(cuMemFree_v2), &f, ret, ctx);
}

static int run_live(void)
{
    static const char *const names[] = {"alloc.live_bytes", "alloc.peak_bytes", "alloc.live_bytes:device0",
        "alloc.live_bytes:device1", "alloc.peak_bytes:device1", "alloc.live_bytes:process", "free.bytes"};
    long long v[7];
    frozen_init(2);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_EQ("alloc.live_bytes:thread is refused", ct_add(es, "alloc.live_bytes:thread"), PAPI_ENOEVNT);
    CHECK_EQ("alloc.peak_bytes:scope=thread is refused", ct_add(es, "alloc.peak_bytes:scope=thread"),
             PAPI_ENOEVNT);
    CHECK_EQ("alloc.peak_bytes:device1:thread is refused", ct_add(es, "alloc.peak_bytes:device1:thread"),
             PAPI_ENOEVNT);
    PAPI_MUST(PAPI_destroy_eventset(&es));

    mem_alloc(0, 0x100000, 777); /* before any set: not seen, never live */
    es = ct_eventset(7, names);
    PAPI_MUST(PAPI_start(es));
    mem_alloc(0, 0x1000, 1000);
    mem_alloc(0, 0x2000, 3000);
    mem_alloc(1, 0x1000, 500);
    mem_free(0, 0x2000, CUDA_SUCCESS, FAKE_CTX0);
    mem_free(0, 0x1000, CUDA_ERROR_INVALID_VALUE, FAKE_CTX0); /* failed: still live */
    mem_free(0, 0x100000, CUDA_SUCCESS, FAKE_CTX0);            /* never seen: changes nothing */
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("live: 1000 + 500", v[0], 1500);
    CHECK_EQ("peak: 1000 + 3000 + 500", v[1], 4500);
    CHECK_EQ("live on device 0", v[2], 1000);
    CHECK_EQ("live on device 1", v[3], 500);
    CHECK_EQ("peak on device 1", v[4], 500);
    CHECK_EQ("live, :process spelt out", v[5], 1500);
    CHECK_EQ("free.bytes", v[6], 3000);

    /* After a reset a read gives the change since: the pieces add up to the level. */
    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("reset: live unchanged since", v[0], 0);
    CHECK_EQ("reset: peak unchanged since", v[1], 0);
    CHECK_EQ("reset: peak on device 1 unchanged since", v[4], 0);
    mem_alloc(0, 0x3000, 3200);
    mem_free(0, 0x3000, CUDA_SUCCESS, FAKE_CTX1); /* freed from device 1's context: device 0's bytes */
    mem_free(1, 0x1000, CUDA_SUCCESS, FAKE_CTX1);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("live: device 1's 500 freed since the reset", v[0], -500);
    CHECK_EQ("peak: rose from 4500 to 4700 since the reset", v[1], 200);
    CHECK_EQ("live on device 0 unchanged (the free went to its allocation's device)", v[2], 0);
    CHECK_EQ("live on device 1: 500 fewer", v[3], -500);
    CHECK_EQ("peak on device 1 unchanged", v[4], 0);

    /* PAPI_accum reads, adds and resets: the sum is the level. */
    long long acc[7] = {0};
    PAPI_MUST(PAPI_start(es));
    mem_alloc(0, 0x5000, 300);
    PAPI_MUST(PAPI_accum(es, acc));
    mem_free(0, 0x5000, CUDA_SUCCESS, FAKE_CTX0);
    PAPI_MUST(PAPI_accum(es, acc));
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("two PAPI_accum of alloc.live_bytes: the live bytes", acc[0], 1000);
    CHECK_EQ("two PAPI_accum of alloc.peak_bytes: the peak since the start", acc[1], 1300);
    ct_destroy(&es);

    /* Another set reads the same gauge. */
    static const char *const live_only[] = {"alloc.live_bytes", "alloc.peak_bytes:device0"};
    es = ct_eventset(2, live_only);
    PAPI_MUST(PAPI_start(es));
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("a new set: live", v[0], 1000);
    CHECK_EQ("a new set: peak starts at live", v[1], 1000);
    mem_free(0, 0x1000, CUDA_SUCCESS, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("everything freed", v[0], 0);
    CHECK_EQ("peak on device 0 kept", v[1], 1000);
    ct_destroy(&es);
    return ct_done();
}

/* ---- limits -------------------------------------------------------------------------------- */

#define N_HOLDERS 8
static pthread_barrier_t started, release;
static int holder_rc[N_HOLDERS];

static void *holder(void *arg)
{
    int i = (int)(intptr_t)arg, es = PAPI_NULL;
    PAPI_register_thread();
    PAPI_create_eventset(&es);
    holder_rc[i] = ct_add(es, i % 2 ? "cudaGetDevice.time_ns_max" : "alloc.peak_bytes");
    if (holder_rc[i] == PAPI_OK)
        holder_rc[i] = PAPI_start(es);
    pthread_barrier_wait(&started);
    pthread_barrier_wait(&release);
    long long v[1];
    if (holder_rc[i] == PAPI_OK)
        PAPI_stop(es, v);
    ct_destroy(&es);
    PAPI_unregister_thread();
    return NULL;
}

static int run_limits(void)
{
    frozen_init(1);
    PAPI_MUST(PAPI_thread_init(ct_thread_id));

    /* 255 functions' min or max fit one set; the 256th function does not. */
    int es = PAPI_NULL, n = 0, rc = PAPI_OK;
    PAPI_MUST(PAPI_create_eventset(&es));
    int cidx = cb_cidx(), code = PAPI_NATIVE_MASK;
    PAPI_MUST(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx));
    do {
        char name[PAPI_MAX_STR_LEN];
        if (PAPI_event_code_to_name(code, name) != PAPI_OK)
            continue;
        size_t len = strlen(name), k = strlen(".time_ns_min");
        if (len < k || strcmp(name + len - k, ".time_ns_min"))
            continue;
        rc = PAPI_add_named_event(es, name);
        if (rc != PAPI_OK)
            break;
        n++;
        if (n == 255) { /* the max of a function already timed takes no new slot */
            char max[PAPI_MAX_STR_LEN];
            snprintf(max, sizeof max, "%.*s.time_ns_max", (int)(len - k), name);
            CHECK_EQ("the max of a function timed already fits", PAPI_add_named_event(es, max), PAPI_OK);
        }
    } while (n < 256 && PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    CHECK_EQ("functions timed before the refusal", n, 255);
    CHECK_EQ("the 256th function's .time_ns_min", rc, PAPI_ECNFLCT);
    PAPI_MUST(PAPI_start(es));
    long long v[257];
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);

    /* Eight running sets hold the eight windows; a ninth cannot start until one stops. */
    pthread_barrier_init(&started, NULL, N_HOLDERS + 1);
    pthread_barrier_init(&release, NULL, N_HOLDERS + 1);
    pthread_t t[N_HOLDERS];
    for (int i = 0; i < N_HOLDERS; i++)
        pthread_create(&t[i], NULL, holder, (void *)(intptr_t)i);
    pthread_barrier_wait(&started);
    for (int i = 0; i < N_HOLDERS; i++)
        CHECK_EQ("a holder started", holder_rc[i], PAPI_OK);
    static const char *const ninth[] = {"cuMemAlloc.time_ns_min", "kernel.launches"};
    es = ct_eventset(2, ninth);
    CHECK_EQ("a ninth set with a min event", PAPI_start(es), PAPI_ECNFLCT);
    static const char *const plain[] = {"kernel.launches"};
    int es2 = ct_eventset(1, plain);
    CHECK_EQ("a set without such events starts", PAPI_start(es2), PAPI_OK);
    PAPI_MUST(PAPI_stop(es2, v));
    ct_destroy(&es2);
    pthread_barrier_wait(&release);
    for (int i = 0; i < N_HOLDERS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ("the ninth set starts once the others stopped", PAPI_start(es), PAPI_OK);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        {"minmax", run_minmax}, {"twosets", run_twosets}, {"errors", run_errors}, {"launch", run_launch},
        {"live", run_live}, {"limits", run_limits},
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
