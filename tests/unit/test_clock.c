/* test_clock.c: clock ticks turn into the ns CLOCK_MONOTONIC measures,
 * with the TSC and without it. */
#include "check.h"
#include "cupti_cb_clock.h"

static void measure(int use_tsc, const char *what)
{
	struct cupti_cb_clock k;
	cupti_cb_clock_init(&k, use_tsc);
	uint64_t ns0 = cupti_cb_mono_ns(), t0 = cupti_cb_clock_now(&k);
	struct timespec d = { 0, 30000000 };
	nanosleep(&d, NULL);
	uint64_t t1 = cupti_cb_clock_now(&k), ns1 = cupti_cb_mono_ns();
	cupti_cb_clock_calibrate(&k);
	double got = (double)cupti_cb_clock_to_ns(&k, t1 - t0), want = (double)(ns1 - ns0);
	CHECK(got > want * 0.99 && got < want * 1.01, "%s: %.0f ns of ticks for %.0f ns measured", what, got,
	      want);
}

int main(void)
{
	measure(0, "CLOCK_MONOTONIC");
#if defined(__x86_64__)
	measure(1, "TSC");
#endif
	struct cupti_cb_clock k;
	cupti_cb_clock_init(&k, -1);
	printf("# this machine uses the %s\n", k.tsc ? "TSC" : "monotonic clock");
	CHECK_EQ(cupti_cb_clock_to_ns(&k, 0), 0, "zero ticks are zero ns");
	return checks_done();
}
