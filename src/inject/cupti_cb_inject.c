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
 * thus begins before cuInit returns, before the program's first real CUDA call.  No driver
 * function may be called there: with CUDA 13.0 and driver 580.159 on an H100, cupti_cb's own
 * cuInit (its driver stage, in the first add) succeeded from inside InitializeInjection, and
 * then the program's cuInit failed ("initialization error"; PyTorch: "CUDA driver
 * initialization failed").  So the library counts the devices without the driver
 * (cupti_cb_inject_devices.c) and hands the count to cupti_cb in CUPTI_CB_DEVICE_COUNT, which
 * makes its driver stage call neither cuInit nor cuDeviceGetCount; CUPTI itself may be called
 * there (subscribing, enabling callbacks and activity kinds: what CUPTI's own injection
 * samples do).  The hardware metrics (CUPTI_CB_RUN_METRICS) need the driver (the chip of each
 * device, a context): their events are added later, on a thread of the library, once the
 * program's cuInit has returned (cupti_cb_inject_metrics.c).
 *
 * CUPTI_CB_RUN_START=defer:MS (the runner's --start-after) sets up on a thread of the library
 * MS ms after cuInit, to leave out a program's start-up; the file says so.
 * CUPTI_CB_RUN_START=defer (no delay) only moves the set-up to that thread, to compare.
 *
 * The thread that owns the sets.  PAPI allows one running event set per component and thread
 * (PAPI_EISRUN), and with PAPI_thread_init a set belongs to the thread that created it
 * (ESI->master: PAPI 7.0 starts, reads and stops a set through its master's context, whichever
 * thread makes the call).  Had the set been created by the thread inside cuInit, that program
 * thread could no longer start a cupti_cb set of its own, and a program that uses PAPI itself
 * would break.  So every set is created by a thread of this library (an owner), which stays
 * parked for the life of the process (an exited thread's pthread_t could be reused by a program
 * thread, which PAPI would then take for the owner).  The events are added and the sets started
 * by the thread inside cuInit (so that counting starts before cuInit returns); each owner stops
 * its set at exit.  There are several sets (cupti_cb_inject_state.h says why): the main one, and the
 * per-function ones.  The live view has a thread and a set of its own.
 *
 * Exit.  An atexit() handler registered in InitializeInjection runs in whichever thread calls
 * exit() (or returns from main), before the destructors of the libraries (CUDA's included)
 * run.  PAPI 7.0 does not care which thread stops a set, but the handler asks each owner to
 * stop its own, then writes the process file.  A fork() child inherits the handler: it does
 * nothing in a process other than the one that was initialized.  If the program shut PAPI down
 * itself (PAPI_shutdown) the counts are gone and the file says so.  _exit(), quick_exit() and a
 * killing signal run no exit handler: the file written at InitializeInjection (and rewritten by
 * each tick of the live view, with its counts) stays, and says so (cupti_cb_inj_write_partial).
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#include "cupti_cb_inject_clock.h"
#include "cupti_cb_inject_devices.h"
#include "cupti_cb_inject_flame.h"
#include "cupti_cb_inject_json.h"
#include "cupti_cb_inject_live.h"
#include "cupti_cb_inject_metrics.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_owner.h"
#include "cupti_cb_inject_set.h"
#include "cupti_cb_inject_state.h"
#include "cupti_cb_inject_threads.h"
#include "cupti_cb_inject_timeline.h"

static struct cupti_cb_inj state = { .cidx = -1 };
static pid_t init_pid;
static atomic_int initialized, exited;

/* Set-up done (counting or not): the exit handler waits for it in the deferred mode. */
static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t setup_cv = PTHREAD_COND_INITIALIZER;
static int setup_done;

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
	s->host_time = env_long("CUPTI_CB_RUN_TIME", 1) != 0;
	s->interval_ms = env_long("CUPTI_CB_RUN_INTERVAL_MS", 0);
	s->trace = env_long("CUPTI_CB_RUN_TRACE", 0) != 0;
	s->max_events = env_long("CUPTI_CB_RUN_MAX_EVENTS", 0);
}

static unsigned long thread_id(void)
{
	return (unsigned long)pthread_self();
}

/* Gives cupti_cb the device count (see the top of this file); 0 when there is none. */
static int give_device_count(struct cupti_cb_inj *s, int *given)
{
	int n = cupti_cb_inj_device_count();
	*given = 0;
	if (n == 0)
		return 0;
	if (n < 0) {
		cupti_cb_inj_trace(s, "device count unknown without the driver: cupti_cb will call cuInit");
		return 1;
	}
	if (!getenv("CUPTI_CB_DEVICE_COUNT")) {
		char buf[16];
		snprintf(buf, sizeof buf, "%d", n);
		setenv("CUPTI_CB_DEVICE_COUNT", buf, 1);
		*given = 1;
	}
	cupti_cb_inj_trace(s, "%d device(s) visible (NVML or /proc, CUDA_VISIBLE_DEVICES)", n);
	return 1;
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
	if (rc == PAPI_OK)	/* PAPI 7.0's name lookups need this thread known (a deferred set-up) */
		rc = PAPI_register_thread();
	if (rc != PAPI_OK) {
		snprintf(s->reason, sizeof s->reason, "PAPI_thread_init failed: %s", PAPI_strerror(rc));
		return;
	}
	s->cidx = PAPI_get_component_index("cupti_cb");
	if (s->cidx < 0) {
		snprintf(s->reason, sizeof s->reason, "the libpapi this process loaded has no cupti_cb component");
		return;
	}
	rc = cupti_cb_inj_open_part(s, 0);	/* the main set, on a thread of the library */
	if (rc != PAPI_OK) {
		snprintf(s->reason, sizeof s->reason, "cannot create the event set: %s", PAPI_strerror(rc));
		return;
	}
	int given = 0;
	if (!give_device_count(s, &given)) {
		snprintf(s->reason, sizeof s->reason, "No CUDA device: none is visible to this process");
		return;
	}
	cupti_cb_inj_flame_start(s);	/* before the sets start: no launch is missed */
	cupti_cb_inj_build_and_start(s);
	if (given)
		unsetenv("CUPTI_CB_DEVICE_COUNT");	/* not for the program's child processes */
	if (s->counting)
		cupti_cb_inj_timeline_start(s);
	if (s->counting && s->interval_ms > 0)
		cupti_cb_inj_live_start(s);
	if (s->metrics && !s->counting)
		cupti_cb_inj_note(s, "hardware metrics (CUPTI_CB_RUN_METRICS=%s) were not collected: nothing is "
				  "counted in this process", s->metrics);
	cupti_cb_inj_metrics_start(s);	/* last: its thread may add notes from now on */
}

static void setup_and_signal(struct cupti_cb_inj *s)
{
	setup(s);
	cupti_cb_inj_trace(s, "%s (set-up: %.1f ms)", s->counting ? "counting" : s->reason,
			   (double)(cupti_cb_inj_now_ns() - s->t0_ns) / 1e6);
	pthread_mutex_lock(&setup_mu);
	setup_done = 1;
	pthread_cond_broadcast(&setup_cv);
	pthread_mutex_unlock(&setup_mu);
}

static void *deferred_setup(void *arg)
{
	/* CUPTI_CB_RUN_START=defer:MS waits MS ms first (see the top of this file). */
	const char *start = getenv("CUPTI_CB_RUN_START");
	long ms = start && !strncmp(start, "defer:", 6) ? strtol(start + 6, NULL, 10) : 0;
	if (ms > 0) {
		struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&t, NULL);
	}
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
		if (cupti_cb_inj_metrics_stop(s, 30) != 0) {
			s->counting = 0;
			snprintf(s->reason, sizeof s->reason, "the hardware metrics were not stopped within 30 s at exit");
		} else if (cupti_cb_inj_finish_parts(s, 30) != 0) {
			s->counting = 0;
			snprintf(s->reason, sizeof s->reason, "the event sets were not stopped within 30 s at exit");
		} else {
			cupti_cb_inj_threads_collect(s);
		}
	}
	/* After the sets stopped: their last GPU records went through the tap. */
	cupti_cb_inj_timeline_stop(s);
	cupti_cb_inj_flame_finish(s);	/* after the sets stopped: every record was processed */
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
	/* Until the exit handler writes the real file: a process that never runs it still says
	 * that it made a CUDA call (cupti_cb_inj_write_partial). */
	if (cupti_cb_inj_write_partial(s, NULL, NULL, 0, 0) != 0)
		cupti_cb_inj_trace(s, "cannot write the process file in %s: %s", s->run_dir, strerror(errno));
	/* A program that initialized PAPI before CUDA may be inside a PAPI call of its own: the
	 * cuInit we are in can be cupti_cb's, made under the component's lock, which our adds would
	 * take again on this thread.  Then the set-up runs on a thread of the library, which waits
	 * for that lock: the program's first CUDA calls can be missed, and the file says so. */
	const char *start = getenv("CUPTI_CB_RUN_START");
	int papi_first = PAPI_is_initialized() != PAPI_NOT_INITED;
	if (papi_first || (start && !strncmp(start, "defer", 5))) {
		pthread_t t;
		if (papi_first)
			cupti_cb_inj_note(s, "the program initialized PAPI before CUDA: counting started on a thread of "
					  "the library after cuInit, so the program's first CUDA calls may be missing");
		else if (start[5] == ':')
			cupti_cb_inj_note(s, "counting started %s ms after the program's first cuInit "
					  "(--start-after): the CUDA calls made before are not counted", start + 6);
		if (cupti_cb_inj_spawn(&t, deferred_setup, s) == 0) {
			pthread_detach(t);
			return 1;
		}
		if (papi_first) {
			snprintf(s->reason, sizeof s->reason, "the program initialized PAPI before CUDA, and no "
				 "thread could be started to set up the counters");
			setup_done = 1;
			return 1;
		}
	}
	setup_and_signal(s);
	return 1;
}
