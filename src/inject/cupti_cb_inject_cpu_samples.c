/* cupti_cb_inject_cpu_samples.c: see cupti_cb_inject_cpu_samples.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cb_inject_cpu_samples.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_stacks.h"

#define MAX_TIMERS 4096	/* threads sampled */

static struct {
	long hz;
	pthread_t sampler;
	atomic_int stop, sampling;
	timer_t timers[MAX_TIMERS];
	pid_t tids[MAX_TIMERS];
	int n_timers;
} cs;

/* A timer's tick comes at the kernel's scheduler tick (4 ms at CONFIG_HZ=250): the periods
 * that passed meanwhile are its overruns, and belong to the same stack. */
static void on_sample(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	int e = errno;
	uint64_t periods = 1 + (si->si_code == SI_TIMER && si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0);
	uint32_t id = atomic_load_explicit(&cs.sampling, memory_order_relaxed) ? cupti_cb_inj_stack_take(2) : 0;
	if (id)	/* skipped: this handler and the signal frame; a lost one is counted there */
		cupti_cb_inj_stack_sample(id, periods);
	errno = e;
}

/* A timer on thread tid's CPU clock (Linux: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)) that
 * sends it SIGPROF every 1/hz s of its CPU time. */
static void sample_thread(pid_t tid)
{
	if (cs.n_timers >= MAX_TIMERS)
		return;
	for (int i = 0; i < cs.n_timers; i++)
		if (cs.tids[i] == tid)
			return;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = tid;
	clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 6);
	long period = 1000000000L / cs.hz;
	struct itimerspec its = { { period / 1000000000L, period % 1000000000L },
				  { period / 1000000000L, period % 1000000000L } };
	timer_t t;
	if (timer_create(clock, &ev, &t) != 0)
		return;
	if (timer_settime(t, 0, &its, NULL) != 0) {
		timer_delete(t);
		return;
	}
	cs.timers[cs.n_timers] = t;
	cs.tids[cs.n_timers++] = tid;
}

/* A timer for each thread of the process that has none yet, but skip. */
static void find_threads(pid_t skip)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != skip)
			sample_thread((pid_t)atoi(e->d_name));
	if (d)
		closedir(d);
}

static void *sampler(void *arg)
{
	(void)arg;
	pid_t self = gettid();
	while (!atomic_load(&cs.stop)) {
		find_threads(self);
		struct timespec t = { 0, 20 * 1000000L };
		nanosleep(&t, NULL);
	}
	return NULL;
}

void cupti_cb_inj_cpu_samples_start(struct cupti_cb_inj *s, long hz)
{
	struct sigaction old, sa;
	/* libgcc's unwinder may take a lock of its own (the tables registered at run time), which
	 * the interrupted code may hold: only libunwind's walk, with a cache per thread, runs in
	 * the handler. */
	if (!strstr(cupti_cb_inj_stacks_walker(), "libunwind")) {
		cupti_cb_inj_note(s, "the flame graph has no CPU samples: they need libunwind.so.8, whose walk is "
				  "safe in a signal handler");
		return;
	}
	if (sigaction(SIGPROF, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != NULL
						   : old.sa_handler != SIG_DFL)) {
		cupti_cb_inj_note(s, "the flame graph has no CPU samples: the program handles SIGPROF itself");
		return;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	cs.hz = hz;
	atomic_store(&cs.sampling, 1);
	int rc = sigaction(SIGPROF, &sa, NULL) != 0 ? errno : 0;
	if (rc == 0) {
		/* The threads there now, from this one (inside the program's first cuInit): their
		 * CPU time is sampled from here on, however late the sampler's thread first runs. */
		find_threads(0);
		rc = cupti_cb_inj_spawn(&cs.sampler, sampler, NULL);
	}
	if (rc != 0) {
		for (int i = 0; i < cs.n_timers; i++)
			timer_delete(cs.timers[i]);
		cs.n_timers = 0;
		atomic_store(&cs.sampling, 0);
		cupti_cb_inj_note(s, "the flame graph has no CPU samples: %s", strerror(rc));
	}
}

void cupti_cb_inj_cpu_samples_stop(void)
{
	if (!atomic_load(&cs.sampling))
		return;
	atomic_store(&cs.stop, 1);
	pthread_join(cs.sampler, NULL);
	for (int i = 0; i < cs.n_timers; i++)
		timer_delete(cs.timers[i]);
	atomic_store(&cs.sampling, 0);
	signal(SIGPROF, SIG_IGN);	/* a tick already sent must not end the process */
}
