/* cupti_cb_activity_source.c: GPU work as a source (gpu.* events): what
 * the GPU ran, from CUPTI's Activity API (cupti_cb_activity_buffers.c), by device,
 * by issuing thread or for the whole process. A read of a set with gpu.*
 * events flushes CUPTI's activity buffers first; sets without them never
 * reach this file. A read, reset or stop in a signal handler does not
 * flush (cupti_cb_signal_context.h): it takes the totals as of the last flush,
 * made by an ordinary read or by the activity's flushing thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cupti_cb_activity_buffers.h"
#include "cupti_cb_services.h"
#include "cupti_cb_signal_context.h"
#include "cupti_cb_source.h"

#define MAX_EVENTS CUPTI_CB_SET_MAX
#define CTX_THREAD 0		/* a call from the thread's own code */
#define CTX_HANDLER 1		/* a call from a signal handler (cupti_cb_signal_context.h) */

struct act_event {
	const char *name, *units, *descr;
	uint8_t first, count;	/* slots summed (enum cupti_cb_act_ctr) */
};

static const struct act_event events[] = {
	{ "gpu.kernels", "", "Kernels that ran on the GPU, kernels of graph launches included (one per kernel node "
	  "per launch)", CUPTI_CB_A_KERNELS, 1 },
	{ "gpu.kernel_time_ns", "ns", "Sum of the kernels' durations on the GPU", CUPTI_CB_A_KERNEL_TIME, 1 },
	{ "gpu.memcpy.count", "", "Copies the GPU ran", CUPTI_CB_A_MEMCPY_COUNT, 1 },
	{ "gpu.memcpy.bytes", "bytes", "Bytes the GPU's copies moved, all directions", CUPTI_CB_A_BYTES_HTOD,
	  CUPTI_CB_N_DIRS },
	{ "gpu.memcpy.bytes_htod", "bytes", "Bytes copied host to device (or to a CUDA array)",
	  CUPTI_CB_A_BYTES_HTOD, 1 },
	{ "gpu.memcpy.bytes_dtoh", "bytes", "Bytes copied device (or CUDA array) to host", CUPTI_CB_A_BYTES_DTOH,
	  1 },
	{ "gpu.memcpy.bytes_dtod", "bytes", "Bytes copied within one device (device memory and CUDA arrays)",
	  CUPTI_CB_A_BYTES_DTOD, 1 },
	{ "gpu.memcpy.bytes_htoh", "bytes", "Bytes copied host to host by the GPU", CUPTI_CB_A_BYTES_HTOH, 1 },
	{ "gpu.memcpy.bytes_peer", "bytes", "Bytes copied between two devices", CUPTI_CB_A_BYTES_PEER, 1 },
	{ "gpu.memcpy.time_ns", "ns", "Sum of the copies' durations on the GPU", CUPTI_CB_A_MEMCPY_TIME, 1 },
	{ "gpu.memset.count", "", "Memsets the GPU ran", CUPTI_CB_A_MEMSET_COUNT, 1 },
	{ "gpu.memset.bytes", "bytes", "Bytes the GPU's memsets set", CUPTI_CB_A_MEMSET_BYTES, 1 },
	{ "gpu.memset.time_ns", "ns", "Sum of the memsets' durations on the GPU", CUPTI_CB_A_MEMSET_TIME, 1 },
	{ "gpu.busy_ns", "ns", "Time the device ran at least one kernel, copy or memset: the union of the "
	  "intervals the window counts, not their sum, never less than any one of them (thread scope: of this "
	  "thread's work; summed over devices without :device)",
	  CUPTI_CB_A_BUSY, 1 },
};
#define N_EVENTS (sizeof events / sizeof events[0])
#define BUSY_IDX (N_EVENTS - 1)
_Static_assert(BUSY_IDX == N_EVENTS - 1, "gpu.busy_ns is the last event");

/* The callback events whose CBIDs mark the calls that issue GPU work: a
 * set of gpu.* events holds them to attribute records to threads. */

struct actsrc {
	struct cupti_cb_services *e;
	unsigned id;			/* the source bits of its codes */
	size_t act_off;			/* its region in every thread's counters */
	int reserved;			/* act_off is (or will be) set by the services */
	struct cupti_cb_activity act;
	int opened;			/* cupti_cb_activity_init ran */
	unsigned epoch;			/* bumped by close: sets use the kinds again */
};

struct actset {
	unsigned n;
	int granul_process;
	int hold_stale;
	int using;			/* counted in the activity's users */
	unsigned epoch;
	struct cupti_cb_hold hold;
	struct cupti_cb_thread_counters *counters;
	long tid;			/* PAPI_attach: this kernel thread's GPU work (0: none) */
	unsigned long lost_seen;	/* dropped records at the last read */
	uint64_t excused;		/* synchronized calls already reported missing (see settle) */
	char why[CUPTI_CB_WHY_LEN];	/* the last read's refusal */
	/* What the last read in each context saw (CTX_THREAD, CTX_HANDLER:
	 * each event's total) and the GPU work the thread had issued then: a
	 * reset in the same context with no work issued since starts the next
	 * window there (see a_set_reset). */
	struct {
		int valid;
		uint64_t issued;
		uint64_t v[MAX_EVENTS];
	} seen[2];
	uint32_t codes[MAX_EVENTS];
	uint8_t process[MAX_EVENTS];
	uint64_t base[MAX_EVENTS];
	/* gpu.busy_ns: the set's own windows (cupti_cb_activity_busy.h), and what an
	 * attached set adds to its window (the thread's busy time before
	 * the start; modulo 2^64). */
	struct cupti_cb_busy_window *win[MAX_EVENTS];
	uint64_t offset[MAX_EVENTS];
};

static int is_busy(uint32_t code)
{
	return CUPTI_CB_CODE_IDX(code) == BUSY_IDX;
}

static void *a_open(struct cupti_cb_services *services, unsigned id)
{
	struct actsrc *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->e = services;
	a->id = id;
	return a;
}

/* ---- catalogue ------------------------------------------------------------ */

static int a_may_be_ours(const char *base)
{
	return !strncmp(base, "gpu.", 4);
}

/* "gpu_kernels", "GPU.kernels", "gpu.kernals": the family in any case. */
static int a_may_be_near(const char *base)
{
	return !strncasecmp(base, "gpu", 3);
}

static int n_devices(const struct actsrc *a)
{
	return a->e->state == CUPTI_CB_READY ? a->e->n_devices : 0;
}

static int a_devices(void *self)
{
	return n_devices(self);
}

static void a_opened(void *self, enum cupti_cb_stage stage)
{
	struct actsrc *a = self;
	/* Its region of the per-thread counters, after the callback source's
	 * (the sources are told in list order). */
	if (!a->reserved)
		a->reserved = !cupti_cb_services_reserve(a->e, 0, CUPTI_CB_N_ACT_SLOTS, &a->act_off);
	if (stage == CUPTI_CB_STAGE_DRIVER && !a->opened) {
		cupti_cb_activity_init(&a->act, a->e);
		a->act.off = a->act_off;
		a->opened = 1;
	}
}

static int a_valid(void *self, uint32_t code)
{
	const struct actsrc *a = self;
	int dev = CUPTI_CB_CODE_DEV(code);
	return CUPTI_CB_CODE_SRC(code) == a->id && CUPTI_CB_CODE_VAR(code) == 0 &&
	       CUPTI_CB_CODE_IDX(code) < N_EVENTS && dev < n_devices(a);
}

static int a_first(void *self, uint32_t *code)
{
	*code = CUPTI_CB_SCODE(((struct actsrc *)self)->id, 0, 0, -1, 0);
	return CUPTI_CB_OK;
}

static int a_next(void *self, uint32_t *code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(*code) + 1;
	if (idx >= N_EVENTS)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_SCODE(((struct actsrc *)self)->id, idx, 0, -1, 0);
	return CUPTI_CB_OK;
}

static int a_lookup(void *self, const char *base, uint32_t *code)
{
	unsigned idx = 0;
	while (idx < N_EVENTS && strcmp(events[idx].name, base))
		idx++;
	if (idx == N_EVENTS)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_SCODE(((struct actsrc *)self)->id, idx, 0, -1, 0);
	return CUPTI_CB_OK;
}

/* Every event counts the issuing thread's work or the process's, on one
 * device or all. */
static unsigned a_qualifiers(void *self, uint32_t code)
{
	(void)self, (void)code;
	return CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_LIST_PROCESS | CUPTI_CB_Q_THREAD | CUPTI_CB_Q_DEVICE;
}

static int a_base_name(void *self, uint32_t code, char *buf, size_t len)
{
	if (!a_valid(self, code))
		return CUPTI_CB_ENOEVNT;
	int n = snprintf(buf, len, "%s", events[CUPTI_CB_CODE_IDX(code)].name);
	return (n < 0 || (size_t)n >= len) ? CUPTI_CB_EINVAL : CUPTI_CB_OK;
}

static int a_descr(void *self, uint32_t code, char *buf, size_t len)
{
	if (!a_valid(self, code))
		return CUPTI_CB_ENOEVNT;
	snprintf(buf, len, "%s (CUPTI activity records; a read flushes them, work still running is not "
		 "included)", events[CUPTI_CB_CODE_IDX(code)].descr);
	return CUPTI_CB_OK;
}

static int a_qualifier_descr(void *self, uint32_t code, char *buf, size_t len)
{
	if (!a_valid(self, code))
		return CUPTI_CB_ENOEVNT;
	if (CUPTI_CB_CODE_DEV(code) >= 0)
		snprintf(buf, len, "Only work that ran on CUDA device %d (also spelt :device%d)",
			 CUPTI_CB_CODE_DEV(code), CUPTI_CB_CODE_DEV(code));
	else
		snprintf(buf, len, "All GPU work of the process, whoever issued it (default :thread counts the "
				   "work the calling thread issued)");
	return CUPTI_CB_OK;
}

static int a_facts(void *self, uint32_t code, struct cupti_cb_event_facts *f)
{
	if (!a_valid(self, code))
		return CUPTI_CB_ENOEVNT;
	snprintf(f->units, sizeof f->units, "%s", events[CUPTI_CB_CODE_IDX(code)].units);
	f->is_double = 0;
	f->running_sum = 1;
	return CUPTI_CB_OK;
}

static const char *a_why(void *self)
{
	return ((struct actsrc *)self)->act.why;
}

static const char *a_set_why(void *self, void *set)
{
	(void)self;
	return ((struct actset *)set)->why;
}

static unsigned a_count(void *self)
{
	(void)self;
	return N_EVENTS;
}

static void a_close(void *self)
{
	struct actsrc *a = self;
	if (a->opened)
		cupti_cb_activity_close(&a->act);
	a->epoch++;
}

/* ---- event sets ----------------------------------------------------------- */

static void *a_set_new(void *self)
{
	(void)self;
	return calloc(1, sizeof(struct actset));
}

static void windows_close(struct actsrc *a, struct actset *s)
{
	for (unsigned i = 0; i < MAX_EVENTS; i++)
		if (s->win[i]) {
			cupti_cb_activity_window_remove(&a->act, s->win[i]);
			free(s->win[i]);
			s->win[i] = NULL;
			s->offset[i] = 0;
		}
}

/* A window for each gpu.busy_ns of the set, in the scope it counts. */
static int windows_open(struct actsrc *a, struct actset *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		if (!is_busy(s->codes[i]) || s->win[i])
			continue;
		enum cupti_cb_busy_scope scope = s->process[i] ? CUPTI_CB_BUSY_PROCESS
						 : s->tid	? CUPTI_CB_BUSY_TID
								: CUPTI_CB_BUSY_THREAD;
		s->win[i] = cupti_cb_busy_window_new(scope, s->counters, s->tid, CUPTI_CB_CODE_DEV(s->codes[i]),
						     a->act.n_devrows);
		if (!s->win[i])
			return CUPTI_CB_ENOMEM;
		cupti_cb_activity_window_add(&a->act, s->win[i]);
	}
	return CUPTI_CB_OK;
}

static void let_go(struct actsrc *a, struct actset *s)
{
	windows_close(a, s);
	if (s->using && s->epoch == a->epoch)
		cupti_cb_activity_unuse(&a->act);
	s->using = 0;
	cupti_cb_services_unhold(a->e, &s->hold);
}

static void a_set_free(void *self, void *set)
{
	if (!set)
		return;
	let_go(self, set);
	free(set);
}

static int a_set_update(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len)
{
	struct actset *s = set;
	if (n > MAX_EVENTS)
		return CUPTI_CB_EINVAL;
	for (unsigned i = 0; s->tid && i < n; i++)
		if (CUPTI_CB_CODE_PROC(codes[i]) || s->granul_process) {
			snprintf(why, len, "%s:process counts the whole process: an event set attached to a thread "
				 "(PAPI_attach) takes thread-scope events only", events[CUPTI_CB_CODE_IDX(codes[i])].name);
			return CUPTI_CB_ECOMBO;
		}
	if (n == 0)
		let_go(self, s);
	else
		windows_close(self, s);	/* made again, for the new codes, at the start */
	for (unsigned i = 0; i < n; i++) {
		s->codes[i] = codes[i];
		s->process[i] = (uint8_t)(CUPTI_CB_CODE_PROC(codes[i]) || s->granul_process);
	}
	s->n = n;
	return CUPTI_CB_OK;
}

static void a_set_granularity(void *self, void *set, int process)
{
	struct actset *s = set;
	(void)self;
	s->granul_process = process;
	for (unsigned i = 0; i < s->n; i++)
		s->process[i] = (uint8_t)(CUPTI_CB_CODE_PROC(s->codes[i]) || process);
	windows_close(self, s);	/* their scope changed */
}

/* rows * count slots of one event, from a row array (a counter set's activity
 * region, or the process rows). */
static uint64_t sum_rows(const struct actsrc *a, const _Atomic uint64_t *rows, uint32_t code)
{
	const struct act_event *ev = &events[CUPTI_CB_CODE_IDX(code)];
	int dev = CUPTI_CB_CODE_DEV(code);
	unsigned r0 = dev >= 0 ? (unsigned)dev : 0, r1 = dev >= 0 ? r0 + 1 : a->act.n_devrows;
	uint64_t v = 0;
	for (unsigned r = r0; r < r1; r++)
		for (unsigned k = 0; k < ev->count; k++)
			v += atomic_load_explicit(&rows[(size_t)r * CUPTI_CB_N_ACT_SLOTS + ev->first + k],
						  memory_order_relaxed);
	return v;
}

static void a_set_attach(void *self, void *set, long tid)
{
	(void)self;
	((struct actset *)set)->tid = tid;
}

/* An attached set's thread: the GPU work issued by every counter set that kernel
 * thread id owns (found again at each read, as the callback source does). */
#define TID_BLOCKS 16
static uint64_t sum_tid(const struct actsrc *a, long tid, uint32_t code)
{
	const struct cupti_cb_thread_counters *bl[TID_BLOCKS];
	unsigned n = cupti_cb_thread_registry_find(&a->e->reg, tid, bl, TID_BLOCKS);
	uint64_t v = 0;
	for (unsigned k = 0; k < n && k < TID_BLOCKS; k++)
		v += sum_rows(a, bl[k]->c + a->act_off, code);
	return v;
}

/* Event i's total now. Loads only, into no shared state: a read in a
 * signal handler may interrupt an ordinary read of the same set. */
static uint64_t sample(struct actsrc *a, const struct actset *s, unsigned i)
{
	if (s->win[i])
		return atomic_load_explicit(&s->win[i]->total, memory_order_relaxed) + s->offset[i];
	if (s->process[i])
		return sum_rows(a, cupti_cb_activity_all(&a->act), s->codes[i]);
	if (s->tid)
		return sum_tid(a, s->tid, s->codes[i]);
	return s->counters ? sum_rows(a, s->counters->c + a->act_off, s->codes[i]) : 0;
}

/* The GPU work the set's thread has issued so far (calls noted under
 * their correlation ids). ~0 for a set that reads no counters of its own
 * thread (attached). */
static uint64_t issued(const struct actset *s)
{
	return s->counters ? atomic_load_explicit(&s->counters->issued, memory_order_relaxed) : ~(uint64_t)0;
}

static unsigned long lost(const struct actsrc *a)
{
	return atomic_load(&a->act.dropped) + atomic_load(&a->act.refused_buffers);
}

/* After a flush, outside signal handlers: the records of the work the
 * set's thread issued before its last host synchronization, which has
 * finished, are waited for (cupti_cb_activity_settle), so that a read or
 * stop right after cudaDeviceSynchronize or cudaStreamSynchronize counts
 * all of it. What is still missing after the wait is said once (the set's
 * why) and not waited for again while it stays missing. */
static int thread_scoped(const struct actset *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!s->process[i])
			return 1;
	return 0;
}

static uint64_t settle(struct actsrc *a, struct actset *s)
{
	/* The calling thread's own work, for events that count it: not an
	 * attached set's thread, not a set read on another thread than the one
	 * that started it (cupti_cb_run's), not :process events alone. */
	if (!s->counters || !thread_scoped(s) || cupti_cb_services_thread_counters(a->e) != s->counters)
		return 0;
	uint64_t owed = cupti_cb_activity_owed(s->counters);
	if (s->excused > owed)
		s->excused = owed;	/* some of those said missing came after all */
	uint64_t missing = cupti_cb_activity_settle(&a->act, s->counters, s->excused);
	s->excused += missing;
	return missing;
}

/* Records CUPTI delivered until now count in this window; in a signal
 * handler, those delivered by the last flush. Except right after a read:
 * TAU and Caliper read and then reset at every boundary, and records
 * arriving between the two (the flushing thread, CUPTI's worker) would
 * be in neither window. So when the thread issued no GPU work since the
 * set's last read in the reset's own context, the new window starts
 * where that read ended: what arrives later is work issued before the
 * read, and counts in the next window rather than nowhere. A sampler's
 * read in a signal handler between the thread's read and reset is not
 * where the thread's window ended: it never moves that base. */
static int a_set_reset(void *self, void *set)
{
	struct actsrc *a = self;
	struct actset *s = set;
	int may_wait = !cupti_cb_in_signal_context();
	int ctx = may_wait ? CTX_THREAD : CTX_HANDLER;
	int after_read = s->seen[ctx].valid && s->counters && issued(s) == s->seen[ctx].issued;
	if (may_wait && !after_read) {
		cupti_cb_activity_flush(&a->act);
		/* What is still missing then counts in the window when it comes. */
		(void)settle(a, s);
	}
	for (unsigned i = 0; i < s->n; i++)
		s->base[i] = after_read ? s->seen[ctx].v[i] : sample(a, s, i);
	for (unsigned i = 0; i < s->n; i++)
		if (s->win[i]) {
			uint64_t b;
			cupti_cb_activity_window_restart(&a->act, s->win[i], may_wait, &b);
			if (!after_read)
				s->base[i] = b + s->offset[i];
		}
	s->lost_seen = lost(a);
	return CUPTI_CB_OK;
}

static int a_set_start(void *self, void *set, char *why, size_t len)
{
	struct actsrc *a = self;
	struct actset *s = set;
	s->seen[CTX_THREAD].valid = s->seen[CTX_HANDLER].valid = 0;	/* a new window, not the last read's */
	if (!a->opened)
		a_opened(a, CUPTI_CB_STAGE_DRIVER);
	if (!a->reserved || a->e->state != CUPTI_CB_READY) {
		snprintf(why, len, "GPU activity has no room in the per-thread counters: the services were set up "
			 "before it asked for it");
		return CUPTI_CB_ELIMIT;
	}
	if (!s->hold.active) {
		/* The calls that issue GPU work: the callback notes which thread
		 * made each, under its correlation id (cupti_cb_correlation.h). */
		struct cupti_cb_hold want;
		cupti_cb_services_work_cbids(a->e, &want);
		int rc = cupti_cb_services_hold_cbids(a->e, &s->hold, &want, why, len);
		if (rc)
			return rc;
	}
	if (!s->using || s->epoch != a->epoch) {
		int rc = cupti_cb_activity_use(&a->act, why, len);
		if (rc)
			return rc;	/* the hold stays until cleanup, as a started set's would */
		s->using = 1;
		s->epoch = a->epoch;
	}
	if (s->tid) {
		/* Attached: the GPU work the thread issued since its first
		 * counted call (cupti_cb_source.h); the reader takes no counter set.
		 * Its busy time before the start comes from the thread's own
		 * union (one window since its first call), then the set's
		 * window adds what follows. */
		s->counters = NULL;
		int rc = windows_open(a, s);
		if (rc)
			return rc;
		a_set_reset(self, set);
		for (unsigned i = 0; i < s->n; i++)
			if (s->win[i])
				s->offset[i] = sum_tid(a, s->tid, s->codes[i]) - (s->base[i] - s->offset[i]);
		memset(s->base, 0, s->n * sizeof s->base[0]);
		return CUPTI_CB_OK;
	}
	s->counters = cupti_cb_services_thread_counters(a->e);
	if (!s->counters)
		return CUPTI_CB_ENOMEM;
	int rc = windows_open(a, s);
	return rc ? rc : a_set_reset(self, set);
}

/* Records lost since the last read make the read say so: the values are
 * still returned (an undercount), with CUPTI_CB_EDROPPED for a warning. */
static int a_set_read(void *self, void *set, long long *values)
{
	struct actsrc *a = self;
	struct actset *s = set;
	int in_handler = cupti_cb_in_signal_context();
	uint64_t missing = 0;
	if (!in_handler) {
		s->why[0] = 0;
		cupti_cb_activity_flush(&a->act);
		missing = settle(a, s);
	}
	int ctx = in_handler ? CTX_HANDLER : CTX_THREAD;
	s->seen[ctx].issued = issued(s);	/* before the totals: work issued after is not in them */
	for (unsigned i = 0; i < s->n; i++) {
		uint64_t now = sample(a, s, i);
		if (s->tid && now < s->base[i])	/* its counter set was adopted away */
			s->base[i] = now;
		values[i] = (long long)(now - s->base[i]);
		s->seen[ctx].v[i] = now;
	}
	s->seen[ctx].valid = 1;
	if (missing) {
		snprintf(s->why, sizeof s->why,
			 "%llu of the GPU operations this thread issued before its last synchronization have no "
			 "activity record after %u ms (%s): the gpu.* values miss them",
			 (unsigned long long)missing, a->act.wait_ms, CUPTI_CB_ENV_ACTIVITY_WAIT_MS);
		return CUPTI_CB_EINCOMPLETE;
	}
	unsigned long l = lost(a);
	if (l == s->lost_seen)
		return CUPTI_CB_OK;
	if (a->e->trace && !in_handler)
		fprintf(stderr, "cupti_cb: activity: %lu records dropped by CUPTI, %lu buffers refused (pool full), "
			"%lu records without an issuing thread, %lu records in all\n",
			atomic_load(&a->act.dropped), atomic_load(&a->act.refused_buffers),
			atomic_load(&a->act.unattributed), atomic_load(&a->act.records));
	s->lost_seen = l;
	return CUPTI_CB_EDROPPED;
}

/* The kinds stay enabled until cleanup (see struct cupti_cb_hold); stop's
 * values come from the read the adapter makes first. */
static int a_set_stop(void *self, void *set)
{
	(void)self, (void)set;
	return CUPTI_CB_OK;
}

const struct cupti_cb_source_ops cupti_cb_activity_source = {
	.label = "activity",
	.no_overflow_why =
		"GPU activity (gpu.*) reaches cupti_cb in buffers CUPTI hands over later, on another thread, not "
		"during the CUDA call that issued the work, so no sample can land at that call; overflow on the "
		"callback event that issues the work (kernel.launches, memcpy.bytes_htod, ...) and read the gpu.* "
		"events at the end",
	.open = a_open,
	.may_be_ours = a_may_be_ours,
	.may_be_near = a_may_be_near,
	.opened = a_opened,
	.first = a_first,
	.next = a_next,
	.lookup = a_lookup,
	.qualifiers = a_qualifiers,
	.devices = a_devices,
	.base_name = a_base_name,
	.descr = a_descr,
	.qualifier_descr = a_qualifier_descr,
	.facts = a_facts,
	.valid = a_valid,
	.why = a_why,
	.set_why = a_set_why,
	.count = a_count,
	.close = a_close,
	.set_new = a_set_new,
	.set_free = a_set_free,
	.set_update = a_set_update,
	.set_granularity = a_set_granularity,
	.set_attach = a_set_attach,
	.set_start = a_set_start,
	.set_read = a_set_read,
	.set_stop = a_set_stop,
	.set_reset = a_set_reset,
};
