/* cupti_cb_publish.c: metric values published for readers that may not lock
 * (see cupti_cb_publish.h). */
#include "cupti_cb_publish.h"

#include <stddef.h>

void cupti_cb_publish_init(struct cupti_cb_publish *p)
{
	atomic_init(&p->cur, 0);
	for (unsigned c = 0; c < 2; c++) {
		atomic_init(&p->copy[c].seq, 0);
		atomic_init(&p->copy[c].err, 0);
		for (unsigned i = 0; i < CUPTI_CB_PUBLISH_MAX; i++)
			atomic_init(&p->copy[c].v[i], 0);
	}
}

void cupti_cb_publish_write(struct cupti_cb_publish *p, const long long *v, unsigned n, int err)
{
	unsigned w = 1u - atomic_load_explicit(&p->cur, memory_order_relaxed);
	struct cupti_cb_publish_copy *c = &p->copy[w];
	if (n > CUPTI_CB_PUBLISH_MAX)
		n = CUPTI_CB_PUBLISH_MAX;
	/* Odd: a reader still on this copy (overtaken twice) tries again. */
	atomic_fetch_add_explicit(&c->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (unsigned i = 0; i < n; i++)
		atomic_store_explicit(&c->v[i], v[i], memory_order_relaxed);
	atomic_store_explicit(&c->err, err, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->seq, 1, memory_order_release);
	atomic_store_explicit(&p->cur, w, memory_order_release);
}

/* Tries before a reader that keeps being overtaken gives up (only another
 * thread's reader can be, never a handler on the writer's own thread). */
#define TRIES 1000

int cupti_cb_publish_read(struct cupti_cb_publish *p, long long *v, unsigned n)
{
	return cupti_cb_publish_read_at(p, NULL, v, n);
}

/* at NULL: the first n values. */
int cupti_cb_publish_read_at(struct cupti_cb_publish *p, const unsigned *at, long long *v, unsigned n)
{
	int err;
	if (n > CUPTI_CB_PUBLISH_MAX)
		n = CUPTI_CB_PUBLISH_MAX;
	for (unsigned i = 0; at && i < n; i++)
		if (at[i] >= CUPTI_CB_PUBLISH_MAX)
			return CUPTI_CB_PUBLISH_BUSY;
	for (unsigned t = 0; t < TRIES; t++) {
		unsigned idx = atomic_load_explicit(&p->cur, memory_order_acquire);
		const struct cupti_cb_publish_copy *c = &p->copy[idx];
		unsigned s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
		if (s1 & 1u)
			continue;
		for (unsigned i = 0; i < n; i++)
			v[i] = atomic_load_explicit(&c->v[at ? at[i] : i], memory_order_relaxed);
		err = atomic_load_explicit(&c->err, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		/* The copy is whole, and still the published one: a reader that
		 * took the index before the writer moved on can find the other
		 * copy already rewritten (whole) but not yet published, newer than
		 * what the next read, taking the index again, finds published. */
		if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s1 &&
		    atomic_load_explicit(&p->cur, memory_order_relaxed) == idx)
			return err;
	}
	return CUPTI_CB_PUBLISH_BUSY;
}
