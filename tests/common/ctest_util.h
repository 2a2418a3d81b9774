/*
 * ctest_util.h: the one helper of the cupti_cb PAPI-level tests.
 *
 * Output is TAP-like: one "ok N - ..." / "not ok N - ..." line per check, both values printed,
 * then a plan line and a summary.  ct_done() gives the exit status: 0 only when at least one
 * check ran and every check passed; 1 otherwise.  ct_skip() exits 77 (automake's SKIP) with the
 * reason on stderr.  Checks may be made from several threads.
 *
 * Plain C (CPU tests) sees the PAPI part only.  CUDA C++ (.cu, nvcc) also gets require_gpu(),
 * CUDA_MUST(), driver entry points without linking libcuda (CT_DRV), a no-op kernel with
 * ct_launch(), and ct_measure()/ct_region() that run a piece of work between PAPI_start and
 * PAPI_stop of a fresh event set.
 *
 * Event names without ":::" get the "cupti_cb:::" prefix.
 */
#ifndef CTEST_UTIL_H
#define CTEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, dlopen, pthread_barrier_t under -std=c11; include this file first */
#endif
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#define CT_COMPONENT "cupti_cb"
#define CT_MAX_EVENTS 16

static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;
static int ct_nchecks;
static int ct_nfailed;

/* ---------------------------------------------------------------- output and checks */

static inline void ct_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void ct_note(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&ct_lock);
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&ct_lock);
}

/* Records one check; returns ok. */
static inline int ct_result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ct_result(int ok, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&ct_lock);
    ct_nchecks++;
    if (!ok)
        ct_nfailed++;
    printf("%s %d - ", ok ? "ok" : "not ok", ct_nchecks);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&ct_lock);
    return ok;
}

static inline int ct_check_eq(const char *name, long long got, long long want)
{
    if (got == want)
        return ct_result(1, "%s: got %lld, want %lld", name, got, want);
    return ct_result(0, "%s: got %lld, want %lld  <-- MISMATCH (diff %+lld)", name, got, want,
                     got - want);
}

/* op is one of "<", "<=", ">", ">=". */
static inline int ct_check_rel(const char *name, long long got, const char *op, long long bound)
{
    int ok = (!strcmp(op, "<") && got < bound) || (!strcmp(op, "<=") && got <= bound) ||
             (!strcmp(op, ">") && got > bound) || (!strcmp(op, ">=") && got >= bound);
    return ct_result(ok, "%s: got %lld, want %s %lld", name, got, op, bound);
}

#define CHECK_EQ(name, got, want) ct_check_eq((name), (long long)(got), (long long)(want))
#define CHECK_REL(name, got, op, bound) ct_check_rel((name), (long long)(got), (op), (long long)(bound))
#define CHECK_TRUE(name, cond) ct_result(!!(cond), "%s", (name))

/* Prints the summary; the value to return from main(). */
static inline int ct_done(void)
{
    pthread_mutex_lock(&ct_lock);
    int n = ct_nchecks, f = ct_nfailed;
    pthread_mutex_unlock(&ct_lock);
    printf("1..%d\n# %d checks, %d failed%s\n", n, n, f, n == 0 ? " (no check ran: FAIL)" : "");
    fflush(stdout);
    return (n > 0 && f == 0) ? 0 : 1;
}

static inline void ct_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void ct_skip(const char *fmt, ...)
{
    va_list ap;
    fputs("SKIP: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(77);
}

/* A failure after which the test cannot go on: counted, reported, exit 1. */
static inline void ct_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void ct_fatal(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&ct_lock);
    printf("not ok %d - FATAL: ", ++ct_nchecks);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n# %d checks, %d failed (stopped at a fatal error)\n", ct_nchecks, ct_nfailed + 1);
    fflush(stdout);
    exit(1);
}

/* A timer that sends SIGPROF to the calling thread every us microseconds, as a sampler aims
 * its timer at the thread it samples; timer_delete() ends it. */
static inline timer_t ct_sigprof_timer(long us)
{
    timer_t t;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0)
        ct_fatal("timer_create: a thread-aimed SIGPROF timer could not be made");
    struct itimerspec it = {{us / 1000000, (us % 1000000) * 1000}, {us / 1000000, (us % 1000000) * 1000}};
    timer_settime(t, 0, &it, NULL);
    return t;
}

/* ---------------------------------------------------------------- PAPI helpers */

/* "PAPI_ENOEVNT (-7: Event does not exist)" */
static inline const char *ct_papi_err(int rc)
{
    static const char *const names[] = {
        "PAPI_OK", "PAPI_EINVAL", "PAPI_ENOMEM", "PAPI_ESYS", "PAPI_ECMP", "PAPI_ECLOST",
        "PAPI_EBUG", "PAPI_ENOEVNT", "PAPI_ECNFLCT", "PAPI_ENOTRUN", "PAPI_EISRUN",
        "PAPI_ENOEVST", "PAPI_ENOTPRESET", "PAPI_ENOCNTR", "PAPI_EMISC", "PAPI_EPERM",
        "PAPI_ENOINIT", "PAPI_ENOCMP", "PAPI_ENOSUPP", "PAPI_ENOIMPL", "PAPI_EBUF",
        "PAPI_EINVAL_DOM", "PAPI_EATTR", "PAPI_ECOUNT", "PAPI_ECOMBO", "PAPI_ECMP_DISABLED",
        "PAPI_EDELAY_INIT", "PAPI_EMULPASS"};
    static __thread char buf[160];
    const char *name = (rc <= 0 && -rc < (int)(sizeof names / sizeof names[0])) ? names[-rc] : "?";
    const char *text = rc == PAPI_OK ? "no error" : PAPI_strerror(rc);
    snprintf(buf, sizeof buf, "%s (%d: %s)", name, rc, text ? text : "no text");
    return buf;
}

/* Checks that a PAPI call returned want; prints both codes with their names. */
static inline int ct_check_rc(const char *name, int got, int want)
{
    char g[160];
    snprintf(g, sizeof g, "%s", ct_papi_err(got));
    return ct_result(got == want, "%s: got %s, want %s", name, g, ct_papi_err(want));
}
#define CHECK_PAPI(call) ct_check_rc(#call, (call), PAPI_OK)

static inline void ct_papi_must(const char *what, int rc)
{
    if (rc != PAPI_OK)
        ct_fatal("%s: %s", what, ct_papi_err(rc));
}
#define PAPI_MUST(call) ct_papi_must(#call, (call))

static inline void ct_library_init(void)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT)
        ct_fatal("PAPI_library_init returned %d, want PAPI_VER_CURRENT %d (%s)", rc,
                 PAPI_VER_CURRENT, rc < 0 ? ct_papi_err(rc) : "version mismatch");
}

static inline unsigned long ct_thread_id(void)
{
    return (unsigned long)pthread_self();
}

/* "kernel.launches" -> "cupti_cb:::kernel.launches"; full names are kept. */
static inline const char *ct_full_name(const char *name, char *buf, size_t len)
{
    if (strstr(name, ":::"))
        return name;
    snprintf(buf, len, "%s:::%s", CT_COMPONENT, name);
    return buf;
}

/* PAPI_add_named_event with the short-name rule; returns its code. */
static inline int ct_add(int es, const char *name)
{
    char buf[PAPI_HUGE_STR_LEN];
    return PAPI_add_named_event(es, ct_full_name(name, buf, sizeof buf));
}

/* A new event set holding the n named events; any failure is fatal. */
static inline int ct_eventset(int n, const char *const names[])
{
    int es = PAPI_NULL, i, rc;
    PAPI_MUST(PAPI_create_eventset(&es));
    for (i = 0; i < n; i++)
        if ((rc = ct_add(es, names[i])) != PAPI_OK)
            ct_fatal("PAPI_add_named_event(%s): %s", names[i], ct_papi_err(rc));
    return es;
}

static inline void ct_destroy(int *es)
{
    PAPI_MUST(PAPI_cleanup_eventset(*es));
    PAPI_MUST(PAPI_destroy_eventset(es));
}

/* The component's info after its lazy init was forced, as papi_component_avail does it. */
static inline const PAPI_component_info_t *ct_component_after_init(int cidx)
{
    int code = 0 | PAPI_NATIVE_MASK;
    (void)PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
    return PAPI_get_component_info(cidx);
}

/*
 * Runs this program again as a child process with arg as its one argument (and var=value in
 * its environment when var is given) and returns its exit status, -1 if it did not exit.
 * For what must happen in a fresh process: before CUDA or PAPI is touched, or to be reported
 * at exit.
 */
static inline int ct_run_self(const char *argv0, const char *arg, const char *var, const char *value)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (var)
            setenv(var, value, 1);
        execl("/proc/self/exe", argv0, arg, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---------------------------------------------------------------- is there a GPU? */

#include "gpu_present.h"
#define ct_gpu_present gpu_present
/* ---------------------------------------------------------------- CUDA (nvcc only) */
#ifdef __CUDACC__
#include <cuda.h>
#include <cuda_runtime.h>

#include <initializer_list>
#include <string>
#include <vector>

static inline void ct_cuda_must(const char *what, cudaError_t e, int line)
{
    if (e != cudaSuccess)
        ct_fatal("line %d: %s: %s (%s)", line, what, cudaGetErrorName(e), cudaGetErrorString(e));
}
#define CUDA_MUST(call) ct_cuda_must(#call, (call), __LINE__)

static inline void ct_cu_must(const char *what, CUresult r, int line)
{
    if (r != CUDA_SUCCESS)
        ct_fatal("line %d: %s: CUresult %d", line, what, (int)r);
}
#define CU_MUST(call) ct_cu_must(#call, (call), __LINE__)

/*
 * Returns the number of usable CUDA devices, at least min_devices.  Exits 77 (SKIP) only
 * when there is really no GPU (ct_gpu_present finds none), when CUDA_VISIBLE_DEVICES hides
 * every GPU, or when the machine has fewer than min_devices GPUs.  A GPU that is there but
 * that CUDA cannot use (no or too old a driver, a broken installation) is a failure.
 * cudaGetDeviceCount runs cuInit but creates no context; tests create their context
 * themselves (ct_use_device), the component never does.
 */
static inline int require_gpu(int min_devices)
{
    int n = 0;
    char why[768];
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        if (ct_gpu_present(why, sizeof why)) {
            if (e == cudaErrorNoDevice && vis)
                ct_skip("CUDA_VISIBLE_DEVICES=\"%s\" hides every GPU (%s)", vis, why);
            ct_fatal("a GPU is present (%s) but CUDA cannot use it: cudaGetDeviceCount: %s (%s)",
                     why, cudaGetErrorName(e), cudaGetErrorString(e));
        }
        ct_skip("no NVIDIA GPU on this machine (no /proc/driver/nvidia/gpus entry, no "
                "/dev/nvidiactl, nvidia-smi lists none, no NVIDIA PCI display controller); "
                "cudaGetDeviceCount: %s",
                cudaGetErrorName(e));
    }
    if (n < min_devices)
        ct_skip("needs %d GPU%s, found %d", min_devices, min_devices > 1 ? "s" : "", n);
    return n;
}

/* Makes device dev current on this thread and creates its primary context. */
static inline void ct_use_device(int dev)
{
    CUDA_MUST(cudaSetDevice(dev));
    CUDA_MUST(cudaFree(0));
}

/*
 * The common start of a GPU test: a GPU (else SKIP), device 0's context made by the test,
 * PAPI initialized (thread support when threaded), and one launch so that module loading
 * stays out of the measured regions.
 */
static inline void ct_launch(int n, cudaStream_t s);
static inline void ct_gpu_ready(int threaded)
{
    require_gpu(1);
    ct_use_device(0);
    ct_library_init();
    if (threaded)
        PAPI_MUST(PAPI_thread_init(ct_thread_id));
    ct_launch(1, 0);
    CUDA_MUST(cudaDeviceSynchronize());
}

/*
 * A driver API function without linking libcuda (a program linked with -lcuda could not even
 * start on a machine without the driver, so it could not report SKIP).  The pointer comes from
 * cuGetProcAddress through the runtime, the same way the runtime reaches the driver.
 * Fetch pointers before a measured region: the lookup is itself a runtime call.
 */
static inline void *ct_driver_entry(const char *symbol)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &fn, CUDA_VERSION, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
        ct_fatal("driver entry point %s: %s (query result %d)", symbol, cudaGetErrorName(e), (int)q);
    return fn;
}
#define CT_DRV(fn) ((decltype(&fn))ct_driver_entry(#fn))

__global__ void ct_noop(int) {}

/* n launches of ct_noop through cudaLaunchKernel: exactly n runtime API calls. */
static inline void ct_launch(int n, cudaStream_t s)
{
    int arg = 0;
    void *args[] = {&arg};
    for (int i = 0; i < n; i++)
        CUDA_MUST(cudaLaunchKernel((const void *)ct_noop, dim3(1), dim3(1), args, 0, s));
}

/* A new event set of the named events, started; any failure is fatal. The caller stops it. */
static inline int ct_started(std::initializer_list<const char *> names)
{
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    for (const char *n : names) {
        int rc = ct_add(es, n);
        if (rc != PAPI_OK)
            ct_fatal("PAPI_add_named_event(%s): %s", n, ct_papi_err(rc));
    }
    int rc = PAPI_start(es);
    if (rc != PAPI_OK)
        ct_fatal("PAPI_start: %s (run with PAPI_VERBOSE=1 for the sentence)", ct_papi_err(rc));
    return es;
}

struct ct_values {
    long long v[CT_MAX_EVENTS];
    long long wall_ns; /* from just before PAPI_start to just after PAPI_stop */
};

/* Runs work() between PAPI_start and PAPI_stop of a fresh event set of the named events. */
template <class F>
static ct_values ct_measure(const std::vector<std::string> &names, F work)
{
    ct_values r = {};
    if (names.size() > CT_MAX_EVENTS)
        ct_fatal("ct_measure: too many events");
    std::vector<const char *> p;
    for (const std::string &s : names)
        p.push_back(s.c_str());
    int es = ct_eventset((int)p.size(), p.data());
    long long t0 = PAPI_get_real_nsec();
    PAPI_MUST(PAPI_start(es));
    work();
    PAPI_MUST(PAPI_stop(es, r.v));
    r.wall_ns = PAPI_get_real_nsec() - t0;
    ct_destroy(&es);
    return r;
}

struct ct_expect {
    std::string event;
    long long want;
};

/* ct_measure, then every event must equal its expected value exactly. */
template <class F>
static ct_values ct_region(const char *label, const std::vector<ct_expect> &ex, F work)
{
    std::vector<std::string> names;
    for (const ct_expect &e : ex)
        names.push_back(e.event);
    ct_values r = ct_measure(names, work);
    for (size_t i = 0; i < ex.size(); i++)
        CHECK_EQ((std::string(label) + ": " + ex[i].event).c_str(), r.v[i], ex[i].want);
    return r;
}
#endif /* __CUDACC__ */

#endif /* CTEST_UTIL_H */
