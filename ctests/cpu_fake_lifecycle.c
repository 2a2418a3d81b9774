/*
 * cpu_fake_lifecycle: the whole PAPI lifecycle of one event set through the real libpapi, with
 * CUDA calls played into the fake CUPTI (fake_cuda.h), and exact values: add, start, read,
 * reset, accum, stop, remove, add again, start again; per-function events, api.calls and the
 * derived events (launches, copies by direction, memsets, allocations, frees, syncs), with and
 * without a :device qualifier (the fake driver has two devices).
 */
#include "ctest_util.h"
#include "fake_play.h"

#define N1 8
static const char *const set1[N1] = {
    "kernel.launches",     "cuLaunchKernel.calls", "cudaLaunchKernel.calls", "api.calls",
    "memcpy.bytes_htod",   "memcpy.bytes_dtoh",    "memcpy.calls",          "cudaMemcpy.calls",
};

static void expect(const char *label, const long long *got, const long long *want, int n,
                   const char *const *names)
{
    for (int i = 0; i < n; i++) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s: %s", label, names[i]);
        CHECK_EQ(buf, got[i], want[i]);
    }
}

static void basic_lifecycle(void)
{
    long long v[N1], acc[N1];
    int es = ct_eventset(N1, set1);
    CHECK_EQ("no CUPTI subscription before the first start", fake_subscribed(), 0);

    PAPI_MUST(PAPI_start(es));
    CHECK_EQ("the component subscribed to the fake CUPTI this program holds", fake_subscribed(), 1);
    CHECK_TRUE("cuLaunchKernel's callback is enabled in the fake",
               fake_is_enabled(FAKE_DRV, DCB(cuLaunchKernel)));
    CHECK_TRUE("cudaGetDevice's callback is enabled (api.calls needs every CBID)",
               fake_is_enabled(FAKE_RT, RCB(cudaGetDevice_v3020)));

    play_launches(3, FAKE_CTX0);
    play_htod(1000, 0);
    play_dtoh(24, 0);
    PAPI_MUST(PAPI_read(es, v));
    expect("3 launches, 1 HtoD, 1 DtoH", v, (const long long[]){3, 3, 3, 5, 1000, 24, 2, 2}, N1, set1);

    /* Driver calls of the application (not inside a runtime call) count in api.calls; a failed
     * launch counts as a call but not as a launch. */
    play_driver_launches(2, FAKE_CTX0);
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    fake_driver(DCB(cuLaunchKernel), &lk, CUDA_ERROR_INVALID_VALUE, FAKE_CTX0);
    PAPI_MUST(PAPI_read(es, v));
    expect("+2 driver launches, +1 failed", v, (const long long[]){5, 6, 3, 8, 1000, 24, 2, 2}, N1, set1);

    /* CUPTI delivering each site of a call twice: the call counts once. */
    fake_repeat_sites(2);
    long before = fake_delivered();
    play_driver_launches(1, FAKE_CTX0);
    CHECK_EQ("sites delivered for one launch with both repeated", fake_delivered() - before, 4);
    PAPI_MUST(PAPI_read(es, v));
    expect("+1 launch whose sites came twice", v, (const long long[]){6, 7, 3, 9, 1000, 24, 2, 2}, N1, set1);

    PAPI_MUST(PAPI_reset(es));
    PAPI_MUST(PAPI_read(es, v));
    expect("after reset", v, (const long long[]){0, 0, 0, 0, 0, 0, 0, 0}, N1, set1);
    play_launches(1, FAKE_CTX0);
    play_htod(7, 0);
    PAPI_MUST(PAPI_read(es, v));
    expect("after reset, 1 launch and 7 bytes HtoD", v, (const long long[]){1, 1, 1, 2, 7, 0, 1, 1}, N1, set1);

    for (int i = 0; i < N1; i++)
        acc[i] = 100 * (i + 1);
    PAPI_MUST(PAPI_accum(es, acc));
    expect("accum adds to the array", acc, (const long long[]){101, 201, 301, 402, 507, 600, 701, 801}, N1,
           set1);
    PAPI_MUST(PAPI_read(es, v));
    expect("accum resets the counters", v, (const long long[]){0, 0, 0, 0, 0, 0, 0, 0}, N1, set1);

    play_launches(2, FAKE_CTX0);
    play_dtoh(5, 0);
    PAPI_MUST(PAPI_stop(es, v));
    expect("stop", v, (const long long[]){2, 2, 2, 3, 0, 5, 1, 1}, N1, set1);

    /* Calls while stopped are not counted by the next start. */
    play_launches(4, FAKE_CTX0);
    ct_check_rc("add while stopped is fine (memset.calls)", ct_add(es, "memset.calls"), PAPI_OK);
    PAPI_MUST(PAPI_start(es));
    ct_check_rc("add while running", ct_add(es, "memset.bytes"), PAPI_EISRUN);
    play_launches(1, FAKE_CTX0);
    play_memset(64, 0);
    long long w[N1 + 1];
    PAPI_MUST(PAPI_stop(es, w));
    const char *names9[N1 + 1];
    for (int i = 0; i < N1; i++)
        names9[i] = set1[i];
    names9[N1] = "memset.calls";
    expect("restart after calls made while stopped, memset.calls added", w,
           (const long long[]){1, 1, 1, 2, 0, 0, 0, 0, 1}, N1 + 1, names9);

    /* Remove two events (one in the middle), count again. */
    char buf[PAPI_HUGE_STR_LEN];
    PAPI_MUST(PAPI_remove_named_event(es, (char *)ct_full_name("api.calls", buf, sizeof buf)));
    PAPI_MUST(PAPI_remove_named_event(es, (char *)ct_full_name("memcpy.bytes_htod", buf, sizeof buf)));
    CHECK_EQ("events left after two removes", PAPI_num_events(es), N1 - 1);
    PAPI_MUST(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    play_htod(11, 0);
    play_dtoh(13, 0);
    play_memset(3, 0);
    play_memset(4, 0);
    PAPI_MUST(PAPI_stop(es, w));
    /* PAPI keeps the order of the events that remain. */
    static const char *const left[] = {"kernel.launches",   "cuLaunchKernel.calls", "cudaLaunchKernel.calls",
                                       "memcpy.bytes_dtoh", "memcpy.calls",         "cudaMemcpy.calls",
                                       "memset.calls"};
    expect("after removing api.calls and memcpy.bytes_htod", w, (const long long[]){2, 2, 2, 13, 2, 2, 2},
           7, left);

    ct_destroy(&es);
}

static void derived_and_devices(void)
{
    static const char *const names[] = {
        "kernel.launches:device=0", "kernel.launches:device1", "memcpy.bytes_peer", "memcpy.bytes_dtod",
        "memcpy.bytes_htoh",        "memcpy.bytes_htod:device=1", "memset.bytes", "alloc.calls",
        "alloc.bytes",              "free.calls",               "free.bytes",   "sync.calls",
        "memcpy.bytes",             "cuPointerGetAttributes.calls",
    };
    enum { N = sizeof names / sizeof names[0] };
    long long v[N];
    int es = ct_eventset(N, names);
    PAPI_MUST(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    play_launches(3, FAKE_CTX1);
    play_copy_default(50, 1, 0);   /* peer: device 1 <- device 0 */
    play_copy_default(11, 1, 1);   /* dtod on device 1 */
    play_copy_default(7, -1, -1);  /* host to host */
    play_htod(100, 1);
    play_htod(1, 0);
    play_memset(40, 0);
    play_memset(2, 1);
    CUdeviceptr a = play_malloc(4096, 0x100000), b = play_malloc(512, 0x200000);
    play_free(a);
    play_free(b);
    play_free(fake_dev_ptr(0, 0x300000)); /* never allocated while counting: a call, no bytes */
    play_sync();
    play_sync();
    PAPI_MUST(PAPI_stop(es, v));
    const long long want[N] = {2, 3, 50, 11, 7, 100, 42, 2, 4608, 3, 4608, 2, 50 + 11 + 7 + 100 + 1, 0};
    expect("two devices", v, want, N, names);
    ct_destroy(&es);

    int bad = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&bad));
    ct_check_rc("kernel.launches:device=2 with two devices", ct_add(bad, "kernel.launches:device=2"),
                PAPI_ENOEVNT);
    ct_check_rc("api.calls takes no device", ct_add(bad, "api.calls:device=0"), PAPI_ENOEVNT);
    ct_check_rc("no such event", ct_add(bad, "kernel.launchez"), PAPI_ENOEVNT);
    PAPI_MUST(PAPI_destroy_eventset(&bad));
}

static void time_events(void)
{
    static const char *const names[] = {"cudaLaunchKernel.time_ns", "cuLaunchKernel.time_ns", "api.time_ns",
                                        "cudaLaunchKernel.calls"};
    long long v[4];
    int es = ct_eventset(4, names);
    PAPI_MUST(PAPI_start(es));
    play_launches(20, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cudaLaunchKernel.calls with time events", v[3], 20);
    CHECK_REL("cuLaunchKernel.time_ns", v[1], ">", 0);
    CHECK_REL("cudaLaunchKernel.time_ns (encloses cuLaunchKernel)", v[0], ">=", v[1]);
    CHECK_EQ("api.time_ns is the runtime calls' time (the only calls of the application)", v[2], v[0]);
    CHECK_REL("cudaLaunchKernel.time_ns is below a second", v[0], "<", 1000000000LL);
    ct_destroy(&es);
}

int main(void)
{
    fake_setup();
    fake_device_count(CUDA_SUCCESS, 2);
    ct_library_init();
    basic_lifecycle();
    derived_and_devices();
    time_events();
    CHECK_EQ("cuInit calls (the component initializes CUDA at most once)", fake_cuinit_calls() <= 1, 1);
    return ct_done();
}
