/*
 * cupti_cb_inject_tlclock.h: one clock for the timeline.  GPU activity records are stamped by
 * CUPTI's clock (cuptiGetTimestamp: ns, within a fraction of a microsecond of CLOCK_REALTIME on
 * the machines measured); cupti_cb's callbacks by its own ticks (the TSC, or CLOCK_MONOTONIC ns).
 * The timeline puts host ticks on CUPTI's clock through anchors: pairs (tick, CUPTI ns) read
 * together by one thread, the CUPTI read bracketed by two tick reads (the narrowest of three
 * tries kept).  A tick between two anchors is interpolated linearly between them; one after
 * the last anchor is extrapolated with the rate over the widest span the anchors kept; so
 * drift between the two clocks (NTP slewing CLOCK_REALTIME, a TSC's rate) is followed at each
 * anchor.  Without cuptiGetTimestamp (a libcupti that lacks it), CLOCK_REALTIME stands in.
 *
 * Not thread-safe: one thread anchors and converts, or the caller serialises.
 */
#ifndef CUPTI_CB_INJECT_TLCLOCK_H
#define CUPTI_CB_INJECT_TLCLOCK_H

#include <stdint.h>

#define CUPTI_CB_INJ_TL_ANCHORS 64

struct cupti_cb_inj_tlclock {
	struct {
		uint64_t tick, gpu;
	} a[CUPTI_CB_INJ_TL_ANCHORS];	/* a ring, oldest first from `first` */
	unsigned n, first;
	int gpu_clock;			/* CUPTI's clock was read (0: CLOCK_REALTIME stood in) */
	/* sources of time: cupti_cb's by default; tests give their own */
	uint64_t (*tick_now)(void);
	int (*gpu_now)(uint64_t *ns);	/* 0, or -1: not available */
};

/* tick_now/gpu_now NULL: cupti_cb_tap_clock and cupti_cb_tap_gpu_clock. */
void cupti_cb_inj_tlclock_init(struct cupti_cb_inj_tlclock *k, uint64_t (*tick_now)(void),
			       int (*gpu_now)(uint64_t *ns));
/* Reads one anchor now. */
void cupti_cb_inj_tlclock_anchor(struct cupti_cb_inj_tlclock *k);
/* tick on CUPTI's clock, in ns (0 before the first anchor). */
uint64_t cupti_cb_inj_tlclock_gpu(const struct cupti_cb_inj_tlclock *k, uint64_t tick);
/* The length in ns of a span of ticks start..end (at the rate around start: durations do not
 * depend on where the anchors put the start). */
uint64_t cupti_cb_inj_tlclock_span(const struct cupti_cb_inj_tlclock *k, uint64_t start, uint64_t end);
/* Now on CUPTI's clock (or CLOCK_REALTIME when it stands in). */
uint64_t cupti_cb_inj_tlclock_gpu_now(const struct cupti_cb_inj_tlclock *k);

#endif /* CUPTI_CB_INJECT_TLCLOCK_H */
