/*
 * cpu_fake_overflow: PAPI_overflow on cupti_cb events, played through the fakes.
 *
 *   papi     - PAPI's own overflow ctests pattern (overflow_*.c): the set counted once without
 *              overflow, then again with a handler that counts its calls and decomposes each
 *              overflow vector; every 10th cudaMemcpy and every MiB copied gives one call, exactly
 *              (1,000 copies of 256 KiB: 100 and 250), the counts read are those of the run without
 *              overflow, and overflow turned off (threshold 0) gives no more calls;
 *   bigcopy  - one copy of 10 MiB with memcpy.bytes_htod@1MiB: 10 overflows, all during that copy;
 *   hpctoolkit - hpcrun's use (papi-c.c): PAPI_thread_init, one set per thread with
 *              PAPI_overflow(set, code, threshold, 0, handler), each thread making its own number
 *              of calls; the handler records a sample as hpcrun does (event index from the
 *              vector, the context) and checks that it runs on the thread whose call crossed the
 *              threshold, inside that call (a thread-local "inside call N" marker the played call
 *              sets), and that a PAPI_read there already counts the call;
 *   readreset - TAU's event-based sampling with a PAPI source (PapiLayer.cpp): PAPI_overflow with
 *              flags 0 on the thread's set, which TAU also reads and resets at every timer start and
 *              stop; the reads and resets do not move the thresholds (100 samples in 1,000 calls,
 *              each in call 10k) and the pieces add up to the calls;
 *   refuse   - gpu.* events, hardware metrics, times, levels and process-wide events are refused
 *              at PAPI_overflow with PAPI_ENOSUPP and a sentence under PAPI_VERBOSE; a ninth
 *              overflowing event with PAPI_ECNFLCT; a set made PAPI_GRN_PROC after PAPI_overflow
 *              at PAPI_start with PAPI_ECOMBO; a gpu.* event with PAPI_OVERFLOW_FORCE_SW at
 *              PAPI_start with PAPI_ENOSUPP;
 *   quiet    - calls that cross a threshold while no set is armed (a set without overflow, a set
 *              with overflow stopped) raise no signal; a restart counts from the start again;
 *   fork     - a fork() child of a thread whose set has overflow armed makes calls that would
 *              cross thresholds: no signal reaches the parent (the child's copy of the block must
 *              not signal the parent's thread), and the parent's samples stay exact;
 *   position - the 64th event of a set cannot overflow (PAPI's overflow vector): PAPI_ENOSUPP and
 *              a sentence; the 63rd can;
 *   changes  - events added and removed after PAPI_overflow: the overflowing event keeps its
 *              threshold wherever it moves in the set; removing it ends its overflows; an event
 *              that moves to where an overflowing one was does not inherit its threshold (no
 *              signal at its crossings).
 *
 * With the argument "bench" it measures what the hot path costs per call with no overflow
 * armed, with overflow armed but no crossing, and per crossing (signal and handler); the
 * numbers go to results/bench/RESULTS.md. Not part of `make check`'s cases.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#define MIB (1024 * 1024)

/* The call being played on this thread: 1, 2, ... (0: none). A handler that sees 0 ran outside
 * any CUDA call. */
static __thread int inside_call;

static void copy_htod(int n, size_t bytes)
{
    inside_call = n;
    play_htod(bytes, 0);
    inside_call = 0;
}

static pid_t my_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* ---- papi: PAPI's overflow ctests pattern ------------------------------------------------ */

#define EV_CALLS 0
#define EV_BYTES 1
static int handler_calls, by_event[2], outside_calls, bad_vectors;
static void *last_address;

static void count_handler(int es, void *address, long long vector, void *context)
{
    int idx[4], n = 4;
    (void)context;
    handler_calls++;
    last_address = address;
    if (!inside_call)
        outside_calls++;
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) != PAPI_OK || n < 1)
        bad_vectors++;
    for (int i = 0; i < n; i++)
        if (idx[i] >= 0 && idx[i] < 2)
            by_event[idx[i]]++;
}

static int papi_case(void)
{
    static const char *const names[] = {"cudaMemcpy.calls", "memcpy.bytes_htod"};
    long long plain[2], with[2];
    int code[2];
    ct_library_init();
    int es = ct_eventset(2, names);
    for (int i = 0; i < 2; i++) {
        char buf[PAPI_MAX_STR_LEN];
        PAPI_MUST(PAPI_event_name_to_code(ct_full_name(names[i], buf, sizeof buf), &code[i]));
    }
    /* The run without overflow. */
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 1000; i++)
        copy_htod(i, 256 * 1024);
    PAPI_MUST(PAPI_stop(es, plain));
    CHECK_EQ("without overflow: 1000 cudaMemcpy", plain[EV_CALLS], 1000);
    CHECK_EQ("without overflow: 250 MiB", plain[EV_BYTES], 250LL * MIB);

    CHECK_PAPI(PAPI_overflow(es, code[EV_CALLS], 10, 0, count_handler));
    CHECK_PAPI(PAPI_overflow(es, code[EV_BYTES], MIB, 0, count_handler));
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 1000; i++)
        copy_htod(i, 256 * 1024);
    PAPI_MUST(PAPI_stop(es, with));
    CHECK_EQ("with overflow: the same cudaMemcpy count", with[EV_CALLS], plain[EV_CALLS]);
    CHECK_EQ("and the same bytes", with[EV_BYTES], plain[EV_BYTES]);
    CHECK_EQ("cudaMemcpy.calls@10: 1000 / 10 overflows", by_event[EV_CALLS], 100);
    CHECK_EQ("memcpy.bytes_htod@1MiB: one per MiB copied", by_event[EV_BYTES], 250);
    /* The bytes are counted at the exit of the driver's copy, the call at the exit of
     * cudaMemcpy: a copy that crosses both thresholds (every 20th) overflows twice. */
    CHECK_EQ("handler calls: one per crossing", handler_calls, 100 + 250);
    CHECK_EQ("every vector decomposes into the set's events", bad_vectors, 0);
    CHECK_EQ("every overflow inside a cudaMemcpy", outside_calls, 0);
    CHECK_TRUE("the handler gets an address", last_address != NULL);

    /* Overflow off (PAPI's threshold 0): no more handler calls. */
    int before = handler_calls;
    CHECK_PAPI(PAPI_overflow(es, code[EV_CALLS], 0, 0, count_handler));
    CHECK_PAPI(PAPI_overflow(es, code[EV_BYTES], 0, 0, count_handler));
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 100; i++)
        copy_htod(i, MIB);
    PAPI_MUST(PAPI_stop(es, with));
    CHECK_EQ("overflow turned off: no handler call", handler_calls, before);
    CHECK_EQ("the set still counts", with[EV_CALLS], 100);
    ct_destroy(&es);
    return ct_done();
}

/* ---- bigcopy ----------------------------------------------------------------------------- */

static int big_calls_seen[4];

static void big_handler(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
    if (inside_call >= 0 && inside_call < 4)
        big_calls_seen[inside_call]++;
}

static int bigcopy_case(void)
{
    static const char *const names[] = {"memcpy.bytes_htod"};
    long long v;
    ct_library_init();
    int es = ct_eventset(1, names), code;
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::memcpy.bytes_htod", &code));
    CHECK_PAPI(PAPI_overflow(es, code, MIB, 0, big_handler));
    PAPI_MUST(PAPI_start(es));
    copy_htod(1, MIB / 2);      /* no crossing */
    copy_htod(2, 10 * MIB);     /* 10.5 MiB: crosses 1 .. 10 */
    copy_htod(3, MIB / 2);      /* 11 MiB: crosses 11 */
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("bytes", v, 11LL * MIB);
    CHECK_EQ("no overflow outside a call", big_calls_seen[0], 0);
    CHECK_EQ("the half MiB copy crosses nothing", big_calls_seen[1], 0);
    CHECK_EQ("the 10 MiB copy: 10 overflows, all during it", big_calls_seen[2], 10);
    CHECK_EQ("the copy that completes the 11th MiB: one", big_calls_seen[3], 1);
    ct_destroy(&es);
    return ct_done();
}

/* ---- hpctoolkit: one set per thread, samples at the call sites ---------------------------- */

#define THREADS 4
#define SAMPLES_MAX 64

struct sampler {
    int index;                  /* 0 .. THREADS-1 */
    int es;
    pid_t tid;
    int calls;                  /* cudaMemcpy calls it makes */
    int samples;
    int sample_call[SAMPLES_MAX];   /* the call each sample landed in */
    long long read_in_handler[SAMPLES_MAX];
    int wrong_thread, wrong_set, outside, bad_index, no_context;
};
static struct sampler samplers[THREADS];
static __thread struct sampler *me;
static pthread_barrier_t go;

static void hpcrun_like_handler(int es, void *pc, long long vector, void *context)
{
    struct sampler *s = me;
    int idx[4], n = 4;
    (void)pc;
    if (!vector)
        return;                 /* as hpcrun does */
    if (!s)
        return;
    if (my_tid() != s->tid)
        s->wrong_thread++;
    if (es != s->es)
        s->wrong_set++;
    if (!inside_call)
        s->outside++;
    if (!context)
        s->no_context++;
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) != PAPI_OK || n != 1 || idx[0] != 0)
        s->bad_index++;
    if (s->samples < SAMPLES_MAX) {
        long long v = -1;
        PAPI_read(es, &v);
        s->sample_call[s->samples] = inside_call;
        s->read_in_handler[s->samples] = v;
    }
    s->samples++;
}

static void *sampled_thread(void *arg)
{
    struct sampler *s = arg;
    long long v;
    int code;
    me = s;
    s->tid = my_tid();
    PAPI_MUST(PAPI_register_thread());
    s->es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&s->es));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &code));
    PAPI_MUST(PAPI_add_event(s->es, code));
    CHECK_PAPI(PAPI_overflow(s->es, code, 10, 0, hpcrun_like_handler));
    PAPI_MUST(PAPI_start(s->es));
    pthread_barrier_wait(&go);  /* all threads call at once */
    for (int i = 1; i <= s->calls; i++)
        copy_htod(i, 4096);
    PAPI_MUST(PAPI_stop(s->es, &v));
    CHECK_EQ("the thread's calls", v, s->calls);
    PAPI_MUST(PAPI_cleanup_eventset(s->es));
    PAPI_MUST(PAPI_destroy_eventset(&s->es));
    PAPI_unregister_thread();
    return NULL;
}

static int hpctoolkit_case(void)
{
    pthread_t th[THREADS];
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(pthread_self));
    pthread_barrier_init(&go, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        samplers[t].index = t;
        samplers[t].calls = 100 * (t + 1) + 7;  /* 107, 207, ...: 10, 20, ... samples */
        pthread_create(&th[t], NULL, sampled_thread, &samplers[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        struct sampler *s = &samplers[t];
        char what[128];
        snprintf(what, sizeof what, "thread %d: %d calls give %d samples", t, s->calls, s->calls / 10);
        CHECK_EQ(what, s->samples, s->calls / 10);
        CHECK_EQ("each on the thread that made the call", s->wrong_thread, 0);
        CHECK_EQ("with that thread's event set", s->wrong_set, 0);
        CHECK_EQ("each inside a call", s->outside, 0);
        CHECK_EQ("each with a context to unwind", s->no_context, 0);
        CHECK_EQ("the vector names the sampled event", s->bad_index, 0);
        int wrong_call = 0, wrong_read = 0;
        for (int k = 0; k < s->samples && k < SAMPLES_MAX; k++) {
            wrong_call += s->sample_call[k] != 10 * (k + 1);
            wrong_read += s->read_in_handler[k] != 10 * (k + 1);
        }
        CHECK_EQ("sample k lands in call 10k", wrong_call, 0);
        CHECK_EQ("and a read in the handler counts that call", wrong_read, 0);
    }
    return ct_done();
}

/* ---- readreset ---------------------------------------------------------------------------- */

static int rr_samples, rr_outside;

static void rr_handler(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
    rr_samples++;
    if (inside_call % 10 != 0)
        rr_outside++;
}

static int readreset_case(void)
{
    static const char *const names[] = {"cudaMemcpy.calls"};
    long long v, total = 0;
    ct_library_init();
    int es = ct_eventset(1, names), code;
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &code));
    CHECK_PAPI(PAPI_overflow(es, code, 10, 0, rr_handler));
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 1000; i++) {
        copy_htod(i, 64);
        if (i % 3 == 0) {       /* a TAU-like read + reset every few calls */
            PAPI_MUST(PAPI_read(es, &v));
            total += v;
            PAPI_MUST(PAPI_reset(es));
        }
    }
    PAPI_MUST(PAPI_stop(es, &v));
    total += v;
    CHECK_EQ("the pieces add up to the calls", total, 1000);
    CHECK_EQ("reads and resets do not move the thresholds: 100 samples", rr_samples, 100);
    CHECK_EQ("each in call 10k", rr_outside, 0);
    ct_destroy(&es);
    return ct_done();
}

/* ---- refuse ------------------------------------------------------------------------------- */

static void never_handler(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
}

/* PAPI_overflow on name (in a set with kernel.launches first): PAPI_ENOSUPP and a sentence
 * containing want. Then, unless the fakes cannot run the set (a metric), the set counts. */
static void refused(const char *name, const char *want, int runs)
{
    char err[4096] = "", buf[PAPI_MAX_STR_LEN], what[256];
    int es = PAPI_NULL, code;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "kernel.launches"));
    int rc = ct_add(es, name);
    snprintf(what, sizeof what, "%s is added", name);
    if (!CHECK_PAPI(rc) || PAPI_event_name_to_code(ct_full_name(name, buf, sizeof buf), &code) != PAPI_OK) {
        ct_destroy(&es);
        return;
    }
    rc = CAPTURED(err, PAPI_overflow(es, code, 100, 0, never_handler));
    snprintf(what, sizeof what, "PAPI_overflow on %s", name);
    ct_check_rc(what, rc, PAPI_ENOSUPP);
    snprintf(what, sizeof what, "the sentence for %s names it and says why (\"%s\")", name, want);
    CHECK_TRUE(what, strstr(err, name) && strstr(err, want));
    /* The refusal leaves the set as it was: it starts, counts, and raises nothing. */
    long long v[2];
    if (runs) {
        CHECK_PAPI(PAPI_start(es));
        play_launches(5, FAKE_CTX0);
        CHECK_PAPI(PAPI_stop(es, v));
        CHECK_EQ("and the set still counts", v[0], 5);
    }
    ct_destroy(&es);
}

static int refuse_case(void)
{
    char err[4096] = "";
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    refused("gpu.kernels", "GPU activity", 1);
    refused("gpu.memcpy.bytes", "GPU activity", 1);
    refused("dram__bytes_read.sum", "hardware metric", 0);
    refused("cudaMemcpy.time_ns", "time (ns)", 1);
    refused("alloc.live_bytes", "level", 1);
    refused("cudaMemcpy.calls:process", "process-wide", 1);

    /* At most 8 overflowing events per set. */
    static const char *const nine[] = {"cudaMemcpy.calls", "cudaMalloc.calls", "cudaFree.calls",
        "cudaGetDevice.calls", "cudaMemset.calls", "cudaLaunchKernel.calls", "cudaDeviceSynchronize.calls",
        "kernel.launches", "memcpy.bytes_htod"};
    int big = ct_eventset(9, nine), c9[9], rc;
    for (int i = 0; i < 9; i++) {
        char buf[PAPI_MAX_STR_LEN];
        PAPI_MUST(PAPI_event_name_to_code(ct_full_name(nine[i], buf, sizeof buf), &c9[i]));
        rc = CAPTURED(err, PAPI_overflow(big, c9[i], 100, 0, never_handler));
        if (i < 8)
            CHECK_PAPI(rc);
    }
    ct_check_rc("a ninth overflowing event", rc, PAPI_ECNFLCT);
    CHECK_TRUE("with a sentence that gives the limit", strstr(err, "at most 8 events") != NULL);
    for (int i = 0; i < 8; i++)
        CHECK_PAPI(PAPI_overflow(big, c9[i], 0, 0, never_handler));
    ct_destroy(&big);

    /* A set made process-wide after PAPI_overflow: refused at the start. */
    int pw = PAPI_NULL, cc;
    PAPI_MUST(PAPI_create_eventset(&pw));
    PAPI_MUST(ct_add(pw, "cudaMemcpy.calls"));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &cc));
    CHECK_PAPI(PAPI_overflow(pw, cc, 10, 0, never_handler));
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.granularity.eventset = pw;
    opt.granularity.granularity = PAPI_GRN_PROC;
    CHECK_PAPI(PAPI_set_opt(PAPI_GRANUL, &opt));
    rc = CAPTURED(err, PAPI_start(pw));
    ct_check_rc("PAPI_start of an overflowing set made PAPI_GRN_PROC", rc, PAPI_ECOMBO);
    CHECK_TRUE("with the sentence", strstr(err, "cudaMemcpy.calls") && strstr(err, "process-wide"));
    CHECK_PAPI(PAPI_overflow(pw, cc, 0, 0, never_handler));
    ct_destroy(&pw);

    /* PAPI_OVERFLOW_FORCE_SW never asks the component: the start says no. */
    int es = PAPI_NULL, code;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu.kernels"));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::gpu.kernels", &code));
    CHECK_PAPI(PAPI_overflow(es, code, 100, PAPI_OVERFLOW_FORCE_SW, never_handler));
    rc = CAPTURED(err, PAPI_start(es));
    ct_check_rc("PAPI_start of a gpu.* event with PAPI_OVERFLOW_FORCE_SW", rc, PAPI_ENOSUPP);
    CHECK_TRUE("with the sentence", strstr(err, "gpu.kernels") && strstr(err, "GPU activity"));
    CHECK_PAPI(PAPI_overflow(es, code, 0, PAPI_OVERFLOW_FORCE_SW, never_handler));
    ct_destroy(&es);
    return ct_done();
}

/* ---- quiet: no signal while nothing is armed ---------------------------------------------- */

static volatile sig_atomic_t raw_signals;
static struct sigaction papi_action;

static void counting(int sig, siginfo_t *info, void *uc)
{
    raw_signals++;
    if (papi_action.sa_flags & SA_SIGINFO && papi_action.sa_sigaction)
        papi_action.sa_sigaction(sig, info, uc);
}

/* Counts every delivery of the component's signal, and hands it on to what is installed. */
static void count_signal(int sig)
{
    struct sigaction sa;
    sigaction(sig, NULL, &papi_action);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = counting;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, NULL);
}

static int quiet_samples;
static void quiet_handler(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
    quiet_samples++;
}

static int quiet_case(void)
{
    static const char *const names[] = {"cudaMemcpy.calls"};
    long long v;
    int code;
    ct_library_init();
    int sig = PAPI_get_component_info(cb_cidx())->hardware_intr_sig;
    CHECK_TRUE("the component has an overflow signal of its own (a real-time one)",
               sig >= SIGRTMIN && sig <= SIGRTMAX);
    count_signal(sig);
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &code));
    /* A set without overflow. */
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 1000; i++)
        copy_htod(i, 64);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("1000 calls counted", v, 1000);
    CHECK_EQ("no signal without overflow", raw_signals, 0);

    CHECK_PAPI(PAPI_overflow(es, code, 10, 0, quiet_handler));
    count_signal(sig);          /* PAPI installed its handler: count in front of it */
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 25; i++)
        copy_htod(i, 64);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("armed: 2 samples in 25 calls", quiet_samples, 2);
    CHECK_EQ("one signal per crossing", raw_signals, 2);
    for (int i = 1; i <= 1000; i++)
        copy_htod(i, 64);
    CHECK_EQ("stopped: 1000 calls raise no signal", raw_signals, 2);
    CHECK_EQ("and give no sample", quiet_samples, 2);
    sigset_t pending;
    sigpending(&pending);
    CHECK_EQ("and none is pending", sigismember(&pending, sig), 0);
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 10; i++)
        copy_htod(i, 64);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("restarted: the 10th call since the start samples", quiet_samples, 3);
    CHECK_EQ("with one signal", raw_signals, 3);
    ct_destroy(&es);
    return ct_done();
}

/* ---- fork ----------------------------------------------------------------------------------- */

static int fork_case(void)
{
    static const char *const names[] = {"cudaMemcpy.calls"};
    long long v;
    int code, status = -1;
    ct_library_init();
    int sig = PAPI_get_component_info(cb_cidx())->hardware_intr_sig;
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &code));
    CHECK_PAPI(PAPI_overflow(es, code, 10, 0, quiet_handler));
    count_signal(sig);
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 15; i++)
        copy_htod(i, 64);
    CHECK_EQ("the parent: one sample in 15 calls", quiet_samples, 1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        for (int i = 1; i <= 100; i++)  /* 10 thresholds, were the set still armed here */
            copy_htod(i, 64);
        _exit(0);
    }
    waitpid(pid, &status, 0);
    CHECK_TRUE("the child exits 0", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ("no signal reached the parent from the child's calls", raw_signals, 1);
    for (int i = 16; i <= 30; i++)
        copy_htod(i, 64);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("the parent counts its own calls", v, 30);
    CHECK_EQ("and samples at its 20th and 30th", quiet_samples, 3);
    ct_destroy(&es);
    return ct_done();
}

/* ---- position: PAPI's overflow vector has 63 usable bits ------------------------------------ */

static int position_case(void)
{
    char err[4096] = "", name[PAPI_MAX_STR_LEN], n63[PAPI_MAX_STR_LEN] = "", n64[PAPI_MAX_STR_LEN] = "";
    int es = PAPI_NULL, added = 0, code = 0 | PAPI_NATIVE_MASK, c63 = 0, c64 = 0;
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    PAPI_MUST(PAPI_create_eventset(&es));
    /* The first 64 per-function call counts the catalogue lists. */
    int rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cb_cidx());
    while (rc == PAPI_OK && added < 64) {
        size_t len;
        if (PAPI_event_code_to_name(code, name) == PAPI_OK && (len = strlen(name)) > 6 &&
            !strcmp(name + len - 6, ".calls") && !strstr(name, ":::api.") && PAPI_add_event(es, code) == PAPI_OK) {
            added++;
            if (added == 63)
                c63 = code, snprintf(n63, sizeof n63, "%s", name);
            if (added == 64)
                c64 = code, snprintf(n64, sizeof n64, "%s", name);
        }
        rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cb_cidx());
    }
    CHECK_EQ("64 call counts in the set", added, 64);
    rc = CAPTURED(err, PAPI_overflow(es, c64, 10, 0, never_handler));
    ct_check_rc("PAPI_overflow on the 64th event", rc, PAPI_ENOSUPP);
    CHECK_TRUE("the sentence names it and the limit",
               strstr(err, strstr(n64, ":::") ? strstr(n64, ":::") + 3 : n64) && strstr(err, "first 63"));
    CHECK_PAPI(PAPI_overflow(es, c63, 10, 0, never_handler));
    CHECK_PAPI(PAPI_overflow(es, c63, 0, 0, never_handler));
    ct_note("63rd: %s, 64th: %s", n63, n64);
    ct_destroy(&es);
    return ct_done();
}

/* ---- changes: add and remove events around an overflowing one ------------------------------ */

static int ch_bytes, ch_launches, ch_other;

static void changes_handler(int es, void *address, long long vector, void *context)
{
    int idx[4], n = 4, codes[8], nc = 8;
    char name[PAPI_MAX_STR_LEN];
    (void)address, (void)context;
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) != PAPI_OK || PAPI_list_events(es, codes, &nc) != PAPI_OK)
        return;
    for (int i = 0; i < n; i++) {
        if (PAPI_event_code_to_name(codes[idx[i]], name) != PAPI_OK)
            ch_other++;
        else if (strstr(name, "memcpy.bytes_htod"))
            ch_bytes++;
        else if (strstr(name, "kernel.launches"))
            ch_launches++;
        else
            ch_other++;
    }
}

static int changes_case(void)
{
    long long v[4];
    int calls, bytes, launches;
    ct_library_init();
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &calls));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::memcpy.bytes_htod", &bytes));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::kernel.launches", &launches));
    PAPI_MUST(PAPI_add_event(es, calls));
    PAPI_MUST(PAPI_add_event(es, bytes));
    CHECK_PAPI(PAPI_overflow(es, bytes, MIB, 0, changes_handler));
    /* An event added after, and the one before it removed: the bytes move in the set. */
    PAPI_MUST(PAPI_add_event(es, launches));
    PAPI_MUST(PAPI_remove_event(es, calls));
    CHECK_PAPI(PAPI_overflow(es, launches, 10, 0, changes_handler));
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 8; i++)
        copy_htod(i, MIB / 2);
    play_launches(25, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("the bytes keep their threshold: 4 MiB give 4", ch_bytes, 4);
    CHECK_EQ("the added event overflows at its own: 25 launches give 2", ch_launches, 2);
    CHECK_EQ("no other event overflows", ch_other, 0);
    /* Removing an overflowing event ends its overflows; the other goes on. */
    PAPI_MUST(PAPI_remove_event(es, bytes));
    PAPI_MUST(PAPI_start(es));
    for (int i = 1; i <= 8; i++)
        copy_htod(i, MIB / 2);
    play_launches(10, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("removed: no more byte overflows", ch_bytes, 4);
    CHECK_EQ("the launches still overflow", ch_launches, 3);
    CHECK_EQ("and count", v[0], 10);
    ct_destroy(&es);

    /* {calls, bytes@100}; launches added and calls removed: launches now sit where the bytes
     * were in the component's list, and must not take their threshold. */
    int sig = PAPI_get_component_info(cb_cidx())->hardware_intr_sig;
    es = PAPI_NULL;
    ch_bytes = ch_launches = ch_other = 0;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(PAPI_add_event(es, calls));
    PAPI_MUST(PAPI_add_event(es, bytes));
    CHECK_PAPI(PAPI_overflow(es, bytes, 100, 0, changes_handler));
    PAPI_MUST(PAPI_add_event(es, launches));
    PAPI_MUST(PAPI_remove_event(es, calls));
    count_signal(sig);
    raw_signals = 0;
    PAPI_MUST(PAPI_start(es));
    play_launches(150, FAKE_CTX0);
    copy_htod(1, 250);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("the bytes: one copy of 250 at 100 gives 2", ch_bytes, 2);
    CHECK_EQ("in one signal; 150 launches, not overflowing, raise none", raw_signals, 1);
    ct_destroy(&es);
    return ct_done();
}

/* ---- bench ---------------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bench_samples;
static void bench_handler(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
    bench_samples++;
}

/* ns per played cudaMemcpy (runtime + driver callbacks) over n calls, best of 5. */
static double per_call(int es, int n)
{
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        long long v;
        PAPI_MUST(PAPI_start(es));
        uint64_t t0 = now_ns();
        for (int i = 0; i < n; i++)
            play_htod(64, 0);
        uint64_t t1 = now_ns();
        PAPI_MUST(PAPI_stop(es, &v));
        double ns = (double)(t1 - t0) / n;
        best = ns < best ? ns : best;
    }
    return best;
}

static void empty_action(int sig, siginfo_t *info, void *uc)
{
    (void)sig, (void)info, (void)uc;
}

/* ns of a bare signal round trip to the calling thread (tgkill, an empty handler, sigreturn):
 * the floor under a crossing. */
static double bare_signal(int sig, int n)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = empty_action;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, &old);
    pid_t pid = getpid(), tid = my_tid();
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < n; i++)
            syscall(SYS_tgkill, pid, tid, sig);
        double ns = (double)(now_ns() - t0) / n;
        best = ns < best ? ns : best;
    }
    sigaction(sig, &old, NULL);
    return best;
}

static int bench(void)
{
    static const char *const names[] = {"cudaMemcpy.calls"};
    const int n = 200000;
    int code;
    fake_setup();
    ct_library_init();
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::cudaMemcpy.calls", &code));
    double plain = per_call(es, n);
    PAPI_MUST(PAPI_overflow(es, code, 1 << 30, 0, bench_handler));
    double armed = per_call(es, n);
    PAPI_MUST(PAPI_overflow(es, code, 0, 0, bench_handler));
    double again = per_call(es, n);     /* the first run also warmed up: take the better */
    plain = again < plain ? again : plain;
    PAPI_MUST(PAPI_overflow(es, code, 1, 0, bench_handler));
    bench_samples = 0;
    double every = per_call(es, n);
    printf("played cudaMemcpy (runtime + driver callbacks), ns per call, best of 5 x %d calls:\n", n);
    printf("  no overflow armed          %8.1f\n", plain);
    printf("  armed, no crossing         %8.1f  (+%.1f)\n", armed, armed - plain);
    printf("  armed, a crossing per call %8.1f  (+%.1f: signal, PAPI dispatch, empty handler)\n", every,
           every - plain);
    printf("  samples per run            %d\n", bench_samples / 5);
    printf("bare signal round trip (tgkill, empty handler), ns: %.1f\n",
           bare_signal(PAPI_get_component_info(cb_cidx())->hardware_intr_sig, n));
    ct_destroy(&es);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        {"papi", papi_case},
        {"bigcopy", bigcopy_case},
        {"hpctoolkit", hpctoolkit_case},
        {"readreset", readreset_case},
        {"refuse", refuse_case},
        {"quiet", quiet_case},
        {"fork", fork_case},
        {"position", position_case},
        {"changes", changes_case},
    };
    if (argc > 1 && !strcmp(argv[1], "bench"))
        return bench();
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
