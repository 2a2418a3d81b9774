/* cupti_cb_callback.c: the hot path. Runs on the application's thread for
 * every enabled CBID: no locks, no allocation (but a thread's first call),
 * no system call but the clock read, and only when a running event set
 * needs time. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_engine.h"

/* The counter row of the device of ctx; the last row is "device unknown". */
static int device_row(struct cupti_cb_engine *e, struct cupti_cb_block *b, CUcontext ctx)
{
	if (ctx != b->last_ctx || !ctx) {
		b->last_ctx = ctx;
		b->last_dev = e->resolver.context_device(e->resolver.arg, ctx);
	}
	int dev = b->last_dev;
	int unknown = (int)e->reg.lay.n_devrows - 1;
	return (dev >= 0 && dev < unknown) ? dev : unknown;
}

static void at_enter_site(struct cupti_cb_engine *e, struct cupti_cb_block *b, int d,
			  CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	/* The enter time lives in CUPTI's per-call slot; 0 means "not timed". */
	int timed = atomic_load_explicit(&e->timing, memory_order_relaxed);
	*cd->correlationData = timed ? cupti_cb_clock_now(&e->clock) : 0;
	if (d == 0) {
		b->rt_depth++;
		return;
	}
	const struct cupti_cb_op *op = e->op_of[cbid];
	if (op && op->cls == CUPTI_CB_CLS_FREE) {
		/* Look the size up before the driver can reuse the address. */
		struct cupti_cb_effect fx = { 0 };
		op->effect(cd->functionParams, &e->resolver, &fx);
		b->pending_free = cupti_cb_allocs_take(&e->allocs, fx.ptr);
	}
}

static void count_op(struct cupti_cb_engine *e, struct cupti_cb_block *b, const struct cupti_cb_op *op,
		     const CUpti_CallbackData *cd, uint64_t dt)
{
	struct cupti_cb_effect fx = { 0 };
	_Atomic uint64_t *c = b->c + e->reg.lay.dev +
			      (size_t)device_row(e, b, cd->context) * CUPTI_CB_N_DEV_CTRS;
	if (op->effect)
		op->effect(cd->functionParams, &e->resolver, &fx);
	else
		fx.count = 1;

	switch (op->cls) {
	case CUPTI_CB_CLS_LAUNCH:
		cupti_cb_bump(&c[CUPTI_CB_C_LAUNCHES], fx.count);
		break;
	case CUPTI_CB_CLS_GRAPH:
		cupti_cb_bump(&c[CUPTI_CB_C_GRAPH_LAUNCHES], fx.count);
		break;
	case CUPTI_CB_CLS_MEMCPY:
		cupti_cb_bump(&c[CUPTI_CB_C_MEMCPY_CALLS], fx.count);
		for (int k = 0; k < CUPTI_CB_N_DIRS; k++)
			if (fx.dir_bytes[k])
				cupti_cb_bump(&c[CUPTI_CB_C_BYTES_HTOD + k], fx.dir_bytes[k]);
		break;
	case CUPTI_CB_CLS_MEMSET:
		cupti_cb_bump(&c[CUPTI_CB_C_MEMSET_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_MEMSET_BYTES], fx.bytes);
		break;
	case CUPTI_CB_CLS_ALLOC:
		cupti_cb_bump(&c[CUPTI_CB_C_ALLOC_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_ALLOC_BYTES], fx.bytes);
		cupti_cb_allocs_insert(&e->allocs, fx.ptr, fx.bytes);
		break;
	case CUPTI_CB_CLS_FREE:
		cupti_cb_bump(&c[CUPTI_CB_C_FREE_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_FREE_BYTES], b->pending_free);
		break;
	case CUPTI_CB_CLS_SYNC:
		cupti_cb_bump(&c[CUPTI_CB_C_SYNC_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_SYNC_TIME], dt);
		break;
	default:
		break;
	}
}

static void at_exit_site(struct cupti_cb_engine *e, struct cupti_cb_block *b, int d,
			 CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	uint64_t t0 = *cd->correlationData, dt = 0;
	if (t0 && atomic_load_explicit(&e->timing, memory_order_relaxed))
		dt = cupti_cb_clock_now(&e->clock) - t0;

	unsigned slot = e->cat.slot_of[d][cbid];
	if (slot) {
		const struct cupti_cb_layout *lay = &e->reg.lay;
		cupti_cb_bump(&b->c[lay->api_calls + slot - 1], 1);
		if (dt)
			cupti_cb_bump(&b->c[lay->api_time + slot - 1], dt);
	}
	/* A runtime call, or a driver call made outside any runtime call, is
	 * a call of the application. (An exit whose enter came before the
	 * callback was enabled leaves the depth at 0.) */
	if (d == 0 && b->rt_depth > 0)
		b->rt_depth--;
	if (slot && b->rt_depth == 0) {
		cupti_cb_bump(&b->c[e->reg.lay.thr + CUPTI_CB_C_API_CALLS], 1);
		if (dt)
			cupti_cb_bump(&b->c[e->reg.lay.thr + CUPTI_CB_C_API_TIME], dt);
	}
	if (d == 1) {
		const struct cupti_cb_op *op = e->op_of[cbid];
		if (op && cd->functionReturnValue && *(const CUresult *)cd->functionReturnValue == CUDA_SUCCESS)
			count_op(e, b, op, cd, dt);
		b->pending_free = 0;
	}
}

void CUPTIAPI cupti_cb_engine_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				       const void *cbdata)
{
	struct cupti_cb_engine *e = userdata;
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if ((!d && domain != CUPTI_CB_DOMAIN_RUNTIME_API) || cbid >= e->cat.n_cbids[d])
		return;
	struct cupti_cb_block *b = cupti_cb_block_self(&e->reg);
	if (!b || b->in_lookup)
		return;
	const CUpti_CallbackData *cd = cbdata;
	/* CUPTI was seen to deliver one site of one call twice on a thread
	 * while another thread changed the enabled CBIDs. A call's enter and
	 * exit alternate, so the same site of the same call twice in a row is
	 * always such a repeat: drop it. */
	uint64_t key = (uint64_t)cd->correlationId << 32 | (uint64_t)cbid << 2 | (uint64_t)d << 1 |
		       (cd->callbackSite != CUPTI_API_ENTER);
	if (key == b->last_site) {
		atomic_store_explicit(&b->repeats, atomic_load_explicit(&b->repeats, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		return;
	}
	b->last_site = key;
	if (cd->callbackSite == CUPTI_API_ENTER)
		at_enter_site(e, b, d, cbid, cd);
	else
		at_exit_site(e, b, d, cbid, cd);
}
