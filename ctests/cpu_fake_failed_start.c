/*
 * cpu_fake_failed_start: a PAPI_start that fails part-way must undo exactly what it did, and
 * nothing that other running sets hold.
 *
 * Set A {cuLaunchKernel.calls} runs in the main thread.  Set B {memcpy.bytes, kernel.launches}
 * (in a second thread: one running set per thread) needs the launch callbacks A holds and more;
 * the fake CUPTI fails B's first cuptiEnableCallback, so PAPI_start(B) fails with PAPI_ECMP.
 * Afterwards exactly the callbacks A needs are enabled, and A counts 5 played launches.
 * B then starts normally and both count.
 */
#include "ctest_util.h"
#include "fake_play.h"

static int start_b_rc;

static const char *const b_names[] = {"memcpy.bytes", "kernel.launches"};

/* PAPI starts a set in the thread that made it: B is made in its thread. */
static void *start_b(void *arg)
{
    (void)arg;
    int es = ct_eventset(2, b_names);
    start_b_rc = PAPI_start(es);
    ct_destroy(&es);
    return NULL;
}

static void *run_b(void *arg)
{
    long long v[2];
    (void)arg;
    int es = ct_eventset(2, b_names);
    PAPI_MUST(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    play_htod(64, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("B after a clean start: memcpy.bytes", v[0], 64);
    CHECK_EQ("B after a clean start: kernel.launches", v[1], 2);
    ct_destroy(&es);
    return NULL;
}

int main(void)
{
    fake_setup();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));

    static const char *const a_names[] = {"cuLaunchKernel.calls"};
    int es_a = ct_eventset(1, a_names);
    long long v[2];

    PAPI_MUST(PAPI_start(es_a));
    int drv_a = fake_enabled_count(FAKE_DRV), rt_a = fake_enabled_count(FAKE_RT);
    ct_note("set A enabled %d driver and %d runtime callback IDs", drv_a, rt_a);
    CHECK_TRUE("A: cuLaunchKernel enabled", fake_is_enabled(FAKE_DRV, DCB(cuLaunchKernel)));

    fake_fail_enable(1, CUPTI_ERROR_UNKNOWN);
    pthread_t t;
    pthread_create(&t, NULL, start_b, NULL);
    pthread_join(t, NULL);
    fake_fail_enable(0, CUPTI_SUCCESS);
    ct_check_rc("PAPI_start(B) with its first enable failing", start_b_rc, PAPI_ECMP);

    CHECK_TRUE("A's cuLaunchKernel callback is still enabled", fake_is_enabled(FAKE_DRV, DCB(cuLaunchKernel)));
    CHECK_EQ("driver callback IDs enabled after B's failed start (A's only)", fake_enabled_count(FAKE_DRV), drv_a);
    CHECK_EQ("runtime callback IDs enabled after B's failed start", fake_enabled_count(FAKE_RT), rt_a);
    CHECK_TRUE("B's copy callbacks were rolled back", !fake_is_enabled(FAKE_DRV, DCB(cuMemcpyHtoD_v2)));

    play_driver_launches(5, FAKE_CTX0);
    PAPI_MUST(PAPI_read(es_a, v));
    CHECK_EQ("A: cuLaunchKernel.calls after B's failed start", v[0], 5);

    /* B starts cleanly now, while A runs; A keeps counting. */
    pthread_create(&t, NULL, run_b, NULL);
    pthread_join(t, NULL);
    play_driver_launches(1, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es_a, v));
    CHECK_EQ("A at stop: 5 + 1 (the launches of B's thread count in B's thread)", v[0], 6);

    /* A fault at a later enable of a set that runs alone (B gets a new event, so that its start
     * has callbacks to enable whatever stayed enabled before): the failed start leaves the
     * enabled callbacks as they were. */
    static const char *const c_names[] = {"memset.calls", "kernel.launches"};
    int es_b = ct_eventset(2, c_names);
    int before = fake_enabled_count(FAKE_DRV) + fake_enabled_count(FAKE_RT);
    fake_fail_enable(3, CUPTI_ERROR_UNKNOWN);
    ct_check_rc("PAPI_start(B) alone, third enable failing", PAPI_start(es_b), PAPI_ECMP);
    fake_fail_enable(0, CUPTI_SUCCESS);
    CHECK_EQ("callback IDs enabled after the failed start, as before it",
             fake_enabled_count(FAKE_DRV) + fake_enabled_count(FAKE_RT), before);
    PAPI_MUST(PAPI_start(es_b));
    play_launches(3, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es_b, v));
    CHECK_EQ("B after the failed start: memset.calls", v[0], 0);
    CHECK_EQ("B after the failed start: kernel.launches", v[1], 3);

    ct_destroy(&es_a);
    ct_destroy(&es_b);
    return ct_done();
}
