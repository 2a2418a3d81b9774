/* cupti_cb_activity_busy.c: see cupti_cb_activity_busy.h. */
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_thread_counters.h"
#include "cupti_cb_activity_busy.h"

uint64_t cupti_cb_busy_merge(uint64_t *start, uint64_t *end, uint64_t s, uint64_t e)
{
	uint64_t add = 0;
	if (e <= s)
		return 0;
	if (*end == 0 || s >= *end) {
		*start = s;
		*end = e;
		return e - s;
	}
	if (e <= *start)
		return e - s;
	if (s < *start) {
		add += *start - s;
		*start = s;
	}
	if (e > *end) {
		add += e - *end;
		*end = e;
	}
	return add;
}

struct cupti_cb_busy_window *cupti_cb_busy_window_new(enum cupti_cb_busy_scope scope,
						      const struct cupti_cb_thread_counters *counters, long tid, int device,
						      unsigned n_rows)
{
	struct cupti_cb_busy_window *w = calloc(1, sizeof *w + (size_t)n_rows * 2 * sizeof w->iv[0]);
	if (!w)
		return NULL;
	w->scope = scope;
	w->counters = counters;
	w->tid = tid;
	w->device = device;
	w->n_rows = n_rows;
	return w;
}

int cupti_cb_busy_window_takes(const struct cupti_cb_busy_window *w, const struct cupti_cb_thread_counters *b,
			       unsigned row)
{
	if (w->device >= 0 && (unsigned)w->device != row)
		return 0;
	switch (w->scope) {
	case CUPTI_CB_BUSY_PROCESS:
		return 1;
	case CUPTI_CB_BUSY_THREAD:
		return b && b == w->counters;
	case CUPTI_CB_BUSY_TID:
		return b && atomic_load_explicit(&b->tid, memory_order_relaxed) == w->tid;
	}
	return 0;
}

void cupti_cb_busy_window_clear(struct cupti_cb_busy_window *w)
{
	memset(w->iv, 0, (size_t)w->n_rows * 2 * sizeof w->iv[0]);
}

void cupti_cb_busy_window_merge(struct cupti_cb_busy_window *w, unsigned row, uint64_t s, uint64_t e)
{
	if (row >= w->n_rows)
		return;
	if (atomic_exchange_explicit(&w->restart, 0, memory_order_acquire))
		cupti_cb_busy_window_clear(w);
	uint64_t add = cupti_cb_busy_merge(&w->iv[2 * row], &w->iv[2 * row + 1], s, e);
	/* One writer (the processing's lock): a plain load and store. */
	atomic_store_explicit(&w->total, atomic_load_explicit(&w->total, memory_order_relaxed) + add,
			      memory_order_relaxed);
}
