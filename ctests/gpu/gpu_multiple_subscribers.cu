/*
 * gpu_multiple_subscribers: cupti_cb beside another CUPTI subscriber in one process, with a libcupti of
 * CUDA 13.2 or newer, where subscribers that ask for it (allowMultipleSubscribers) share CUPTI.
 *
 * The library is named by CUPTI_CB_TEST_CUPTI (for example PyPI's nvidia-cuda-cupti, installed
 * by scripts/get-cupti); without it the test SKIPs and says so.  The program points cupti_cb at
 * it (CUPTI_CB_CUPTI_LIB) and subscribes itself as "ctest tool" through a dlopen of the same
 * path, so both use one libcupti.  The tool counts the cudaGetDevice and cudaLaunchKernel calls
 * it is called back for.  Each case runs in its own process:
 *
 *   cb_first      cupti_cb subscribes (PAPI_start), then the tool, both asking to share: both
 *                 count 1000 of 1000 cudaGetDevice and 100 of 100 cudaLaunchKernel calls; the
 *                 component's description names the library, its version and "shared".
 *   tool_first    the same, the tool subscribed first.
 *   legacy_first  the tool subscribes first passing CUDA 13.0's CUpti_SubscriberParams (no
 *                 allowMultipleSubscribers field: a tool built against older headers), then
 *                 cupti_cb: CUPTI 13.5 lets them share (measured), and both count exactly.
 *   legacy_second the same with cupti_cb first.
 *   legacy_after  cupti_cb counts and lets go (its set destroyed), then the legacy tool
 *                 subscribes and counts.
 *   legacy_before the legacy tool subscribes and leaves, then cupti_cb counts exactly.
 *   refuse_first  the tool subscribes first with allowMultipleSubscribers = 0 in 13.2's structure:
 *                 cupti_cb is refused with "Another CUPTI subscriber is active: 'CUPTI for ctest
 *                 tool' ... does not share it", and the tool counts its 1000 calls.
 *   refuse_second cupti_cb holds CUPTI (shared); the refusing tool gets
 *                 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED naming cupti_cb, which counts its
 *                 1000 calls exactly.
 *   refuse_after  cupti_cb counts and lets go; then the refusing tool subscribes and counts:
 *                 cupti_cb's choice to share is not left behind.
 *   activity      the tool, subscribed first, records kernels with the subscriber-scoped Activity
 *                 API too: 50 launches give gpu.kernels = kernel.launches = 50 in cupti_cb, 50
 *                 cudaLaunchKernel callbacks and 50 kernel records in the tool.
 *   metrics       beside the tool: smsp__inst_executed.sum of 3 launches of a fixed kernel is
 *                 exactly 3 times that of one launch, and the tool counts the 4 launches.
 */
#include "ctest_util.h"

#include <atomic>
#include <cstddef>
#include <cupti.h>
#include <dlfcn.h>

#include "gpu_kernels.h"

#define LIB_VAR "CUPTI_CB_TEST_CUPTI"
#define TOOL "ctest tool"
#define N_GET 1000
#define N_LAUNCH 100

/* CUPTI 13.2's CUpti_SubscriberParams and the Activity API's _v2 calls: the CUDA 13.0 headers
 * this is built with lack them. */
struct params_132 {
    size_t structSize;
    const char *subscriberName;
    char *oldSubscriberName;
    size_t oldSubscriberSize;
    uint8_t allowMultipleSubscribers;
    uint8_t padding[7];
};
typedef void(CUPTIAPI *request_v2)(uint8_t **, size_t *, size_t *, void *);
typedef void(CUPTIAPI *complete_v2)(uint8_t *, size_t, size_t, void *);

static struct {
    void *lib;
    CUptiResult (*get_version)(uint32_t *);
    CUptiResult (*subscribe_v2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, void *);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
    CUptiResult (*act_register)(CUpti_SubscriberHandle, request_v2, complete_v2);
    CUptiResult (*act_enable)(CUpti_SubscriberHandle, CUpti_ActivityKind, void *);
    CUptiResult (*act_disable)(CUpti_SubscriberHandle, CUpti_ActivityKind, void *);
    CUptiResult (*act_next)(CUpti_SubscriberHandle, uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*flush_all)(uint32_t);
} T;

static CUpti_SubscriberHandle tool_sub;
static std::atomic<long> seen_get, seen_launch, seen_kernels;
static char tool_old[128];

static void *sym(const char *name)
{
    void *f = dlsym(T.lib, name);
    if (!f)
        ct_fatal("%s=%s lacks %s: it is not a libcupti of CUDA 13.2 or newer", LIB_VAR, getenv(LIB_VAR), name);
    return f;
}

/* Loads the library named by LIB_VAR and points cupti_cb at the same file. */
static void load_tool(void)
{
    const char *path = getenv(LIB_VAR);
    T.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!T.lib)
        ct_fatal("%s=%s cannot be loaded: %s", LIB_VAR, path, dlerror());
    *(void **)&T.get_version = sym("cuptiGetVersion");
    *(void **)&T.subscribe_v2 = sym("cuptiSubscribe_v2");
    *(void **)&T.unsubscribe = sym("cuptiUnsubscribe");
    *(void **)&T.enable_callback = sym("cuptiEnableCallback");
    *(void **)&T.act_register = sym("cuptiActivityRegisterCallbacks_v2");
    *(void **)&T.act_enable = sym("cuptiActivityEnable_v2");
    *(void **)&T.act_disable = sym("cuptiActivityDisable_v2");
    *(void **)&T.act_next = sym("cuptiActivityGetNextRecord_v2");
    *(void **)&T.flush_all = sym("cuptiActivityFlushAll");
    uint32_t v = 0;
    if (T.get_version(&v) != CUPTI_SUCCESS || v < 130200)
        ct_fatal("%s=%s is CUPTI API version %u: 13.2 (130200) or newer is needed", LIB_VAR, path, (unsigned)v);
    ct_note("libcupti %s: CUPTI API version %u", path, (unsigned)v);
    setenv("CUPTI_CB_CUPTI_LIB", path, 1);
}

static void CUPTIAPI tool_callback(void *, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *p)
{
    const CUpti_CallbackData *cd = (const CUpti_CallbackData *)p;
    if (d != CUPTI_CB_DOMAIN_RUNTIME_API || cd->callbackSite != CUPTI_API_ENTER)
        return;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020)
        seen_get++;
    else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        seen_launch++;
}

/* How the tool subscribes: 13.2's structure asking to share (SHARE) or refusing (REFUSE), or
 * 13.0's structure, without the field (LEGACY: a tool built against older headers). */
enum mode { SHARE, REFUSE, LEGACY };

/* The tool subscribes; on success it enables its two callbacks. */
static CUptiResult tool_subscribe(mode m)
{
    static const char *const mode_name[] = {"allowMultipleSubscribers=1", "allowMultipleSubscribers=0",
                                            "13.0's structure"};
    params_132 p;
    memset(&p, 0, sizeof p);
    p.structSize = m == LEGACY ? offsetof(params_132, allowMultipleSubscribers) : sizeof p;
    p.subscriberName = TOOL;
    p.oldSubscriberName = tool_old;
    p.oldSubscriberSize = sizeof tool_old;
    p.allowMultipleSubscribers = m == SHARE;
    tool_old[0] = '\0';
    CUptiResult r = T.subscribe_v2(&tool_sub, tool_callback, nullptr, &p);
    ct_note("the tool subscribes (%s): CUptiResult %d, CUPTI names '%s'", mode_name[m], (int)r, tool_old);
    if (r != CUPTI_SUCCESS)
        return r;
    if (T.enable_callback(1, tool_sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020) ||
        T.enable_callback(1, tool_sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000))
        ct_fatal("the tool could not enable its callbacks");
    return r;
}

static void tool_unsubscribe(void)
{
    T.enable_callback(0, tool_sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
    T.enable_callback(0, tool_sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    T.unsubscribe(tool_sub);
}

/* ---- the tool's activity records (subscriber-scoped) ---- */

static void CUPTIAPI tool_request(uint8_t **buf, size_t *size, size_t *max, void *)
{
    *size = 1 << 20;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max = 0;
}

static void CUPTIAPI tool_complete(uint8_t *buf, size_t, size_t valid, void *)
{
    CUpti_Activity *r = nullptr;
    while (valid && T.act_next(tool_sub, buf, valid, &r) == CUPTI_SUCCESS)
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            seen_kernels++;
    free(buf);
}

/* ---- the cases ---- */

static void gpu_calls(void)
{
    int dev = -1;
    for (int i = 0; i < N_GET; i++)
        CUDA_MUST(cudaGetDevice(&dev));
    ct_launch(N_LAUNCH, 0);
    CUDA_MUST(cudaDeviceSynchronize());
}

/* cupti_cb and the tool each count every call of gpu_calls(). */
static void count_both(int es)
{
    long long v[2];
    long g0 = seen_get, l0 = seen_launch;
    gpu_calls();
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_GET);
    CHECK_EQ("cupti_cb: cudaLaunchKernel.calls", v[1], N_LAUNCH);
    CHECK_EQ("the tool: cudaGetDevice callbacks", seen_get - g0, N_GET);
    CHECK_EQ("the tool: cudaLaunchKernel callbacks", seen_launch - l0, N_LAUNCH);
}

static void check_description(void)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(PAPI_get_component_index(CT_COMPONENT));
    ct_note("description: %s", ci->description);
    CHECK_TRUE("the description says shared", strstr(ci->description, ", shared: ") != nullptr);
    CHECK_TRUE("the description names CUPTI 13.x", strstr(ci->description, "; CUPTI 13.") != nullptr);
}

static int cb_first(void)
{
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls", "cudaLaunchKernel.calls"});
    CHECK_EQ("the tool subscribes beside cupti_cb", tool_subscribe(SHARE), CUPTI_SUCCESS);
    count_both(es);
    check_description();
    ct_destroy(&es);
    tool_unsubscribe();
    return ct_done();
}

/* The tool subscribes (m) first, then cupti_cb; both count. */
static int tool_then_cb(mode m)
{
    require_gpu(1);
    ct_use_device(0);
    CHECK_EQ("the tool subscribes first", tool_subscribe(m), CUPTI_SUCCESS);
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls", "cudaLaunchKernel.calls"});
    count_both(es);
    check_description();
    ct_destroy(&es);
    tool_unsubscribe();
    return ct_done();
}

static int tool_first(void)
{
    return tool_then_cb(SHARE);
}

static int legacy_first(void)
{
    return tool_then_cb(LEGACY);
}

static int legacy_second(void)
{
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls", "cudaLaunchKernel.calls"});
    CHECK_EQ("the legacy tool subscribes beside cupti_cb", tool_subscribe(LEGACY), CUPTI_SUCCESS);
    count_both(es);
    ct_destroy(&es);
    tool_unsubscribe();
    return ct_done();
}

static int refuse_first(void)
{
    char err[4096] = "";
    require_gpu(1);
    ct_use_device(0);
    CHECK_EQ("the tool subscribes first, refusing to share", tool_subscribe(REFUSE), CUPTI_SUCCESS);
    setenv("PAPI_VERBOSE", "1", 1);
    ct_gpu_ready(0);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    dup2(fileno(cap), 2);
    int rc = ct_add(es, "cudaGetDevice.calls");
    int src = rc == PAPI_OK ? PAPI_start(es) : rc;
    fflush(stderr);
    dup2(saved, 2);
    rewind(cap);
    err[fread(err, 1, sizeof err - 1, cap)] = '\0';
    fclose(cap);
    const PAPI_component_info_t *ci = PAPI_get_component_info(PAPI_get_component_index(CT_COMPONENT));
    const char *said = rc != PAPI_OK ? ci->disabled_reason : err;
    ct_note("add: %s, start: %s; sentence: %s", ct_papi_err(rc), ct_papi_err(src), said);
    CHECK_TRUE("disabled at the add, or PAPI_start fails with PAPI_ECNFLCT",
               (rc != PAPI_OK && ci->disabled != 0) || (rc == PAPI_OK && src == PAPI_ECNFLCT));
    /* CUPTI 13.5 gives no holder's name when the holder refused to share (H100, driver 580,
     * 2026-11-23): the sentence then says 'unnamed', as for any holder CUPTI does not name. */
    CHECK_TRUE("the sentence names the tool, or 'unnamed' where CUPTI gives no name",
               strstr(said, "Another CUPTI subscriber is active: 'CUPTI for " TOOL "'") != nullptr ||
                   strstr(said, "Another CUPTI subscriber is active: 'unnamed'") != nullptr);
    CHECK_TRUE("the sentence says it does not share", strstr(said, "does not share it") != nullptr);
    long g0 = seen_get;
    gpu_calls();
    CHECK_EQ("the tool counts on: cudaGetDevice callbacks", seen_get - g0, N_GET);
    PAPI_destroy_eventset(&es);
    tool_unsubscribe();
    return ct_done();
}

static int refuse_second(void)
{
    long long v[2];
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls", "cudaLaunchKernel.calls"});
    CHECK_EQ("the tool, refusing to share, is refused", tool_subscribe(REFUSE),
             CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    /* CUPTI 13.5 names no one to a subscriber that refuses to share (measured as above). */
    CHECK_TRUE("CUPTI names cupti_cb to the tool, or no one",
               strstr(tool_old, "cupti_cb (PAPI component)") != nullptr || tool_old[0] == '\0');
    gpu_calls();
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_GET);
    CHECK_EQ("cupti_cb: cudaLaunchKernel.calls", v[1], N_LAUNCH);
    CHECK_EQ("the tool saw nothing", seen_get + seen_launch, 0);
    ct_destroy(&es);
    return ct_done();
}

/* cupti_cb counts and lets go; then the tool (m) subscribes and counts. */
static int cb_then_tool(mode m)
{
    long long v[1];
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls"});
    int dev = -1;
    for (int i = 0; i < N_GET; i++)
        CUDA_MUST(cudaGetDevice(&dev));
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_GET);
    ct_destroy(&es); /* the last set: cupti_cb unsubscribes */
    CHECK_EQ("then the tool subscribes", tool_subscribe(m), CUPTI_SUCCESS);
    long g0 = seen_get;
    gpu_calls();
    CHECK_EQ("the tool: cudaGetDevice callbacks", seen_get - g0, N_GET);
    tool_unsubscribe();
    return ct_done();
}

static int legacy_after(void)
{
    return cb_then_tool(LEGACY);
}

static int refuse_after(void)
{
    return cb_then_tool(REFUSE);
}

static int legacy_before(void)
{
    require_gpu(1);
    ct_use_device(0);
    CHECK_EQ("the legacy tool subscribes", tool_subscribe(LEGACY), CUPTI_SUCCESS);
    tool_unsubscribe();
    setenv("CUPTI_CB_TRACE", "1", 1); /* says in which mode cupti_cb subscribed */
    ct_gpu_ready(0);
    int es = ct_started({"cudaGetDevice.calls", "cudaLaunchKernel.calls"});
    long long v[2];
    gpu_calls();
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_GET);
    CHECK_EQ("cupti_cb: cudaLaunchKernel.calls", v[1], N_LAUNCH);
    ct_destroy(&es);
    return ct_done();
}

static int activity(void)
{
    const int n = 50;
    long long v[2];
    ct_gpu_ready(0);
    CHECK_EQ("the tool subscribes first", tool_subscribe(SHARE), CUPTI_SUCCESS);
    CHECK_EQ("the tool registers its activity buffers (_v2)", T.act_register(tool_sub, tool_request, tool_complete),
             CUPTI_SUCCESS);
    CHECK_EQ("the tool records kernels (_v2)", T.act_enable(tool_sub, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, nullptr),
             CUPTI_SUCCESS);
    int es = ct_started({"gpu.kernels", "kernel.launches"});
    ct_launch(n, 0);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: gpu.kernels", v[0], n);
    CHECK_EQ("cupti_cb: kernel.launches", v[1], n);
    T.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CHECK_EQ("the tool: cudaLaunchKernel callbacks", seen_launch, n);
    CHECK_EQ("the tool: kernel records", seen_kernels, n);
    ct_destroy(&es);
    T.act_disable(tool_sub, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, nullptr);
    tool_unsubscribe();
    return ct_done();
}

static void fixed(unsigned *out, int k)
{
    int iters = 1000;
    void *args[] = {&out, &iters};
    for (int i = 0; i < k; i++)
        CUDA_MUST(cudaLaunchKernel((const void *)fixed_work, dim3(64), dim3(128), args, 0, 0));
    CUDA_MUST(cudaDeviceSynchronize());
}

static long long inst_of(unsigned *out, int k)
{
    long long v[1];
    int es = ct_started({"smsp__inst_executed.sum"});
    fixed(out, k);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    return v[0];
}

static int metrics(void)
{
    unsigned *out = nullptr;
    ct_gpu_ready(0);
    CUDA_MUST(cudaMalloc(&out, 64 * 128 * sizeof(unsigned)));
    fixed(out, 1); /* module loading stays out of the measured regions */
    CHECK_EQ("the tool subscribes first", tool_subscribe(SHARE), CUPTI_SUCCESS);
    long l0 = seen_launch;
    long long one = inst_of(out, 1);
    long long three = inst_of(out, 3);
    ct_note("smsp__inst_executed.sum: %lld for one launch, %lld for three", one, three);
    CHECK_REL("smsp__inst_executed.sum of one launch", one, ">", 0);
    CHECK_EQ("smsp__inst_executed.sum of three launches = 3 x one", three, 3 * one);
    CHECK_EQ("the tool: cudaLaunchKernel callbacks", seen_launch - l0, 4);
    tool_unsubscribe();
    CUDA_MUST(cudaFree(out));
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"cb_first", cb_first},           {"tool_first", tool_first},
                 {"legacy_first", legacy_first},   {"legacy_second", legacy_second},
                 {"legacy_after", legacy_after},   {"legacy_before", legacy_before},
                 {"refuse_first", refuse_first},   {"refuse_second", refuse_second},
                 {"refuse_after", refuse_after},   {"activity", activity},
                 {"metrics", metrics}};
    const char *lib = getenv(LIB_VAR);
    if (!lib || !lib[0])
        ct_skip("%s is not set: name a libcupti of CUDA 13.2 or newer with it (scripts/get-cupti installs one) "
                "to test cupti_cb beside another CUPTI subscriber",
                LIB_VAR);
    if (argc > 1) {
        require_gpu(1); /* before the version: libcupti 13.5 tells it only where the driver is */
        load_tool();
        for (const auto &c : cases)
            if (!strcmp(argv[1], c.name))
                return c.run();
        ct_fatal("no case %s", argv[1]);
    }
    for (const auto &c : cases) {
        int st = ct_run_self(argv[0], c.name, nullptr, nullptr);
        if (st == 77)
            ct_skip("case %s: no GPU", c.name);
        ct_result(st == 0, "case %s (exit %d)", c.name, st);
    }
    return ct_done();
}
