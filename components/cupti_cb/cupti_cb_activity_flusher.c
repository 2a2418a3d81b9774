/* cupti_cb_activity_flusher.c: see cupti_cb_activity_flusher.h. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cb_activity_flusher.h"

unsigned cupti_cb_env_ms(const char *env, unsigned dflt, unsigned max, int *bad)
{
	*bad = 0;
	if (!env || !*env)
		return dflt;
	char *end;
	errno = 0;
	unsigned long v = strtoul(env, &end, 10);
	if (errno || *end || env[0] == '-' || v > max) {
		*bad = 1;
		return dflt;
	}
	return (unsigned)v;
}

unsigned cupti_cb_flusher_period(const char *env, int *bad)
{
	return cupti_cb_env_ms(env, CUPTI_CB_FLUSH_MS_DEFAULT, CUPTI_CB_FLUSH_MS_MAX, bad);
}

/* The lock, and a condition timed on CLOCK_MONOTONIC. */
static void init_sync(struct cupti_cb_flusher *f)
{
	pthread_mutex_init(&f->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);
}

void cupti_cb_flusher_init(struct cupti_cb_flusher *f, unsigned period_ms, void (*flush)(void *), void *arg)
{
	init_sync(f);
	f->period_ms = period_ms;
	f->flush = flush;
	f->arg = arg;
}

static void deadline(struct timespec *t, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static void *flusher_main(void *arg)
{
	struct cupti_cb_flusher *f = arg;
	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		struct timespec t;
		deadline(&t, f->period_ms);
		while (!f->stop && pthread_cond_timedwait(&f->cv, &f->mu, &t) != ETIMEDOUT)
			;
		if (f->stop)
			break;
		/* Flushed without mu: stop may wait for it meanwhile. */
		pthread_mutex_unlock(&f->mu);
		f->flush(f->arg);
		pthread_mutex_lock(&f->mu);
		f->rounds++;
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* A program may exit with a set running and without PAPI_shutdown: the
 * thread must not flush into a CUPTI that exit is tearing down. Handlers
 * registered with atexit run before the libraries' destructors (and, for
 * a libpapi opened with dlopen, at its dlclose). One activity per process,
 * so one flusher to stop. */
static struct cupti_cb_flusher *_Atomic at_exit;

static void stop_at_exit(void)
{
	struct cupti_cb_flusher *f = atomic_exchange(&at_exit, NULL);
	if (f)
		cupti_cb_flusher_stop(f);
}

/* fork(): the child has no flushing thread, but its lock is a copy of the
 * parent's, held if the thread held it at that moment; the exit handler
 * then waited for it for ever in the child. The child takes a fresh one. */
static void fork_child(void)
{
	struct cupti_cb_flusher *f = atomic_load(&at_exit);
	if (!f)
		return;
	init_sync(f);
	f->running = 0;
}

int cupti_cb_flusher_start(struct cupti_cb_flusher *f)
{
	static atomic_flag registered = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set(&registered)) {
		atexit(stop_at_exit);
		pthread_atfork(NULL, NULL, fork_child);
	}
	atomic_store(&at_exit, f);
	int rc = 0;
	pthread_mutex_lock(&f->mu);
	if (f->running && f->pid != getpid())
		f->running = 0;	/* made before a fork: not in this process */
	if (!f->running && f->period_ms) {
		/* Every signal blocked: none of the program's lands here, and
		 * no sampler reads on this thread. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		f->stop = 0;
		rc = pthread_create(&f->thread, NULL, flusher_main, f);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc == 0) {
			f->running = 1;
			f->pid = getpid();
		}
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

void cupti_cb_flusher_stop(struct cupti_cb_flusher *f)
{
	pthread_mutex_lock(&f->mu);
	int join = f->running && f->pid == getpid();
	f->running = 0;
	f->stop = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (join)
		pthread_join(f->thread, NULL);
}
