/*
 * cpu_fake_attach: reading another thread's counts (PAPI_attach) and listing the threads
 * (cupti_cb_threads), through the fake CUPTI.
 *
 *   attach  three named threads make known calls; the third exits before the read.  The list
 *           has each tid once, with its name, exited flag and no sharing; a set attached to each
 *           tid reads exactly its calls since the thread's first call (the start does not zero
 *           it), then what it made after the start, then 0 after PAPI_reset; the per-thread
 *           api.calls add up to the process total.  Errors: attaching a set that has a :process
 *           event (the sentence names it), adding a :process, a minimum, a live-bytes, a
 *           GPU-activity :process event or a hardware metric to an attached set, PAPI_GRN_PROC on
 *           an attached set (PAPI_ECOMBO, and the set stays as it was:
 *           unattached, or attached with its other events);
 *           a tid that made no CUDA call, a tid that does not exist (PAPI_EINVAL)
 *   bound   CUPTI_CB_THREADS_OWN blocks are made (the main thread's and one per thread), then
 *           one more thread, started after the others exited, adopts one: that block alone is
 *           shared (2 threads), carries the new thread's tid and name and both threads'
 *           launches, and the adopted thread's tid is gone from the list (attach: PAPI_EINVAL)
 *   gpu     GPU activity by issuing thread: two threads issue 2 and 5 kernels (records of 100 ns),
 *           the second exits first; a set attached to each reads exactly its gpu.kernels and
 *           gpu.kernel_time_ns together with its kernel.launches
 */
#include <sys/syscall.h>

#include "ctest_util.h"
#include "fake_play.h"
#include "cupti_cb.h"

static long my_tid(void)
{
    return (long)syscall(SYS_gettid);
}

/* A set that holds the callbacks, in process scope, on the main thread. */
static int holding_set(void)
{
    static const char *const names[] = {"api.calls:process", "kernel.launches:process"};
    int es = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(es));
    return es;
}

/* An empty set of cupti_cb, attached to tid: PAPI_attach's code. */
static int attached_set(int *es, long tid)
{
    *es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(es));
    PAPI_MUST(PAPI_assign_eventset_component(*es, cb_cidx()));
    return PAPI_attach(*es, (unsigned long)tid);
}

static const struct cupti_cb_thread_info *find_tid(const struct cupti_cb_thread_info *t, int n, long tid)
{
    for (int i = 0; i < n; i++)
        if (t[i].tid == tid)
            return &t[i];
    return NULL;
}

static int count_tid(const struct cupti_cb_thread_info *t, int n, long tid)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += t[i].tid == tid;
    return k;
}

/* ------------------------------------------------------------------ attach */

#define NW 3
static const char *const wname[NW] = {"cb-worker-a", "cb-worker-b", "cb-worker-c"};
/* Worker i: launches[i] launches, gets[i] cudaGetDevice, syncs[i] cudaDeviceSynchronize. */
static const int launches[NW] = {1, 2, 3}, gets[NW] = {10, 0, 4}, syncs[NW] = {0, 3, 1};
static long wtid[NW];
static pthread_barrier_t played, attached_go, more_played, done;

static void play(int i)
{
    play_launches(launches[i], FAKE_CTX0);
    play_get_device(gets[i]);
    for (int k = 0; k < syncs[i]; k++)
        play_sync();
}

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    pthread_setname_np(pthread_self(), wname[i]);
    wtid[i] = my_tid();
    play(i);
    pthread_barrier_wait(&played);
    if (i == NW - 1)
        return NULL; /* exits before the reads */
    pthread_barrier_wait(&attached_go);
    if (i == 0)
        play_launches(4, FAKE_CTX0); /* after the attached set started */
    pthread_barrier_wait(&more_played);
    pthread_barrier_wait(&done);
    return NULL;
}

/* A thread that never makes a CUDA call. */
static long idle_tid;
static pthread_barrier_t idle_up, idle_done;
static void *idle(void *arg)
{
    (void)arg;
    idle_tid = my_tid();
    pthread_barrier_wait(&idle_up);
    pthread_barrier_wait(&idle_done);
    return NULL;
}

static int check_errors(long tid)
{
    char label[160];
    int es;
    long long v[2];
    /* A set with a process-scope event cannot be attached; it stays usable, unattached. */
    es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "kernel.launches:process"));
    char err[4096] = "";
    int rc = CAPTURED(err, PAPI_attach(es, (unsigned long)tid));
    ct_check_rc("PAPI_attach of a set holding kernel.launches:process", rc, PAPI_ECOMBO);
    CHECK_EQ("the sentence (PAPI_VERBOSE=1) names the event and says why",
             strstr(err, "kernel.launches:process counts the whole process: an event set attached to a thread") != NULL,
             1);
    ct_check_rc("the refused set is not attached: PAPI_detach", PAPI_detach(es), PAPI_EINVAL);
    ct_destroy(&es);

    /* Events an attached set refuses, and one it takes. */
    PAPI_MUST(attached_set(&es, tid));
    static const char *const refused[] = {"api.calls:process", "cudaLaunchKernel.time_ns_min",
                                          "alloc.live_bytes:process", "gpu.kernels:process",
                                          "dram__bytes_read.sum"};
    for (unsigned i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(label, sizeof label, "add %s to an attached set", refused[i]);
        ct_check_rc(label, ct_add(es, refused[i]), PAPI_ECOMBO);
    }
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.granularity.eventset = es;
    opt.granularity.granularity = PAPI_GRN_PROC;
    ct_check_rc("PAPI_GRN_PROC on an attached set", PAPI_set_opt(PAPI_GRANUL, &opt), PAPI_ECOMBO);
    PAPI_MUST(PAPI_start(es));
    PAPI_MUST(PAPI_stop(es, v));
    snprintf(label, sizeof label, "after the refusals the attached set reads thread %ld's launches", tid);
    CHECK_EQ(label, v[0], launches[1]);
    CHECK_PAPI(PAPI_detach(es));
    ct_destroy(&es);

    /* Tids without a block. */
    ct_check_rc("PAPI_attach to a thread that made no CUDA call", attached_set(&es, idle_tid), PAPI_EINVAL);
    ct_destroy(&es);
    ct_check_rc("PAPI_attach to a tid that does not exist", attached_set(&es, 0x3fffffffL), PAPI_EINVAL);
    ct_destroy(&es);
    return 0;
}

static int case_attach(void)
{
    setenv("PAPI_VERBOSE", "1", 1);
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    int hold = holding_set();
    pthread_barrier_init(&played, NULL, NW + 1);
    pthread_barrier_init(&attached_go, NULL, NW);
    pthread_barrier_init(&more_played, NULL, NW);
    pthread_barrier_init(&done, NULL, NW);
    pthread_barrier_init(&idle_up, NULL, 2);
    pthread_barrier_init(&idle_done, NULL, 2);
    pthread_t t[NW], it;
    for (int i = 0; i < NW; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    pthread_create(&it, NULL, idle, NULL);
    pthread_barrier_wait(&idle_up);
    pthread_barrier_wait(&played);
    pthread_join(t[NW - 1], NULL);

    /* The list. */
    struct cupti_cb_thread_info info[64];
    char label[160];
    int n = cupti_cb_threads(info, 64);
    CHECK_EQ("cupti_cb_threads(NULL, 0)", cupti_cb_threads(NULL, 0), n);
    ct_check_rc("cupti_cb_threads(info, -1)", cupti_cb_threads(info, -1), PAPI_EINVAL);
    ct_check_rc("cupti_cb_threads(NULL, 1)", cupti_cb_threads(NULL, 1), PAPI_EINVAL);
    CHECK_EQ("threads listed: main (it started a set) and the three workers", n, NW + 1);
    const struct cupti_cb_thread_info *m = find_tid(info, n, my_tid());
    CHECK_EQ("the main thread is listed", m != NULL, 1);
    CHECK_EQ("the main thread comes first (the first to get a block)", info[0].tid, my_tid());
    CHECK_EQ("the idle thread is not listed", find_tid(info, n, idle_tid) == NULL, 1);
    for (int i = 0; i < NW; i++) {
        const struct cupti_cb_thread_info *w = find_tid(info, n, wtid[i]);
        snprintf(label, sizeof label, "worker %d (tid %ld) listed once", i, wtid[i]);
        CHECK_EQ(label, count_tid(info, n, wtid[i]), 1);
        if (!w)
            continue;
        snprintf(label, sizeof label, "worker %d: name '%s', want '%s'", i, w->name, wname[i]);
        CHECK_EQ(label, strcmp(w->name, wname[i]), 0);
        snprintf(label, sizeof label, "worker %d: exited", i);
        CHECK_EQ(label, w->exited, i == NW - 1);
        snprintf(label, sizeof label, "worker %d: shared", i);
        CHECK_EQ(label, w->shared, 0);
        snprintf(label, sizeof label, "worker %d: threads", i);
        CHECK_EQ(label, w->threads, 1);
    }

    /* An attached set per worker: the thread's counts since its first call. */
    static const char *const ev[] = {"api.calls", "kernel.launches", "sync.calls", "api.time_ns"};
    int es[NW];
    long long v[4], calls_sum = 0;
    for (int i = 0; i < NW; i++) {
        snprintf(label, sizeof label, "PAPI_attach to worker %d", i);
        ct_check_rc(label, attached_set(&es[i], wtid[i]), PAPI_OK);
        for (int k = 0; k < 4; k++)
            PAPI_MUST(ct_add(es[i], ev[k]));
        PAPI_MUST(PAPI_start(es[i]));
        PAPI_MUST(PAPI_read(es[i], v));
        PAPI_MUST(PAPI_stop(es[i], v));
        snprintf(label, sizeof label, "worker %d: api.calls", i);
        CHECK_EQ(label, v[0], launches[i] + gets[i] + syncs[i]);
        snprintf(label, sizeof label, "worker %d: kernel.launches", i);
        CHECK_EQ(label, v[1], launches[i]);
        snprintf(label, sizeof label, "worker %d: sync.calls", i);
        CHECK_EQ(label, v[2], syncs[i]);
        snprintf(label, sizeof label, "worker %d: api.time_ns >= 0", i);
        CHECK_EQ(label, v[3] >= 0, 1);
        calls_sum += v[0];
    }
    long long pv[2];
    PAPI_MUST(PAPI_read(hold, pv));
    CHECK_EQ("the workers' api.calls add up to the process's", calls_sum, pv[0]);

    /* Worker 0 goes on after its attached set started: the set sees it; a reset zeroes it. */
    PAPI_MUST(PAPI_start(es[0]));
    pthread_barrier_wait(&attached_go);
    pthread_barrier_wait(&more_played);
    PAPI_MUST(PAPI_read(es[0], v));
    CHECK_EQ("worker 0, attached, after 4 more launches: kernel.launches", v[1], launches[0] + 4);
    CHECK_EQ("worker 0, attached, after 4 more launches: api.calls", v[0], launches[0] + gets[0] + 4);
    PAPI_MUST(PAPI_reset(es[0]));
    PAPI_MUST(PAPI_read(es[0], v));
    CHECK_EQ("worker 0, attached, after PAPI_reset: kernel.launches", v[1], 0);
    PAPI_MUST(PAPI_stop(es[0], v));
    for (int i = 0; i < NW; i++)
        ct_destroy(&es[i]);

    check_errors(wtid[1]);
    pthread_barrier_wait(&done);
    pthread_barrier_wait(&idle_done);
    for (int i = 0; i < NW - 1; i++)
        pthread_join(t[i], NULL);
    pthread_join(it, NULL);
    PAPI_MUST(PAPI_stop(hold, pv));
    ct_destroy(&hold);
    return ct_done();
}

/* ------------------------------------------------------------------ bound */

#define NB CUPTI_CB_THREADS_OWN /* main's block + NB - 1 threads make NB blocks; one more adopts */
static long btid[NB];

static void *bound_worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "cb-bound-%d", i);
    pthread_setname_np(pthread_self(), name);
    btid[i] = my_tid();
    play_launches(i + 1, FAKE_CTX0);
    return NULL;
}

static int case_bound(void)
{
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    int hold = holding_set(); /* the main thread's block: the first */
    for (int i = 0; i < NB; i++) {
        pthread_t t;
        pthread_create(&t, NULL, bound_worker, (void *)(intptr_t)i);
        pthread_join(t, NULL);
    }
    static struct cupti_cb_thread_info info[NB + 8];
    char label[160];
    int n = cupti_cb_threads(info, NB + 8);
    CHECK_EQ("blocks after NB threads and main: the bound, then one adopted", n, NB);
    int shared = 0, missing = -1, nmissing = 0;
    for (int i = 0; i < n; i++)
        shared += info[i].shared;
    CHECK_EQ("exactly one block is shared", shared, 1);
    for (int i = 0; i < NB - 1; i++)
        if (!find_tid(info, n, btid[i])) {
            missing = i;
            nmissing++;
        }
    CHECK_EQ("exactly one earlier thread's tid left the list (its block was adopted)", nmissing, 1);
    const struct cupti_cb_thread_info *last = find_tid(info, n, btid[NB - 1]);
    CHECK_EQ("the last thread is listed", last != NULL, 1);
    if (last) {
        CHECK_EQ("the last thread's block is the shared one", last->shared, 1);
        CHECK_EQ("it holds the counts of 2 threads", last->threads, 2);
        CHECK_EQ("its owner exited", last->exited, 1);
        snprintf(label, sizeof label, "its name is the last thread's: '%s'", last->name);
        char want[16];
        snprintf(want, sizeof want, "cb-bound-%d", NB - 1);
        CHECK_EQ(label, strcmp(last->name, want), 0);
    }
    for (int i = 0; i < n; i++)
        if (info[i].tid != btid[NB - 1]) {
            snprintf(label, sizeof label, "block of tid %ld is not shared", info[i].tid);
            CHECK_EQ(label, info[i].shared + (int)info[i].threads, 1);
        }
    int es;
    long long v[1];
    PAPI_MUST(attached_set(&es, btid[NB - 1]));
    PAPI_MUST(ct_add(es, "kernel.launches"));
    PAPI_MUST(PAPI_start(es));
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("the shared block: both threads' launches", v[0], (missing + 1) + NB);
    ct_destroy(&es);
    if (missing >= 0) {
        ct_check_rc("PAPI_attach to the adopted thread's tid", attached_set(&es, btid[missing]), PAPI_EINVAL);
        ct_destroy(&es);
    }
    long long pv[2];
    PAPI_MUST(PAPI_stop(hold, pv));
    CHECK_EQ("process kernel.launches: 1 + 2 + ... + NB", pv[1], (long long)NB * (NB + 1) / 2);
    ct_destroy(&hold);
    return ct_done();
}

/* ------------------------------------------------------------------ gpu */

static const int gpu_kernels[2] = {2, 5};
static long gtid[2];
static pthread_barrier_t g_played, g_read;

static void *gpu_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    gtid[t] = my_tid();
    cuLaunchKernel_params p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < gpu_kernels[t]; i++) {
        struct fake_call c;
        fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_SUCCESS, FAKE_CTX0);
        fake_enter(&c);
        fake_exit(&c);
        uint64_t t0 = 1000000u * (uint64_t)(t + 1) + 1000u * (uint64_t)i;
        fake_activity_kernel(c.correlation_id, t0, t0 + 100, 0);
    }
    pthread_barrier_wait(&g_played);
    if (t == 1)
        return NULL; /* exits before the reads */
    pthread_barrier_wait(&g_read);
    return NULL;
}

static int case_gpu(void)
{
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    static const char *const names[] = {"gpu.kernels:process", "kernel.launches:process"};
    int hold = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(hold));
    pthread_barrier_init(&g_played, NULL, 3);
    pthread_barrier_init(&g_read, NULL, 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, gpu_worker, (void *)(intptr_t)i);
    pthread_barrier_wait(&g_played);
    pthread_join(t[1], NULL);
    char label[128];
    for (int i = 0; i < 2; i++) {
        int es;
        long long v[3];
        PAPI_MUST(attached_set(&es, gtid[i]));
        PAPI_MUST(ct_add(es, "gpu.kernels"));
        PAPI_MUST(ct_add(es, "kernel.launches"));
        PAPI_MUST(ct_add(es, "gpu.kernel_time_ns"));
        PAPI_MUST(PAPI_start(es));
        PAPI_MUST(PAPI_stop(es, v));
        snprintf(label, sizeof label, "thread %d (%s), attached: gpu.kernels", i, i ? "exited" : "alive");
        CHECK_EQ(label, v[0], gpu_kernels[i]);
        snprintf(label, sizeof label, "thread %d, attached: kernel.launches", i);
        CHECK_EQ(label, v[1], gpu_kernels[i]);
        snprintf(label, sizeof label, "thread %d, attached: gpu.kernel_time_ns", i);
        CHECK_EQ(label, v[2], 100 * gpu_kernels[i]);
        ct_destroy(&es);
    }
    pthread_barrier_wait(&g_read);
    pthread_join(t[0], NULL);
    long long pv[2];
    PAPI_MUST(PAPI_stop(hold, pv));
    CHECK_EQ("process gpu.kernels", pv[0], gpu_kernels[0] + gpu_kernels[1]);
    ct_destroy(&hold);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {{"attach", case_attach}, {"bound", case_bound}, {"gpu", case_gpu}};
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
