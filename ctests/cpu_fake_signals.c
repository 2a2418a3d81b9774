/*
 * cpu_fake_signals: which calls cupti_cb takes to be in a signal handler (cupti_cb-threads(7), "Signal
 * handlers"), through PAPI and the fakes: a thread's own calls get exact values from every source
 * whatever signals the program blocks for its own reasons, and a handler's read still takes the
 * handler's path.  Each case is a fresh process; "every source" is one set of kernel.launches
 * (callback), gpu.kernels (activity) and dram__bytes_read.sum:sampled (PM sampling), then one of
 * kernel.launches and dram__bytes_read.sum (Range Profiler), each stopped right after its work.
 *
 *   sigwait   - every signal blocked before PAPI_library_init; one thread sigwaits for SIGUSR1,
 *               another (created with that mask) and main measure: every source exact, every
 *               start PAPI_OK; the sigwaiting thread gets its SIGUSR1.
 *   inherited - main blocks SIGUSR1 before it creates its threads: a thread and main measure,
 *               every source exact.
 *   handler   - a real SIGPROF handler (installed as TAU's: no SA_NODEFER) reads a set of the
 *               three sources while main blocks SIGUSR1 for its own reasons: still a handler's
 *               read (PAPI_OK, no CUPTI, profiler or driver call, gpu.* as of the last flush, not
 *               the records waiting), PAPI_stop there refused; a SIGUSR2 handler nested in it
 *               reads the same way; the ordinary stop after them is exact.
 *   nodefer   - handlers installed with SA_NODEFER: with an empty sa_mask nothing is blocked
 *               anew, and the read is taken for the thread's own (it flushes: the records waiting
 *               are in its values, as the man page says); with its own signal in sa_mask it is a
 *               handler's read again (no call, no flush).
 *   handlerfail - a read that fails in a SIGPROF handler (its sampled window lost samples): no
 *               snprintf there (cupti_cb's calls of it counted while the handler reads); an
 *               ordinary read after it still fails with its sentence.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>

#define READ "dram__bytes_read.sum:sampled"
#define RANGE "dram__bytes_read.sum"

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The age of a sampled read at 1 ms intervals and decodes, four times over on shared cores. */
static void settle(void)
{
    nap_us(4 * (1000 + 2 * 1000) + 20000);
}

static void setup_env(void)
{
    setenv("CUPTI_CB_SAMPLING_INTERVAL_US", "1000", 1);
    setenv("CUPTI_CB_SAMPLING_DECODE_US", "1000", 1);
    setenv("CUPTI_CB_FLUSH_MS", "0", 1);	/* only the test's reads flush */
    fake_range_error(CUPTI_SUCCESS);
}

/* A kernel launched through the driver in ctx; returns its correlation id. */
static uint32_t launch(CUcontext ctx)
{
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    struct fake_call c;
    fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_SUCCESS, ctx);
    fake_enter(&c);
    fake_exit(&c);
    return c.correlation_id;
}

/* Calls of the profiler, CUPTI and the driver, and CUPTI's activity flushes. */
static long calls_now(void)
{
    return fake_profiler_calls() + fake_cupti_calls() + fake_cuda_calls() + fake_activity_flushes();
}

/* Every source in the calling thread, each value checked; who names the thread. */
static void measure_all(const char *who)
{
    long long v[3] = { -1, -1, -1 };
    const char *one[] = { "kernel.launches", "gpu.kernels", READ };
    fake_set_current(FAKE_CTX0);
    int es = ct_eventset(3, one);
    int rc = PAPI_start(es);
    ct_result(rc == PAPI_OK, "%s: PAPI_start of callback, gpu.* and sampled events: %s", who, ct_papi_err(rc));
    for (uint64_t k = 0; k < 3; k++)
        fake_activity_kernel(launch(FAKE_CTX0), 100 * k, 100 * k + 10, 0);
    fake_pm_add(0, "dram__bytes_read.sum", 300);
    fake_pm_tick(0);
    settle();
    rc = PAPI_stop(es, v);
    ct_result(rc == PAPI_OK, "%s: PAPI_stop: %s", who, ct_papi_err(rc));
    ct_result(v[0] == 3, "%s: kernel.launches %lld, want 3", who, v[0]);
    ct_result(v[1] == 3, "%s: gpu.kernels right after 3 finished kernels %lld, want 3", who, v[1]);
    ct_result(v[2] == 300, "%s: %s %lld, want 300", who, READ, v[2]);
    ct_destroy(&es);

    const char *two[] = { "kernel.launches", RANGE };
    es = ct_eventset(2, two);
    rc = PAPI_start(es);
    ct_result(rc == PAPI_OK, "%s: PAPI_start of a Range Profiler metric: %s", who, ct_papi_err(rc));
    fake_metric_add_ctx(FAKE_CTX0, RANGE, 500);
    play_launches(1, FAKE_CTX0);
    rc = PAPI_stop(es, v);
    ct_result(rc == PAPI_OK, "%s: PAPI_stop: %s", who, ct_papi_err(rc));
    ct_result(v[0] == 1 && v[1] == 500, "%s: kernel.launches %lld and %s %lld, want 1 and 500", who, v[0],
              RANGE, v[1]);
    ct_destroy(&es);
}

static void *measuring_thread(void *arg)
{
    PAPI_register_thread();
    measure_all(arg);
    PAPI_unregister_thread();
    return NULL;
}

static void measure_in_thread(const char *who)
{
    pthread_t t;
    pthread_create(&t, NULL, measuring_thread, (void *)who);
    pthread_join(t, NULL);
}

/* ---- sigwait ---- */

static int waited;
static void *sigwaiter(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigwait(&s, &waited);
    return NULL;
}

static int sigwait_case(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);	/* before PAPI_library_init, inherited by every thread */
    setup_env();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    pthread_t w;
    pthread_create(&w, NULL, sigwaiter, NULL);
    measure_in_thread("a thread created with every signal blocked");
    measure_all("main, every signal blocked");
    pthread_kill(w, SIGUSR1);
    pthread_join(w, NULL);
    CHECK_EQ("the sigwaiting thread got its SIGUSR1", waited, SIGUSR1);
    return ct_done();
}

/* ---- inherited ---- */

static int inherited_case(void)
{
    setup_env();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);	/* before the threads: they inherit it */
    measure_in_thread("a thread that inherited SIGUSR1 blocked");
    measure_all("main, SIGUSR1 blocked");
    return ct_done();
}

/* ---- handler ---- */

static int h_es = PAPI_NULL;
static int h_rc = 1, h_stop_rc = 1, h_nested_rc = 1;
static long long h_v[3], h_nested_v[3];
static long h_calls = -1, h_nested_calls = -1;

static void on_usr2(int sig)
{
    (void)sig;
    long before = calls_now();
    h_nested_rc = PAPI_read(h_es, h_nested_v);
    h_nested_calls = calls_now() - before;
}

static void on_prof(int sig)
{
    (void)sig;
    long long w[3];
    long before = calls_now();
    h_rc = PAPI_read(h_es, h_v);
    h_stop_rc = PAPI_stop(h_es, w);
    h_calls = calls_now() - before;
    raise(SIGUSR2);	/* a second handler inside the first */
}

static void install(int sig, void (*fn)(int), int flags, int masked)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    if (masked)
        sigaddset(&sa.sa_mask, masked);
    sa.sa_flags = flags;
    sigaction(sig, &sa, NULL);
}

static int handler_case(void)
{
    long long v[3];
    setup_env();
    ct_library_init();
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);	/* the program's own reasons */
    install(SIGUSR1, on_usr2, 0, 0);	/* with a handler, as programs that block it for a while have */
    const char *names[] = { "kernel.launches", "gpu.kernels", READ };
    fake_set_current(FAKE_CTX0);
    h_es = ct_eventset(3, names);
    CHECK_PAPI(PAPI_start(h_es));
    install(SIGPROF, on_prof, SA_RESTART, 0);
    install(SIGUSR2, on_usr2, SA_RESTART, 0);
    fake_activity_kernel(launch(FAKE_CTX0), 10, 20, 0);
    CHECK_PAPI(PAPI_read(h_es, v));
    CHECK_EQ("an ordinary read flushes: the first kernel", v[1], 1);
    fake_activity_kernel(launch(FAKE_CTX0), 30, 40, 0);	/* waits in CUPTI's buffer */
    raise(SIGPROF);
    CHECK_EQ("the handler's read: PAPI_OK", h_rc, PAPI_OK);
    CHECK_EQ("no CUPTI, profiler or driver call in it", h_calls, 0);
    CHECK_EQ("its gpu.kernels is the last flush's (no flush in a handler)", h_v[1], 1);
    CHECK_EQ("its kernel.launches is exact (loads)", h_v[0], 2);
    CHECK_TRUE("PAPI_stop in the handler is refused", h_stop_rc != PAPI_OK && h_stop_rc != 1);
    CHECK_EQ("the nested handler's read: PAPI_OK", h_nested_rc, PAPI_OK);
    CHECK_EQ("no call in it either", h_nested_calls, 0);
    CHECK_EQ("and the same gpu.kernels", h_nested_v[1], 1);
    fake_pm_add(0, "dram__bytes_read.sum", 70);
    fake_pm_tick(0);
    settle();
    CHECK_PAPI(PAPI_stop(h_es, v));
    signal(SIGPROF, SIG_IGN);
    CHECK_EQ("the stop: kernel.launches", v[0], 2);
    CHECK_EQ("gpu.kernels", v[1], 2);
    CHECK_EQ(READ, v[2], 70);
    return ct_done();
}

/* ---- nodefer ---- */

static int nodefer_case(void)
{
    long long v[3];
    setup_env();
    ct_library_init();
    const char *names[] = { "kernel.launches", "gpu.kernels", READ };
    fake_set_current(FAKE_CTX0);
    h_es = ct_eventset(3, names);
    CHECK_PAPI(PAPI_start(h_es));
    install(SIGUSR2, on_usr2, SA_NODEFER, 0);
    fake_activity_kernel(launch(FAKE_CTX0), 10, 20, 0);
    raise(SIGUSR2);
    CHECK_EQ("SA_NODEFER, empty sa_mask: the read is PAPI_OK", h_nested_rc, PAPI_OK);
    CHECK_REL("taken for the thread's own: it calls CUPTI (a flush)", h_nested_calls, ">", 0);
    CHECK_EQ("and its gpu.kernels holds the record that waited", h_nested_v[1], 1);
    install(SIGUSR2, on_usr2, SA_NODEFER, SIGUSR2);
    fake_activity_kernel(launch(FAKE_CTX0), 30, 40, 0);
    raise(SIGUSR2);
    CHECK_EQ("SA_NODEFER, its own signal in sa_mask: the read is PAPI_OK", h_nested_rc, PAPI_OK);
    CHECK_EQ("a handler's read: no call", h_nested_calls, 0);
    CHECK_EQ("and no flush", h_nested_v[1], 1);
    settle();
    CHECK_PAPI(PAPI_stop(h_es, v));
    CHECK_EQ("the stop: gpu.kernels", v[1], 2);
    return ct_done();
}

/* ---- handlerfail ---- */

/* snprintf is not async-signal-safe: cupti_cb's calls of it (libpapi's, resolved to this
 * program's definition) are counted while a handler reads. */
static volatile sig_atomic_t hf_counting;
static volatile long hf_printed;

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
    if (hf_counting)
        hf_printed++;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

static void hf_on_prof(int sig)
{
    (void)sig;
    hf_counting = 1;
    h_rc = PAPI_read(h_es, h_v);
    hf_counting = 0;
}

/* A read that fails in a handler (its window lost samples) formats no reason there: the
 * sentence is made only for an ordinary call, which still gives it. */
static int handlerfail_case(void)
{
    char err[8192] = "";
    setup_env();
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    const char *names[] = { READ };
    h_es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_start(h_es));
    fake_pm_add(0, "dram__bytes_read.sum", 5);
    fake_pm_tick(0);
    fake_pm_fault("DecodeData", 1, CUPTI_ERROR_UNKNOWN);
    settle();	/* the decoding thread meets the fault: the window lost samples */
    install(SIGPROF, hf_on_prof, SA_RESTART, 0);
    raise(SIGPROF);
    signal(SIGPROF, SIG_IGN);
    CHECK_EQ("the handler's read fails (PAPI_ECMP)", h_rc, PAPI_ECMP);
    CHECK_EQ("and formats nothing there (snprintf calls)", hf_printed, 0);
    long long v;
    int rc = CAPTURED(err, PAPI_read(h_es, &v));
    CHECK_EQ("an ordinary read fails too", rc, PAPI_ECMP);
    CHECK_TRUE("and says why", strstr(err, "miss GPU work") != NULL);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        { "sigwait", sigwait_case },
        { "inherited", inherited_case },
        { "handler", handler_case },
        { "nodefer", nodefer_case },
        { "handlerfail", handlerfail_case },
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
