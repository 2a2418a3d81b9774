/* cupti_cb_sampling_history.h: the samples a PM sampling session added
 * last, kept so that its totals can be cut at a moment by the samples'
 * own timestamps (a window's start and stop), not by when the samples
 * were decoded.
 *
 * A cut takes off the totals now every sample that began after the
 * moment, and of the sample in progress at the moment the part after it.
 * That part comes from the rates beside the sample (cupti_cb_sampling_split):
 * a PAPI_start right before the work, or a PAPI_stop right after a
 * synchronization, falls inside a sample that is idle on one side of it,
 * and a split by time alone would put up to a whole interval of the work
 * on the wrong side of the boundary.
 *
 * Plain data, no lock: the session holds its lock around every call. */
#ifndef CUPTI_CB_SAMPLING_HISTORY_H
#define CUPTI_CB_SAMPLING_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_profiler_totals.h"

struct cupti_cb_sampling_past {
	uint64_t start, end;		/* the sample's GPU timestamps (ns) */
};

struct cupti_cb_sampling_history {
	struct cupti_cb_sampling_past *past;	/* newest at (n - 1) % len */
	double *v;			/* sample slot's values at v[slot * width + column] (NaN: none) */
	size_t len;
	unsigned width;
	uint64_t n;			/* samples pushed since the last clear */
	uint64_t gap_ns;		/* two samples further apart than this do not touch */
};

/* Room for len samples of width values. 0, or -1 (no memory). */
int cupti_cb_sampling_history_init(struct cupti_cb_sampling_history *h, size_t len, unsigned width, uint64_t gap_ns);
void cupti_cb_sampling_history_free(struct cupti_cb_sampling_history *h);
/* Forgets every sample (the columns changed meaning). */
void cupti_cb_sampling_history_clear(struct cupti_cb_sampling_history *h);
/* A sample added to the totals, its values v[0..width). */
void cupti_cb_sampling_history_push(struct cupti_cb_sampling_history *h, uint64_t start, uint64_t end,
				    const double *v);

/* Whether the samples kept cover moment t: the sample in progress at t
 * (or a later one) is in, and with need_next a sample that began at or
 * after t. */
int cupti_cb_sampling_history_covers(const struct cupti_cb_sampling_history *h, uint64_t t, int need_next);

/* *tot (column col's totals after the newest sample) becomes the totals at
 * moment t. Returns 0, or -1 when t lies before the samples kept (nothing
 * changed). */
int cupti_cb_sampling_history_cut(const struct cupti_cb_sampling_history *h, uint64_t t, unsigned col, int additive,
				   struct cupti_cb_profiler_total *tot);

/* Of a sample [start, end) whose value is v (an additive metric), the part
 * before moment t, from the rates of the samples beside it (r_prev and
 * r_next, value per ns; 0 where there is none or it is not known yet).
 * Where the GPU goes idle after the sample (r_next under 1% of the
 * sample's rate) or the sample holds a burst (more than either rate gives:
 * work shorter than an interval), its work lies before the boundary but
 * for what r_next explains after it: a window's edge comes after the work
 * it ends, and a start's sample holds no work issued after the start.
 * Otherwise the rate inside the sample is taken to change once, from
 * r_prev to r_next, at the point that gives v: work that starts in the
 * sample lies after the boundary as far as r_next explains, and steady
 * work splits by time. A dip, or equal rates: by time. */
double cupti_cb_sampling_split(double v, uint64_t start, uint64_t end, uint64_t t, double r_prev, double r_next);

#endif
