/*
 * cpu_fake_sampling: the PM sampling source (":sampled") through PAPI, with the real Profiler
 * Host API (no GPU needed) and the faked driver, Range Profiler and PM Sampling API
 * (fake_pmsampling.c: samples cut by time, values the test adds).  Each case is a fresh process;
 * CUPTI_CB_SAMPLING_INTERVAL_US=1000 and CUPTI_CB_SAMPLING_DECODE_US=1000 unless a case says.
 *
 *   listing   - a device of chip GH100: the walk lists GH100's 1,279 sampled metrics once each
 *               (names ending ":sampled") beside the Range Profiler's; a metric only PM sampling
 *               has (dram__read_throughput) resolves only with :sampled; a name and its sampled
 *               twin are different events; names round-trip.
 *   exact     - values added in samples while a set of a sampled metric and kernel.launches runs:
 *               a read one age after the last work (and the stop) gives exactly their sum,
 *               including what was in the sample in progress; reads in the middle never go down
 *               and never pass the sum added before them; a read right after work does not see it
 *               yet (a copy); work before the start and after the stop is not counted; a second
 *               start/stop pair configures nothing again (cuptiPmSamplingSetConfig once);
 *               cuptiPmSamplingDisable runs at the cleanup of the last set, not at a stop, and
 *               sampling goes on after a stop (a start soon after starts none).
 *   readreset - TAU's pattern (PAPI_read then PAPI_reset at every region boundary, 20 regions):
 *               the regions add up exactly to the whole that a second set on another thread
 *               reads over the same time.
 *   handlerbase - TAU's read + reset with a SIGPROF handler's read of the same set in between,
 *               after work decoded since the read: the reset continues from the thread's read,
 *               not the handler's, so the windows add up to every byte (100 + 75, not 100 + 50).
 *   priorloss - an overflow of the hardware buffer, then a gap, while a set runs on another
 *               thread: a set started after each succeeds and reads exactly (its start's flush
 *               finds the loss, which is not its own); the running set's read fails (PAPI_ECMP).
 *   minmax    - a counter's .max and .min:sampled over a window of samples: the largest and the
 *               smallest per-sample value (800 of 300, 800 and 500; not their sum, 1600), .min 0
 *               where idle samples are in the window; a reset and a new start each begin a window
 *               of their own; .sum beside them adds up.
 *   union     - a second set with another metric on the same device: one more SetConfig (the
 *               union), the first set's values unchanged by it; then both read their own metric.
 *   sigread   - a SIGPROF handler at about 1 kHz reads the running set while the program adds
 *               and reads: every handler read is PAPI_OK and never goes down; the stop is exact;
 *               PAPI_stop in the handler is refused (it takes the source's lock).
 *   conflict  - a Range Profiler set holding device 0: the add of a sampled metric is refused with
 *               PAPI_ECNFLCT and a sentence naming the holder; once that set is cleaned up the
 *               sampled set starts; then the Range Profiler's add is refused the same way, and it
 *               starts once the sampled set is cleaned up (a stopped one still holds the device).
 *   busy      - another profiler holds the counters (cuptiPmSamplingStart: HARDWARE_BUSY):
 *               PAPI_start gives PAPI_ECNFLCT and says so; the callback events of another set
 *               keep counting; with the counters free again the same set starts.
 *   noperm    - cuptiPmSamplingEnable: INSUFFICIENT_PRIVILEGES: PAPI_start gives PAPI_EPERM and
 *               names the module option.
 *   unsupported - CUPTI says the device cannot be PM-sampled: the add is refused (PAPI_ENOSUPP)
 *               with the reason.
 *   overflow  - the hardware buffer overflows (a small buffer and a slow decode): the read gives
 *               PAPI_ECMP and says what to change; PAPI_reset starts a good window again.
 *   decodefail - cuptiPmSamplingDecodeData fails: the read fails with PAPI_ECMP; a reset starts a
 *               good window that then reads exactly.
 *   badenv    - CUPTI_CB_SAMPLING_INTERVAL_US=abc: PAPI_start gives PAPI_EINVAL naming the variable.
 *   otherprofiler - another profiler holds CUPTI's profiler in the process (Nsight Compute:
 *               cuptiProfilerInitialize gives MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): adding a sampled
 *               or a Range Profiler metric gives PAPI_ECNFLCT with a sentence naming the cause, not
 *               PAPI_ENOEVNT; callback events still add and count.
 *   gap       - the GPU leaves samples out (a gap between two decoded samples, no overflow): a read of
 *               a set of a sampled metric and kernel.launches still returns PAPI_OK with the values
 *               (the samples it has, and every launch), and PAPI_VERBOSE prints that the sampled
 *               values may undercount; an overflow, by contrast, fails the read.
 *   overflowrefused - PAPI_overflow on a sampled metric (HPCToolkit's way) is refused with the
 *               source's sentence: a sample is known only once decoded, never at a CUDA call.
 *   hl        - the PAPI high-level API (PAPI_EVENTS with a sampled metric and kernel.launches;
 *               regions "one" and "two", each ending one read's age after its work): the report
 *               gives each region its own bytes and launches.
 *   devices   - an event without :device counts the device of the starting thread's current
 *               context, at each start (device 1, then device 0 after the thread switched); one
 *               with :device=1 counts device 1 only, whatever the thread's device.
 *   profiler  - CUPTI's profiler is up while a session exists, shared with the Range Profiler's
 *               source without a second initialization, and down after PAPI_shutdown.
  *   atexit    - a program exits with a sampled set running, without PAPI_shutdown: the decode
 *              thread stops before libcupti's teardown (a decode during it aborts the fake).
  *   fork      - fork() while the decode thread holds its session's lock: the child's read fails
 *              with a sentence, its stop returns; the parent counts on.
 *   window    - start / work over 5 ms (fake_pm_add_span) / the end of the work / stop, no sleep:
 *              the work exactly; work that ended 20 us before a start is not counted; a kernel
 *              in flight at a start counts from the start on.
 *   regions   - TAU's read + reset at 20 boundaries of steady work, no sleep: the regions add up
 *              to the whole of a set on another thread and to the work (0.1%).
 *   regions_exact - the same with CUPTI_CB_SAMPLING_EXACT=1: each region also within 1% of its
 *              share of the work.
 *   reconfig  - another thread's set brings a new metric while a set runs: the running set's
 *              read fails (PAPI_ECMP) and says why; a reset starts a good window.
 */
#include "ctest_util.h"
#include "fake_play.h"
#include "cupti_cb.h"
#include "hl_report.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define GH100_SAMPLED 1279
#define READ "dram__bytes_read.sum:sampled"
#define WRITE "dram__bytes_write.sum:sampled"

/* Sleeps us microseconds, all of them: a SIGPROF handler cuts nanosleep short. */
static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* v bytes read on device dev, in the sample open now, then the sample completes. */
static void gpu_read(int dev, double v)
{
    fake_pm_add(dev, "dram__bytes_read.sum", v);
    fake_pm_tick(dev);
}

/* The age of a read: the sample in progress completes (one interval), the decode thread's cadence
 * and pass add it (two periods), on an idle machine. make check shares its cores: four times that
 * and 20 ms more. */
static void settle(void)
{
    const char *i = getenv("CUPTI_CB_SAMPLING_INTERVAL_US"), *d = getenv("CUPTI_CB_SAMPLING_DECODE_US");
    nap_us(4 * ((i ? atol(i) : 500) + 2 * (d ? atol(d) : 1000)) + 20000);
}

static void env_defaults(void)
{
    setenv("CUPTI_CB_SAMPLING_INTERVAL_US", "1000", 0);
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "1000", 0);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

static int code_of(const char *name)
{
    char buf[PAPI_MAX_STR_LEN];
    int code = 0;
    if (PAPI_event_name_to_code(ct_full_name(name, buf, sizeof buf), &code) != PAPI_OK)
        return 0;
    return code;
}

static int listing_case(void)
{
    ct_library_init();
    int cidx = cb_cidx(), code = PAPI_NATIVE_MASK, n_sampled = 0, round_trips = 0;
    char first[PAPI_MAX_STR_LEN] = "";
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        ct_fatal("nothing listed");
    do {
        PAPI_event_info_t info;
        if (PAPI_get_event_info(code, &info) != PAPI_OK || !ends_with(info.symbol, ":sampled"))
            continue;
        /* Only for the note: a longer name is cut, and the note says so. */
        if (n_sampled++ == 0 && snprintf(first, sizeof first, "%s", info.symbol) >= (int)sizeof first)
            ct_note("the first sampled event's name is longer than %zu bytes: cut", sizeof first - 1);
        int back = 0, rc = PAPI_event_name_to_code(info.symbol, &back);
        char again[PAPI_MAX_STR_LEN] = "";
        if (rc == PAPI_OK)
            rc = PAPI_event_code_to_name(back, again);
        round_trips += rc == PAPI_OK && !strcmp(again, info.symbol);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    ct_note("first sampled event: %s", first);
    CHECK_EQ("GH100's sampled metrics listed once each", n_sampled, GH100_SAMPLED);
    CHECK_EQ("every listed sampled name resolves and names itself back", round_trips, n_sampled);
    int plain = code_of("dram__bytes_read.sum"), sampled = code_of(READ);
    CHECK_TRUE("dram__bytes_read.sum is an event", plain != 0);
    CHECK_TRUE("dram__bytes_read.sum:sampled is an event", sampled != 0);
    CHECK_TRUE("and they are different events", plain != sampled);
    char name[PAPI_MAX_STR_LEN];
    CHECK_PAPI(PAPI_event_code_to_name(sampled, name));
    CHECK_TRUE("the sampled code names itself with :sampled", ends_with(name, "dram__bytes_read.sum:sampled"));
    PAPI_event_info_t pi, si;
    CHECK_PAPI(PAPI_get_event_info(plain, &pi));
    CHECK_PAPI(PAPI_get_event_info(sampled, &si));
    static const char pm[] = "PM-sampled, device-wide: ";
    CHECK_TRUE("the sampled event's description says so first", !strncmp(si.long_descr, pm, sizeof pm - 1));
    /* (up to its rollups: the prefix pushes the end of a long list out of PAPI's string) */
    size_t own = strcspn(pi.long_descr, "[");
    CHECK_TRUE("then the metric's own, as the Range Profiler's event gives it",
               own > 1 && !strncmp(si.long_descr + sizeof pm - 1, pi.long_descr, own));
    CHECK_TRUE("which does not say it", strncmp(pi.long_descr, pm, sizeof pm - 1) != 0);
    CHECK_EQ("a metric only PM sampling has is no Range Profiler event", code_of("dram__read_throughput"), 0);
    CHECK_TRUE("but is a sampled event", code_of("dram__read_throughput:sampled") != 0);
    CHECK_EQ("a metric PM sampling lacks has no sampled event",
             code_of("smsp__sass_inst_executed_op_global_ld.sum:sampled"), 0);
    CHECK_TRUE("a sampled event takes :device=0", code_of(READ ":device=0") != 0);
    CHECK_EQ("and refuses :thread", code_of(READ ":thread"), 0);
    return ct_done();
}

static int exact_case(void)
{
    env_defaults();
    ct_library_init();
    const char *names[] = { READ, "kernel.launches" };
    long long v[2], mid[2];
    gpu_read(0, 777);   /* before any set: sampling is not even enabled */
    int es = ct_eventset(2, names);
    CHECK_PAPI(PAPI_start(es));
    CHECK_EQ("SetConfig once at the first start", fake_pm_calls("SetConfig"), 1);
    CHECK_EQ("sampling started", fake_pm_started(0), 1);
    long long prev = 0, added = 0;
    for (int i = 1; i <= 10; i++) {
        gpu_read(0, 1000 * i);
        added += 1000 * i;
        play_launches(1, FAKE_CTX0);
        CHECK_PAPI(PAPI_read(es, mid));
        if (mid[0] < prev || mid[0] > added)
            ct_result(0, "read %d: %lld, after %lld, with %lld added", i, mid[0], prev, added);
        prev = mid[0];
    }
    fake_pm_add(0, "dram__bytes_read.sum", 5);   /* in the sample in progress */
    added += 5;
    CHECK_PAPI(PAPI_read(es, mid));
    CHECK_REL("a read right after the work does not see the sample in progress yet", mid[0], "<", added);
    settle();
    CHECK_PAPI(PAPI_read(es, mid));
    CHECK_EQ("a read one age later sees every byte, the sample in progress included", mid[0], added);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("and the stop gives the same", v[0], added);
    CHECK_EQ("kernel.launches beside it", v[1], 10);
    CHECK_EQ("sampling goes on a while after the last set stops (a stop pays no cuptiPmSamplingStop)",
             fake_pm_started(0), 1);
    gpu_read(0, 999);   /* between the sets: not counted */
    CHECK_PAPI(PAPI_start(es));
    CHECK_EQ("a start soon after starts no sampling", fake_pm_calls("Start"), 1);
    gpu_read(0, 50);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("a second start/stop pair counts its own work only", v[0], 50);
    CHECK_EQ("and configures nothing again", fake_pm_calls("SetConfig"), 1);
    CHECK_EQ("a stop never disables PM sampling", fake_pm_calls("Disable"), 0);
    CHECK_PAPI(PAPI_cleanup_eventset(es));
    CHECK_PAPI(PAPI_destroy_eventset(&es));
    CHECK_EQ("the cleanup of the last set does", fake_pm_calls("Disable"), 1);
    CHECK_EQ("and stops sampling", fake_pm_started(0), 0);
    PAPI_shutdown();
    CHECK_EQ("and PAPI_shutdown does not again", fake_pm_calls("Disable"), 1);
    return ct_done();
}

/* The whole: a set on its own thread, started before and stopped after the regions. */
static pthread_barrier_t whole_go, whole_done;
static long long whole_value;
static void *whole_thread(void *arg)
{
    (void)arg;
    const char *names[] = { READ };
    PAPI_register_thread();
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    pthread_barrier_wait(&whole_go);
    pthread_barrier_wait(&whole_done);
    CHECK_PAPI(PAPI_stop(es, &whole_value));
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_unregister_thread();
    return NULL;
}

static int readreset_case(void)
{
    env_defaults();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    pthread_t t;
    pthread_barrier_init(&whole_go, NULL, 2);
    pthread_barrier_init(&whole_done, NULL, 2);
    pthread_create(&t, NULL, whole_thread, NULL);
    pthread_barrier_wait(&whole_go);
    const char *names[] = { READ };
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    long long sum = 0, v, added = 0;
    for (int r = 0; r < 20; r++) {
        /* Work in the region; some of it still in the sample in progress at the boundary. */
        gpu_read(0, 100 + r);
        fake_pm_add(0, "dram__bytes_read.sum", 7);
        added += 107 + r;
        nap_us(r % 3 ? 300 : 2500);
        CHECK_PAPI(PAPI_read(es, &v));
        CHECK_PAPI(PAPI_reset(es));
        sum += v;
    }
    CHECK_PAPI(PAPI_stop(es, &v));
    sum += v;
    pthread_barrier_wait(&whole_done);
    pthread_join(t, NULL);
    CHECK_EQ("the whole counts every byte", whole_value, added);
    CHECK_EQ("the regions add up to the whole", sum, whole_value);
    return ct_done();
}

static int union_case(void)
{
    env_defaults();
    ct_library_init();
    const char *a[] = { READ }, *b[] = { WRITE };
    long long va, vb;
    int sa = ct_eventset(1, a);
    CHECK_PAPI(PAPI_start(sa));
    gpu_read(0, 300);
    settle();
    CHECK_EQ("one SetConfig for the first set", fake_pm_calls("SetConfig"), 1);
    /* The second set on this thread would be a second running set of one component: stop the
     * first for its start, as a tool with one set per phase does. */
    CHECK_PAPI(PAPI_stop(sa, &va));
    CHECK_EQ("the first set's bytes", va, 300);
    int sb = ct_eventset(1, b);
    CHECK_PAPI(PAPI_start(sb));
    CHECK_EQ("the union configures once more", fake_pm_calls("SetConfig"), 2);
    CHECK_EQ("on a new PM sampling object (a second SetConfig on one does not take)", fake_pm_calls("Enable"), 2);
    fake_pm_add(0, "dram__bytes_write.sum", 40);
    gpu_read(0, 60);
    CHECK_PAPI(PAPI_stop(sb, &vb));
    CHECK_EQ("the second set reads its metric", vb, 40);
    CHECK_PAPI(PAPI_start(sa));
    CHECK_EQ("the first set starts again without a configuration", fake_pm_calls("SetConfig"), 2);
    gpu_read(0, 8);
    CHECK_PAPI(PAPI_stop(sa, &va));
    CHECK_EQ("and reads its own metric in the union", va, 8);
    return ct_done();
}

static int sig_es, sig_reads, sig_bad, sig_refused;
static long long sig_last;
static void on_prof(int sig)
{
    (void)sig;
    long long v = 0;
    if (PAPI_read(sig_es, &v) != PAPI_OK || v < sig_last)
        sig_bad++;
    sig_last = v;
    sig_reads++;
    if (sig_reads == 50) {
        long long w;
        sig_refused += PAPI_stop(sig_es, &w) != PAPI_OK;
    }
}

static int sigread_case(void)
{
    env_defaults();
    ct_library_init();
    const char *names[] = { READ };
    sig_es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(sig_es));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    timer_t tm = ct_sigprof_timer(1000);
    long long added = 0, v;
    for (int i = 0; i < 400; i++) {
        fake_pm_add(0, "dram__bytes_read.sum", 3);
        added += 3;
        if (i % 10 == 0)
            fake_pm_tick(0);
        if (i % 7 == 0)
            PAPI_read(sig_es, &v);
        nap_us(500);
    }
    settle();
    timer_delete(tm);
    signal(SIGPROF, SIG_IGN);
    CHECK_PAPI(PAPI_stop(sig_es, &v));
    ct_note("%d reads in the handler", sig_reads);
    CHECK_REL("the handler read", sig_reads, ">", 50);
    CHECK_EQ("every handler read PAPI_OK and never went down", sig_bad, 0);
    CHECK_EQ("PAPI_stop in the handler is refused", sig_refused, 1);
    CHECK_EQ("the stop is exact", v, added);
    return ct_done();
}

/* A decode of the session now, on another thread: a set of the same metric starts (its start
 * flushes the session and publishes) and stops, leaving sampling to the test's set. */
static void *decode_thread(void *arg)
{
    (void)arg;
    const char *names[] = { READ };
    long long v;
    PAPI_register_thread();
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    CHECK_PAPI(PAPI_stop(es, &v));
    ct_destroy(&es);
    PAPI_unregister_thread();
    return NULL;
}

static void decode_now(void)
{
    pthread_t t;
    pthread_create(&t, NULL, decode_thread, NULL);
    pthread_join(t, NULL);
}

static int hb_es, hb_rc;
static long long hb_value;
static void hb_on_prof(int sig)
{
    (void)sig;
    hb_rc = PAPI_read(hb_es, &hb_value);
}

/* TAU's read + reset with its SIGPROF sampler reading the same set in between, after work
 * decoded since the read: the reset continues from the thread's read, not the handler's. */
static int handlerbase_case(void)
{
    long long first, second;
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "5000000", 1);   /* the decodes are the test's (decode_now) */
    env_defaults();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    const char *names[] = { READ };
    hb_es = ct_eventset(1, names);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hb_on_prof;
    sigaction(SIGPROF, &sa, NULL);
    CHECK_PAPI(PAPI_start(hb_es));
    gpu_read(0, 100);
    decode_now();
    CHECK_PAPI(PAPI_read(hb_es, &first));
    gpu_read(0, 25);
    decode_now();
    raise(SIGPROF);   /* the sampler reads between the read and the reset */
    CHECK_PAPI(PAPI_reset(hb_es));
    gpu_read(0, 50);
    decode_now();
    CHECK_PAPI(PAPI_stop(hb_es, &second));
    signal(SIGPROF, SIG_IGN);
    CHECK_EQ("the handler's read is PAPI_OK", hb_rc, PAPI_OK);
    CHECK_EQ("and sees the work since the start", hb_value, 125);
    CHECK_EQ("the thread's read", first, 100);
    CHECK_EQ("the windows add up to every byte (100 + 75, not 100 + 50)", first + second, 175);
    return ct_done();
}

/* A set that runs on another thread through a loss, and what its read then says. */
static pthread_barrier_t pl_started, pl_done;
static int pl_read_rc;
static void *pl_other(void *arg)
{
    (void)arg;
    const char *names[] = { READ };
    long long v;
    PAPI_register_thread();
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    pthread_barrier_wait(&pl_started);
    pthread_barrier_wait(&pl_done);
    pl_read_rc = PAPI_read(es, &v);
    PAPI_stop(es, &v);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_unregister_thread();
    return NULL;
}

/* Losses that happened before a set existed (an overflow of the hardware buffer, a gap) while
 * another set ran: the new set's start, whose flush finds them, succeeds, and its window reads
 * exactly; the running set's read, whose window saw the overflow, fails. */
static int priorloss_case(void)
{
    char err[8192] = "";
    long long v;
    setenv("CUPTI_CB_SAMPLING_BUFFER_MB", "1", 1);   /* 256 records of the fake's 4 KiB */
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "5000000", 1);   /* the decodes are the test's */
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    pthread_barrier_init(&pl_started, NULL, 2);
    pthread_barrier_init(&pl_done, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, pl_other, NULL);
    pthread_barrier_wait(&pl_started);
    for (int i = 0; i < 300; i++)
        gpu_read(0, 1);   /* 300 samples into a buffer of 256: an overflow */
    CHECK_REL("the fake dropped samples", fake_pm_lost(0), ">", 0);
    const char *names[] = { READ };
    int es = ct_eventset(1, names);
    int rc = CAPTURED(err, PAPI_start(es));
    CHECK_EQ("an overflow before the set existed does not refuse its start", rc, PAPI_OK);
    if (rc != PAPI_OK)
        ct_note("%s", err);
    gpu_read(0, 9);
    decode_now();
    CHECK_PAPI(PAPI_stop(es, &v));
    CHECK_EQ("and the set's window reads exactly", v, 9);
    gpu_read(0, 1);
    fake_pm_skip(0, 2);
    nap_us(2500);   /* two samples the GPU leaves out: a gap */
    gpu_read(0, 1);
    rc = CAPTURED(err, PAPI_start(es));
    CHECK_EQ("a gap before the set started does not refuse its start either", rc, PAPI_OK);
    if (rc != PAPI_OK)
        ct_note("%s", err);
    gpu_read(0, 4);
    decode_now();
    CHECK_PAPI(PAPI_stop(es, &v));
    CHECK_EQ("and that window reads exactly too", v, 4);
    pthread_barrier_wait(&pl_done);
    pthread_join(t, NULL);
    CHECK_EQ("the set that ran through the overflow fails its read", pl_read_rc, PAPI_ECMP);
    return ct_done();
}

static double as_double(long long v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* One sample of the device: its .max and .min (the largest and smallest unit's count within the
 * sample, as CUPTI evaluates them) and its .sum. */
static void gpu_sample(double max, double min, double sum)
{
    fake_pm_add(0, "dram__bytes_read.max", max);
    fake_pm_add(0, "dram__bytes_read.min", min);
    fake_pm_add(0, "dram__bytes_read.sum", sum);
    fake_pm_tick(0);
}

/* A counter's .max and .min over a window of samples: the largest and the smallest per-sample
 * value, never their sum; each window (start, reset) its own. */
static int minmax_case(void)
{
    long long v[3];
    env_defaults();
    ct_library_init();
    const char *names[] = { "dram__bytes_read.max:sampled", "dram__bytes_read.min:sampled", READ };
    int es = ct_eventset(3, names);
    PAPI_event_info_t info;
    CHECK_PAPI(PAPI_get_event_info(code_of(names[0]), &info));
    CHECK_EQ("a sampled .max is a double", info.data_type, PAPI_DATATYPE_FP64);
    CHECK_PAPI(PAPI_start(es));
    gpu_sample(300, 20, 1000);
    gpu_sample(800, 70, 2000);
    gpu_sample(500, 40, 1500);
    settle();
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_TRUE("the window's .max is the largest sample's (800), not their sum", as_double(v[0]) == 800);
    ct_note(".max read %.0f, .min %.0f", as_double(v[0]), as_double(v[1]));
    CHECK_TRUE("its .min the smallest sample's (idle samples count 0)", as_double(v[1]) == 0);
    CHECK_EQ("while .sum adds up", v[2], 4500);
    CHECK_PAPI(PAPI_reset(es));
    gpu_sample(200, 10, 100);
    gpu_sample(400, 30, 100);
    settle();
    CHECK_PAPI(PAPI_read(es, v));
    CHECK_TRUE("after a reset the .max is the new window's own (400)", as_double(v[0]) == 400);
    ct_note(".max read %.0f", as_double(v[0]));
    CHECK_EQ("and .sum too", v[2], 200);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_TRUE("the stop gives the same .max", as_double(v[0]) == 400);
    CHECK_PAPI(PAPI_start(es));
    gpu_sample(600, 5, 10);
    settle();	/* a .max or .min is per-sample: the stop's is a copy, as old as a read's (cupti_cb-sampling(7)) */
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_TRUE("a new start's window has its own .max (600)", as_double(v[0]) == 600);
    ct_note(".max read %.0f", as_double(v[0]));
    return ct_done();
}

static int conflict_case(void)
{
    char err[8192] = "";
    long long v;
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    fake_range_error(CUPTI_SUCCESS);
    fake_set_current(FAKE_CTX0);
    ct_library_init();
    const char *rp[] = { "dram__bytes_read.sum" }, *sp[] = { READ };
    int r = ct_eventset(1, rp);
    CHECK_PAPI(PAPI_start(r));
    int s = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&s));
    int rc = CAPTURED(err, ct_add(s, READ));
    CHECK_EQ("a sampled metric on a device the Range Profiler holds: PAPI_ECNFLCT at the add", rc, PAPI_ECNFLCT);
    CHECK_TRUE("the sentence names the holder", strstr(err, "Range Profiler") != NULL);
    CHECK_PAPI(PAPI_stop(r, &v));
    CHECK_PAPI(PAPI_cleanup_eventset(r));
    CHECK_PAPI(ct_add(s, READ));
    CHECK_PAPI(PAPI_start(s));
    gpu_read(0, 11);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("once the Range Profiler's set is cleaned up, the sampled set counts", v, 11);
    (void)sp;
    rc = CAPTURED(err, ct_add(r, "dram__bytes_read.sum"));
    CHECK_EQ("and now the Range Profiler's add is refused", rc, PAPI_ECNFLCT);
    CHECK_TRUE("naming PM sampling", strstr(err, "PM sampling") != NULL);
    /* The sampled set stopped is not enough (an enabled PM sampling object keeps the Range
     * Profiler from starting); once it is cleaned up the Range Profiler's set starts. */
    CHECK_PAPI(PAPI_cleanup_eventset(s));
    CHECK_PAPI(ct_add(r, "dram__bytes_read.sum"));
    CHECK_PAPI(PAPI_start(r));
    CHECK_PAPI(PAPI_stop(r, &v));
    return ct_done();
}

static int busy_case(void)
{
    char err[8192] = "";
    long long v;
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    fake_pm_fault("Start", 1, CUPTI_ERROR_HARDWARE_BUSY);
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    int rc = CAPTURED(err, PAPI_start(s));
    CHECK_EQ("another profiler holds the counters: PAPI_ECNFLCT", rc, PAPI_ECNFLCT);
    CHECK_TRUE("and says so", strstr(err, "another profiler") != NULL);
    CHECK_EQ("callback events keep counting", play_counted_launches(4), 4);
    CHECK_PAPI(PAPI_start(s));
    gpu_read(0, 21);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("with the counters free the same set counts", v, 21);
    return ct_done();
}

static int noperm_case(void)
{
    char err[8192] = "";
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    fake_pm_fault("Enable", -1, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    int rc = CAPTURED(err, PAPI_start(s));
    CHECK_EQ("no permission: PAPI_EPERM", rc, PAPI_EPERM);
    CHECK_TRUE("naming the module option", strstr(err, "NVreg_RestrictProfilingToAdminUsers") != NULL);
    return ct_done();
}

static int unsupported_case(void)
{
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    fake_pm_unsupported(1);
    ct_library_init();
    int s = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&s));
    int rc = CAPTURED(err, ct_add(s, READ));
    CHECK_EQ("a device CUPTI cannot PM-sample: PAPI_ENOSUPP at the add", rc, PAPI_ENOSUPP);
    CHECK_TRUE("with the reason", strstr(err, "does not support PM sampling") != NULL);
    CHECK_PAPI(ct_add(s, "kernel.launches"));
    return ct_done();
}

static int overflow_case(void)
{
    char err[8192] = "";
    long long v;
    setenv("CUPTI_CB_SAMPLING_BUFFER_MB", "1", 1);   /* 256 records of the fake's 4 KiB */
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "200000", 1);
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    CHECK_PAPI(PAPI_start(s));
    for (int i = 0; i < 300; i++)
        gpu_read(0, 1);   /* 300 samples before the next decode */
    settle();
    int rc = CAPTURED(err, PAPI_stop(s, &v));
    ct_note("lost in the fake: %lu", fake_pm_lost(0));
    CHECK_REL("the fake dropped samples", fake_pm_lost(0), ">", 0);
    CHECK_EQ("values that miss samples: PAPI_ECMP", rc, PAPI_ECMP);
    CHECK_TRUE("saying what to change", strstr(err, "CUPTI_CB_SAMPLING_DECODE_US") != NULL);
    /* PAPI_stop read first and failed: the set still runs. */
    CHECK_PAPI(PAPI_reset(s));
    gpu_read(0, 9);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("PAPI_reset starts a new window, read exactly at the stop", v, 9);
    return ct_done();
}

static int decodefail_case(void)
{
    long long v;
    env_defaults();
    ct_library_init();
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    CHECK_PAPI(PAPI_start(s));
    gpu_read(0, 5);
    int before = fake_pm_calls("DecodeData");
    fake_pm_fault("DecodeData", 1, CUPTI_ERROR_UNKNOWN);
    /* The decode thread meets the fault, and its next pass decodes the sample the failed one
     * left (a third call begins once that pass is done): on shared cores, however long. */
    while (fake_pm_calls("DecodeData") < before + 3)
        nap_us(1000);
    CHECK_EQ("a failed decode: the read fails", PAPI_read(s, &v), PAPI_ECMP);
    CHECK_PAPI(PAPI_reset(s));
    gpu_read(0, 17);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("a reset starts a good window, read exactly", v, 17);
    return ct_done();
}

static int badenv_case(void)
{
    char err[8192] = "";
    setenv("CUPTI_CB_SAMPLING_INTERVAL_US", "abc", 1);
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    int rc = CAPTURED(err, PAPI_start(s));
    CHECK_EQ("a bad interval: PAPI_EINVAL", rc, PAPI_EINVAL);
    CHECK_TRUE("naming the variable", strstr(err, "CUPTI_CB_SAMPLING_INTERVAL_US=abc") != NULL);
    return ct_done();
}

static int otherprofiler_case(void)
{
    char err[8192] = "";
    long long v;
    setenv("PAPI_VERBOSE", "1", 1);
    fake_profiler_init_error(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    ct_library_init();
    int s = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&s));
    int rc = CAPTURED(err, ct_add(s, READ));
    CHECK_EQ("a sampled metric beside another profiler: PAPI_ECNFLCT", rc, PAPI_ECNFLCT);
    CHECK_TRUE("naming the other profiler", strstr(err, "another profiler") != NULL);
    CHECK_EQ("a Range Profiler metric too", ct_add(s, "dram__bytes_read.sum"), PAPI_ECNFLCT);
    CHECK_EQ("without a catalogue a metric-like name cannot be told apart: PAPI_ECNFLCT too",
             ct_add(s, "dram__no_such_metric.sum:sampled"), PAPI_ECNFLCT);
    CHECK_PAPI(ct_add(s, "kernel.launches"));
    CHECK_PAPI(PAPI_start(s));
    play_launches(2, FAKE_CTX0);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("callback events count", v, 2);
    return ct_done();
}

static int gap_case(void)
{
    char err[8192] = "";
    long long v[2];
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *names[] = { READ, "kernel.launches" };
    int es = ct_eventset(2, names);
    CHECK_PAPI(PAPI_start(es));
    gpu_read(0, 10);
    fake_pm_skip(0, 2);
    fake_pm_add(0, "dram__bytes_read.sum", 1000);   /* in a sample the GPU leaves out */
    nap_us(2500);                                    /* it and the next complete: 2 ms missing */
    gpu_read(0, 30);
    play_launches(5, FAKE_CTX0);
    settle();
    int rc = CAPTURED(err, PAPI_read(es, v));
    CHECK_EQ("a read over a gap returns PAPI_OK", rc, PAPI_OK);
    CHECK_EQ("with the samples decoded", v[0], 40);
    CHECK_EQ("and every launch", v[1], 5);
    CHECK_EQ("the fake counted no overflow", fake_pm_lost(0), 0);
    CHECK_TRUE("PAPI_VERBOSE says the sampled values may undercount", strstr(err, "may undercount") != NULL);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("the stop returns them too", v[0], 40);
    return ct_done();
}

static void no_handler(int es, void *address, long long overflow_vector, void *context)
{
    (void)es, (void)address, (void)overflow_vector, (void)context;
}

static int overflow_refused_case(void)
{
    char err[8192] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *names[] = { READ };
    int es = ct_eventset(1, names), code = code_of(READ);
    int rc = CAPTURED(err, PAPI_overflow(es, code, 100, 0, no_handler));
    CHECK_EQ("PAPI_overflow on a sampled metric is refused: PAPI_ENOSUPP", rc, PAPI_ENOSUPP);
    CHECK_TRUE("saying why", strstr(err, "decoded") != NULL);
    return ct_done();
}

/* Measured in a child: the high-level API writes its report at exit. */
static int hl_child(void)
{
    env_defaults();
    if (PAPI_hl_region_begin("one") != PAPI_OK)
        ct_fatal("PAPI_hl_region_begin failed");
    gpu_read(0, 300);
    play_launches(2, FAKE_CTX0);
    settle();
    if (PAPI_hl_region_end("one") != PAPI_OK || PAPI_hl_region_begin("two") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end/begin failed");
    gpu_read(0, 50);
    gpu_read(0, 7);
    play_launches(3, FAKE_CTX0);
    settle();
    if (PAPI_hl_region_end("two") != PAPI_OK)
        ct_fatal("PAPI_hl_region_end failed");
    return 0;
}

static int hl_case(void)
{
    const char *report = hl_run_child("cupti_cb:::" READ ",cupti_cb:::kernel.launches");
    CHECK_EQ("one: its sampled bytes", reported(report, "one", READ), 300);
    CHECK_EQ("one: its launches", reported(report, "one", "kernel.launches"), 2);
    CHECK_EQ("two: its sampled bytes", reported(report, "two", READ), 57);
    CHECK_EQ("two: its launches", reported(report, "two", "kernel.launches"), 3);
    return ct_done();
}

static int devices_case(void)
{
    long long v[2];
    env_defaults();
    fake_device_count(CUDA_SUCCESS, 2);
    ct_library_init();
    const char *names[] = { READ, READ ":device=1" };
    int es = ct_eventset(2, names);
    fake_set_current(FAKE_CTX1);
    CHECK_PAPI(PAPI_start(es));
    gpu_read(1, 5);
    gpu_read(0, 7);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("started on device 1: the event without a device counts device 1", v[0], 5);
    CHECK_EQ(":device=1 counts device 1", v[1], 5);
    fake_set_current(FAKE_CTX0);
    CHECK_PAPI(PAPI_start(es));
    gpu_read(1, 3);
    gpu_read(0, 4);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("started again on device 0: it counts device 0", v[0], 4);
    CHECK_EQ(":device=1 still counts device 1", v[1], 3);
    return ct_done();
}

/* A program that exits with a sampled set running, without PAPI_shutdown: the decode thread
 * is stopped before libcupti's teardown (a decode during it aborts the fake, which takes 200 ms
 * to tear down, while the thread decodes every millisecond). */
static int atexit_case(void)
{
    env_defaults();
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "1000", 1);
    setenv("FAKE_CUPTI_EXIT_PAUSE_MS", "200", 1);
    ct_library_init();
    const char *names[] = { READ };
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    gpu_read(0, 100);
    CHECK_EQ("sampling runs", fake_pm_started(0), 1);
    return ct_done();	/* exits with the set running */
}

/* fork() while the decode thread is inside a decode (holding its session's lock): the child's
 * read of the inherited set fails with a sentence (its sessions are the parent's), and its stop
 * returns (before: the parent's frozen totals with PAPI_OK, and a stop that waited for ever on
 * that lock).  The parent counts on. */
static int fork_case(void)
{
    env_defaults();
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "1000", 1);
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *names[] = { READ };
    long long v[1];
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    gpu_read(0, 100);
    fake_pm_decode_delay_us(50000);
    while (!fake_pm_decoding())
        sched_yield();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(5);	/* a hang is a SIGALRM */
        char err[4096] = "";
        int rc = CAPTURED(err, PAPI_read(es, v));
        int ok = rc != PAPI_OK && strstr(err, "this process is a fork() child") != NULL;
        rc = PAPI_stop(es, v);
        ok = ok && rc != PAPI_OK;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!CHECK_TRUE("the child's read failed with its sentence, and its stop returned",
                    WIFEXITED(status) && WEXITSTATUS(status) == 0))
        ct_note("child: %s %d", WIFSIGNALED(status) ? "killed by signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    fake_pm_decode_delay_us(0);
    while (fake_pm_decoding())	/* the slow decode the fork happened in */
        sched_yield();
    gpu_read(0, 50);
    CHECK_PAPI(PAPI_stop(es, v));
    CHECK_EQ("the parent counts on", v[0], 150);
    return ct_done();
}


/* ---- windows cut by the samples' timestamps, with no sleep ------------------------------- */

static uint64_t fake_now(void)   /* the fake GPU's clock: CLOCK_MONOTONIC, as cuptiGetTimestamp's */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The program's synchronization: returns once the GPU's work up to `end` is done. */
static void sync_until(uint64_t end)
{
    while (fake_now() < end)
        nap_us(50);
}

/* |got - want| <= tol * want, with both in the note. */
static void check_near(const char *name, double got, double want, double tol)
{
    ct_result(fabs(got - want) <= tol * want + 1, "%s: %.0f for %.0f (%.4f)", name, got, want,
              want ? got / want : 0);
}

/* start / work / synchronize / stop with no sleep: the window holds the work and no more, also
 * when the start comes right after earlier work, and a kernel in flight at the start counts from
 * the start on. Before windows were cut by timestamps, such a stop read almost nothing (the
 * samples of the work were not decoded yet). */
static int window_case(void)
{
    env_defaults();
    ct_library_init();
    const char *names[] = { READ };
    long long v;
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    uint64_t t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 5e6, t + 100000, t + 5100000);
    sync_until(t + 5100000);
    CHECK_PAPI(PAPI_stop(es, &v));
    check_near("start / 5 ms of work / synchronize / stop: the work", v, 5e6, 1e-6);

    /* Work that ended right before the start (20 us), then the window's own. */
    t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 3e6, t, t + 3000000);
    sync_until(t + 3020000);
    CHECK_PAPI(PAPI_start(es));
    t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 4e6, t + 20000, t + 4020000);
    sync_until(t + 4020000);
    CHECK_PAPI(PAPI_stop(es, &v));
    check_near("work finished right before the start is not counted", v, 4e6, 1e-6);

    /* A kernel in flight across the start: the part after it (300 ms long, so that the start
     * lands inside it on a loaded machine too). */
    t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 6e6, t, t + 300000000);
    sync_until(t + 100000000);
    uint64_t a = fake_now();
    CHECK_PAPI(PAPI_start(es));
    sync_until(t + 300000000);
    CHECK_PAPI(PAPI_stop(es, &v));
    double most = 6e6 * (double)(t + 300000000 - a) / 3e8;
    ct_result(v <= most + 1 && v >= 0.98 * most, "a kernel in flight at the start counts from it: %lld for %.0f",
              v, most);
    return ct_done();
}

/* TAU's read + reset at 20 region boundaries inside steady work, with no sleep: the regions add
 * up to a whole window on another thread and to the work, within 0.1%. With
 * CUPTI_CB_SAMPLING_EXACT=1 (regions_exact) each region also reads its own share, within 1%. */
static int regions_run(int exact)
{
    env_defaults();
    if (exact)
        setenv("CUPTI_CB_SAMPLING_EXACT", "1", 1);
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    pthread_t th;
    pthread_barrier_init(&whole_go, NULL, 2);
    pthread_barrier_init(&whole_done, NULL, 2);
    pthread_create(&th, NULL, whole_thread, NULL);
    pthread_barrier_wait(&whole_go);
    const char *names[] = { READ };
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    /* Steady work for 80 ms; a boundary every 0.7 ms of the program's own time (an exact read
     * adds its wait), all within the work; the stop after its end. */
    const double work = 8e7;
    const uint64_t span = 80000000;
    uint64_t t = fake_now() + 50000;
    fake_pm_add_span(0, "dram__bytes_read.sum", work, t, t + span);
    long long v, sum = 0;
    uint64_t edge = t;
    int off = 0;
    for (int r = 1; r <= 20; r++) {
        sync_until((r == 1 ? t : fake_now()) + 700000);
        uint64_t at = fake_now();
        CHECK_PAPI(PAPI_read(es, &v));
        CHECK_PAPI(PAPI_reset(es));
        sum += v;
        /* Its share of the work: the part of the span within it (a loaded machine's naps may
         * outlast the span). A region whose end lies in the span's last 2 ms is left out: its
         * boundary's sample holds the end of the work, the edge error cupti_cb-sampling(7)
         * bounds. */
        uint64_t lo = edge, hi = at < t + span ? at : t + span;
        double own = hi > lo ? work * (double)(hi - lo) / (double)span : 0;
        int checked = at + 2000000 <= t + span || edge >= t + span;
        if (exact && r > 1 && checked && fabs((double)v - own) > 0.01 * own + 1)
            off++, ct_note("region %d: %lld for %.0f", r, v, own);
        edge = at < t + span ? at : t + span;
    }
    sync_until(t + span);
    CHECK_PAPI(PAPI_stop(es, &v));
    sum += v;
    pthread_barrier_wait(&whole_done);
    pthread_join(th, NULL);
    check_near("the whole: the work", whole_value, work, 1e-3);
    check_near("the regions add up to the whole", sum, whole_value, 1e-3);
    if (exact)
        CHECK_EQ("each region reads its own share within 1%", off, 0);
    return ct_done();
}

static int regions_case(void)
{
    return regions_run(0);
}

static int regions_exact_case(void)
{
    return regions_run(1);
}

/* Another thread's set brings a new sampled metric while a set runs: sampling stops for the new
 * configuration, and the running set's window misses the GPU's work in that time. Its read says
 * so (PAPI_ECMP with the sentence) instead of PAPI_OK with a short value (469 of 499 before). */
static int reconfig_b_rc;
static void *reconfig_other(void *arg)
{
    (void)arg;
    const char *names[] = { WRITE };
    long long v;
    PAPI_register_thread();
    int es = ct_eventset(1, names);
    reconfig_b_rc = PAPI_start(es);
    if (reconfig_b_rc == PAPI_OK)
        reconfig_b_rc = PAPI_stop(es, &v);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_unregister_thread();
    return NULL;
}

static int reconfig_case(void)
{
    env_defaults();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    const char *names[] = { READ };
    long long v;
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(es));
    uint64_t t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 1e6, t, t + 6000000);
    sync_until(t + 2000000);
    pthread_t th;
    pthread_create(&th, NULL, reconfig_other, NULL);
    pthread_join(th, NULL);
    CHECK_EQ("the other set starts and stops", reconfig_b_rc, PAPI_OK);
    CHECK_EQ("the union was configured again", fake_pm_calls("SetConfig"), 2);
    sync_until(t + 6000000);
    char err[4096] = "";
    int rc = CAPTURED(err, PAPI_read(es, &v));
    CHECK_EQ("the running set's read fails", rc, PAPI_ECMP);
    CHECK_TRUE("and says why", strstr(err, "another event set's metrics") != NULL);
    ct_note("%s", err);
    CHECK_PAPI(PAPI_reset(es));
    t = fake_now();
    fake_pm_add_span(0, "dram__bytes_read.sum", 2e6, t + 10000, t + 3010000);
    sync_until(t + 3010000);
    CHECK_PAPI(PAPI_stop(es, &v));
    check_near("a reset starts a good window", v, 2e6, 1e-6);
    return ct_done();
}

static int profiler_case(void)
{
    long long v;
    env_defaults();
    ct_library_init();
    const char *sp[] = { READ };
    int s = ct_eventset(1, sp);
    CHECK_PAPI(PAPI_start(s));
    CHECK_EQ("the profiler is up while sampling", fake_profiler_up(), 1);
    CHECK_PAPI(PAPI_stop(s, &v));
    CHECK_EQ("never initialized twice in a row", fake_profiler_double_inits(), 0);
    PAPI_shutdown();
    CHECK_EQ("down after PAPI_shutdown", fake_profiler_up(), 0);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "hl-child")) {
        fake_setup();
        return hl_child();
    }
    static const struct fake_case cases[] = {
        { "listing", listing_case },       { "exact", exact_case },         { "readreset", readreset_case },
        { "union", union_case },           { "sigread", sigread_case },     { "conflict", conflict_case },
        { "busy", busy_case },             { "noperm", noperm_case },       { "unsupported", unsupported_case },
        { "overflow", overflow_case },     { "decodefail", decodefail_case }, { "badenv", badenv_case },
        { "profiler", profiler_case },     { "otherprofiler", otherprofiler_case }, { "devices", devices_case },
        { "gap", gap_case },               { "hl", hl_case },               { "overflowrefused", overflow_refused_case },
        { "handlerbase", handlerbase_case }, { "priorloss", priorloss_case },
        { "minmax", minmax_case },         { "atexit", atexit_case },       { "fork", fork_case },
        { "window", window_case },         { "regions", regions_case },     { "regions_exact", regions_exact_case },
        { "reconfig", reconfig_case },
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
