/*
 * cpu_fake_dlclose: a program that opens libpapi with dlopen(), counts through cupti_cb from a
 * second thread (whose first counted CUDA call gives it a counter block and a thread-exit
 * destructor), calls PAPI_shutdown, closes libpapi with dlclose(), and only then lets that thread
 * exit.  Nothing of libpapi may run after the dlclose: the program must not crash.
 *
 * The scenario runs in a child process (this program again); the parent checks how it ended.
 * This program does not link libpapi: FAKE_PAPI_LIB is the libpapi.so of the build.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <signal.h>

#ifndef FAKE_PAPI_LIB
#error "FAKE_PAPI_LIB must name libpapi.so"
#endif

static struct {
    int (*library_init)(int);
    int (*thread_init)(unsigned long (*)(void));
    int (*create_eventset)(int *);
    int (*add_named_event)(int, const char *);
    int (*start)(int);
    int (*stop)(int, long long *);
    int (*cleanup_eventset)(int);
    int (*destroy_eventset)(int *);
    void (*shutdown)(void);
} papi;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int counted, may_exit;
static long long launches = -1;

static void set_flag(int *f)
{
    pthread_mutex_lock(&m);
    *f = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
}

static void wait_flag(int *f)
{
    pthread_mutex_lock(&m);
    while (!*f)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
}

static void *counting_thread(void *arg)
{
    (void)arg;
    int es = PAPI_NULL;
    long long v[1] = {-1};
    if (papi.create_eventset(&es) == PAPI_OK && papi.add_named_event(es, "cupti_cb:::kernel.launches") == PAPI_OK &&
        papi.start(es) == PAPI_OK) {
        play_launches(5, FAKE_CTX0);
        if (papi.stop(es, v) == PAPI_OK)
            launches = v[0];
        papi.cleanup_eventset(es);
        papi.destroy_eventset(&es);
    }
    set_flag(&counted);
    wait_flag(&may_exit);
    /* A CUDA call after libpapi is gone: no subscriber, so nothing is delivered. */
    play_launches(1, FAKE_CTX0);
    return NULL;
}

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

static int child(void)
{
    void *lib = dlopen(FAKE_PAPI_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        ct_fatal("dlopen(%s): %s", FAKE_PAPI_LIB, dlerror());
#define SYM(field, name) *(void **)&papi.field = dlsym(lib, name)
    SYM(library_init, "PAPI_library_init");
    SYM(thread_init, "PAPI_thread_init");
    SYM(create_eventset, "PAPI_create_eventset");
    SYM(add_named_event, "PAPI_add_named_event");
    SYM(start, "PAPI_start");
    SYM(stop, "PAPI_stop");
    SYM(cleanup_eventset, "PAPI_cleanup_eventset");
    SYM(destroy_eventset, "PAPI_destroy_eventset");
    SYM(shutdown, "PAPI_shutdown");
#undef SYM
    if (!papi.library_init || !papi.shutdown || !papi.stop)
        ct_fatal("%s lacks PAPI entry points", FAKE_PAPI_LIB);
    CHECK_EQ("PAPI_library_init", papi.library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    CHECK_EQ("PAPI_thread_init", papi.thread_init(thread_id), PAPI_OK);

    pthread_t t;
    pthread_create(&t, NULL, counting_thread, NULL);
    wait_flag(&counted);
    CHECK_EQ("the second thread counted kernel.launches through cupti_cb", launches, 5);

    papi.shutdown();
    CHECK_EQ("dlclose(libpapi)", dlclose(lib), 0);
    void *still = dlopen(FAKE_PAPI_LIB, RTLD_NOW | RTLD_NOLOAD);
    ct_note("libpapi is %s after dlclose", still ? "still mapped" : "unmapped");
    if (still)
        dlclose(still);
    CHECK_EQ("the fake CUPTI has no subscriber after PAPI_shutdown", fake_subscribed(), 0);

    set_flag(&may_exit);
    pthread_join(t, NULL); /* the thread's exit runs its TLS destructors here */
    CHECK_TRUE("the second thread exited after the dlclose", 1);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fake_setup();
        return child();
    }
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        ct_note("the child was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    CHECK_TRUE("the child was not killed by a signal", !WIFSIGNALED(status));
    CHECK_EQ("every check of the child passed", WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
    return ct_done();
}
