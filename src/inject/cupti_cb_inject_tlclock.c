/*
 * cupti_cb_inject_tlclock.c: see cupti_cb_inject_tlclock.h.
 */
#include <time.h>

#include "cupti_cb.h"
#include "cupti_cb_inject_tlclock.h"

static int realtime_ns(uint64_t *ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

void cupti_cb_inj_tlclock_init(struct cupti_cb_inj_tlclock *k, uint64_t (*tick_now)(void),
			       int (*gpu_now)(uint64_t *ns))
{
	uint64_t probe;
	k->n = k->first = 0;
	k->tick_now = tick_now ? tick_now : cupti_cb_tap_clock;
	k->gpu_now = gpu_now ? gpu_now : cupti_cb_tap_gpu_clock;
	k->gpu_clock = k->gpu_now(&probe) == 0;
	if (!k->gpu_clock)
		k->gpu_now = realtime_ns;
}

uint64_t cupti_cb_inj_tlclock_gpu_now(const struct cupti_cb_inj_tlclock *k)
{
	uint64_t ns = 0;
	k->gpu_now(&ns);
	return ns;
}

#define A(i) (k->a[(k->first + (i)) % CUPTI_CB_INJ_TL_ANCHORS])

void cupti_cb_inj_tlclock_anchor(struct cupti_cb_inj_tlclock *k)
{
	uint64_t best_width = UINT64_MAX, tick = 0, gpu = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = k->tick_now(), g = 0;
		k->gpu_now(&g);
		uint64_t t1 = k->tick_now();
		uint64_t w = t1 - t0;
		if (w < best_width) {
			best_width = w;
			tick = t0 + w / 2;
			gpu = g;
		}
	}
	/* A tick clock that went back (the tests' frozen clock let go) voids the anchors. */
	if (k->n && tick < A(k->n - 1).tick)
		k->n = k->first = 0;
	unsigned at = (k->first + k->n) % CUPTI_CB_INJ_TL_ANCHORS;
	if (k->n == CUPTI_CB_INJ_TL_ANCHORS)
		k->first = (k->first + 1) % CUPTI_CB_INJ_TL_ANCHORS;
	else
		k->n++;
	k->a[at].tick = tick;
	k->a[at].gpu = gpu;
}

/* gpu ns per tick between anchors i < j; 1 when their ticks do not differ (ticks are ns
 * where they can stand still: CLOCK_MONOTONIC frozen by the tests). */
/* gpu ns per tick between anchors i < j; 1 when their ticks do not differ (ticks are ns
 * where they can stand still: CLOCK_MONOTONIC frozen by the tests). Differences only: an
 * absolute time in ns needs more bits than a double's 53. */
static double rate(const struct cupti_cb_inj_tlclock *k, unsigned i, unsigned j)
{
	if (A(j).tick <= A(i).tick)
		return 1.0;
	return (double)(int64_t)(A(j).gpu - A(i).gpu) / (double)(A(j).tick - A(i).tick);
}

static uint64_t along(uint64_t gpu, uint64_t from, uint64_t tick, double r)
{
	double d = tick >= from ? (double)(tick - from) * r : -(double)(from - tick) * r;
	return gpu + (uint64_t)(int64_t)(d + (d >= 0 ? 0.5 : -0.5));
}

/* The anchor before tick (or the first), and the rate to use from it. */
static unsigned segment(const struct cupti_cb_inj_tlclock *k, uint64_t tick, double *r)
{
	unsigned last = k->n - 1;
	for (unsigned i = last; i > 0; i--)
		if (A(i - 1).tick <= tick && tick <= A(i).tick) {
			*r = rate(k, i - 1, i);
			return i - 1;
		}
	*r = rate(k, 0, last);	/* outside the anchors: the widest span */
	return tick > A(last).tick ? last : 0;
}

uint64_t cupti_cb_inj_tlclock_gpu(const struct cupti_cb_inj_tlclock *k, uint64_t tick)
{
	if (!k->n)
		return 0;
	double r;
	unsigned i = segment(k, tick, &r);
	return along(A(i).gpu, A(i).tick, tick, r);
}

uint64_t cupti_cb_inj_tlclock_span(const struct cupti_cb_inj_tlclock *k, uint64_t start, uint64_t end)
{
	if (!k->n || end <= start)
		return 0;
	double r;
	segment(k, start, &r);
	return (uint64_t)((double)(end - start) * r + 0.5);
}
