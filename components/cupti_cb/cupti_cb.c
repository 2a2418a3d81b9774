/* cupti_cb.c: the PAPI vector. An adapter only: it turns PAPI's calls into
 * engine calls and engine results into PAPI error codes. It never calls
 * CUPTI itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"

#include "cupti_cb_engine.h"

#define CUPTI_CB_MAX_SET 128	/* events in one event set */
#define PACKAGE_VERSION_CUPTI_CB "0.2.0"

/* The commit the build was made from (configure passes it). */
#ifndef CUPTI_CB_COMMIT
#define CUPTI_CB_COMMIT "unknown"
#endif

papi_vector_t _cupti_cb_vector;

typedef struct {
	int unused;
} cupti_cb_context_t;

/* Events sit at fixed positions: PAPI 7.0's PAPI_remove_event keeps the
 * positions it knew for the remaining events (it does not remap them), so
 * an event keeps its ni_position for as long as it stays in the set. */
typedef struct {
	unsigned n;			/* events */
	unsigned width;			/* positions in use: 0 .. width-1 */
	int running;
	int timed;			/* some event counts time */
	int hold_stale;			/* the events changed since the hold was taken */
	struct cupti_cb_hold hold;	/* the CBIDs this set keeps enabled */
	struct cupti_cb_block *block;	/* the running thread's, for thread-scope events */
	int granul_process;		/* PAPI_GRN_PROC: every event counts the process */
	uint32_t codes[CUPTI_CB_MAX_SET];	/* by event, for the engine */
	uint32_t code_at[CUPTI_CB_MAX_SET];	/* by position */
	int papi_code_at[CUPTI_CB_MAX_SET];	/* by position: the PAPI code it was added with */
	uint8_t used[CUPTI_CB_MAX_SET];		/* by position */
	uint8_t process[CUPTI_CB_MAX_SET];
	struct cupti_cb_probe probes[CUPTI_CB_MAX_SET];
	uint64_t base[CUPTI_CB_MAX_SET];
	uint64_t now[CUPTI_CB_MAX_SET];
	uint64_t ns[CUPTI_CB_MAX_SET];		/* time counters: ns so far, never decreasing */
	long long values[CUPTI_CB_MAX_SET];
} cupti_cb_control_t;

/* One engine per process: CUPTI allows one subscriber per process. */
static struct cupti_cb_engine engine;
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

static void set_stage_from_engine(void)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	switch (engine.state) {
	case CUPTI_CB_READY:
		ci->disabled = 0;
		ci->disabled_reason[0] = '\0';
		ci->num_native_events = (int)engine.cat.n_events;
		atomic_store(&stage, 2);
		break;
	case CUPTI_CB_CATALOG:
		/* libcupti and libcuda load: the component is active; cuInit
		 * and the rest wait until they are needed. */
		ci->disabled = 0;
		ci->disabled_reason[0] = '\0';
		ci->num_native_events = (int)engine.cat.n_events;
		atomic_store(&stage, 1);
		break;
	case CUPTI_CB_DISABLED:
		set_disabled(engine.why);
		atomic_store(&stage, -1);
		break;
	default:
		break;
	}
}

/* The catalogue: libcupti's name table only. Nothing here touches the
 * driver or a GPU, so name lookups and listings start no CUDA. */
static int ensure_catalog(void)
{
	int st = atomic_load(&stage);
	if (st > 0)
		return PAPI_OK;
	if (st < 0)
		return PAPI_ECMP_DISABLED;
	pthread_mutex_lock(&init_lock);
	if (engine.state == CUPTI_CB_UNINIT) {
		cupti_cb_engine_open_catalog(&engine);
		set_stage_from_engine();
	}
	pthread_mutex_unlock(&init_lock);
	return atomic_load(&stage) > 0 ? PAPI_OK : PAPI_ECMP_DISABLED;
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
	if (engine.state == CUPTI_CB_CATALOG && cupti_cb_engine_open(&engine) && quiet) {
		engine.cat.n_devices = 0;	/* list no device qualifier */
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
	if (engine.state == CUPTI_CB_READY || (busy && engine.state != CUPTI_CB_UNINIT)) {
		engine.state = CUPTI_CB_READY;
		cupti_cb_engine_after_fork_child(&engine);
		set_stage_from_engine();
	}
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void register_fork_handlers(void)
{
	pthread_atfork(NULL, NULL, at_fork_child);
}

static int cupti_cb_init_component(int cidx)
{
	PAPI_component_info_t *ci = &_cupti_cb_vector.cmp_info;
	pthread_once(&fork_once, register_fork_handlers);
	ci->CmpIdx = cidx;
	ci->num_native_events = 0;
	snprintf(ci->version, sizeof ci->version, "%s (commit %s)", PACKAGE_VERSION_CUPTI_CB, CUPTI_CB_COMMIT);
	/* The engine may outlive a PAPI_shutdown: then it is ready at once. */
	ci->disabled = engine.state == CUPTI_CB_READY ? 0 : PAPI_EDELAY_INIT;
	snprintf(ci->disabled_reason, sizeof ci->disabled_reason, "%s",
		 ci->disabled ? "Initialization delayed until first use" : "");
	if (engine.state == CUPTI_CB_READY) {
		cupti_cb_registry_attach(&engine.reg);
		set_stage_from_engine();
	} else if (engine.state == CUPTI_CB_DISABLED || engine.state == CUPTI_CB_CATALOG) {
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

/* Lets go of CUPTI. The catalogue and the counter blocks stay: threads of
 * the application still point at their blocks, and a later
 * PAPI_library_init reuses them. */
static int cupti_cb_shutdown_component(void)
{
	cupti_cb_engine_close(&engine);
	return PAPI_OK;
}



/* ---- event sets ---------------------------------------------------------- */

static int cupti_cb_init_control_state(hwd_control_state_t *ctl)
{
	memset(ctl, 0, sizeof(cupti_cb_control_t));
	return PAPI_OK;
}

/* Keeps the position PAPI already knows for an event; gives new events the
 * lowest free position. There is always one: count <= CUPTI_CB_MAX_SET. */
static unsigned place(const uint8_t *taken, int known)
{
	unsigned p = 0;
	if (known >= 0 && known < CUPTI_CB_MAX_SET && !taken[known])
		return (unsigned)known;
	while (p < CUPTI_CB_MAX_SET - 1 && taken[p])
		p++;
	return p;
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
	if (pos < 0 || pos >= CUPTI_CB_MAX_SET || !c->used[pos] || c->code_at[pos] != (uint32_t)ni->ni_event)
		return;	/* a new event: PAPI's code is the one it was added with */
	ni->ni_papi_code = c->papi_code_at[pos];
}

static int cupti_cb_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native, int count,
					 hwd_context_t *ctx)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	uint8_t taken[CUPTI_CB_MAX_SET] = { 0 };
	(void)ctx;
	if (count > CUPTI_CB_MAX_SET)
		return PAPI_ECOUNT;
	if (count > 0 && ensure_ready() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	for (int i = 0; i < count; i++)
		if (!cupti_cb_catalog_valid(&engine.cat, (uint32_t)native[i].ni_event))
			return PAPI_ENOEVNT;
	for (int i = 0; i < count; i++)
		repair_papi_code(c, &native[i]);
	if (count == 0)
		cupti_cb_engine_unhold(&engine, &c->hold);	/* nothing left to count */
	c->hold_stale = 1;
	memset(c->used, 0, sizeof c->used);
	c->width = 0;
	c->timed = 0;
	for (int i = 0; i < count; i++) {
		uint32_t code = (uint32_t)native[i].ni_event;
		unsigned pos = place(taken, native[i].ni_position);
		taken[pos] = 1;
		c->codes[i] = code;
		c->code_at[pos] = code;
		c->papi_code_at[pos] = native[i].ni_papi_code;
		c->used[pos] = 1;
		c->process[pos] = (uint8_t)(CUPTI_CB_CODE_PROC(code) || c->granul_process);
		c->probes[pos] = cupti_cb_engine_probe(&engine, code);
		c->timed |= c->probes[pos].ticks;
		c->values[pos] = 0;
		native[i].ni_position = (int)pos;
		if (pos + 1 > c->width)
			c->width = pos + 1;
	}
	c->n = (unsigned)count;
	return PAPI_OK;
}

/* Current counter values of every position: thread-scope events from the
 * running thread's block, process-scope ones in one pass over all blocks. */
static void sample(cupti_cb_control_t *c)
{
	int any_process = 0;
	for (unsigned p = 0; p < c->width; p++) {
		if (!c->used[p])
			continue;
		if (c->process[p])
			any_process = 1;
		else
			c->now[p] = c->block ? cupti_cb_probe_block(&c->probes[p], c->block) : 0;
	}
	if (any_process)
		cupti_cb_probe_process_many(c->probes, c->process, c->width, &engine.reg, c->now);
}

static void rebase(cupti_cb_control_t *c)
{
	sample(c);
	memcpy(c->base, c->now, c->width * sizeof c->base[0]);
	memset(c->ns, 0, c->width * sizeof c->ns[0]);
}

static int cupti_cb_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx;
	if (ensure_ready() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	if (c->hold_stale || !c->hold.active) {
		char why[CUPTI_CB_WHY_LEN];
		int rc = cupti_cb_engine_hold(&engine, &c->hold, c->codes, c->n, why, sizeof why);
		if (rc) {
			PAPIERROR("cupti_cb: %s", why);
			return papi_error(rc);
		}
		c->hold_stale = 0;
	}
	c->block = cupti_cb_engine_thread_block(&engine);
	if (!c->block)
		return PAPI_ENOMEM;
	rebase(c);
	c->running = 1;
	return PAPI_OK;
}

static int cupti_cb_read(hwd_context_t *ctx, hwd_control_state_t *ctl, long long **events, int flags)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	(void)ctx, (void)flags;
	sample(c);
	uint64_t ratio = 0;
	if (c->timed) {
		cupti_cb_clock_calibrate(&engine.clock);
		ratio = cupti_cb_clock_ratio(&engine.clock);	/* one ratio for the whole read */
	}
	/* Differences of raw counters. Time counters convert only the ticks
	 * since the last read, and add them: the ratio is refined during the
	 * first second, and a value must never go down between reads. */
	for (unsigned p = 0; p < c->width; p++) {
		if (!c->used[p]) {
			c->values[p] = 0;
		} else if (c->probes[p].ticks) {
			c->ns[p] += cupti_cb_clock_ticks_to_ns(ratio, c->now[p] - c->base[p]);
			c->base[p] = c->now[p];
			c->values[p] = (long long)c->ns[p];
		} else {
			c->values[p] = (long long)(c->now[p] - c->base[p]);
		}
	}
	*events = c->values;
	return PAPI_OK;
}

static int cupti_cb_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	long long *unused;
	if (!c->running)
		return PAPI_OK;
	/* The set keeps its callbacks enabled until it is cleaned up: see
	 * struct cupti_cb_hold. */
	cupti_cb_read(ctx, ctl, &unused, 0);
	c->running = 0;
	return PAPI_OK;
}

static int cupti_cb_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	(void)ctx;
	rebase((cupti_cb_control_t *)ctl);
	return PAPI_OK;
}

static int cupti_cb_cleanup_eventset(hwd_control_state_t *ctl)
{
	cupti_cb_control_t *c = (cupti_cb_control_t *)ctl;
	cupti_cb_engine_unhold(&engine, &c->hold);
	memset(c, 0, sizeof *c);
	return PAPI_OK;
}

/* PAPI_GRN_PROC is the set-wide spelling of the :process qualifier: every
 * event of the set counts all threads. PAPI_GRN_THR goes back to each
 * event's own scope. */
static int cupti_cb_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	(void)ctx;
	if (code != PAPI_GRANUL)
		return PAPI_OK;
	cupti_cb_control_t *c = (cupti_cb_control_t *)option->granularity.ESI->ctl_state;
	if (c->running)
		return PAPI_EISRUN;
	c->granul_process = option->granularity.granularity == PAPI_GRN_PROC;
	for (unsigned p = 0; p < c->width; p++)
		c->process[p] = (uint8_t)(CUPTI_CB_CODE_PROC(c->code_at[p]) || c->granul_process);
	return PAPI_OK;
}

static int cupti_cb_set_domain(hwd_control_state_t *ctl, int domain)
{
	(void)ctl;
	return domain == PAPI_DOM_USER || domain == PAPI_DOM_ALL ? PAPI_OK : PAPI_EINVAL;
}

/* ---- names --------------------------------------------------------------- */

static int cupti_cb_ntv_enum_events(unsigned int *code, int modifier)
{
	int rc = ensure_catalog();
	if (rc != PAPI_OK)
		return PAPI_ENOEVNT;
	/* Device qualifiers are listed per device: that needs the driver. */
	if (modifier == PAPI_NTV_ENUM_UMASKS && CUPTI_CB_CODE_PROC(*code))
		ensure_ready_quiet(1);
	uint32_t c = *code;
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		c = cupti_cb_catalog_first();
		rc = CUPTI_CB_OK;
		break;
	case PAPI_ENUM_EVENTS:
		rc = cupti_cb_catalog_next(&engine.cat, &c);
		break;
	case PAPI_NTV_ENUM_UMASKS:
		rc = (CUPTI_CB_CODE_DEV(c) < 0 && !CUPTI_CB_CODE_PROC(c)) ?
			     cupti_cb_catalog_first_qualifier(&engine.cat, &c) :
			     cupti_cb_catalog_next_qualifier(&engine.cat, &c);
		break;
	default:
		return PAPI_EINVAL;
	}
	if (rc)
		return PAPI_ENOEVNT;
	*code = c;
	return PAPI_OK;
}

static int cupti_cb_ntv_name_to_code(const char *name, unsigned int *code)
{
	/* PAPI 7.0-7.2 try every component for a name without ":::": a name
	 * that cannot be ours must not load anything. */
	if (!cupti_cb_catalog_may_be_ours(name))
		return PAPI_ENOEVNT;
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	uint32_t c;
	int rc = cupti_cb_catalog_parse(&engine.cat, name, &c);
	if (rc)
		return papi_error(rc);
	/* A device ordinal is checked against the devices the driver sees. */
	if (CUPTI_CB_CODE_DEV(c) >= 0) {
		if (ensure_ready() != PAPI_OK)
			return PAPI_ECMP_DISABLED;
		if (!cupti_cb_catalog_valid(&engine.cat, c))
			return PAPI_ENOEVNT;
	}
	*code = c;
	return PAPI_OK;
}

static int cupti_cb_ntv_code_to_name(unsigned int code, char *name, int len)
{
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	return papi_error(cupti_cb_catalog_name(&engine.cat, code, name, (size_t)len));
}

static int cupti_cb_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	return papi_error(cupti_cb_catalog_descr(&engine.cat, code, descr, (size_t)len));
}

/* papi_native_avail shows a qualifier's text after "masks:" in long_descr. */
static int cupti_cb_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	if (ensure_catalog() != PAPI_OK)
		return PAPI_ECMP_DISABLED;
	int rc = cupti_cb_catalog_name(&engine.cat, code, info->symbol, sizeof info->symbol);
	if (rc)
		return papi_error(rc);
	uint32_t base = CUPTI_CB_CODE(CUPTI_CB_CODE_IDX(code), -1, 0);
	cupti_cb_catalog_descr(&engine.cat, base, info->long_descr, sizeof info->long_descr);
	/* The short description is the long one cut to PAPI's 64 bytes. */
	size_t cut = strnlen(info->long_descr, sizeof info->short_descr - 1);
	memcpy(info->short_descr, info->long_descr, cut);
	info->short_descr[cut] = '\0';
	if (base != code) {
		size_t n = strlen(info->long_descr);
		if (n + 8 < sizeof info->long_descr) {
			strcat(info->long_descr, " masks:");
			cupti_cb_catalog_qualifier_descr(&engine.cat, code, info->long_descr + n + 7,
							 sizeof info->long_descr - n - 7);
		}
	}
	snprintf(info->units, sizeof info->units, "%s", cupti_cb_catalog_units(&engine.cat, code));
	info->data_type = PAPI_DATATYPE_UINT64;
	info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	return PAPI_OK;
}

papi_vector_t _cupti_cb_vector = {
	.cmp_info = {
		.name = "cupti_cb",
		.short_name = "cupti_cb",
		.description = "CUDA API calls, launches, bytes and syncs from CUPTI callbacks",
		.version = "0.1.0",
		.support_version = "n/a",
		.kernel_version = "n/a",
		.num_cntrs = CUPTI_CB_MAX_SET,
		.num_mpx_cntrs = CUPTI_CB_MAX_SET,
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR | PAPI_GRN_PROC,
		.hardware_intr_sig = PAPI_INT_SIGNAL,
		.fast_real_timer = 0,
		.fast_virtual_timer = 0,
		.attach = 0,
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
};
