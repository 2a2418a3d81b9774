/* cupti_cb_activity_buffers.c: see cupti_cb_activity_buffers.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_activity_buffers.h"
#include "cupti_cb_services.h"
#include "cupti_cb_source.h"
#include "cupti_cb_tap.h"

/* CUPTI's buffer callbacks carry no user pointer: one activity per
 * process, as there is one engine. */
static struct cupti_cb_activity *the_activity;

/* The kinds a gpu.* set needs; the optional one only refines a direction
 * (peer copies also come as MEMCPY records of kind PtoP), so a CUPTI that
 * refuses it does not stop the others. */
static const struct {
	CUpti_ActivityKind kind;
	int optional;
} kinds[] = {
	{ CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMCPY, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMSET, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMCPY2, 1 },	/* peer-to-peer copies */
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* ---- set-up --------------------------------------------------------------- */

static void flush_now(void *a)
{
	cupti_cb_activity_flush(a);
}

#define RESOLVE(field, sym) (a->fn.field = (__typeof__(a->fn.field))dlsym(lib, sym))

int cupti_cb_activity_init(struct cupti_cb_activity *a, struct cupti_cb_services *e)
{
	void *lib = e->api.cupti_lib;
	a->e = e;
	a->n_devrows = (unsigned)e->n_devices + 1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->proc, NULL);
	pthread_mutex_init(&a->grow_lock, NULL);
	int bad;
	unsigned ms = cupti_cb_flusher_period(getenv(CUPTI_CB_ENV_FLUSH_MS), &bad);
	if (bad)
		fprintf(stderr, "cupti_cb: %s=%s is not a number of milliseconds (0 to %u): %u is used\n",
			CUPTI_CB_ENV_FLUSH_MS, getenv(CUPTI_CB_ENV_FLUSH_MS), CUPTI_CB_FLUSH_MS_MAX, ms);
	cupti_cb_flusher_init(&a->flusher, ms, flush_now, a);
	a->wait_ms = cupti_cb_env_ms(getenv(CUPTI_CB_ENV_ACTIVITY_WAIT_MS), CUPTI_CB_ACTIVITY_WAIT_MS_DEFAULT,
				     CUPTI_CB_ACTIVITY_WAIT_MS_MAX, &bad);
	if (bad)
		fprintf(stderr, "cupti_cb: %s=%s is not a number of milliseconds (0 to %u): %u is used\n",
			CUPTI_CB_ENV_ACTIVITY_WAIT_MS, getenv(CUPTI_CB_ENV_ACTIVITY_WAIT_MS),
			CUPTI_CB_ACTIVITY_WAIT_MS_MAX, a->wait_ms);
	a->all = calloc((size_t)a->n_devrows * CUPTI_CB_N_ACT_SLOTS, sizeof *a->all);
	if (!a->all) {
		snprintf(a->why, sizeof a->why, "cupti_cb could not set up GPU activity: out of memory");
		return -1;
	}
	if (!lib || !RESOLVE(register_callbacks, "cuptiActivityRegisterCallbacks") ||
	    !RESOLVE(enable, "cuptiActivityEnable") || !RESOLVE(disable, "cuptiActivityDisable") ||
	    !RESOLVE(flush_all, "cuptiActivityFlushAll") || !RESOLVE(next_record, "cuptiActivityGetNextRecord") ||
	    !RESOLVE(dropped, "cuptiActivityGetNumDroppedRecords")) {
		snprintf(a->why, sizeof a->why, "GPU activity is not available: %.300s lacks the CUPTI Activity API",
			 e->api.cupti_path[0] ? e->api.cupti_path : "libcupti");
		return -1;
	}
	/* Optional: a libcupti older than 13.2 lacks them, and cupti_cb then
	 * holds CUPTI alone, where the process-wide calls are right. */
	struct cupti_cb_activity_v2_fns *v = &a->v2;
	*(void **)&v->register_callbacks = dlsym(lib, "cuptiActivityRegisterCallbacks_v2");
	*(void **)&v->enable = dlsym(lib, "cuptiActivityEnable_v2");
	*(void **)&v->disable = dlsym(lib, "cuptiActivityDisable_v2");
	*(void **)&v->next_record = dlsym(lib, "cuptiActivityGetNextRecord_v2");
	*(void **)&v->dropped = dlsym(lib, "cuptiActivityGetNumDroppedRecords_v2");
	if (!v->register_callbacks || !v->enable || !v->disable || !v->next_record || !v->dropped)
		memset(v, 0, sizeof *v);
	return 0;
}

/* ---- buffers -------------------------------------------------------------- */

_Static_assert(CUPTI_CB_ACT_BUF_MAX == sizeof(((struct cupti_cb_activity *)0)->free_slot) / sizeof(uint8_t *),
	       "one free slot per buffer");

/* Returns a buffer to a free slot. There are as many slots as buffers can
 * exist, so an empty one is always found. */
void cupti_cb_activity_buffer_put(struct cupti_cb_activity *a, uint8_t *buf)
{
	for (unsigned i = 0;; i = (i + 1) % CUPTI_CB_ACT_BUF_MAX) {
		uint8_t *none = NULL;
		if (atomic_compare_exchange_strong(&a->free_slot[i], &none, buf))
			return;
	}
}

static uint8_t *pool_take(struct cupti_cb_activity *a)
{
	for (unsigned i = 0; i < CUPTI_CB_ACT_BUF_MAX; i++) {
		uint8_t *b = atomic_exchange(&a->free_slot[i], NULL);
		if (b)
			return b;
	}
	return NULL;
}

/* Every buffer is out: allocate a batch (cold path, never per record),
 * keep one, free-slot the others. */
static uint8_t *pool_grow(struct cupti_cb_activity *a)
{
	uint8_t *mine = NULL;
	pthread_mutex_lock(&a->grow_lock);
	if (atomic_load(&a->n_bufs) + CUPTI_CB_ACT_BUF_BATCH <= CUPTI_CB_ACT_BUF_MAX) {
		for (unsigned i = 0; i < CUPTI_CB_ACT_BUF_BATCH; i++) {
			uint8_t *b = aligned_alloc(8, CUPTI_CB_ACT_BUF_SIZE);
			if (!b)
				break;
			atomic_fetch_add(&a->n_bufs, 1);
			if (!mine)
				mine = b;
			else
				cupti_cb_activity_buffer_put(a, b);
		}
	}
	pthread_mutex_unlock(&a->grow_lock);
	return mine ? mine : pool_take(a);	/* another thread may have grown it */
}

uint8_t *cupti_cb_activity_buffer_get(struct cupti_cb_activity *a)
{
	uint8_t *b = pool_take(a);
	return b ? b : pool_grow(a);
}

/* Without a buffer CUPTI drops the records, and counts them. */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	struct cupti_cb_activity *a = the_activity;
	*max_records = 0;
	*buffer = a ? cupti_cb_activity_buffer_get(a) : NULL;
	*size = *buffer ? CUPTI_CB_ACT_BUF_SIZE : 0;
	if (a && !*buffer)
		atomic_fetch_add(&a->refused_buffers, 1);
}

static void completed(struct cupti_cb_activity *a, uint8_t *buffer, size_t valid, CUcontext ctx, uint32_t stream)
{
	if (!a || !buffer)
		return;
	cupti_cb_activity_process(a, buffer, valid);
	size_t dropped = 0;
	CUptiResult r = a->scoped ? a->v2.dropped(a->sub, NULL, 0, &dropped) : a->fn.dropped(ctx, stream, &dropped);
	if (r == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&a->dropped, dropped);
	cupti_cb_activity_buffer_put(a, buffer);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	(void)size;
	completed(the_activity, buffer, valid, ctx, stream);
}

/* The subscriber-scoped pair (cuptiActivityRegisterCallbacks_v2). */
static void CUPTIAPI buffer_requested_v2(uint8_t **buffer, size_t *size, size_t *max_records, void *info)
{
	(void)info;
	buffer_requested(buffer, size, max_records);
}

static void CUPTIAPI buffer_completed_v2(uint8_t *buffer, size_t size, size_t valid, void *info)
{
	(void)size, (void)info;
	completed(the_activity, buffer, valid, NULL, 0);
}

/* ---- records -------------------------------------------------------------- */

/* What one record adds: a count, a duration, bytes in one slot. */
struct work {
	uint32_t corr, device;
	uint64_t start, end, bytes;
	int count, time, bytes_slot;	/* enum cupti_cb_act_ctr; bytes_slot -1: none */
};

static int copy_slot(uint8_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return CUPTI_CB_A_BYTES_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return CUPTI_CB_A_BYTES_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
		return CUPTI_CB_A_BYTES_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return CUPTI_CB_A_BYTES_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return CUPTI_CB_A_BYTES_PEER;
	default:
		return -1;	/* counted and timed; its bytes have no direction */
	}
}

static int decode(const CUpti_Activity *r, struct work *w)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)r;
		*w = (struct work){ k->correlationId, k->deviceId, k->start, k->end, 0,
				    CUPTI_CB_A_KERNELS, CUPTI_CB_A_KERNEL_TIME, -1 };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)r;
		*w = (struct work){ m->correlationId, m->deviceId, m->start, m->end, m->bytes,
				    CUPTI_CB_A_MEMCPY_COUNT, CUPTI_CB_A_MEMCPY_TIME, copy_slot(m->copyKind) };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *m = (const void *)r;
		*w = (struct work){ m->correlationId, m->deviceId, m->start, m->end, m->bytes,
				    CUPTI_CB_A_MEMCPY_COUNT, CUPTI_CB_A_MEMCPY_TIME, CUPTI_CB_A_BYTES_PEER };
		return 0;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)r;
		*w = (struct work){ m->correlationId, m->deviceId, m->start, m->end, m->bytes,
				    CUPTI_CB_A_MEMSET_COUNT, CUPTI_CB_A_MEMSET_TIME, CUPTI_CB_A_MEMSET_BYTES };
		return 0;
	}
	default:
		return -1;
	}
}

/* One writer at a time (a->proc), so a plain load and store. */
static inline void add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v, memory_order_relaxed);
}

static void add_work(_Atomic uint64_t *row, const struct work *w)
{
	uint64_t dt = w->end > w->start ? w->end - w->start : 0;
	add(&row[w->count], 1);
	add(&row[w->time], dt);
	if (w->bytes_slot >= 0)
		add(&row[w->bytes_slot], w->bytes);
	uint64_t s = atomic_load_explicit(&row[CUPTI_CB_A_BUSY_START], memory_order_relaxed);
	uint64_t e = atomic_load_explicit(&row[CUPTI_CB_A_BUSY_END], memory_order_relaxed);
	add(&row[CUPTI_CB_A_BUSY], cupti_cb_busy_merge(&s, &e, w->start, w->end));
	atomic_store_explicit(&row[CUPTI_CB_A_BUSY_START], s, memory_order_relaxed);
	atomic_store_explicit(&row[CUPTI_CB_A_BUSY_END], e, memory_order_relaxed);
}

/* Counter sets are never freed and keep their id: a miss walks the registry
 * once and remembers every counter set it sees (a new thread's first record). */
static struct cupti_cb_thread_counters *counters_of(struct cupti_cb_activity *a, uint32_t id)
{
	if (id < a->n_by_id && a->by_id[id])
		return a->by_id[id];
	const struct cupti_cb_thread_registry *r = &a->e->reg;
	size_t n = atomic_load(&r->n_counters) + 1u + 16u;
	if (n > a->n_by_id) {
		struct cupti_cb_thread_counters **p = realloc(a->by_id, n * sizeof *p);
		if (!p)
			return NULL;
		memset(p + a->n_by_id, 0, (n - a->n_by_id) * sizeof *p);
		a->by_id = p;
		a->n_by_id = n;
	}
	for (struct cupti_cb_thread_counters *b = atomic_load(&r->head); b; b = b->next)
		if (b->id < a->n_by_id)
			a->by_id[b->id] = b;
	return id < a->n_by_id ? a->by_id[id] : NULL;
}

static void account(struct cupti_cb_activity *a, const struct work *w)
{
	unsigned row = w->device < a->n_devrows - 1 ? w->device : a->n_devrows - 1;
	size_t off = (size_t)row * CUPTI_CB_N_ACT_SLOTS;
	add_work(a->all + off, w);
	uint32_t id = a->map ? cupti_cb_correlation_get(a->map, w->corr) : 0;
	struct cupti_cb_thread_counters *b = id ? counters_of(a, id) : NULL;
	if (b) {
		add_work(b->c + a->off + off, w);
		if (cupti_cb_correlation_first(a->map, w->corr))
			atomic_fetch_add_explicit(&b->accounted, 1, memory_order_release);
	} else
		atomic_fetch_add(&a->unattributed, 1);
	for (struct cupti_cb_busy_window *bw = a->windows; bw; bw = bw->next)
		if (cupti_cb_busy_window_takes(bw, b, row))
			cupti_cb_busy_window_merge(bw, row, w->start, w->end);
}

void cupti_cb_activity_process(struct cupti_cb_activity *a, uint8_t *buf, size_t valid)
{
	CUpti_Activity *r = NULL;
	pthread_mutex_lock(&a->proc);
	while (valid && (a->scoped ? a->v2.next_record(a->sub, buf, valid, &r) : a->fn.next_record(buf, valid, &r)) ==
				CUPTI_SUCCESS) {
		struct work w;
		cupti_cb_tap_record(r);
		if (decode(r, &w) == 0) {
			account(a, &w);
			atomic_fetch_add(&a->records, 1);
		}
	}
	pthread_mutex_unlock(&a->proc);
}

/* ---- kinds and users ------------------------------------------------------ */

static CUptiResult set_kind(struct cupti_cb_activity *a, CUpti_ActivityKind kind, int on)
{
	if (a->scoped)
		return on ? a->v2.enable(a->sub, kind, NULL) : a->v2.disable(a->sub, kind, NULL);
	return on ? a->fn.enable(kind) : a->fn.disable(kind);
}

static void kinds_off(struct cupti_cb_activity *a)
{
	/* Joined before the kinds go: it never flushes after them. */
	cupti_cb_flusher_stop(&a->flusher);
	for (size_t i = 0; i < N_KINDS; i++)
		set_kind(a, kinds[i].kind, 0);
	atomic_store(&a->e->corr, NULL);
	/* What finished counts; nothing reads it later. No subscriber-scoped
	 * flush exists: this flushes the other subscribers' buffers too. */
	a->fn.flush_all(0);
}

static int kinds_on(struct cupti_cb_activity *a, char *why, size_t len)
{
	for (size_t i = 0; i < N_KINDS; i++) {
		CUptiResult r = set_kind(a, kinds[i].kind, 1);
		if (r != CUPTI_SUCCESS && kinds[i].optional) {
			if (a->e->trace)
				fprintf(stderr, "cupti_cb: activity: kind %d not recorded: %s\n", (int)kinds[i].kind,
					cupti_cb_cupti_error(&a->e->api, r));
		} else if (r != CUPTI_SUCCESS) {
			snprintf(why, len, "CUPTI refused to record GPU activity (kind %d): %s", (int)kinds[i].kind,
				 cupti_cb_cupti_error(&a->e->api, r));
			for (size_t k = 0; k < i; k++)
				set_kind(a, kinds[k].kind, 0);
			return CUPTI_CB_EUNAVAIL;
		}
	}
	atomic_store(&a->e->corr, a->map);
	int rc = cupti_cb_flusher_start(&a->flusher);
	if (rc && a->e->trace)
		fprintf(stderr, "cupti_cb: activity: no flushing thread (%s): reads in signal handlers see the "
			"records of the last ordinary read\n", strerror(rc));
	return 0;
}

/* Registration belongs to the process with the process-wide calls, and to
 * the subscription with the subscriber-scoped ones: a new subscription
 * (after the engine let go of CUPTI) registers again. */
static int register_once(struct cupti_cb_activity *a, char *why, size_t len)
{
	CUpti_SubscriberHandle sub = NULL;
	int scoped = cupti_cb_services_subscriber(a->e, &sub) == 1 && a->v2.register_callbacks;
	if (a->registered && a->scoped == scoped && (!scoped || a->sub == sub))
		return 0;
	if (!a->map && !(a->map = calloc(1, sizeof *a->map))) {
		snprintf(why, len, "cupti_cb could not set up GPU activity: out of memory");
		return CUPTI_CB_ENOMEM;
	}
	the_activity = a;
	CUptiResult r = scoped ? a->v2.register_callbacks(sub, buffer_requested_v2, buffer_completed_v2)
			       : a->fn.register_callbacks(buffer_requested, buffer_completed);
	if (a->e->trace)
		fprintf(stderr, "cupti_cb: activity: %s: %s\n",
			scoped ? "cuptiActivityRegisterCallbacks_v2 (subscriber-scoped calls, shared CUPTI)"
			       : "cuptiActivityRegisterCallbacks (process-wide calls)",
			cupti_cb_cupti_error(&a->e->api, r));
	if (r != CUPTI_SUCCESS) {
		snprintf(why, len,
			 "Another tool owns CUPTI's activity buffers: %s "
			 "failed (%s); the gpu.* events cannot be counted, the other events can",
			 scoped ? "cuptiActivityRegisterCallbacks_v2" : "cuptiActivityRegisterCallbacks",
			 cupti_cb_cupti_error(&a->e->api, r));
		return CUPTI_CB_ECONFLICT;
	}
	a->registered = 1;
	a->scoped = scoped;
	a->sub = sub;
	return 0;
}

int cupti_cb_activity_use(struct cupti_cb_activity *a, char *why, size_t len)
{
	int rc = 0;
	pthread_mutex_lock(&a->lock);
	if (a->why[0]) {
		snprintf(why, len, "%s", a->why);
		rc = CUPTI_CB_EUNAVAIL;
	} else if (!(rc = register_once(a, why, len)) && a->users == 0) {
		rc = kinds_on(a, why, len);
	}
	if (!rc)
		a->users++;
	if (a->e->trace)
		fprintf(stderr, "cupti_cb: activity: start: %s, %u sets use GPU activity\n", rc ? why : "ok",
			a->users);
	pthread_mutex_unlock(&a->lock);
	return rc;
}

void cupti_cb_activity_unuse(struct cupti_cb_activity *a)
{
	pthread_mutex_lock(&a->lock);
	if (a->users && --a->users == 0)
		kinds_off(a);
	if (a->e->trace)
		fprintf(stderr, "cupti_cb: activity: released a set: %u sets use GPU activity\n", a->users);
	pthread_mutex_unlock(&a->lock);
}

/* cuptiActivityFlushAll hands over the buffers CUPTI still holds, but not
 * one that CUPTI's worker thread is handing over at that moment: it
 * returns while the worker's bufferCompleted is still walking the records,
 * and a read right after it missed the rest of that buffer (a thread's
 * gpu.kernels short by a few of 10,200 now and then on an H100). Records
 * are processed under proc, so taking it once after the flush waits for
 * that buffer. */
void cupti_cb_activity_flush(struct cupti_cb_activity *a)
{
	atomic_fetch_add(&a->flushes, 1);
	a->fn.flush_all(0);
	pthread_mutex_lock(&a->proc);
	pthread_mutex_unlock(&a->proc);
}

uint64_t cupti_cb_activity_owed(const struct cupti_cb_thread_counters *b)
{
	uint64_t want = atomic_load_explicit(&b->synced, memory_order_relaxed);
	uint64_t have = atomic_load_explicit(&b->accounted, memory_order_acquire);
	return want > have ? want - have : 0;
}

static uint64_t owed(const struct cupti_cb_thread_counters *b, uint64_t excused)
{
	uint64_t o = cupti_cb_activity_owed(b);
	return o > excused ? o - excused : 0;
}

uint64_t cupti_cb_activity_settle(struct cupti_cb_activity *a, const struct cupti_cb_thread_counters *b,
				  uint64_t excused)
{
	uint64_t missing = owed(b, excused);
	if (!missing || !a->wait_ms)
		return missing;
	struct timespec t0, t, nap = { 0, 100000 };	/* a flush costs tens of us */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		nanosleep(&nap, NULL);
		cupti_cb_activity_flush(a);
		if (!(missing = owed(b, excused)))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec >=
		    (uint64_t)a->wait_ms * 1000000u)
			return missing;
	}
}

void cupti_cb_activity_window_add(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w)
{
	pthread_mutex_lock(&a->proc);
	w->next = a->windows;
	a->windows = w;
	pthread_mutex_unlock(&a->proc);
}

void cupti_cb_activity_window_remove(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w)
{
	pthread_mutex_lock(&a->proc);
	for (struct cupti_cb_busy_window **p = &a->windows; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	pthread_mutex_unlock(&a->proc);
}

void cupti_cb_activity_window_restart(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w,
				      int may_wait, uint64_t *base)
{
	if (!may_wait) {
		atomic_store_explicit(&w->restart, 1, memory_order_release);
		*base = atomic_load_explicit(&w->total, memory_order_relaxed);
		return;
	}
	pthread_mutex_lock(&a->proc);
	atomic_store_explicit(&w->restart, 0, memory_order_relaxed);
	cupti_cb_busy_window_clear(w);
	*base = atomic_load_explicit(&w->total, memory_order_relaxed);
	pthread_mutex_unlock(&a->proc);
}

void cupti_cb_activity_close(struct cupti_cb_activity *a)
{
	pthread_mutex_lock(&a->lock);
	if (a->users)
		kinds_off(a);
	a->users = 0;
	pthread_mutex_unlock(&a->lock);
}
