/*
 * cupti_cb_inject_metrics.c: the hardware metrics of CUPTI_CB_RUN_METRICS (cupti_cb_run
 * --metrics), as cupti_cb's metric events <metric>:device=N for every device, in an event set
 * of their own owned by a thread of the library (a part, as in cupti_cb_inject_set.c).
 *
 * When.  The metric source needs the driver: the chip of each device (its catalogue and its
 * profiling session) and cuDeviceGet.  At InitializeInjection no driver function may be called
 * (a nested cuInit there makes the program's own cuInit fail: cupti_cb_inject.c), so the metric
 * events cannot be added where the other events are.  They are added later, on the part's own
 * thread, once the program's cuInit has returned and its first context exists.  The signal is
 * the first allocation, copy, memset or kernel launch the program made (process scope, on any
 * device): it comes after cuInit returned (the callbacks are enabled inside it, and the set starts
 * at the end of the set-up), and after the context it needed was created.  Starting the metrics
 * while the program's first context was being created made the two threads wait for each other
 * inside the driver, and later crashed the process (H100, CUDA 13.0: the first CUDA call, rather
 * than the first work, as the signal).  The thread waits for it with a small set (api.calls and
 * those four events of each device, in process scope), read every POLL_MS (a read of callback
 * events is a few loads), then every SLOW_POLL_MS after SLOW_AFTER_MS, and gives up after
 * CUPTI_CB_RUN_METRICS_WAIT_MS (default WAIT_MS) with a note.  A program whose first call after
 * cuInit creates its context loses nothing: the metric source enables the range profiler on a
 * context created after the start (its context callback waits for the start under the source's
 * lock), and adopts the primary context when it is already active.  GPU work issued between
 * that call and the start (a few ms, plus the range profiler's configuration) is not counted,
 * and the file says so.
 *
 * Cost.  One range of CUPTI's range profiler over the run on each device (one pass: a metric
 * that would make the set need a second pass is left out, with a note), configured once at the
 * start (130 to 210 ms on an H100 in the GPU tests, on the library's thread); the read at exit
 * waits for the GPU's work.  Kernels are not serialized, nothing is replayed.  CUPTI's profiler
 * stays initialized while the metrics count, which makes every kernel launch of the process
 * dearer (man/cupti_cb-lifecycle.7, "The profiler": 3.5 times a bare launch with four threads launching at
 * once on an H100): the callback counts are not changed, the program's speed is.
 *
 * Refusals (an unknown name, a second pass, no profiling permission, another profiler on the
 * device) become notes; the other events count on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

#include "cupti_cb_inject_clock.h"
#include "cupti_cb_inject_metrics.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_owner.h"

#define POLL_MS 2
#define SLOW_POLL_MS 20
#define SLOW_AFTER_MS 2000
#define WAIT_MS 600000L
/* cupti_cb's metric source takes at most 128 metric events in one set. */
#define MAX_METRICS 128
/* The events that say the program issued work, per device, after api.calls. */
static const char *const work_events[] = { "alloc.calls", "memcpy.calls", "memset.calls", "kernel.launches" };
#define N_WORK 4
#define MAX_WAIT_DEVICES 16
#define MAX_WAIT (1 + N_WORK * MAX_WAIT_DEVICES)

enum { IDLE, WAITING, COUNTING, DONE };

static struct {
	struct cupti_cb_inj_owner owner;
	struct cupti_cb_inj *s;
	int phase;
	int n_wait;			/* events of the set that waits for the first work */
	long wait_ms;			/* give up after */
	long long wait_t0;		/* when the wait began */
	struct cupti_cb_inj_metric m[MAX_METRICS];
	int n;
	int results;			/* m[] holds values */
} mx;

static void set_interval(struct cupti_cb_inj_owner *o, long ms)
{
	pthread_mutex_lock(&o->mu);
	o->interval_ms = ms;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

static double ms_since(long long t)
{
	return (double)(cupti_cb_inj_now_ns() - t) / 1e6;
}

/* Why the component refused to add a metric, in words (its own sentence goes to stderr with
 * CUPTI_CB_TRACE=1 or PAPI_VERBOSE=1). */
static void note_refused_add(struct cupti_cb_inj *s, const char *metric, int device, int rc)
{
	if (rc == PAPI_ENOEVNT)
		cupti_cb_inj_note(s, "hardware metric %s (device %d) was left out: cupti_cb knows no such metric "
				  "on this GPU (papi_native_avail -i cupti_cb lists them)", metric, device);
	else if (rc == PAPI_ECNFLCT)
		cupti_cb_inj_note(s, "hardware metric %s (device %d) was left out: it needs more than one pass, alone or "
				  "with the metrics before it in the list, and a run is one range (one pass); "
				  "collect it in another run", metric, device);
	else
		cupti_cb_inj_note(s, "hardware metric %s (device %d) was left out: %s", metric, device,
				  PAPI_strerror(rc));
}

static void note_refused_start(struct cupti_cb_inj *s, int rc)
{
	if (rc == PAPI_EPERM)
		cupti_cb_inj_note(s, "hardware metrics were not collected: profiling is restricted to "
				  "administrators (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): load the nvidia module "
				  "with NVreg_RestrictProfilingToAdminUsers=0, or run as root");
	else if (rc == PAPI_ECNFLCT)
		cupti_cb_inj_note(s, "hardware metrics were not collected: another profiling session of this "
				  "process holds metrics on the device that, with these, need more than one pass");
	else
		cupti_cb_inj_note(s, "hardware metrics were not collected: their event set did not start (%s): "
				  "another profiler may hold the device (Nsight Compute, Nsight Systems GPU "
				  "metrics, DCGM profiling); CUPTI_CB_TRACE=1 shows cupti_cb's reason",
				  PAPI_strerror(rc));
}

/* Adds one metric on every device; 1 when the metric source has no catalogue at all (every
 * later name would be refused the same way). */
static int add_metric(struct cupti_cb_inj *s, int es, const char *metric)
{
	for (int d = 0; d < s->n_devices; d++) {
		char full[256];
		if (mx.n == MAX_METRICS) {
			cupti_cb_inj_note(s, "hardware metric %s (device %d) was left out: one run collects at most "
					  "%d metric events", metric, d, MAX_METRICS);
			return 0;
		}
		if (snprintf(full, sizeof full, "cupti_cb:::%s:device=%d", metric, d) >= (int)sizeof full ||
		    strlen(metric) >= sizeof mx.m[0].name) {
			cupti_cb_inj_note(s, "hardware metric %.64s... was left out: the name is too long", metric);
			return 0;
		}
		int rc = PAPI_add_named_event(es, full);
		if (rc != PAPI_OK) {
			int code = 0;
			cupti_cb_inj_trace(s, "add %s: %s", full, PAPI_strerror(rc));
			if (rc == PAPI_ENOEVNT &&
			    PAPI_event_name_to_code("cupti_cb:::gpu__time_duration.sum:device=0", &code) != PAPI_OK)
				return 1;
			note_refused_add(s, metric, d, rc);
			if (rc == PAPI_ENOEVNT)
				return 0;	/* the same on every device */
			continue;
		}
		struct cupti_cb_inj_metric *m = &mx.m[mx.n++];
		memset(m, 0, sizeof *m);
		snprintf(m->name, sizeof m->name, "%s", metric);
		m->device = d;
		PAPI_event_info_t info;
		int code = 0;
		if (PAPI_event_name_to_code(full, &code) == PAPI_OK && PAPI_get_event_info(code, &info) == PAPI_OK) {
			m->fp64 = info.data_type == PAPI_DATATYPE_FP64;
			snprintf(m->units, sizeof m->units, "%s", info.units);
		}
	}
	return 0;
}

/* Every metric of the list (comma-separated, as the runner expanded it) in the set. */
static void add_metrics(struct cupti_cb_inj *s, int es)
{
	char *list = strdup(s->metrics), *save = NULL;
	if (!list)
		return;
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (!strncmp(name, "cupti_cb:::", 11))
			name += 11;	/* set by hand, not by the runner (which drops it) */
		if (!*name)
			continue;
		if (add_metric(s, es, name)) {
			cupti_cb_inj_note(s, "hardware metrics were not collected: cupti_cb offers no metric in this "
					  "process (no metric catalogue: CUPTI_CB_TRACE=1 says why)");
			break;
		}
	}
	free(list);
}

/* The program's cuInit has returned: the metric events replace api.calls, and start. */
static void begin_metrics(struct cupti_cb_inj *s, int es)
{
	long long v[MAX_WAIT], t = cupti_cb_inj_now_ns();
	double seen_ms = (double)(t - s->t0_ns) / 1e6;
	PAPI_stop(es, v);
	int rc = PAPI_cleanup_eventset(es);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "hardware metrics were not collected: their event set cannot be emptied (%s)",
				  PAPI_strerror(rc));
		return;
	}
	cupti_cb_inj_trace(s, "the program's first GPU work (allocation, copy, memset or launch) seen %.1f ms "
			   "after cuInit began: adding the metrics", seen_ms);
	add_metrics(s, es);
	if (mx.n == 0)
		return;
	rc = PAPI_start(es);
	if (rc != PAPI_OK) {
		note_refused_start(s, rc);
		mx.n = 0;
		PAPI_cleanup_eventset(es);
		return;
	}
	mx.phase = COUNTING;
	cupti_cb_inj_trace(s, "hardware metrics started %.1f ms after cuInit began (set-up %.1f ms)", seen_ms,
			   ms_since(t));
	/* The same sentences in every process, so that the runner's report, which merges equal
	 * notes, says them once for a run of many ranks. */
	cupti_cb_inj_note(s, "hardware metrics counted from the program's first allocation, copy, memset or "
			  "kernel launch to its exit: GPU work issued before they started is not included");
	cupti_cb_inj_note(s, "hardware metrics: one range of CUPTI's range profiler over the run on each "
			  "device (one pass), set up once on a thread of the library (130 to 210 ms on an "
			  "H100); reading it at exit waits for the GPU's work; while it runs, CUPTI's "
			  "profiler makes every kernel launch dearer");
}

static void tick(struct cupti_cb_inj_owner *o, void *arg)
{
	struct cupti_cb_inj *s = arg;
	long long v[MAX_WAIT] = { 0 }, work = 0;
	if (mx.phase != WAITING)
		return;
	int read = PAPI_read(o->eventset, v) == PAPI_OK;
	for (int i = 1; read && i < mx.n_wait; i++)
		work += v[i];
	if (work > 0) {
		set_interval(o, 0);	/* no more ticks */
		mx.phase = DONE;	/* unless begin_metrics starts them */
		begin_metrics(s, o->eventset);
		return;
	}
	double waited = ms_since(mx.wait_t0);
	if (waited >= (double)mx.wait_ms) {
		set_interval(o, 0);
		mx.phase = DONE;
		PAPI_stop(o->eventset, v);
		cupti_cb_inj_note(s, "hardware metrics were not collected: the program issued no GPU work within "
				  "%ld ms after cuInit (CUPTI_CB_RUN_METRICS_WAIT_MS), and they can only start "
				  "after its first allocation, copy, memset or kernel launch", mx.wait_ms);
	} else if (waited >= SLOW_AFTER_MS && o->interval_ms == POLL_MS) {
		set_interval(o, SLOW_POLL_MS);
	}
}

/* At exit, on the part's thread. */
static void finish(struct cupti_cb_inj_owner *o, void *arg)
{
	struct cupti_cb_inj *s = arg;
	long long v[MAX_METRICS > MAX_WAIT ? MAX_METRICS : MAX_WAIT];
	if (mx.phase == WAITING) {
		v[0] = 0;
		PAPI_stop(o->eventset, v);
		long long work = 0;
		for (int i = 1; i < mx.n_wait; i++)
			work += v[i];
		if (work > 0)
			cupti_cb_inj_note(s, "hardware metrics were not collected: the program exited before they "
					  "could start (they start on a thread of the library, within %d ms of the "
					  "program's first allocation, copy, memset or kernel launch)", SLOW_POLL_MS);
		else
			cupti_cb_inj_note(s, "hardware metrics were not collected: the program issued no GPU work "
					  "(allocation, copy, memset or kernel launch) before it exited, and they can "
					  "only start after its first");
	}
	if (mx.phase != COUNTING)
		return;
	int rc = PAPI_stop(o->eventset, v);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "PAPI_stop of the hardware metrics failed at exit (%s): their values are "
				  "those of a last PAPI_read", PAPI_strerror(rc));
		rc = PAPI_read(o->eventset, v);
	}
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "hardware metrics were not read at exit: %s", PAPI_strerror(rc));
		return;
	}
	for (int i = 0; i < mx.n; i++)
		mx.m[i].value = v[i];
	mx.results = 1;
}

static long wait_ms(void)
{
	const char *v = getenv("CUPTI_CB_RUN_METRICS_WAIT_MS");
	char *end;
	long ms = v && *v ? strtol(v, &end, 10) : -1;
	return v && *v && !*end && ms >= 0 ? ms : WAIT_MS;
}

void cupti_cb_inj_metrics_start(struct cupti_cb_inj *s)
{
	if (!s->metrics || !s->counting)
		return;
	if (s->n_devices < 1) {
		cupti_cb_inj_note(s, "hardware metrics were not collected: no device is counted");
		return;
	}
	mx.s = s;
	mx.wait_ms = wait_ms();
	mx.owner.interval_ms = 0;	/* no tick until the set runs */
	mx.owner.tick = tick;
	mx.owner.finish = finish;
	mx.owner.arg = s;
	int rc = cupti_cb_inj_owner_start(&mx.owner);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "hardware metrics were not collected: no event set for them (%s)",
				  PAPI_strerror(rc));
		return;
	}
	rc = PAPI_add_named_event(mx.owner.eventset, "cupti_cb:::api.calls:process");
	mx.n_wait = 1;
	for (int d = 0; rc == PAPI_OK && d < s->n_devices && d < MAX_WAIT_DEVICES; d++)
		for (int k = 0; rc == PAPI_OK && k < N_WORK; k++) {
			char name[128];
			snprintf(name, sizeof name, "cupti_cb:::%s:device=%d:process", work_events[k], d);
			if ((rc = PAPI_add_named_event(mx.owner.eventset, name)) == PAPI_OK)
				mx.n_wait++;
		}
	if (rc == PAPI_OK)
		rc = PAPI_start(mx.owner.eventset);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "hardware metrics were not collected: the set that waits for the program's "
				  "first CUDA call did not start (%s)", PAPI_strerror(rc));
		mx.owner.finish = NULL;
		cupti_cb_inj_owner_finish(&mx.owner, 5);
		return;
	}
	mx.phase = WAITING;
	mx.wait_t0 = cupti_cb_inj_now_ns();
	set_interval(&mx.owner, POLL_MS);
}

int cupti_cb_inj_metrics_stop(struct cupti_cb_inj *s, int timeout_s)
{
	(void)s;
	if (mx.phase == IDLE)
		return 0;
	return cupti_cb_inj_owner_finish(&mx.owner, timeout_s);
}

int cupti_cb_inj_metrics_results(const struct cupti_cb_inj_metric **out)
{
	*out = mx.m;
	return mx.results ? mx.n : 0;
}
