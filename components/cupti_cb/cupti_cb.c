/* cupti_cb.c: the PAPI vector. An adapter only: it routes each event to the
 * source in its code (cupti_cb_source.h), gathers the sources' values into
 * PAPI's positions, and turns their errors into PAPI error codes. It never
 * calls CUPTI itself. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"	/* the overflow signal: _papi_hwi_start_signal, _papi_hwi_dispatch_overflow_signal */

#include "cupti_cb.h"
#include "cupti_cb_services.h"
#include "cupti_cb_overflow.h"
#include "cupti_cb_signal_context.h"
#include "cupti_cb_sources.h"
#include "cupti_cb_suggest.h"
#include "cupti_cb_tap.h"

#define PACKAGE_VERSION_CUPTI_CB "0.3.0"

/* The commit the build was made from (configure passes it). */
#ifndef CUPTI_CB_COMMIT
#define CUPTI_CB_COMMIT "unknown"
#endif

papi_vector_t _cupti_cb_vector;

typedef struct {
	int unused;
} cupti_cb_context_t;

#define MAX_SET CUPTI_CB_SET_MAX

/* Events sit at fixed positions: PAPI 7.0's PAPI_remove_event keeps the
 * positions it knew for the remaining events (it does not remap them), so
 * an event keeps its ni_position for as long as it stays in the set. Each
 * position says which source counts it and where in that source's list. */
/* What sits at one position. */
struct cupti_cb_pos {
	uint32_t code;
	int papi_code;			/* the PAPI code it was added with */
	uint8_t used;
	uint8_t src;			/* the source that counts it */
	uint16_t ix;			/* its index in that source's list */
};

typedef struct {
	unsigned n;			/* events */
	unsigned width;			/* positions in use: 0 .. width-1 */
	unsigned cap;			/* positions the arrays below have room for */
	int running;
	int granul_process;		/* PAPI_GRN_PROC */
	long attach_tid;		/* PAPI_attach: the kernel thread read (0: none) */
	void *set[CUPTI_CB_MAX_SOURCES];	/* each source's own state, made at its first event */
	unsigned n_src[CUPTI_CB_MAX_SOURCES];
	/* Sized by cap, grown by update_control_state: a set of 3 events costs
	 * a few hundred bytes, one of every per-API event (cupti_cb_run's)
	 * what it needs, and PAPI's own allocation stays small. */
	struct cupti_cb_pos *at;	/* by position */
	uint8_t *taken;			/* scratch of update_control_state */
	uint32_t *src_codes[CUPTI_CB_MAX_SOURCES];
	long long *src_values[CUPTI_CB_MAX_SOURCES];
	long long *values;		/* by position, handed to PAPI */
	/* A read, reset or stop of this set is under way on its thread: a
	 * signal handler that interrupts it and calls PAPI on the same set
	 * must not touch the sources' half-updated state (guard_enter). */
	volatile sig_atomic_t busy;
	/* PAPI_overflow: the positions armed (bit p: position p; PAPI's
	 * overflow vector has one bit per position, so p < 63). The set holds
	 * a use of the overflow signal (_papi_hwi_start_signal) while some are. */
	uint64_t ovf_mask;
} cupti_cb_control_t;

/* One services per process: CUPTI allows one subscriber per process. It is
 * the shared services and the callback source's state. */
static struct cupti_cb_services services;
/* The sources of cupti_cb_sources.c, by the source bits of their codes;
 * ops NULL: a source that could not be made (out of memory). */
static struct cupti_cb_source sources[CUPTI_CB_MAX_SOURCES];
static unsigned n_sources;

#define SRC(c) (&sources[CUPTI_CB_CODE_SRC(c)])
#define FOR_SOURCES(s) for (struct cupti_cb_source *s = sources; s < sources + n_sources; s++)

static void tell_sources(enum cupti_cb_stage stage)
{
	FOR_SOURCES(s)
		if (s->ops)
			s->ops->opened(s->self, stage);
}

static int count_events(void)
{
	unsigned n = 0;
	FOR_SOURCES(s)
		if (s->ops)
			n += s->ops->count(s->self);
	return (int)n;
}
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- lazy initialization -------------------------------------------------- */

/* Any non-zero value other than PAPI_EDELAY_INIT marks the component
 * disabled. PAPI 7.3 (upstream after 7.2.0) returns this value from
 * PAPI_event_name_to_code and PAPI_add_named_event for a "cupti_cb:::" name;
 * 7.0 to 7.2 skip the disabled component and return PAPI_ENOEVNT. Storing
 * PAPI_ENOEVNT keeps the answer for a disabled component the same on all. */
static void set_disabled(const char *why)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	/* PAPI up to 7.2 only tests this for non-zero; HEAD returns it from a
	 * name lookup of a disabled component, so it is the code users see:
	 * "no such event", the same on every version. */
	ci->disabled = PAPI_ENOEVNT;
	snprintf(ci->disabled_reason, sizeof ci->disabled_reason, "%s", why);
}

/* How far the component is open, for the fast path without the lock:
 * 0 nothing, 1 catalogue, 2 driver (ready), -1 disabled. PAPI's own
 * cmp_info.disabled is only written under init_lock. */
static atomic_int stage;

#define DESCRIPTION "CUDA API calls, launches, bytes, syncs (CUPTI callbacks) and GPU hardware metrics (CUPTI profiler)"

/* Once libcupti is loaded, the description (papi_component_avail's
 * "Active components") says which one, its version, and whether cupti_cb
 * shares CUPTI with other subscribers; the path is cut at PAPI's 128
 * bytes, CUPTI_CB_TRACE=1 prints it whole. */
static void describe(void)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	char d[CUPTI_CB_WHY_LEN + 256];
	if (cupti_cb_services_describe(&services, d, sizeof d)) {
		snprintf(ci->description, sizeof ci->description, "%s", DESCRIPTION);
		return;
	}
	size_t n = strnlen(d, sizeof ci->description - 1);	/* cut on purpose */
	memcpy(ci->description, d, n);
	ci->description[n] = '\0';
}

static void set_stage_from_engine(void)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	describe();
	switch (services.state) {
	case CUPTI_CB_READY:
		ci->disabled = 0;
		ci->disabled_reason[0] = '\0';
		tell_sources(CUPTI_CB_STAGE_NAMES);
		tell_sources(CUPTI_CB_STAGE_DRIVER);
		ci->num_native_events = count_events();
		atomic_store(&stage, 2);
		break;
	case CUPTI_CB_CATALOG:
		/* libcupti and libcuda load: the component is active; cuInit
		 * and the rest wait until they are needed. Without a driver
		 * (CUPTI_CB_CHIP names a chip) it lists its events but cannot
		 * add any: PAPI_EDELAY_INIT keeps it listed and its names
		 * resolving (PAPI asks such a component), while
		 * papi_component_avail shows it disabled, with the reason. */
		ci->disabled = services.listing_only[0] ? PAPI_EDELAY_INIT : 0;
		snprintf(ci->disabled_reason, sizeof ci->disabled_reason, "%s", services.listing_only);
		tell_sources(CUPTI_CB_STAGE_NAMES);
		ci->num_native_events = count_events();
		atomic_store(&stage, 1);
		break;
	case CUPTI_CB_DISABLED:
		set_disabled(services.why);
		atomic_store(&stage, -1);
		break;
	default:
		break;
	}
}

/* The catalogue: libcupti's name table only. Nothing here touches the
 * driver or a GPU, so name lookups and listings start no CUDA. The call
 * that disables the component says why under PAPI_VERBOSE: PAPI asks a
 * disabled component nothing more, and answers later lookups itself
 * ("Event does not exist"). */
static int ensure_catalog(void)
{
	int st = atomic_load(&stage), failed = 0;
	if (st > 0)
		return PAPI_OK;
	if (st < 0)
		return PAPI_ECMP_DISABLED;
	pthread_mutex_lock(&init_lock);
	if (services.state == CUPTI_CB_UNINIT) {
		failed = cupti_cb_services_open_catalog(&services) != 0;
		set_stage_from_engine();
	}
	pthread_mutex_unlock(&init_lock);
	if (failed && !cupti_cb_in_signal_context())
		PAPIERROR("cupti_cb: %s", _cupti_cb_vector.cmp_info.disabled_reason);
	return atomic_load(&stage) > 0 ? PAPI_OK : PAPI_ECMP_DISABLED;
}

/* Why nothing can be added: a driver stage that failed, or a catalogue
 * opened without a driver. Said under PAPI_VERBOSE once per process, with
 * the first name refused (what): every later add is refused for the same
 * reason (papi_native_avail -c tries them all). Never in a signal handler. */
static int refuse_disabled(const char *what)
{
	static atomic_int said;
	const char *why = services.listing_only[0] ? services.listing_only : _cupti_cb_vector.cmp_info.disabled_reason;
	if (!cupti_cb_in_signal_context() && !atomic_exchange(&said, 1))
		PAPIERROR("cupti_cb: %s refused: %s", what, why[0] ? why : "the component is disabled");
	return PAPI_ECMP_DISABLED;
}

/* The driver stage: cuInit, the device count, the subscriber probe. Needed
 * by the first add of an event to a set, a :device=N name, and the listing
 * of device qualifiers. quiet: a failure is remembered but does not
 * disable the component yet (listing goes on without device qualifiers;
 * the first add then reports it). */
static int ensure_ready_quiet(int quiet)
{
	int st = atomic_load(&stage);
	if (st == 2)
		return PAPI_OK;
	if (st < 0 || ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	pthread_mutex_lock(&init_lock);
	if (services.state == CUPTI_CB_CATALOG && cupti_cb_services_open(&services) && quiet) {
		/* The sources list no device qualifier: they know no device count. */
	} else if (quiet && services.state == CUPTI_CB_DISABLED && atomic_load(&stage) == 1) {
		/* Failed quietly before: a listing goes on without the driver;
		 * the first add reports why. */
	} else if (atomic_load(&stage) >= 0) {
		set_stage_from_engine();
	}
	pthread_mutex_unlock(&init_lock);
	return atomic_load(&stage) == 2 ? PAPI_OK : PAPI_ECMP_DISABLED;
}

static int ensure_ready(void)
{
	return ensure_ready_quiet(0);
}

static int papi_error(int rc)
{
	switch (rc) {
	case CUPTI_CB_OK:
		return PAPI_OK;
	case CUPTI_CB_ENOEVNT:
		return PAPI_ENOEVNT;
	case CUPTI_CB_ENOMEM:
		return PAPI_ENOMEM;
	case CUPTI_CB_ECONFLICT:
		return PAPI_ECNFLCT;
	case CUPTI_CB_ECUPTI:
		return PAPI_ECMP;
	case CUPTI_CB_EPASSES:
	case CUPTI_CB_ELIMIT:
		return PAPI_ECNFLCT;
	case CUPTI_CB_EUNAVAIL:
		return PAPI_ENOSUPP;
	case CUPTI_CB_EPERM:
		return PAPI_EPERM;
	case CUPTI_CB_ECOMBO:
		return PAPI_ECOMBO;
	case CUPTI_CB_EINCOMPLETE:
		return PAPI_ECLOST;	/* "access to the counters was lost": some of the counts are */
	default:
		return PAPI_EINVAL;
	}
}

/* ---- component and thread ------------------------------------------------ */

/* fork(): the child has only the forking thread, and locks held by other
 * threads of the parent stay held for ever. Waiting for them in a prepare
 * handler would make fork() wait on a thread inside CUPTI; instead the
 * child takes fresh locks, and disables the component where CUDA was
 * initialized (CUDA cannot be used after fork) or where another thread
 * was in the middle of opening it. Before that, a child works as usual. */
static void at_fork_child(void)
{
	int busy = pthread_mutex_trylock(&init_lock) != 0;
	pthread_mutex_init(&init_lock, NULL);
	if (services.state == CUPTI_CB_READY)
		FOR_SOURCES(s)
			if (s->ops && s->ops->after_fork_child)
				s->ops->after_fork_child(s->self);
	if (cupti_cb_services_fork_child(&services, busy))
		set_stage_from_engine();
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void register_fork_handlers(void)
{
	pthread_atfork(NULL, NULL, at_fork_child);
}

/* Each source of the list over the shared services, once per process. */
static void open_sources(void)
{
	for (unsigned i = 0; cupti_cb_sources[i] && i < CUPTI_CB_MAX_SOURCES; i++) {
		const struct cupti_cb_source_ops *ops = cupti_cb_sources[i];
		void *self = ops->open(&services, i);
		sources[i] = (struct cupti_cb_source){ self ? ops : NULL, self, i };
		n_sources = i + 1;
	}
}

static int cupti_cb_init_component(int cidx)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	pthread_once(&fork_once, register_fork_handlers);
	ci->CmpIdx = cidx;
	/* SIGRTMIN is a function of glibc: set here, not in the vector. */
	ci->hardware_intr_sig = SIGRTMIN + CUPTI_CB_OVF_SIGNAL_OFFSET;
	if (!n_sources)
		open_sources();
	cupti_cb_tap_bind(&services);
	ci->num_native_events = 0;
	snprintf(ci->version, sizeof ci->version, "%s (commit %s)", PACKAGE_VERSION_CUPTI_CB, CUPTI_CB_COMMIT);
	/* The services may outlive a PAPI_shutdown: then it is ready at once. */
	ci->disabled = services.state == CUPTI_CB_READY ? 0 : PAPI_EDELAY_INIT;
	snprintf(ci->disabled_reason, sizeof ci->disabled_reason, "%s",
		 ci->disabled ? "Initialization delayed until first use" : "");
	if (services.state == CUPTI_CB_READY) {
		cupti_cb_services_reattach(&services);
		set_stage_from_engine();
	} else if (services.state == CUPTI_CB_DISABLED || services.state == CUPTI_CB_CATALOG) {
		/* A fork() child, or an earlier failure: say why at once. */
		set_stage_from_engine();
	}
	return PAPI_OK;
}

static int cupti_cb_init_thread(hwd_context_t *ctx)
{
	(void)ctx;
	return PAPI_OK;
}

static int cupti_cb_shutdown_thread(hwd_context_t *ctx)
{
	(void)ctx;
	return PAPI_OK;
}

/* Lets go of CUPTI. The catalogue and the counter sets stay: threads of
 * the application still point at their counter sets, and a later
 * PAPI_library_init reuses them. */
static int cupti_cb_shutdown_component(void)
{
	/* The metric source first: its sessions use the services's subscription. */
	for (int i = (int)n_sources - 1; i >= 0; i--)
		if (sources[i].ops)
			sources[i].ops->close(sources[i].self);
	cupti_cb_services_close(&services);
	return PAPI_OK;
}



/* ---- event sets ---------------------------------------------------------- */

static int cupti_cb_init_control_state(hwd_control_state_t *ctl)
{
	memset(ctl, 0, sizeof(cupti_cb_control_t));
	return PAPI_OK;
}

static void *grow_array(void *p, size_t elem, unsigned old, unsigned cap)
{
	unsigned char *q = realloc(p, elem * cap);
	if (q)
		memset(q + elem * old, 0, elem * (cap - old));
	return q;
}

/* Room for positions 0 .. need-1 in every array (need <= MAX_SET). */
static int grow(cupti_cb_control_t *c, unsigned need)
{
	if (need <= c->cap)
		return PAPI_OK;
	unsigned cap = c->cap ? c->cap : 16;
	while (cap < need)
		cap *= 2;
	if (cap > MAX_SET)
		cap = MAX_SET;
#define GROW(field) do { \
		void *q_ = grow_array(c->field, sizeof *c->field, c->cap, cap); \
		if (!q_) \
			return PAPI_ENOMEM; \
		c->field = q_; \
	} while (0)
	GROW(at);
	GROW(taken);
	GROW(values);
	for (unsigned i = 0; i < n_sources; i++) {
		GROW(src_codes[i]);
		GROW(src_values[i]);
	}
#undef GROW
	c->cap = cap;
	return PAPI_OK;
}

static void free_arrays(cupti_cb_control_t *c)
{
	free(c->at);
	free(c->taken);
	free(c->values);
	for (unsigned i = 0; i < n_sources; i++) {
		free(c->src_codes[i]);
		free(c->src_values[i]);
	}
}

/* Keeps the position PAPI already knows for an event; gives new events the
 * lowest free position from *next on (positions below it are taken). There
 * is always one: count <= cap. */
static unsigned place(const cupti_cb_control_t *c, int known, unsigned *next)
{
	if (known >= 0 && (unsigned)known < c->cap && !c->taken[known])
		return (unsigned)known;
	while (*next < c->cap - 1 && c->taken[*next])
		(*next)++;
	return *next;
}

/* PAPI's remove_native_events (7.0 to HEAD) compacts NativeInfoArray by
 * copying ni_event, ni_position and ni_owners, but not ni_papi_code: a moved
 * entry keeps the removed event's PAPI code. PAPI hands out a new code for
 * the same event at every enumeration step and synonym lookup, so the right
 * code cannot be found by searching; it is the one the event was added
 * with, which this set keeps by position (positions never move). */
static void repair_papi_code(cupti_cb_control_t *c, NativeInfo_t *ni)
{
	int pos = ni->ni_position;
	if (pos < 0 || (unsigned)pos >= c->width || !c->at[pos].used || c->at[pos].code != (uint32_t)ni->ni_event)
		return;	/* a new event: PAPI's code is the one it was added with */
	ni->ni_papi_code = c->at[pos].papi_code;
}

static int check_codes(const NativeInfo_t *native, int count)
{
	for (int i = 0; i < count; i++) {
		uint32_t code = (uint32_t)native[i].ni_event;
		struct cupti_cb_source *s = SRC(code);
		if (CUPTI_CB_CODE_SRC(code) >= n_sources || !s->ops || !s->ops->valid(s->self, code))
			return PAPI_ENOEVNT;
	}
	return PAPI_OK;
}

/* Each source is told its events, in position order; a source refuses a
 * set it cannot count as a whole (a metric set needing several passes). */
static int update_sources(cupti_cb_control_t *c)
{
	for (unsigned i = 0; i < n_sources; i++) {
		struct cupti_cb_source *s = &sources[i];
		if (!c->n_src[i] && !c->set[i])
			continue;
		if (c->attach_tid && c->n_src[i] && !s->ops->set_attach) {
			PAPIERROR("cupti_cb: the %s events have no per-thread value: an event set attached to a "
				  "thread (PAPI_attach) cannot count them", s->ops->label);
			return PAPI_ECOMBO;
		}
		if (!c->set[i] && !(c->set[i] = s->ops->set_new(s->self)))
			return PAPI_ENOMEM;
		s->ops->set_granularity(s->self, c->set[i], c->granul_process);
		if (s->ops->set_attach)
			s->ops->set_attach(s->self, c->set[i], c->attach_tid);
		char why[CUPTI_CB_WHY_LEN] = "";
		int rc = s->ops->set_update(s->self, c->set[i], c->src_codes[i], c->n_src[i], why, sizeof why);
		if (rc) {
			PAPIERROR("cupti_cb: %s", why[0] ? why : "the event set cannot be counted");
			return papi_error(rc);
		}
	}
	return PAPI_OK;
}

/* The highest position PAPI knows of, plus one, or count. */
static unsigned room_needed(const NativeInfo_t *native, int count)
{
	unsigned need = (unsigned)count;
	for (int i = 0; i < count; i++)
		if (native[i].ni_position >= 0 && (unsigned)native[i].ni_position + 1 > need)
			need = (unsigned)native[i].ni_position + 1;
	return need < MAX_SET ? need : MAX_SET;
}

static int cupti_cb_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native, int count,
					 hwd_context_t *ctx)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx;
	cupti_cb_signal_context_mark();	/* the thread's own code (cupti_cb_signal_context.h) */
	if (count > MAX_SET)
		return PAPI_ECOUNT;
	if (count > 0 && ensure_ready() != PAPI_OK) {
		char what[PAPI_MAX_STR_LEN + 16] = "an event";
		struct cupti_cb_source *s = SRC(native[count - 1].ni_event);
		if (CUPTI_CB_CODE_SRC(native[count - 1].ni_event) < n_sources && s->ops &&
		    cupti_cb_event_name(s, (uint32_t)native[count - 1].ni_event, what + 1, sizeof what - 2) == 0) {
			what[0] = '\'';
			strcat(what, "'");
		}
		return refuse_disabled(what);
	}
	int rc = check_codes(native, count);
	if (rc)
		return rc;
	if (count > 0 && (rc = grow(c, room_needed(native, count))) != PAPI_OK)
		return rc;
	for (int i = 0; i < count; i++)
		repair_papi_code(c, &native[i]);
	/* Work in proportion to the set (PAPI calls this at every add). */
	if (c->width)
		memset(c->taken, 0, c->width);
	for (unsigned p = 0; p < c->width; p++)
		c->at[p].used = 0;
	memset(c->n_src, 0, sizeof c->n_src);
	unsigned old_width = c->width, next = 0;
	c->width = 0;
	for (int i = 0; i < count; i++) {
		unsigned pos = place(c, native[i].ni_position, &next);
		c->taken[pos] = 1;
		native[i].ni_position = (int)pos;
		c->at[pos].code = (uint32_t)native[i].ni_event;
		c->at[pos].papi_code = native[i].ni_papi_code;
		c->at[pos].used = 1;
		if (pos + 1 > c->width)
			c->width = pos + 1;
	}
	/* Each source's list follows position order. */
	for (unsigned p = 0; p < c->width; p++) {
		if (!c->at[p].used)
			continue;
		unsigned src = CUPTI_CB_CODE_SRC(c->at[p].code);
		c->at[p].src = (uint8_t)src;
		c->at[p].ix = (uint16_t)c->n_src[src];
		c->src_codes[src][c->n_src[src]++] = c->at[p].code;
	}
	c->n = (unsigned)count;
	unsigned clear = c->width > old_width ? c->width : old_width;
	if (clear)
		memset(c->values, 0, clear * sizeof c->values[0]);
	return update_sources(c);
}

/* ---- overflow (cupti_cb_overflow.h) --------------------------------------- */

static void name_at(const struct cupti_cb_pos *at, char *buf, size_t len)
{
	if (cupti_cb_event_name(&sources[at->src], at->code, buf, len) != CUPTI_CB_OK)
		snprintf(buf, len, "event %#x", at->code);
}

/* The position of an event of the set, or -1. */
static int position_of(const EventSetInfo_t *ESI, int EventIndex)
{
	const cupti_cb_control_t *c = ESI->ctl_state;
	int pos = ESI->EventInfoArray[EventIndex].pos[0];
	return pos >= 0 && (unsigned)pos < c->width && c->at[pos].used ? pos : -1;
}

/* Whether the event at pos may drive an overflow; a sentence if not. */
static int may_overflow(const cupti_cb_control_t *c, int pos)
{
	const struct cupti_cb_pos *at = &c->at[pos];
	char name[PAPI_MAX_STR_LEN];
	if (sources[at->src].ops->set_overflow && pos < 63)
		return PAPI_OK;
	name_at(at, name, sizeof name);
	if (!sources[at->src].ops->set_overflow)
		PAPIERROR("cupti_cb: %s cannot drive PAPI_overflow: %s", name, sources[at->src].ops->no_overflow_why);
	else
		PAPIERROR("cupti_cb: %s cannot drive PAPI_overflow: it is event %d of its event set, and "
			  "PAPI's overflow vector has room for the first 63 only; add it earlier", name, pos + 1);
	return PAPI_ENOSUPP;
}

/* PAPI_overflow (and PAPI_start again after another set used the thread's
 * context). threshold 0: no longer. */
static int cupti_cb_set_overflow(EventSetInfo_t *ESI, int EventIndex, int threshold)
{
	cupti_cb_control_t *c = ESI->ctl_state;
	int pos = position_of(ESI, EventIndex);
	if (pos < 0)
		return PAPI_EINVAL;
	if (threshold > 0 && may_overflow(c, pos) != PAPI_OK)
		return PAPI_ENOSUPP;
	if (threshold <= 0 && !(c->ovf_mask >> pos & 1))
		return PAPI_OK;
	const struct cupti_cb_pos *at = &c->at[pos];
	struct cupti_cb_source *s = &sources[at->src];
	int sig = _cupti_cb_vector.cmp_info.hardware_intr_sig;
	char why[CUPTI_CB_WHY_LEN] = "";
	int rc = s->ops->set_overflow(s->self, c->set[at->src], at->ix, threshold > 0 ? (uint64_t)threshold : 0,
				      sig, why, sizeof why);
	if (rc) {
		PAPIERROR("cupti_cb: %s", why[0] ? why : "the event cannot drive PAPI_overflow");
		return papi_error(rc);
	}
	uint64_t was = c->ovf_mask;
	if (threshold > 0)
		c->ovf_mask |= 1ull << pos;
	else
		c->ovf_mask &= ~(1ull << pos);
	if (!was && c->ovf_mask && (rc = _papi_hwi_start_signal(sig, 1, _cupti_cb_vector.cmp_info.CmpIdx)) != PAPI_OK) {
		/* No handler: the set must not raise a signal nobody takes. */
		c->ovf_mask = 0;
		s->ops->set_overflow(s->self, c->set[at->src], at->ix, 0, sig, why, sizeof why);
		return rc;
	}
	if (was && !c->ovf_mask)
		_papi_hwi_stop_signal(sig);
	return PAPI_OK;
}

/* One pending crossing of every armed event that has one, as PAPI's
 * overflow vector (0: none left). */
static long long take_crossings(cupti_cb_control_t *c)
{
	long long vector = 0;
	for (uint64_t m = c->ovf_mask; m; m &= m - 1) {
		int pos = __builtin_ctzll(m);
		const struct cupti_cb_pos *at = &c->at[pos];
		const struct cupti_cb_source *s = &sources[at->src];
		if (at->used && s->ops->set_overflow_take &&
		    s->ops->set_overflow_take(s->self, c->set[at->src], at->ix))
			vector |= 1ll << pos;
	}
	return vector;
}

/* The overflow signal's handler (PAPI installs it): the thread's running
 * set hands PAPI one overflow per crossing its last call made. Under
 * PAPI_OVERFLOW_FORCE_SW it is PAPI's timer signal instead, and PAPI
 * compares the values read against its own deadlines. */
static void cupti_cb_dispatch_timer(int sig, hwd_siginfo_t *info, void *uc)
{
	int cidx = _cupti_cb_vector.cmp_info.CmpIdx;
	ThreadInfo_t *t = _papi_hwi_lookup_thread(0);
	EventSetInfo_t *esi = t ? t->running_eventset[cidx] : NULL;
	(void)sig;
	if (!esi || !(esi->state & PAPI_OVERFLOWING))
		return;
	_papi_hwi_context_t ctx = { .si = info, .ucontext = (hwd_ucontext_t *)uc };
	vptr_t address = GET_OVERFLOW_ADDRESS(ctx);
	if (esi->overflow.flags & PAPI_OVERFLOW_FORCE_SW) {
		_papi_hwi_dispatch_overflow_signal(&ctx, address, NULL, 0, 0, &t, cidx);
		return;
	}
	/* A call that crossed k thresholds of an event owes k overflows; the
	 * handler may stop the set on the way. */
	long long vector;
	while (t->running_eventset[cidx] == esi && (vector = take_crossings(esi->ctl_state)) != 0) {
		int hw = 0;
		_papi_hwi_dispatch_overflow_signal(&ctx, address, &hw, vector, 0, &t, cidx);
	}
}

/* PAPI_OVERFLOW_FORCE_SW never reaches set_overflow: PAPI samples the set
 * from its timer signal. Events whose values do not move during a CUDA
 * call would record nothing there, so their start is refused. */
static int check_forced_software(cupti_cb_control_t *c)
{
	int cidx = _cupti_cb_vector.cmp_info.CmpIdx;
	ThreadInfo_t *t = _papi_hwi_lookup_thread(0);
	EventSetInfo_t *esi = t ? t->running_eventset[cidx] : NULL;
	if (!esi || esi->ctl_state != (hwd_control_state_t *)c || !(esi->state & PAPI_OVERFLOWING) ||
	    !(esi->overflow.flags & PAPI_OVERFLOW_FORCE_SW))
		return PAPI_OK;
	for (int i = 0; i < esi->overflow.event_counter; i++) {
		int pos = position_of(esi, esi->overflow.EventIndex[i]);
		if (pos >= 0 && !sources[c->at[pos].src].ops->set_overflow)
			return may_overflow(c, pos);
	}
	return PAPI_OK;
}

static void stop_sources(cupti_cb_control_t *c, unsigned upto)
{
	for (unsigned i = 0; i < upto; i++)
		if (c->n_src[i])
			sources[i].ops->set_stop(sources[i].self, c->set[i]);
}

/* A source's failure, said under PAPI_VERBOSE. In a signal handler
 * nothing is printed and the reason is not even asked for: a source makes
 * its sentence with snprintf, which is not async-signal-safe either.
 * Asked only on a failure: a read of callback events makes no system
 * call. */
static int source_failed(unsigned i, cupti_cb_control_t *c, int rc, const char *what)
{
	const struct cupti_cb_source_ops *ops = sources[i].ops;
	if (cupti_cb_in_signal_context())
		return papi_error(rc);
	const char *why = ops->set_why ? ops->set_why(sources[i].self, c->set[i]) : "";
	PAPIERROR("cupti_cb: %s of the %s events failed: %s", what, ops->label, why && why[0] ? why : "no reason given");
	return papi_error(rc);
}

/* Stop or reset: the sources that may refuse in a signal handler (the
 * metric source) are asked first, then the others, which never refuse: a
 * refusal then leaves every source as it was. (Asked in any other order,
 * the activity source had already reset its window when the metric source
 * refused, and a handler's refused PAPI_reset lost gpu.* counts.) The
 * first error is returned. */
static int each_source_refusers_first(cupti_cb_control_t *c, int (*op)(const struct cupti_cb_source *, void *),
				      const char *what)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n_sources; i++) {
			if (!c->n_src[i] || (sources[i].ops->may_refuse_in_handler ? 0 : 1) != pass)
				continue;
			int rc = op(&sources[i], c->set[i]);
			if (rc != CUPTI_CB_OK)
				return source_failed(i, c, rc, what);
		}
	return PAPI_OK;
}

static int stop_one(const struct cupti_cb_source *s, void *set)
{
	return s->ops->set_stop(s->self, set);
}

static int reset_one(const struct cupti_cb_source *s, void *set)
{
	return s->ops->set_reset(s->self, set);
}

static int cupti_cb_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx;
	cupti_cb_signal_context_mark();	/* the thread's own code: the reference of its signal mask */
	if (ensure_ready() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	int rc = check_forced_software(c);
	if (rc != PAPI_OK)
		return rc;
	for (unsigned i = 0; i < n_sources; i++) {
		if (!c->n_src[i])
			continue;
		char why[CUPTI_CB_WHY_LEN] = "";
		int rc = sources[i].ops->set_start(sources[i].self, c->set[i], why, sizeof why);
		if (rc) {
			PAPIERROR("cupti_cb: %s", why[0] ? why : "the event set could not start");
			stop_sources(c, i);	/* the sources started before this one */
			return papi_error(rc);
		}
	}
	if (c->width)	/* see cupti_cb_reset */
		memset(c->values, 0, c->width * sizeof c->values[0]);
	c->running = 1;
	return PAPI_OK;
}

/* A sampler's handler may call PAPI_read on a set whose read, reset or
 * stop it interrupted on the same thread. The sources keep per-set state
 * that such a call updates in several steps (a time counter's converted
 * total and its base: the handler's read added one interval twice), so
 * the inner call must not run: a read returns the values of the last read
 * completed (each a whole word, none going down), and a reset or stop
 * fails (PAPI_EMISC) rather than half-happen. */
static int guard_enter(cupti_cb_control_t *c)
{
	if (c->busy)
		return 0;
	c->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return 1;
}

static void guard_leave(cupti_cb_control_t *c)
{
	atomic_signal_fence(memory_order_seq_cst);
	c->busy = 0;
}

/* Each source reads its own events; the values land in PAPI's positions.
 * A set of callback events only is read without a lock or a system call.
 * A source's error is the read's error (PAPI then hands out no value):
 * values that miss what they count are never PAPI_OK. */
/* A read whose values undercount (CUPTI_CB_EDROPPED): the values stand,
 * with the source's sentence, or the activity source's one. */
static void dropped_warning(unsigned i, cupti_cb_control_t *c)
{
	const char *w = sources[i].ops->set_why ? sources[i].ops->set_why(sources[i].self, c->set[i]) : "";
	if (w && w[0])
		PAPIERROR("cupti_cb: %s", w);
	else
		PAPIERROR("cupti_cb: CUPTI dropped GPU activity records since the last read: the gpu.* "
			  "values undercount (CUPTI_CB_TRACE=1 shows how many)");
}

static int read_sources(cupti_cb_control_t *c)
{
	int rc = PAPI_OK;
	for (unsigned i = 0; i < n_sources; i++) {
		if (!c->n_src[i])
			continue;
		int r = sources[i].ops->set_read(sources[i].self, c->set[i], c->src_values[i]);
		if (r == CUPTI_CB_EDROPPED && !cupti_cb_in_signal_context())	/* PAPIERROR writes with stdio */
			dropped_warning(i, c);
		else if (r != CUPTI_CB_OK && r != CUPTI_CB_EDROPPED && rc == PAPI_OK)
			rc = source_failed(i, c, r, "the read");
	}
	if (rc != PAPI_OK)
		return rc;
	for (unsigned p = 0; p < c->width; p++)
		c->values[p] = c->at[p].used ? c->src_values[c->at[p].src][c->at[p].ix] : 0;
	return PAPI_OK;
}

static int cupti_cb_read(hwd_context_t *ctx, hwd_control_state_t *ctl, long long **events, int flags)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx, (void)flags;
	*events = c->values;
	if (!guard_enter(c))
		return PAPI_OK;	/* the last completed read's values */
	int rc = read_sources(c);
	guard_leave(c);
	return rc;
}

/* PAPI_stop reads the set, then stops it, and hands out that read's
 * values (ESI->sw_stop). A source whose values settle only at the stop
 * (values_at_stop: a sampled window ends at the stop by the samples'
 * timestamps, which a read cannot wait for) gives them after its stop,
 * and they replace that read's in the event set PAPI_stop copies from:
 * the calling thread's running set of this component, whose control
 * state this is. An event PAPI derives from several (none of ours by
 * default) keeps the read's value. */
static void values_at_stop(cupti_cb_control_t *c)
{
	int any = 0;
	for (unsigned i = 0; i < n_sources; i++)
		if (c->n_src[i] && sources[i].ops->values_at_stop &&
		    sources[i].ops->set_read(sources[i].self, c->set[i], c->src_values[i]) == CUPTI_CB_OK)
			any = 1;
	if (!any)
		return;
	for (unsigned p = 0; p < c->width; p++)
		if (c->at[p].used)
			c->values[p] = c->src_values[c->at[p].src][c->at[p].ix];
	ThreadInfo_t *thr = _papi_hwi_lookup_thread(0);
	int cidx = _cupti_cb_vector.cmp_info.CmpIdx;
	EventSetInfo_t *esi = thr && thr->running_eventset ? thr->running_eventset[cidx] : NULL;
	if (!esi || esi->ctl_state != (hwd_control_state_t *)c || !esi->sw_stop)
		return;
	for (int i = 0; i < esi->NumberOfEvents; i++) {
		int pos = esi->EventInfoArray[i].pos[0];
		if (pos >= 0 && (unsigned)pos < c->width && esi->EventInfoArray[i].derived == NOT_DERIVED)
			esi->sw_stop[i] = c->values[pos];
	}
}

/* A stop that fails leaves the set running (PAPI keeps it so too). */
static int cupti_cb_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx;
	if (!c->running)
		return PAPI_OK;
	if (!guard_enter(c))
		return PAPI_EMISC;
	int rc = read_sources(c);	/* the values as of the stop */
	if (rc == PAPI_OK)
		rc = each_source_refusers_first(c, stop_one, "the stop");
	if (rc == PAPI_OK) {
		c->running = 0;
		values_at_stop(c);
	}
	guard_leave(c);
	return rc;
}

static int cupti_cb_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx;
	if (!guard_enter(c))
		return PAPI_EMISC;
	int rc = each_source_refusers_first(c, reset_one, "the reset");
	/* What a handler's read inside a later read gets: the window starts at 0. */
	if (rc == PAPI_OK && c->width)
		memset(c->values, 0, c->width * sizeof c->values[0]);
	guard_leave(c);
	return rc;
}

static int cupti_cb_cleanup_eventset(hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	if (c->ovf_mask)
		_papi_hwi_stop_signal(_cupti_cb_vector.cmp_info.hardware_intr_sig);
	for (unsigned i = 0; i < n_sources; i++)
		if (c->set[i])
			sources[i].ops->set_free(sources[i].self, c->set[i]);
	free_arrays(c);
	memset(c, 0, sizeof *c);
	return PAPI_OK;
}

/* Whether kernel thread tid has a counter set: it made a counted CUDA
 * call (or started a cupti_cb set). Before the driver stage none has. */
static int tid_known(long tid)
{
	return tid > 0 && atomic_load(&stage) == 2 && cupti_cb_services_thread_known(&services, tid);
}

/* PAPI_attach: the set reads thread tid's counters from now on; its
 * events are checked again, and the set is left as it was if one has no
 * per-thread value. PAPI_DETACH: back to the calling thread's. */
static int attach(cupti_cb_control_t *c, long tid)
{
	long old = c->attach_tid;
	if (tid && !tid_known(tid)) {
		PAPIERROR("cupti_cb: thread %ld has made no counted CUDA call in this process, so it has no "
			  "cupti_cb counts to attach to (cupti_cb_threads lists those that have)", tid);
		return PAPI_EINVAL;
	}
	c->attach_tid = tid;
	if (!c->n)
		return PAPI_OK;
	int rc = update_sources(c);
	if (rc != PAPI_OK) {
		c->attach_tid = old;
		update_sources(c);
	}
	return rc;
}

/* PAPI_GRN_PROC is the set-wide spelling of the :process qualifier: every
 * event of the set counts all threads. PAPI_GRN_THR goes back to each
 * event's own scope. */
static int cupti_cb_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	(void)ctx;
	if (code == PAPI_ATTACH || code == PAPI_DETACH) {
		cupti_cb_control_t *c = (cupti_cb_control_t *)option->attach.ESI->ctl_state;
		if (c->running)
			return PAPI_EISRUN;
		/* PAPI passes the tid as an unsigned long; a kernel tid fits a long. */
		return attach(c, code == PAPI_ATTACH ? (long)option->attach.tid : 0);
	}
	/* A multiplexed set is an ordinary one here: every event of a set
	 * counts all the time, so its values stay exact (kernel_multiplex). */
	if (code != PAPI_GRANUL)
		return PAPI_OK;
	cupti_cb_control_t *c = (cupti_cb_control_t *)option->granularity.ESI->ctl_state;
	if (c->running)
		return PAPI_EISRUN;
	if (c->attach_tid && option->granularity.granularity == PAPI_GRN_PROC) {
		PAPIERROR("cupti_cb: an event set attached to a thread (PAPI_attach) counts that thread: "
			  "PAPI_GRN_PROC does not apply");
		return PAPI_ECOMBO;
	}
	c->granul_process = option->granularity.granularity == PAPI_GRN_PROC;
	for (unsigned i = 0; i < n_sources; i++)
		if (c->set[i])
			sources[i].ops->set_granularity(sources[i].self, c->set[i], c->granul_process);
	return PAPI_OK;
}

static int cupti_cb_set_domain(hwd_control_state_t *ctl, int domain)
{
	(void)ctl;
	return domain == PAPI_DOM_USER || domain == PAPI_DOM_ALL ? PAPI_OK : PAPI_EINVAL;
}

/* ---- names --------------------------------------------------------------- */

/* The first event of the first source from i on that lists any. A source
 * may build its catalogue only now (the metric catalogue, which needs the
 * chip's name): the component's event count follows. */
static int first_from(unsigned i, uint32_t *code)
{
	for (; i < n_sources; i++) {
		struct cupti_cb_source *s = &sources[i];
		if (s->ops && s->ops->first(s->self, code) == CUPTI_CB_OK) {
			_cupti_cb_vector.cmp_info.num_native_events = count_events();
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

/* The next qualified variant of c's event that an add would accept.
 * Device qualifiers are listed per device: that needs the driver stage;
 * where it fails (or there is no driver), none is listed, since none
 * would be accepted (cupti_cb(7), QUALIFIERS). */
static int next_qualifier(const struct cupti_cb_source *s, uint32_t *c)
{
	ensure_ready_quiet(1);
	int ready = atomic_load(&stage) == 2;
	int rc = (CUPTI_CB_CODE_DEV(*c) < 0 && !CUPTI_CB_CODE_PROC(*c)) ? cupti_cb_event_first_qualifier(s, c) :
									cupti_cb_event_next_qualifier(s, c);
	while (rc == 0 && !ready && CUPTI_CB_CODE_DEV(*c) >= 0)
		rc = cupti_cb_event_next_qualifier(s, c);
	return rc;
}

/* A listing where nothing can be added says so on stderr, once per
 * process, at its second event: papi_component_avail asks only for the
 * first (to initialize), and shows the reason itself. */
static void say_listing_only(void)
{
	static atomic_int said;
	if (services.listing_only[0] && !atomic_exchange(&said, 1))
		fprintf(stderr, "cupti_cb: %s\n", services.listing_only);
}

static int cupti_cb_ntv_enum_events(unsigned int *code, int modifier)
{
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ENOEVNT;
	uint32_t c = *code;
	struct cupti_cb_source *s = SRC(c);
	if (modifier != PAPI_ENUM_FIRST && (CUPTI_CB_CODE_SRC(c) >= n_sources || !s->ops))
		return PAPI_EINVAL;
	int rc;
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		rc = first_from(0, &c);
		break;
	case PAPI_ENUM_EVENTS:
		say_listing_only();
		rc = s->ops->next(s->self, &c) == CUPTI_CB_OK ? PAPI_OK :
		     first_from(CUPTI_CB_CODE_SRC(c) + 1, &c);
		break;
	case PAPI_NTV_ENUM_UMASKS:
		rc = next_qualifier(s, &c) ? PAPI_ENOEVNT : PAPI_OK;
		break;
	default:
		return PAPI_EINVAL;
	}
	if (rc)
		return PAPI_ENOEVNT;
	*code = c;
	return PAPI_OK;
}

/* A name no source took: why, once per name. A misspelling (a name near
 * the form of a source's names: cupti_cb_suggest_worth) is answered on
 * stderr with the nearest names, or the form that exists (":sampled"), or
 * the qualifiers the event takes: the user sees it without asking. Any
 * other name of a source's form, and a name too long for PAPI, is said
 * under PAPI_VERBOSE only, and a name of no source's form is left to PAPI: PAPI 7.0 to 7.2 offer every
 * component a name without "cupti_cb:::", which may be a CPU event, so
 * neither loading nor printing happens for it. Asked only after a failed
 * lookup, never in a signal handler. */
static void say_no_event(const char *name)
{
	char why[CUPTI_CB_WHY_LEN];
	if (cupti_cb_in_signal_context())
		return;
	if (cupti_cb_suggest_too_long(name, why, sizeof why)) {
		if (cupti_cb_suggest_first_time(name))
			PAPIERROR("cupti_cb: %s", why);
		return;
	}
	if (!cupti_cb_suggest_worth(sources, n_sources, name) || ensure_catalog() != PAPI_OK ||
	    !cupti_cb_suggest_first_time(name))
		return;
	if (cupti_cb_suggest(sources, n_sources, name, why, sizeof why))
		fprintf(stderr, "cupti_cb: %s\n", why);
	else
		PAPIERROR("cupti_cb: %s", why);
}

/* The first source that takes the name's form answers. PAPI 7.0-7.2 try
 * every component for a name without ":::": a name that cannot be ours
 * must not load anything. */
static int cupti_cb_ntv_name_to_code(const char *name, unsigned int *code)
{
	int claimed = 0, err = PAPI_ENOEVNT, any = 0, told = 0;
	if (!n_sources)
		open_sources();
	cupti_cb_tap_bind(&services);
	FOR_SOURCES(s)
		any |= cupti_cb_event_may_be_ours(s, name);
	if (!any) {
		say_no_event(name);
		return PAPI_ENOEVNT;
	}
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	FOR_SOURCES(s) {
		uint32_t c;
		if (!cupti_cb_event_may_be_ours(s, name))
			continue;
		int rc = cupti_cb_event_parse(s, name, &c);
		if (rc) {
			/* The most telling refusal: a source that cannot list its
			 * events now (another profiler, no permission) over one that
			 * does not have the name. */
			if (!claimed || err == PAPI_ENOEVNT)
				err = papi_error(rc);
			if ((rc == CUPTI_CB_ECONFLICT || rc == CUPTI_CB_EPERM) && !told++)
				PAPIERROR("cupti_cb: %s: %s", name, s->ops->why(s->self));
			claimed = 1;
			continue;
		}
		/* A device ordinal is checked against the devices the driver sees. */
		if (CUPTI_CB_CODE_DEV(c) >= 0) {
			if (ensure_ready() != PAPI_OK)
				return refuse_disabled(name);
			if (!s->ops->valid(s->self, c)) {
				if (!cupti_cb_in_signal_context())
					PAPIERROR("cupti_cb: %s: no CUDA device %d here (the driver sees %d)", name,
						  CUPTI_CB_CODE_DEV(c), s->ops->devices(s->self));
				return PAPI_ENOEVNT;
			}
		}
		*code = c;
		return PAPI_OK;
	}
	if (!told)
		say_no_event(name);
	return err;
}

static struct cupti_cb_source *source_of(unsigned int code)
{
	if (ensure_catalog() != PAPI_OK || CUPTI_CB_CODE_SRC(code) >= n_sources || !SRC(code)->ops)
		return NULL;
	return SRC(code);
}

static int cupti_cb_ntv_code_to_name(unsigned int code, char *name, int len)
{
	struct cupti_cb_source *s = source_of(code);
	if (!s)
		return PAPI_ENOEVNT;
	return papi_error(cupti_cb_event_name(s, code, name, (size_t)len));
}

static int cupti_cb_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	struct cupti_cb_source *s = source_of(code);
	if (!s)
		return PAPI_ENOEVNT;
	return papi_error(s->ops->descr(s->self, code, descr, (size_t)len));
}

/* PAPI 7.0's papi_native_avail folds a description into lines of 80 bytes
 * for 66 of it, with a line for the name and one for the units, into a
 * buffer it grows 1,024 bytes at a time, and overran it on longer ones:
 * a description is cut there, with "...". A qualifier's own text follows
 * " masks:", where papi_native_avail looks for it; papi_event_chooser prints
 * from the first ':' on, and does not check that there is one. */
#define DESCR_SHOWN 660
_Static_assert(DESCR_SHOWN + 256 < PAPI_HUGE_STR_LEN, "room for a qualifier's text");

static int cupti_cb_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	struct cupti_cb_source *s = source_of(code);
	struct cupti_cb_event_facts f = { "", 0, 1, 0 };
	if (!s)
		return PAPI_ENOEVNT;
	int rc = cupti_cb_event_name(s, code, info->symbol, sizeof info->symbol);
	if (rc)
		return papi_error(rc);
	uint32_t base = CUPTI_CB_CODE_UNQUALIFIED(code);
	s->ops->descr(s->self, base, info->long_descr, sizeof info->long_descr);
	if (strlen(info->long_descr) > DESCR_SHOWN)
		memcpy(info->long_descr + DESCR_SHOWN - 3, "...", 4);
	/* The short description is the long one cut to PAPI's 64 bytes. */
	size_t cut = strnlen(info->long_descr, sizeof info->short_descr - 1);
	memcpy(info->short_descr, info->long_descr, cut);
	info->short_descr[cut] = '\0';
	if (base != code) {
		size_t n = strlen(info->long_descr), room = sizeof info->long_descr - n - 7;
		char *q = info->long_descr + n + 7;
		memcpy(info->long_descr + n, " masks:", 7);
		if (s->ops->qualifier_descr(s->self, code, q, room) != 0 || !*q)
			snprintf(q, room, "qualifier");
	}
	s->ops->facts(s->self, code, &f);
	snprintf(info->units, sizeof info->units, "%s", f.units);
	info->data_type = f.is_double ? PAPI_DATATYPE_FP64 : f.is_signed ? PAPI_DATATYPE_INT64 : PAPI_DATATYPE_UINT64;
	info->value_type = f.running_sum ? PAPI_VALUETYPE_RUNNING_SUM : PAPI_VALUETYPE_ABSOLUTE;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	return PAPI_OK;
}

/* ---- threads (cupti_cb.h) ----------------------------------------------- */

_Static_assert(CUPTI_CB_THREAD_NAME_LEN == CUPTI_CB_THREAD_NAME, "thread names: one length");
_Static_assert(CUPTI_CB_THREADS_OWN == CUPTI_CB_THREAD_COUNTERS_OWN, "the adoption bound: one value");

int cupti_cb_service_thread(void)
{
	cupti_cb_signal_context_service_thread();
	return PAPI_OK;
}

/* Cold: a listing, in the order the threads got their counter sets. */
int cupti_cb_threads(struct cupti_cb_thread_info *out, int max)
{
	if (max < 0 || (max > 0 && !out))
		return PAPI_EINVAL;
	if (atomic_load(&stage) != 2)
		return 0;
	struct cupti_cb_thread_owner *o;
	int n = cupti_cb_services_threads(&services, &o);
	if (n < 0)
		return PAPI_ENOMEM;
	for (int i = 0; i < n && i < max; i++) {
		out[i].tid = o[i].tid;
		memcpy(out[i].name, o[i].name, sizeof out[i].name);
		out[i].exited = o[i].exited;
		out[i].shared = o[i].owners > 1;
		out[i].threads = o[i].owners;
	}
	free(o);
	return (int)n;
}

papi_vector_t _cupti_cb_vector = {
	.cmp_info = {
		.name = "cupti_cb",
		.short_name = "cupti_cb",
		.description = DESCRIPTION,
		.version = "0.1.0",
		.support_version = "n/a",
		.kernel_version = "n/a",
		.num_cntrs = MAX_SET,
		.num_mpx_cntrs = MAX_SET,
		/* PAPI_set_multiplex comes to the component (ctl), which needs
		 * nothing for it. PAPI's software multiplexing would add
		 * PAPI_TOT_CYC to each of the set's events, which a set of this
		 * component cannot hold: the adds would fail (Caliper multiplexes
		 * every component's set; TAU those that set this). */
		.kernel_multiplex = 1,
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR | PAPI_GRN_PROC,
		.hardware_intr = 1,	/* PAPI_overflow: a signal at the crossing (cupti_cb_overflow.h) */
		.hardware_intr_sig = PAPI_INT_SIGNAL,	/* replaced at init_component */
		.fast_real_timer = 0,
		.fast_virtual_timer = 0,
		.attach = 1,		/* another thread's counter sets (cupti_cb_threads) */
		.attach_must_ptrace = 0,
	},
	.size = {
		.context = sizeof(cupti_cb_context_t),
		.control_state = sizeof(cupti_cb_control_t),
		.reg_value = 1,
		.reg_alloc = 1,
	},
	.init_component = cupti_cb_init_component,
	.init_thread = cupti_cb_init_thread,
	.init_control_state = cupti_cb_init_control_state,
	.update_control_state = cupti_cb_update_control_state,
	.start = cupti_cb_start,
	.read = cupti_cb_read,
	.stop = cupti_cb_stop,
	.reset = cupti_cb_reset,
	.cleanup_eventset = cupti_cb_cleanup_eventset,
	.ctl = cupti_cb_ctl,
	.set_domain = cupti_cb_set_domain,
	.shutdown_thread = cupti_cb_shutdown_thread,
	.shutdown_component = cupti_cb_shutdown_component,
	.ntv_enum_events = cupti_cb_ntv_enum_events,
	.ntv_name_to_code = cupti_cb_ntv_name_to_code,
	.ntv_code_to_name = cupti_cb_ntv_code_to_name,
	.ntv_code_to_descr = cupti_cb_ntv_code_to_descr,
	.ntv_code_to_info = cupti_cb_ntv_code_to_info,
	.set_overflow = cupti_cb_set_overflow,
	.dispatch_timer = cupti_cb_dispatch_timer,
};
