/*
 * cpu_fake_reinit: PAPI_shutdown followed by PAPI_library_init, three times, counting exactly
 * each time, through the fake CUPTI.  PAPI_shutdown lets go of CUPTI (no subscription is left
 * and no callback stays enabled); the next PAPI_library_init finds the component ready, and
 * CUDA is not initialized again.
 */
#include "ctest_util.h"
#include "fake_play.h"

static void *thread_window(void *arg)
{
    static const char *const names[] = {"kernel.launches", "memcpy.bytes_dtoh"};
    long long v[2];
    int n = (int)(intptr_t)arg;
    int es = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(es));
    play_launches(n, FAKE_CTX0);
    play_dtoh(10, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("thread: kernel.launches", v[0], n);
    CHECK_EQ("thread: memcpy.bytes_dtoh", v[1], 10);
    ct_destroy(&es);
    PAPI_MUST(PAPI_unregister_thread());
    return NULL;
}

int main(void)
{
    fake_setup();
    for (int round = 1; round <= 3; round++) {
        char label[128];
        ct_library_init();
        PAPI_MUST(PAPI_thread_init(ct_thread_id));
        snprintf(label, sizeof label, "round %d: component enabled", round);
        CHECK_EQ(label, ct_component_after_init(PAPI_get_component_index(CT_COMPONENT))->disabled, 0);

        static const char *const names[] = {"kernel.launches", "cudaLaunchKernel.calls", "api.calls:process"};
        long long v[3];
        int es = ct_eventset(3, names);
        PAPI_MUST(PAPI_start(es));
        play_launches(round, FAKE_CTX0);
        pthread_t t;
        pthread_create(&t, NULL, thread_window, (void *)(intptr_t)(round + 10));
        pthread_join(t, NULL);
        PAPI_MUST(PAPI_stop(es, v));
        snprintf(label, sizeof label, "round %d: kernel.launches", round);
        CHECK_EQ(label, v[0], round);
        snprintf(label, sizeof label, "round %d: cudaLaunchKernel.calls", round);
        CHECK_EQ(label, v[1], round);
        snprintf(label, sizeof label, "round %d: api.calls:process (this thread's and the other's)", round);
        CHECK_EQ(label, v[2], round + round + 10 + 1);
        ct_destroy(&es);

        PAPI_shutdown();
        snprintf(label, sizeof label, "round %d: no subscription after PAPI_shutdown", round);
        CHECK_EQ(label, fake_subscribed(), 0);
        snprintf(label, sizeof label, "round %d: no callback enabled after PAPI_shutdown", round);
        CHECK_EQ(label, fake_enabled_count(FAKE_DRV) + fake_enabled_count(FAKE_RT), 0);
    }
    CHECK_EQ("cuInit calls over three rounds", fake_cuinit_calls(), 1);
    return ct_done();
}
