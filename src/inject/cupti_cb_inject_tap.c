/* cupti_cb_inject_tap.c: see cupti_cb_inject_tap.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "cupti_cb_inject_tap.h"

static _Atomic(const struct cupti_cb_tap *) parts[CUPTI_CB_INJ_TAP_PARTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void issue_all(void *arg, uint32_t correlation, const char *call)
{
	(void)arg;
	for (int i = 0; i < CUPTI_CB_INJ_TAP_PARTS; i++) {
		const struct cupti_cb_tap *p = atomic_load_explicit(&parts[i], memory_order_acquire);
		if (p && p->issue)
			p->issue(p->arg, correlation, call);
	}
}

static void call_all(void *arg, const struct cupti_cb_tap_call *c)
{
	(void)arg;
	for (int i = 0; i < CUPTI_CB_INJ_TAP_PARTS; i++) {
		const struct cupti_cb_tap *p = atomic_load_explicit(&parts[i], memory_order_acquire);
		if (p && p->call)
			p->call(p->arg, c);
	}
}

static void work_all(void *arg, const struct cupti_cb_tap_work *w)
{
	(void)arg;
	for (int i = 0; i < CUPTI_CB_INJ_TAP_PARTS; i++) {
		const struct cupti_cb_tap *p = atomic_load_explicit(&parts[i], memory_order_acquire);
		if (p && p->work)
			p->work(p->arg, w);
	}
}

static const struct cupti_cb_tap all = { issue_all, call_all, work_all, NULL };

/* Under mu: the tap that cupti_cb holds follows whether any part is in. */
static void update(void)
{
	int any = 0;
	for (int i = 0; i < CUPTI_CB_INJ_TAP_PARTS; i++)
		any |= atomic_load_explicit(&parts[i], memory_order_relaxed) != NULL;
	cupti_cb_tap_set(any ? &all : NULL);
}

void cupti_cb_inj_tap_join(enum cupti_cb_inj_tap_part part, const struct cupti_cb_tap *hooks)
{
	pthread_mutex_lock(&mu);
	atomic_store_explicit(&parts[part], hooks, memory_order_release);
	update();
	pthread_mutex_unlock(&mu);
}

void cupti_cb_inj_tap_leave(enum cupti_cb_inj_tap_part part)
{
	pthread_mutex_lock(&mu);
	atomic_store_explicit(&parts[part], NULL, memory_order_release);
	update();
	pthread_mutex_unlock(&mu);
}
