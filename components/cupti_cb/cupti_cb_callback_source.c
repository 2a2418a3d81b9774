/* cupti_cb_callback_source.c: the callback counters as a source. The
 * catalogue is libcupti's CBID name table (cupti_cb_callback_catalog.c); counting
 * happens in the CUPTI callback (cupti_cb_callback_count.c) into per-thread
 * counter sets; a read is a handful of loads, takes no lock and is
 * async-signal-safe (HPCToolkit may read from a signal handler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_callback_state.h"
#include "cupti_cb_overflow.h"
#include "cupti_cb_source.h"

#define MAX_EVENTS CUPTI_CB_SET_MAX

/* How each event is read: a count, or one of the levels of
 * cupti_cb_callback_windows.h (read as changes since the last reset, which add up
 * under the read + reset + add of TAU, Caliper and Score-P). */
enum rd { RD_COUNT, RD_MIN, RD_MAX, RD_LIVE, RD_PEAK };

struct cbset {
	unsigned n;
	int timed;			/* some event counts time */
	int granul_process;		/* PAPI_GRN_PROC: every event counts the process */
	int hold_stale;			/* the events changed since the hold was taken */
	struct cupti_cb_hold hold;	/* the CBIDs this set keeps enabled */
	struct cupti_cb_thread_counters *counters;	/* the starting thread's, for thread-scope events */
	long tid;			/* PAPI_attach: read this kernel thread's counter sets (0: none) */
	uint32_t codes[MAX_EVENTS];
	uint8_t process[MAX_EVENTS];
	struct cupti_cb_probe probes[MAX_EVENTS];
	uint64_t base[MAX_EVENTS];
	uint64_t now[MAX_EVENTS];
	uint64_t ns[MAX_EVENTS];	/* time counters: ns so far, never decreasing */
	uint8_t rd[MAX_EVENTS];		/* enum rd */
	uint8_t at[MAX_EVENTS];		/* RD_MIN/MAX: entry in the window; RD_LIVE/PEAK: row */
	struct cupti_cb_level level[MAX_EVENTS];	/* the events that are not RD_COUNT */
	/* The window of the min/max/peak events, taken while the set runs. */
	int window;			/* -1: none held */
	int wants_window;
	int peaks;
	unsigned n_slots;
	uint16_t slots[CUPTI_CB_WIN_SLOTS];
	/* PAPI_overflow: each event's threshold (0: none), and the overflow
	 * armed on the starting thread's counter set while the set runs. */
	unsigned n_ovf;
	int ovf_sig;
	uint64_t ovf_thr[MAX_EVENTS];
	struct cupti_cb_ovf ovf;
	struct cupti_cb_thread_counters *ovf_counters;	/* where ovf is armed; NULL: nowhere */
};

/* ---- catalogue ------------------------------------------------------------ */

static int cb_may_be_ours(const char *base)
{
	return cupti_cb_catalog_may_be_ours(base);
}

static int cb_may_be_near(const char *base)
{
	return cupti_cb_catalog_may_be_near(base);
}

/* The catalogue at the first stage (and its region of the per-thread
 * counters); the windows, the allocation table and the offsets at the
 * driver stage. A failure leaves the source without events and says why. */
static void cb_opened(void *self, enum cupti_cb_stage stage)
{
	struct cupti_cb_callback *cb = self;
	int rc = stage == CUPTI_CB_STAGE_NAMES ? cupti_cb_callback_open_names(cb) : cupti_cb_callback_open_driver(cb);
	if (rc && !cb->why[0])
		snprintf(cb->why, sizeof cb->why, "cupti_cb could not set up its callback counters: out of memory");
}

static int cb_first(void *self, uint32_t *code)
{
	struct cupti_cb_callback *e = self;
	if (e->cat.n_events == 0)
		return CUPTI_CB_ENOEVNT;
	*code = cupti_cb_catalog_first();
	return CUPTI_CB_OK;
}

static int cb_next(void *self, uint32_t *code)
{
	return cupti_cb_catalog_next(&((struct cupti_cb_callback *)self)->cat, code);
}

static int cb_lookup(void *self, const char *base, uint32_t *code)
{
	return cupti_cb_catalog_parse(&((struct cupti_cb_callback *)self)->cat, base, code);
}

/* Every event counts the calling thread or the process; a process-wide
 * gauge has no thread's share; the derived events of device work take a
 * device. */
static unsigned cb_qualifiers(void *self, uint32_t code)
{
	(void)self;
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	unsigned q = CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_LIST_PROCESS;
	if (!cupti_cb_process_only(idx))
		q |= CUPTI_CB_Q_THREAD;
	if (idx < cupti_cb_n_derived && cupti_cb_derived_events[idx].per_device)
		q |= CUPTI_CB_Q_DEVICE;
	return q;
}

static int cb_devices(void *self)
{
	return ((struct cupti_cb_callback *)self)->cat.n_devices;
}

static int cb_base_name(void *self, uint32_t code, char *buf, size_t len)
{
	return cupti_cb_catalog_name(&((struct cupti_cb_callback *)self)->cat, code, buf, len);
}

static int cb_descr(void *self, uint32_t code, char *buf, size_t len)
{
	return cupti_cb_catalog_descr(&((struct cupti_cb_callback *)self)->cat, code, buf, len);
}

static int cb_qualifier_descr(void *self, uint32_t code, char *buf, size_t len)
{
	return cupti_cb_catalog_qualifier_descr(&((struct cupti_cb_callback *)self)->cat, code, buf, len);
}

static int cb_facts(void *self, uint32_t code, struct cupti_cb_event_facts *f)
{
	const struct cupti_cb_catalog *cat = &((struct cupti_cb_callback *)self)->cat;
	if (!cupti_cb_catalog_valid(cat, code))
		return CUPTI_CB_ENOEVNT;
	snprintf(f->units, sizeof f->units, "%s", cupti_cb_catalog_units(cat, code));
	f->is_double = 0;
	/* Every value is a change since start or reset whose pieces add up
	 * (the minimum, maximum, live and peak values are read as changes of
	 * their level: cupti_cb_callback_windows.h). The minimum and the live bytes can
	 * go down, so their pieces are signed. */
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	f->running_sum = 1;
	f->is_signed = idx < cupti_cb_n_derived
			       ? cupti_cb_derived_events[idx].read == CUPTI_CB_READ_LIVE
			       : cupti_cb_kind_of(cat, idx) == CUPTI_CB_API_TIME_MIN;
	return CUPTI_CB_OK;
}

static int cb_valid(void *self, uint32_t code)
{
	return cupti_cb_catalog_valid(&((struct cupti_cb_callback *)self)->cat, code);
}

static const char *cb_why(void *self)
{
	struct cupti_cb_callback *e = self;
	return e->svc->state == CUPTI_CB_DISABLED ? e->svc->why : e->why;
}

static unsigned cb_count(void *self)
{
	return ((struct cupti_cb_callback *)self)->cat.n_events;
}

/* The services let go of CUPTI after every source (the adapter). */
static void cb_close(void *self)
{
	(void)self;
}

/* ---- event sets ----------------------------------------------------------- */

static void *cb_set_new(void *self)
{
	(void)self;
	struct cbset *s = calloc(1, sizeof(struct cbset));
	if (s)
		s->window = -1;
	return s;
}

static void give_window(struct cupti_cb_callback *e, struct cbset *s)
{
	if (s->window >= 0 && e->ready)
		cupti_cb_windows_give(&e->win, s->window);
	s->window = -1;
}

static void cb_set_free(void *self, void *set)
{
	struct cbset *s = set;
	if (!s)
		return;
	give_window(self, s);
	cupti_cb_ovf_disarm(&s->ovf, s->ovf_counters);
	cupti_cb_services_unhold(((struct cupti_cb_callback *)self)->svc, &s->hold);
	free(s);
}

/* How code is read, and where: its window entry (a new one for a function
 * not timed yet) or its row. -1 when the window would need more than
 * CUPTI_CB_WIN_SLOTS functions. */
static int plan_read(const struct cupti_cb_callback *e, uint32_t code, uint16_t *slots, unsigned *n_slots,
		     uint8_t *rd, uint8_t *at)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	int dev = CUPTI_CB_CODE_DEV(code);
	*rd = RD_COUNT;
	*at = 0;
	if (idx < cupti_cb_n_derived) {
		enum cupti_cb_read r = (enum cupti_cb_read)cupti_cb_derived_events[idx].read;
		if (r != CUPTI_CB_READ_COUNT) {
			*rd = r == CUPTI_CB_READ_LIVE ? RD_LIVE : RD_PEAK;
			*at = (uint8_t)(dev >= 0 ? (unsigned)dev : e->win.n_rows);
		}
		return 0;
	}
	enum cupti_cb_kind k = cupti_cb_kind_of(&e->cat, idx);
	if (k != CUPTI_CB_API_TIME_MIN && k != CUPTI_CB_API_TIME_MAX)
		return 0;
	*rd = k == CUPTI_CB_API_TIME_MIN ? RD_MIN : RD_MAX;
	uint16_t slot = (uint16_t)cupti_cb_slot_of_index(idx);
	unsigned j = 0;
	while (j < *n_slots && slots[j] != slot)
		j++;
	if (j == *n_slots) {
		if (*n_slots == CUPTI_CB_WIN_SLOTS)
			return -1;
		slots[(*n_slots)++] = slot;
	}
	*at = (uint8_t)j;
	return 0;
}

/* The events that stay keep their overflow thresholds, whatever their new
 * index (PAPI_add_event and PAPI_remove_event on a set with overflow). */
static void keep_thresholds(struct cbset *s, const uint32_t *codes, unsigned n)
{
	uint64_t thr[MAX_EVENTS];
	unsigned armed = 0;
	if (!s->n_ovf)
		return;
	for (unsigned i = 0; i < n; i++) {
		thr[i] = 0;
		for (unsigned j = 0; j < s->n; j++)
			if (s->codes[j] == codes[i])
				thr[i] = s->ovf_thr[j];
		armed += thr[i] != 0;
	}
	memcpy(s->ovf_thr, thr, n * sizeof thr[0]);
	memset(s->ovf_thr + n, 0, (MAX_EVENTS - n) * sizeof thr[0]);
	s->n_ovf = armed;
}

static int cb_set_update(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len)
{
	struct cupti_cb_callback *e = self;
	struct cbset *s = set;
	uint16_t slots[CUPTI_CB_WIN_SLOTS];
	uint8_t rd[MAX_EVENTS], at[MAX_EVENTS];
	unsigned n_slots = 0;
	int peaks = 0;
	if (n > MAX_EVENTS)
		return CUPTI_CB_EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (plan_read(e, codes[i], slots, &n_slots, &rd[i], &at[i])) {
			snprintf(why, len,
				 "An event set can time single calls (.time_ns_min, .time_ns_max) of at most %d "
				 "CUDA functions; this one asks for more: split it into several sets",
				 CUPTI_CB_WIN_SLOTS);
			return CUPTI_CB_ELIMIT;
		}
		peaks |= rd[i] == RD_PEAK;
	}
	for (unsigned i = 0; s->tid && i < n; i++) {
		char name[128] = "";
		cupti_cb_catalog_name(&e->cat, codes[i], name, sizeof name);
		if (CUPTI_CB_CODE_PROC(codes[i]) || s->granul_process) {
			snprintf(why, len, "%s counts the whole process: an event set attached to a thread "
				 "(PAPI_attach) takes thread-scope events only", name);
			return CUPTI_CB_ECOMBO;
		}
		if (rd[i] != RD_COUNT) {
			snprintf(why, len, "%s has no per-thread value to attach to: a minimum, maximum, live or "
				 "peak value is kept by the set that runs in the thread itself (or for the process)",
				 name);
			return CUPTI_CB_ECOMBO;
		}
	}
	if (n == 0)
		cupti_cb_services_unhold(e->svc, &s->hold);	/* nothing left to count */
	keep_thresholds(s, codes, n);
	s->hold_stale = 1;
	s->timed = 0;
	for (unsigned i = 0; i < n; i++) {
		s->codes[i] = codes[i];
		s->process[i] = (uint8_t)(CUPTI_CB_CODE_PROC(codes[i]) || s->granul_process);
		s->probes[i] = cupti_cb_callback_probe(e, codes[i]);
		s->timed |= s->probes[i].ticks;
		s->rd[i] = rd[i];
		s->at[i] = at[i];
	}
	s->n = n;
	memcpy(s->slots, slots, n_slots * sizeof slots[0]);
	s->n_slots = n_slots;
	s->peaks = peaks;
	s->wants_window = n_slots > 0 || peaks;
	return CUPTI_CB_OK;
}

static void cb_set_granularity(void *self, void *set, int process)
{
	struct cbset *s = set;
	(void)self;
	s->granul_process = process;
	for (unsigned i = 0; i < s->n; i++)
		s->process[i] = (uint8_t)(CUPTI_CB_CODE_PROC(s->codes[i]) || process);
}

static void cb_set_attach(void *self, void *set, long tid)
{
	(void)self;
	((struct cbset *)set)->tid = tid;
}

/* The counter sets of an attached set's thread, found again at each read: the
 * thread may get its counter set after the attach, and the kernel may reuse an
 * exited thread's id (then both counter sets count: the id's work). */
#define TID_BLOCKS 16
static uint64_t sum_tid(const struct cupti_cb_probe *p, const struct cupti_cb_thread_counters *const *bl, unsigned n)
{
	uint64_t v = 0;
	for (unsigned k = 0; k < n; k++)
		v += cupti_cb_probe_thread(p, bl[k]);
	return v;
}

/* Current counter values: thread-scope events from the starting thread's
 * counter set (or the attached thread's), process-scope ones in one pass over
 * all counter sets. */
static void sample(struct cupti_cb_callback *e, struct cbset *s)
{
	uint8_t process[MAX_EVENTS];
	int any_process = 0;
	const struct cupti_cb_thread_counters *bl[TID_BLOCKS];
	unsigned nb = 0;
	if (s->tid) {
		nb = cupti_cb_thread_registry_find(&e->svc->reg, s->tid, bl, TID_BLOCKS);
		nb = nb < TID_BLOCKS ? nb : TID_BLOCKS;
	}
	for (unsigned i = 0; i < s->n; i++) {
		process[i] = s->process[i] && s->rd[i] == RD_COUNT;
		if (s->rd[i] != RD_COUNT)
			continue;
		if (process[i])
			any_process = 1;
		else if (s->tid)
			s->now[i] = sum_tid(&s->probes[i], bl, nb);
		else
			s->now[i] = s->counters ? cupti_cb_probe_thread(&s->probes[i], s->counters) : 0;
	}
	if (any_process)
		cupti_cb_probe_process_many(s->probes, process, s->n, &e->svc->reg, s->now);
}

/* The level of a min, max, live or peak event now, in ticks or bytes. */
static uint64_t window_value(struct cupti_cb_callback *e, struct cbset *s, unsigned i)
{
	uint64_t min = CUPTI_CB_WIN_EMPTY, max = 0;
	if (s->rd[i] == RD_LIVE)
		return cupti_cb_windows_live(&e->win, s->at[i]);
	if (s->window < 0)
		return 0;
	if (s->rd[i] == RD_PEAK)
		return cupti_cb_windows_peak(&e->win, s->window, s->at[i]);
	if (s->process[i])
		cupti_cb_windows_entry_process(&e->win, s->window, &e->svc->reg, s->at[i], &min, &max);
	else if (s->counters &&
		 !cupti_cb_windows_entry(&e->win, s->window, s->counters->c, s->at[i], &min, &max))
		min = CUPTI_CB_WIN_EMPTY, max = 0;
	if (s->rd[i] == RD_MAX)
		return max;
	return min == CUPTI_CB_WIN_EMPTY ? 0 : min;
}

/* The counts start again from their values now. */
static void rebase_counts(struct cupti_cb_callback *e, struct cbset *s)
{
	sample(e, s);
	memcpy(s->base, s->now, s->n * sizeof s->base[0]);
	memset(s->ns, 0, s->n * sizeof s->ns[0]);
}

/* The windows go on: a level is sampled, and the next read gives its
 * change from here (cupti_cb_callback_windows.h). No lock, no window to restart. */
static int cb_set_reset(void *self, void *set)
{
	struct cupti_cb_callback *e = self;
	struct cbset *s = set;
	uint64_t ratio = cupti_cb_clock_ratio(&e->svc->clock);
	rebase_counts(e, s);
	for (unsigned i = 0; i < s->n; i++) {
		if (s->rd[i] == RD_COUNT)
			continue;
		/* A stopped set has no window: its levels start again at the next start. */
		if (s->rd[i] == RD_LIVE || s->window >= 0)
			cupti_cb_level_sample(&s->level[i], window_value(e, s, i), s->probes[i].ticks ? ratio : 0);
		cupti_cb_level_reset(&s->level[i]);
	}
	return CUPTI_CB_OK;
}

/* ---- overflow -------------------------------------------------------------- */

/* Why event i cannot drive an overflow, or NULL if it can. A crossing is
 * found on the thread that counts it, so the event must be a count of the
 * set's own thread; a time is kept in clock ticks that convert to ns only
 * at a read, and a level (min, max, live, peak) goes down as well as up. */
static const char *no_overflow(const struct cbset *s, unsigned i)
{
	if (s->tid)
		return "an event set attached to another thread (PAPI_attach) cannot overflow: the crossing "
		       "is found on the thread that makes the call";
	if (s->process[i])
		return "a process-wide event (:process or PAPI_GRN_PROC) cannot overflow: the crossing is "
		       "found on the thread that makes the call; overflow on the thread-scope event in each "
		       "thread's own set";
	if (s->rd[i] != RD_COUNT)
		return "a minimum, maximum, live or peak value is a level, not a count: it has no "
		       "threshold to cross";
	if (s->probes[i].ticks)
		return "a time (ns) event cannot overflow: overflow on a count (calls, bytes, launches)";
	return NULL;
}

static void name_of(struct cupti_cb_callback *e, uint32_t code, char *buf, size_t len)
{
	if (cupti_cb_catalog_name(&e->cat, code, buf, len) != CUPTI_CB_OK)
		snprintf(buf, len, "event %#x", code);
}

static int cb_set_overflow(void *self, void *set, unsigned ix, uint64_t threshold, int sig, char *why, size_t len)
{
	struct cupti_cb_callback *e = self;
	struct cbset *s = set;
	char name[128];
	if (ix >= s->n)
		return CUPTI_CB_EINVAL;
	if (threshold) {
		const char *no = no_overflow(s, ix);
		name_of(e, s->codes[ix], name, sizeof name);
		if (no) {
			snprintf(why, len, "%s: %s", name, no);
			return CUPTI_CB_EUNAVAIL;
		}
		if (!s->ovf_thr[ix] && s->n_ovf == CUPTI_CB_OVF_EVENTS) {
			snprintf(why, len, "%s: an event set overflows on at most %d events", name,
				 CUPTI_CB_OVF_EVENTS);
			return CUPTI_CB_ELIMIT;
		}
	}
	s->n_ovf += (threshold != 0) - (s->ovf_thr[ix] != 0);
	s->ovf_thr[ix] = threshold;
	s->ovf_sig = sig;
	return CUPTI_CB_OK;
}

/* At start: the events may have changed scope since PAPI_overflow
 * (PAPI_GRN_PROC, PAPI_attach). */
static int overflow_scope(struct cupti_cb_callback *e, struct cbset *s, char *why, size_t len)
{
	char name[128];
	for (unsigned i = 0; i < s->n; i++) {
		const char *no = s->ovf_thr[i] ? no_overflow(s, i) : NULL;
		if (no) {
			name_of(e, s->codes[i], name, sizeof name);
			snprintf(why, len, "%s: %s", name, no);
			return CUPTI_CB_ECOMBO;
		}
	}
	return CUPTI_CB_OK;
}

static void arm_overflow(struct cbset *s)
{
	struct cupti_cb_ovf *o = &s->ovf;
	o->n = 0;
	for (unsigned i = 0; i < s->n && o->n < CUPTI_CB_OVF_EVENTS; i++) {
		if (!s->ovf_thr[i])
			continue;
		o->ix[o->n] = (uint16_t)i;
		o->probe[o->n] = s->probes[i];
		o->threshold[o->n] = s->ovf_thr[i];
		o->n++;
	}
	s->ovf_counters = s->counters;
	cupti_cb_ovf_arm(o, s->counters, s->ovf_sig);
}

static int cb_set_overflow_take(void *self, void *set, unsigned ix)
{
	struct cbset *s = set;
	(void)self;
	for (unsigned k = 0; k < s->ovf.n; k++)
		if (s->ovf.ix[k] == ix)
			return cupti_cb_ovf_take(&s->ovf, k);
	return 0;
}

static int cb_set_start(void *self, void *set, char *why, size_t len)
{
	struct cupti_cb_callback *e = self;
	struct cbset *s = set;
	int rc;
	if (s->hold_stale || !s->hold.active) {
		rc = cupti_cb_callback_hold(e, &s->hold, s->codes, s->n, why, len);
		if (rc)
			return rc;
		s->hold_stale = 0;
	}
	if (s->n_ovf && (rc = overflow_scope(e, s, why, len)) != CUPTI_CB_OK)
		return rc;
	if (s->tid) {
		/* Attached: the thread's counts since its first counted call
		 * (cupti_cb_source.h); the reading thread takes no counter set. */
		s->counters = NULL;
		rebase_counts(e, s);
		memset(s->base, 0, s->n * sizeof s->base[0]);
		return CUPTI_CB_OK;
	}
	s->counters = cupti_cb_services_thread_counters(e->svc);
	if (!s->counters)
		return CUPTI_CB_ENOMEM;
	if (s->wants_window && s->window < 0) {
		s->window = cupti_cb_windows_take(&e->win, s->slots, s->n_slots, s->peaks);
		if (s->window < 0) {
			snprintf(why, len,
				 "At most %d running event sets may hold .time_ns_min, .time_ns_max or "
				 "alloc.peak_bytes events at once, and that many are running: stop one first",
				 CUPTI_CB_N_WINDOWS);
			return CUPTI_CB_ELIMIT;
		}
	}
	rebase_counts(e, s);
	/* Levels count from 0: a read with no reset since the start gives the
	 * level itself (the live bytes now, the peak since the start). */
	for (unsigned i = 0; i < s->n; i++)
		cupti_cb_level_start(&s->level[i]);
	if (s->n_ovf)
		arm_overflow(s);
	return CUPTI_CB_OK;
}

/* Differences of raw counters. Time counters convert only the ticks since
 * the last read, and add them: the ratio is refined during the first
 * second, and a value must never go down between reads. */
static int cb_set_read(void *self, void *set, long long *values)
{
	struct cupti_cb_callback *e = self;
	struct cbset *s = set;
	uint64_t ratio = 0;
	sample(e, s);
	for (unsigned i = 0; s->tid && i < s->n; i++)
		if (s->now[i] < s->base[i])	/* its counter set was adopted away (cupti_cb_thread_counters.h) */
			s->base[i] = s->now[i];
	if (s->timed) {
		cupti_cb_clock_calibrate(&e->svc->clock);
		ratio = cupti_cb_clock_ratio(&e->svc->clock);	/* one ratio for the whole read */
	}
	for (unsigned i = 0; i < s->n; i++) {
		if (s->rd[i] != RD_COUNT) {
			values[i] = cupti_cb_level_sample(&s->level[i], window_value(e, s, i),
							  s->probes[i].ticks ? ratio : 0);
		} else if (s->probes[i].ticks) {
			s->ns[i] += cupti_cb_clock_ticks_to_ns(ratio, s->now[i] - s->base[i]);
			s->base[i] = s->now[i];
			values[i] = (long long)s->ns[i];
		} else {
			values[i] = (long long)(s->now[i] - s->base[i]);
		}
	}
	return CUPTI_CB_OK;
}

/* The set keeps its callbacks enabled until it is cleaned up: see struct
 * cupti_cb_hold. Its window goes back (PAPI keeps the values of the stop). */
static int cb_set_stop(void *self, void *set)
{
	struct cbset *s = set;
	cupti_cb_ovf_disarm(&s->ovf, s->ovf_counters);
	s->ovf_counters = NULL;
	give_window(self, set);
	return CUPTI_CB_OK;
}

/* The callback counters' codes are the component's first ones, with no
 * source bits: the source is first in the list. Its state is the engine's
 * (the catalogue, the counters, the hot path). */
static void *cb_open(struct cupti_cb_services *services, unsigned id)
{
	if (id != 0)
		return NULL;
	struct cupti_cb_callback *cb = calloc(1, sizeof *cb);
	if (!cb)
		return NULL;
	cupti_cb_callback_attach(cb, services);
	return cb;
}

/* A fork() child: the windows' lock may be held by a thread that is gone. */
static void cb_after_fork_child(void *self)
{
	struct cupti_cb_callback *cb = self;
	if (cb->ready)
		pthread_mutex_init(&cb->win.lock, NULL);
}

const struct cupti_cb_source_ops cupti_cb_callback_source = {
	.label = "callback",
	.open = cb_open,
	.after_fork_child = cb_after_fork_child,
	.may_be_ours = cb_may_be_ours,
	.may_be_near = cb_may_be_near,
	.opened = cb_opened,
	.first = cb_first,
	.next = cb_next,
	.lookup = cb_lookup,
	.qualifiers = cb_qualifiers,
	.devices = cb_devices,
	.base_name = cb_base_name,
	.descr = cb_descr,
	.qualifier_descr = cb_qualifier_descr,
	.facts = cb_facts,
	.valid = cb_valid,
	.why = cb_why,
	.count = cb_count,
	.close = cb_close,
	.set_new = cb_set_new,
	.set_free = cb_set_free,
	.set_update = cb_set_update,
	.set_granularity = cb_set_granularity,
	.set_attach = cb_set_attach,
	.set_start = cb_set_start,
	.set_read = cb_set_read,
	.set_stop = cb_set_stop,
	.set_reset = cb_set_reset,
	.set_overflow = cb_set_overflow,
	.set_overflow_take = cb_set_overflow_take,
};
