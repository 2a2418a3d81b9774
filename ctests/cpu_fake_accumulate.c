/*
 * cpu_fake_accumulate: the events that are not plain counts (<func>.time_ns_min/_max,
 * alloc.live_bytes, alloc.peak_bytes) read the way TAU, Caliper and Score-P read every event:
 * PAPI_read then PAPI_reset at every timer or region boundary, adding up the pieces.
 *
 *   tau   - a TAU-like profiler: the set is read and reset at every start and stop of nested
 *           timers, and the pieces added up. The sums are the truth of the played calls (shortest
 *           and longest call, bytes live at the end, highest bytes live), each timer's inclusive
 *           value is the change of the event's level while it ran, and a maximum or a peak never
 *           gives a negative piece (Caliper stores every piece as an unsigned number);
 *   accum - the same with PAPI_accum at every boundary;
 *   plain - the same program read once at the end, without a reset: the same truth;
 *   info  - what PAPI_get_event_info says of them: running sums since start, signed where a
 *           piece may be negative (the minimum, the live bytes);
 *   hl    - PAPI's high-level API (which never resets): a region's delta is the change of the
 *           level during the region; with =instant, the level at the region's end.
 *   nested - a SIGPROF handler at 20 kHz reads the set while the thread it interrupts reads it
 *           too (TAU's sampler beside its timers): the handler's read must not run inside the
 *           interrupted one (it added a time counter's interval twice), so the time, the
 *           maximum and the calls at the stop are exactly those of the played calls.
 */
#include "ctest_util.h"
#include "fake_play.h"
#include "hl_report.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#define T0 1000000000ull /* the frozen clock's start (a time of 0 means "not timed") */

static void frozen_init(int devices)
{
    setenv("CUPTI_CB_CLOCK", "monotonic", 1);
    fake_device_count(CUDA_SUCCESS, devices);
    fake_time_freeze(T0);
}

static void get_device(uint64_t ns)
{
    fake_call_timed(FAKE_RT, RCB(cudaGetDevice_v3020), NULL, 0, FAKE_CTX0, ns);
}

static void mem_alloc(int dev, uint64_t off, size_t bytes)
{
    CUdeviceptr ptr = fake_dev_ptr(dev, off); /* written by the driver before its EXIT */
    cuMemAlloc_v2_params a = {&ptr, bytes};
    fake_driver(DCB(cuMemAlloc_v2), &a, CUDA_SUCCESS, dev ? FAKE_CTX1 : FAKE_CTX0);
}

static void mem_free(int dev, uint64_t off)
{
    cuMemFree_v2_params f = {fake_dev_ptr(dev, off)};
    fake_driver(DCB(cuMemFree_v2), &f, CUDA_SUCCESS, dev ? FAKE_CTX1 : FAKE_CTX0);
}

/* The events, and their truth after the played program (see play_program). */
enum { MIN, MAX, MIN_P, LIVE, PEAK, PEAK0, LIVE1, CALLS, N_EV };
static const char *const names[N_EV] = {"cudaGetDevice.time_ns_min", "cudaGetDevice.time_ns_max",
    "cudaGetDevice.time_ns_min:process", "alloc.live_bytes", "alloc.peak_bytes", "alloc.peak_bytes:device0",
    "alloc.live_bytes:device1", "cudaGetDevice.calls"};

/* ---- tau, accum, plain ------------------------------------------------------------------- */

/* A profiler's view of one thread: the set it reads at every boundary, the sums of the pieces, the
 * lowest piece seen of each event. PAPI allows one running set per thread and component, so each
 * way of reading plays the program in a process of its own. */
static enum { READ_RESET, ACCUM, PLAIN } mode;
static int es;
static long long total[N_EV], lowest_piece[N_EV];

static void boundary(void)
{
    long long piece[N_EV], before[N_EV];
    memcpy(before, total, sizeof total);
    if (mode == PLAIN)
        return;
    if (mode == READ_RESET) {
        PAPI_MUST(PAPI_read(es, piece));
        PAPI_MUST(PAPI_reset(es));
        for (int i = 0; i < N_EV; i++)
            total[i] += piece[i];
    } else {
        PAPI_MUST(PAPI_accum(es, total)); /* reads, adds, resets */
    }
    for (int i = 0; i < N_EV; i++)
        if (total[i] - before[i] < lowest_piece[i])
            lowest_piece[i] = total[i] - before[i];
}

/* A timer: its start and stop are boundaries, and its inclusive value is the change of the sums. */
struct timer {
    long long at_start[N_EV], inclusive[N_EV];
};

static void timer_start(struct timer *t)
{
    boundary();
    memcpy(t->at_start, total, sizeof total);
}

static void timer_stop(struct timer *t)
{
    boundary();
    for (int i = 0; i < N_EV; i++)
        t->inclusive[i] = total[i] - t->at_start[i];
}

static void *other_thread(void *arg)
{
    (void)arg;
    get_device(20); /* in no thread-scope value of the main thread; in the process minimum */
    return NULL;
}

/* Device 0 before the set starts: 250 bytes live. Then, in timers main > (a, b):
 *   main: a call of 300
 *   a:    a call of 100; 1000 and 3000 bytes allocated on device 0, the 3000 freed
 *   b:    calls of 700 and 50; 500 bytes allocated on device 1; another thread's call of 20
 *   main: the 1000 bytes freed
 * Truth: min 50 (this thread), max 700, process min 20, live 250 + 500, peak 250 + 4000 on
 * device 0 (and in all), 500 live on device 1, 4 calls. */
static int play_and_check(void)
{
    frozen_init(2);
    ct_library_init();
    /* A set that only makes allocations count from here on: the 250 bytes are live before the
     * set under test starts (a set holds its callbacks until it is cleaned up). */
    static const char *const live_only[] = {"alloc.live_bytes"};
    long long v[N_EV];
    int es_before = ct_eventset(1, live_only);
    PAPI_MUST(PAPI_start(es_before));
    PAPI_MUST(PAPI_stop(es_before, v));
    mem_alloc(0, 0x8000, 250);

    es = ct_eventset(N_EV, names);
    PAPI_MUST(PAPI_start(es));
    struct timer main_t, a, b;
    timer_start(&main_t);
    get_device(300);
    timer_start(&a);
    get_device(100);
    mem_alloc(0, 0x1000, 1000);
    mem_alloc(0, 0x2000, 3000);
    mem_free(0, 0x2000);
    timer_stop(&a);
    timer_start(&b);
    get_device(700);
    get_device(50);
    mem_alloc(1, 0x1000, 500);
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    timer_stop(&b);
    mem_free(0, 0x1000);
    timer_stop(&main_t);
    if (mode == PLAIN)
        PAPI_MUST(PAPI_read(es, total));

    static const long long truth[N_EV] = {50, 700, 20, 750, 4250, 4250, 500, 4};
    static const char *const how[] = {"the sum of the read+reset pieces", "the sum of the PAPI_accum pieces",
                                      "read once, no reset"};
    for (int i = 0; i < N_EV; i++) {
        char what[160];
        snprintf(what, sizeof what, "%s: %s", names[i], how[mode]);
        CHECK_EQ(what, total[i], truth[i]);
    }
    if (mode != PLAIN) {
        CHECK_EQ("the live bytes at start: before the outermost timer", main_t.at_start[LIVE], 250);
        CHECK_EQ("the peak at start: the live bytes then", main_t.at_start[PEAK], 250);
        CHECK_EQ("no call before the outermost timer: min", main_t.at_start[MIN], 0);
        CHECK_EQ("the outermost timer: the rest of the peak", main_t.inclusive[PEAK], 4000);
        CHECK_EQ("the outermost timer: the rest of the live bytes", main_t.inclusive[LIVE], 500);
        CHECK_EQ("the outermost timer: all of the maximum", main_t.inclusive[MAX], 700);
        /* Each timer's inclusive value: how its work moved the level. */
        CHECK_EQ("timer a: the minimum went from 300 to 100", a.inclusive[MIN], -200);
        CHECK_EQ("timer a: the maximum stayed 300", a.inclusive[MAX], 0);
        CHECK_EQ("timer a: 1000 bytes more live", a.inclusive[LIVE], 1000);
        CHECK_EQ("timer a: the peak rose from 250 to 4250", a.inclusive[PEAK], 4000);
        CHECK_EQ("timer a: nothing on device 1", a.inclusive[LIVE1], 0);
        CHECK_EQ("timer b: the minimum went from 100 to 50", b.inclusive[MIN], -50);
        CHECK_EQ("timer b: the maximum rose from 300 to 700", b.inclusive[MAX], 400);
        CHECK_EQ("timer b: the process minimum went from 100 to 20", b.inclusive[MIN_P], -80);
        CHECK_EQ("timer b: 500 bytes more live", b.inclusive[LIVE], 500);
        CHECK_EQ("timer b: the peak did not rise (1750 < 4250)", b.inclusive[PEAK], 0);
        CHECK_EQ("timer b: 500 bytes live on device 1", b.inclusive[LIVE1], 500);
        CHECK_EQ("timer b: calls", b.inclusive[CALLS], 2);
        CHECK_REL("a maximum never gives a negative piece", lowest_piece[MAX], ">=", 0);
        CHECK_REL("a peak never gives a negative piece", lowest_piece[PEAK], ">=", 0);
        CHECK_REL("nor a peak of one device", lowest_piece[PEAK0], ">=", 0);
    }
    PAPI_MUST(PAPI_stop(es, v));
    if (mode != PLAIN)
        CHECK_EQ("stop after the last reset: the peak did not change since", v[PEAK], 0);
    ct_destroy(&es);
    ct_destroy(&es_before);
    return ct_done();
}

static int run_tau(void)
{
    mode = READ_RESET;
    return play_and_check();
}

static int run_accum(void)
{
    mode = ACCUM;
    return play_and_check();
}

static int run_plain(void)
{
    mode = PLAIN;
    return play_and_check();
}

/* ---- info ----------------------------------------------------------------------------------- */

static int run_info(void)
{
    frozen_init(1);
    ct_library_init();
    static const struct {
        const char *name;
        int data_type;
    } want[] = {
        {"cudaGetDevice.time_ns_min", PAPI_DATATYPE_INT64},
        {"cudaGetDevice.time_ns_max", PAPI_DATATYPE_UINT64},
        {"alloc.live_bytes", PAPI_DATATYPE_INT64},
        {"alloc.live_bytes:device0", PAPI_DATATYPE_INT64},
        {"alloc.peak_bytes", PAPI_DATATYPE_UINT64},
        {"cudaGetDevice.calls", PAPI_DATATYPE_UINT64},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char full[PAPI_MAX_STR_LEN], what[160];
        int code;
        PAPI_event_info_t info;
        PAPI_MUST(PAPI_event_name_to_code(ct_full_name(want[i].name, full, sizeof full), &code));
        PAPI_MUST(PAPI_get_event_info(code, &info));
        snprintf(what, sizeof what, "%s: data type", want[i].name);
        CHECK_EQ(what, info.data_type, want[i].data_type);
        snprintf(what, sizeof what, "%s: a running sum (pieces since resets add up)", want[i].name);
        CHECK_EQ(what, info.value_type, PAPI_VALUETYPE_RUNNING_SUM);
        snprintf(what, sizeof what, "%s: since start", want[i].name);
        CHECK_EQ(what, info.timescope, PAPI_TIMESCOPE_SINCE_START);
    }
    return ct_done();
}

/* ---- hl ------------------------------------------------------------------------------------- */

static const char *const HL_EVENTS =
    "cupti_cb:::cudaGetDevice.time_ns_min,cupti_cb:::cudaGetDevice.time_ns_max,cupti_cb:::alloc.live_bytes,"
    "cupti_cb:::alloc.peak_bytes,cupti_cb:::cudaGetDevice.time_ns_max:process=instant,"
    "cupti_cb:::alloc.live_bytes:device0=instant,cupti_cb:::alloc.peak_bytes:device0=instant";

/* Measured in a child process: the high-level API writes its report at exit. Before region
 * "one": a call of 300, 2000 bytes allocated and freed, 100 left live. In "one": a call of 500,
 * 600 bytes allocated; in "two": calls of 200 and 400, the 600 bytes freed, 50 allocated. */
static int hl_child(void)
{
    frozen_init(1);
    if (PAPI_hl_region_begin("warmup") != PAPI_OK) /* the high-level API starts its set here */
        ct_fatal("PAPI_hl_region_begin failed");
    get_device(300);
    mem_alloc(0, 0x1000, 2000);
    mem_free(0, 0x1000);
    mem_alloc(0, 0x2000, 100);
    if (PAPI_hl_region_end("warmup") != PAPI_OK || PAPI_hl_region_begin("one") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end/begin failed");
    get_device(500);
    mem_alloc(0, 0x3000, 600);
    if (PAPI_hl_region_end("one") != PAPI_OK || PAPI_hl_region_begin("two") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end/begin failed");
    get_device(200);
    get_device(400);
    mem_free(0, 0x3000);
    mem_alloc(0, 0x4000, 50);
    if (PAPI_hl_region_end("two") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end failed");
    return 0;
}

static int run_hl(void)
{
    const char *report = hl_run_child(HL_EVENTS);
    /* The level of each event at each region boundary (the set starts at "warmup"'s begin):
     *           start  one-begin  one-end  two-end
     *   min       0      300        300      200
     *   max       0      300        500      500
     *   live      0      100        700      150
     *   peak      0     2000       2000     2000 */
    CHECK_EQ("one: min (a delta: no shorter call)", reported(report, "one", "cudaGetDevice.time_ns_min"), 0);
    CHECK_EQ("one: max rose by 200", reported(report, "one", "cudaGetDevice.time_ns_max"), 200);
    CHECK_EQ("one: live grew by 600", reported(report, "one", "alloc.live_bytes"), 600);
    CHECK_EQ("one: the peak did not rise", reported(report, "one", "alloc.peak_bytes"), 0);
    CHECK_EQ("one: max:process=instant", reported(report, "one", "cudaGetDevice.time_ns_max:process"), 500);
    CHECK_EQ("one: live:device0=instant", reported(report, "one", "alloc.live_bytes:device0"), 700);
    CHECK_EQ("one: peak:device0=instant", reported(report, "one", "alloc.peak_bytes:device0"), 2000);
    CHECK_EQ("two: min fell by 100", reported(report, "two", "cudaGetDevice.time_ns_min"), -100);
    CHECK_EQ("two: max did not rise", reported(report, "two", "cudaGetDevice.time_ns_max"), 0);
    CHECK_EQ("two: live fell by 550", reported(report, "two", "alloc.live_bytes"), -550);
    CHECK_EQ("two: max:process=instant", reported(report, "two", "cudaGetDevice.time_ns_max:process"), 500);
    CHECK_EQ("two: live:device0=instant", reported(report, "two", "alloc.live_bytes:device0"), 150);
    CHECK_EQ("two: peak:device0=instant", reported(report, "two", "alloc.peak_bytes:device0"), 2000);
    return ct_done();
}

static int nested_es;
static volatile sig_atomic_t nested_reads, nested_bad;

static void nested_reader(int sig)
{
    (void)sig;
    long long v[3];
    int rc = PAPI_read(nested_es, v);
    if (rc != PAPI_OK)
        nested_bad = rc;
    nested_reads++;
}

static int run_nested(void)
{
    static const char *const nested_names[] = {"cudaGetDevice.time_ns", "cudaGetDevice.time_ns_max",
                                               "cudaGetDevice.calls"};
    long long v[3];
    frozen_init(1);
    ct_library_init();
    nested_es = ct_eventset(3, nested_names);
    PAPI_MUST(PAPI_start(nested_es));
    signal(SIGPROF, nested_reader);
    timer_t t = ct_sigprof_timer(50);
    long long calls = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int k = 0; k < 10; k++, calls++)
            get_device(100 + (uint64_t)(calls % 7));
        PAPI_MUST(PAPI_read(nested_es, v));
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - t0.tv_sec < 2);
    timer_delete(t);
    signal(SIGPROF, SIG_IGN);
    PAPI_MUST(PAPI_stop(nested_es, v));
    long long want_ns = 0;
    for (long long i = 0; i < calls; i++)
        want_ns += 100 + i % 7;
    printf("# nested: %lld calls, %d reads in the handler\n", calls, (int)nested_reads);
    CHECK_REL("the handler read", nested_reads, ">=", 1000);
    CHECK_EQ("every read in the handler returned PAPI_OK", nested_bad, PAPI_OK);
    CHECK_EQ("time_ns: exactly the played time", v[0], want_ns);
    CHECK_EQ("time_ns_max: the longest call", v[1], 106);
    CHECK_EQ("calls", v[2], calls);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "hl-child")) {
        fake_setup();
        return hl_child();
    }
    static const struct fake_case cases[] = {
        {"tau", run_tau}, {"accum", run_accum}, {"plain", run_plain}, {"info", run_info}, {"hl", run_hl},
        {"nested", run_nested},
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
