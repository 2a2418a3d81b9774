/*
 * cupti_cb_inject_clock.h: the library's clock, CLOCK_MONOTONIC in ns: the time since
 * InitializeInjection (struct cupti_cb_inj.t0_ns) in the process file, the trace and the live
 * view, and the waits of the metric part.  Inline, so that the base of the library is a header.
 */
#ifndef CUPTI_CB_INJECT_CLOCK_H
#define CUPTI_CB_INJECT_CLOCK_H

#include <time.h>

static inline long long cupti_cb_inj_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* CUPTI_CB_INJECT_CLOCK_H */
