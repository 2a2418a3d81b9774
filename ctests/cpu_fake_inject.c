/*
 * cpu_fake_inject: libcupti_cb_inject.so (the library cupti_cb_run has the CUDA driver load)
 * through the fakes.  The fake libcuda does what the driver does with CUDA_INJECTION64_PATH:
 * at the first cuInit it dlopen()s the library and calls InitializeInjection.  This program
 * runs itself as the "application" (app-* arguments: known CUDA calls played through
 * fake_play.h) with the built library and a fresh CUPTI_CB_RUN_DIR, then checks the process
 * file with exact values:
 *
 *   basic     calls per function, totals, bytes by direction, launches, allocations, GPU
 *             activity records; a fork() child writes no file; exit() called by a thread that
 *             is not the one that ran InitializeInjection; rank from PMI_RANK before SLURM_PROCID
 *   disabled  another CUPTI subscriber: status.counting false, reason = the component's
 *             sentence, nothing counted, the application's exit status (7) unchanged
 *   fallback  CUPTI_CB_RUN_MAX_EVENTS leaves room for two functions and part of a third:
 *             exactly two functions have rows, and the note says so
 *   papi      the application uses cupti_cb through PAPI itself, on the thread that ran
 *             InitializeInjection: its own set starts (the library's sets belong to its own
 *             threads) and both count
 *   papifirst the application adds a cupti_cb event before any CUDA call, so the first cuInit is
 *             cupti_cb's, made inside the application's PAPI call: no deadlock, the
 *             application's set counts, and the file says the set-up was deferred
 *   count     CUPTI_CB_DEVICE_COUNT given (as the library gives it on a GPU machine, from NVML):
 *             cupti_cb calls no cuInit of its own inside the program's, and counts 2 devices
 *   live      CUPTI_CB_RUN_INTERVAL_MS: the live view prints the program's counts on stderr
 *   levels    timed calls on a frozen clock, allocations and frees: the file's min_ns, max_ns
 *             and alloc.peak_bytes are the shortest and longest call and the highest live bytes
 *             of the whole run (the library never resets its sets: it reads the levels)
 *   metrics   CUPTI_CB_RUN_METRICS with a working (fake) Range Profiler: the metrics start on
 *             the library's thread after the program's first CUDA call after cuInit; what the
 *             GPU "did" after that (fake_metric_add) is in "metrics" with exact values, names,
 *             devices, units, an integer for a counter's .sum and a real for a ratio; an
 *             unknown name and a metric that needs more than one pass are left out with their
 *             notes; the callback counts are exact
 *   metriclate as on a GPU machine: NVML gives the device count (the fake libcuda named
 *             libnvidia-ml.so.1), and the profiler cannot be initialized inside the first cuInit
 *             (as on an H100), where the library's set-up lists the events: cupti_cb does not
 *             ask it there, and the metrics are still collected once cuInit returned, with the
 *             exact values
 *   metricperm CUPTI refuses profiling (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): "metrics" is [],
 *             a note says what to change, the callback counts are exact
 *   metricbusy another profiler holds the range profiler (CUPTI_ERROR_INVALID_OPERATION at its
 *             enable): "metrics" is [], a note says so, the callback counts are exact
 *   metricnochip no metric catalogue (CUPTI_CB_CHIP names no chip CUPTI knows): one note says
 *             that no metric is offered, the callback counts are exact
 *   metricwait the program issues no GPU work within CUPTI_CB_RUN_METRICS_WAIT_MS after cuInit:
 *             the note says the metrics were not collected, the rest counts
 *   crash, exit (for tests/runner/run_e2e.sh) the calls of basic, then SIGSEGV or _exit(3)
 *   threads   three named threads and the main thread make known calls (two threads exit
 *             before the program, one is still alive, one issues GPU work): the file's "threads"
 *             has one row each, found by name (the main one by its tid, the pid), with exact
 *             api.calls, kernel.launches, memcpy.bytes, gpu.kernels, the exited flags, no
 *             sharing, and api.calls adding up to the process total; a name byte that is not
 *             printable ASCII is written '?'
 */
#include "ctest_util.h"
#include "fake_play.h"
#include "inject_check.h"

#include <signal.h>
#include <sys/resource.h>

#ifndef INJ_LIB
#error "INJ_LIB: the path of the built libcupti_cb_inject.so"
#endif

/* ------------------------------------------------------------------ the application */

static void *exit_from_thread(void *arg)
{
    (void)arg;
    exit(0);
}

/* The calls every application below makes (after_first: called after the first of them). */
static void app_calls_then(void (*after_first)(void))
{
    play_get_device(4);
    CUdeviceptr a = play_malloc(1 << 20, 0);
    if (after_first)	/* after the first GPU work, where the metrics start */
        after_first();
    CUdeviceptr b = play_malloc(1 << 20, 1 << 20);
    for (int i = 0; i < 3; i++)
        play_htod(1000, 0);
    play_dtoh(500, 0);
    play_memset(256, 0);
    play_launches(5, FAKE_CTX0);
    play_driver_launches(2, FAKE_CTX0);
    play_sync();
    play_free(a);
    play_free(b);
}

static void app_calls(void)
{
    app_calls_then(NULL);
}

static int app_basic(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    app_calls();
    fake_activity_kernel(1, 100, 350, 0);
    fake_activity_kernel(2, 400, 500, 0);
    fake_activity_memcpy(3, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1000, 600, 700, 0);
    /* A fork() child inherits the exit handler: it must write nothing. */
    pid_t c = fork();
    if (c == 0)
        exit(0);
    waitpid(c, NULL, 0);
    /* exit() from a thread that never touched CUDA or PAPI. */
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, NULL);
    pthread_join(t, NULL);
    return 99;
}

static int app_disabled(void)
{
    fake_other_subscriber("CUPTI for probe");
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    play_launches(3, FAKE_CTX0);
    return 7;
}

static int app_papi(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return 20;
    int es = PAPI_NULL;
    long long v = -1;
    if (PAPI_create_eventset(&es) != PAPI_OK || PAPI_add_named_event(es, "cupti_cb:::kernel.launches") != PAPI_OK)
        return 21;
    int rc = PAPI_start(es);
    if (rc != PAPI_OK) {
        printf("# the application's PAPI_start: %s\n", ct_papi_err(rc));
        return 22;
    }
    play_launches(3, FAKE_CTX0);
    if (PAPI_stop(es, &v) != PAPI_OK)
        return 23;
    printf("# the application's own kernel.launches: %lld\n", v);
    return v == 3 ? 0 : 24;
}

static int app_papifirst(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return 20;
    int es = PAPI_NULL;
    long long v = -1;
    if (PAPI_create_eventset(&es) != PAPI_OK)
        return 21;
    int rc = PAPI_add_named_event(es, "cupti_cb:::kernel.launches");	/* cuInit, the injection */
    if (rc != PAPI_OK) {
        printf("# the application's add: %s\n", ct_papi_err(rc));
        return 22;
    }
    if (fake_cuinit_calls() < 1)
        return 23;
    rc = PAPI_start(es);
    if (rc != PAPI_OK) {
        printf("# the application's PAPI_start: %s\n", ct_papi_err(rc));
        return 24;
    }
    play_launches(3, FAKE_CTX0);
    if (PAPI_stop(es, &v) != PAPI_OK)
        return 25;
    printf("# the application's own kernel.launches: %lld\n", v);
    return v == 3 ? 0 : 26;
}

/* cudaGetDevice calls of 300, 100 and 700 ns on a frozen clock; 1000 and 3000 bytes allocated,
 * both freed, then 500: the shortest call 100, the longest 700, the peak 4000 bytes. */
static int app_levels(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    /* Frozen only for the calls: the library's own waits need the clock to run. */
    fake_time_freeze(1000000000ull);
    static const uint64_t ns[] = {300, 100, 700};
    for (int i = 0; i < 3; i++)
        fake_call_timed(FAKE_RT, RCB(cudaGetDevice_v3020), NULL, 0, FAKE_CTX0, ns[i]);
    fake_time_freeze(0);
    CUdeviceptr a = play_malloc(1000, 0x1000);
    CUdeviceptr b = play_malloc(3000, 0x2000);
    play_free(b);
    play_free(a);
    play_malloc(500, 0x3000);
    return 0;
}

static int app_count(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    if (fake_cuinit_calls() != 1)
        return 30;	/* a nested cuInit */
    play_htod(1000, 1);
    return 0;
}

static int app_live(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    app_calls();
    struct timespec ts = {0, 400 * 1000 * 1000};	/* 20 intervals */
    nanosleep(&ts, NULL);
    return 0;
}

/* The program makes its calls, lives 200 ms (ten ticks of a 20 ms --interval), and ends
 * without running its exit handlers: killed by SIGSEGV (app-crash, no core file), or _exit(3)
 * (app-exit).  For cupti_cb_run's tests (tests/runner/run_e2e.sh). */
static int app_unfinished(int crash)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    app_calls();
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (crash) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    _exit(3);
}

/* What the GPU does in app-metrics while the metrics count. */
#define METRIC_BYTES 4096.0
#define METRIC_HIT_PCT 87.5

/* The library's thread saw the first call and starts the metrics: the range profiler starts
 * once on the primary context, and again after the baseline sample of PAPI_start (2 starts).
 * Work the GPU does before that is not counted, so the application waits for it. */
static void wait_metrics_then_work(void)
{
    for (int i = 0; i < 5000 && fake_range_starts() < 2; i++) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    printf("# range profiler starts before the work: %d\n", fake_range_starts());
    fake_metric_add("dram__bytes_read.sum", METRIC_BYTES);
    fake_metric_add("lts__t_request_hit_rate.pct", METRIC_HIT_PCT);
}

static void *app_thread_a(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "inj-a");
    play_launches(2, FAKE_CTX0);
    play_htod(1000, 0);
    play_sync();
    return NULL;
}

/* 3 launches through the driver, each with its kernel's record (100 ns). */
static void *app_thread_b(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "inj-b");
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 3; i++) {
        struct fake_call c;
        fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_SUCCESS, FAKE_CTX0);
        fake_enter(&c);
        fake_exit(&c);
        fake_activity_kernel(c.correlation_id, 1000u * (uint64_t)(i + 1), 1000u * (uint64_t)(i + 1) + 100, 0);
    }
    return NULL;
}

static pthread_barrier_t app_c_played;
static void *app_thread_c(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "inj-c\xe9"); /* not UTF-8: written as "inj-c?" */
    play_get_device(7);
    pthread_barrier_wait(&app_c_played);
    for (;;)
        pause(); /* alive when the program exits */
    return NULL;
}

static int app_threads(void)
{
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    pthread_t a, b, c;
    pthread_create(&a, NULL, app_thread_a, NULL);
    pthread_join(a, NULL);
    pthread_create(&b, NULL, app_thread_b, NULL);
    pthread_join(b, NULL);
    pthread_barrier_init(&app_c_played, NULL, 2);
    pthread_create(&c, NULL, app_thread_c, NULL);
    pthread_barrier_wait(&app_c_played);
    play_get_device(4);
    return 0;
}

static int app_metrics(void)
{
    const char *perm = getenv("APP_NOPERM"), *early = getenv("APP_PROFILER_LATE");
    const char *other = getenv("APP_OTHER_PROFILER");
    if (other && *other)
        perm = "1";	/* refused like the missing permission, with another error */
    fake_range_error(other && *other ? CUPTI_ERROR_INVALID_OPERATION
                     : perm && *perm ? CUPTI_ERROR_INSUFFICIENT_PRIVILEGES : CUPTI_SUCCESS);
    fake_profiler_refuse_in_cuinit(early && *early);
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    /* the rest of the calls (with driver calls) come after the work, as a GPU's work is issued */
    app_calls_then(perm && *perm ? NULL : wait_metrics_then_work);
    /* the profiler was not asked inside cuInit (where it cannot work on a GPU) */
    if (early && *early && fake_profiler_refused_in_cuinit() != 0)
        return 40;
    /* without permission: exit after the library's thread tried to start the metrics */
    for (int i = 0; perm && *perm && i < 5000 && fake_range_enable_calls() < 1; i++) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static int app_metricwait(void)
{
    fake_range_error(CUPTI_SUCCESS);
    if (cuInit(0) != CUDA_SUCCESS)
        return 10;
    struct timespec ts = {0, 200 * 1000 * 1000};	/* 100 waits of 2 ms */
    nanosleep(&ts, NULL);
    app_calls();
    return 0;
}

/* ------------------------------------------------------------------ the checks */

static char self[PATH_MAX];

static void run_app(struct inj_run *r, const char *app, const char *const *env)
{
    char *argv[] = {self, (char *)app, NULL};
    ct_note("--- %s", app);
    inj_run(r, INJ_LIB, argv, env);
}

/* The values app_calls() gives, in the file. */
static void check_calls(json_t *doc, int with_time)
{
    static const struct { const char *func; long long calls; } rows[] = {
        {"cudaMalloc", 2}, {"cudaMemcpy", 4}, {"cudaMemset", 1}, {"cudaLaunchKernel", 5},
        {"cudaDeviceSynchronize", 1}, {"cudaFree", 2}, {"cudaGetDevice", 4}, {"cuLaunchKernel", 7},
        {"cuMemAlloc", 2}, {"cuMemcpyHtoD", 3}, {"cuMemcpyDtoH", 1}, {"cuMemsetD8", 1},
        {"cuCtxSynchronize", 1}, {"cuCtxGetCurrent", 1}, {"cuMemFree", 2},
    };
    char label[200];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(label, sizeof label, "api %s.calls", rows[i].func);
        CHECK_EQ(label, inj_api(doc, rows[i].func, "calls"), rows[i].calls);
        if (with_time) {
            snprintf(label, sizeof label, "api %s.time_ns is there", rows[i].func);
            CHECK_TRUE(label, inj_api(doc, rows[i].func, "time_ns") >= 0);
        }
    }
    CHECK_EQ("api rows (functions with calls > 0)", json_array_size(json_object_get(doc, "api")),
             sizeof rows / sizeof rows[0]);
    CHECK_TRUE("cudaMemcpy's layer is runtime",
               !strcmp(json_string_value(json_object_get(inj_api_row(doc, "cudaMemcpy"), "layer")) ?: "", "runtime"));
    CHECK_TRUE("cuLaunchKernel's layer is driver",
               !strcmp(json_string_value(json_object_get(inj_api_row(doc, "cuLaunchKernel"), "layer")) ?: "", "driver"));
    /* 19 runtime calls, and the 2 driver launches made outside a runtime call */
    CHECK_EQ("totals api.calls", inj_total(doc, "api.calls"), 21);
    static const struct { const char *event; long long want; } dev[] = {
        {"kernel.launches", 7}, {"graph.launches", 0}, {"memcpy.calls", 4}, {"memcpy.bytes_htod", 3000},
        {"memcpy.bytes_dtoh", 500}, {"memcpy.bytes_dtod", 0}, {"memcpy.bytes_htoh", 0},
        {"memcpy.bytes_peer", 0}, {"memset.calls", 1}, {"memset.bytes", 256}, {"alloc.calls", 2},
        {"alloc.bytes", 2 << 20}, {"free.calls", 2}, {"free.bytes", 2 << 20}, {"sync.calls", 1},
    };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        snprintf(label, sizeof label, "device 0 %s", dev[i].event);
        CHECK_EQ(label, inj_dev(doc, 0, dev[i].event), dev[i].want);
    }
    CHECK_EQ("devices: the fake's one device", json_array_size(json_object_get(doc, "devices")), 1);
}

static void check_basic(void)
{
    struct inj_run r;
    static const char *const env[] = {"PMI_RANK=5", "SLURM_PROCID=9", "OMPI_COMM_WORLD_RANK=", NULL};
    run_app(&r, "app-basic", env);
    CHECK_EQ("app-basic: exit status (exit(0) from another thread)", r.status, 0);
    inj_check_frame(&r, self);
    json_t *doc = r.doc;
    CHECK_TRUE("status.counting is true", inj_counting(doc));
    CHECK_TRUE("status.reason is null", json_is_null(json_object_get(json_object_get(doc, "status"), "reason")));
    CHECK_EQ("process.rank (PMI_RANK before SLURM_PROCID)",
             inj_int(json_object_get(json_object_get(doc, "process"), "rank")), 5);
    check_calls(doc, 1);
    /* the activity records the application played (process scope: every record) */
    CHECK_EQ("device 0 gpu.kernels", inj_dev(doc, 0, "gpu.kernels"), 2);
    CHECK_EQ("device 0 gpu.kernel_time_ns", inj_dev(doc, 0, "gpu.kernel_time_ns"), 350);
    CHECK_EQ("device 0 gpu.memcpy.count", inj_dev(doc, 0, "gpu.memcpy.count"), 1);
    CHECK_EQ("device 0 gpu.memcpy.bytes_htod", inj_dev(doc, 0, "gpu.memcpy.bytes_htod"), 1000);
    CHECK_EQ("device 0 gpu.busy_ns (union of the records)", inj_dev(doc, 0, "gpu.busy_ns"), 450);
    CHECK_EQ("metrics is []", json_array_size(json_object_get(doc, "metrics")), 0);

    /* Every CUDA function of the catalogue has its five events (in several event sets of the
     * library's threads): no note says that some were left out. */
    const char *note = inj_note(doc, "per-function counts for ");
    ct_result(note == NULL, "no note of functions left out: %s", note ? note : "(none)");
    CHECK_EQ("fields of the cudaMemcpy row (function, layer, 5 counts)",
             json_object_size(inj_api_row(doc, "cudaMemcpy")), 7);
    inj_done(&r);
}

static void check_disabled(void)
{
    struct inj_run r;
    run_app(&r, "app-disabled", NULL);
    CHECK_EQ("app-disabled: the application's exit status is unchanged", r.status, 7);
    inj_check_frame(&r, self);
    const char *want = "Another CUPTI subscriber is active: 'CUPTI for probe'";
    const char *reason = inj_reason(r.doc);
    CHECK_TRUE("status.counting is false", !inj_counting(r.doc));
    ct_result(reason && !strncmp(reason, want, strlen(want)), "status.reason begins \"%s\": \"%s\"", want,
              reason ? reason : "(null)");
    CHECK_EQ("totals is {}", json_object_size(json_object_get(r.doc, "totals")), 0);
    CHECK_EQ("api is []", json_array_size(json_object_get(r.doc, "api")), 0);
    CHECK_EQ("devices is []", json_array_size(json_object_get(r.doc, "devices")), 0);
    inj_done(&r);
}

/* Two functions and all but one event of a third fit: the first two of the priority list
 * (cudaLaunchKernel, cudaMemcpy) get rows, nothing else does. */
static void check_fallback(void)
{
    struct inj_run r;
    run_app(&r, "app-basic", NULL);	/* learns the core and per-function event counts */
    long core = (long)json_object_size(json_object_get(r.doc, "totals")) +
                (long)json_object_size(inj_dev_events(r.doc, 0));
    long fields = (long)json_object_size(inj_api_row(r.doc, "cudaMemcpy")) - 2;
    inj_done(&r);
    char cap[64];
    snprintf(cap, sizeof cap, "CUPTI_CB_RUN_MAX_EVENTS=%ld", core + 3 * fields - 1);
    const char *env[] = {cap, NULL};
    ct_note("%s", cap);
    run_app(&r, "app-basic", env);
    CHECK_EQ("app-basic under the cap: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    CHECK_EQ("api rows", json_array_size(json_object_get(r.doc, "api")), 2);
    CHECK_EQ("api cudaLaunchKernel.calls", inj_api(r.doc, "cudaLaunchKernel", "calls"), 5);
    CHECK_EQ("api cudaMemcpy.calls", inj_api(r.doc, "cudaMemcpy", "calls"), 4);
    CHECK_EQ("totals api.calls", inj_total(r.doc, "api.calls"), 21);
    CHECK_EQ("device 0 memcpy.bytes_htod", inj_dev(r.doc, 0, "memcpy.bytes_htod"), 3000);
    const char *note = inj_note(r.doc, "per-function counts for 2 of ");
    ct_result(note != NULL, "a note says \"per-function counts for 2 of ...\": %s", note ? note : "(none)");
    CHECK_TRUE("... and names the cap", note && strstr(note, cap));
    inj_done(&r);
}

static void check_papi(void)
{
    struct inj_run r;
    run_app(&r, "app-papi", NULL);
    CHECK_EQ("app-papi: its own set started and counted 3 launches (exit 0)", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    CHECK_EQ("device 0 kernel.launches", inj_dev(r.doc, 0, "kernel.launches"), 3);
    CHECK_EQ("api cudaLaunchKernel.calls", inj_api(r.doc, "cudaLaunchKernel", "calls"), 3);
    inj_done(&r);
}

static void check_papifirst(void)
{
    struct inj_run r;
    run_app(&r, "app-papifirst", NULL);
    CHECK_EQ("app-papifirst: no deadlock, its own set counted 3 launches (exit 0)", r.status, 0);
    inj_check_frame(&r, self);
    const char *note = inj_note(r.doc, "the program initialized PAPI before CUDA: counting started on a thread");
    ct_result(note != NULL, "a note says the set-up was deferred: %s", note ? note : "(none)");
    const char *reason = inj_reason(r.doc);
    ct_note("status.counting %d, reason %s, kernel.launches %lld (whatever the deferred set saw)",
            inj_counting(r.doc), reason ? reason : "null", inj_dev(r.doc, 0, "kernel.launches"));
    inj_done(&r);
}

static void check_count(void)
{
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_DEVICE_COUNT=2", NULL};
    run_app(&r, "app-count", env);
    CHECK_EQ("app-count: exit status (30: cupti_cb called cuInit inside the program's)", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    CHECK_EQ("devices: the 2 given", json_array_size(json_object_get(r.doc, "devices")), 2);
    CHECK_EQ("device 1 memcpy.bytes_htod", inj_dev(r.doc, 1, "memcpy.bytes_htod"), 1000);
    CHECK_EQ("device 0 memcpy.bytes_htod", inj_dev(r.doc, 0, "memcpy.bytes_htod"), 0);
    inj_done(&r);
}

static void check_levels(void)
{
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_CLOCK=monotonic", NULL};
    run_app(&r, "app-levels", env);
    CHECK_EQ("app-levels: exit status", r.status, 0);
    if (!CHECK_TRUE("status.counting is true", inj_counting(r.doc)))
        ct_note("reason: %s", inj_reason(r.doc));
    CHECK_EQ("cudaGetDevice calls", inj_api(r.doc, "cudaGetDevice", "calls"), 3);
    CHECK_EQ("cudaGetDevice min_ns: the shortest call", inj_api(r.doc, "cudaGetDevice", "min_ns"), 100);
    CHECK_EQ("cudaGetDevice max_ns: the longest call", inj_api(r.doc, "cudaGetDevice", "max_ns"), 700);
    CHECK_EQ("device 0 alloc.peak_bytes: the highest live bytes", inj_dev(r.doc, 0, "alloc.peak_bytes"), 4000);
    CHECK_EQ("device 0 free.bytes", inj_dev(r.doc, 0, "free.bytes"), 4000);
    inj_done(&r);
}

static void check_live(void)
{
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_RUN_INTERVAL_MS=20", NULL};
    run_app(&r, "app-live", env);
    CHECK_EQ("app-live: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    /* app_calls: 21 API calls, 7 launches, 3 x 1000 + 500 bytes copied; the activity records
     * of app-basic are not played here: 0% busy */
    const char *want = " s api.calls=21 kernel.launches=7 memcpy.bytes=3500 gpu.busy=0.0%\n";
    const char *line = strstr(r.err, want);
    ct_result(line != NULL, "a live line ends \"%.*s\"", (int)strlen(want) - 1, want);
    CHECK_TRUE("live lines begin \"cupti_cb_run: \"", !strncmp(r.err, "cupti_cb_run: ", 14) || strstr(r.err, "\ncupti_cb_run: "));
    if (!line)
        inj_show_stderr(&r);
    inj_done(&r);
}

/* The metrics[] entry of name on device 0, or NULL. */
static json_t *metric_of(json_t *doc, const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "metrics"), i, m)
        if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name) &&
            inj_int(json_object_get(m, "device")) == 0)
            return m;
    return NULL;
}

static void check_no_old_note(json_t *doc)
{
    const char *old = inj_note(doc, "are not collected by cupti_cb_run yet");
    ct_result(old == NULL, "no note says the metrics are not collected yet: %s", old ? old : "(none)");
}

/* A directory where libnvidia-ml.so.1 is the fake libcuda (its NVML device count), for
 * LD_LIBRARY_PATH: the library then knows the device count inside cuInit, as on a GPU machine. */
static void fake_nvml_dir(char *dir, size_t dir_len, char *link, size_t link_len, char *env, size_t len)
{
    const char *cuda = fake_file_of((void *)fake_cuinit_calls), *old = getenv("LD_LIBRARY_PATH");
    snprintf(dir, dir_len, "%s/cupti_cb_nvml.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!cuda || !mkdtemp(dir))
        ct_fatal("cannot make the fake NVML directory");
    snprintf(link, link_len, "%s/libnvidia-ml.so.1", dir);
    if (symlink(cuda, link) != 0)
        ct_fatal("symlink %s: %s", link, strerror(errno));
    snprintf(env, len, "LD_LIBRARY_PATH=%s%s%s", dir, old ? ":" : "", old ? old : "");
}

static void check_metrics(int late)
{
    struct inj_run r;
    char dir[PATH_MAX], link[PATH_MAX + 32], nvml[2 * PATH_MAX + 64] = "";
    const char *env[] = {
        "CUPTI_CB_RUN_METRICS=dram__bytes_read.sum,no_such__metric.sum,"
        "sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_request_hit_rate.pct",
        NULL, "APP_PROFILER_LATE=1", "CUPTI_CB_RUN_TRACE=1", NULL};
    if (late) {
        fake_nvml_dir(dir, sizeof dir, link, sizeof link, nvml, sizeof nvml);
        env[1] = nvml;
    }
    run_app(&r, "app-metrics", env);
    if (late) {
        unlink(link);
        rmdir(dir);
    }
    if (late) {
        ct_note("cuptiProfilerInitialize fails inside the first cuInit; NVML counts the devices (%s)", nvml);
        CHECK_TRUE("the library gave cupti_cb the device count (NVML)", strstr(r.err, "visible (NVML or /proc") != NULL);
    }
    CHECK_EQ("app-metrics: exit status (40: the profiler was asked inside cuInit)", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    check_calls(r.doc, 0);
    check_no_old_note(r.doc);
    json_t *metrics = json_object_get(r.doc, "metrics");
    CHECK_EQ("metrics: the two that fit one pass, on the one device", json_array_size(metrics), 2);
    json_t *bytes = metric_of(r.doc, "dram__bytes_read.sum"), *hit = metric_of(r.doc, "lts__t_request_hit_rate.pct");
    CHECK_TRUE("dram__bytes_read.sum on device 0 is there", bytes != NULL);
    CHECK_TRUE("... its value is an integer (a counter's .sum)", json_is_integer(json_object_get(bytes, "value")));
    CHECK_EQ("... of the bytes read after the start", inj_int(json_object_get(bytes, "value")), (long long)METRIC_BYTES);
    CHECK_TRUE("... in bytes", !strcmp(json_string_value(json_object_get(bytes, "units")) ?: "", "byte"));
    CHECK_TRUE("lts__t_request_hit_rate.pct on device 0 is there", hit != NULL);
    CHECK_TRUE("... its value is a real (a ratio)", json_is_real(json_object_get(hit, "value")));
    ct_result(json_real_value(json_object_get(hit, "value")) == METRIC_HIT_PCT, "... %.17g, want %.17g",
              json_real_value(json_object_get(hit, "value")), METRIC_HIT_PCT);
    CHECK_TRUE("... in %", !strcmp(json_string_value(json_object_get(hit, "units")) ?: "", "%"));
    const char *note = inj_note(r.doc, "hardware metric no_such__metric.sum (device 0) was left out: cupti_cb knows no such metric");
    ct_result(note != NULL, "a note says the unknown metric was left out: %s", note ? note : "(none)");
    note = inj_note(r.doc, "hardware metric sm__throughput.avg.pct_of_peak_sustained_elapsed (device 0) was left out: "
                           "it needs more than one pass, alone or with the metrics before it in the list");
    ct_result(note != NULL, "a note says the metric that needs passes was left out: %s", note ? note : "(none)");
    note = inj_note(r.doc, "hardware metrics counted from the program's first allocation, copy, memset or kernel launch");
    ct_result(note != NULL, "a note says when the metrics started: %s", note ? note : "(none)");
    note = inj_note(r.doc, "one range of CUPTI's range profiler over the run");
    ct_result(note != NULL, "a note says what they cost: %s", note ? note : "(none)");
    if (json_array_size(metrics) != 2)
        inj_show_stderr(&r);
    inj_done(&r);
}

/* other: another profiler holds the range profiler (CUPTI_ERROR_INVALID_OPERATION), else no
 * permission. */
static void check_metricperm(int other)
{
    struct inj_run r;
    const char *const env[] = {"CUPTI_CB_RUN_METRICS=dram__bytes_read.sum",
                               other ? "APP_OTHER_PROFILER=1" : "APP_NOPERM=1", NULL};
    run_app(&r, "app-metrics", env);
    CHECK_EQ("app-metrics, the range profiler refused: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    check_calls(r.doc, 0);
    check_no_old_note(r.doc);
    CHECK_EQ("metrics is []", json_array_size(json_object_get(r.doc, "metrics")), 0);
    const char *note;
    if (other) {
        note = inj_note(r.doc, "hardware metrics were not collected: their event set did not start (");
        ct_result(note != NULL, "a note says the metrics did not start: %s", note ? note : "(none)");
        CHECK_TRUE("... and that another profiler may hold the device", note && strstr(note, "another profiler may hold"));
    } else {
        note = inj_note(r.doc, "hardware metrics were not collected: profiling is restricted to administrators "
                               "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)");
        ct_result(note != NULL, "a note says profiling is restricted: %s", note ? note : "(none)");
        CHECK_TRUE("... and what to change", note && strstr(note, "NVreg_RestrictProfilingToAdminUsers=0"));
    }
    CHECK_TRUE("no note says the metrics started",
               !inj_note(r.doc, "hardware metrics counted from the program's first allocation"));
    inj_done(&r);
}

/* No metric catalogue (CUPTI_CB_CHIP names a chip CUPTI does not know): one note for all. */
static void check_metricnochip(void)
{
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_RUN_METRICS=dram__bytes_read.sum,lts__t_request_hit_rate.pct",
                                      "CUPTI_CB_CHIP=XX999", NULL};
    run_app(&r, "app-metrics", env);
    CHECK_EQ("app-metrics without a metric catalogue: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    check_calls(r.doc, 0);
    CHECK_EQ("metrics is []", json_array_size(json_object_get(r.doc, "metrics")), 0);
    const char *note = inj_note(r.doc, "hardware metrics were not collected: cupti_cb offers no metric in this process");
    ct_result(note != NULL, "a note says there is no metric: %s", note ? note : "(none)");
    CHECK_TRUE("no note per metric", !inj_note(r.doc, "hardware metric dram__bytes_read.sum"));
    inj_done(&r);
}

static void check_metricwait(void)
{
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_RUN_METRICS=dram__bytes_read.sum", "CUPTI_CB_RUN_METRICS_WAIT_MS=20",
                                      NULL};
    run_app(&r, "app-metricwait", env);
    CHECK_EQ("app-metricwait: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    check_calls(r.doc, 0);
    CHECK_EQ("metrics is []", json_array_size(json_object_get(r.doc, "metrics")), 0);
    const char *note = inj_note(r.doc, "hardware metrics were not collected: the program issued no GPU work within 20 ms "
                                       "after cuInit");
    ct_result(note != NULL, "a note says the wait gave up: %s", note ? note : "(none)");
    inj_done(&r);
}

/* The row of the thread named name (or of tid, when name is NULL). */
static json_t *thread_row(json_t *doc, const char *name, long long tid)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "threads"), i, t) {
        const char *n = json_string_value(json_object_get(t, "name"));
        if (name ? n && !strcmp(n, name) : inj_int(json_object_get(t, "tid")) == tid)
            return t;
    }
    return NULL;
}

static long long thread_ev(json_t *row, const char *event)
{
    json_t *v = json_object_get(json_object_get(row, "events"), event);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void check_threads(void)
{
    struct inj_run r;
    run_app(&r, "app-threads", NULL);
    CHECK_EQ("app-threads: exit status", r.status, 0);
    inj_check_frame(&r, self);
    CHECK_TRUE("status.counting is true", inj_counting(r.doc));
    CHECK_EQ("threads: the main thread and 3 named ones", json_array_size(json_object_get(r.doc, "threads")), 4);
    static const struct {
        const char *name;
        long long calls, launches, bytes, gpu_kernels;
        int exited;
    } want[] = {
        {NULL, 4, 0, 0, 0, 0},        /* main: 4 cudaGetDevice; alive while it exits */
        {"inj-a", 4, 2, 1000, 0, 1}, /* 2 cudaLaunchKernel, a cudaMemcpy, a cudaDeviceSynchronize */
        {"inj-b", 3, 3, 0, 3, 1},    /* 3 cuLaunchKernel outside the runtime, 3 kernels ran */
        {"inj-c?", 7, 0, 0, 0, 0},   /* 7 cudaGetDevice; still alive at exit; its name's last
                                        byte is not UTF-8 */
    };
    char label[160];
    long long calls = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *who = want[i].name ? want[i].name : "main";
        json_t *row = thread_row(r.doc, want[i].name, r.pid);
        snprintf(label, sizeof label, "thread %s has a row", who);
        CHECK_TRUE(label, row != NULL);
        if (!row)
            continue;
        snprintf(label, sizeof label, "thread %s: api.calls", who);
        CHECK_EQ(label, thread_ev(row, "api.calls"), want[i].calls);
        snprintf(label, sizeof label, "thread %s: kernel.launches", who);
        CHECK_EQ(label, thread_ev(row, "kernel.launches"), want[i].launches);
        snprintf(label, sizeof label, "thread %s: memcpy.bytes", who);
        CHECK_EQ(label, thread_ev(row, "memcpy.bytes"), want[i].bytes);
        snprintf(label, sizeof label, "thread %s: gpu.kernels", who);
        CHECK_EQ(label, thread_ev(row, "gpu.kernels"), want[i].gpu_kernels);
        snprintf(label, sizeof label, "thread %s: api.time_ns and sync.time_ns are there", who);
        CHECK_TRUE(label, thread_ev(row, "api.time_ns") >= 0 && thread_ev(row, "sync.time_ns") >= 0);
        snprintf(label, sizeof label, "thread %s: exited", who);
        CHECK_EQ(label, json_is_true(json_object_get(row, "exited")), want[i].exited);
        snprintf(label, sizeof label, "thread %s: shared is false", who);
        CHECK_TRUE(label, json_is_false(json_object_get(row, "shared")));
        if (want[i].name) {
            snprintf(label, sizeof label, "thread %s: a tid other than the pid", who);
            CHECK_TRUE(label, inj_int(json_object_get(row, "tid")) > 0 &&
                                  inj_int(json_object_get(row, "tid")) != r.pid);
        }
        calls += thread_ev(row, "api.calls");
    }
    CHECK_EQ("the threads' api.calls add up to totals api.calls", calls, inj_total(r.doc, "api.calls"));
    CHECK_EQ("device 0 gpu.kernels (process)", inj_dev(r.doc, 0, "gpu.kernels"), 3);
    inj_done(&r);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fake_setup();
        if (!strcmp(argv[1], "app-basic"))
            return app_basic();
        if (!strcmp(argv[1], "app-disabled"))
            return app_disabled();
        if (!strcmp(argv[1], "app-papi"))
            return app_papi();
        if (!strcmp(argv[1], "app-papifirst"))
            return app_papifirst();
        if (!strcmp(argv[1], "app-count"))
            return app_count();
        if (!strcmp(argv[1], "app-levels"))
            return app_levels();
        if (!strcmp(argv[1], "app-live"))
            return app_live();
        if (!strcmp(argv[1], "app-metrics"))
            return app_metrics();
        if (!strcmp(argv[1], "app-metricwait"))
            return app_metricwait();
        if (!strcmp(argv[1], "app-threads"))
            return app_threads();
        if (!strcmp(argv[1], "app-crash") || !strcmp(argv[1], "app-exit"))
            return app_unfinished(!strcmp(argv[1], "app-crash"));
        ct_fatal("no application %s", argv[1]);
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    if (access(INJ_LIB, R_OK) != 0)
        ct_fatal("%s: %s (build src/inject/ first)", INJ_LIB, strerror(errno));
    fake_setup();
    ct_library_init();
    const char *only = getenv("INJ_CASE");
    if (!only || !strcmp(only, "basic"))
        check_basic();
    if (!only || !strcmp(only, "disabled"))
        check_disabled();
    if (!only || !strcmp(only, "fallback"))
        check_fallback();
    if (!only || !strcmp(only, "papi"))
        check_papi();
    if (!only || !strcmp(only, "papifirst"))
        check_papifirst();
    if (!only || !strcmp(only, "count"))
        check_count();
    if (!only || !strcmp(only, "levels"))
        check_levels();
    if (!only || !strcmp(only, "live"))
        check_live();
    if (!only || !strcmp(only, "metrics"))
        check_metrics(0);
    if (!only || !strcmp(only, "metriclate"))
        check_metrics(1);
    if (!only || !strcmp(only, "metricperm"))
        check_metricperm(0);
    if (!only || !strcmp(only, "metricbusy"))
        check_metricperm(1);
    if (!only || !strcmp(only, "metricnochip"))
        check_metricnochip();
    if (!only || !strcmp(only, "metricwait"))
        check_metricwait();
    if (!only || !strcmp(only, "threads"))
        check_threads();
    return ct_done();
}
