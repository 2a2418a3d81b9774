/*
 * cupti_cb_inject_set.c: the events of the main set, added in process scope, and what is left
 * out when PAPI refuses.
 *
 * Order, which is also the order of what survives a full set:
 *   1. totals (api.calls, api.time_ns, api.errors);
 *   2. the derived events of every device (name:device=N:process), then the gpu.* ones
 *      (CUPTI_CB_RUN_ACTIVITY, default on);
 *   3. per CUDA function: <f>.calls, .time_ns, .time_ns_min, .time_ns_max, .errors, for every
 *      function of the catalogue, the most common functions first, in event sets of their own
 *      (parts: see cupti_cb_inject_state.h), each owned by a thread of the library.
 * With CUPTI_CB_RUN_TIME=0 (the runner's --no-time) every host-time event is left out
 * (api.time_ns, sync.time_ns, <f>.time_ns, .time_ns_min, .time_ns_max: cupti_cb_inj_host_time),
 * without a note: cupti_cb reads the clock in its callbacks only while such an event runs, so
 * counting costs no more than CUPTI's callbacks themselves; the file says "host_time": false.
 * An event that this libpapi does not offer (an older component) is left out with a note.  The
 * first add that PAPI refuses ends the adding (the set is full: cupti_cb allows
 * CUPTI_CB_SET_MAX events per set), with a note; a function is added with all its events or not
 * at all.  CUPTI_CB_RUN_MAX_EVENTS=n caps the set at n events the same way.
 *
 * If PAPI_start fails, the gpu.* events are removed and the start tried again: a source that
 * cannot work explains itself at the start, and the others go on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

#include "cupti_cb_inject_events.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_owner.h"
#include "cupti_cb_inject_set.h"

/* The functions most programs call, in this order first in line when not every function fits
 * in the set (the rest follow in catalogue order). */
static const char *const common_funcs[] = {
	"cudaLaunchKernel", "cudaMemcpy", "cudaMemcpyAsync", "cudaMalloc", "cudaFree", "cudaMemset",
	"cudaMemsetAsync", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaGraphLaunch",
	"cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpy",
	"cuMemcpyAsync", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemAlloc", "cuMemFree",
	"cuMemsetD8", "cuMemsetD32", "cuMemsetD8Async", "cuCtxSynchronize", "cuStreamSynchronize",
	"cuCtxGetCurrent", "cuCtxSetCurrent", "cuGraphLaunch", "cuModuleLoadData", "cuModuleGetFunction",
	"cuLibraryLoadData", "cuMemAllocAsync", "cuMemFreeAsync", "cuEventRecord", "cuEventSynchronize",
	"cudaGetDevice", "cudaSetDevice", "cudaGetDeviceCount", "cudaGetLastError", "cudaLaunchKernelExC",
	"cudaMallocHost", "cudaFreeHost", "cudaHostAlloc", "cudaMallocAsync", "cudaFreeAsync",
	"cudaMallocManaged", "cudaEventRecord", "cudaEventSynchronize", "cudaStreamWaitEvent",
	"cudaEventCreate", "cudaEventDestroy", "cudaStreamCreate", "cudaStreamDestroy",
	"cudaMemcpyToSymbol", "cudaMemcpy2D", "cudaMemcpyPeer",
};
#define N_COMMON (int)(sizeof common_funcs / sizeof common_funcs[0])

static int full_name(char *buf, size_t len, const char *event, int device)
{
	if (device >= 0)
		return snprintf(buf, len, "cupti_cb:::%s:device=%d:process", event, device) < (int)len;
	return snprintf(buf, len, "cupti_cb:::%s:process", event) < (int)len;
}

static int offered(const char *name)
{
	int code = 0;
	return PAPI_event_name_to_code(name, &code) == PAPI_OK;
}

/* Adds one event to part p, and its slot.  Returns PAPI_OK or the refusal (the cap included). */
static int add(struct cupti_cb_inj *s, int p, const char *name, int kind, int field, int func, int device,
	       int group)
{
	if (s->max_events > 0 && s->n_slots >= s->max_events)
		return PAPI_ECOUNT;
	if (s->n_slots == s->cap_slots) {
		int cap = s->cap_slots ? 2 * s->cap_slots : 256;
		struct cupti_cb_inj_slot *n = realloc(s->slots, (size_t)cap * sizeof *n);
		if (!n)
			return PAPI_ENOMEM;
		s->slots = n;
		s->cap_slots = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return PAPI_ENOMEM;
	int rc = PAPI_add_named_event(s->parts[p].owner.eventset, name);
	if (rc != PAPI_OK) {
		free(copy);
		cupti_cb_inj_trace(s, "add %s: %s", name, PAPI_strerror(rc));
		return rc;
	}
	struct cupti_cb_inj_slot *sl = &s->slots[s->n_slots++];
	memset(sl, 0, sizeof *sl);
	sl->name = copy;
	sl->kind = kind;
	sl->field = field;
	sl->func = func;
	sl->device = device;
	sl->group = group;
	sl->part = p;
	s->parts[p].n_events++;
	return PAPI_OK;
}

/* Removes the slots from index `from` on whose group is g (g < 0: all from `from`). */
static void remove_slots(struct cupti_cb_inj *s, int from, int g)
{
	int w = from;
	for (int i = from; i < s->n_slots; i++) {
		struct cupti_cb_inj_slot *sl = &s->slots[i];
		if (g < 0 || sl->group == g) {
			int rc = PAPI_remove_named_event(s->parts[sl->part].owner.eventset, sl->name);
			if (rc != PAPI_OK)
				cupti_cb_inj_trace(s, "remove %s: %s", sl->name, PAPI_strerror(rc));
			s->parts[sl->part].n_events--;
			free(sl->name);
		} else {
			s->slots[w++] = *sl;
		}
	}
	s->n_slots = w;
}

static const char *refusal(const struct cupti_cb_inj *s, int rc)
{
	static char buf[128];
	if (rc == PAPI_ECOUNT && s->max_events > 0 && s->n_slots >= s->max_events)
		snprintf(buf, sizeof buf, "CUPTI_CB_RUN_MAX_EVENTS=%ld", s->max_events);
	else
		snprintf(buf, sizeof buf, "PAPI: %s", PAPI_strerror(rc));
	return buf;
}

/* The component's sentence when it is disabled, else the PAPI error's. */
static void set_reason(struct cupti_cb_inj *s, const char *what, int rc)
{
	const PAPI_component_info_t *ci = s->cidx >= 0 ? PAPI_get_component_info(s->cidx) : NULL;
	if (ci && ci->disabled && ci->disabled_reason[0])
		snprintf(s->reason, sizeof s->reason, "%s", ci->disabled_reason);
	else
		snprintf(s->reason, sizeof s->reason, "%s: %s", what, PAPI_strerror(rc));
}

static int count_devices(void)
{
	char name[128];
	int n = 0;
	while (n < 127 && full_name(name, sizeof name, "kernel.launches", n) && offered(name))
		n++;
	return n;
}

/* 1, 2: returns 0 when adding may go on, -1 when the set is full (noted). */
static int add_core(struct cupti_cb_inj *s)
{
	char name[256];
	for (int i = 1; i < cupti_cb_inj_n_totals; i++) {
		if (!s->host_time && cupti_cb_inj_host_time(cupti_cb_inj_totals[i]))
			continue;
		full_name(name, sizeof name, cupti_cb_inj_totals[i], -1);
		if (!offered(name)) {
			cupti_cb_inj_note(s, "%s is not offered by this cupti_cb: left out", cupti_cb_inj_totals[i]);
			continue;
		}
		int rc = add(s, 0, name, CUPTI_CB_INJ_TOTAL, i, -1, -1, CUPTI_CB_INJ_G_CORE);
		if (rc != PAPI_OK) {
			cupti_cb_inj_note(s, "the event set is full at %s (%s): it and every later event were left out",
					  cupti_cb_inj_totals[i], refusal(s, rc));
			return -1;
		}
	}
	for (int e = 0; e < cupti_cb_inj_n_dev_events; e++) {
		int gpu = e >= cupti_cb_inj_first_gpu_event;
		if ((gpu && !s->activity) || (!s->host_time && cupti_cb_inj_host_time(cupti_cb_inj_dev_events[e])))
			continue;
		full_name(name, sizeof name, cupti_cb_inj_dev_events[e], 0);
		if (!offered(name)) {
			cupti_cb_inj_note(s, "%s is not offered by this cupti_cb: left out", cupti_cb_inj_dev_events[e]);
			continue;
		}
		for (int d = 0; d < s->n_devices; d++) {
			full_name(name, sizeof name, cupti_cb_inj_dev_events[e], d);
			int rc = add(s, 0, name, CUPTI_CB_INJ_DEVICE, e, -1, d,
				     gpu ? CUPTI_CB_INJ_G_ACTIVITY : CUPTI_CB_INJ_G_CORE);
			if (rc != PAPI_OK) {
				cupti_cb_inj_note(s, "the event set is full at %s:device=%d (%s): it and every later "
						  "event were left out", cupti_cb_inj_dev_events[e], d, refusal(s, rc));
				return -1;
			}
		}
	}
	return 0;
}

/* The catalogue's CUDA functions (names of <f>.calls), the common ones first. */
static void list_functions(struct cupti_cb_inj *s)
{
	int code = PAPI_NATIVE_MASK, cap = 0, n = 0;
	char **all = NULL;
	char name[PAPI_MAX_STR_LEN];
	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, s->cidx) != PAPI_OK)
		return;
	do {
		if (PAPI_event_code_to_name(code, name) != PAPI_OK)
			continue;
		const char *b = strstr(name, ":::");
		b = b ? b + 3 : name;
		size_t len = strlen(b);
		if ((strncmp(b, "cu", 2) && strncmp(b, "__cu", 4)) || len < 7 || strcmp(b + len - 6, ".calls"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 512;
			char **g = realloc(all, (size_t)cap * sizeof *g);
			if (!g)
				break;
			all = g;
		}
		all[n] = strndup(b, len - 6);
		if (all[n])
			n++;
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, s->cidx) == PAPI_OK);
	/* the common functions first, in their order: each is swapped to the front */
	int w = 0;
	for (int c = 0; c < N_COMMON; c++)
		for (int i = w; i < n; i++)
			if (!strcmp(all[i], common_funcs[c])) {
				char *tmp = all[i];
				memmove(&all[w + 1], &all[w], (size_t)(i - w) * sizeof *all);
				all[w++] = tmp;
				break;
			}
	s->funcs = all;
	s->n_funcs = n;
}

/* ---- parts (see cupti_cb_inject_state.h) ---- */

/* Stops part p (on its own thread: the owner's finish) and puts its values in s->values. */
static void stop_part(struct cupti_cb_inj *s, int p)
{
	struct cupti_cb_inj_part *pt = &s->parts[p];
	if (!pt->started || !s->values)
		return;
	long long *v = calloc((size_t)(pt->n_events ? pt->n_events : 1), sizeof *v);
	if (!v) {
		cupti_cb_inj_note(s, "out of memory at exit: event set %d was not read", p);
		return;
	}
	int rc = PAPI_stop(pt->owner.eventset, v);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "PAPI_stop of event set %d failed at exit (%s): its counts are those of a "
				  "last PAPI_read", p, PAPI_strerror(rc));
		rc = PAPI_read(pt->owner.eventset, v);
	}
	if (rc != PAPI_OK) {
		if (p == 0) {
			s->counting = 0;
			snprintf(s->reason, sizeof s->reason, "PAPI_read failed at exit: %s", PAPI_strerror(rc));
		}
		free(v);
		return;
	}
	/* PAPI gives a set's values in the order its events were added, as the slots are. */
	for (int i = 0, k = 0; i < s->n_slots && k < pt->n_events; i++)
		if (s->slots[i].part == p)
			s->values[i] = v[k++];
	free(v);
}

/* A part's thread stops its own set (owner is the first member of its part). */
static void part_finish(struct cupti_cb_inj_owner *o, void *arg)
{
	struct cupti_cb_inj *s = arg;
	stop_part(s, (int)((struct cupti_cb_inj_part *)(void *)o - s->parts));
}

int cupti_cb_inj_open_part(struct cupti_cb_inj *s, int windowed)
{
	if (s->n_parts == CUPTI_CB_INJ_MAX_PARTS)
		return PAPI_ECOUNT;
	struct cupti_cb_inj_part *pt = &s->parts[s->n_parts];
	memset(pt, 0, sizeof *pt);
	pt->windowed = windowed;
	pt->owner.finish = part_finish;
	pt->owner.arg = s;
	int rc = cupti_cb_inj_owner_start(&pt->owner);
	if (rc == PAPI_OK)
		s->n_parts++;
	return rc;
}

int cupti_cb_inj_finish_parts(struct cupti_cb_inj *s, int timeout_s)
{
	int rc = 0;
	for (int p = 0; p < s->n_parts; p++)
		if (cupti_cb_inj_owner_finish(&s->parts[p].owner, timeout_s) != 0)
			rc = -1;
	return rc;
}

/* The part that takes the next function's events of one kind: the current one while it has
 * room, else a new one; -1 (why says why) when none can be had. */
static int part_for(struct cupti_cb_inj *s, int *cur, int windowed, int n_events, char *why, size_t len)
{
	if (*cur >= 0) {
		const struct cupti_cb_inj_part *pt = &s->parts[*cur];
		if (pt->n_events + n_events <= CUPTI_CB_INJ_PART_EVENTS &&
		    (!windowed || pt->n_funcs < CUPTI_CB_INJ_WINDOW_FUNCS))
			return *cur;
	}
	int rc = cupti_cb_inj_open_part(s, windowed);
	if (rc != PAPI_OK) {
		snprintf(why, len, "no event set of their own for more functions: %s", PAPI_strerror(rc));
		return -1;
	}
	return *cur = s->n_parts - 1;
}

static int is_windowed(int field)
{
	return !strcmp(cupti_cb_inj_func_fields[field], "time_ns_min") ||
	       !strcmp(cupti_cb_inj_func_fields[field], "time_ns_max");
}

/* 3: every function with all its offered events, until PAPI refuses. */
static void add_functions(struct cupti_cb_inj *s, int set_full)
{
	char name[512];
	int fields[2][8], n_fields[2] = { 0, 0 };	/* [0]: counters, [1]: minimum and maximum */
	list_functions(s);
	if (s->n_funcs == 0) {
		cupti_cb_inj_note(s, "the cupti_cb catalogue lists no CUDA function: the api rows are empty");
		return;
	}
	for (int k = 0; k < cupti_cb_inj_n_func_fields; k++) {
		char full[600];
		if (!s->host_time && cupti_cb_inj_host_time(cupti_cb_inj_func_fields[k]))
			continue;
		snprintf(name, sizeof name, "%s.%s", s->funcs[0], cupti_cb_inj_func_fields[k]);
		full_name(full, sizeof full, name, -1);
		if (offered(full)) {
			int w = is_windowed(k);
			fields[w][n_fields[w]++] = k;
		} else {
			cupti_cb_inj_note(s, "<function>.%s is not offered by this cupti_cb: left out",
					  cupti_cb_inj_func_fields[k]);
		}
	}
	int f = 0, rc = PAPI_OK, cur[2] = { -1, -1 };
	char why[160] = "full before the functions";
	for (; !set_full && f < s->n_funcs; f++) {
		int first = s->n_slots, p[2] = { -1, -1 };
		for (int w = 0; w < 2 && rc == PAPI_OK; w++) {
			if (!n_fields[w])
				continue;
			if ((p[w] = part_for(s, &cur[w], w, n_fields[w], why, sizeof why)) < 0) {
				rc = PAPI_ENOMEM;
				break;
			}
			for (int k = 0; k < n_fields[w] && rc == PAPI_OK; k++) {
				char full[600];
				snprintf(name, sizeof name, "%s.%s", s->funcs[f], cupti_cb_inj_func_fields[fields[w][k]]);
				full_name(full, sizeof full, name, -1);
				rc = add(s, p[w], full, CUPTI_CB_INJ_FUNC, fields[w][k], f, -1, CUPTI_CB_INJ_G_FUNCS);
				if (rc != PAPI_OK)
					snprintf(why, sizeof why, "%s", refusal(s, rc));	/* before the removal */
			}
		}
		if (rc != PAPI_OK) {
			remove_slots(s, first, -1);
			break;
		}
		for (int w = 0; w < 2; w++)
			if (p[w] >= 0)
				s->parts[p[w]].n_funcs++;
	}
	s->funcs_in_set = f;
	if (f < s->n_funcs)
		cupti_cb_inj_note(s, "per-function counts for %d of %d CUDA functions (the most common first): "
				  "the event sets hold no more (%s)", f, s->n_funcs, why);
}

/* PAPI_start, giving up the gpu.* events if it fails. */
static int start(struct cupti_cb_inj *s)
{
	static const int give_up[] = { CUPTI_CB_INJ_G_ACTIVITY };
	static const char *const what[] = { "the gpu.* events" };
	int rc = PAPI_start(s->parts[0].owner.eventset);
	for (unsigned i = 0; rc != PAPI_OK && i < sizeof give_up / sizeof give_up[0]; i++) {
		int present = 0;
		for (int j = 0; j < s->n_slots; j++)
			present |= s->slots[j].group == give_up[i];
		if (!present)
			continue;
		cupti_cb_inj_note(s, "%s were left out: PAPI_start refused the set with them (%s)", what[i],
				  PAPI_strerror(rc));
		remove_slots(s, 0, give_up[i]);
		rc = PAPI_start(s->parts[0].owner.eventset);
	}
	return rc;
}

/* The per-function parts; one that cannot start loses its events (noted): the functions
 * then show without those counts. */
static void start_function_parts(struct cupti_cb_inj *s)
{
	for (int p = 1; p < s->n_parts; p++) {
		struct cupti_cb_inj_part *pt = &s->parts[p];
		if (!pt->n_events)
			continue;
		int rc = PAPI_start(pt->owner.eventset);
		if (rc == PAPI_OK) {
			pt->started = 1;
			continue;
		}
		cupti_cb_inj_note(s, "per-function %s of %d functions were left out: PAPI_start refused their "
				  "event set (%s)", pt->windowed ? "minimum and maximum times" : "counts",
				  pt->n_funcs, PAPI_strerror(rc));
		int w = 0;
		for (int i = 0; i < s->n_slots; i++)
			if (s->slots[i].part == p)
				free(s->slots[i].name);
			else
				s->slots[w++] = s->slots[i];
		s->n_slots = w;
		pt->n_events = 0;
	}
}

void cupti_cb_inj_build_and_start(struct cupti_cb_inj *s)
{
	char name[128];
	/* The first add runs cupti_cb's driver stage: the component is disabled after it when it
	 * cannot count (no driver, another CUPTI subscriber, ...). */
	full_name(name, sizeof name, cupti_cb_inj_totals[0], -1);
	int rc = add(s, 0, name, CUPTI_CB_INJ_TOTAL, 0, -1, -1, CUPTI_CB_INJ_G_CORE);
	if (rc != PAPI_OK) {
		set_reason(s, "PAPI_add_named_event(cupti_cb:::api.calls:process)", rc);
		return;
	}
	s->n_devices = count_devices();
	cupti_cb_inj_trace(s, "%d device(s)", s->n_devices);
	if (!s->host_time)
		cupti_cb_inj_trace(s, "no host time (CUPTI_CB_RUN_TIME=0): the callbacks read no clock");
	int full = add_core(s) != 0;
	add_functions(s, full);
	cupti_cb_inj_trace(s, "%d events in %d sets, %d of %d functions", s->n_slots, s->n_parts,
			   s->funcs_in_set, s->n_funcs);
	s->values = calloc((size_t)s->n_slots, sizeof *s->values);
	if (!s->values) {
		snprintf(s->reason, sizeof s->reason, "out of memory");
		return;
	}
	rc = start(s);
	if (rc != PAPI_OK) {
		set_reason(s, "PAPI_start", rc);
		return;
	}
	s->parts[0].started = 1;
	s->counting = 1;
	start_function_parts(s);
}

