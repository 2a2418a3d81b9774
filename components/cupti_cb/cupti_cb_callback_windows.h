/* cupti_cb_callback_windows.h: what counters cannot do. The shortest and longest
 * call of a function (<func>.time_ns_min/_max) and the peak of the live
 * allocation bytes (alloc.peak_bytes) are not differences of values that
 * only grow: each needs a window that starts at PAPI_start and sees every
 * call until PAPI_stop. And the live bytes (alloc.live_bytes) are one
 * process-wide gauge per device.
 *
 * A running event set with such events takes one of a few windows at
 * start and gives it back at stop. A window names up to
 * CUPTI_CB_WIN_SLOTS function slots; each thread's counter set keeps a (min,
 * max) pair per slot of each window, written only by its thread, like
 * every other counter. The hot path loads one byte per function slot
 * (the windows that track it) and does nothing more when it is 0.
 *
 * Epochs: a window's epoch changes each time it is taken. A counter set
 * stamped with an older epoch is stale: its thread starts the window
 * afresh at its next call, and readers skip it (re-reading the stamp
 * after the values, as a sequence lock does, so that a counter set being
 * restarted while it is read is skipped too).
 *
 * PAPI_reset does not touch a window: TAU, Caliper and Score-P read and
 * reset at every timer or region boundary and add up what they read, so
 * a set reads these values as levels (struct cupti_cb_level below), whose
 * pieces between resets add up.
 *
 * Taking and giving back windows takes a lock (the cold path); noting a
 * call, an allocation or a free never does, and never allocates. */
#ifndef CUPTI_CB_CALLBACK_WINDOWS_H
#define CUPTI_CB_CALLBACK_WINDOWS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define CUPTI_CB_N_WINDOWS  8	/* running sets with min/max/peak events at once */
#define CUPTI_CB_WIN_SLOTS  255	/* functions one window times: 4 windows time every CUDA
				   function (cupti_cb_run does); entries are bytes, NONE excluded */
/* In a counter set: the epoch stamp, then (min, max) per slot, in clock ticks. */
#define CUPTI_CB_WIN_STRIDE (1 + 2 * CUPTI_CB_WIN_SLOTS)
#define CUPTI_CB_WIN_NONE   0xff	/* no entry of this window for this function */
#define CUPTI_CB_WIN_EMPTY  UINT64_MAX	/* a min that saw no call */
_Static_assert(CUPTI_CB_WIN_SLOTS <= CUPTI_CB_WIN_NONE, "entries 0 .. SLOTS-1 are bytes other than NONE");

struct cupti_cb_thread_registry;

struct cupti_cb_window {
	int taken;			/* its epoch: cupti_cb_windows.epoch[w] (0: never started) */
	int peaks;			/* tracks alloc.peak_bytes */
	unsigned n_slots;
	uint16_t slots[CUPTI_CB_WIN_SLOTS];
	_Atomic uint64_t *peak;		/* per live row (see live below) */
};

struct cupti_cb_windows {
	unsigned n_funcs;
	unsigned n_rows;		/* device rows; live and peak have one more: all rows */
	_Atomic uint8_t *mask;		/* by function slot: bit w when window w times it */
	_Atomic uint8_t *pos;		/* [w * n_funcs + slot]: its entry in window w, or NONE */
	/* each window's epoch, read by the hot path at every timed call of a
	 * function it times: together, apart from the windows' cold fields */
	_Atomic uint64_t epoch[CUPTI_CB_N_WINDOWS];
	atomic_uint peak_mask;		/* windows that track peaks */
	_Atomic int64_t *live;		/* bytes allocated and not freed, per row, then all */
	_Atomic uint64_t next_epoch;
	pthread_mutex_t lock;		/* taking and giving back */
	struct cupti_cb_window w[CUPTI_CB_N_WINDOWS];
};

int cupti_cb_windows_init(struct cupti_cb_windows *t, unsigned n_funcs, unsigned n_rows);
void cupti_cb_windows_fini(struct cupti_cb_windows *t);

/* A window timing these function slots (n <= CUPTI_CB_WIN_SLOTS), and the
 * peaks when peaks is set, started now: its index, or -1 when every
 * window is taken. Entry k of the window is slots[k]. */
int cupti_cb_windows_take(struct cupti_cb_windows *t, const uint16_t *slots, unsigned n, int peaks);
void cupti_cb_windows_give(struct cupti_cb_windows *t, int w);

/* ---- the hot path ---------------------------------------------------------- */

/* The windows that time function slot; 0 when none runs. */
static inline unsigned cupti_cb_windows_mask(const struct cupti_cb_windows *t, unsigned slot)
{
	return atomic_load_explicit(&t->mask[slot], memory_order_acquire);
}

/* A counter set's entries of window w, stale (another epoch): reset for ep. */
void cupti_cb_windows_afresh(_Atomic uint64_t *e, uint64_t ep);

/* A call of slot that took ticks, seen by the thread whose counter set's window
 * entries start at bw (c + lay.win); mask from cupti_cb_windows_mask.  Inline:
 * it runs at the exit of every timed call of a windowed function. */
static inline void cupti_cb_windows_note(struct cupti_cb_windows *t, _Atomic uint64_t *bw, unsigned slot,
					 unsigned mask, uint64_t ticks)
{
	for (; mask; mask &= mask - 1) {
		unsigned w = (unsigned)__builtin_ctz(mask);
		unsigned k = atomic_load_explicit(&t->pos[(size_t)w * t->n_funcs + slot], memory_order_relaxed);
		if (k >= CUPTI_CB_WIN_SLOTS)
			continue;	/* given back meanwhile */
		uint64_t ep = atomic_load_explicit(&t->epoch[w], memory_order_acquire);
		_Atomic uint64_t *e = bw + (size_t)w * CUPTI_CB_WIN_STRIDE;
		if (atomic_load_explicit(&e[0], memory_order_relaxed) != ep)
			cupti_cb_windows_afresh(e, ep);
		/* Only this thread writes its counter set: plain loads and stores. The
		 * max goes first and the min is published after it, so that a
		 * reader that sees a min sees a max at least as large. */
		if (ticks > atomic_load_explicit(&e[2 + 2 * k], memory_order_relaxed))
			atomic_store_explicit(&e[2 + 2 * k], ticks, memory_order_relaxed);
		if (ticks < atomic_load_explicit(&e[1 + 2 * k], memory_order_relaxed))
			atomic_store_explicit(&e[1 + 2 * k], ticks, memory_order_release);
	}
}

/* A successful allocation recorded on row, and a free of one. */
void cupti_cb_windows_alloc(struct cupti_cb_windows *t, unsigned row, uint64_t bytes);
void cupti_cb_windows_free(struct cupti_cb_windows *t, unsigned row, uint64_t bytes);

/* ---- reading ---------------------------------------------------------------- */

/* Entry k of window w in one counter set (bw: its window entries): 1 and the
 * pair when the counter set holds values of the window's current epoch. */
int cupti_cb_windows_entry(const struct cupti_cb_windows *t, int w, const _Atomic uint64_t *bw, unsigned k,
			   uint64_t *min, uint64_t *max);
/* Over every counter set of the registry, live or exited (win: lay.win); min is
 * CUPTI_CB_WIN_EMPTY when no call completed. */
void cupti_cb_windows_entry_process(const struct cupti_cb_windows *t, int w, const struct cupti_cb_thread_registry *r,
				    size_t win, unsigned k, uint64_t *min, uint64_t *max);
/* Row n_rows: every row. */
uint64_t cupti_cb_windows_live(const struct cupti_cb_windows *t, unsigned row);
uint64_t cupti_cb_windows_peak(const struct cupti_cb_windows *t, int w, unsigned row);

/* ---- levels: how a set reads these values -----------------------------------
 *
 * Each of these events has a level: the shortest or the longest call since
 * the set's PAPI_start (0 before the first), the live bytes now, the
 * highest live bytes since PAPI_start. A read returns how much the level
 * changed since the last PAPI_reset, the level counting from 0 at
 * PAPI_start. So a read with no reset since the start returns the level
 * itself, and the pieces that read + reset + add gives add up to it:
 * summing is what every consumer that resets does. A piece of the minimum
 * or of the live bytes may be negative; of a maximum or a peak, never.
 *
 * The level is built from its changes, each converted when it is sampled
 * (as time counters convert their increments), so that a tick ratio still
 * being calibrated never makes a maximum go down. One writer: the thread
 * that reads and resets the set. */
struct cupti_cb_level {
	int64_t raw;		/* the level at the last sample, in ticks or bytes */
	int64_t total;		/* the level in the read unit (ns or bytes), sum of the changes */
	int64_t at_reset;	/* total at the last reset (or 0 at start) */
};

/* PAPI_start: the level counts from 0. */
void cupti_cb_level_start(struct cupti_cb_level *l);
/* Samples the level (raw_now, in ticks when fs_per_tick is not 0, else in
 * the read unit) and returns the value of a read: the change since the
 * last reset. */
int64_t cupti_cb_level_sample(struct cupti_cb_level *l, uint64_t raw_now, uint64_t fs_per_tick);
/* PAPI_reset, after a sample: the next read counts from here. */
void cupti_cb_level_reset(struct cupti_cb_level *l);

#endif
