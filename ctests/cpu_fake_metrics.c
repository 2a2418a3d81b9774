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
 *   otherchip - the catalogue is of CUPTI_CB_CHIP's chip, the device is another: the add of a
 *               metric is refused (PAPI_ENOSUPP) with a sentence naming both chips, and the set
 *               keeps counting its callback event.
 *   permadd   - the driver's parameters restrict the counters to administrators and the process
 *               is none: the add of a metric is refused (PAPI_EPERM) with what to change, and
 *               the set keeps counting its callback event.
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
 *   sigread   - a SIGPROF handler at about 1 kHz calls PAPI_read on a set of a metric, a
 *               callback event and a gpu.* event while CUDA calls, activity records and ranges
 *               are played and the program reads too: no hang (a
 *               watchdog ends a hung run), no error, values that never go down, and no call of
 *               CUPTI, the profiler or the driver inside the handler; PAPI_reset and PAPI_stop
 *               there are refused and change nothing; the values at the stop are exact.
 *   hreset    - PAPI_reset and PAPI_stop in a SIGPROF handler on a set of a metric and gpu.*
 *               events: refused, and the gpu.* window is left as it was (the activity source
 *               had reset it before the metric source refused).
 *   vgpu      - CUPTI says the device cannot be profiled (a vGPU without profiling): the add of
 *               a metric is refused (PAPI_ENOSUPP) with the reason, and the set keeps counting
 *               its callback event.
 *   helper    - a thread created with every signal blocked (as cupti_cb_run's are) is not
 *               taken for a signal handler: without cupti_cb_service_thread() its start, reads
 *               and stop sample as usual.
 *   failed    - the range profiler fails after a start (a decode, a stop, a restart):
 *               PAPI_read, PAPI_accum and PAPI_stop return PAPI_ECMP and say why under
 *               PAPI_VERBOSE; PAPI_reset starts a good window again, which then reads exactly.
 *   minmax    - a counter's .max read in the middle: the sum of each piece's maximum.
 *   bigtotal  - after 2^53 bytes, a window of 3 bytes reads 3 (integer totals).
 *   longnames - every GH100 metric with every rollup and submetric it takes, alone, with
 *               :device=0, :process and both (all names near the limit, the shorter ones of
 *               one metric in 64): a name of at most 126 characters resolves and its code names
 *               it back exactly; a longer one is refused (PAPI holds 127, but writes a byte past
 *               its buffer for 127); every listed name and qualifier names back.
 *   contexts  - a metric counts the work of the collecting context only: the context current
 *               at the first start (here not the primary one); work in another context of the
 *               device is not counted.
 */
#include "ctest_util.h"
#include "fake_play.h"
#include "cupti_cb.h"

/* The groups' table itself, as cupti_cb_metric_groups prints it. */
#include "cupti_cb_metric_group_table.c"

#define GH100_METRICS (3389 + 205 + 56)

#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* A working range profiler, a current context on device 0, and a started set of names. */
static int started_set(const char *const *names, unsigned n, CUcontext current)
{
    fake_range_error(CUPTI_SUCCESS);
    fake_set_current(current);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    for (unsigned i = 0; i < n; i++)
        if (ct_add(es, names[i]) != PAPI_OK)
            ct_fatal("add %s", names[i]);
    PAPI_MUST(PAPI_start(es));
    return es;
}

/* GPU work: v added to a metric by a kernel launched in ctx (a read samples only after a driver
 * call: without one no work can have been issued). */
static void work_in(CUcontext ctx, const char *metric, double v)
{
    fake_metric_add_ctx(ctx, metric, v);
    play_launches(1, ctx);
}

static void work(const char *metric, double v)
{
    work_in(FAKE_CTX0, metric, v);
}

static double as_double(long long v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* A Range Profiler metric: PM sampling's (":sampled", cpu_fake_sampling) are not. */
static int is_metric_name(const char *full)
{
    const char *n = strstr(full, ":::");
    n = n ? n + 3 : full;
    return n[0] != '_' && strstr(n, "__") != NULL && strstr(n, ":sampled") == NULL;
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
    for (unsigned g = 0; g < cupti_cb_n_metric_groups; g++) {
        int es = PAPI_NULL, n = 0;
        PAPI_MUST(PAPI_create_eventset(&es));
        for (const char *const *m = cupti_cb_metric_group_table[g].metrics; *m; m++) {
            int rc = ct_add(es, *m);
            ct_result(rc == PAPI_OK, "group %s: %s added (%s)", cupti_cb_metric_group_table[g].name, *m, ct_papi_err(rc));
            n++;
        }
        char what[128];
        snprintf(what, sizeof what, "group %s: the set holds all %d metrics", cupti_cb_metric_group_table[g].name, n);
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
        int rc = CAPTURED(err, ct_add(es, more[i]));
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
    setenv("PAPI_VERBOSE", "1", 1);
    fake_range_error(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    int rc = CAPTURED(err, PAPI_start(es));
    CHECK_EQ("PAPI_start of a metric set without permission -> PAPI_EPERM", rc, PAPI_EPERM);
    CHECK_TRUE("the sentence says what to change", strstr(err, "NVreg_RestrictProfilingToAdminUsers") != NULL);
    CHECK_EQ("callback events keep counting", play_counted_launches(3), 3);
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
    /* Each source of hardware metrics (the Range Profiler's, PM sampling's) builds its own
     * catalogue and asks the chip under its own short hold. */
    CHECK_EQ("the chip's name was asked under cuptiProfilerInitialize, once per source", fake_profiler_init_calls(), 2);
    CHECK_EQ("the listing leaves the profiler de-initialized", fake_profiler_up(), 0);

    /* The Range Profiler refuses (no GPU): the start fails and gives the profiler back. */
    int es = PAPI_NULL, cb = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    CHECK_TRUE("the start of a metric set fails without a GPU", PAPI_start(es) != PAPI_OK);
    CHECK_EQ("the start initialized the profiler", fake_profiler_init_calls(), 3);
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
    CHECK_EQ("asking the chip under one initialization per source", fake_profiler_init_calls(), 2);
    CHECK_EQ("which is undone", fake_profiler_up(), 0);
    return ct_done();
}

/* Known at add: the catalogue is of CUPTI_CB_CHIP's chip, the device is another. */
static int otherchip_case(void)
{
    char err[8192] = "";
    long long v[1];
    setenv("PAPI_VERBOSE", "1", 1);
    setenv("CUPTI_CB_CHIP", "GA100", 1);
    fake_chip("GH100");
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    int rc = CAPTURED(err, ct_add(es, "dram__bytes_read.sum"));
    CHECK_EQ("the add of a metric of another chip than the device's -> PAPI_ENOSUPP", rc, PAPI_ENOSUPP);
    CHECK_TRUE("the sentence names both chips", strstr(err, "GH100") && strstr(err, "GA100"));
    CHECK_EQ("the set keeps its callback event", PAPI_num_events(es), 1);
    CHECK_PAPI(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("which counts", v[0], 2);
    return ct_done();
}

/* Known at add: the driver restricts the counters to administrators, and the process is none (a
 * test run as root drops to uid 65534 first). */
static int permadd_case(void)
{
    char err[8192] = "", params[] = "/tmp/cupti_cb_params_XXXXXX";
    long long v[1];
    int fd = mkstemp(params);
    if (fd < 0 || write(fd, "EnableMSI: 1\nRmProfilingAdminOnly: 1\n", 37) != 37)
        ct_fatal("cannot write %s", params);
    close(fd);
    chmod(params, 0644);
    setenv("CUPTI_CB_NVIDIA_PARAMS", params, 1);
    setenv("PAPI_VERBOSE", "1", 1);
    /* The capture's file is made before root is dropped: nobody may not be
     * able to write the temporary directory (a fresh root's /tmp). */
    capture_stderr_begin();
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        ct_fatal("cannot drop root to check what a user gets");
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    int rc = ct_add(es, "dram__bytes_read.sum");
    capture_stderr_end(err, sizeof err);
    unlink(params);
    CHECK_EQ("the add of a metric without profiling permission -> PAPI_EPERM", rc, PAPI_EPERM);
    CHECK_TRUE("the sentence says what to change", strstr(err, "NVreg_RestrictProfilingToAdminUsers") != NULL);
    CHECK_EQ("the set keeps its callback event", PAPI_num_events(es), 1);
    CHECK_PAPI(PAPI_start(es));
    play_launches(3, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("which counts", v[0], 3);
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

/* A driver launch, and the kernel record CUPTI would deliver for it (60 ns, slot i). */
static void launch_and_record(uint64_t i)
{
    struct fake_call c;
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_SUCCESS, FAKE_CTX0);
    fake_enter(&c);
    fake_exit(&c);
    fake_activity_kernel(c.correlation_id, 100u * i, 100u * i + 60, 0);
}

/* ---- sigread ---------------------------------------------------------------------------- */

static int sig_es = PAPI_NULL;
static volatile long long sig_last, sig_last_launches, sig_last_kernels;
static volatile long sig_reads, sig_errors, sig_back, sig_calls, sig_reset_rc = 1, sig_stop_rc = 1,
                         sig_reset_changed;

static long calls_now(void)
{
    return fake_profiler_calls() + fake_cupti_calls() + fake_cuda_calls();
}

static void on_prof(int sig)
{
    (void)sig;
    long long v[3] = { 0, 0, 0 }, w[3] = { 0, 0, 0 };
    long before = calls_now();
    int rc = PAPI_read(sig_es, v);
    sig_reads++;
    if (rc != PAPI_OK) {
        sig_errors++;
    } else if (v[0] < sig_last || v[1] < sig_last_launches || v[2] < sig_last_kernels) {
        sig_back++;
    } else {
        sig_last = v[0];
        sig_last_launches = v[1];
        sig_last_kernels = v[2];
    }
    if (sig_reads == 50) {
        /* Refused, changing nothing. */
        sig_reset_rc = PAPI_reset(sig_es);
        sig_stop_rc = PAPI_stop(sig_es, w);
        PAPI_read(sig_es, w);
        sig_reset_changed = rc == PAPI_OK && w[0] < v[0];
    }
    sig_calls += calls_now() - before;
}

static void *watchdog(void *arg)
{
    (void)arg;
    sleep(60);
    fprintf(stderr, "not ok - the run hung (60 s): a read in the SIGPROF handler waits\n");
    _exit(1);
}

static int sigread_case(void)
{
    /* The three sources in one set; the flushing thread is off, so that a
     * CUPTI call counted during a handler read is the handler's own. */
    static const char *const names[] = { "dram__bytes_read.sum", "kernel.launches", "gpu.kernels" };
    setenv("CUPTI_CB_FLUSH_MS", "0", 1);
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_t wd;
    pthread_sigmask(SIG_BLOCK, &prof, NULL); /* the watchdog never takes SIGPROF */
    pthread_create(&wd, NULL, watchdog, NULL);
    pthread_detach(wd);
    pthread_sigmask(SIG_UNBLOCK, &prof, NULL);

    sig_es = started_set(names, 3, FAKE_CTX0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof; /* as TAU and Caliper install theirs: no SA_NODEFER */
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
    setitimer(ITIMER_PROF, &it, NULL);

    long long v[3], last = 0, bytes = 0, launches = 0, back = 0, errors = 0;
    for (long i = 0; i < 2000000 && sig_reads < 300; i++) {
        fake_metric_add("dram__bytes_read.sum", 1000);
        bytes += 1000;
        launch_and_record((uint64_t)i);
        launches++;
        if (PAPI_read(sig_es, v) != PAPI_OK)
            errors++;
        else if (v[0] < last)
            back++;
        else
            last = v[0];
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    signal(SIGPROF, SIG_IGN);
    ct_note("%ld reads in the handler, %lld ranges played", sig_reads, launches);
    CHECK_REL("reads in the SIGPROF handler", sig_reads, ">=", 100);
    CHECK_EQ("handler reads that failed", sig_errors, 0);
    CHECK_EQ("handler reads whose value went down", sig_back, 0);
    CHECK_REL("handler reads saw the bytes grow", sig_last, ">", 0);
    CHECK_EQ("CUPTI, profiler or driver calls made by handler reads", sig_calls, 0);
    CHECK_TRUE("PAPI_reset in the handler is refused", sig_reset_rc != PAPI_OK && sig_reset_rc != 1);
    CHECK_TRUE("PAPI_stop in the handler is refused", sig_stop_rc != PAPI_OK && sig_stop_rc != 1);
    CHECK_EQ("and the values stayed", sig_reset_changed, 0);
    CHECK_EQ("program reads that failed", errors, 0);
    CHECK_EQ("program reads whose value went down", back, 0);
    CHECK_PAPI(PAPI_stop(sig_es, v));
    CHECK_EQ("dram__bytes_read.sum at the stop: every byte played", v[0], bytes);
    CHECK_EQ("kernel.launches at the stop", v[1], launches);
    CHECK_EQ("gpu.kernels at the stop (its flush)", v[2], launches);
    return ct_done();
}

static int hreset_rc = 1, hstop_rc = 1;

static void reset_in_handler(int sig)
{
    (void)sig;
    long long w[2];
    hreset_rc = PAPI_reset(sig_es);
    hstop_rc = PAPI_stop(sig_es, w);
}

static int hreset_case(void)
{
    static const char *const names[] = { "dram__bytes_read.sum", "gpu.kernels" };
    long long v[2];
    sig_es = started_set(names, 2, FAKE_CTX0);
    for (int i = 0; i < 5; i++) {
        launch_and_record((uint64_t)i);
    }
    fake_metric_add("dram__bytes_read.sum", 700);
    CHECK_PAPI(PAPI_read(sig_es, v));
    CHECK_EQ("gpu.kernels before", v[1], 5);
    signal(SIGPROF, reset_in_handler);
    raise(SIGPROF);
    signal(SIGPROF, SIG_IGN);
    CHECK_TRUE("PAPI_reset in the handler is refused", hreset_rc != PAPI_OK && hreset_rc != 1);
    CHECK_TRUE("PAPI_stop in the handler is refused", hstop_rc != PAPI_OK && hstop_rc != 1);
    CHECK_PAPI(PAPI_stop(sig_es, v));
    CHECK_EQ("the metric: the refused reset changed nothing", v[0], 700);
    CHECK_EQ("gpu.kernels: the refused reset changed nothing", v[1], 5);
    return ct_done();
}

static int vgpu_case(void)
{
    char err[8192] = "";
    long long v[1];
    setenv("PAPI_VERBOSE", "1", 1);
    fake_device_vgpu_unsupported(1);
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    int rc = CAPTURED(err, ct_add(es, "dram__bytes_read.sum"));
    CHECK_EQ("the add of a metric of a device that cannot be profiled -> PAPI_ENOSUPP", rc, PAPI_ENOSUPP);
    CHECK_TRUE("the sentence says why (vGPU)", strstr(err, "vGPU") != NULL);
    CHECK_EQ("the set keeps its callback event", PAPI_num_events(es), 1);
    CHECK_PAPI(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("which counts", v[0], 2);
    return ct_done();
}

/* ---- helper ----------------------------------------------------------------------------- */

static long long helper_v[3];
static int helper_rc[3];

static void *helper_thread(void *arg)
{
    (void)arg;
    int es = PAPI_NULL;
    long long v[1];
    fake_set_current(FAKE_CTX0);
    PAPI_create_eventset(&es);
    ct_add(es, "dram__bytes_read.sum");
    helper_rc[0] = PAPI_start(es);
    work("dram__bytes_read.sum", 300);
    helper_rc[1] = PAPI_read(es, v);
    helper_v[0] = v[0];
    work("dram__bytes_read.sum", 20);
    helper_rc[2] = PAPI_stop(es, v);
    helper_v[1] = v[0];
    return NULL;
}

static int helper_case(void)
{
    fake_range_error(CUPTI_SUCCESS);
    ct_library_init();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_create(&t, NULL, helper_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_join(t, NULL);
    CHECK_EQ("PAPI_start in a thread that blocks every signal (its own, not a handler's)", helper_rc[0], PAPI_OK);
    CHECK_EQ("PAPI_read there", helper_rc[1], PAPI_OK);
    CHECK_EQ("samples: the bytes so far", helper_v[0], 300);
    CHECK_EQ("PAPI_stop there", helper_rc[2], PAPI_OK);
    CHECK_EQ("samples: every byte", helper_v[1], 320);
    return ct_done();
}

/* ---- failed ----------------------------------------------------------------------------- */

static int failed_case(void)
{
    static const char *const names[] = { "dram__bytes_read.sum", "kernel.launches" };
    char err[8192] = "";
    long long v[2] = { -1, -1 }, acc[2] = { 0, 0 };
    setenv("PAPI_VERBOSE", "1", 1);
    int es = started_set(names, 2, FAKE_CTX0);

    work("dram__bytes_read.sum", 100);
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_EQ("a good read", v[0], 100);

    /* The decode of the next sample fails: what the range held (50) is lost. */
    work("dram__bytes_read.sum", 50);
    fake_range_fault("cuptiRangeProfilerDecodeData", 1, CUPTI_ERROR_UNKNOWN);
    int rc = CAPTURED(err, PAPI_read(es, v));
    CHECK_EQ("PAPI_read after a failed decode -> PAPI_ECMP", rc, PAPI_ECMP);
    ct_note("its sentence: %s", err);
    CHECK_TRUE("the sentence names the failed call", strstr(err, "cuptiRangeProfilerDecodeData") != NULL);
    work("dram__bytes_read.sum", 10);
    CHECK_EQ("a later read of the same window fails too", PAPI_read(es, v), PAPI_ECMP);
    CHECK_EQ("PAPI_accum fails too", PAPI_accum(es, acc), PAPI_ECMP);
    CHECK_EQ("PAPI_stop fails too", PAPI_stop(es, v), PAPI_ECMP);

    /* A reset starts a good window: collection runs again. */
    CHECK_PAPI(PAPI_reset(es));
    work("dram__bytes_read.sum", 500);
    play_launches(2, FAKE_CTX0);
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_EQ("after the reset the window reads exactly", v[0], 500);
    CHECK_EQ("and the callback event with it (the work's launch and 2 more)", v[1], 3);

    /* A failed stop of the range profiler. */
    work("dram__bytes_read.sum", 7);
    fake_range_fault("cuptiRangeProfilerStop", 1, CUPTI_ERROR_UNKNOWN);
    rc = CAPTURED(err, PAPI_stop(es, v));
    CHECK_EQ("PAPI_stop after a failed range stop -> PAPI_ECMP", rc, PAPI_ECMP);
    CHECK_TRUE("the sentence names it", strstr(err, "cuptiRangeProfilerStop") != NULL);

    /* The restart fails, and so does the retry: no range runs, so the reset itself fails; the
     * next one works. */
    fake_range_fault("cuptiRangeProfilerStart", 2, CUPTI_ERROR_UNKNOWN);
    CHECK_EQ("PAPI_reset while no range can start -> PAPI_ECMP", PAPI_reset(es), PAPI_ECMP);
    CHECK_EQ("the window is not good", PAPI_read(es, v), PAPI_ECMP);
    CHECK_PAPI(PAPI_reset(es));
    work("dram__bytes_read.sum", 9);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("a good window after the failures stops exactly", v[0], 9);
    return ct_done();
}

/* ---- minmax, bigtotal, contexts --------------------------------------------------------- */

static int minmax_case(void)
{
    static const char *const names[] = { "dram__bytes_read.max", "dram__bytes_read.min" };
    long long v[2];
    int es = started_set(names, 2, FAKE_CTX0);
    work("dram__bytes_read.max", 10);
    work("dram__bytes_read.min", 4);
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_TRUE("one piece: .max as CUPTI gives it", as_double(v[0]) == 10);
    work("dram__bytes_read.max", 30);
    work("dram__bytes_read.min", 2);
    CHECK_PAPI(PAPI_stop(es, v));
    ct_note(".max of pieces 10 and 30: %g; .min of 4 and 2: %g", as_double(v[0]), as_double(v[1]));
    CHECK_TRUE(".max over two pieces is the sum of their maxima (40)", as_double(v[0]) == 40);
    CHECK_TRUE(".min over two pieces is the sum of their minima (6)", as_double(v[1]) == 6);
    return ct_done();
}

static int bigtotal_case(void)
{
    static const char *const names[] = { "dram__bytes_read.sum" };
    long long v[1];
    int es = started_set(names, 1, FAKE_CTX0);
    work("dram__bytes_read.sum", 9007199254740992.0); /* 2^53 */
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_EQ("2^53 bytes", v[0], 9007199254740992LL);
    CHECK_PAPI(PAPI_reset(es));
    work("dram__bytes_read.sum", 3);
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_EQ("then a window of 3 bytes reads 3", v[0], 3);
    work("dram__bytes_read.sum", 1);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("and one more byte 4", v[0], 4);
    return ct_done();
}

static int contexts_case(void)
{
    static const char *const names[] = { "dram__bytes_read.sum" };
    long long v[1];
    /* The thread's current context is a second context of device 0, the primary one is active
     * too: the current one collects, the primary one waits. */
    int es = started_set(names, 1, FAKE_CTX0B);
    work_in(FAKE_CTX0B, "dram__bytes_read.sum", 7);
    work_in(FAKE_CTX0, "dram__bytes_read.sum", 100);
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_EQ("a read counts the collecting context's work only", v[0], 7);
    work_in(FAKE_CTX0B, "dram__bytes_read.sum", 3);
    work_in(FAKE_CTX0, "dram__bytes_read.sum", 100);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("so does the stop", v[0], 10);
    return ct_done();
}

/* ---- longnames ------------------------------------------------------------------------- */

/* The suffixes a metric takes, from its description: "[ratio; default .pct; takes .max_rate .pct
 * .ratio]", or heads times tails, "[counter; default .sum; takes .avg .max .min .sum, each alone
 * or followed by .peak_sustained ...]" ("each followed by": no head alone).  0 when the
 * description does not end in the whole list (cut: it never is). */
static int suffixes_of(const char *descr, char out[][64], int max)
{
    const char *t = strstr(descr, "; takes "), *end = strrchr(descr, ']');
    char heads[64][64], tails[64][64];
    int nh = 0, nt = 0, n = 0, *count = &nh;
    if (!t || !end || end[1])
        return 0;
    for (t += 8; t < end;) {
        if (!strncmp(t, ", each alone or followed by ", 28)) {
            snprintf(tails[nt++], 64, "%s", "");
            t += 28, count = &nt;
        } else if (!strncmp(t, ", each followed by ", 19)) {
            t += 19, count = &nt;
        }
        int k = (int)strcspn(t, " ,]");
        if (k > 0 && k < 64 && *count < 64)
            snprintf((count == &nh ? heads : tails)[(*count)++], 64, "%.*s", k, t);
        t += k;
        t += *t == ' ';
    }
    if (!nt)
        snprintf(tails[nt++], 64, "%s", "");
    for (int h = 0; h < nh; h++)
        for (int i = 0; i < nt && n < max; i++)
            if (strlen(heads[h]) + strlen(tails[i]) < 64) {
                size_t lh = strlen(heads[h]);
                memcpy(out[n], heads[h], lh);
                memcpy(out[n] + lh, tails[i], strlen(tails[i]) + 1);
                n++;
            }
    return n;
}

#define NEAR 110 /* characters: a name this long or longer is near PAPI's limit */

static int longnames_case(void)
{
    static const char *const quals[] = { "", ":device=0", ":process", ":device=0:process" };
    ct_library_init();
    int cidx = cb_cidx(), code = PAPI_NATIVE_MASK;
    long tried = 0, fit = 0, accepted_long = 0, refused_short = 0, no_round_trip = 0, listed_bad = 0;
    long refused = 0, longest = 0, near = 0, metric = 0, unparsed = 0;
    size_t longest_descr = 0;
    char shown[3][400] = { "", "", "" };
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        return ct_result(0, "nothing listed"), ct_done();
    do {
        PAPI_event_info_t info;
        char name[PAPI_MAX_STR_LEN];
        if (PAPI_event_code_to_name(code, name) != PAPI_OK && listed_bad++ == 0)
            snprintf(shown[2], sizeof shown[2], "listed code %#x has no name", code);
        if (PAPI_get_event_info(code, &info) != PAPI_OK || !is_metric_name(info.symbol))
            continue;
        int q = code;
        if (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK)
            do
                if (PAPI_event_code_to_name(q, name) != PAPI_OK && listed_bad++ == 0)
                    snprintf(shown[2], sizeof shown[2], "a qualifier of %.300s has no name", info.symbol);
            while (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
        char suf[64][64];
        int ns = suffixes_of(info.long_descr, suf, 64);
        metric++;
        if (ns == 0 && unparsed++ == 0)
            snprintf(shown[2], sizeof shown[2], "%.100s: no whole list of suffixes in \"%.250s\"", info.symbol,
                     info.long_descr);
        if (strlen(info.long_descr) > longest_descr)
            longest_descr = strlen(info.long_descr);
        for (int i = 0; i < ns; i++)
            for (unsigned k = 0; k < sizeof quals / sizeof quals[0]; k++) {
                char full[400], back[PAPI_MAX_STR_LEN] = "";
                int c = 0, c2 = 0;
                snprintf(full, sizeof full, "%.300s%.63s%s", info.symbol, suf[i], quals[k]);
                long len = (long)strlen(full);
                /* 127 characters would fit, but PAPI 7.0 writes one byte past the buffer then. */
                int fits = len <= PAPI_MAX_STR_LEN - 2;
                /* Every name near the limit, and the names of one metric in 64 below it: each
                 * lookup adds to PAPI's table of names, which PAPI searches linearly (all
                 * 600,716 took 7 minutes). */
                if (len < NEAR && metric % 64)
                    continue;
                near += len >= NEAR;
                tried++;
                fit += fits;
                if (len > longest)
                    longest = len;
                if (PAPI_event_name_to_code(full, &c) != PAPI_OK) {
                    refused++;
                    if (fits && refused_short++ == 0)
                        snprintf(shown[0], sizeof shown[0], "%s", full);
                    continue;
                }
                if (!fits && accepted_long++ == 0)
                    snprintf(shown[1], sizeof shown[1], "%s (%ld characters)", full, len);
                char again[PAPI_MAX_STR_LEN] = "";
                if (PAPI_event_code_to_name(c, back) != PAPI_OK || strcmp(back, full) ||
                    PAPI_event_name_to_code(back, &c2) != PAPI_OK || PAPI_event_code_to_name(c2, again) != PAPI_OK ||
                    strcmp(again, full)) {
                    if (no_round_trip++ == 0 && !shown[1][0])
                        snprintf(shown[1], sizeof shown[1], "%.127s -> %.127s -> %.127s", full, back, again);
                }
            }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    ct_note("%ld names tried (%ld of at least %d characters; longest %ld), %ld of at most 126 characters, %ld "
            "refused", tried, near, NEAR, longest, fit, refused);
    if (shown[0][0] || shown[1][0] || shown[2][0])
        ct_note("first failures: refused '%s'; accepted or not round-tripping '%s'; listing '%s'", shown[0],
                shown[1], shown[2]);
    CHECK_REL("names of every GH100 metric tried", metric, ">=", GH100_METRICS);
    CHECK_REL("names near the limit tried: every rollup and submetric of every metric, with the qualifiers", near,
              ">", 10000);
    CHECK_REL("some are longer than PAPI holds", tried - fit, ">", 0);
    CHECK_EQ("names of at most 126 characters refused", refused_short, 0);
    CHECK_EQ("longer names accepted", accepted_long, 0);
    CHECK_EQ("accepted names that do not round-trip", no_round_trip, 0);
    CHECK_EQ("listed names and qualifiers that have no name", listed_bad, 0);
    CHECK_EQ("metrics whose description does not end in the whole list of their suffixes", unparsed, 0);
    /* papi_native_avail (PAPI 7.0) folds a description into lines of 80 bytes for 66 of it, with a
     * line for the name and one for the units, into a buffer it grows 1,024 bytes at a time: ten
     * lines of description at most (660 bytes) or it overruns the buffer. */
    CHECK_REL("the longest metric description fits papi_native_avail's buffer (bytes)", (long)longest_descr, "<=",
              660);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        { "listing", listing_case },     { "groups", groups_case },     { "passes", passes_case },
        { "noperm", noperm_case },       { "otherchip", otherchip_case }, { "nodevice", nodevice_case },
        { "profiler", profiler_case },   { "counted", counted_case },     { "sigread", sigread_case },
        { "hreset", hreset_case },
        { "failed", failed_case },       { "minmax", minmax_case },       { "bigtotal", bigtotal_case },
        { "contexts", contexts_case },   { "longnames", longnames_case }, { "permadd", permadd_case },
        { "helper", helper_case },       { "vgpu", vgpu_case },
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
