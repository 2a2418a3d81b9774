/*
 * cupti_cb_inject.c: libcupti_cb_inject.so, loaded into the program that cupti_cb_run measures.
 *
 * The injection path.  cupti_cb_run sets CUDA_INJECTION64_PATH to this library; the CUDA driver
 * dlopen()s it inside the program's first cuInit and calls InitializeInjection (which must
 * return 1).  So the library acts exactly at the first CUDA call of every process that uses
 * CUDA (static or shared cudart, driver API only, Python), and never in processes that do not.
 *
 * What it does there, on the thread inside cuInit: PAPI_library_init, PAPI_thread_init, one
 * event set of cupti_cb events in process scope (cupti_cb_inject_set.c), PAPI_start.  Counting
 * thus begins before cuInit returns, before the program's first real CUDA call.  cupti_cb's
 * driver stage runs in the first add, and it calls cuInit and cuDeviceGetCount itself: from
 * inside cuInit, on the same thread.  Doing it on the same thread is deliberate: a driver that
 * serialises its initialization would make any other thread's cuInit wait for ours, which waits
 * for that thread.  CUPTI_CB_RUN_START=defer moves the whole set-up to a thread of the library
 * that runs while cuInit returns (counting then starts a little later); it exists to compare
 * the two on a driver.
 *
 * The thread that owns the sets.  PAPI allows one running event set per component and thread
 * (PAPI_EISRUN), and with PAPI_thread_init a set belongs to the thread that created it
 * (ESI->master: PAPI 7.0 starts, reads and stops a set through its master's context, whichever
 * thread makes the call).  Had the set been created by the thread inside cuInit, that program
 * thread could no longer start a cupti_cb set of its own, and a program that uses PAPI itself
 * would break.  So the main set is created by a thread of this library (the keeper), which
 * stays parked for the life of the process (an exited thread's pthread_t could be reused by a
 * program thread, which PAPI would then take for the owner).  The events are added and the set
 * started by the thread inside cuInit (the reason above); the keeper stops it at exit.  The
 * live view has a thread and a small set of its own (cupti_cb_inject_live.c).
 *
 * Exit.  An atexit() handler registered in InitializeInjection runs in whichever thread calls
 * exit() (or returns from main), before the destructors of the libraries (CUDA's included)
 * run.  PAPI 7.0 does not care which thread stops a set, but the handler asks the keeper to
 * stop it anyway, then writes the process file.  A fork() child inherits the handler: it does
 * nothing in a process other than the one that was initialized.  If the program shut PAPI down
 * itself (PAPI_shutdown) the counts are gone and the file says so.  _exit(), quick_exit() and a
 * killing signal write no file.
 *
 * Never break the program: every failure becomes status.reason or a note in the file, and
 * InitializeInjection returns 1 whatever happened.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#include "cupti_cb_inject.h"
#include "cupti_cb_inject_owner.h"

static struct cupti_cb_inj state = { .eventset = PAPI_NULL, .cidx = -1 };
static struct cupti_cb_inj_owner keeper;
static pid_t init_pid;
static atomic_int initialized, exited;

/* Set-up done (counting or not): the exit handler waits for it in the deferred mode. */
static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t setup_cv = PTHREAD_COND_INITIALIZER;
static int setup_done;

long long cupti_cb_inj_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void cupti_cb_inj_note(struct cupti_cb_inj *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cupti_cb_inj_trace(s, "note: %s", buf);
	if (s->n_notes < CUPTI_CB_INJ_MAX_NOTES) {
		char *n = strdup(buf);
		if (n)
			s->notes[s->n_notes++] = n;
	}
}

void cupti_cb_inj_trace(const struct cupti_cb_inj *s, const char *fmt, ...)
{
	if (!s->trace)
		return;
	char buf[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(stderr, CUPTI_CB_INJ_PREFIX "[%d] %s\n", (int)getpid(), buf);
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || *end || n < 0)
		return dflt;
	return n;
}

static void read_environment(struct cupti_cb_inj *s)
{
	const char *dir = getenv("CUPTI_CB_RUN_DIR");
	const char *m = getenv("CUPTI_CB_RUN_METRICS");
	s->run_dir = dir && *dir ? strdup(dir) : NULL;
	s->metrics = m && *m ? strdup(m) : NULL;
	s->activity = env_long("CUPTI_CB_RUN_ACTIVITY", 1) != 0;
	s->interval_ms = env_long("CUPTI_CB_RUN_INTERVAL_MS", 0);
	s->trace = env_long("CUPTI_CB_RUN_TRACE", 0) != 0;
	s->max_events = env_long("CUPTI_CB_RUN_MAX_EVENTS", 0);
}

static unsigned long thread_id(void)
{
	return (unsigned long)pthread_self();
}

/* The keeper's end: stop the set it owns (on the keeper thread). */
static void keeper_finish(struct cupti_cb_inj_owner *o, void *arg)
{
	struct cupti_cb_inj *s = arg;
	if (!s->counting || !s->values)
		return;
	int rc = PAPI_stop(o->eventset, s->values);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "PAPI_stop failed at exit (%s): the counts are those of a last PAPI_read",
				  PAPI_strerror(rc));
		rc = PAPI_read(o->eventset, s->values);
		if (rc != PAPI_OK) {
			s->counting = 0;
			snprintf(s->reason, sizeof s->reason, "PAPI_read failed at exit: %s", PAPI_strerror(rc));
		}
	}
}

static void setup(struct cupti_cb_inj *s)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(s->reason, sizeof s->reason, "PAPI_library_init failed: %s",
			 rc < 0 ? PAPI_strerror(rc) : "this libpapi is of another version");
		return;
	}
	rc = PAPI_thread_init(thread_id);
	if (rc != PAPI_OK) {
		snprintf(s->reason, sizeof s->reason, "PAPI_thread_init failed: %s", PAPI_strerror(rc));
		return;
	}
	s->cidx = PAPI_get_component_index("cupti_cb");
	if (s->cidx < 0) {
		snprintf(s->reason, sizeof s->reason, "the libpapi this process loaded has no cupti_cb component");
		return;
	}
	keeper.interval_ms = 0;
	keeper.finish = keeper_finish;
	keeper.arg = s;
	rc = cupti_cb_inj_owner_start(&keeper);
	if (rc != PAPI_OK) {
		snprintf(s->reason, sizeof s->reason, "cannot create the event set: %s", PAPI_strerror(rc));
		return;
	}
	s->eventset = keeper.eventset;
	cupti_cb_inj_build_and_start(s);
	if (s->counting && s->interval_ms > 0)
		cupti_cb_inj_live_start(s);
}

static void setup_and_signal(struct cupti_cb_inj *s)
{
	setup(s);
	cupti_cb_inj_trace(s, "%s", s->counting ? "counting" : s->reason);
	pthread_mutex_lock(&setup_mu);
	setup_done = 1;
	pthread_cond_broadcast(&setup_cv);
	pthread_mutex_unlock(&setup_mu);
}

static void *deferred_setup(void *arg)
{
	setup_and_signal(arg);
	return NULL;
}

/* Waits at most seconds for the set-up; 1 when it is done. */
static int wait_setup(int seconds)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	pthread_mutex_lock(&setup_mu);
	int rc = 0;
	while (!setup_done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&setup_cv, &setup_mu, &until);
	int done = setup_done;
	pthread_mutex_unlock(&setup_mu);
	return done;
}

static void at_exit(void)
{
	struct cupti_cb_inj *s = &state;
	if (getpid() != init_pid || atomic_exchange(&exited, 1))
		return;	/* a fork() child, or already done */
	if (!wait_setup(30)) {
		s->counting = 0;
		snprintf(s->reason, sizeof s->reason, "the set-up of the counters had not finished at exit");
	} else if (s->counting && PAPI_is_initialized() == PAPI_NOT_INITED) {
		s->counting = 0;
		snprintf(s->reason, sizeof s->reason,
			 "the program shut PAPI down (PAPI_shutdown) before it exited: the counts are lost");
	} else if (s->counting) {
		cupti_cb_inj_live_stop();
		cupti_cb_inj_owner_finish(&keeper);
	}
	if (cupti_cb_inj_write(s) != 0)
		fprintf(stderr, CUPTI_CB_INJ_PREFIX "cannot write the process file in %s: %s\n", s->run_dir,
			strerror(errno));
}

/* Called by the CUDA driver inside the first cuInit of the process.  Returns 1 always. */
int InitializeInjection(void) __attribute__((visibility("default")));
int InitializeInjection(void)
{
	struct cupti_cb_inj *s = &state;
	if (atomic_exchange(&initialized, 1))
		return 1;
	s->t0_ns = cupti_cb_inj_now_ns();
	init_pid = getpid();
	read_environment(s);
	if (!s->run_dir) {
		fprintf(stderr, CUPTI_CB_INJ_PREFIX "CUPTI_CB_RUN_DIR is not set: nothing is counted in "
			"process %d\n", (int)init_pid);
		return 1;
	}
	if (atexit(at_exit) != 0) {
		fprintf(stderr, CUPTI_CB_INJ_PREFIX "atexit failed: nothing is counted in process %d\n",
			(int)init_pid);
		return 1;
	}
	const char *start = getenv("CUPTI_CB_RUN_START");
	if (start && !strcmp(start, "defer")) {
		pthread_t t;
		if (cupti_cb_inj_spawn(&t, deferred_setup, s) == 0) {
			pthread_detach(t);
			return 1;
		}
	}
	setup_and_signal(s);
	return 1;
}
