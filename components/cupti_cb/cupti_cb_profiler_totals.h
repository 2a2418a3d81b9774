/* cupti_cb_profiler_totals.h: cumulative totals of one hardware metric, as
 * the two sources of hardware metrics gather them: from the segments of a
 * Range Profiler range (cupti_cb_metric_session.h) or from PM samples
 * (cupti_cb_sampling_session.h). A reader keeps two snapshots of a total
 * and takes the difference: additive metrics (a counter's .sum, ...) add
 * up; the others are averaged, weighted by the GPU time of each piece. */
#ifndef CUPTI_CB_PROFILER_TOTALS_H
#define CUPTI_CB_PROFILER_TOTALS_H

#include <stdint.h>

/* Cumulative totals of one metric (cupti_cb_metric_session.h, where they are explained). An additive
 * metric's values that are whole numbers (a counter's .sum, every piece of
 * it) add up in count, exactly, for the session's life; a double would
 * lose the units of a window once the total passes 2^53 (a window of 3
 * bytes read 4). The other values add up in sum. */
struct cupti_cb_profiler_total {
	uint64_t count;	/* additive: the sum of the whole values */
	double sum;	/* additive: the sum of the other values; else: sum of value * duration */
	double weight;	/* GPU time in ns over which sum was gathered */
};

/* Adds one piece's value v of a metric (additive or not) that lasted
 * dur ns of GPU time. A NaN adds nothing. */
void cupti_cb_profiler_total_add(struct cupti_cb_profiler_total *t, int additive, double v, double dur);

/* The value between two snapshots of one metric: the difference for an
 * additive metric, the duration-weighted mean otherwise (0 when no GPU time
 * passed). */
double cupti_cb_profiler_total_value(const struct cupti_cb_profiler_total *from,
				     const struct cupti_cb_profiler_total *to, int additive);
/* The same for an additive metric of whole values, exact: the difference
 * of the counts (plus that of the other values, rounded; 0 for a counter's
 * .sum). */
uint64_t cupti_cb_profiler_total_count(const struct cupti_cb_profiler_total *from,
				       const struct cupti_cb_profiler_total *to);

#endif
