/*
 * cpu_fake_metrics: the metric source through PAPI, with the real Profiler Host API (it needs no
 * GPU) and a faked driver and Range Profiler (fake_profiler.c).  Each case is a fresh process.
 *
 *   listing   - with a device of chip GH100: papi_native_avail's walk lists every GH100 base
 *               metric once (3,389 counters + 205 ratios + 56 throughputs) after the callback
 *               events, with :device=0 as their qualifier; names round-trip; units and data
 *               types are right; bad names get their error codes.
 *   groups    - every metric group is added whole to a set: one pass each on GH100, with what
 *               the session adds to the set (its weight where a metric is not additive).
 *   passes    - a set is refused at PAPI_add_event with PAPI_ECNFLCT, and a sentence naming the
 *               number of passes, by the add that makes it need two passes; the set keeps its
 *               earlier events and still takes callback events.
 *   noperm    - CUPTI refuses profiling (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): PAPI_start of a
 *               metric set fails with PAPI_EPERM and says what the administrator must change;
 *               callback events keep counting, in a set of their own and in a mixed set's
 *               absence.
 *   otherchip - the catalogue is of CUPTI_CB_CHIP's chip, the device is another: start refuses
 *               with a sentence naming both chips.
 *   profiler  - the CUPTI profiler is initialized only while cupti_cb needs it (an initialized
 *               profiler makes every launch dearer): a listing, which asks the chip's name,
 *               leaves it de-initialized; a metric set's start takes it up, and it is
 *               de-initialized again when the start fails, and when the last set holding
 *               metrics is cleaned up or destroyed; never initialized twice in a row.
 *   counted   - given the device count (CUPTI_CB_DEVICE_COUNT: inside the program's cuInit, as
 *               cupti_cb_run's library is), a listing asks the profiler nothing and lists no
 *               metric; once the count is no longer given, the next listing builds the
 *               catalogue.
 *   nodevice  - no device (cuInit fails): a listing still lists every callback event and no
 *               metric, leaves the component enabled, and the first add says why.
 */
#include "ctest_util.h"
#include "fake_play.h"

/* The groups' table itself, as cupti_cb_metric_groups prints it. */
#include "cupti_cb_mgroups.c"

#define GH100_METRICS (3389 + 205 + 56)

static int is_metric_name(const char *full)
{
    const char *n = strstr(full, ":::");
    n = n ? n + 3 : full;
    return n[0] != '_' && strstr(n, "__") != NULL;
}

/* papi_native_avail's walk: every event, its info, and its qualifiers. */
static void walk(int cidx, int *n_cb, int *n_metric, int *n_metric_quals, PAPI_event_info_t *first_metric)
{
    int code = PAPI_NATIVE_MASK;
    *n_cb = *n_metric = *n_metric_quals = 0;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        return;
    do {
        PAPI_event_info_t info;
        if (PAPI_get_event_info(code, &info) != PAPI_OK)
            continue;
        int metric = is_metric_name(info.symbol);
        if (metric && (*n_metric)++ == 0)
            *first_metric = info;
        if (!metric)
            (*n_cb)++;
        int q = code;
        if (metric && PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK)
            do
                (*n_metric_quals)++;
            while (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
}

static void check_name(const char *name, const char *want_back, const char *units, int data_type)
{
    int code = 0;
    char back[PAPI_MAX_STR_LEN] = "", label[400];
    PAPI_event_info_t info;
    int rc = PAPI_event_name_to_code(name, &code);
    snprintf(label, sizeof label, "%s resolves", name);
    if (!ct_result(rc == PAPI_OK, "%s (%s)", label, ct_papi_err(rc)))
        return;
    PAPI_event_code_to_name(code, back);
    ct_result(!strcmp(back, want_back), "%s names back as %s (got %s)", name, want_back, back);
    memset(&info, 0, sizeof info);
    PAPI_get_event_info(code, &info);
    ct_result(!strcmp(info.units, units), "%s: units \"%s\" (got \"%s\")", name, units, info.units);
    ct_result(info.data_type == data_type, "%s: data type %d (got %d)", name, data_type, info.data_type);
}

static void check_bad(const char *name, int want)
{
    int code = 0;
    int rc = PAPI_event_name_to_code(name, &code);
    ct_result(rc == want, "%s -> %s (got %s)", name, ct_papi_err(want), ct_papi_err(rc));
}

static int listing_case(void)
{
    ct_library_init();
    int cidx = cb_cidx();
    int n_cb, n_metric, n_quals;
    PAPI_event_info_t first;
    walk(cidx, &n_cb, &n_metric, &n_quals, &first);
    CHECK_EQ("GH100 base metrics listed once each", n_metric, GH100_METRICS);
    CHECK_REL("callback events listed too", n_cb, ">", 2000);
    CHECK_EQ("one :device=N qualifier per metric (one fake device)", n_quals, n_metric);
    ct_note("first metric: %s: %s", first.symbol, first.long_descr);
    CHECK_TRUE("a listed metric's description names its default and its rollups",
               strstr(first.long_descr, "default ") && strstr(first.long_descr, "takes "));
    CHECK_EQ("the component counts callback events and metrics",
             PAPI_get_component_info(cidx)->num_native_events, n_cb + n_metric);

    check_name("cupti_cb:::dram__bytes_read.sum", "cupti_cb:::dram__bytes_read.sum", "byte",
               PAPI_DATATYPE_UINT64);
    check_name("cupti_cb:::dram__bytes_read", "cupti_cb:::dram__bytes_read", "byte", PAPI_DATATYPE_UINT64);
    check_name("cupti_cb:::dram__bytes_read.sum.per_second", "cupti_cb:::dram__bytes_read.sum.per_second",
               "byte/s", PAPI_DATATYPE_FP64);
    check_name("cupti_cb:::sm__throughput.avg.pct_of_peak_sustained_elapsed",
               "cupti_cb:::sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", PAPI_DATATYPE_FP64);
    check_name("cupti_cb:::l1tex__t_sector_hit_rate.pct", "cupti_cb:::l1tex__t_sector_hit_rate.pct", "%",
               PAPI_DATATYPE_FP64);
    check_name("cupti_cb:::dram__bytes_read.sum:device=0", "cupti_cb:::dram__bytes_read.sum:device=0", "byte",
               PAPI_DATATYPE_UINT64);
    check_name("cupti_cb:::dram__bytes_read.sum:device0", "cupti_cb:::dram__bytes_read.sum:device=0", "byte",
               PAPI_DATATYPE_UINT64);

    check_bad("cupti_cb:::dram__bytes_readx.sum", PAPI_ENOEVNT);
    check_bad("cupti_cb:::dram__bytes_read.bogus", PAPI_ENOEVNT);
    check_bad("cupti_cb:::dram__bytes_read.sum:device=1", PAPI_ENOEVNT);
    check_bad("cupti_cb:::dram__bytes_read.sum:thread", PAPI_ENOEVNT);
    check_bad("cupti_cb:::dram__bytes_read.sum:nosuch", PAPI_ENOEVNT);
    check_bad("cupti_cb:::dram__bytes_read.sum::device=0", PAPI_EINVAL);
    check_bad("cupti_cb:::dram__bytes_read.sum:device=01", PAPI_EINVAL);
    CHECK_EQ("listing and lookups made no range profiler call", fake_range_enable_calls(), 0);
    return ct_done();
}

static int groups_case(void)
{
    ct_library_init();
    for (unsigned g = 0; g < cupti_cb_n_mgroups; g++) {
        int es = PAPI_NULL, n = 0;
        PAPI_MUST(PAPI_create_eventset(&es));
        for (const char *const *m = cupti_cb_mgroups[g].metrics; *m; m++) {
            int rc = ct_add(es, *m);
            ct_result(rc == PAPI_OK, "group %s: %s added (%s)", cupti_cb_mgroups[g].name, *m, ct_papi_err(rc));
            n++;
        }
        char what[128];
        snprintf(what, sizeof what, "group %s: the set holds all %d metrics", cupti_cb_mgroups[g].name, n);
        CHECK_EQ(what, PAPI_num_events(es), n);
        ct_destroy(&es);
    }
    return ct_done();
}

static int passes_case(void)
{
    static const char *const one_pass[] = { "dram__bytes_read.sum", "dram__bytes_write.sum",
                                            "gpu__time_duration.sum" };
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    for (unsigned i = 0; i < 3; i++)
        CHECK_PAPI(ct_add(es, one_pass[i]));
    /* Metrics of many units: at some add the set needs a second pass. */
    static const char *const more[] = {
        "lts__t_sectors.sum", "l1tex__t_sectors.sum", "smsp__inst_executed.sum", "sm__cycles_active.avg",
        "lts__t_sector_hit_rate.pct", "l1tex__t_sector_hit_rate.pct", "smsp__warps_launched.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__data_bank_conflicts_pipe_lsu.sum",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_global_st.sum",
        "sm__inst_executed_pipe_tensor.sum", "smsp__thread_inst_executed.sum", "gpc__cycles_elapsed.max",
        "sys__cycles_elapsed.avg", "lts__cycles_active.avg", "dram__cycles_active.avg", "fbpa__cycles_active.avg",
        "l1tex__m_xbar2l1tex_read_bytes.sum", "l1tex__m_l1tex2xbar_write_bytes.sum", "pcie__read_bytes.sum",
        "pcie__write_bytes.sum", "nvlrx__bytes.sum", "nvltx__bytes.sum",
    };
    int refused_at = -1, refused_rc = PAPI_OK, added = 3;
    for (unsigned i = 0; i < sizeof more / sizeof more[0] && refused_at < 0; i++) {
        capture_stderr_begin();
        int rc = ct_add(es, more[i]);
        capture_stderr_end(err, sizeof err);
        if (rc == PAPI_OK)
            added++;
        else if (rc == PAPI_ECNFLCT)
            refused_at = (int)i, refused_rc = rc;
        else
            ct_note("%s: %s (not a pass refusal; skipped)", more[i], ct_papi_err(rc));
    }
    ct_note("refused at the add of %s", refused_at >= 0 ? more[refused_at] : "(none)");
    CHECK_TRUE("a set that would need two passes is refused at PAPI_add_event", refused_at >= 0);
    CHECK_EQ("with PAPI_ECNFLCT", refused_rc, PAPI_ECNFLCT);
    CHECK_TRUE("the sentence names the passes", strstr(err, "need 2 passes") || strstr(err, "need 3 passes"));
    CHECK_EQ("the set keeps its earlier events", PAPI_num_events(es), added);
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    CHECK_EQ("and takes a callback event", PAPI_num_events(es), added + 1);
    return ct_done();
}

static int noperm_case(void)
{
    char err[8192] = "";
    long long v[2] = { 0, 0 };
    setenv("PAPI_VERBOSE", "1", 1);
    fake_range_error(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    ct_library_init();
    int es = PAPI_NULL, cb = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    capture_stderr_begin();
    int rc = PAPI_start(es);
    capture_stderr_end(err, sizeof err);
    CHECK_EQ("PAPI_start of a metric set without permission -> PAPI_EPERM", rc, PAPI_EPERM);
    CHECK_TRUE("the sentence says what to change", strstr(err, "NVreg_RestrictProfilingToAdminUsers") != NULL);
    PAPI_MUST(PAPI_create_eventset(&cb));
    CHECK_PAPI(ct_add(cb, "kernel.launches"));
    CHECK_PAPI(PAPI_start(cb));
    play_launches(3, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(cb, v));
    CHECK_EQ("callback events keep counting", v[0], 3);
    return ct_done();
}

static int profiler_case(void)
{
    long long v[2] = { 0, 0 };
    ct_library_init();
    int n_cb, n_metric, n_quals;
    PAPI_event_info_t first;
    walk(cb_cidx(), &n_cb, &n_metric, &n_quals, &first);
    CHECK_EQ("a listing lists the metrics", n_metric, GH100_METRICS);
    CHECK_EQ("the chip's name was asked under cuptiProfilerInitialize", fake_profiler_init_calls(), 1);
    CHECK_EQ("the listing leaves the profiler de-initialized", fake_profiler_up(), 0);

    /* The Range Profiler refuses (no GPU): the start fails and gives the profiler back. */
    int es = PAPI_NULL, cb = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    CHECK_TRUE("the start of a metric set fails without a GPU", PAPI_start(es) != PAPI_OK);
    CHECK_EQ("the start initialized the profiler", fake_profiler_init_calls(), 2);
    CHECK_EQ("a failed start leaves it de-initialized", fake_profiler_up(), 0);

    /* A refusal that comes after the session exists (no permission, at the range profiler's
     * enable): the session goes, and the profiler with it. */
    fake_range_error(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    CHECK_EQ("no permission -> PAPI_EPERM", PAPI_start(es), PAPI_EPERM);
    CHECK_EQ("a refused start leaves it de-initialized", fake_profiler_up(), 0);
    PAPI_MUST(PAPI_cleanup_eventset(es));
    PAPI_MUST(PAPI_destroy_eventset(&es));
    CHECK_EQ("never initialized twice in a row", fake_profiler_double_inits(), 0);

    /* Callback events never touch the profiler. */
    int before = fake_profiler_init_calls();
    PAPI_MUST(PAPI_create_eventset(&cb));
    CHECK_PAPI(ct_add(cb, "kernel.launches"));
    CHECK_PAPI(PAPI_start(cb));
    play_launches(4, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(cb, v));
    CHECK_EQ("callback events count", v[0], 4);
    CHECK_EQ("and never initialize the profiler", fake_profiler_init_calls(), before);
    CHECK_EQ("which stays de-initialized", fake_profiler_up(), 0);
    return ct_done();
}

static int counted_case(void)
{
    setenv("CUPTI_CB_DEVICE_COUNT", "1", 1);
    ct_library_init();
    int n_cb, n_metric, n_quals;
    PAPI_event_info_t first;
    walk(cb_cidx(), &n_cb, &n_metric, &n_quals, &first);
    CHECK_REL("callback events are listed", n_cb, ">", 2000);
    CHECK_EQ("no metric is listed while the count is given", n_metric, 0);
    CHECK_EQ("and the profiler was not asked", fake_profiler_init_calls(), 0);
    unsetenv("CUPTI_CB_DEVICE_COUNT");
    walk(cb_cidx(), &n_cb, &n_metric, &n_quals, &first);
    CHECK_EQ("a later listing lists the metrics", n_metric, GH100_METRICS);
    CHECK_EQ("asking the chip under one initialization", fake_profiler_init_calls(), 1);
    CHECK_EQ("which is undone", fake_profiler_up(), 0);
    return ct_done();
}

static int otherchip_case(void)
{
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    setenv("CUPTI_CB_CHIP", "GA100", 1);
    fake_chip("GH100");
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    capture_stderr_begin();
    int rc = PAPI_start(es);
    capture_stderr_end(err, sizeof err);
    CHECK_TRUE("start refuses a device of another chip", rc != PAPI_OK);
    CHECK_TRUE("the sentence names both chips", strstr(err, "GH100") && strstr(err, "GA100"));
    return ct_done();
}

static int nodevice_case(void)
{
    fake_cuinit_result(CUDA_ERROR_NO_DEVICE);
    ct_library_init();
    int cidx = cb_cidx();
    int n_cb, n_metric, n_quals;
    PAPI_event_info_t first;
    walk(cidx, &n_cb, &n_metric, &n_quals, &first);
    CHECK_REL("every callback event is listed", n_cb, ">", 2000);
    CHECK_EQ("no metric is listed (no chip)", n_metric, 0);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    CHECK_EQ("the listing leaves the component enabled", ci->disabled, 0);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int rc = ct_add(es, "kernel.launches");
    ci = PAPI_get_component_info(cidx);
    CHECK_TRUE("the first add fails", rc != PAPI_OK);
    CHECK_TRUE("and says why", !strncmp(ci->disabled_reason, "No CUDA device", 14));
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        { "listing", listing_case },     { "groups", groups_case },     { "passes", passes_case },
        { "noperm", noperm_case },       { "otherchip", otherchip_case }, { "nodevice", nodevice_case },
        { "profiler", profiler_case },   { "counted", counted_case },
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
