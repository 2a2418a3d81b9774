/*
 * cpu_fake_disabled: the disabled reasons and start errors of the man page (DIAGNOSTICS),
 * produced through the fake driver and the fake CUPTI.  Each case is a fresh process (this
 * program again, with the case's name).
 *
 *   count0     - cuDeviceGetCount gives 0:        "No CUDA device: the driver found none"
 *   nodevice   - cuInit fails, no device:          "No CUDA device: the driver found none"
 *   nodriver   - cuInit fails, not initialized:    "No CUDA device: cuInit failed: <its text>"
 *   holder     - another tool holds CUPTI from the start, named 'CUPTI for probe'
 *   unnamed    - the same, the holder gave no name: 'unnamed'
 *   refused    - CUPTI refuses the subscription:   "CUPTI refused the subscription: <its text>"
 *   later      - another tool takes CUPTI between two windows: PAPI_start gives PAPI_ECNFLCT
 *                with the holder's name (PAPI_VERBOSE=1), and counts exactly once it lets go.
 *
 * A device or driver failure disables the component with its sentence; cupti_cb events then
 * cannot be added.  A CUPTI refusal (holder, unnamed, refused) either disables the component
 * with its sentence (when it is seen at the first use) or makes PAPI_start fail with
 * PAPI_ECNFLCT / PAPI_ECMP and print the sentence: both are what the man page documents.
 */
#include "ctest_util.h"
#include "fake_play.h"

static const PAPI_component_info_t *info_after_init(void)
{
    return ct_component_after_init(cb_cidx());
}

static int device_case(const char *want)
{
    ct_library_init();
    const PAPI_component_info_t *ci = info_after_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int rc = ct_add(es, "kernel.launches");
    ci = PAPI_get_component_info(cb_cidx());
    ct_note("add: %s; reason: %s", ct_papi_err(rc), ci->disabled_reason);
    CHECK_TRUE("adding a cupti_cb event fails", rc == PAPI_ENOEVNT || rc == PAPI_ECMP_DISABLED);
    CHECK_TRUE("the component is disabled", ci->disabled != 0 && ci->disabled != PAPI_EDELAY_INIT);
    char label[300];
    snprintf(label, sizeof label, "the reason begins \"%s\"", want);
    CHECK_TRUE(label, strncmp(ci->disabled_reason, want, strlen(want)) == 0);
    CHECK_EQ("no CUPTI subscription was made", fake_subscribe_calls(), 0);
    PAPI_MUST(PAPI_destroy_eventset(&es));
    return ct_done();
}

/* CUPTI refuses: disabled with the sentence, or start fails with start_rc and prints it. */
static int refusal_case(const char *want, int start_rc)
{
    char err[4096] = "";
    char label[300];
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    info_after_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    capture_stderr_begin();
    int rc = ct_add(es, "kernel.launches");
    int src = rc == PAPI_OK ? PAPI_start(es) : rc;
    capture_stderr_end(err, sizeof err);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cb_cidx());
    ct_note("add: %s", ct_papi_err(rc));
    ct_note("start: %s; reason: %s", ct_papi_err(src), ci->disabled_reason);
    snprintf(label, sizeof label, "disabled with \"%s\", or PAPI_start fails with %s and says it", want,
             ct_papi_err(start_rc));
    int disabled = rc != PAPI_OK && ci->disabled != 0 && !strncmp(ci->disabled_reason, want, strlen(want));
    int refused = rc == PAPI_OK && src == start_rc && strstr(err, want) != NULL;
    CHECK_TRUE(label, disabled || refused);
    CHECK_EQ("the fake CUPTI holds no subscription of cupti_cb", fake_subscribed(), 0);
    PAPI_destroy_eventset(&es);
    return ct_done();
}

static int later_case(void)
{
    char err[4096] = "";
    long long v[1];
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    static const char *const names[] = {"kernel.launches"};
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("first window", v[0], 2);

    /* Another tool subscribes once cupti_cb has let go of CUPTI.  With callbacks kept after
     * PAPI_stop the component may still hold CUPTI; then the tool cannot take it. */
    if (fake_subscribed()) {
        ct_note("cupti_cb holds CUPTI after PAPI_stop: destroying the set to let go");
        ct_destroy(&es);
        es = ct_eventset(1, names);
    }
    if (fake_subscribed()) {
        /* cupti_cb keeps CUPTI until PAPI_shutdown: no other tool can take it in between. */
        ct_note("cupti_cb keeps CUPTI until PAPI_shutdown");
        fake_other_subscriber("CUPTI for probe");
        PAPI_MUST(PAPI_start(es));
        play_launches(5, FAKE_CTX0);
        PAPI_MUST(PAPI_stop(es, v));
        CHECK_EQ("cupti_cb kept CUPTI: kernel.launches", v[0], 5);
        ct_destroy(&es);
        return ct_done();
    }
    fake_other_subscriber("CUPTI for probe");
    int rc = CAPTURED(err, PAPI_start(es));
    ct_check_rc("PAPI_start while another tool holds CUPTI", rc, PAPI_ECNFLCT);
    const char *want = "Another CUPTI subscriber is active: 'CUPTI for probe'";
    CHECK_TRUE("PAPI_VERBOSE shows the holder's name", strstr(err, want) != NULL);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cb_cidx());
    CHECK_EQ("the component stays enabled", ci->disabled, 0);

    fake_other_subscriber(NULL);
    PAPI_MUST(PAPI_start(es));
    play_launches(5, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("once the tool let go: kernel.launches", v[0], 5);
    ct_destroy(&es);
    return ct_done();
}

static int run_case(const char *c)
{
    fake_setup();
    if (!strcmp(c, "count0")) {
        fake_device_count(CUDA_SUCCESS, 0);
        return device_case("No CUDA device: the driver found none");
    }
    if (!strcmp(c, "nodevice")) {
        fake_cuinit_result(CUDA_ERROR_NO_DEVICE);
        return device_case("No CUDA device: the driver found none (fake: no CUDA-capable device is detected)");
    }
    if (!strcmp(c, "nodriver")) {
        fake_cuinit_result(CUDA_ERROR_NOT_INITIALIZED);
        return device_case("No CUDA device: cuInit failed: fake: initialization error");
    }
    if (!strcmp(c, "holder")) {
        fake_other_subscriber("CUPTI for probe");
        return refusal_case("Another CUPTI subscriber is active: 'CUPTI for probe'", PAPI_ECNFLCT);
    }
    if (!strcmp(c, "unnamed")) {
        fake_other_subscriber("");
        return refusal_case("Another CUPTI subscriber is active: 'unnamed'", PAPI_ECNFLCT);
    }
    if (!strcmp(c, "refused")) {
        const char *text = NULL;
        cuptiGetResultString(CUPTI_ERROR_NOT_INITIALIZED, &text);
        char want[512];
        snprintf(want, sizeof want, "CUPTI refused the subscription: %s", text ? text : "?");
        fake_subscribe_error(CUPTI_ERROR_NOT_INITIALIZED);
        return refusal_case(want, PAPI_ECMP);
    }
    if (!strcmp(c, "later"))
        return later_case();
    ct_fatal("unknown case %s", c);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_case(argv[1]);
    static const char *const cases[] = {"count0", "nodevice", "nodriver", "holder", "unnamed", "refused", "later"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "case %s: every check of the child passed", cases[i]);
        CHECK_EQ(label, ct_run_self(argv[0], cases[i], NULL, NULL), 0);
    }
    return ct_done();
}
