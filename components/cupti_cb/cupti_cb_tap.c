/* cupti_cb_tap.c: see cupti_cb_tap.h. */
#include "cupti_cb_tap.h"

_Atomic(const struct cupti_cb_tap *) cupti_cb_the_tap;

int cupti_cb_tap_set(const struct cupti_cb_tap *tap)
{
	atomic_store_explicit(&cupti_cb_the_tap, tap, memory_order_release);
	return 0;	/* PAPI_OK, without PAPI's header: the component below the adapter has none */
}

static int decode(const CUpti_Activity *r, struct cupti_cb_tap_work *w)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_KERNEL, 0, k->correlationId, k->deviceId, k->streamId,
						 k->start, k->end, 0, k->name };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMCPY, m->copyKind, m->correlationId, m->deviceId,
						 m->streamId, m->start, m->end, m->bytes, NULL };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMCPY, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
						 m->correlationId, m->deviceId, m->streamId, m->start, m->end,
						 m->bytes, NULL };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMSET, 0, m->correlationId, m->deviceId, m->streamId,
						 m->start, m->end, m->bytes, NULL };
		return 0;
	}
	default:
		return -1;
	}
}

void cupti_cb_tap_record(const CUpti_Activity *r)
{
	const struct cupti_cb_tap *t = atomic_load_explicit(&cupti_cb_the_tap, memory_order_acquire);
	struct cupti_cb_tap_work w;
	if (t && t->work && decode(r, &w) == 0)
		t->work(t->arg, &w);
}
