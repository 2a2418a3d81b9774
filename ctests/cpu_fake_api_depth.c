/*
 * cpu_fake_api_depth: api.calls must not stay at 0 on a thread whose runtime call lost its EXIT.
 *
 * api.calls counts every runtime call and every driver call made outside a runtime call.  CUPTI
 * delivers no EXIT when the callback was disabled between a call's ENTER and its EXIT (the last
 * PAPI_stop), and was seen to drop sites.  Each case leaves a cudaDeviceSynchronize whose ENTER
 * was seen and whose EXIT never is, then plays 10 cudaGetDevice calls and 2 driver launches made
 * outside any runtime call: api.calls must be 12 and cudaGetDevice.calls 10.
 *
 *   stop     - ENTER; PAPI_stop; the call returns; PAPI_start; the 12 calls (issue 6's case);
 *   destroy  - the same, with the set cleaned up and destroyed and a new set started;
 *   dropped  - while running, the fake drops the EXIT; the 12 calls in the same window.
 */
#include "ctest_util.h"
#include "fake_play.h"

static const char *const names[] = {"api.calls", "cudaGetDevice.calls", "cudaDeviceSynchronize.calls"};

static void twelve_calls(int es, const char *label, long long sync_calls)
{
    long long v[3];
    char buf[256];
    play_get_device(10);
    play_driver_launches(2, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    snprintf(buf, sizeof buf, "%s: api.calls (10 cudaGetDevice + 2 cuLaunchKernel + the syncs)", label);
    CHECK_EQ(buf, v[0], 12 + sync_calls);
    snprintf(buf, sizeof buf, "%s: cudaGetDevice.calls", label);
    CHECK_EQ(buf, v[1], 10);
    snprintf(buf, sizeof buf, "%s: cudaDeviceSynchronize.calls", label);
    CHECK_EQ(buf, v[2], sync_calls);
}

int main(void)
{
    fake_setup();
    ct_library_init();
    struct fake_call sync;
    long long v[3];

    /* stop */
    int es = ct_eventset(3, names);
    PAPI_MUST(PAPI_start(es));
    fake_call_init(&sync, FAKE_RT, RCB(cudaDeviceSynchronize_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&sync);
    PAPI_MUST(PAPI_stop(es, v));
    fake_exit(&sync);
    PAPI_MUST(PAPI_start(es));
    twelve_calls(es, "stop inside a runtime call", 0);

    /* destroy */
    PAPI_MUST(PAPI_start(es));
    fake_call_init(&sync, FAKE_RT, RCB(cudaDeviceSynchronize_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&sync);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    fake_exit(&sync);
    es = ct_eventset(3, names);
    PAPI_MUST(PAPI_start(es));
    twelve_calls(es, "set destroyed inside a runtime call", 0);

    /* dropped */
    PAPI_MUST(PAPI_start(es));
    fake_call_init(&sync, FAKE_RT, RCB(cudaDeviceSynchronize_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&sync);
    fake_drop_exits(1);
    fake_exit(&sync);
    twelve_calls(es, "EXIT dropped", 0);

    /* And a clean window afterwards, with a complete runtime call. */
    PAPI_MUST(PAPI_start(es));
    play_sync();
    twelve_calls(es, "clean window", 1);
    ct_destroy(&es);
    return ct_done();
}
