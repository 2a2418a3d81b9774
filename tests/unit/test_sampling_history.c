/* test_sampling_history: cuts of a PM sampling session's totals at a
 * moment, by the samples' timestamps (cupti_cb_sampling_history.h), and
 * the split of the sample in progress at the moment. */
#include <math.h>

#include "check.h"
#include "cupti_cb_profiler_totals.h"
#include "cupti_cb_sampling_history.h"

#define MS 1000000ull

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-6 * (fabs(want) + 1);
}

static void split_cases(void)
{
	/* 1000 in [0, 1 ms): steady work on both sides splits by time. */
	CHECK(near(cupti_cb_sampling_split(1000, 0, MS, MS / 4, 1e-3, 1e-3), 250), "steady: by time");
	/* Idle before, busy after (1 per ns from x on): the start of a window
	 * at 0.3 ms, before the work began at 0.5 ms, takes none of it. */
	CHECK(near(cupti_cb_sampling_split(500000, 0, MS, 300000, 0, 1.0), 0), "idle before: nothing before t");
	CHECK(near(cupti_cb_sampling_split(500000, 0, MS, 700000, 0, 1.0), 200000), "idle before: the busy part before t");
	/* Busy before (until 0.4 ms), idle after: a stop at 0.6 ms takes all;
	 * so does one at 0.1 ms (the rule: an edge comes after its work). */
	CHECK(near(cupti_cb_sampling_split(400000, 0, MS, 600000, 1.0, 0), 400000), "idle after: all before t");
	CHECK(near(cupti_cb_sampling_split(400000, 0, MS, 100000, 1.0, 0), 400000), "idle after: all before t, early too");
	/* The tail of work whose head half-filled the sample before (its rate
	 * 0.6 of the work's): a stop right after it takes the whole tail, not
	 * the part the lower rate before would give (0.12 of 0.4). */
	CHECK(near(cupti_cb_sampling_split(400000, 0, MS, 150000, 0.6, 0), 400000), "a tail after a partial sample");
	/* A burst (more than either side's rate gives): before the boundary,
	 * but for what the rate after explains. 1 GiB read in 0.27 ms of a
	 * 0.5 ms sample with idle samples around it, a stop at 0.46 ms (an
	 * H200): all of it; by time it would be 0.92 of it. */
	CHECK(near(cupti_cb_sampling_split(1073741824.0, 0, 500000, 458000, 4e-3, 0), 1073741824.0),
	      "an isolated burst: before a stop");
	CHECK(near(cupti_cb_sampling_split(3e6, 0, MS, MS / 2, 1.0, 1.0), 2.5e6), "a burst in steady work: after t only r_next's part");
	/* A dip (less than both rates): by time. */
	CHECK(near(cupti_cb_sampling_split(1e5, 0, MS, MS / 2, 1.0, 1.0), 5e4), "a dip: by time");
	/* The edges of the sample. */
	CHECK(near(cupti_cb_sampling_split(10, MS, 2 * MS, MS, 1, 1), 0), "t at the start: 0");
	CHECK(near(cupti_cb_sampling_split(10, MS, 2 * MS, 3 * MS, 1, 1), 10), "t after the end: all");
}

/* A history of samples of 1 ms from 0, values v[i] in column 0. */
static void fill(struct cupti_cb_sampling_history *h, const double *v, int n, struct cupti_cb_profiler_total *tot)
{
	memset(tot, 0, sizeof *tot);
	for (int i = 0; i < n; i++) {
		double col[1] = { v[i] };
		cupti_cb_sampling_history_push(h, (uint64_t)i * MS, (uint64_t)(i + 1) * MS, col);
		cupti_cb_profiler_total_add(tot, 1, v[i], MS);
	}
}

static void cut_cases(void)
{
	struct cupti_cb_sampling_history h;
	struct cupti_cb_profiler_total now, at, zero = { 0, 0, 0 };
	CHECK_EQ(cupti_cb_sampling_history_init(&h, 8, 1, MS / 2), 0, "init");
	/* Idle, then 1 per ns from 2.5 ms on. */
	const double v[] = { 0, 0, 500000, 1000000, 1000000 };
	fill(&h, v, 5, &now);
	CHECK(cupti_cb_sampling_history_covers(&h, 2500000, 0) && cupti_cb_sampling_history_covers(&h, 2500000, 1),
	      "covered, with the next sample");
	CHECK(!cupti_cb_sampling_history_covers(&h, 4500000, 1) && cupti_cb_sampling_history_covers(&h, 4500000, 0),
	      "the newest sample's moment: covered, not with a next");
	at = now;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 2200000, 0, 1, &at), 0, "cut at 2.2 ms");
	CHECK_EQ(cupti_cb_profiler_total_count(&zero, &at), 0, "a start before the work: none of it before");
	CHECK_EQ(cupti_cb_profiler_total_count(&at, &now), 2500000, "the window from 2.2 ms: all the work");
	struct cupti_cb_profiler_total mid = now;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 3250000, 0, 1, &mid), 0, "cut at 3.25 ms, inside steady work");
	CHECK_EQ(cupti_cb_profiler_total_count(&at, &mid), 750000, "2.2 to 3.25 ms: the work of 0.75 ms");
	CHECK_EQ(cupti_cb_profiler_total_count(&mid, &now), 1750000, "and the rest");
	/* A stop right after an isolated burst (0.27 ms of work in a 1 ms
	 * sample, idle samples around it, the one after not decoded yet):
	 * the whole burst is before it, not the share of its time. */
	const double burst[] = { 2000, 1e6, 2000 };
	cupti_cb_sampling_history_clear(&h);
	fill(&h, burst, 2, &now);
	at = now;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 1600000, 0, 1, &at), 0, "cut at 1.6 ms");
	CHECK_EQ(cupti_cb_profiler_total_count(&zero, &at), 1002000, "the burst is before the stop");
	/* A cut whose part of a sample is smaller than the one before it: the
	 * difference of the parts is negative, and the count stays exact. */
	struct cupti_cb_profiler_total a = { 10, 0.7, 0 }, b = { 12, 0.2, 0 };
	CHECK_EQ(cupti_cb_profiler_total_count(&a, &b), 2, "whole 2, parts -0.5: rounds to 2");
	struct cupti_cb_profiler_total c = { 10, 900.0, 0 }, d = { 1010, 300.0, 0 };
	CHECK_EQ(cupti_cb_profiler_total_count(&c, &d), 400, "whole 1000, parts -600: 400");
	/* More samples than kept: a moment before them cannot be cut. */
	const double w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	cupti_cb_sampling_history_clear(&h);
	fill(&h, w, 10, &now);
	at = now;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 1000000, 0, 1, &at), -1, "before the samples kept: refused");
	CHECK(at.count == now.count, "and nothing changed");
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 2000000, 0, 1, &at), 0, "at the oldest kept sample's start");
	CHECK_EQ(cupti_cb_profiler_total_count(&at, &now), 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10, "the eight kept samples");
	/* A gap (a sample the GPU left out): a moment in it cuts between the two. */
	cupti_cb_sampling_history_clear(&h);
	double one[1] = { 7 };
	cupti_cb_sampling_history_push(&h, 0, MS, one);
	cupti_cb_sampling_history_push(&h, 5 * MS, 6 * MS, one);
	now = (struct cupti_cb_profiler_total){ 14, 0, 2 * MS };
	at = now;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 3 * MS, 0, 1, &at), 0, "a moment in a gap");
	CHECK_EQ(cupti_cb_profiler_total_count(&at, &now), 7, "only the sample after the gap");
	/* A metric that is not additive (a rate): its weight splits by time. */
	cupti_cb_sampling_history_clear(&h);
	double r1[1] = { 10 }, r2[1] = { 30 };
	cupti_cb_sampling_history_push(&h, 0, MS, r1);
	cupti_cb_sampling_history_push(&h, MS, 2 * MS, r2);
	struct cupti_cb_profiler_total rt = { 0, 0, 0 };
	cupti_cb_profiler_total_add(&rt, 0, 10, MS);
	cupti_cb_profiler_total_add(&rt, 0, 30, MS);
	at = rt;
	CHECK_EQ(cupti_cb_sampling_history_cut(&h, 1500000, 0, 0, &at), 0, "a rate, cut at 1.5 ms");
	CHECK(near(cupti_cb_profiler_total_value(&at, &rt, 0), 30), "the window after 1.5 ms: 30");
	CHECK(near(cupti_cb_profiler_total_value(&zero, &at, 0), 40.0 * 0 + (10.0 + 15.0) / 1.5),
	      "before it: the mean of 1 ms at 10 and 0.5 ms at 30");
	cupti_cb_sampling_history_free(&h);
}

int main(void)
{
	split_cases();
	cut_cases();
	return checks_done();
}
