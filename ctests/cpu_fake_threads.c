/*
 * cpu_fake_threads: several event sets in several threads, through the fake CUPTI.
 *
 * Four PAPI threads each run their own set {kernel.launches, memcpy.bytes_htod,
 * kernel.launches:process}; thread i plays i+1 launches and 100 * (i + 1) bytes host to device.
 * A thread that never registers with PAPI plays 5 launches.  The main thread runs a set made
 * process-wide with PAPI_GRN_PROC.  Each thread-scope value is the thread's own; every process
 * value is the sum over all threads, those that exited included.
 */
#include "ctest_util.h"
#include "fake_play.h"

#define NT 4
static pthread_barrier_t ready, played, read_done;

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    static const char *const names[] = {"kernel.launches", "memcpy.bytes_htod", "kernel.launches:process"};
    long long v[3];
    char label[128];
    int es = ct_eventset(3, names);
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&ready);
    play_launches(i + 1, FAKE_CTX0);
    play_htod((size_t)(100 * (i + 1)), 0);
    pthread_barrier_wait(&played); /* every thread, and the unregistered one, has played */
    PAPI_MUST(PAPI_read(es, v));
    snprintf(label, sizeof label, "thread %d: its own kernel.launches", i);
    CHECK_EQ(label, v[0], i + 1);
    snprintf(label, sizeof label, "thread %d: its own memcpy.bytes_htod", i);
    CHECK_EQ(label, v[1], 100 * (i + 1));
    snprintf(label, sizeof label, "thread %d: kernel.launches:process (1+2+3+4 + 5 unregistered)", i);
    CHECK_EQ(label, v[2], 15);
    pthread_barrier_wait(&read_done);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    PAPI_MUST(PAPI_unregister_thread());
    return NULL;
}

static void *unregistered(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&ready);
    play_launches(5, FAKE_CTX1);
    pthread_barrier_wait(&played);
    pthread_barrier_wait(&read_done);
    return NULL;
}

int main(void)
{
    fake_setup();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));

    /* The main thread's set: process scope for the whole set through PAPI_GRN_PROC. */
    static const char *const names[] = {"kernel.launches", "memcpy.bytes_htod", "kernel.launches:device=0"};
    int es = ct_eventset(3, names);
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.granularity.eventset = es;
    opt.granularity.granularity = PAPI_GRN_PROC;
    PAPI_MUST(PAPI_set_opt(PAPI_GRANUL, &opt));
    PAPI_MUST(PAPI_start(es));
    ct_check_rc("PAPI_GRANUL on a running set", PAPI_set_opt(PAPI_GRANUL, &opt), PAPI_EISRUN);

    pthread_barrier_init(&ready, NULL, NT + 2);
    pthread_barrier_init(&played, NULL, NT + 2);
    pthread_barrier_init(&read_done, NULL, NT + 2);
    pthread_t t[NT + 1];
    for (int i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    pthread_create(&t[NT], NULL, unregistered, NULL);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&played);
    long long v[3];
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("main, PAPI_GRN_PROC: kernel.launches of all threads", v[0], 15);
    CHECK_EQ("main, PAPI_GRN_PROC: memcpy.bytes_htod of all threads", v[1], 1000);
    CHECK_EQ("main, PAPI_GRN_PROC: kernel.launches:device=0 (the unregistered thread used device 1)", v[2], 10);
    pthread_barrier_wait(&read_done);
    for (int i = 0; i <= NT; i++)
        pthread_join(t[i], NULL);

    /* The threads exited: their counts stay in the process total. */
    play_launches(2, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("main, PAPI_GRN_PROC after the threads exited: kernel.launches", v[0], 17);
    CHECK_EQ("main: memcpy.bytes_htod", v[1], 1000);

    /* Back to thread granularity: each event counts its own scope again. */
    opt.granularity.granularity = PAPI_GRN_THR;
    PAPI_MUST(PAPI_set_opt(PAPI_GRANUL, &opt));
    PAPI_MUST(PAPI_start(es));
    pthread_t other;
    pthread_barrier_init(&ready, NULL, 2);
    pthread_barrier_init(&played, NULL, 2);
    pthread_barrier_init(&read_done, NULL, 2);
    pthread_create(&other, NULL, unregistered, NULL);
    pthread_barrier_wait(&ready);
    play_launches(3, FAKE_CTX0);
    pthread_barrier_wait(&played);
    pthread_barrier_wait(&read_done);
    pthread_join(other, NULL);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("main, PAPI_GRN_THR again: only this thread's kernel.launches", v[0], 3);
    ct_destroy(&es);
    return ct_done();
}
