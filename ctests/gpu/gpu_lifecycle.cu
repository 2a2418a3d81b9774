/*
 * gpu_lifecycle: the PAPI event-set lifecycle with exact values.  Launches are cudaLaunchKernel
 * calls (one API call each, see ct_launch).
 *
 * read/reset/accum: launch 5, read 5; launch 3, read 8; reset; launch 2, read 2;
 *   PAPI_accum into {10} -> 12 and the counter is reset (read 0); launch 4, stop 4.
 * remove/re-add: {kernel.launches, api.calls}, remove kernel.launches -> 1 event;
 *   launch 3 -> api.calls 3; re-add kernel.launches; launch 2 -> 2, 2.
 * several events: {kernel.launches, cudaLaunchKernel.calls, memcpy.bytes, api.calls},
 *   4 launches + 2 x 1000-byte cudaMemcpy -> 4, 4, 2000, 6.
 * stop then start: launch 3, stop 3; start, launch 1, stop 1 (counts from 0 again).
 * two threads, each with its own running set at the same time: 7 and 11.
 * qualifier spellings: kernel.launches:device=0 == kernel.launches:device0 == kernel.launches == 3.
 * bad names -> PAPI_ENOEVNT: no_such_event, :device=99, :bogus, cudaMemcpy.calls:device=0,
 *   api.calls:device=0; 5000-character names -> some PAPI error, no crash; the set is still usable.
 * PAPI_shutdown, PAPI_library_init again: launch 6 -> kernel.launches 6, api.calls 6.
 */
#include "ctest_util.h"

static void read_check(int es, const char *label, long long want)
{
    long long v = -1;
    PAPI_MUST(PAPI_read(es, &v));
    CHECK_EQ(label, v, want);
}

static void read_reset_accum()
{
    const char *names[] = {"kernel.launches"};
    int es = ct_eventset(1, names);
    long long v;
    PAPI_MUST(PAPI_start(es));
    ct_launch(5, 0);
    read_check(es, "launch 5: read", 5);
    ct_launch(3, 0);
    read_check(es, "launch 3 more: read", 8);
    PAPI_MUST(PAPI_reset(es));
    read_check(es, "after PAPI_reset: read", 0);
    ct_launch(2, 0);
    read_check(es, "reset, launch 2: read", 2);
    long long acc = 10;
    PAPI_MUST(PAPI_accum(es, &acc));
    CHECK_EQ("PAPI_accum into 10 after 2 launches", acc, 12);
    read_check(es, "after PAPI_accum: read (accum resets)", 0);
    ct_launch(4, 0);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("launch 4 after accum: stop value", v, 4);

    /* stop, then start again: counts from 0 */
    PAPI_MUST(PAPI_start(es));
    ct_launch(3, 0);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("restart 1: launch 3, stop", v, 3);
    PAPI_MUST(PAPI_start(es));
    ct_launch(1, 0);
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("restart 2: launch 1, stop (from 0, not 4)", v, 1);
    ct_destroy(&es);
}

static void remove_readd()
{
    const char *names[] = {"kernel.launches", "api.calls"};
    int es = ct_eventset(2, names);
    long long v[2] = {-1, -1};
    CHECK_PAPI(PAPI_remove_named_event(es, "cupti_cb:::kernel.launches"));
    CHECK_EQ("PAPI_num_events after remove", PAPI_num_events(es), 1);
    PAPI_MUST(PAPI_start(es));
    ct_launch(3, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after remove, launch 3: api.calls", v[0], 3);
    ct_check_rc("re-add kernel.launches", ct_add(es, "kernel.launches"), PAPI_OK);
    CHECK_EQ("PAPI_num_events after re-add", PAPI_num_events(es), 2);
    PAPI_MUST(PAPI_start(es));
    ct_launch(2, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after re-add, launch 2: api.calls", v[0], 2);
    CHECK_EQ("after re-add, launch 2: kernel.launches", v[1], 2);
    ct_destroy(&es);
}

static pthread_barrier_t both_started;

static void *two_threads_worker(void *arg)
{
    long n = (long)arg;
    const char *names[] = {"kernel.launches"};
    long long v = -1;
    char label[64];
    cudaStream_t s;
    PAPI_MUST(PAPI_register_thread());
    CUDA_MUST(cudaSetDevice(0));
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int es = ct_eventset(1, names);
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&both_started);
    ct_launch((int)n, s);
    pthread_barrier_wait(&both_started); /* both have launched before either stops */
    PAPI_MUST(PAPI_stop(es, &v));
    snprintf(label, sizeof label, "thread launching %ld: kernel.launches", n);
    CHECK_EQ(label, v, n);
    ct_destroy(&es);
    CUDA_MUST(cudaStreamSynchronize(s));
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_MUST(PAPI_unregister_thread());
    return nullptr;
}

static void two_threads()
{
    pthread_t a, b;
    pthread_barrier_init(&both_started, nullptr, 2);
    if (pthread_create(&a, nullptr, two_threads_worker, (void *)7L) ||
        pthread_create(&b, nullptr, two_threads_worker, (void *)11L))
        ct_fatal("pthread_create");
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    pthread_barrier_destroy(&both_started);
}

/* PAPI_set_opt(PAPI_GRANUL, PAPI_GRN_PROC) makes a whole set count the
 * process, like :process on each event; PAPI_GRN_THR goes back. */
static void set_granularity(int es, int granularity)
{
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.granularity.eventset = es;
    opt.granularity.granularity = granularity;
    PAPI_MUST(PAPI_set_opt(PAPI_GRANUL, &opt));
}

static void granularity()
{
    const char *names[] = {"kernel.launches"};
    long long v = -1;
    int es = ct_eventset(1, names);
    set_granularity(es, PAPI_GRN_PROC);
    PAPI_MUST(PAPI_start(es));
    ct_launch(2, 0);
    two_threads(); /* 7 + 11 launches in two other threads */
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("PAPI_GRN_PROC: own 2 + other threads' 18 launches", v, 20);
    set_granularity(es, PAPI_GRN_THR);
    PAPI_MUST(PAPI_start(es));
    ct_launch(2, 0);
    two_threads();
    PAPI_MUST(PAPI_stop(es, &v));
    CHECK_EQ("back to PAPI_GRN_THR: own launches only", v, 2);
    ct_destroy(&es);
}

static void bad_names()
{
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    const char *enoevnt[] = {"cupti_cb:::no_such_event", "cupti_cb:::kernel.launches:device=99",
                             "cupti_cb:::kernel.launches:bogus", "cupti_cb:::cudaMemcpy.calls:device=0",
                             "cupti_cb:::api.calls:device=0"};
    for (const char *name : enoevnt)
        ct_check_rc((std::string("PAPI_add_named_event(\"") + name + "\")").c_str(),
                    PAPI_add_named_event(es, name), PAPI_ENOEVNT);

    std::string long_base = "cupti_cb:::" + std::string(5000 - 11, 'x');
    std::string long_qual = "cupti_cb:::kernel.launches:" + std::string(5000 - 27, 'q');
    for (const std::string &name : {long_base, long_qual}) {
        int rc = PAPI_add_named_event(es, name.c_str());
        ct_note("%zu-character name (%.30s...) -> %s", name.size(), name.c_str(), ct_papi_err(rc));
        CHECK_REL("a 5000-character name is refused with a PAPI error", rc, "<", 0);
    }
    CHECK_EQ("PAPI_num_events after the refused names", PAPI_num_events(es), 0);
    ct_check_rc("the same set still takes kernel.launches", ct_add(es, "kernel.launches"), PAPI_OK);
    ct_destroy(&es);
}

int main()
{
    ct_gpu_ready(1);

    read_reset_accum();
    remove_readd();

    char *h = (char *)calloc(1000, 1), *d;
    CUDA_MUST(cudaMalloc(&d, 1000));
    ct_region("several events in one set",
              {{"kernel.launches", 4}, {"cudaLaunchKernel.calls", 4}, {"memcpy.bytes", 2000}, {"api.calls", 6}},
              [&] {
                  ct_launch(4, 0);
                  CUDA_MUST(cudaMemcpy(d, h, 1000, cudaMemcpyHostToDevice));
                  CUDA_MUST(cudaMemcpy(d, h, 1000, cudaMemcpyHostToDevice));
              });
    CUDA_MUST(cudaFree(d));
    free(h);

    two_threads();
    granularity();
    ct_region("qualifier spellings",
              {{"kernel.launches:device=0", 3}, {"kernel.launches:device0", 3}, {"kernel.launches", 3}},
              [&] { ct_launch(3, 0); });
    bad_names();

    PAPI_shutdown();
    ct_library_init();
    ct_region("after PAPI_shutdown and PAPI_library_init again", {{"kernel.launches", 6}, {"api.calls", 6}},
              [&] { ct_launch(6, 0); });
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_shutdown();
    return ct_done();
}
