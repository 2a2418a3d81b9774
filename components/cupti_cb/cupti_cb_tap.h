/* cupti_cb_tap.h: the tap (cupti_cb.h): every CUDA call and every piece of GPU work,
 * one by one, to a tool that draws a timeline. Where the counters add up, the tap
 * passes each call on as it ends and each activity record as it is processed.
 *
 * The hot path pays one atomic load when no tap is set; with one, a struct filled on the
 * stack and the tap's own function (which must follow the hot path's rules). */
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

/* A call ends (the callback's exit site): start and end in clock ticks. */
static inline void cupti_cb_tap_exit(int driver, CUpti_CallbackId cbid, uint32_t corr, uint64_t start, uint64_t end,
				     int flags)
{
	const struct cupti_cb_tap *t = atomic_load_explicit(&cupti_cb_tap_now, memory_order_acquire);
	if (!t || !t->call)
		return;
	struct cupti_cb_tap_call c = { start, end, corr, (uint16_t)cbid, (uint8_t)driver, (uint8_t)flags };
	t->call(t->arg, &c);
}

/* An activity record is processed: kernels, copies and memsets go to the tap. */
void cupti_cb_tap_record(const CUpti_Activity *r);

#endif
