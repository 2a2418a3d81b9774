/*
 * cpu_fake_multiplex: event sets that a consumer makes multiplexed.  Caliper's papi service, with
 * CALI_PAPI_ENABLE_MULTIPLEXING, assigns every component's set to its component and calls
 * PAPI_set_multiplex on it before it adds the events; TAU, with TAU_PAPI_MULTIPLEXING, does the
 * same for the components whose cmp_info.kernel_multiplex is set.  PAPI's software multiplexing
 * would add PAPI_TOT_CYC to a set of the component, which cannot hold it: the add failed, and
 * Caliper dropped every counter of the thread.  cupti_cb counts every event of a set at once, so
 * it takes multiplexing as a no-op: the values stay exact.
 *
 * Cases (each in a fresh process):
 *   caliper  - assign, PAPI_multiplex_init, PAPI_set_multiplex on the empty set, PAPI_add_events of
 *              five events (more than Caliper's four); 5 launches, 2 memsets, 1 copy, 3
 *              cudaGetDevice: each value exact at a read, and after a reset at the stop;
 *   tau      - cmp_info.kernel_multiplex says multiplexing is supported; multiplexed, events
 *              added one by one, read and reset at every boundary as TAU's timers do;
 *   after    - PAPI_set_multiplex on a set that has its events already: still exact;
 *   force_sw - PAPI's software multiplexing asked for (PAPI_MULTIPLEX_FORCE_SW): refused (it
 *              would add PAPI_TOT_CYC to the set), and the set runs as before, exact.
 */
#include "ctest_util.h"
#include "fake_play.h"

#define N_EV 5
static const char *const names[N_EV] = {"kernel.launches", "memset.calls", "memcpy.calls", "cudaGetDevice.calls",
                                        "cuLaunchKernel.calls"};

static void play(int launches, int memsets, int copies, int get_devices)
{
    play_launches(launches, FAKE_CTX0);
    for (int i = 0; i < memsets; i++)
        play_memset(16, 0);
    for (int i = 0; i < copies; i++)
        play_htod(8, 0);
    play_get_device(get_devices);
}

static void check(const char *label, const long long *v, long long launches, long long memsets, long long copies,
                  long long get_devices)
{
    const long long want[N_EV] = {launches, memsets, copies, get_devices, launches};
    char buf[256];
    for (int i = 0; i < N_EV; i++) {
        snprintf(buf, sizeof buf, "%s: %s", label, names[i]);
        CHECK_EQ(buf, v[i], want[i]);
    }
}

static int codes(int *code)
{
    char buf[PAPI_HUGE_STR_LEN];
    for (int i = 0; i < N_EV; i++) {
        int rc = PAPI_event_name_to_code(ct_full_name(names[i], buf, sizeof buf), &code[i]);
        if (rc != PAPI_OK)
            ct_fatal("PAPI_event_name_to_code(%s): %s", names[i], ct_papi_err(rc));
    }
    return N_EV;
}

/* Start, play, read (exact), reset, play, stop (exact since the reset). */
static void run_set(int es)
{
    long long v[N_EV];
    CHECK_EQ("PAPI_get_multiplex", PAPI_get_multiplex(es), 1);
    CHECK_EQ("events in the set", PAPI_num_events(es), N_EV);
    PAPI_MUST(PAPI_start(es));
    play(5, 2, 1, 3);
    PAPI_MUST(PAPI_read(es, v));
    check("read", v, 5, 2, 1, 3);
    PAPI_MUST(PAPI_reset(es));
    play(4, 0, 2, 1);
    PAPI_MUST(PAPI_stop(es, v));
    check("stop after a reset", v, 4, 0, 2, 1);
}

static int caliper(void)
{
    ct_library_init();
    int cidx = cb_cidx(), code[N_EV], es = PAPI_NULL;
    CHECK_PAPI(PAPI_multiplex_init());
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(PAPI_assign_eventset_component(es, cidx));
    CHECK_PAPI(PAPI_set_multiplex(es));
    int rc = PAPI_add_events(es, code, codes(code));
    if (!ct_check_rc("PAPI_add_events of five events to the multiplexed set", rc, PAPI_OK))
        return ct_done();
    run_set(es);
    ct_destroy(&es);
    return ct_done();
}

/* TAU's timers: a read and a reset at each boundary, values summed. */
static int tau(void)
{
    ct_library_init();
    int cidx = cb_cidx(), es = PAPI_NULL;
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    CHECK_EQ("cmp_info.kernel_multiplex", ci && ci->kernel_multiplex, 1);
    CHECK_PAPI(PAPI_multiplex_init());
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(PAPI_assign_eventset_component(es, cidx));
    CHECK_PAPI(PAPI_set_multiplex(es));
    for (int i = 0; i < N_EV; i++) {
        char label[128];
        snprintf(label, sizeof label, "add %s to the multiplexed set", names[i]);
        if (!ct_check_rc(label, ct_add(es, names[i]), PAPI_OK))
            return ct_done();
    }
    long long v[N_EV], sum[N_EV] = {0};
    PAPI_MUST(PAPI_start(es));
    for (int boundary = 0; boundary < 4; boundary++) {
        play(boundary, boundary % 2, 1, 2);
        PAPI_MUST(PAPI_read(es, v));
        PAPI_MUST(PAPI_reset(es));
        for (int i = 0; i < N_EV; i++)
            sum[i] += v[i];
    }
    PAPI_MUST(PAPI_stop(es, v));
    check("the pieces of four timers", sum, 0 + 1 + 2 + 3, 2, 4, 8);
    ct_destroy(&es);
    return ct_done();
}

static int after(void)
{
    ct_library_init();
    int es = ct_eventset(N_EV, names);
    CHECK_PAPI(PAPI_multiplex_init());
    if (!ct_check_rc("PAPI_set_multiplex on a set with its events", PAPI_set_multiplex(es), PAPI_OK))
        return ct_done();
    run_set(es);
    ct_destroy(&es);
    return ct_done();
}

static int force_sw(void)
{
    ct_library_init();
    int es = ct_eventset(N_EV, names);
    CHECK_PAPI(PAPI_multiplex_init());
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.multiplex.eventset = es;
    opt.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
    opt.multiplex.ns = 100000;
    int rc = PAPI_set_opt(PAPI_MULTIPLEX, &opt);
    ct_result(rc != PAPI_OK, "software multiplexing refused: %s", ct_papi_err(rc));
    CHECK_EQ("PAPI_get_multiplex after the refusal", PAPI_get_multiplex(es), 0);
    long long v[N_EV];
    PAPI_MUST(PAPI_start(es));
    play(3, 1, 1, 2);
    PAPI_MUST(PAPI_stop(es, v));
    check("the set after the refusal", v, 3, 1, 1, 2);
    ct_destroy(&es);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {{"caliper", caliper}, {"tau", tau}, {"after", after},
                                             {"force_sw", force_sw}};
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
