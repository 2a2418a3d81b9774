/* cupti_cb_tap.h: the tap (cupti_cb_tap_set in <cupti_cb.h>), the one
 * place where the callback hot path and the processing of activity records
 * hand what they see to a profiler built on cupti_cb. Unset (the default),
 * it costs the hot path one relaxed load per call that issues GPU work. */
#ifndef CUPTI_CB_TAP_H
#define CUPTI_CB_TAP_H

#include <stdatomic.h>
#include <stdint.h>

#include <cupti_activity.h>

#include "cupti_cb.h"

extern _Atomic(const struct cupti_cb_tap *) cupti_cb_the_tap;

/* Hot path: at the driver ENTER of a call that issues GPU work. */
static inline void cupti_cb_tap_issue(uint32_t corr, const char *call)
{
	const struct cupti_cb_tap *t = atomic_load_explicit(&cupti_cb_the_tap, memory_order_acquire);
	if (t && t->issue)
		t->issue(t->arg, corr, call);
}

/* One activity record of any kind: kernels, copies and memsets reach the
 * tap, the others do not. */
void cupti_cb_tap_record(const CUpti_Activity *r);

#endif
