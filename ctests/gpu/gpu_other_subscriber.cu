/*
 * gpu_other_subscriber: another CUPTI client in the process. CUPTI allows one
 * subscriber per process, so cupti_cb must say who holds it, never crash, and
 * count again once that client lets go.
 *
 * 1. (in a child process, "held" argument) The program subscribes to CUPTI
 *    as "ctest tool" before PAPI is used: cupti_cb is disabled with "Another
 *    CUPTI subscriber is active: '...ctest tool'", adding an event fails, the
 *    rest of PAPI works. PAPI never re-initializes a disabled component, so
 *    that process is done with cupti_cb.
 * 2. (in this process) cupti_cb counts; then the program subscribes between
 *    two windows: PAPI_start returns PAPI_ECNFLCT; after it unsubscribes,
 *    PAPI_start works and counts exactly.
 */
#include "ctest_util.h"

#include <cupti.h>

static void CUPTIAPI ignore(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

static CUpti_SubscriberHandle take_cupti(void)
{
    CUpti_SubscriberHandle sub;
    CUpti_SubscriberParams p = {};
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "ctest tool";
    CUptiResult r = cuptiSubscribe_v2(&sub, ignore, nullptr, &p);
    if (r != CUPTI_SUCCESS)
        ct_fatal("cuptiSubscribe_v2: CUptiResult %d", (int)r);
    return sub;
}

static void count_launches(int es, int n, const char *label)
{
    long long v[1];
    PAPI_MUST(PAPI_start(es));
    ct_launch(n, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ(label, v[0], n);
}

static int held(void)
{
    require_gpu(1);
    ct_use_device(0);
    CUpti_SubscriberHandle sub = take_cupti();
    ct_library_init();
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    /* The subscriber probe belongs to the driver stage: the first add of an
     * event finds the other subscriber and disables the component. */
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_TRUE("adding an event while another subscriber holds CUPTI fails", ct_add(es, "kernel.launches") != PAPI_OK);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    ct_note("disabled reason: %s", ci->disabled_reason);
    CHECK_TRUE("disabled while another subscriber holds CUPTI", ci->disabled != 0);
    CHECK_TRUE("the reason begins 'Another CUPTI subscriber is active:'",
               strncmp(ci->disabled_reason, "Another CUPTI subscriber is active:", 35) == 0);
    CHECK_TRUE("the reason names the holder", strstr(ci->disabled_reason, "ctest tool") != nullptr);
    CHECK_TRUE("adding an event of the disabled component fails", ct_add(es, "kernel.launches") != PAPI_OK);
    CHECK_TRUE("PAPI itself still works", PAPI_get_real_nsec() > 0);
    PAPI_MUST(PAPI_destroy_eventset(&es));
    cuptiUnsubscribe(sub);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "held") == 0)
        return held();

    /* 1. In a child, before this process touches CUDA. */
    int status = ct_run_self(argv[0], "held", nullptr, nullptr);
    if (status == 77)
        ct_skip("no GPU");
    CHECK_EQ("child with CUPTI held elsewhere: every check passed (exit status)", status, 0);

    /* 2. Someone takes CUPTI between two of cupti_cb's windows. */
    require_gpu(1);
    ct_use_device(0);
    ct_launch(1, 0);
    CUDA_MUST(cudaDeviceSynchronize());
    ct_library_init();
    const char *names[] = {"kernel.launches"};
    int es = ct_eventset(1, names);
    count_launches(es, 9, "counts with CUPTI to itself");
    /* A set keeps CUPTI until it is cleaned up: the other tool can take it
     * once cupti_cb's sets are gone. */
    ct_destroy(&es);
    es = ct_eventset(1, names);
    CUpti_SubscriberHandle sub = take_cupti();
    ct_check_rc("PAPI_start while another subscriber holds CUPTI", PAPI_start(es), PAPI_ECNFLCT);
    if (cuptiUnsubscribe(sub) != CUPTI_SUCCESS)
        ct_fatal("cuptiUnsubscribe failed");
    count_launches(es, 4, "counts once the other subscriber left");
    ct_destroy(&es);
    return ct_done();
}
