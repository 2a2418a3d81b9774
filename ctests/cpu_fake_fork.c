/*
 * cpu_fake_fork: a child process after fork() must either count correctly or get a clear error
 * (the component disabled with a sentence, or an error code from PAPI), and never deadlock on a
 * lock that a thread of the parent held at the fork.  The parent keeps counting exactly.
 *
 * The main thread runs {kernel.launches, cudaLaunchKernel.calls} and has played 2 launches.  Then:
 *   split - another thread is inside a runtime call (ENTER seen, EXIT not yet);
 *   lock  - another thread is inside PAPI_start of its own set, blocked in the fake
 *           cuptiEnableCallback (the component's cold-path lock is held at the fork).
 * The main thread forks.  The child (alarm() watchdog: 10 s) plays 3 launches, reads, stops, and
 * starts and stops a new set around 4 launches.  The parent lets the other thread go on, plays 3
 * launches and must read 5.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <signal.h>

static int es_main = PAPI_NULL;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inside, go_on;

static void wait_flag(int *flag)
{
    pthread_mutex_lock(&m);
    while (!*flag)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
}

static void set_flag(int *flag)
{
    pthread_mutex_lock(&m);
    *flag = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
}

static void *in_split_call(void *arg)
{
    (void)arg;
    struct fake_call sync;
    fake_call_init(&sync, FAKE_RT, RCB(cudaDeviceSynchronize_v3020), NULL, 0, FAKE_CTX0);
    fake_enter(&sync);
    set_flag(&inside);
    wait_flag(&go_on);
    fake_exit(&sync);
    return NULL;
}

static void *in_start(void *arg)
{
    (void)arg;
    static const char *const names[] = {"memset.calls"};
    long long v[1];
    int es = ct_eventset(1, names);
    fake_block_enable(1);
    PAPI_MUST(PAPI_start(es)); /* blocks in the fake until the parent releases it */
    play_memset(8, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("parent: the other thread's memset.calls", v[0], 1);
    ct_destroy(&es);
    return NULL;
}

/* The child: exact counts, or a clear error. Exit status 0 when that holds. */
static int child(void)
{
    long long v[2];
    alarm(10);
    int cidx = cb_cidx();
    play_launches(3, FAKE_CTX0);
    int rc = PAPI_read(es_main, v);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    int disabled = ci->disabled != 0 && ci->disabled != PAPI_EDELAY_INIT && ci->disabled_reason[0];
    ct_note("child: PAPI_read %s, kernel.launches %lld, cudaLaunchKernel.calls %lld, disabled %d (%s)", ct_papi_err(rc),
            v[0], v[1], disabled, ci->disabled_reason);
    int counted = rc == PAPI_OK && v[0] == 5 && v[1] == 5;
    CHECK_TRUE("child: the running set counts exactly (2 before the fork + 3), or the component says why",
               counted || rc != PAPI_OK || disabled);
    rc = PAPI_stop(es_main, v);
    CHECK_TRUE("child: PAPI_stop returns (no deadlock)", 1);

    static const char *const names[] = {"kernel.launches"};
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    rc = ct_add(es, names[0]);
    if (rc == PAPI_OK)
        rc = PAPI_start(es);
    CHECK_TRUE("child: a new set's start returns (no deadlock)", 1);
    if (rc == PAPI_OK) {
        play_launches(4, FAKE_CTX0);
        rc = PAPI_stop(es, v);
        CHECK_TRUE("child: a new set counts 4 launches exactly, or stop fails", rc != PAPI_OK || v[0] == 4);
    } else {
        ci = PAPI_get_component_info(cidx);
        ct_note("child: new set: %s; disabled reason: %s", ct_papi_err(rc), ci->disabled_reason);
        CHECK_TRUE("child: a failed start comes with a disabled reason", ci->disabled_reason[0] != '\0');
    }
    return ct_done();
}

static void scenario(const char *name, void *(*fn)(void *), void (*wait_inside)(void), void (*let_go)(void))
{
    long long v[2];
    char label[256];
    static const char *const names[] = {"kernel.launches", "cudaLaunchKernel.calls"};
    es_main = ct_eventset(2, names);
    PAPI_MUST(PAPI_start(es_main));
    play_launches(2, FAKE_CTX0);
    inside = go_on = 0;
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    wait_inside();

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child());
    int status = 0;
    waitpid(pid, &status, 0);
    snprintf(label, sizeof label, "%s: the child ended by itself (no deadlock, no crash)", name);
    if (!CHECK_TRUE(label, WIFEXITED(status)))
        ct_note("%s: child killed by signal %d%s", name, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? " (watchdog: it hung)" : "");
    else {
        snprintf(label, sizeof label, "%s: every check of the child passed", name);
        CHECK_EQ(label, WEXITSTATUS(status), 0);
    }

    let_go();
    pthread_join(t, NULL);
    play_launches(3, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es_main, v));
    snprintf(label, sizeof label, "%s: parent kernel.launches (2 before the fork + 3 after)", name);
    CHECK_EQ(label, v[0], 5);
    snprintf(label, sizeof label, "%s: parent cudaLaunchKernel.calls", name);
    CHECK_EQ(label, v[1], 5);
    ct_destroy(&es_main);
}

static void wait_split(void)
{
    wait_flag(&inside);
}
static void release_split(void)
{
    set_flag(&go_on);
}

int main(void)
{
    fake_setup();
    ct_library_init();
    PAPI_MUST(PAPI_thread_init(ct_thread_id));
    scenario("split", in_split_call, wait_split, release_split);
    scenario("lock", in_start, fake_wait_enable_blocked, fake_release_enable);
    return ct_done();
}
