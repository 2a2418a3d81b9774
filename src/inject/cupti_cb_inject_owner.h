/*
 * cupti_cb_inject_owner.h: a thread of the library that owns one PAPI event set.
 *
 * The thread creates the set (so that PAPI's ESI->master is this thread, not a thread of the
 * program: see cupti_cb_inject.c), then parks.  With interval_ms > 0 it calls tick() every
 * interval; at cupti_cb_inj_owner_finish() it calls finish() and ends.  Its signals are
 * blocked, so that the program's signal handlers keep running on the program's threads.
 */
#ifndef CUPTI_CB_INJECT_OWNER_H
#define CUPTI_CB_INJECT_OWNER_H

#include <pthread.h>

struct cupti_cb_inj_owner {
	/* set by the caller before cupti_cb_inj_owner_start */
	long interval_ms;
	void (*tick)(struct cupti_cb_inj_owner *o, void *arg);
	void (*finish)(struct cupti_cb_inj_owner *o, void *arg);
	void *arg;
	/* the thread's */
	int eventset;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int created, create_rc, quit, done, running;
};

/* Starts the thread and waits until it created its set.  Returns PAPI_OK (o->eventset is the
 * set) or a PAPI error code (no thread is left running). */
int cupti_cb_inj_owner_start(struct cupti_cb_inj_owner *o);
/* Asks the thread to call finish(), waits at most timeout_s seconds
 * for it and joins it.  Returns 0, or -1 when the thread did not finish in time (it is left
 * alone).  Safe to call twice. */
int cupti_cb_inj_owner_finish(struct cupti_cb_inj_owner *o, int timeout_s);
/* pthread_create with every signal blocked in the new thread. */
int cupti_cb_inj_spawn(pthread_t *t, void *(*fn)(void *), void *arg);

#endif /* CUPTI_CB_INJECT_OWNER_H */
