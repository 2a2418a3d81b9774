/* cupti_cb_profiler_totals.c: cumulative totals of one hardware metric
 * (cupti_cb_profiler_totals.h). */
#include "cupti_cb_profiler_totals.h"

#include <math.h>

/* A value that a uint64_t holds exactly: a count. */
static int whole(double v)
{
	return v >= 0 && v < 18446744073709551616.0 && v == (double)(uint64_t)v;
}

void cupti_cb_profiler_total_add(struct cupti_cb_profiler_total *t, int additive, double v, double dur)
{
	if (isnan(v))
		return;
	if (isnan(dur) || dur < 0)
		dur = 0;
	if (additive && whole(v))
		t->count += (uint64_t)v;
	else if (additive)
		t->sum += v;
	else if (dur > 0)
		t->sum += v * dur;
	t->weight += dur;
}

double cupti_cb_profiler_total_value(const struct cupti_cb_profiler_total *from,
				     const struct cupti_cb_profiler_total *to, int additive)
{
	if (additive)
		return (double)(to->count - from->count) + (to->sum - from->sum);
	double w = to->weight - from->weight;
	return w > 0 ? (to->sum - from->sum) / w : 0.0;
}

uint64_t cupti_cb_profiler_total_count(const struct cupti_cb_profiler_total *from,
				       const struct cupti_cb_profiler_total *to)
{
	/* The other values' difference may be negative: a cut by time (the
	 * sampled source's window edges) puts a part of a whole sample in sum. */
	uint64_t whole = to->count - from->count;
	double rest = to->sum - from->sum;
	double up = rest + 0.5;
	long long r = (long long)up;
	if ((double)r > up)
		r--;	/* the nearest whole number, halves up (floor without libm) */
	if (r >= 0)
		return whole + (uint64_t)r;
	return (uint64_t)-r > whole ? 0 : whole - (uint64_t)-r;
}
