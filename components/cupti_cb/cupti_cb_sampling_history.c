/* cupti_cb_sampling_history.c: the last samples of a PM sampling session,
 * and cuts of its totals by time (cupti_cb_sampling_history.h). */
#include "cupti_cb_sampling_history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cupti_cb_sampling_history_init(struct cupti_cb_sampling_history *h, size_t len, unsigned width, uint64_t gap_ns)
{
	memset(h, 0, sizeof *h);
	h->past = calloc(len, sizeof *h->past);
	h->v = calloc(len * width, sizeof *h->v);
	if (!h->past || !h->v) {
		cupti_cb_sampling_history_free(h);
		return -1;
	}
	h->len = len, h->width = width, h->gap_ns = gap_ns;
	return 0;
}

void cupti_cb_sampling_history_free(struct cupti_cb_sampling_history *h)
{
	free(h->past), free(h->v);
	memset(h, 0, sizeof *h);
}

void cupti_cb_sampling_history_clear(struct cupti_cb_sampling_history *h)
{
	h->n = 0;
}

void cupti_cb_sampling_history_push(struct cupti_cb_sampling_history *h, uint64_t start, uint64_t end,
				    const double *v)
{
	if (!h->len)
		return;
	size_t slot = h->n % h->len;
	h->past[slot] = (struct cupti_cb_sampling_past){ start, end };
	memcpy(&h->v[slot * h->width], v, h->width * sizeof *v);
	h->n++;
}

static size_t kept(const struct cupti_cb_sampling_history *h)
{
	return h->n < h->len ? (size_t)h->n : h->len;
}

/* The k-th newest sample's slot (k = 0: the newest). */
static size_t slot_back(const struct cupti_cb_sampling_history *h, size_t k)
{
	return (size_t)((h->n - 1 - k) % h->len);
}

int cupti_cb_sampling_history_covers(const struct cupti_cb_sampling_history *h, uint64_t t, int need_next)
{
	if (!h->n || !h->len)
		return 0;
	const struct cupti_cb_sampling_past *p = &h->past[slot_back(h, 0)];
	return need_next ? p->start >= t : p->end >= t;
}

/* The rate (value per ns) of the k-th newest sample, if it touches the
 * sample at slot `of` (on the side `after` says), else 0. */
static double rate_beside(const struct cupti_cb_sampling_history *h, size_t k, size_t of, unsigned col, int after)
{
	if (k >= kept(h))
		return 0;
	const struct cupti_cb_sampling_past *p = &h->past[slot_back(h, k)], *q = &h->past[of];
	int touch = after ? p->start <= q->end + h->gap_ns : q->start <= p->end + h->gap_ns;
	double v = h->v[slot_back(h, k) * h->width + col];
	if (!touch || p->end <= p->start || isnan(v))
		return 0;
	return v / (double)(p->end - p->start);
}

/* Takes a whole piece (v over dur ns) off a total: the inverse of
 * cupti_cb_profiler_total_add. */
static void take_off(struct cupti_cb_profiler_total *t, int additive, double v, double dur)
{
	struct cupti_cb_profiler_total piece = { 0, 0, 0 };
	cupti_cb_profiler_total_add(&piece, additive, v, dur);
	t->count -= piece.count;
	t->sum -= piece.sum;
	t->weight -= piece.weight;
}

int cupti_cb_sampling_history_cut(const struct cupti_cb_sampling_history *h, uint64_t t, unsigned col, int additive,
				  struct cupti_cb_profiler_total *tot)
{
	struct cupti_cb_profiler_total out = *tot;
	size_t have = kept(h);
	for (size_t k = 0; k < have; k++) {
		size_t slot = slot_back(h, k);
		const struct cupti_cb_sampling_past *p = &h->past[slot];
		if (p->end <= t) {
			*tot = out;	/* every later sample is taken off */
			return 0;
		}
		double v = h->v[slot * h->width + col];
		double dur = p->end > p->start ? (double)(p->end - p->start) : 0;
		if (isnan(v))
			continue;
		take_off(&out, additive, v, dur);
		if (p->start >= t)
			continue;
		/* In progress at t: its part before t goes back. */
		double before_ns = (double)(t - p->start);
		if (additive) {
			double r_prev = rate_beside(h, k + 1, slot, col, 0);
			double r_next = k ? rate_beside(h, k - 1, slot, col, 1) : 0;
			out.sum += cupti_cb_sampling_split(v, p->start, p->end, t, r_prev, r_next);
		} else {
			out.sum += v * before_ns;
		}
		out.weight += before_ns;
		*tot = out;
		return 0;
	}
	/* Every sample kept began after t: fine only if none came before them
	 * since the history began. */
	if (h->n > h->len && have && h->past[slot_back(h, have - 1)].start > t)
		return -1;
	*tot = out;
	return 0;
}

double cupti_cb_sampling_split(double v, uint64_t start, uint64_t end, uint64_t t, double r_prev, double r_next)
{
	if (t <= start)
		return 0;
	if (t >= end || end <= start)
		return v;
	double d = (double)(end - start), tau = (double)(t - start);
	double linear = v * tau / d;
	if (!(r_prev >= 0) || !(r_next >= 0))
		return linear;
	double before;
	if (r_next * d <= 0.01 * v || v > (r_prev > r_next ? r_prev : r_next) * d * (1 + 1e-3)) {
		/* The GPU went idle in the sample, or a burst lies inside it
		 * (more than either side's rate gives: work shorter than an
		 * interval). Its work is the work before the boundary: a start
		 * returns only once the sample after its own is in, so no work
		 * issued after the start lies in the start's sample, and a stop
		 * or an exact read comes after the work it ends. After t lies
		 * only what the rate after the sample explains. (The rate before
		 * tells nothing here: a sample that was busy for part of its time
		 * has a lower rate than its work had.) */
		before = v - r_next * (d - tau);
	} else if (r_prev == r_next) {
		return linear;
	} else {
		/* r_prev * x + r_next * (d - x) = v */
		double x = (v - r_next * d) / (r_prev - r_next);
		if (!(x >= 0 && x <= d))
			return linear;
		before = tau <= x ? r_prev * tau : r_prev * x + r_next * (tau - x);
	}
	return before < 0 ? 0 : before > v ? v : before;
}
