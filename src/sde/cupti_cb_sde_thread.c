/* cupti_cb_sde_thread.c: each thread's event sets, one per source, made
 * through the sources' own set operations (cupti_cb_source.h), as the PAPI
 * adapter makes them for an event set.
 *
 * An SDE counter is one name for the whole process, and its reads come one
 * counter at a time on whichever thread reads. A thread's first read of a
 * counter adds the counter's code to the thread's set of its source; the
 * set runs from then on. Adding a code restarts the set, so what it
 * counted so far is kept in acc. The value of a code is then its count on
 * this thread (or in the process, for :process) since the thread first
 * read it; SDE's resets take it as their base (cupti_cb_sde_reset.c). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_sde.h"

struct group {
	void *set;		/* the source's set; NULL before the first code */
	unsigned n, cap;
	int running;
	uint32_t *codes;
	long long *vals;	/* scratch of set_read */
	long long *acc;		/* counted before the set last started */
	long long *base;	/* the value at the thread's last reset of the code */
	long long *last;	/* the last change read, for a read a signal interrupts */
};

struct thread_state {
	struct group g[CUPTI_CB_MAX_SOURCES];
	volatile sig_atomic_t busy;	/* a read is under way on this thread */
};

static __thread struct thread_state *me;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* At the thread's exit its sets let go of what they hold (their CUPTI
 * callbacks, windows) and the memory goes. */
static void thread_gone(void *p)
{
	struct thread_state *t = p;
	for (unsigned i = 0; i < CUPTI_CB_MAX_SOURCES; i++) {
		struct group *g = &t->g[i];
		const struct cupti_cb_source *s = cupti_cb_sde_engine_source(i);
		if (g->set && s) {
			if (g->running)
				s->ops->set_stop(s->self, g->set);
			s->ops->set_free(s->self, g->set);
		}
		free(g->codes), free(g->vals), free(g->acc), free(g->base), free(g->last);
	}
	free(t);
}

static void make_key(void)
{
	pthread_key_create(&key, thread_gone);
}

static struct thread_state *thread_state(void)
{
	if (me)
		return me;
	pthread_once(&key_once, make_key);
	me = calloc(1, sizeof *me);
	if (me)
		pthread_setspecific(key, me);
	return me;
}

static int find(const struct group *g, uint32_t code)
{
	for (unsigned i = 0; i < g->n; i++)
		if (g->codes[i] == code)
			return (int)i;
	return -1;
}

static int grow(struct group *g)
{
	if (g->n < g->cap)
		return 0;
	unsigned cap = g->cap ? 2 * g->cap : 8;
	if (cap > CUPTI_CB_SET_MAX)
		return -1;
	uint32_t *codes = realloc(g->codes, cap * sizeof *codes);
	if (codes)
		g->codes = codes;
	long long **arrays[] = { &g->vals, &g->acc, &g->base, &g->last };
	for (unsigned k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
		long long *a = realloc(*arrays[k], cap * sizeof *a);
		if (!a)
			return -1;
		*arrays[k] = a;
	}
	if (!codes)
		return -1;
	g->cap = cap;
	return 0;
}

/* The set counts its n codes from now. */
static int restart(const struct cupti_cb_source *s, struct group *g, char *why, size_t len)
{
	if (!g->set && !(g->set = s->ops->set_new(s->self)))
		return CUPTI_CB_ENOMEM;
	s->ops->set_granularity(s->self, g->set, 0);
	int rc = s->ops->set_update(s->self, g->set, g->codes, g->n, why, len);
	if (!rc && g->n)
		rc = s->ops->set_start(s->self, g->set, why, len);
	g->running = !rc && g->n;
	return rc;
}

/* Adds code to the thread's set of its source: what the set counted so far
 * goes into acc, and the set starts again with one more code. A code the
 * set refuses leaves the set as it was. */
static int add(const struct cupti_cb_source *s, struct group *g, uint32_t code, char *why, size_t len)
{
	if (grow(g)) {
		snprintf(why, len, "one thread can read at most %d cupti_cb counters of one source", CUPTI_CB_SET_MAX);
		return CUPTI_CB_ELIMIT;
	}
	if (g->running) {
		int rc = s->ops->set_read(s->self, g->set, g->vals);
		for (unsigned i = 0; i < g->n && (rc == CUPTI_CB_OK || rc == CUPTI_CB_EDROPPED); i++)
			g->acc[i] += g->vals[i];
		s->ops->set_stop(s->self, g->set);
		g->running = 0;
	}
	g->codes[g->n] = code;
	g->acc[g->n] = g->base[g->n] = g->last[g->n] = 0;
	g->n++;
	int rc = restart(s, g, why, len);
	if (rc) {
		char ignored[CUPTI_CB_WHY_LEN];
		g->n--;
		restart(s, g, ignored, sizeof ignored);
	}
	return rc;
}

static int read_code(struct thread_state *t, uint32_t code, int reset, long long *out, char *why, size_t len)
{
	unsigned src = CUPTI_CB_CODE_SRC(code);
	const struct cupti_cb_source *s = cupti_cb_sde_engine_source(src);
	if (!s) {
		snprintf(why, len, "the code 0x%x is no counter of libcupti_cb_sde", (unsigned)code);
		return CUPTI_CB_ENOEVNT;
	}
	struct group *g = &t->g[src];
	int i = find(g, code);
	if (i < 0) {
		int rc = cupti_cb_sde_engine_ready(why, len);
		if (!rc)
			rc = add(s, g, code, why, len);
		if (rc)
			return rc;
		i = (int)g->n - 1;
	}
	int rc = s->ops->set_read(s->self, g->set, g->vals);
	if (rc != CUPTI_CB_OK && rc != CUPTI_CB_EDROPPED) {
		const char *w = s->ops->set_why ? s->ops->set_why(s->self, g->set) : "";
		snprintf(why, len, "%s", w && w[0] ? w : "the read failed");
		return rc;
	}
	long long v = g->acc[i] + g->vals[i];
	if (reset) {
		g->base[i] = v;
		*out = 0;
	} else {
		*out = v - g->base[i];
	}
	g->last[i] = *out;
	return CUPTI_CB_OK;
}

int cupti_cb_sde_thread_read(uint32_t code, int reset, long long *out, char *why, size_t len)
{
	struct thread_state *t = thread_state();
	if (!t) {
		snprintf(why, len, "out of memory");
		return CUPTI_CB_ENOMEM;
	}
	if (t->busy) {
		/* A signal handler's read inside this thread's own read: the
		 * sets are half updated; the last change read stands. */
		int i = find(&t->g[CUPTI_CB_CODE_SRC(code)], code);
		*out = i < 0 || reset ? 0 : t->g[CUPTI_CB_CODE_SRC(code)].last[i];
		return CUPTI_CB_OK;
	}
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	int rc = read_code(t, code, reset, out, why, len);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	return rc;
}
