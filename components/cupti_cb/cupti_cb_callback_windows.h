/* cupti_cb_callback_windows.h: what counters cannot do. The shortest and longest
 * call of a function (<func>.time_ns_min/_max) and the peak of the live
 * allocation bytes (alloc.peak_bytes) are not differences of values that
 * only grow: each needs a window that starts at PAPI_start and sees every
 * call until PAPI_stop. And the live bytes (alloc.live_bytes) are one
 * process-wide gauge per device.
 *
 * A running event set with such events takes one of a few windows at
 * start and gives it back at stop. A window names up to
 * CUPTI_CB_WIN_SLOTS function slots; each thread's counter set keeps an
 * entry (epoch stamp, min, max) per function of each window, written only
 * by its thread, like every other counter. The first running window that
 * times a function keeps its entries inline, in the words after the
 * function's call and time counters (the line a call of it writes
 * anyway); a second window timing the same function at the same time
 * keeps them in the counter set's out-of-line region. The hot path loads
 * one 16-byte descriptor per function slot (the windows that time it and
 * where), fetched at the ENTER, and does nothing more when no window
 * times the function. Measured: the out-of-line entries with a stamp per
 * window cost four cache lines per timed call, half a per cent of a
 * thread that launches empty kernels.
 *
 * Epochs: a window's epoch changes each time it is taken, and no two
 * takings share one. An entry stamped with another epoch is stale: its
 * thread starts it afresh at its next call, and readers skip it
 * (re-reading the stamp after the values, as a sequence lock does, so
 * that an entry being restarted while it is read is skipped too).
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
#include <stddef.h>
#include <stdint.h>

#define CUPTI_CB_N_WINDOWS  8	/* running sets with min/max/peak events at once */
#define CUPTI_CB_WIN_SLOTS  255	/* functions one window times: 4 windows time every CUDA
				   function (cupti_cb_run does); entries are bytes, NONE excluded */
/* An entry: the epoch stamp, the min and the max, in clock ticks. */
#define CUPTI_CB_WIN_ENTRY  3
/* The out-of-line entries of a counter set: 4 words each, so that none
 * straddles two cache lines. */
#define CUPTI_CB_WIN_OUT_ENTRY 4
#define CUPTI_CB_WIN_OUT_WORDS ((size_t)CUPTI_CB_N_WINDOWS * CUPTI_CB_WIN_SLOTS * CUPTI_CB_WIN_OUT_ENTRY)
#define CUPTI_CB_WIN_NONE   0xff	/* no entry of this window for this function */
#define CUPTI_CB_WIN_EMPTY  UINT64_MAX	/* a min that saw no call */
_Static_assert(CUPTI_CB_WIN_SLOTS <= CUPTI_CB_WIN_NONE, "entries 0 .. SLOTS-1 are bytes other than NONE");
_Static_assert(CUPTI_CB_N_WINDOWS <= 8, "a function's windows are one byte of bits");

struct cupti_cb_thread_registry;

struct cupti_cb_window {
	int taken;
	int peaks;			/* tracks alloc.peak_bytes */
	unsigned n_slots;
	uint16_t slots[CUPTI_CB_WIN_SLOTS];	/* entry k times function slots[k] */
	_Atomic uint64_t *peak;		/* per live row (see live below) */
};

/* What the hot path reads of one function slot: 16 bytes, four to a cache line. */
struct cupti_cb_win_slot {
	_Atomic uint8_t mask;		/* bit w: window w times the function */
	_Atomic uint8_t inline_w;	/* the window whose entries are inline, or NONE */
	_Atomic uint8_t pos[CUPTI_CB_N_WINDOWS];	/* its entry in window w, or NONE */
	uint8_t pad[16 - 2 - CUPTI_CB_N_WINDOWS];
};

/* Where a counter set keeps the entries: inline at c[inline_at +
 * inline_stride * slot], out of line at c[out_at + (w * CUPTI_CB_WIN_SLOTS +
 * k) * CUPTI_CB_WIN_OUT_ENTRY]. */
struct cupti_cb_win_layout {
	size_t inline_at, inline_stride, out_at;
};

struct cupti_cb_windows {
	unsigned n_funcs;
	unsigned n_rows;		/* device rows; live and peak have one more: all rows */
	struct cupti_cb_win_layout at;
	struct cupti_cb_win_slot *slot;	/* by function slot */
	/* each window's epoch, read by the hot path at every timed call of a
	 * function it times: together, apart from the windows' cold fields */
	_Atomic uint64_t epoch[CUPTI_CB_N_WINDOWS];
	atomic_uint peak_mask;		/* windows that track peaks */
	_Atomic int64_t *live;		/* bytes allocated and not freed, per row, then all */
	_Atomic uint64_t next_epoch;
	pthread_mutex_t lock;		/* taking and giving back */
	struct cupti_cb_window w[CUPTI_CB_N_WINDOWS];
};

int cupti_cb_windows_init(struct cupti_cb_windows *t, unsigned n_funcs, unsigned n_rows,
			  const struct cupti_cb_win_layout *at);
void cupti_cb_windows_fini(struct cupti_cb_windows *t);

/* A window timing these function slots (n <= CUPTI_CB_WIN_SLOTS), and the
 * peaks when peaks is set, started now: its index, or -1 when every
 * window is taken. Entry k of the window is slots[k]. */
int cupti_cb_windows_take(struct cupti_cb_windows *t, const uint16_t *slots, unsigned n, int peaks);
void cupti_cb_windows_give(struct cupti_cb_windows *t, int w);

/* ---- the hot path ---------------------------------------------------------- */

/* The descriptor of slot, to fetch at a call's ENTER. */
static inline const void *cupti_cb_windows_slot_line(const struct cupti_cb_windows *t, unsigned slot)
{
	return &t->slot[slot];
}

/* The windows that time function slot; 0 when none runs. */
static inline unsigned cupti_cb_windows_mask(const struct cupti_cb_windows *t, unsigned slot)
{
	return atomic_load_explicit(&t->slot[slot].mask, memory_order_acquire);
}

/* An entry (stamp, min, max) of another epoch: marked unreadable, reset,
 * then stamped with ep (a sequence lock's write side). */
void cupti_cb_windows_afresh(_Atomic uint64_t *e, uint64_t ep);

/* A call of slot that took ticks, seen by the thread whose counters are c;
 * mask from cupti_cb_windows_mask. Inline: it runs at the exit of every
 * timed call of a windowed function. */
static inline void cupti_cb_windows_note(struct cupti_cb_windows *t, _Atomic uint64_t *c, unsigned slot,
					 unsigned mask, uint64_t ticks)
{
	const struct cupti_cb_win_slot *s = &t->slot[slot];
	/* Loaded after the mask (acquire): a window's positions are set before its bit. */
	unsigned inl = atomic_load_explicit(&s->inline_w, memory_order_relaxed);
	for (; mask; mask &= mask - 1) {
		unsigned w = (unsigned)__builtin_ctz(mask);
		unsigned k = atomic_load_explicit(&s->pos[w], memory_order_relaxed);
		if (k >= CUPTI_CB_WIN_SLOTS)
			continue;	/* given back meanwhile */
		uint64_t ep = atomic_load_explicit(&t->epoch[w], memory_order_acquire);
		_Atomic uint64_t *e = w == inl ? c + t->at.inline_at + t->at.inline_stride * slot
					       : c + t->at.out_at + ((size_t)w * CUPTI_CB_WIN_SLOTS + k) *
									CUPTI_CB_WIN_OUT_ENTRY;
		if (atomic_load_explicit(&e[0], memory_order_relaxed) != ep)
			cupti_cb_windows_afresh(e, ep);
		/* Only this thread writes its counter set: plain loads and stores. The
		 * max goes first and the min is published after it, so that a
		 * reader that sees a min sees a max at least as large. */
		if (ticks > atomic_load_explicit(&e[2], memory_order_relaxed))
			atomic_store_explicit(&e[2], ticks, memory_order_relaxed);
		if (ticks < atomic_load_explicit(&e[1], memory_order_relaxed))
			atomic_store_explicit(&e[1], ticks, memory_order_release);
	}
}

/* A successful allocation recorded on row, and a free of one. */
void cupti_cb_windows_alloc(struct cupti_cb_windows *t, unsigned row, uint64_t bytes);
void cupti_cb_windows_free(struct cupti_cb_windows *t, unsigned row, uint64_t bytes);

/* ---- reading ---------------------------------------------------------------- */

/* Entry k of window w in the counter set whose counters are c: 1 and the
 * pair when it holds values of the window's current epoch. For a window
 * that the reader's set holds (its slots and places do not change). */
int cupti_cb_windows_entry(const struct cupti_cb_windows *t, int w, const _Atomic uint64_t *c, unsigned k,
			   uint64_t *min, uint64_t *max);
/* Over every counter set of the registry, live or exited; min is
 * CUPTI_CB_WIN_EMPTY when no call completed. */
void cupti_cb_windows_entry_process(const struct cupti_cb_windows *t, int w, const struct cupti_cb_thread_registry *r,
				    unsigned k, uint64_t *min, uint64_t *max);
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
