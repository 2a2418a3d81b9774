/*
 * cpu_fake_multiple_subscribers: cupti_cb beside another CUPTI subscriber, with the fake libcupti reporting
 * a CUPTI version of 13.5 (several subscribers allowed to those that ask, as CUPTI 13.2 and
 * newer) or 13.0 (one subscriber).  The other subscriber is this program, subscribing through
 * the same fake libcupti as "ctest tool" and counting its own cudaGetDevice callbacks.  Each
 * case is a fresh process.
 *
 *   share_second  - 13.5: cupti_cb subscribes (PAPI_start) asking to share (allowMultipleSubscribers
 *                   = 1 in a CUpti_SubscriberParams of 13.2's size), then the tool, asking too:
 *                   both subscribed, both count 1000 of 1000 cudaGetDevice calls; the trace
 *                   says cupti_cb holds the subscription in shared mode, the description
 *                   "CUPTI 13.5, shared: <the fake libcupti>".
 *   share_first   - 13.5: the same with the tool subscribed first.
 *   old_first     - 13.0: the tool holds CUPTI: cupti_cb passes 13.0's structure (no flag) and is
 *                   refused, naming 'CUPTI for ctest tool' and saying that this
 *                   CUPTI allows one subscriber; the tool counts on.
 *   old_second    - 13.0: cupti_cb holds CUPTI (trace: exclusive mode; description "CUPTI 13.0,
 *                   exclusive: ..."); the tool is refused with
 *                   CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED naming cupti_cb, which counts
 *                   exactly.
 *   refuse_first  - 13.5, the tool subscribed with allowMultipleSubscribers = 0: cupti_cb, asking
 *                   to share, is refused with the tool named and "does not share it" (also when
 *                   it tries again alone, with 13.0's structure).
 *   refuse_second - 13.5, cupti_cb first (shared), the refusing tool is refused, naming cupti_cb;
 *                   cupti_cb counts exactly.
 *   legacy_first  - 13.5, the tool passes 13.0's CUpti_SubscriberParams (no field: built against
 *                   older headers), first: it does not refuse, and both count exactly.
 *   legacy_second - the same, cupti_cb first.
 *   refused_share - 13.5, CUPTI refuses sharing although no one is subscribed (a subscriber that
 *                   left chose so): cupti_cb subscribes alone in exclusive mode, says so in its
 *                   trace, and counts exactly.
 *   activity_v2   - 13.5, beside the tool: gpu.kernels counts exactly through the subscriber-scoped
 *                   Activity API (_v2 calls with cupti_cb's handle, no process-wide call).
 *   activity_v1   - 13.0: gpu.kernels counts exactly through the process-wide calls, no _v2 call.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <stdatomic.h>
#include <stddef.h>

#define N_CALLS 1000
#define TOOL "ctest tool"
#define CB_NAME "cupti_cb (PAPI component)"

/* CUPTI 13.2's CUpti_SubscriberParams (the 13.0 headers lack the last two fields). */
struct params_132 {
    size_t structSize;
    const char *subscriberName;
    char *oldSubscriberName;
    size_t oldSubscriberSize;
    uint8_t allowMultipleSubscribers;
    uint8_t padding[7];
};

/* 13.0's size, from the headers this is built with, and 13.2's (8 more bytes). */
#if CUPTI_API_VERSION >= 130200
#define SIZE_130 (offsetof(CUpti_SubscriberParams, oldSubscriberSize) + sizeof(size_t))
#else
#define SIZE_130 CUpti_SubscriberParams_STRUCT_SIZE
#endif
#define SIZE_132 (SIZE_130 + 8)

static atomic_long tool_seen;
static char tool_old[128];

static void CUPTIAPI tool_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *p)
{
    const CUpti_CallbackData *cd = p;
    (void)u;
    if (d == FAKE_RT && cbid == RCB(cudaGetDevice_v3020) && cd->callbackSite == CUPTI_API_ENTER)
        atomic_fetch_add(&tool_seen, 1);
}

/* How the tool subscribes: 13.2's structure refusing to share (REFUSE) or asking (SHARE), or
 * 13.0's structure, without the field (LEGACY). */
enum { REFUSE = 0, SHARE = 1, LEGACY = 2 };

/* The tool subscribes; on success it enables cudaGetDevice. */
static CUptiResult tool_subscribe(int mode, CUpti_SubscriberHandle *sub)
{
    struct params_132 p;
    memset(&p, 0, sizeof p);
    p.structSize = mode == LEGACY ? SIZE_130 : SIZE_132;
    p.subscriberName = TOOL;
    p.oldSubscriberName = tool_old;
    p.oldSubscriberSize = sizeof tool_old;
    p.allowMultipleSubscribers = mode == SHARE;
    tool_old[0] = '\0';
    CUptiResult r = cuptiSubscribe_v2(sub, tool_callback, NULL, (CUpti_SubscriberParams *)(void *)&p);
    if (r == CUPTI_SUCCESS && cuptiEnableCallback(1, *sub, FAKE_RT, RCB(cudaGetDevice_v3020)) != CUPTI_SUCCESS)
        ct_fatal("the tool could not enable cudaGetDevice");
    return r;
}

/* cupti_cb's subscription as the fake received it: allowMultipleSubscribers and the size. */
static void check_cb_params(int want_allow, size_t want_size)
{
    size_t size = 0;
    int allow = fake_subscriber(CB_NAME, &size);
    CHECK_EQ("cupti_cb's allowMultipleSubscribers", allow, want_allow);
    CHECK_EQ("cupti_cb's CUpti_SubscriberParams structSize", size, want_size);
}

/* The component's description names the version, the mode and the fake libcupti. */
static void check_description(const char *version_mode)
{
    char want[PAPI_MAX_STR_LEN];
    snprintf(want, sizeof want, "CUDA calls, GPU work, metrics; CUPTI %s: %s", version_mode,
             fake_file_of((void *)fake_call));
    const PAPI_component_info_t *ci = PAPI_get_component_info(cb_cidx());
    ct_result(!strcmp(ci->description, want), "description \"%s\" (got \"%s\")", want, ci->description);
}

/* PAPI_start with its trace (CUPTI_CB_TRACE=1, set for every case) in trace; returns its code. */
static int traced_start(int es, char *trace, size_t len)
{
    capture_stderr_begin();
    int rc = PAPI_start(es);
    capture_stderr_end(trace, len);
    return rc;
}

static int new_set(void)
{
    static const char *const names[] = {"cudaGetDevice.calls"};
    return ct_eventset(1, names);
}

/* N_CALLS cudaGetDevice calls; both subscribers must see each. */
static void count_both(int es, long tool_before)
{
    long long v[1];
    play_get_device(N_CALLS);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_CALLS);
    CHECK_EQ("the tool: cudaGetDevice callbacks", atomic_load(&tool_seen) - tool_before, N_CALLS);
}

static int share_second(void)
{
    char trace[8192] = "";
    CUpti_SubscriberHandle tool;
    fake_cupti_version(130500);
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_TRUE("the trace says cupti_cb holds the subscription in shared mode, alone so far",
               strstr(trace, "cupti_cb holds the CUPTI subscription in shared mode (allowMultipleSubscribers=1; "
                             "no other subscriber yet)") != NULL);
    check_cb_params(1, SIZE_132);
    check_description("13.5, shared");
    CHECK_EQ("the tool subscribes beside cupti_cb", tool_subscribe(SHARE, &tool), CUPTI_SUCCESS);
    CHECK_TRUE("CUPTI names cupti_cb as the first subscriber to the tool",
               !strcmp(tool_old, "CUPTI for " CB_NAME));
    CHECK_EQ("two subscriptions", fake_subscribed(), 2);
    count_both(es, 0);
    ct_destroy(&es);
    CHECK_EQ("the tool still subscribed after cupti_cb let go", fake_subscribed(), 1);
    play_get_device(7);
    CHECK_EQ("the tool counts on alone", atomic_load(&tool_seen), N_CALLS + 7);
    cuptiUnsubscribe(tool);
    return ct_done();
}

static int share_first(void)
{
    char trace[8192] = "";
    CUpti_SubscriberHandle tool;
    fake_cupti_version(130500);
    CHECK_EQ("the tool subscribes first", tool_subscribe(SHARE, &tool), CUPTI_SUCCESS);
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start beside the tool", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_TRUE("the trace says shared mode and names the first subscriber",
               strstr(trace, "shared mode (allowMultipleSubscribers=1; the first subscriber is "
                             "'CUPTI for " TOOL "')") != NULL);
    check_cb_params(1, SIZE_132);
    CHECK_EQ("two subscriptions", fake_subscribed(), 2);
    count_both(es, 0);
    ct_destroy(&es);
    cuptiUnsubscribe(tool);
    return ct_done();
}

/* The tool holds CUPTI and does not share it with cupti_cb: adding or starting fails with the
 * sentence that begins with want and contains also; the tool counts on. */
static void refused_beside_tool(const char *want, const char *also)
{
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    capture_stderr_begin();
    int rc = ct_add(es, "cudaGetDevice.calls");
    int src = rc == PAPI_OK ? PAPI_start(es) : rc;
    capture_stderr_end(err, sizeof err);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cb_cidx());
    ct_note("add: %s, start: %s; reason: %s", ct_papi_err(rc), ct_papi_err(src), ci->disabled_reason);
    const char *said = rc != PAPI_OK ? ci->disabled_reason : err;
    CHECK_TRUE("disabled at the add, or PAPI_start fails with PAPI_ECNFLCT",
               (rc != PAPI_OK && ci->disabled != 0) || (rc == PAPI_OK && src == PAPI_ECNFLCT));
    CHECK_TRUE("the sentence names the tool", strstr(said, want) != NULL);
    CHECK_TRUE("the sentence says why", strstr(said, also) != NULL);
    CHECK_EQ("only the tool is subscribed", fake_subscribed(), 1);
    long before = atomic_load(&tool_seen);
    play_get_device(N_CALLS);
    CHECK_EQ("the tool counts every cudaGetDevice", atomic_load(&tool_seen) - before, N_CALLS);
    PAPI_destroy_eventset(&es);
}

static int old_first(void)
{
    CUpti_SubscriberHandle tool;
    size_t size = 0;
    fake_cupti_version(130001);
    CHECK_EQ("the tool subscribes", tool_subscribe(SHARE, &tool), CUPTI_SUCCESS);
    refused_beside_tool("Another CUPTI subscriber is active: 'CUPTI for " TOOL "'",
                        "is CUPTI 13.0, which allows one subscriber");
    CHECK_EQ("cupti_cb did not say to 13.0 (its structure has no field)", fake_last_subscribe(&size), LEGACY);
    CHECK_EQ("cupti_cb passed 13.0's CUpti_SubscriberParams", size, SIZE_130);
    cuptiUnsubscribe(tool);
    return ct_done();
}

static int refuse_first(void)
{
    CUpti_SubscriberHandle tool;
    size_t size = 0;
    fake_cupti_version(130500);
    CHECK_EQ("the tool subscribes, refusing to share", tool_subscribe(REFUSE, &tool), CUPTI_SUCCESS);
    refused_beside_tool("Another CUPTI subscriber is active: 'CUPTI for " TOOL "'",
                        "holds CUPTI in this process and does not share it (cupti_cb asked to share");
    /* Refused, cupti_cb tries once alone (in case the one that did not share has left). */
    CHECK_EQ("cupti_cb's last try did not say (13.0's structure)", fake_last_subscribe(&size), LEGACY);
    CHECK_EQ("cupti_cb's last try passed 13.0's CUpti_SubscriberParams", size, SIZE_130);
    cuptiUnsubscribe(tool);
    return ct_done();
}

/* cupti_cb holds CUPTI; the tool (asking to share or not) is refused and cupti_cb counts. */
static void tool_refused_second(unsigned version, int tool_mode, const char *mode)
{
    char trace[8192] = "";
    long long v[1];
    CUpti_SubscriberHandle tool;
    fake_cupti_version(version);
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_TRUE(mode, strstr(trace, mode) != NULL);
    CHECK_EQ("the tool is refused", tool_subscribe(tool_mode, &tool), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    CHECK_TRUE("CUPTI names cupti_cb to the tool", !strcmp(tool_old, "CUPTI for " CB_NAME));
    CHECK_EQ("one subscription", fake_subscribed(), 1);
    play_get_device(N_CALLS);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_CALLS);
    CHECK_EQ("the tool saw nothing", atomic_load(&tool_seen), 0);
    ct_destroy(&es);
}

static int old_second(void)
{
    tool_refused_second(130001, SHARE, "cupti_cb holds the CUPTI subscription in exclusive mode (CUPTI 13.0 allows one subscriber)");
    check_description("13.0, exclusive");
    check_cb_params(-1, 0);	/* gone after the set */
    return ct_done();
}

static int refuse_second(void)
{
    tool_refused_second(130500, REFUSE, "cupti_cb holds the CUPTI subscription in shared mode");
    return ct_done();
}

/* 13.5, a tool passing 13.0's structure (built against older headers): both share. */
static int legacy_first(void)
{
    char trace[8192] = "";
    CUpti_SubscriberHandle tool;
    fake_cupti_version(130500);
    CHECK_EQ("the legacy tool subscribes first", tool_subscribe(LEGACY, &tool), CUPTI_SUCCESS);
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start beside the legacy tool", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_TRUE("shared mode", strstr(trace, "cupti_cb holds the CUPTI subscription in shared mode") != NULL);
    CHECK_EQ("two subscriptions", fake_subscribed(), 2);
    count_both(es, 0);
    ct_destroy(&es);
    cuptiUnsubscribe(tool);
    return ct_done();
}

static int legacy_second(void)
{
    char trace[8192] = "";
    CUpti_SubscriberHandle tool;
    fake_cupti_version(130500);
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_EQ("the legacy tool subscribes beside cupti_cb", tool_subscribe(LEGACY, &tool), CUPTI_SUCCESS);
    CHECK_EQ("two subscriptions", fake_subscribed(), 2);
    count_both(es, 0);
    ct_destroy(&es);
    cuptiUnsubscribe(tool);
    return ct_done();
}

static int refused_share(void)
{
    char trace[8192] = "";
    long long v[1];
    fake_cupti_version(130500);
    fake_refuse_sharing("CUPTI for gone");
    ct_library_init();
    int es = new_set();
    ct_check_rc("PAPI_start", traced_start(es, trace, sizeof trace), PAPI_OK);
    CHECK_TRUE("the trace says exclusive mode and why",
               strstr(trace, "cupti_cb holds the CUPTI subscription in exclusive mode (CUPTI refused to share, "
                             "naming 'CUPTI for gone'") != NULL);
    check_cb_params(LEGACY, SIZE_130);
    play_get_device(N_CALLS);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cupti_cb: cudaGetDevice.calls", v[0], N_CALLS);
    ct_destroy(&es);
    return ct_done();
}

/* Five kernels issued and recorded; gpu.kernels must read 5. */
static void count_kernels(void)
{
    long long v[1];
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    static const char *const names[] = {"gpu.kernels"};
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_start(es));
    for (int i = 0; i < 5; i++) {
        struct fake_call c;
        fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, FAKE_CTX0);
        fake_enter(&c);
        fake_exit(&c);
        fake_activity_kernel(c.correlation_id, 100u * (uint64_t)i, 100u * (uint64_t)i + 50, 0);
    }
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("gpu.kernels", v[0], 5);
    ct_destroy(&es);
}

static int activity_v2(void)
{
    CUpti_SubscriberHandle tool;
    fake_cupti_version(130500);
    CHECK_EQ("the tool subscribes first", tool_subscribe(SHARE, &tool), CUPTI_SUCCESS);
    ct_library_init();
    count_kernels();
    CHECK_REL("subscriber-scoped Activity calls", fake_activity_v2_calls(), ">=", 1 + 3 + 1);
    CHECK_EQ("process-wide Activity calls", fake_activity_v1_calls(), 0);
    CHECK_EQ("_v2 calls with a handle that is not subscribed", fake_activity_bad_handles(), 0);
    CHECK_EQ("the tool is still subscribed", fake_subscribed(), 1);
    cuptiUnsubscribe(tool);
    return ct_done();
}

static int activity_v1(void)
{
    fake_cupti_version(130001);
    ct_library_init();
    count_kernels();
    CHECK_REL("process-wide Activity calls", fake_activity_v1_calls(), ">=", 1 + 3 + 1);
    CHECK_EQ("subscriber-scoped Activity calls", fake_activity_v2_calls(), 0);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        {"share_second", share_second}, {"share_first", share_first},   {"old_first", old_first},
        {"old_second", old_second},     {"refuse_first", refuse_first}, {"refuse_second", refuse_second},
        {"legacy_first", legacy_first}, {"legacy_second", legacy_second},
        {"refused_share", refused_share}, {"activity_v2", activity_v2}, {"activity_v1", activity_v1},
    };
    setenv("CUPTI_CB_TRACE", "1", 1); /* read when the component opens */
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
