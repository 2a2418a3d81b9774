/* cupti_cb_inject_owner.c: the threads that own the library's event sets (see the header). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "papi.h"

#include "cupti_cb_inject_owner.h"

/* The library's threads block every signal (none of the program's may land
 * on them), which cupti_cb takes for a signal handler's context unless the
 * thread says it is a service thread (cupti_cb.h): then its reads flush
 * GPU activity and decode metrics as the program's threads do. Looked up
 * with dlsym, as cupti_cb_threads is: an older libpapi lacks it. */
struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *service_main(void *p)
{
	struct start st = *(struct start *)p;
	free(p);
	int (*service)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "cupti_cb_service_thread");
	if (service)
		service();
	return st.fn(st.arg);
}

int cupti_cb_inj_spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	struct start *st = malloc(sizeof *st);
	if (!st)
		return ENOMEM;
	st->fn = fn;
	st->arg = arg;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(t, NULL, service_main, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_setname_np(*t, "cupti_cb_run");
	else
		free(st);
	return rc;
}

static void add_ms(struct timespec *t, long ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static void *owner_main(void *arg)
{
	struct cupti_cb_inj_owner *o = arg;
	int es = PAPI_NULL;
	int rc = PAPI_create_eventset(&es);
	pthread_mutex_lock(&o->mu);
	o->eventset = es;
	o->create_rc = rc;
	o->created = 1;
	pthread_cond_broadcast(&o->cv);
	if (rc != PAPI_OK) {
		pthread_mutex_unlock(&o->mu);
		return NULL;
	}
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!o->quit) {
		if (o->interval_ms <= 0 || !o->tick) {
			pthread_cond_wait(&o->cv, &o->mu);
			clock_gettime(CLOCK_MONOTONIC, &next);	/* intervals count from now */
			continue;
		}
		add_ms(&next, o->interval_ms);
		int w = 0;
		while (!o->quit && w != ETIMEDOUT)
			w = pthread_cond_timedwait(&o->cv, &o->mu, &next);
		if (o->quit)
			break;
		pthread_mutex_unlock(&o->mu);
		o->tick(o, o->arg);
		pthread_mutex_lock(&o->mu);
	}
	pthread_mutex_unlock(&o->mu);
	if (o->finish)
		o->finish(o, o->arg);
	pthread_mutex_lock(&o->mu);
	o->done = 1;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

int cupti_cb_inj_owner_start(struct cupti_cb_inj_owner *o)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, &ca);
	pthread_condattr_destroy(&ca);
	o->eventset = PAPI_NULL;
	o->created = o->quit = o->done = 0;
	if (cupti_cb_inj_spawn(&o->tid, owner_main, o) != 0)
		return PAPI_ESYS;
	pthread_mutex_lock(&o->mu);
	while (!o->created)
		pthread_cond_wait(&o->cv, &o->mu);
	int rc = o->create_rc;
	pthread_mutex_unlock(&o->mu);
	if (rc != PAPI_OK)
		pthread_join(o->tid, NULL);
	else
		o->running = 1;
	return rc;
}

int cupti_cb_inj_owner_finish(struct cupti_cb_inj_owner *o, int timeout_s)
{
	if (!o->running)
		return 0;
	o->running = 0;
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_s;
	pthread_mutex_lock(&o->mu);
	o->quit = 1;
	pthread_cond_broadcast(&o->cv);
	int w = 0;
	while (!o->done && w != ETIMEDOUT)
		w = pthread_cond_timedwait(&o->cv, &o->mu, &until);
	int done = o->done;
	pthread_mutex_unlock(&o->mu);
	if (!done)
		return -1;
	pthread_join(o->tid, NULL);
	return 0;
}
