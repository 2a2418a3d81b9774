/* cupti_cb_sde.c: the top of libcupti_cb_sde.so. When the library loads,
 * it registers every event of the sources it serves with PAPI's libsde
 * (papi_sde_init, papi_sde_register_counter_cb): a PAPI whose sde
 * component is compiled in then lists them and reads them as
 * sde:::cupti_cb::NAME, with no rebuild. Each counter's callback reads the
 * calling thread's sets (cupti_cb_sde_thread.c).
 *
 * Registering needs libcupti's name table and libcuda loaded (the
 * component's catalogue stage): no GPU, no cuInit. The driver stage waits
 * for a counter's first read, which PAPI makes at the PAPI_start of a set
 * holding it. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_signal_context.h"
#include "cupti_cb_sde.h"
#include "sde_lib.h"

#define DESCR_LEN 1024

static papi_handle_t handle;
static uint32_t *codes;		/* each counter's code: its callback's parameter */
static unsigned n_codes, cap_codes;
static int registered;

/* PAPI's own rule for its messages (PAPIERROR): stderr under PAPI_VERBOSE. */
static int verbose(void)
{
	const char *v = getenv("PAPI_VERBOSE");
	return (v && v[0]) || getenv("CUPTI_CB_TRACE");
}

/* The first counter that cannot be read says why, once per process, on
 * stderr (never in a signal handler): its reads give -1, SDE's value for a
 * counter that cannot be read. */
static void say_not_counted(uint32_t code, const char *why)
{
	static atomic_int said;
	if (cupti_cb_in_signal_context() || atomic_exchange(&said, 1))
		return;
	char name[CUPTI_CB_NAME_MAX] = "?";
	const struct cupti_cb_source *s = cupti_cb_sde_engine_source(CUPTI_CB_CODE_SRC(code));
	if (s)
		cupti_cb_event_name(s, code, name, sizeof name);
	fprintf(stderr, "cupti_cb_sde: sde:::%s::%s is not counted (its reads give -1): %s\n", CUPTI_CB_SDE_LIBRARY,
		name, why);
}

/* The counter's callback, on the reading thread: at a reset (PAPI_start,
 * PAPI_reset) 0, with the thread's value kept as its base; at a read the
 * change since. */
static long long read_counter(void *param)
{
	uint32_t code = *(const uint32_t *)param;
	int reset = cupti_cb_sde_resetting();
	char why[CUPTI_CB_WHY_LEN] = "";
	long long v;
	int rc = cupti_cb_sde_thread_read(code, reset, &v, why, sizeof why);
	if (rc == CUPTI_CB_OK)
		return v;
	say_not_counted(code, why[0] ? why : "cupti_cb could not read it");
	return reset ? 0 : -1;
}

static uint32_t *keep_code(uint32_t code)
{
	if (n_codes == cap_codes) {
		unsigned cap = cap_codes ? 2 * cap_codes : 4096;
		uint32_t *c = realloc(codes, cap * sizeof *c);
		if (!c)
			return NULL;
		codes = c, cap_codes = cap;
	}
	codes[n_codes] = code;
	return &codes[n_codes++];
}

/* One counter: the component's name, its description with its unit. The
 * codes array may move while it grows, so the parameters are set once
 * every counter is known (register_all). */
static int describe(const struct cupti_cb_source *s, uint32_t code, char *d, size_t len)
{
	struct cupti_cb_event_facts f;
	memset(&f, 0, sizeof f);
	if (s->ops->facts(s->self, code, &f) || f.is_double)
		return -1;	/* SDE's callback counters hand over integers */
	if (s->ops->descr(s->self, CUPTI_CB_CODE_UNQUALIFIED(code), d, len))
		d[0] = '\0';
	size_t n = strlen(d);
	if (CUPTI_CB_CODE_PROC(code))
		n += (size_t)snprintf(d + n, len - n, "%s every thread of the process", n ? ";" : "");
	else if (s->ops->qualifiers(s->self, code) & CUPTI_CB_Q_THREAD)
		n += (size_t)snprintf(d + n, len - n, "%s the reading thread", n ? ";" : "");
	if (f.units[0] && n < len)
		snprintf(d + n, len - n, " (%s)", f.units);
	return 0;
}

/* The codes of every counter: each base event, and its :process form
 * where it has a per-thread one. */
static void collect(const struct cupti_cb_source *s)
{
	uint32_t code;
	for (int rc = s->ops->first(s->self, &code); rc == 0; rc = s->ops->next(s->self, &code)) {
		unsigned q = s->ops->qualifiers(s->self, code);
		keep_code(code);
		if ((q & CUPTI_CB_Q_PROCESS) && (q & CUPTI_CB_Q_THREAD))
			keep_code(CUPTI_CB_CODE_REQUALIFY(code, -1, 1));
	}
}

static void register_all(void)
{
	char name[CUPTI_CB_NAME_MAX], d[DESCR_LEN];
	if (registered)
		return;
	registered = 1;
	for (unsigned id = 0; id < CUPTI_CB_MAX_SOURCES; id++)
		if (cupti_cb_sde_engine_source(id))
			collect(cupti_cb_sde_engine_source(id));
	for (unsigned i = 0; i < n_codes; i++) {
		const struct cupti_cb_source *s = cupti_cb_sde_engine_source(CUPTI_CB_CODE_SRC(codes[i]));
		if (cupti_cb_event_name(s, codes[i], name, sizeof name) || describe(s, codes[i], d, sizeof d))
			continue;
		if (papi_sde_register_counter_cb(handle, name, PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
						 read_counter, &codes[i]) == SDE_OK)
			papi_sde_describe_counter(handle, name, d);
	}
}

/* Counted only where PAPI's resets reach the library (it was loaded before
 * libsde: cupti_cb_sde_reset.c); else libsde would measure each thread's
 * value from whichever thread reset last, and the counters stay
 * unregistered: a read of one gives -1, SDE's value for a name no library
 * registered. */
__attribute__((constructor)) static void cupti_cb_sde_load(void)
{
	char why[CUPTI_CB_WHY_LEN] = "";
	handle = papi_sde_init(CUPTI_CB_SDE_LIBRARY);
	if (!handle)
		return;
	if (cupti_cb_sde_engine_open(why, sizeof why)) {
		if (verbose())
			fprintf(stderr, "cupti_cb_sde: no counters registered: %s\n", why);
		return;
	}
	if (cupti_cb_sde_resets_reach_us())
		register_all();
	else if (verbose())
		fprintf(stderr, "cupti_cb_sde: no counters registered: libcupti_cb_sde.so was loaded after libsde, "
				"so PAPI's resets would not reach it: load it first (LD_PRELOAD, or link it before "
				"libsde)\n");
}

/* papi_native_avail -sde LIBRARY opens the library after libsde and calls
 * this to list its counters (it reads none). */
__attribute__((visibility("default"))) papi_handle_t papi_sde_hook_list_events(papi_sde_fptr_struct_t *fptr_struct);
papi_handle_t papi_sde_hook_list_events(papi_sde_fptr_struct_t *fptr_struct)
{
	(void)fptr_struct;
	if (handle && cupti_cb_sde_engine_source(0))
		register_all();
	return handle;
}
