/* cupti_cb_tap.h: the tap (cupti_cb_tap_set in <cupti_cb.h>), the one place where the callback
 * hot path and the processing of activity records hand what they see to a tool built on
 * cupti_cb: each call that issues GPU work at its ENTER (issue), each CUDA call as it ends
 * (call), each kernel, copy and memset record (work).
 *
 * Unset (the default), each site costs the hot path one atomic load; with a tap, a struct
 * filled on the stack and the tap's own function (which must follow the hot path's rules). */
#ifndef CUPTI_CB_TAP_H
#define CUPTI_CB_TAP_H

#include <stdatomic.h>
#include <stdint.h>
#include <cupti.h>

#include "cupti_cb.h"

struct cupti_cb_services;

extern _Atomic(const struct cupti_cb_tap *) cupti_cb_tap_now;

/* The services whose clock and libcupti the exported functions use (the adapter's, once). */
void cupti_cb_tap_bind(struct cupti_cb_services *e);

/* The tap now, or NULL: the one load of a site. */
static inline const struct cupti_cb_tap *cupti_cb_tap_get(void)
{
	return atomic_load_explicit(&cupti_cb_tap_now, memory_order_acquire);
}

/* Hot path: at the driver ENTER of a call that issues GPU work; call is the name of the CUDA
 * call the program made. */
static inline void cupti_cb_tap_issue(uint32_t corr, const char *call)
{
	const struct cupti_cb_tap *t = cupti_cb_tap_get();
	if (t && t->issue)
		t->issue(t->arg, corr, call);
}

/* Hot path: a call ends (the callback's exit site), start and end in clock ticks; t is the tap
 * the site loaded (cupti_cb_tap_get), not NULL. */
static inline void cupti_cb_tap_exit(const struct cupti_cb_tap *t, int driver, CUpti_CallbackId cbid, uint32_t corr,
				     uint64_t start, uint64_t end, int flags)
{
	if (!t->call)
		return;
	struct cupti_cb_tap_call c = { start, end, corr, (uint16_t)cbid, (uint8_t)driver, (uint8_t)flags };
	t->call(t->arg, &c);
}

/* An activity record is processed: kernels, copies and memsets go to the tap's work. */
void cupti_cb_tap_record(const CUpti_Activity *r);

#endif
