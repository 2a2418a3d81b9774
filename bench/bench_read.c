/* bench_read: PAPI_read latency, start-up cost and memory of cupti_cb.
 *
 *   bench_read --part=read [--reads=N]
 *       PAPI_read latency, each read timed alone, minus the cost of an empty
 *       pair of clock reads (timer_ns), over up to N reads (default 100000)
 *       or one second, whichever ends first, after 1000 warm-up reads:
 *         - thread scope, 1, 8 and 64 events, read by the thread that counts;
 *         - process scope (":process" on each of the 8 events) while 1, 16
 *           and 64 threads that each made one cudaGetDevice() since the start
 *           wait on a barrier (check=ok: cudaGetDevice.calls:process == T).
 *       read scope=S events=E threads=T reads=N median_ns=M p99_ns=P timer_ns=C [check=...]
 *   bench_read --part=sde-read [--reads=N]
 *   bench_read --part=cb-read [--reads=N]
 *       Thread-scope reads of the first 1 and 8 of the 8 events, with no CUDA
 *       call (a read of callback events touches no CUDA, so this runs with the
 *       fakes too): sde-read through PAPI's sde component, as sde:::cupti_cb::
 *       counters of libcupti_cb_sde.so preloaded into a PAPI built without
 *       cupti_cb (run-bench.sh runs it with Debian's, carried by
 *       scripts/debian-papi); cb-read the same through the component, for
 *       the comparison. check=ok: cudaGetDevice.calls read 0 (not SDE's -1 of
 *       a counter that cannot count).
 *       sde-read|cb-read events=E reads=N median_ns=M p99_ns=P timer_ns=C check=...
 *   bench_read --part=startup [--cuda-first]
 *       PAPI_library_init, then PAPI_create_eventset (not timed), then the
 *       first PAPI_add_named_event of a cupti_cb event, in a fresh process;
 *       --cuda-first initializes the CUDA runtime before (an application that
 *       has already touched the GPU).
 *       startup cuda_first=0|1 library_init_ms=X first_add_ms=Y
 *   bench_read --part=memory
 *       RSS before PAPI init, after the first PAPI_start, and with 64 threads
 *       alive that each run the 8-event set and made CUDA calls; the same
 *       program without PAPI (a child process) gives the baseline, so
 *         process_kb   = RSS(PAPI init + first start) - baseline,
 *         per_thread_kb = (RSS growth of 64 threads - baseline growth) / 64.
 *       RSS has page (4 KiB) granularity.
 *       memory process_kb=X per_thread_kb=Y threads=64 rss_before_kb=...
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

#include <dlfcn.h>

#include "bench_util.h"

#define MAX_EVENTS 64
#define MEM_THREADS 64
#define NAME_LEN PAPI_MAX_STR_LEN

/* The 8-event set: what a tool typically asks for. */
static const char *const EVENTS8[8] = {
    "cupti_cb:::cudaGetDevice.calls", "cupti_cb:::kernel.launches",
    "cupti_cb:::memcpy.calls",        "cupti_cb:::memcpy.bytes",
    "cupti_cb:::alloc.bytes",         "cupti_cb:::sync.calls",
    "cupti_cb:::api.calls",           "cupti_cb:::cudaMemcpy.calls",
};

static char g_names[MAX_EVENTS][NAME_LEN];
static int g_nnames;

static int have_name(const char *name)
{
    for (int i = 0; i < g_nnames; i++)
        if (strcmp(g_names[i], name) == 0)
            return 1;
    return 0;
}

static void add_name(const char *name)
{
    if (g_nnames < MAX_EVENTS && !have_name(name))
        snprintf(g_names[g_nnames++], NAME_LEN, "%s", name);
}

/* g_names = EVENTS8, then the component's events in enumeration order,
 * without qualified names, up to MAX_EVENTS. */
static void list_events(void)
{
    char name[NAME_LEN], full[NAME_LEN + 16];
    int code = PAPI_NATIVE_MASK, cid = PAPI_get_component_index("cupti_cb");
    if (cid < 0)
        die("component cupti_cb not found in this PAPI");
    for (int i = 0; i < 8; i++)
        add_name(EVENTS8[i]);
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid) != PAPI_OK)
        return;
    do {
        if (PAPI_event_code_to_name(code, name) != PAPI_OK)
            continue;
        const char *base = strstr(name, ":::") ? strstr(name, ":::") + 3 : name;
        if (strchr(base, ':'))
            continue;
        snprintf(full, sizeof full, "cupti_cb:::%s", base);
        add_name(full);
    } while (g_nnames < MAX_EVENTS && PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid) == PAPI_OK);
}

/* An event set with the first n names (each + suffix) that PAPI accepts;
 * the first name must be accepted (it is the one the checks read). */
static int make_set(int n, const char *suffix)
{
    int set = PAPI_NULL, added = 0;
    char name[NAME_LEN + 32];
    PAPI_CHECK(PAPI_create_eventset(&set));
    for (int i = 0; i < g_nnames && added < n; i++) {
        if (snprintf(name, sizeof name, "%s%s", g_names[i], suffix) >= (int)sizeof name)
            continue;
        int rc = PAPI_add_named_event(set, name);
        if (rc == PAPI_OK)
            added++;
        else if (i == 0)
            die("PAPI_add_named_event(%s): %s", name, PAPI_strerror(rc));
        else
            fprintf(stderr, "bench_read: skipping %s: %s\n", name, PAPI_strerror(rc));
    }
    return set;
}

static void free_set(int set)
{
    long long v[MAX_EVENTS];
    PAPI_CHECK(PAPI_stop(set, v));
    PAPI_CHECK(PAPI_cleanup_eventset(set));
    PAPI_CHECK(PAPI_destroy_eventset(&set));
}

/* ---- read latency ------------------------------------------------------- */

static double g_timer_ns; /* median cost of two back-to-back now_ns() */

static void calibrate_timer(double *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        buf[i] = (double)(now_ns() - t0);
    }
    g_timer_ns = quantile(buf, n, 0.5);
}

static void measure_reads(int set, const char *scope, int threads, size_t max_reads,
                          double *buf, const char *check)
{
    long long v[MAX_EVENTS];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        PAPI_CHECK(PAPI_read(set, v));
    uint64_t deadline = now_ns() + 1000000000u;
    while (n < max_reads && (n % 1024 || now_ns() < deadline)) {
        uint64_t t0 = now_ns();
        int rc = PAPI_read(set, v);
        buf[n++] = (double)(now_ns() - t0);
        if (rc != PAPI_OK)
            die("PAPI_read: %s", PAPI_strerror(rc));
    }
    double med = quantile(buf, n, 0.5) - g_timer_ns, p99 = quantile(buf, n, 0.99) - g_timer_ns;
    if (threads == 0) /* read_alone's: scope is its label */
        printf("%s events=%d reads=%zu median_ns=%.0f p99_ns=%.0f timer_ns=%.0f check=%s\n", scope,
               PAPI_num_events(set), n, med > 0 ? med : 0, p99 > 0 ? p99 : 0, g_timer_ns, check);
    else
        printf("read scope=%s events=%d threads=%d reads=%zu median_ns=%.0f p99_ns=%.0f "
               "timer_ns=%.0f check=%s\n",
               scope, PAPI_num_events(set), threads, n, med > 0 ? med : 0, p99 > 0 ? p99 : 0,
               g_timer_ns, check);
    fflush(stdout);
}

/* Threads kept alive while main measures: start_alive() returns once n
 * threads running fn have reached the barrier; stop_alive() lets them finish.
 * A spawner thread starts and joins them so that main stays free. */
static pthread_barrier_t g_alive; /* the n threads + main */

struct spawn {
    int n;
    void *(*fn)(void *);
    pthread_t tid;
};

static void *spawner(void *arg)
{
    struct spawn *sp = (struct spawn *)arg;
    run_threads(sp->n, sp->fn, NULL, 0);
    return NULL;
}

static void start_alive(struct spawn *sp)
{
    pthread_barrier_init(&g_alive, NULL, (unsigned)sp->n + 1);
    if (pthread_create(&sp->tid, NULL, spawner, sp) != 0)
        die("pthread_create failed");
    pthread_barrier_wait(&g_alive);
}

static void stop_alive(struct spawn *sp)
{
    pthread_barrier_wait(&g_alive);
    pthread_join(sp->tid, NULL);
    pthread_barrier_destroy(&g_alive);
}

/* Makes one CUDA call, then waits until released. */
static void *idle_worker(void *arg)
{
    int dev;
    (void)arg;
    CUDA_CHECK(cudaGetDevice(&dev));
    pthread_barrier_wait(&g_alive); /* ready */
    pthread_barrier_wait(&g_alive); /* released */
    return NULL;
}

static void part_read(size_t max_reads)
{
    static const int ev_counts[] = {1, 8, 64}, thread_counts[] = {1, 16, 64};
    double *buf = (double *)malloc(max_reads * sizeof *buf);
    int dev;
    if (!buf)
        die("out of memory");
    bench_papi_init();
    CUDA_CHECK(cudaFree(0));
    list_events();
    calibrate_timer(buf, 10000);

    for (int k = 0; k < 3; k++) {
        int set = make_set(ev_counts[k], "");
        PAPI_CHECK(PAPI_start(set));
        CUDA_CHECK(cudaGetDevice(&dev));
        measure_reads(set, "thread", 1, max_reads, buf, "-");
        free_set(set);
    }

    for (int k = 0; k < 3; k++) {
        struct spawn sp = {thread_counts[k], idle_worker, 0};
        int set = make_set(8, ":process");
        long long v[MAX_EVENTS];
        PAPI_CHECK(PAPI_start(set));
        start_alive(&sp);
        PAPI_CHECK(PAPI_read(set, v)); /* v[0]: cudaGetDevice.calls:process */
        if (v[0] != sp.n)
            fprintf(stderr, "bench_read: cudaGetDevice.calls:process = %lld, expected %d\n",
                    v[0], sp.n);
        measure_reads(set, "process", sp.n, max_reads, buf, v[0] == sp.n ? "ok" : "FAIL");
        stop_alive(&sp);
        free_set(set);
    }
    free(buf);
}

/* The 1- and 8-event thread-scope sets of part_read with no CUDA call, the
 * events named with prefix: "sde:::cupti_cb::" (label sde-read) or the
 * component's "cupti_cb:::" (cb-read). The first event, cudaGetDevice.calls,
 * reads 0 where it counts, and SDE's -1 where the library cannot count. */
static void part_read_alone(size_t max_reads, const char *prefix, const char *label)
{
    static const int ev_counts[] = {1, 8};
    double *buf = (double *)malloc(max_reads * sizeof *buf);
    if (!buf)
        die("out of memory");
    bench_papi_init();
    if (!strncmp(prefix, "sde:::", 6) && PAPI_get_component_index("sde") < 0)
        die("this PAPI has no sde component: run with a PAPI built with it (Debian's) and "
            "libcupti_cb_sde.so preloaded");
    for (int i = 0; i < 8; i++)
        snprintf(g_names[g_nnames++], NAME_LEN, "%s%s", prefix, strstr(EVENTS8[i], ":::") + 3);
    calibrate_timer(buf, 10000);
    for (int k = 0; k < 2; k++) {
        int set = make_set(ev_counts[k], "");
        long long v[MAX_EVENTS];
        PAPI_CHECK(PAPI_start(set));
        PAPI_CHECK(PAPI_read(set, v));
        measure_reads(set, label, 0, max_reads, buf, v[0] == 0 ? "ok" : "FAIL");
        free_set(set);
    }
    free(buf);
}

/* ---- start-up ------------------------------------------------------------ */

static void part_startup(int cuda_first)
{
    int set = PAPI_NULL;
    if (cuda_first)
        CUDA_CHECK(cudaFree(0));
    uint64_t t0 = now_ns();
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    uint64_t t1 = now_ns();
    if (v != PAPI_VER_CURRENT)
        die("PAPI_library_init: %s", v < 0 ? PAPI_strerror(v) : "version mismatch");
    PAPI_CHECK(PAPI_create_eventset(&set));
    uint64_t t2 = now_ns();
    PAPI_CHECK(PAPI_add_named_event(set, "cupti_cb:::kernel.launches"));
    uint64_t t3 = now_ns();
    printf("startup cuda_first=%d library_init_ms=%.3f first_add_ms=%.3f\n", cuda_first,
           (t1 - t0) / 1e6, (t3 - t2) / 1e6);
}

/* cuInit alone in a fresh process: the part of the first add that is CUDA's
 * own initialization, which the application pays anyway at its first CUDA
 * call. */
static void part_cuinit(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    int (*cu_init)(unsigned) = lib ? (int (*)(unsigned))dlsym(lib, "cuInit") : NULL;
    if (!cu_init)
        die("libcuda.so.1: %s", dlerror());
    uint64_t t0 = now_ns();
    int rc = cu_init(0);
    uint64_t t1 = now_ns();
    printf("cuinit rc=%d cuinit_ms=%.3f\n", rc, (t1 - t0) / 1e6);
}

/* ---- memory -------------------------------------------------------------- */

static long status_kb(const char *key)
{
    char line[256];
    long kb = -1;
    size_t n = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        die("cannot open /proc/self/status");
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            kb = atol(line + n + 1);
    fclose(f);
    return kb;
}

struct mem_sample {
    long before, started, threads; /* VmRSS, kB */
};

static int g_with_papi;

static int start_set8(void)
{
    int set = make_set(8, "");
    PAPI_CHECK(PAPI_start(set));
    return set;
}

static void *mem_worker(void *arg)
{
    int dev, set = PAPI_NULL;
    (void)arg;
    if (g_with_papi) {
        PAPI_CHECK(PAPI_register_thread());
        set = start_set8();
    }
    CUDA_CHECK(cudaGetDevice(&dev));
    pthread_barrier_wait(&g_alive); /* ready */
    pthread_barrier_wait(&g_alive); /* released */
    if (g_with_papi) {
        free_set(set);
        PAPI_CHECK(PAPI_unregister_thread());
    }
    return NULL;
}

static struct mem_sample measure_memory(int with_papi)
{
    struct mem_sample m;
    int dev, set = PAPI_NULL;
    struct spawn sp = {MEM_THREADS, mem_worker, 0};
    g_with_papi = with_papi;
    CUDA_CHECK(cudaFree(0));
    m.before = status_kb("VmRSS");
    if (with_papi) {
        bench_papi_init();
        for (int i = 0; i < 8; i++)
            add_name(EVENTS8[i]);
        set = start_set8();
    }
    CUDA_CHECK(cudaGetDevice(&dev));
    m.started = status_kb("VmRSS");
    start_alive(&sp);
    m.threads = status_kb("VmRSS");
    stop_alive(&sp);
    if (with_papi)
        free_set(set);
    return m;
}

static void part_memory(void)
{
    struct mem_sample b, p;
    char self[4096], cmd[4200], line[256];
    /* The baseline runs first, in a child started before this process
     * touches CUDA or PAPI. */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        die("readlink /proc/self/exe failed");
    self[len] = '\0';
    snprintf(cmd, sizeof cmd, "'%s' --part=memory-baseline", self);
    FILE *child = popen(cmd, "r");
    if (!child || !fgets(line, sizeof line, child) ||
        sscanf(line, "baseline %ld %ld %ld", &b.before, &b.started, &b.threads) != 3)
        die("memory baseline child failed");
    pclose(child);
    p = measure_memory(1);
    printf("memory process_kb=%ld per_thread_kb=%.1f threads=%d rss_before_kb=%ld "
           "rss_started_kb=%ld rss_threads_kb=%ld hwm_kb=%ld base_started_kb=%ld "
           "base_threads_kb=%ld\n",
           (p.started - p.before) - (b.started - b.before),
           ((p.threads - p.started) - (b.threads - b.started)) / (double)MEM_THREADS,
           MEM_THREADS, p.before, p.started, p.threads, status_kb("VmHWM"), b.started - b.before,
           b.threads - b.started);
}

int main(int argc, char **argv)
{
    const char *part = opt_str(argc, argv, "part", "read");
    if (strcmp(part, "read") == 0) {
        long n = atol(opt_str(argc, argv, "reads", "100000"));
        part_read(n > 0 ? (size_t)n : 100000);
    } else if (strcmp(part, "sde-read") == 0 || strcmp(part, "cb-read") == 0) {
        long n = atol(opt_str(argc, argv, "reads", "100000"));
        part_read_alone(n > 0 ? (size_t)n : 100000, part[0] == 's' ? "sde:::cupti_cb::" : "cupti_cb:::", part);
    } else if (strcmp(part, "cuinit") == 0) {
        part_cuinit();
    } else if (strcmp(part, "startup") == 0) {
        part_startup(opt_flag(argc, argv, "cuda-first"));
    } else if (strcmp(part, "memory") == 0) {
        part_memory();
    } else if (strcmp(part, "memory-baseline") == 0) {
        struct mem_sample b = measure_memory(0);
        printf("baseline %ld %ld %ld\n", b.before, b.started, b.threads);
    } else {
        die("usage: bench_read --part=read [--reads=N] | --part=sde-read|cb-read [--reads=N] | "
            "--part=startup [--cuda-first] | --part=memory");
    }
    return 0;
}
