/*
 * cpu_fake_lookup: looking names up must not start CUDA.
 *
 * PAPI 7.0 to 7.2 offer a name without ":::" to every component that is still waiting for its
 * delayed initialization.  A name that cannot be a cupti_cb event (no '.') must not make the
 * component load or call anything: the fake libcupti and libcuda count every call of theirs.
 * A cupti_cb name lookup and a walk over the component's events (papi_native_avail) need only
 * callback names, which CUPTI gives without a driver: no cuInit and no subscription.  cuInit
 * may happen at the first add of a cupti_cb event or at PAPI_start, once.
 *
 * Each case runs in a fresh process (this program again, with the case's name).
 */
#include "ctest_util.h"
#include "fake_play.h"

static void no_cuda_yet(const char *when)
{
    char label[256];
    snprintf(label, sizeof label, "%s: cuInit calls", when);
    CHECK_EQ(label, fake_cuinit_calls(), 0);
    snprintf(label, sizeof label, "%s: CUPTI subscriptions", when);
    CHECK_EQ(label, fake_subscribe_calls(), 0);
}

static int foreign_names(void)
{
    static const char *const names[] = {"NOT_A_REAL_EVENT", "PAPI_TOT_CYC_TYPO", "cycles_typo",
                                        "INSTRUCTIONS_RETIRED_TYPO"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int code = 0;
        char label[256];
        snprintf(label, sizeof label, "PAPI_event_name_to_code(%s)", names[i]);
        /* PAPI 7.0 returns the answer of the last component it tried:
         * PAPI_ENOEVNT, or PAPI_ECMP from a component without a name
         * lookup of its own. Never PAPI_OK. */
        int rc = PAPI_event_name_to_code((char *)names[i], &code);
        ct_result(rc == PAPI_ENOEVNT || rc == PAPI_ECMP, "%s: refused (%d: %s)", label, rc,
                  PAPI_strerror(rc));
        snprintf(label, sizeof label, "after looking up %s: calls into libcuda", names[i]);
        CHECK_EQ(label, fake_cuda_calls(), 0);
        snprintf(label, sizeof label, "after looking up %s: calls into libcupti", names[i]);
        CHECK_EQ(label, fake_cupti_calls(), 0);
    }
    no_cuda_yet("after the foreign names");
    return ct_done();
}

static int cupti_cb_names(void)
{
    int code = 0, cidx = cb_cidx();
    char back[PAPI_MAX_STR_LEN];
    ct_check_rc("PAPI_event_name_to_code(cupti_cb:::kernel.launches)",
                PAPI_event_name_to_code("cupti_cb:::kernel.launches", &code), PAPI_OK);
    ct_check_rc("PAPI_event_code_to_name", PAPI_event_code_to_name(code, back), PAPI_OK);
    CHECK_TRUE("the name comes back", !strcmp(back, "cupti_cb:::kernel.launches"));
    ct_check_rc("PAPI_event_name_to_code(cupti_cb:::cudaMemcpy.calls:process)",
                PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls:process", &code), PAPI_OK);
    no_cuda_yet("after cupti_cb name lookups");

    /* The walk of papi_native_avail. */
    int n = 0;
    PAPI_event_info_t info;
    code = 0 | PAPI_NATIVE_MASK;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) == PAPI_OK) {
        do {
            n += PAPI_get_event_info(code, &info) == PAPI_OK;
        } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    }
    CHECK_REL("events listed", n, ">", 2000);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    CHECK_EQ("the component is not disabled after the walk", ci->disabled, 0);
    /* The hardware metrics are listed for device 0's chip, which takes
     * cuInit (no context, no CUPTI subscription). CUPTI_CB_CHIP names the
     * chip instead: then the listing touches no driver at all. */
    if (getenv("CUPTI_CB_CHIP")) {
        no_cuda_yet("after listing every event (CUPTI_CB_CHIP set)");
    } else {
        CHECK_EQ("after listing every event: cuInit calls (device 0's chip)", fake_cuinit_calls(), 1);
        CHECK_EQ("after listing every event: CUPTI subscriptions", fake_subscribe_calls(), 0);
    }

    /* First use: CUDA starts here, once. */
    static const char *const names[] = {"kernel.launches"};
    int es = ct_eventset(1, names);
    CHECK_REL("cuInit calls after the first add", fake_cuinit_calls(), "<=", 1);
    long long v[1];
    PAPI_MUST(PAPI_start(es));
    play_launches(5, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("kernel.launches", v[0], 5);
    CHECK_REL("cuInit calls after the first start", fake_cuinit_calls(), "<=", 1);
    ct_destroy(&es);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fake_setup();
        ct_library_init();
        return !strcmp(argv[1], "foreign") ? foreign_names() : cupti_cb_names();
    }
    CHECK_EQ("names that cannot be cupti_cb events touch neither libcupti nor libcuda",
             ct_run_self(argv[0], "foreign", NULL, NULL), 0);
    CHECK_EQ("cupti_cb lookups need no cuInit; listing needs it once for the chip, and no subscription",
             ct_run_self(argv[0], "cupti_cb", NULL, NULL), 0);
    CHECK_EQ("with CUPTI_CB_CHIP, neither lookups nor listing need cuInit or a subscription",
             ct_run_self(argv[0], "cupti_cb", "CUPTI_CB_CHIP", "GH100"), 0);
    return ct_done();
}
