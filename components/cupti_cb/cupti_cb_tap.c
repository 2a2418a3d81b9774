/* cupti_cb_tap.c: see cupti_cb_tap.h. */
#include <dlfcn.h>
#include <stddef.h>
#include <cupti_activity.h>

#include "cupti_cb_services.h"
#include "cupti_cb_tap.h"

_Atomic(const struct cupti_cb_tap *) cupti_cb_tap_now;
static _Atomic(struct cupti_cb_services *) bound;

void cupti_cb_tap_bind(struct cupti_cb_services *e)
{
	atomic_store(&bound, e);
}

int cupti_cb_tap_set(const struct cupti_cb_tap *t)
{
	atomic_store_explicit(&cupti_cb_tap_now, t, memory_order_release);
	return 0;	/* PAPI_OK, without PAPI's header: the component below the adapter has none */
}

uint64_t cupti_cb_tap_clock(void)
{
	struct cupti_cb_services *e = atomic_load(&bound);
	return e ? cupti_cb_clock_now(&e->clock) : cupti_cb_mono_ns();
}

int cupti_cb_tap_gpu_clock(uint64_t *ns)
{
	typedef CUptiResult (*timestamp_fn)(uint64_t *);
	static _Atomic(timestamp_fn) fn;
	struct cupti_cb_services *e = atomic_load(&bound);
	timestamp_fn f = atomic_load(&fn);
	if (!f && e && e->api.cupti_lib) {
		*(void **)&f = dlsym(e->api.cupti_lib, "cuptiGetTimestamp");
		atomic_store(&fn, f);
	}
	return f && f(ns) == CUPTI_SUCCESS ? 0 : -1;
}

const char *cupti_cb_tap_call_name(int driver, unsigned cbid)
{
	struct cupti_cb_services *e = atomic_load(&bound);
	const char *name = NULL;
	if (!e || !e->api.cuptiGetCallbackName)
		return NULL;
	CUpti_CallbackDomain d = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	return e->api.cuptiGetCallbackName(d, cbid, &name) == CUPTI_SUCCESS ? name : NULL;
}

static int decode(const CUpti_Activity *r, struct cupti_cb_tap_work *w)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_KERNEL, k->correlationId, k->deviceId, k->contextId,
						 k->streamId, k->start, k->end, 0, 0, k->name,
						 { k->gridX, k->gridY, k->gridZ }, { k->blockX, k->blockY, k->blockZ } };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMCPY, m->correlationId, m->deviceId, m->contextId,
						 m->streamId, m->start, m->end, m->bytes, m->copyKind, NULL, { 0 }, { 0 } };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMCPY, m->correlationId, m->deviceId, m->contextId,
						 m->streamId, m->start, m->end, m->bytes, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
						 NULL, { 0 }, { 0 } };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)r;
		*w = (struct cupti_cb_tap_work){ CUPTI_CB_TAP_MEMSET, m->correlationId, m->deviceId, m->contextId,
						 m->streamId, m->start, m->end, m->bytes, 0, NULL, { 0 }, { 0 } };
		return 0;
	}
	default:
		return -1;
	}
}

void cupti_cb_tap_record(const CUpti_Activity *r)
{
	const struct cupti_cb_tap *t = cupti_cb_tap_get();
	struct cupti_cb_tap_work w;
	if (t && t->work && decode(r, &w) == 0)
		t->work(t->arg, &w);
}
