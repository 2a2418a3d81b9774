/* bench_calls: host cost of one CUDA call under one instrumentation mode.
 *
 *   bench_calls --mode=M --api=getdevice|launch --threads=1,4,16,64 --iters=N
 *
 * For each thread count T (a comma-separated list, run one after the other in
 * this process) T threads start together on a barrier and each times N' calls
 * of the API, where N' = N up to 16 threads (one per core on the GPU machine)
 * and N*16/T above, so that a repetition takes about as long at 64 threads,
 * where calls that serialize cost 4 times more, as at 16.  Before the first
 * repetition every thread makes N'/10 warm-up calls.  One repetition gives
 * the mean over threads of (elapsed / N'); the line printed is the median of
 * REPS repetitions:
 *
 *   mode=M api=A threads=T iters=N' ns_per_call=X check=ok|FAIL|- reps=a/b/c/d/e
 *
 * api=getdevice: cudaGetDevice().
 * api=launch: empty<<<1,1,0,s>>>() on a non-blocking stream s of the thread;
 *   the timed region ends with cudaStreamSynchronize(s), so the figure is the
 *   throughput cost of one launch (launch + its share of the final sync).
 *
 * Modes (one mode per process: CUPTI allows one subscriber per process):
 *   bare           no instrumentation
 *   floor          our own empty CUPTI callback, enabled only on the CBIDs
 *                  cupti_cb enables for this API (CBIDS_* below)
 *   floor_domains  empty callback on the whole runtime and driver domains
 *   counted        cupti_cb event set per thread counting the API's calls
 *   counted_time   the same plus the API's host time
 *   counted_all    the same set plus api.calls, which has cupti_cb take every
 *                  runtime and driver CBID (as cupti_cb_run does)
 *   other          cupti_cb event set counting cudaMemcpy only
 *   stopped        counted set started, warmed up and stopped (cupti_cb
 *                  subscribed, then unsubscribed) before the timing
 *   mutex_map      our own CUPTI callback on the floor CBIDs doing what a
 *                  global-lock tool layer does: name lookup, one process-wide
 *                  mutex, a map keyed by name, count and time per function
 * BENCH_MAIN_SET="event,..." has the main thread run a set of those events meanwhile, started
 * after the CUDA context exists, or before the first CUDA call with BENCH_MAIN_SET_EARLY=1.
 * check=ok means the cupti_cb counters read at PAPI_stop equal the calls the
 * thread made (0 for mode=other); '-' for modes without PAPI. */
#include <signal.h>

#include <cuda_runtime.h>
#include <cupti.h>

#include <map>
#include <string>

#include "bench_util.h"

#define REPS 5

__global__ void empty(void) {}

/* ---- the CBIDs cupti_cb enables for each measured API ------------------
 * floor and mutex_map enable exactly these.  Adjust them here when the
 * engine's choice changes, or at run time without rebuilding with
 * BENCH_CBIDS_GETDEVICE / BENCH_CBIDS_LAUNCH = "rt:17,drv:307,..."
 * (rt = runtime domain, drv = driver domain, numbers from cupti_*_cbid.h).
 * For kernel.launches cupti_cb also enables the other driver launch CBIDs
 * (cuLaunchKernelEx, cooperative launches, ...): <<<>>> never reaches them,
 * and a CBID that is enabled but not called costs nothing. */
struct cbid {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId id;
};
static const struct cbid CBIDS_GETDEVICE[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020},
};
static const struct cbid CBIDS_LAUNCH[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
};
#define MAX_CBIDS 32

struct api_desc {
    const char *name;
    const char *calls_event; /* counted */
    const char *time_event;  /* counted_time adds this */
    const struct cbid *cbids;
    int ncbids;
    const char *cbids_env;
};
static const struct api_desc APIS[] = {
    {"getdevice", "cupti_cb:::cudaGetDevice.calls", "cupti_cb:::cudaGetDevice.time_ns",
     CBIDS_GETDEVICE, (int)(sizeof CBIDS_GETDEVICE / sizeof CBIDS_GETDEVICE[0]),
     "BENCH_CBIDS_GETDEVICE"},
    {"launch", "cupti_cb:::kernel.launches", "cupti_cb:::cuLaunchKernel.time_ns",
     CBIDS_LAUNCH, (int)(sizeof CBIDS_LAUNCH / sizeof CBIDS_LAUNCH[0]),
     "BENCH_CBIDS_LAUNCH"},
};
static const char *const OTHER_EVENT = "cupti_cb:::cudaMemcpy.calls";

enum mode { BARE, FLOOR, FLOOR_DOMAINS, COUNTED, COUNTED_TIME, OTHER, STOPPED, MUTEX_MAP, COUNTED_ALL, NMODES };
static const char *const MODE_NAMES[NMODES] = {
    "bare", "floor", "floor_domains", "counted", "counted_time", "other", "stopped", "mutex_map", "counted_all",
};

static enum mode g_mode;
static const struct api_desc *g_api;
static pthread_barrier_t g_barrier;

/* ---- CUPTI subscribers of the floor, floor_domains and mutex_map modes -- */

static void CUPTIAPI cb_empty(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

/* mutex_map: one process-wide lock around a std::map keyed by the function
 * name as a std::string built on every call: the pattern of TAU's CUPTI
 * layer and of CUPTI's callback tutorial, kept as the peer baseline. */
struct entry {
    unsigned long long calls, time_ns;
};
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static std::map<std::string, entry> *name_map;

static void CUPTIAPI cb_mutex_map(void *, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                  const void *data)
{
    const CUpti_CallbackData *cd = (const CUpti_CallbackData *)data;
    const char *name = "?";
    cuptiGetCallbackName(dom, id, &name);
    uint64_t t = now_ns();
    std::string key(name);
    pthread_mutex_lock(&map_lock);
    entry &e = (*name_map)[key];
    if (cd->callbackSite == CUPTI_API_ENTER) {
        e.calls++;
        *cd->correlationData = t;
    } else {
        e.time_ns += t - *cd->correlationData;
    }
    pthread_mutex_unlock(&map_lock);
}

#define CUPTI_CHECK(call)                                                     \
    do {                                                                      \
        CUptiResult rc_ = (call);                                             \
        if (rc_ != CUPTI_SUCCESS) {                                           \
            const char *s_ = "?";                                             \
            cuptiGetResultString(rc_, &s_);                                   \
            die("%s: %s", #call, s_);                                         \
        }                                                                     \
    } while (0)

/* The CBIDs of the floor: the api's table, or its BENCH_CBIDS_* override.
 * Writes them as "rt17+drv307" into label. */
static int floor_cbids(struct cbid *out, char *label, size_t label_len)
{
    int n = 0;
    const char *env = getenv(g_api->cbids_env);
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok && n < MAX_CBIDS;
             tok = strtok_r(NULL, ",", &save)) {
            if (strncmp(tok, "rt:", 3) == 0)
                out[n] = {CUPTI_CB_DOMAIN_RUNTIME_API, (CUpti_CallbackId)atoi(tok + 3)};
            else if (strncmp(tok, "drv:", 4) == 0)
                out[n] = {CUPTI_CB_DOMAIN_DRIVER_API, (CUpti_CallbackId)atoi(tok + 4)};
            else
                die("%s: bad entry '%s' (want rt:N or drv:N)", g_api->cbids_env, tok);
            n++;
        }
        free(copy);
    } else {
        for (n = 0; n < g_api->ncbids; n++)
            out[n] = g_api->cbids[n];
    }
    label[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(label);
        snprintf(label + len, label_len - len, "%s%s%u", i ? "+" : "",
                 out[i].domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "rt" : "drv", out[i].id);
    }
    return n;
}

/* Subscribes for the CUPTI modes; returns a label of what was enabled. */
static const char *subscribe(void)
{
    static char label[256];
    CUpti_SubscriberHandle sub;
    if (g_mode == MUTEX_MAP)
        name_map = new std::map<std::string, entry>();
    CUPTI_CHECK(cuptiSubscribe(&sub, g_mode == MUTEX_MAP ? (CUpti_CallbackFunc)cb_mutex_map
                                                         : (CUpti_CallbackFunc)cb_empty,
                               NULL));
    if (g_mode == FLOOR_DOMAINS) {
        CUPTI_CHECK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
        CUPTI_CHECK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
        return "rt+drv";
    }
    struct cbid ids[MAX_CBIDS];
    int n = floor_cbids(ids, label, sizeof label);
    for (int i = 0; i < n; i++)
        CUPTI_CHECK(cuptiEnableCallback(1, sub, ids[i].domain, ids[i].id));
    return label;
}

/* ---- the measured calls -------------------------------------------------- */

static void call_api(int n, cudaStream_t s)
{
    cudaError_t err = cudaSuccess;
    if (g_api == &APIS[0]) {
        int dev;
        for (int i = 0; i < n; i++) {
            cudaError_t e = cudaGetDevice(&dev);
            if (e != cudaSuccess)
                err = e;
        }
    } else {
        for (int i = 0; i < n; i++)
            empty<<<1, 1, 0, s>>>();
        err = cudaGetLastError();
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(s);
    }
    if (err != cudaSuccess)
        die("%s call failed: %s", g_api->name, cudaGetErrorString(err));
}

/* ---- one worker thread --------------------------------------------------- */

struct worker {
    int iters;
    double ns[REPS];
    int check; /* -1: not checked, 0: failed, 1: ok */
};

static int papi_mode(void)
{
    return g_mode == COUNTED || g_mode == COUNTED_TIME || g_mode == OTHER || g_mode == STOPPED ||
           g_mode == COUNTED_ALL;
}

/* Compares the first counter with what the thread did; the time counter of
 * counted_time must have moved too. */
static int check_values(const long long *v, int nev, long long expect)
{
    int ok = v[0] == expect && (nev < 2 || v[1] > 0);
    if (!ok)
        fprintf(stderr, "bench: mode=%s api=%s: counter %lld, expected %lld%s\n",
                MODE_NAMES[g_mode], g_api->name, v[0], expect,
                nev > 1 && v[1] <= 0 ? " (time counter did not move)" : "");
    return ok;
}

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    int warm = w->iters / 10 > 0 ? w->iters / 10 : 1;
    int set = PAPI_NULL, nev = 0;
    long long v[2] = {0, 0};
    cudaStream_t s = 0;

    CUDA_CHECK(cudaSetDevice(0));
    if (g_api != &APIS[0])
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (papi_mode()) {
        PAPI_CHECK(PAPI_register_thread());
        PAPI_CHECK(PAPI_create_eventset(&set));
        PAPI_CHECK(PAPI_add_named_event(set, g_mode == OTHER ? OTHER_EVENT : g_api->calls_event));
        if (g_mode == COUNTED_TIME)
            PAPI_CHECK(PAPI_add_named_event(set, g_api->time_event));
        if (g_mode == COUNTED_ALL)
            PAPI_CHECK(PAPI_add_named_event(set, "cupti_cb:::api.calls"));
        nev = PAPI_num_events(set);
        PAPI_CHECK(PAPI_start(set));
    }
    call_api(warm, s);
    if (g_mode == STOPPED) {
        PAPI_CHECK(PAPI_stop(set, v));
        w->check = check_values(v, nev, warm);
        call_api(warm, s);
    }

    for (int r = 0; r < REPS; r++) {
        pthread_barrier_wait(&g_barrier);
        uint64_t t0 = now_ns();
        call_api(w->iters, s);
        w->ns[r] = (double)(now_ns() - t0) / w->iters;
    }

    if (papi_mode()) {
        if (g_mode != STOPPED) {
            PAPI_CHECK(PAPI_stop(set, v));
            w->check = check_values(v, nev, g_mode == OTHER ? 0 : warm + (long long)REPS * w->iters);
        }
        PAPI_CHECK(PAPI_cleanup_eventset(set));
        PAPI_CHECK(PAPI_destroy_eventset(&set));
        PAPI_CHECK(PAPI_unregister_thread());
    }
    if (s)
        CUDA_CHECK(cudaStreamDestroy(s));
    return NULL;
}

static void run_round(int threads, int iters, const char *cbid_label)
{
    struct worker *w = (struct worker *)calloc((size_t)threads, sizeof *w);
    if (!w)
        die("out of memory");
    for (int i = 0; i < threads; i++) {
        w[i].iters = iters;
        w[i].check = -1;
    }
    pthread_barrier_init(&g_barrier, NULL, (unsigned)threads);
    run_threads(threads, worker_main, w, sizeof *w);
    pthread_barrier_destroy(&g_barrier);

    double rep[REPS], sorted[REPS];
    int check = -1;
    for (int r = 0; r < REPS; r++) {
        rep[r] = 0;
        for (int i = 0; i < threads; i++)
            rep[r] += w[i].ns[r] / threads;
        sorted[r] = rep[r];
    }
    for (int i = 0; i < threads; i++)
        if (w[i].check >= 0)
            check = (check != 0) && w[i].check;
    printf("mode=%s api=%s threads=%d iters=%d ns_per_call=%.1f check=%s reps=",
           MODE_NAMES[g_mode], g_api->name, threads, iters, quantile(sorted, REPS, 0.5),
           check < 0 ? "-" : check ? "ok" : "FAIL");
    for (int r = 0; r < REPS; r++)
        printf("%s%.1f", r ? "/" : "", rep[r]);
    if (cbid_label)
        printf(" cbids=%s", cbid_label);
    printf("\n");
    fflush(stdout);
    free(w);
}

/* BENCH_MAIN_SET="ev1,ev2": the main thread runs a set of these events for the whole process
 * (with any mode), as a tool that counts the process from outside the measured threads does. */
struct owner {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int set, made;
};

/* BENCH_MAIN_SET_OWNER=1: the set is created by a parked thread with every signal blocked (as
 * cupti_cb_run's library does), and added to and started by the main thread. */
static void *owner_main(void *arg)
{
    struct owner *o = (struct owner *)arg;
    int set = PAPI_NULL;
    PAPI_CHECK(PAPI_create_eventset(&set));
    pthread_mutex_lock(&o->mu);
    o->set = set;
    o->made = 1;
    pthread_cond_broadcast(&o->cv);
    for (;;)
        pthread_cond_wait(&o->cv, &o->mu);
    return NULL;
}

static int owned_set(void)
{
    static struct owner o = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PAPI_NULL, 0};
    sigset_t all, old;
    pthread_t t;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&t, NULL, owner_main, &o) != 0)
        die("pthread_create");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&o.mu);
    while (!o.made)
        pthread_cond_wait(&o.cv, &o.mu);
    pthread_mutex_unlock(&o.mu);
    return o.set;
}

static void main_set(void)
{
    const char *list = getenv("BENCH_MAIN_SET");
    if (!list || !*list)
        return;
    if (!papi_mode())
        bench_papi_init();
    int set = PAPI_NULL;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    if (getenv("BENCH_MAIN_SET_OWNER"))
        set = owned_set();
    else
        PAPI_CHECK(PAPI_create_eventset(&set));
    for (char *save = NULL, *ev = strtok_r(buf, ",", &save); ev; ev = strtok_r(NULL, ",", &save))
        PAPI_CHECK(PAPI_add_named_event(set, ev));
    PAPI_CHECK(PAPI_start(set));
    fprintf(stderr, "bench: the main thread counts %s\n", list);
}

int main(int argc, char **argv)
{
    const char *mode = opt_str(argc, argv, "mode", "bare");
    const char *api = opt_str(argc, argv, "api", "getdevice");
    const char *threads = opt_str(argc, argv, "threads", "1,4,16,64");
    int iters_arg = atoi(opt_str(argc, argv, "iters", "20000"));

    int m = 0;
    while (m < NMODES && strcmp(mode, MODE_NAMES[m]) != 0)
        m++;
    g_mode = (enum mode)m;
    g_api = strcmp(api, "launch") == 0 ? &APIS[1] : strcmp(api, "getdevice") == 0 ? &APIS[0] : NULL;
    if (g_mode == NMODES || !g_api || iters_arg <= 0)
        die("usage: bench_calls --mode=bare|floor|floor_domains|counted|counted_time|counted_all|other|"
            "stopped|mutex_map --api=getdevice|launch --threads=T[,T...] --iters=N");

    bench_require_gpu();
    int early = getenv("BENCH_MAIN_SET_EARLY") != NULL;
    if (early)
        main_set();	/* before the first CUDA call: before the context exists */
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(0)); /* create the context before anything is timed */
    const char *cbid_label = NULL;
    if (g_mode == FLOOR || g_mode == FLOOR_DOMAINS || g_mode == MUTEX_MAP)
        cbid_label = subscribe();
    if (papi_mode() && !early)
        bench_papi_init();
    if (!early)
        main_set();

    for (const char *p = threads; *p;) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end == p || t < 1 || t > 1024)
            die("bad --threads=%s", threads);
        int iters = t <= 16 ? iters_arg : (int)(iters_arg * 16L / t);
        run_round((int)t, iters > 0 ? iters : 1, cbid_label);
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}
