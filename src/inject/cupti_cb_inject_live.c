/*
 * cupti_cb_inject_live.c: the live view (CUPTI_CB_RUN_INTERVAL_MS=n).  Every n ms, one line on
 * stderr:
 *
 *   cupti_cb_run: 2.0 s api.calls=1234 kernel.launches=56 memcpy.bytes=1048576 gpu.busy=12.5%
 *
 * from a small process-scope set of its own, owned by its own thread (a second running
 * cupti_cb set needs a second PAPI thread).  Reads of callback events are a few loads; with
 * gpu.busy_ns (activity on) each read also flushes CUPTI's activity buffers, once per interval.
 * GPU busy is the busy time of the interval over the interval, averaged over the devices.
 *
 * Each tick also writes the counts it read to the process file as a "partial" one
 * (cupti_cb_inj_write_partial), which the exit handler's file replaces: a process that ends
 * without its exit handler (a crash, _exit) leaves the counts of its last tick.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "papi.h"

#include "cupti_cb_inject_clock.h"
#include "cupti_cb_inject_json.h"
#include "cupti_cb_inject_live.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_owner.h"
#include "cupti_cb_inject_timeline.h"

static const char *const live_events[] = { "api.calls", "kernel.launches", "memcpy.bytes", "gpu.busy_ns" };
#define N_LIVE 4

static struct {
	struct cupti_cb_inj_owner owner;
	const struct cupti_cb_inj *s;
	int n;			/* events in the set */
	long long prev_busy, prev_ns;
	int started;
} live;

static void tick(struct cupti_cb_inj_owner *o, void *arg)
{
	(void)arg;
	long long v[N_LIVE] = { 0 };
	if (PAPI_read(o->eventset, v) != PAPI_OK)
		return;
	long long now = cupti_cb_inj_now_ns();
	char busy[48] = "";
	if (live.n == N_LIVE && live.s->n_devices > 0 && now > live.prev_ns) {
		double pct = 100.0 * (double)(v[3] - live.prev_busy) / (double)(now - live.prev_ns) / live.s->n_devices;
		snprintf(busy, sizeof busy, " gpu.busy=%.1f%%", pct);
	}
	live.prev_busy = v[3];
	live.prev_ns = now;
	fprintf(stderr, CUPTI_CB_INJ_PREFIX "%.1f s api.calls=%lld kernel.launches=%lld memcpy.bytes=%lld%s\n",
		(double)(now - live.s->t0_ns) / 1e9, v[0], v[1], v[2], busy);
	/* Published too: a process that crashes or calls _exit writes no file at exit, and would
	 * otherwise look as if it had made no CUDA call. */
	cupti_cb_inj_write_partial(live.s, live_events, v, live.n, now - live.s->t0_ns);
	cupti_cb_inj_timeline_counters(live_events, v, live.n, live.s->n_devices);
}

static void finish(struct cupti_cb_inj_owner *o, void *arg)
{
	(void)arg;
	long long v[N_LIVE];
	PAPI_stop(o->eventset, v);
}

void cupti_cb_inj_live_start(struct cupti_cb_inj *s)
{
	live.s = s;
	live.owner.interval_ms = 0;	/* no tick until the set runs */
	live.owner.tick = tick;
	live.owner.finish = finish;
	int rc = cupti_cb_inj_owner_start(&live.owner);
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "no live view: cannot create its event set (%s)", PAPI_strerror(rc));
		return;
	}
	int n = s->activity ? N_LIVE : N_LIVE - 1;
	for (live.n = 0; live.n < n; live.n++) {
		char name[128];
		snprintf(name, sizeof name, "cupti_cb:::%s:process", live_events[live.n]);
		rc = PAPI_add_named_event(live.owner.eventset, name);
		if (rc != PAPI_OK)
			break;
	}
	if (live.n >= N_LIVE - 1)
		rc = PAPI_start(live.owner.eventset);
	if (rc != PAPI_OK && live.n == N_LIVE) {	/* without gpu.busy_ns */
		PAPI_remove_named_event(live.owner.eventset, "cupti_cb:::gpu.busy_ns:process");
		live.n--;
		rc = PAPI_start(live.owner.eventset);
	}
	if (rc != PAPI_OK || live.n < N_LIVE - 1) {
		cupti_cb_inj_note(s, "no live view: its event set does not start (%s)", PAPI_strerror(rc));
		live.owner.finish = NULL;
		cupti_cb_inj_owner_finish(&live.owner, 5);
		return;
	}
	live.prev_ns = cupti_cb_inj_now_ns();
	pthread_mutex_lock(&live.owner.mu);
	live.owner.interval_ms = s->interval_ms;
	pthread_cond_broadcast(&live.owner.cv);
	pthread_mutex_unlock(&live.owner.mu);
	live.started = 1;
}

void cupti_cb_inj_live_stop(void)
{
	if (live.started)
		cupti_cb_inj_owner_finish(&live.owner, 5);
}
