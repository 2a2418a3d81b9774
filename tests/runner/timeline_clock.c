/*
 * timeline_clock: the timeline's one clock (src/inject/cupti_cb_inject_tlclock.c) on clocks
 * made here, with exact expectations: host ticks put on CUPTI's clock through anchors.
 *
 *   same rate       ticks are ns, CUPTI's clock is them plus D: every tick, between the anchors,
 *                   before them and after them, lands on tick + D exactly
 *   TSC             2.5 ticks a ns: ticks between anchors land on the ns they were read at,
 *                   spans of ticks are their ns
 *   drift           CUPTI's clock runs 100 ppm fast of the host's (NTP slewing CLOCK_REALTIME):
 *                   with an anchor every 20 ms a tick 10 s into the run still lands within
 *                   1 ns, where one offset read at the start would be 1 ms off
 *   read width      the CUPTI read of an anchor is bracketed by two tick reads, the narrowest
 *                   of three kept: a read delayed by 1 ms once does not move the anchor
 *   clock back      a tick clock that goes back (a test's frozen clock let go) voids the
 *                   anchors before: ticks after it land exactly again
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cupti_cb_inject_tlclock.h"

/* The library's default sources (cupti_cb's), not used here. */
uint64_t cupti_cb_tap_clock(void) { return 0; }
int cupti_cb_tap_gpu_clock(uint64_t *ns) { (void)ns; return -1; }

static int fails;
#define CHECK(what, cond) do { if (!(cond)) { printf("FAIL: %s\n", what); fails++; } } while (0)

/* True time in ns, advanced by every read (a read takes `step` ns); ticks and CUPTI's clock
 * read it at their rates. */
static double T, step, tick_rate, gpu_rate, delay_next_gpu;
static const uint64_t D = 1700000000000000000ull;

static uint64_t tick_now(void)
{
	T += step;
	return (uint64_t)(T * tick_rate);
}

static int gpu_now(uint64_t *ns)
{
	T += step + delay_next_gpu;
	delay_next_gpu = 0;
	*ns = D + (uint64_t)(T * gpu_rate);
	return 0;
}

static void at(double t, double s, double tr, double gr)
{
	T = t, step = s, tick_rate = tr, gpu_rate = gr;
}

static void same_rate(void)
{
	struct cupti_cb_inj_tlclock k;
	at(1e9, 0, 1.0, 1.0);
	cupti_cb_inj_tlclock_init(&k, tick_now, gpu_now);
	CHECK("same rate: no anchor, no time", cupti_cb_inj_tlclock_gpu(&k, 5) == 0);
	for (int i = 0; i < 5; i++) {
		cupti_cb_inj_tlclock_anchor(&k);
		T += 20e6;
	}
	static const uint64_t ticks[] = { 1000000000, 1000000001, 1010000000, 1040000123, 1100000000, 2000000000,
					  900000000 };
	for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
		char what[96];
		snprintf(what, sizeof what, "same rate: tick %llu lands on tick + D", (unsigned long long)ticks[i]);
		CHECK(what, cupti_cb_inj_tlclock_gpu(&k, ticks[i]) == ticks[i] + D);
	}
	CHECK("same rate: a span of 1234 ticks is 1234 ns", cupti_cb_inj_tlclock_span(&k, 1010000000, 1010001234) == 1234);
}

static void tsc(void)
{
	struct cupti_cb_inj_tlclock k;
	at(1e9, 0, 2.5, 1.0);
	cupti_cb_inj_tlclock_init(&k, tick_now, gpu_now);
	for (int i = 0; i < 3; i++) {
		cupti_cb_inj_tlclock_anchor(&k);
		T += 20e6;
	}
	/* 1.01 s of true time is 2,525,000,000 ticks */
	CHECK("TSC: a tick between anchors lands on its ns", cupti_cb_inj_tlclock_gpu(&k, 2525000000ull) == D + 1010000000ull);
	CHECK("TSC: 2500 ticks are 1000 ns", cupti_cb_inj_tlclock_span(&k, 2525000000ull, 2525002500ull) == 1000);
}

static void drift(void)
{
	struct cupti_cb_inj_tlclock k, once;
	at(1e9, 0, 1.0, 1.0001);
	cupti_cb_inj_tlclock_init(&k, tick_now, gpu_now);
	cupti_cb_inj_tlclock_init(&once, tick_now, gpu_now);
	cupti_cb_inj_tlclock_anchor(&once);
	for (int i = 0; i <= 500; i++) {	/* 10 s, an anchor every 20 ms */
		cupti_cb_inj_tlclock_anchor(&k);
		T += 20e6;
	}
	uint64_t tick = 11000000000ull - 7000000;	/* 10 s in, between two anchors */
	uint64_t want = D + (uint64_t)((double)tick * 1.0001);
	uint64_t got = cupti_cb_inj_tlclock_gpu(&k, tick), got1 = cupti_cb_inj_tlclock_gpu(&once, tick);
	int64_t off = (int64_t)(got - want), off1 = (int64_t)(got1 - want);
	printf("# drift of 100 ppm, 10 s in: %lld ns off with anchors every 20 ms, %lld ns with one\n",
	       (long long)off, (long long)off1);
	CHECK("drift: anchors follow it to within 1 ns", off >= -1 && off <= 1);
	CHECK("drift: one offset does not (the check can fail)", off1 < -500000 || off1 > 500000);
	CHECK("drift: a span of 1,000,000 ticks is 1,000,100 ns", cupti_cb_inj_tlclock_span(&k, tick, tick + 1000000) == 1000100);
}

static void read_width(void)
{
	struct cupti_cb_inj_tlclock k;
	at(1e9, 10, 1.0, 1.0);	/* each read takes 10 ns */
	cupti_cb_inj_tlclock_init(&k, tick_now, gpu_now);
	delay_next_gpu = 1e6;	/* the first try's CUPTI read is delayed by 1 ms */
	cupti_cb_inj_tlclock_anchor(&k);
	/* The kept try: tick read at t0, CUPTI's at t0 + 10, tick at t0 + 20; midpoint t0 + 10. */
	uint64_t t = (uint64_t)T;
	T += 20e6;
	cupti_cb_inj_tlclock_anchor(&k);
	int64_t off = (int64_t)(cupti_cb_inj_tlclock_gpu(&k, t) - (D + t));
	printf("# an anchor with one read delayed by 1 ms: %lld ns off\n", (long long)off);
	CHECK("read width: the delayed try is not kept (within 20 ns)", off >= -20 && off <= 20);
}

static void clock_back(void)
{
	struct cupti_cb_inj_tlclock k;
	at(5e9, 0, 1.0, 1.0);
	cupti_cb_inj_tlclock_init(&k, tick_now, gpu_now);
	cupti_cb_inj_tlclock_anchor(&k);
	T = 1e9;	/* the ticks go back; CUPTI's clock with them, here */
	cupti_cb_inj_tlclock_anchor(&k);
	T += 20e6;
	cupti_cb_inj_tlclock_anchor(&k);
	CHECK("clock back: ticks after it land exactly", cupti_cb_inj_tlclock_gpu(&k, 1010000000ull) == D + 1010000000ull);
}

int main(void)
{
	same_rate();
	tsc();
	drift();
	read_width();
	clock_back();
	if (fails) {
		printf("%d check(s) failed\n", fails);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
