/* cupti_cb_engine.c: set-up, the CUPTI subscription and which CBIDs are
 * enabled. Everything here is the cold path and runs under e->lock. */
#include "cupti_cb_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBSCRIBER_NAME "cupti_cb (PAPI component)"

/* The cold path's decisions, for CUPTI_CB_TRACE=1. Never in callbacks. */
#define TRACE(e, ...)                                                   \
	do {                                                            \
		if ((e)->trace) {                                       \
			fprintf(stderr, "cupti_cb: " __VA_ARGS__);      \
			fputc('\n', stderr);                            \
		}                                                       \
	} while (0)

/* ---- the real resolver: pointer and context lookups through the driver -- */

static void real_locate(void *arg, CUdeviceptr ptr, struct cupti_cb_where *w)
{
	struct cupti_cb_engine *e = arg;
	CUpointer_attribute attrs[2] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
	unsigned int type = 0;
	int ordinal = -1;
	void *out[2] = { &type, &ordinal };
	struct cupti_cb_block *b = cupti_cb_tls_block;

	/* Our own driver call must not be counted as the application's. */
	if (b)
		b->in_lookup = 1;
	CUresult r = e->api.cuPointerGetAttributes(2, attrs, out, ptr);
	if (b)
		b->in_lookup = 0;
	/* Memory CUDA does not know (pageable host memory) is host memory. */
	if (r != CUDA_SUCCESS || type == 0 || type == CU_MEMORYTYPE_HOST)
		return;
	w->is_device = 1;
	w->device = ordinal;
}

static int real_context_device(void *arg, CUcontext ctx)
{
	struct cupti_cb_engine *e = arg;
	uint32_t id;
	if (!ctx || e->api.cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS)
		return -1;
	return (int)id;
}

/* ---- opening ------------------------------------------------------------ */

static int count_devices(struct cupti_cb_engine *e, int *n)
{
	CUresult r = e->api.cuInit(0);
	if (r == CUDA_SUCCESS)
		r = e->api.cuDeviceGetCount(n);
	if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && *n == 0)) {
		snprintf(e->why, sizeof e->why, "No CUDA device: the driver found none (%s)",
			 r == CUDA_SUCCESS ? "device count 0" : cupti_cb_cuda_error(&e->api, r));
		return -1;
	}
	if (r != CUDA_SUCCESS) {
		snprintf(e->why, sizeof e->why, "No CUDA device: cuInit failed: %s",
			 cupti_cb_cuda_error(&e->api, r));
		return -1;
	}
	return 0;
}

static void quiet_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId c, const void *p)
{
	(void)u, (void)d, (void)c, (void)p;
}

/* Subscribe; on success the handle is in *sub. Fills why on failure. */
static int subscribe(struct cupti_cb_engine *e, CUpti_CallbackFunc fn, CUpti_SubscriberHandle *sub)
{
	char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
	CUptiResult r;
	if (e->api.cuptiSubscribe_v2) {
		CUpti_SubscriberParams p = { 0 };
		p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
		p.subscriberName = SUBSCRIBER_NAME;
		p.oldSubscriberName = old;
		p.oldSubscriberSize = sizeof old;
		r = e->api.cuptiSubscribe_v2(sub, fn, e, &p);
	} else {
		r = e->api.cuptiSubscribe(sub, fn, e);
	}
	TRACE(e, "subscribe: %s", cupti_cb_cupti_error(&e->api, r));
	if (r == CUPTI_SUCCESS)
		return 0;
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		snprintf(e->why, sizeof e->why,
			 "Another CUPTI subscriber is active: '%s' holds CUPTI in this process "
			 "(CUPTI allows one; Nsight tools and other profilers take it)",
			 old[0] ? old : "unnamed");
		return CUPTI_CB_ECONFLICT;
	}
	snprintf(e->why, sizeof e->why, "CUPTI refused the subscription: %s",
		 cupti_cb_cupti_error(&e->api, r));
	return CUPTI_CB_ECUPTI;
}

/* A subscribe/unsubscribe round trip with nothing enabled: tells whether
 * another tool already holds CUPTI, without keeping it ourselves. */
static int probe_subscriber(struct cupti_cb_engine *e)
{
	CUpti_SubscriberHandle sub;
	int rc = subscribe(e, quiet_callback, &sub);
	if (rc == 0)
		e->api.cuptiUnsubscribe(sub);
	return rc;
}

int cupti_cb_engine_open(struct cupti_cb_engine *e)
{
	int n = 0;
	const char *trace = getenv(CUPTI_CB_ENV_TRACE), *keep = getenv(CUPTI_CB_ENV_KEEP);
	if (e->state != CUPTI_CB_UNINIT)
		return e->state == CUPTI_CB_READY ? 0 : -1;
	e->state = CUPTI_CB_DISABLED;
	e->trace = trace && trace[0] == '1';
	e->keep = keep && keep[0] == '1';
	uint64_t t0 = cupti_cb_mono_ns();
	if (cupti_cb_load_cupti(&e->api, e->why, sizeof e->why) ||
	    cupti_cb_load_cuda(&e->api, e->why, sizeof e->why))
		return -1;
	uint64_t t1 = cupti_cb_mono_ns();
	if (count_devices(e, &n))
		return -1;
	uint64_t t2 = cupti_cb_mono_ns();
	if (probe_subscriber(e))
		return -1;
	uint64_t t3 = cupti_cb_mono_ns();
	if (cupti_cb_engine_setup(e, n)) {
		snprintf(e->why, sizeof e->why, "cupti_cb could not set up: out of memory");
		return -1;
	}
	TRACE(e, "open: %.2f ms loading libraries, %.2f ms cuInit and device count (%d devices), "
		 "%.2f ms subscriber probe, %.2f ms catalogue (%u events)",
	      (t1 - t0) / 1e6, (t2 - t1) / 1e6, n, (t3 - t2) / 1e6, (cupti_cb_mono_ns() - t3) / 1e6,
	      e->cat.n_events);
	e->why[0] = '\0';
	return 0;
}

/* ---- set-up ------------------------------------------------------------- */

int cupti_cb_engine_setup(struct cupti_cb_engine *e, int n_devices)
{
	struct cupti_cb_layout lay;
	if (cupti_cb_catalog_build(&e->cat, e->api.cuptiGetCallbackName, n_devices))
		return -1;
	cupti_cb_layout_init(&lay, e->cat.n_funcs, e->cat.n_devices);
	e->op_of = calloc(e->cat.n_cbids[1], sizeof *e->op_of);
	e->refs[0] = calloc(e->cat.n_cbids[0], sizeof *e->refs[0]);
	e->refs[1] = calloc(e->cat.n_cbids[1], sizeof *e->refs[1]);
	e->on[0] = calloc(e->cat.n_cbids[0], sizeof *e->on[0]);
	e->on[1] = calloc(e->cat.n_cbids[1], sizeof *e->on[1]);
	if (!e->op_of || !e->refs[0] || !e->refs[1] || !e->on[0] || !e->on[1] || cupti_cb_registry_init(&e->reg, &lay) ||
	    cupti_cb_allocs_init(&e->allocs, 16))
		return -1;
	for (size_t i = 0; i < cupti_cb_n_driver_ops; i++)
		if (cupti_cb_driver_ops[i].cbid < e->cat.n_cbids[1])
			e->op_of[cupti_cb_driver_ops[i].cbid] = &cupti_cb_driver_ops[i];
	e->resolver = (struct cupti_cb_resolver){ real_locate, real_context_device, e };
	cupti_cb_clock_init(&e->clock, -1);
	pthread_mutex_init(&e->lock, NULL);
	atomic_init(&e->timing, 0);
	e->state = CUPTI_CB_READY;
	return 0;
}

static int set_callback(struct cupti_cb_engine *e, int d, uint32_t c, int on)
{
	CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	CUptiResult r = e->api.cuptiEnableCallback((uint32_t)on, e->sub, dom, c);
	if (r != CUPTI_SUCCESS && on) {
		snprintf(e->why, sizeof e->why, "cuptiEnableCallback failed: %s", cupti_cb_cupti_error(&e->api, r));
		return CUPTI_CB_ECUPTI;
	}
	e->on[d][c] = (uint8_t)on;
	return 0;
}

static void disable_all(struct cupti_cb_engine *e)
{
	for (int d = 0; d < 2; d++) {
		for (uint32_t c = 0; c < e->cat.n_cbids[d]; c++) {
			if (e->on[d][c] && e->subscribed)
				set_callback(e, d, c, 0);
			e->on[d][c] = 0;
			e->refs[d][c] = 0;
		}
	}
}

/* Disable before unsubscribing: facts.md measured that unsubscribing with
 * callbacks enabled leaves every later call of those APIs 6x slower. */
static void unsubscribe(struct cupti_cb_engine *e)
{
	if (!e->subscribed)
		return;
	disable_all(e);
	CUptiResult r = e->api.cuptiUnsubscribe(e->sub);
	TRACE(e, "unsubscribe: %s", cupti_cb_cupti_error(&e->api, r));
	e->subscribed = 0;
}

void cupti_cb_engine_close(struct cupti_cb_engine *e)
{
	if (e->state != CUPTI_CB_READY)
		return;
	pthread_mutex_lock(&e->lock);
	unsubscribe(e);
	e->holders = 0;
	e->timing_refs = 0;
	atomic_store(&e->timing, 0);
	pthread_mutex_unlock(&e->lock);
}

void cupti_cb_engine_destroy(struct cupti_cb_engine *e)
{
	cupti_cb_engine_close(e);
	if (e->state == CUPTI_CB_READY) {
		cupti_cb_registry_fini(&e->reg);
		pthread_mutex_destroy(&e->lock);
	}
	cupti_cb_allocs_fini(&e->allocs);
	cupti_cb_catalog_free(&e->cat);
	free(e->op_of);
	free(e->refs[0]);
	free(e->refs[1]);
	free(e->on[0]);
	free(e->on[1]);
	e->on[0] = e->on[1] = NULL;
	e->op_of = NULL;
	e->refs[0] = e->refs[1] = NULL;
	e->state = CUPTI_CB_UNINIT;
}

/* ---- which CBIDs an event needs ----------------------------------------- */

static int code_timed(uint32_t code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	if (idx < cupti_cb_n_derived)
		return cupti_cb_derived_events[idx].timed;
	return (idx - cupti_cb_n_derived) & 1;
}

static int needs_cbid(const struct cupti_cb_engine *e, uint32_t idx, int d, uint32_t cbid)
{
	unsigned slot = e->cat.slot_of[d][cbid];
	if (idx >= cupti_cb_n_derived)
		return slot && slot - 1 == cupti_cb_slot_of_index(idx);
	uint32_t needs = cupti_cb_derived_events[idx].needs;
	if (needs & CUPTI_CB_ALL_CBIDS)
		return slot != 0;
	return d == 1 && e->op_of[cbid] && (needs & CUPTI_CB_CLS_BIT(e->op_of[cbid]->cls));
}

static int set_needs(const struct cupti_cb_engine *e, const uint32_t *codes, unsigned n, int d,
		     uint32_t cbid)
{
	for (unsigned i = 0; i < n; i++)
		if (needs_cbid(e, CUPTI_CB_CODE_IDX(codes[i]), d, cbid))
			return 1;
	return 0;
}

/* Adds delta (+1 / -1) to every CBID the set needs, enabling on 0 -> 1 and
 * disabling on 1 -> 0. */

/* Adds delta (+1 / -1) to every CBID the set needs, and brings CUPTI to
 * what the counts want: on while some running set needs the CBID (and,
 * with keep, from its first use to PAPI_shutdown). */
static int adjust(struct cupti_cb_engine *e, const uint32_t *codes, unsigned n, int delta)
{
	unsigned changed = 0;
	for (int d = 0; d < 2; d++) {
		for (uint32_t c = 1; c < e->cat.n_cbids[d]; c++) {
			if (!set_needs(e, codes, n, d, c) || (delta < 0 && e->refs[d][c] == 0))
				continue;
			e->refs[d][c] += (uint32_t)delta;
			int want = e->refs[d][c] > 0 || (e->keep && e->on[d][c]);
			if (want == e->on[d][c])
				continue;
			changed++;
			int rc = set_callback(e, d, c, want);
			if (rc)
				return rc;
		}
	}
	TRACE(e, "%s %u CBIDs for a set of %u events", delta > 0 ? "enabled" : "disabled", changed, n);
	return 0;
}

static unsigned timed_codes(const uint32_t *codes, unsigned n)
{
	unsigned t = 0;
	for (unsigned i = 0; i < n; i++)
		t |= (unsigned)code_timed(codes[i]);
	return t;
}

int cupti_cb_engine_acquire(struct cupti_cb_engine *e, const uint32_t *codes, unsigned n)
{
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	if (!e->subscribed) {
		rc = subscribe(e, cupti_cb_engine_callback, &e->sub);
		e->subscribed = rc == 0;
	}
	if (rc == 0) {
		/* The clock goes on before any callback can see an enter. */
		if (timed_codes(codes, n) && e->timing_refs++ == 0)
			atomic_store(&e->timing, 1);
		rc = adjust(e, codes, n, +1);
		e->holders++;
		TRACE(e, "start: %u running sets", e->holders);
		if (rc) {
			pthread_mutex_unlock(&e->lock);
			cupti_cb_engine_release(e, codes, n);
			return rc;
		}
	}
	pthread_mutex_unlock(&e->lock);
	return rc;
}

void cupti_cb_engine_release(struct cupti_cb_engine *e, const uint32_t *codes, unsigned n)
{
	pthread_mutex_lock(&e->lock);
	if (e->holders > 0) {
		adjust(e, codes, n, -1);
		if (timed_codes(codes, n) && e->timing_refs > 0 && --e->timing_refs == 0)
			atomic_store(&e->timing, 0);
		if (e->trace) {
			unsigned long repeats = 0;
			for (struct cupti_cb_block *b = atomic_load(&e->reg.head); b; b = b->next)
				repeats += atomic_load_explicit(&b->repeats, memory_order_relaxed);
			TRACE(e, "stop: %u running sets, %lu repeated callbacks dropped so far", e->holders - 1,
			      repeats);
		}
		/* Every callback is disabled by now, unless keep holds them, and
		 * with them the subscription, until PAPI_shutdown. */
		if (--e->holders == 0 && !e->keep)
			unsubscribe(e);
	}
	pthread_mutex_unlock(&e->lock);
}

/* ---- reading ------------------------------------------------------------- */

struct cupti_cb_probe cupti_cb_engine_probe(const struct cupti_cb_engine *e, uint32_t code)
{
	const struct cupti_cb_layout *lay = &e->reg.lay;
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	int dev = CUPTI_CB_CODE_DEV(code);
	struct cupti_cb_probe p = { 0, 1, 1, 0, (uint16_t)code_timed(code) };

	if (idx >= cupti_cb_n_derived) {
		unsigned slot = cupti_cb_slot_of_index(idx);
		p.off = (uint32_t)((((idx - cupti_cb_n_derived) & 1) ? lay->api_time : lay->api_calls) + slot);
		return p;
	}
	const struct cupti_cb_derived *d = &cupti_cb_derived_events[idx];
	p.n = d->count;
	if (!d->per_device) {
		p.off = (uint32_t)(lay->thr + d->first);
		return p;
	}
	p.stride = CUPTI_CB_N_DEV_CTRS;
	if (dev >= 0) {
		p.off = (uint32_t)(lay->dev + (size_t)dev * CUPTI_CB_N_DEV_CTRS + d->first);
	} else {
		p.off = (uint32_t)(lay->dev + d->first);
		p.rows = (uint16_t)lay->n_devrows;
	}
	return p;
}
