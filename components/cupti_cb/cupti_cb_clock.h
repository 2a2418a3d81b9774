/* cupti_cb_clock.h: the clock of the hot path. On x86-64 with an invariant
 * TSC it is the time-stamp counter (4 ns to read on a bare AMD EPYC, about
 * 15 in the KVM guest of an H200 machine: bench_hotpath; clock_gettime, which
 * reads it too, costs 20-25 there); counters keep ticks, and reads turn
 * them into ns with a ratio calibrated against CLOCK_MONOTONIC. Elsewhere
 * it is CLOCK_MONOTONIC and a tick is a ns. */
#ifndef CUPTI_CB_CLOCK_H
#define CUPTI_CB_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct cupti_cb_clock {
	int tsc;			/* ticks are TSC cycles */
	uint64_t tsc0, ns0;		/* calibration origin */
	_Atomic uint64_t fs_per_tick;	/* femtoseconds per tick */
	atomic_int frozen;		/* calibrated over a second or more */
};

static inline uint64_t cupti_cb_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cupti_cb_clock_now(const struct cupti_cb_clock *k)
{
#if defined(__x86_64__)
	if (k->tsc)
		return __rdtsc();
#endif
	return cupti_cb_mono_ns();
}

/* use_tsc < 0: decide from /proc/cpuinfo; 0 or 1: force (tests). */
void cupti_cb_clock_init(struct cupti_cb_clock *k, int use_tsc);
/* Refines the tick ratio (cold path: two clock reads); to_ns uses the
 * ratio as it stands, so values converted together agree exactly. */
void cupti_cb_clock_calibrate(struct cupti_cb_clock *k);
uint64_t cupti_cb_clock_to_ns(struct cupti_cb_clock *k, uint64_t ticks);
/* The ratio as it stands (femtoseconds per tick), to convert several
 * values with one ratio. */
static inline uint64_t cupti_cb_clock_ratio(struct cupti_cb_clock *k)
{
	return atomic_load(&k->fs_per_tick);
}
static inline uint64_t cupti_cb_clock_ticks_to_ns(uint64_t fs_per_tick, uint64_t ticks)
{
	return (uint64_t)((double)ticks * (double)fs_per_tick / 1e6 + 0.5);
}

#endif
