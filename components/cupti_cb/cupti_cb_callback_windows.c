/* cupti_cb_callback_windows.c: see cupti_cb_callback_windows.h. */
#include "cupti_cb_callback_windows.h"
#include "cupti_cb_thread_counters.h"
#include "cupti_cb_clock.h"

#include <stdlib.h>
#include <string.h>

int cupti_cb_windows_init(struct cupti_cb_windows *t, unsigned n_funcs, unsigned n_rows,
			  const struct cupti_cb_win_layout *at)
{
	t->n_funcs = n_funcs;
	t->n_rows = n_rows;
	t->at = *at;
	t->slot = aligned_alloc(64, ((n_funcs ? n_funcs : 1) * sizeof *t->slot + 63) / 64 * 64);
	t->live = calloc(n_rows + 1, sizeof *t->live);
	atomic_init(&t->peak_mask, 0);
	atomic_init(&t->next_epoch, 1);
	pthread_mutex_init(&t->lock, NULL);
	int ok = t->slot && t->live;
	for (unsigned w = 0; w < CUPTI_CB_N_WINDOWS; w++) {
		struct cupti_cb_window *win = &t->w[w];
		atomic_init(&t->epoch[w], 0);
		win->taken = 0;
		win->peaks = 0;
		win->n_slots = 0;
		win->peak = calloc(n_rows + 1, sizeof *win->peak);
		ok = ok && win->peak;
	}
	if (!ok) {
		cupti_cb_windows_fini(t);
		return -1;
	}
	for (unsigned i = 0; i < n_funcs; i++) {
		struct cupti_cb_win_slot *s = &t->slot[i];
		memset(s->pad, 0, sizeof s->pad);
		atomic_init(&s->mask, 0);
		atomic_init(&s->inline_w, CUPTI_CB_WIN_NONE);
		for (unsigned w = 0; w < CUPTI_CB_N_WINDOWS; w++)
			atomic_init(&s->pos[w], CUPTI_CB_WIN_NONE);
	}
	for (unsigned r = 0; r <= n_rows; r++) {
		atomic_init(&t->live[r], 0);
		for (unsigned w = 0; w < CUPTI_CB_N_WINDOWS; w++)
			atomic_init(&t->w[w].peak[r], 0);
	}
	return 0;
}

void cupti_cb_windows_fini(struct cupti_cb_windows *t)
{
	free(t->slot);
	free(t->live);
	t->slot = NULL;
	t->live = NULL;
	for (unsigned w = 0; w < CUPTI_CB_N_WINDOWS; w++) {
		free(t->w[w].peak);
		t->w[w].peak = NULL;
	}
	pthread_mutex_destroy(&t->lock);
}

static uint64_t clamp(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* peak = max(peak, v), against other threads doing the same. */
static void raise_to(_Atomic uint64_t *peak, uint64_t v)
{
	uint64_t old = atomic_load(peak);
	while (v > old && !atomic_compare_exchange_weak(peak, &old, v))
		;
}

static void start_locked(struct cupti_cb_windows *t, int w)
{
	struct cupti_cb_window *win = &t->w[w];
	/* A new epoch, never used before by any window: every entry is stale. */
	atomic_store(&t->epoch[w], atomic_fetch_add(&t->next_epoch, 1));
	if (!win->peaks)
		return;
	/* Down to 0, then up to the live value: an allocation running now
	 * either added before the load below (and is in it) or raises the
	 * peak itself after it (peak_mask is published before this). */
	for (unsigned r = 0; r <= t->n_rows; r++) {
		atomic_store(&win->peak[r], 0);
		raise_to(&win->peak[r], clamp(atomic_load(&t->live[r])));
	}
}

int cupti_cb_windows_take(struct cupti_cb_windows *t, const uint16_t *slots, unsigned n, int peaks)
{
	if (n > CUPTI_CB_WIN_SLOTS)
		return -1;
	pthread_mutex_lock(&t->lock);
	int w = 0;
	while (w < CUPTI_CB_N_WINDOWS && t->w[w].taken)
		w++;
	if (w == CUPTI_CB_N_WINDOWS) {
		pthread_mutex_unlock(&t->lock);
		return -1;
	}
	struct cupti_cb_window *win = &t->w[w];
	win->taken = 1;
	win->peaks = peaks;
	win->n_slots = 0;
	for (unsigned k = 0; k < n; k++) {
		if (slots[k] >= t->n_funcs)
			continue;
		struct cupti_cb_win_slot *s = &t->slot[slots[k]];
		atomic_store(&s->pos[w], (uint8_t)k);
		/* The first running window of a function keeps its entries inline. */
		if (atomic_load(&s->inline_w) == CUPTI_CB_WIN_NONE)
			atomic_store(&s->inline_w, (uint8_t)w);
		win->slots[win->n_slots++] = slots[k];
	}
	/* Positions first, then the masks the hot path looks at, then the epoch
	 * (a call noted before it counts in the old epoch, which no one reads). */
	for (unsigned k = 0; k < win->n_slots; k++)
		atomic_fetch_or(&t->slot[win->slots[k]].mask, (uint8_t)(1u << w));
	if (peaks)
		atomic_fetch_or(&t->peak_mask, 1u << w);
	start_locked(t, w);
	pthread_mutex_unlock(&t->lock);
	return w;
}

void cupti_cb_windows_give(struct cupti_cb_windows *t, int w)
{
	if (w < 0 || w >= CUPTI_CB_N_WINDOWS)
		return;
	pthread_mutex_lock(&t->lock);
	struct cupti_cb_window *win = &t->w[w];
	if (win->taken) {
		for (unsigned k = 0; k < win->n_slots; k++) {
			struct cupti_cb_win_slot *s = &t->slot[win->slots[k]];
			atomic_fetch_and(&s->mask, (uint8_t)~(1u << w));
			atomic_store(&s->pos[w], CUPTI_CB_WIN_NONE);
			/* The next window taken for it keeps them inline; one running
			 * now keeps them where they are. */
			if (atomic_load(&s->inline_w) == w)
				atomic_store(&s->inline_w, CUPTI_CB_WIN_NONE);
		}
		atomic_fetch_and(&t->peak_mask, ~(1u << w));
		win->n_slots = 0;
		win->peaks = 0;
		win->taken = 0;
	}
	pthread_mutex_unlock(&t->lock);
}

/* ---- the hot path ---------------------------------------------------------- */

void cupti_cb_windows_afresh(_Atomic uint64_t *e, uint64_t ep)
{
	atomic_store_explicit(&e[0], 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&e[1], CUPTI_CB_WIN_EMPTY, memory_order_relaxed);
	atomic_store_explicit(&e[2], 0, memory_order_relaxed);
	atomic_store_explicit(&e[0], ep, memory_order_release);
}

void cupti_cb_windows_alloc(struct cupti_cb_windows *t, unsigned row, uint64_t bytes)
{
	int64_t r = atomic_fetch_add(&t->live[row], (int64_t)bytes) + (int64_t)bytes;
	int64_t all = atomic_fetch_add(&t->live[t->n_rows], (int64_t)bytes) + (int64_t)bytes;
	unsigned pm = atomic_load(&t->peak_mask);
	for (; pm; pm &= pm - 1) {
		struct cupti_cb_window *win = &t->w[__builtin_ctz(pm)];
		raise_to(&win->peak[row], clamp(r));
		raise_to(&win->peak[t->n_rows], clamp(all));
	}
}

void cupti_cb_windows_free(struct cupti_cb_windows *t, unsigned row, uint64_t bytes)
{
	atomic_fetch_sub(&t->live[row], (int64_t)bytes);
	atomic_fetch_sub(&t->live[t->n_rows], (int64_t)bytes);
}

/* ---- reading ---------------------------------------------------------------- */

int cupti_cb_windows_entry(const struct cupti_cb_windows *t, int w, const _Atomic uint64_t *c, unsigned k,
			   uint64_t *min, uint64_t *max)
{
	const struct cupti_cb_window *win = &t->w[w];
	if (k >= win->n_slots)
		return 0;
	unsigned slot = win->slots[k];
	const _Atomic uint64_t *e = atomic_load(&t->slot[slot].inline_w) == (unsigned)w
					    ? c + t->at.inline_at + t->at.inline_stride * slot
					    : c + t->at.out_at + ((size_t)w * CUPTI_CB_WIN_SLOTS + k) * CUPTI_CB_WIN_OUT_ENTRY;
	uint64_t ep = atomic_load_explicit(&t->epoch[w], memory_order_acquire);
	if (atomic_load_explicit(&e[0], memory_order_acquire) != ep)
		return 0;
	*min = atomic_load_explicit(&e[1], memory_order_acquire);
	*max = atomic_load_explicit(&e[2], memory_order_relaxed);
	/* The read side of the sequence lock: an entry restarted meanwhile is skipped. */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&e[0], memory_order_relaxed) == ep;
}

void cupti_cb_windows_entry_process(const struct cupti_cb_windows *t, int w, const struct cupti_cb_thread_registry *r,
				    unsigned k, uint64_t *min, uint64_t *max)
{
	*min = CUPTI_CB_WIN_EMPTY;
	*max = 0;
	for (const struct cupti_cb_thread_counters *b = atomic_load_explicit(&r->head, memory_order_acquire); b;
	     b = b->next) {
		uint64_t lo, hi;
		if (!cupti_cb_windows_entry(t, w, b->c, k, &lo, &hi))
			continue;
		if (lo < *min)
			*min = lo;
		if (hi > *max)
			*max = hi;
	}
}

uint64_t cupti_cb_windows_live(const struct cupti_cb_windows *t, unsigned row)
{
	return clamp(atomic_load(&t->live[row]));
}

uint64_t cupti_cb_windows_peak(const struct cupti_cb_windows *t, int w, unsigned row)
{
	return atomic_load(&t->w[w].peak[row]);
}

/* ---- levels ------------------------------------------------------------------- */

void cupti_cb_level_start(struct cupti_cb_level *l)
{
	l->raw = 0;
	l->total = 0;
	l->at_reset = 0;
}

int64_t cupti_cb_level_sample(struct cupti_cb_level *l, uint64_t raw_now, uint64_t fs_per_tick)
{
	int64_t now = (int64_t)(raw_now > INT64_MAX ? INT64_MAX : raw_now);
	int64_t d = now - l->raw;
	if (fs_per_tick) {
		/* Convert the change with its sign: a minimum goes down. */
		uint64_t ns = cupti_cb_clock_ticks_to_ns(fs_per_tick, d < 0 ? (uint64_t)-d : (uint64_t)d);
		d = d < 0 ? -(int64_t)ns : (int64_t)ns;
	}
	l->raw = now;
	l->total += d;
	return l->total - l->at_reset;
}

void cupti_cb_level_reset(struct cupti_cb_level *l)
{
	l->at_reset = l->total;
}
