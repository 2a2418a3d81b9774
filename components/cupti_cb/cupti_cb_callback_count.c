/* cupti_cb_callback_count.c: the hot path. Runs on the application's thread for
 * every enabled CBID: no locks, no allocation (but a thread's first call),
 * no system call but the clock read, and only when a running event set
 * needs time, and the overflow signal, only at a threshold crossing of a
 * set with overflow armed (cupti_cb_overflow.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_correlation.h"
#include "cupti_cb_callback_state.h"
#include "cupti_cb_overflow.h"
#include "cupti_cb_tap.h"

/* The operations whose GPU work an activity record reports. */
#define ISSUES_WORK (CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_LAUNCH) | CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_GRAPH) | \
		     CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_MEMCPY) | CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_MEMSET))

/* The allocation table keeps, for each allocation, its size and the device
 * row it counts on (alloc.live_bytes must go down on the row that went up,
 * whichever context the free runs in). No allocation is 2^56 bytes. */
#define ROW_SHIFT 56
#define SIZE_OF(v) ((v) & ((1ull << ROW_SHIFT) - 1))
#define ROW_OF(v)  ((unsigned)((v) >> ROW_SHIFT))

/* The counter row of the device of ctx; the last row is "device unknown". */
static int device_row(struct cupti_cb_callback *cb, struct cupti_cb_thread_counters *b, CUcontext ctx)
{
	if (ctx != b->last_ctx || !ctx) {
		b->last_ctx = ctx;
		b->last_dev = cb->svc->resolver.context_device(cb->svc->resolver.arg, ctx);
	}
	int dev = b->last_dev;
	int unknown = (int)cb->lay.n_devrows - 1;
	return (dev >= 0 && dev < unknown) ? dev : unknown;
}

static inline uint64_t site_key(const CUpti_CallbackData *cd, int d, CUpti_CallbackId cbid)
{
	return (uint64_t)cd->correlationId << 32 | (uint64_t)cbid << 1 | (uint64_t)d;
}

static void at_enter_site(struct cupti_cb_callback *cb, struct cupti_cb_thread_counters *b, int d,
			  CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	/* The lines the EXIT will write, fetched now: the call runs in between,
	 * and the application's own work since its last CUDA call has often
	 * evicted them (measured: bench_hotpath --thrash-kib). */
	unsigned slot = cb->cat.slot_of[d][cbid];
	if (slot) {
		__builtin_prefetch(b->c + cb->lay.api + CUPTI_CB_API_STRIDE * (size_t)(slot - 1), 1);
		__builtin_prefetch(cupti_cb_windows_slot_line(&cb->win, slot - 1), 0);
	}
	struct cupti_cb_pending *p = &b->pending[b->n_pending++ % CUPTI_CB_PENDING];
	p->key = site_key(cd, d, cbid);
	if (d == 0) {
		b->rt_corr = cd->correlationId;
		b->rt_name = cd->functionName;
	} else {
		const struct cupti_cb_op *op = cb->svc->op_of[cbid];
		/* At ENTER: the work's record can only come after the call began. */
		if (op && (CUPTI_CB_CLS_BIT(op->cls) & ISSUES_WORK)) {
			cupti_cb_tap_issue(cd->correlationId, b->rt_corr ? b->rt_name : cd->functionName);
			struct cupti_cb_correlation_map *corr =
				atomic_load_explicit(&cb->svc->corr, memory_order_acquire);
			if (corr) {
				cupti_cb_correlation_put(corr, cd->correlationId, b->id);
				cupti_cb_bump(&b->issued, 1);
			}
		}
		if (op && op->cls == CUPTI_CB_CLS_FREE) {
			/* Look the size up before the driver can reuse the address. */
			struct cupti_cb_effect fx = { 0 };
			op->effect(cd->functionParams, &cb->svc->resolver, &fx);
			b->pending_free = cupti_cb_allocs_take(&cb->allocs, fx.ptr);
		}
	}
	/* Last, so that the call's time leaves this callback's own work out. */
	p->t0 = atomic_load_explicit(&cb->svc->timing, memory_order_relaxed) ? cupti_cb_clock_now(&cb->svc->clock) : 0;
}

/* The enter time of this call, when its own ENTER was seen here; entries
 * above it (calls whose EXIT never came) are dropped with it. */
static uint64_t take_enter_time(struct cupti_cb_thread_counters *b, uint64_t key, int *found)
{
	unsigned n = b->n_pending < CUPTI_CB_PENDING ? b->n_pending : CUPTI_CB_PENDING;
	for (unsigned i = 1; i <= n; i++) {
		const struct cupti_cb_pending *p = &b->pending[(b->n_pending - i) % CUPTI_CB_PENDING];
		if (p->key == key) {
			b->n_pending -= i;
			*found = 1;
			return p->t0;
		}
	}
	*found = 0;
	return 0;
}

/* An allocation enters the table and the live bytes of its row; one whose
 * free was never seen, at the same address, leaves them. */
static void record_alloc(struct cupti_cb_callback *cb, unsigned row, CUdeviceptr ptr, uint64_t bytes)
{
	uint64_t replaced;
	if (cupti_cb_allocs_put(&cb->allocs, ptr, SIZE_OF(bytes) | (uint64_t)row << ROW_SHIFT, &replaced))
		return;	/* not recorded: its free will not be either */
	if (replaced)
		cupti_cb_windows_free(&cb->win, ROW_OF(replaced), SIZE_OF(replaced));
	cupti_cb_windows_alloc(&cb->win, row, SIZE_OF(bytes));
}

static void count_op(struct cupti_cb_callback *cb, struct cupti_cb_thread_counters *b, const struct cupti_cb_op *op,
		     const CUpti_CallbackData *cd, uint64_t dt)
{
	struct cupti_cb_effect fx = { 0 };
	int row = device_row(cb, b, cd->context);
	_Atomic uint64_t *c = b->c + cb->lay.dev + (size_t)row * CUPTI_CB_N_DEV_CTRS;
	if (op->effect)
		op->effect(cd->functionParams, &cb->svc->resolver, &fx);
	else
		fx.count = 1;

	switch (op->cls) {
	case CUPTI_CB_CLS_LAUNCH:
		/* kernel.launches is legacy + other: one bump each at most. */
		if (fx.legacy)
			cupti_cb_bump(&c[CUPTI_CB_C_LAUNCHES_LEGACY], fx.legacy);
		if (fx.count > fx.legacy)
			cupti_cb_bump(&c[CUPTI_CB_C_LAUNCHES_OTHER], fx.count - fx.legacy);
		if (fx.threads)
			cupti_cb_bump(&c[CUPTI_CB_C_THREADS], fx.threads);
		if (fx.bytes)
			cupti_cb_bump(&c[CUPTI_CB_C_DYN_SMEM], fx.bytes);
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
		record_alloc(cb, (unsigned)row, fx.ptr, fx.bytes);
		break;
	case CUPTI_CB_CLS_FREE:
		cupti_cb_bump(&c[CUPTI_CB_C_FREE_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_FREE_BYTES], SIZE_OF(b->pending_free));
		if (b->pending_free)
			cupti_cb_windows_free(&cb->win, ROW_OF(b->pending_free), SIZE_OF(b->pending_free));
		break;
	case CUPTI_CB_CLS_SYNC:
		cupti_cb_bump(&c[CUPTI_CB_C_SYNC_CALLS], fx.count);
		cupti_cb_bump(&c[CUPTI_CB_C_SYNC_TIME], dt);
		break;
	default:
		break;
	}
}

/* A call that issues GPU work failed: no record will come, so it is
 * accounted for now (a read after a synchronization waits for the rest). */
static void no_record(struct cupti_cb_callback *cb, struct cupti_cb_thread_counters *b, uint32_t corr)
{
	struct cupti_cb_correlation_map *m = atomic_load_explicit(&cb->svc->corr, memory_order_acquire);
	if (m && cupti_cb_correlation_first(m, corr))
		atomic_fetch_add_explicit(&b->accounted, 1, memory_order_relaxed);
}

/* The tap's call hook (cupti_cb_tap.h), with whether the call issues GPU work. */
static inline void tap_call(struct cupti_cb_callback *cb, int d, CUpti_CallbackId cbid, uint32_t corr, uint64_t t0,
			    uint64_t t1, int failed)
{
	const struct cupti_cb_tap *t = cupti_cb_tap_get();	/* the one load when no tap is set */
	if (!t || !t->call)
		return;
	const struct cupti_cb_op *op = d ? cb->svc->op_of[cbid] : NULL;
	int flags = (failed ? CUPTI_CB_TAP_FAILED : 0) |
		    (op && (CUPTI_CB_CLS_BIT(op->cls) & ISSUES_WORK) ? CUPTI_CB_TAP_ISSUES_WORK : 0);
	cupti_cb_tap_exit(t, d, cbid, corr, t0, t1, flags);
}

/* now: the clock at the callback's start, 0 when no set asks for time. */
static void at_exit_site(struct cupti_cb_callback *cb, struct cupti_cb_thread_counters *b, int d,
			 CUpti_CallbackId cbid, const CUpti_CallbackData *cd, uint64_t now)
{
	int found, timed = 0;
	uint64_t t0 = take_enter_time(b, site_key(cd, d, cbid), &found), dt = 0;
	if (!found)
		atomic_store_explicit(&b->unmatched,
				      atomic_load_explicit(&b->unmatched, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	if (t0 && now) {
		dt = now > t0 ? now - t0 : 0;	/* a time never wraps */
		timed = 1;
	}
	/* cudaError_t and CUresult alike: 0 is success. */
	int failed = cd->functionReturnValue && *(const int *)cd->functionReturnValue != 0;
	if (found)
		tap_call(cb, d, cbid, cd->correlationId, t0, timed ? now : 0, failed);

	if (d == 1)
		cupti_cb_bump(&b->driver_calls, 1);
	unsigned slot = cb->cat.slot_of[d][cbid];
	if (slot) {
		const struct cupti_cb_callback_layout *lay = &cb->lay;
		_Atomic uint64_t *f = b->c + lay->api + CUPTI_CB_API_STRIDE * (size_t)(slot - 1);
		cupti_cb_bump(&f[CUPTI_CB_API_CALLS_AT], 1);
		if (dt)
			cupti_cb_bump(&f[CUPTI_CB_API_TIME_AT], dt);
		if (failed)
			cupti_cb_bump(&f[CUPTI_CB_API_ERRORS_AT], 1);
		/* One byte load when no set times single calls of this function. */
		unsigned windows = cupti_cb_windows_mask(&cb->win, slot - 1);
		if (windows && timed)
			cupti_cb_windows_note(&cb->win, b->c, slot - 1, windows, dt);
	}
	/* A call of the application: a runtime call (but the runtime's own
	 * __cuda* entry points that nvcc's launch stubs and registration
	 * code call), or a driver call made outside any runtime call. */
	int nested = d == 1 && b->rt_corr != 0;
	if (d == 0 && b->rt_corr == cd->correlationId)
		b->rt_corr = 0;
	if (slot && !nested && !cb->cat.internal[slot - 1]) {
		cupti_cb_bump(&b->c[cb->lay.thr + CUPTI_CB_C_API_CALLS], 1);
		if (dt)
			cupti_cb_bump(&b->c[cb->lay.thr + CUPTI_CB_C_API_TIME], dt);
		if (failed)
			cupti_cb_bump(&b->c[cb->lay.thr + CUPTI_CB_C_API_ERRORS], 1);
	}
	if (d == 1) {
		const struct cupti_cb_op *op = cb->svc->op_of[cbid];
		int ok = cd->functionReturnValue && !failed;
		if (op && ok) {
			count_op(cb, b, op, cd, dt);
			if (op->cls == CUPTI_CB_CLS_SYNC)
				atomic_store_explicit(&b->synced, atomic_load_explicit(&b->issued, memory_order_relaxed),
						      memory_order_relaxed);
		} else if (op && failed && (CUPTI_CB_CLS_BIT(op->cls) & ISSUES_WORK)) {
			no_record(cb, b, cd->correlationId);
		} else if (op && op->cls == CUPTI_CB_CLS_FREE && b->pending_free) {
			/* A free that failed freed nothing: the size stays recorded. */
			struct cupti_cb_effect fx = { 0 };
			op->effect(cd->functionParams, &cb->svc->resolver, &fx);
			cupti_cb_allocs_insert(&cb->allocs, fx.ptr, b->pending_free);
		}
		b->pending_free = 0;
	}
}

void cupti_cb_callback_listen(void *arg, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			      const CUpti_CallbackData *cd)
{
	struct cupti_cb_callback *cb = arg;
	int enter = cd->callbackSite == CUPTI_API_ENTER;
	/* An EXIT reads the clock first: the call's time leaves this callback's
	 * own work out, and the read's latency overlaps the loads below. */
	uint64_t now = !enter && atomic_load_explicit(&cb->svc->timing, memory_order_relaxed)
			       ? cupti_cb_clock_now(&cb->svc->clock)
			       : 0;
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if (cbid >= cb->cat.n_cbids[d])
		return;
	struct cupti_cb_thread_counters *b = cupti_cb_thread_counters_self(&cb->svc->reg);
	if (!b || b->in_lookup)
		return;
	/* CUPTI was seen to deliver one site of one call twice on a thread
	 * while another thread changed the enabled CBIDs. A call's enter and
	 * exit alternate, so the same site of the same call twice in a row is
	 * always such a repeat: drop it. */
	uint64_t key = site_key(cd, d, cbid) << 1 | !enter;
	if (key == b->last_site) {
		atomic_store_explicit(&b->repeats, atomic_load_explicit(&b->repeats, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		return;
	}
	b->last_site = key;
	if (enter) {
		at_enter_site(cb, b, d, cbid, cd);
		return;
	}
	at_exit_site(cb, b, d, cbid, cd, now);
	/* Last: the counts of this call are complete when a handler reads them. */
	cupti_cb_ovf_check(b);
}
