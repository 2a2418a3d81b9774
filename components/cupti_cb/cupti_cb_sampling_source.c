/* cupti_cb_sampling_source.c: GPU hardware metrics through CUPTI's PM
 * sampling, as a source. Its names are the metrics PM sampling can
 * collect on the chip (cupti_cb_profiler_catalog_build_for), each with the
 * tag ":sampled" (cupti_cb:::dram__bytes_read.sum:sampled), so that the
 * same metric stays available from the Range Profiler under its plain name
 * (cupti_cb_metric_source.c).
 *
 * Why a second source of the same metrics: a Range Profiler read ends,
 * decodes and restarts a range (milliseconds, a wait for the GPU), so a
 * tool that reads at every region boundary pays that at every boundary.
 * PM sampling counts continuously; one decode thread per device keeps
 * running totals (cupti_cb_sampling_session.c), and a read here is a copy
 * of them: no lock, no CUPTI call, the same in a signal handler. What it
 * costs: the values are device-wide (every context and process), their
 * age is up to one interval plus one decode period, and the metrics must
 * fit one pass.
 *
 * The cold path (add, start, stop, reset, cleanup) runs under the source's
 * lock and calls CUPTI as cupti_cb's own calls (cupti_cb_own_begin). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_profiler_api.h"
#include "cupti_cb_profiler_base.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_profiler_events.h"
#include "cupti_cb_profiler_front.h"
#include "cupti_cb_sampling_session.h"
#include "cupti_cb_services.h"
#include "cupti_cb_signal_context.h"
#include "cupti_cb_source.h"

#define MAX_EVENTS 64			/* sampled metrics in one event set */
#define CTX_THREAD 0			/* a call from the thread's own code */
#define CTX_HANDLER 1			/* a call from a signal handler (cupti_cb_signal_context.h) */
#define COUNTERS_WHO "PM sampling (:sampled)"

#define TRACE(m, ...) CUPTI_CB_PROFILER_TRACE(&(m)->b, __VA_ARGS__)

struct ssrc {
	/* The services, the Profiler API, the profiler's holds, the devices'
	 * chips, the catalogue and the source's lock (b.lock), shared in form
	 * with the Range Profiler's source; first, as the descriptor's
	 * catalogue entries take self to be it (cupti_cb_profiler_front.h). */
	struct cupti_cb_profiler_base b;
	struct cupti_cb_sampling_session *sess[CUPTI_CB_MAX_DEVICES];
	uint8_t claimed[CUPTI_CB_MAX_DEVICES];	/* the device's counters claimed (cupti_cb_services_claim_counters) */
	struct cupti_cb_sampling_options opt;
	int have_opt;
	unsigned epoch;			/* bumped when the sessions go (PAPI_shutdown, fork) */
	char *passes_key;		/* the last pass count computed, by its list of names */
	size_t passes_val;
};

/* A session's losses as a window sees them: every loss, and the hard ones
 * (cupti_cb_sampling_session_snapshot_hard). */
struct loss {
	uint64_t all, hard;
};

/* One event set's sampled metrics. A read compares the sessions'
 * published totals with the set's base; the base has two copies so that a
 * read in a signal handler that interrupts a reset sees one whole. */
struct sset {
	unsigned n;
	int running;
	int held;			/* its metrics are in the sessions (from the first start) */
	unsigned epoch;
	uint32_t codes[MAX_EVENTS];
	char names[MAX_EVENTS][CUPTI_CB_NAME_MAX];
	const char *full[MAX_EVENTS];
	int additive[MAX_EVENTS];
	int extreme[MAX_EVENTS];	/* a counter's .max (1) or .min (-1): its own tracker, else 0 */
	unsigned trk[MAX_EVENTS];	/* that tracker in the event's session */
	uint8_t integer[MAX_EVENTS];
	int dev[MAX_EVENTS];
	unsigned sid[MAX_EVENTS];	/* the metric's id in its device's session */
	struct cupti_cb_sampling_session *sess[MAX_EVENTS];
	struct {
		struct cupti_cb_profiler_total t[MAX_EVENTS];
		struct loss lost[MAX_EVENTS];
	} base[2];
	atomic_int cur;			/* the base readers use */
	/* The last read's totals in each context (CTX_THREAD, CTX_HANDLER),
	 * and when: a reset right after a read continues from there (see
	 * reset), from the read of its own context only, so that a sampler's
	 * read in a handler between the thread's read and reset does not move
	 * the base the thread's reset continues from. */
	struct {
		struct cupti_cb_profiler_total t[MAX_EVENTS];
		struct loss lost[MAX_EVENTS];
		double x[MAX_EVENTS];		/* the extremes' windows then */
		uint64_t samples[MAX_EVENTS];	/* the samples the session had added then */
		uint64_t gen[MAX_EVENTS];	/* the publications read then (0: a cut) */
		uint64_t ns;
		int have;
		int fresh;			/* no reset continued from it yet */
	} last[2];
	long long out[MAX_EVENTS];	/* the values at the stop */
	int bad;			/* the event whose window lost samples in the last failed read, or -1 */
	int gone;			/* the last read found the sessions gone (sessions_gone) */
	int bad_soft;			/* and they were gaps (a warning), not a hard loss */
	char why[CUPTI_CB_WHY_LEN];
};

/* ---- sessions (under the lock) --------------------------------------------------- */

static int session_error(int rc)
{
	switch (rc) {
	case CUPTI_CB_SAMPLING_OK:
		return CUPTI_CB_OK;
	case CUPTI_CB_SAMPLING_EPASSES:
		return CUPTI_CB_EPASSES;
	case CUPTI_CB_SAMPLING_ENOMEM:
		return CUPTI_CB_ENOMEM;
	case CUPTI_CB_SAMPLING_EBUSY:
		return CUPTI_CB_ECONFLICT;
	case CUPTI_CB_SAMPLING_EPERM:
		return CUPTI_CB_EPERM;
	case CUPTI_CB_SAMPLING_EUNSUPP:
		return CUPTI_CB_EUNAVAIL;
	case CUPTI_CB_SAMPLING_ELIMIT:
		return CUPTI_CB_ELIMIT;
	case CUPTI_CB_SAMPLING_EINVAL:
		return CUPTI_CB_EINVAL;
	default:
		return CUPTI_CB_ECUPTI;
	}
}

/* The device's session, made at its first use: the options, the
 * profiler, the device's counters, PM sampling enabled. */
static struct cupti_cb_sampling_session *session(struct ssrc *m, int dev, int *err, char *why, size_t len)
{
	*err = CUPTI_CB_EUNAVAIL;
	if (m->sess[dev])
		return m->sess[dev];
	const char *chip = cupti_cb_profiler_base_chip_locked(&m->b, dev);
	if (!chip) {
		snprintf(why, len, "%s", m->b.why[0] ? m->b.why : "no such CUDA device");
		return NULL;
	}
	if (cupti_cb_profiler_base_other_chip(&m->b, dev, chip, why, len))
		return NULL;
	if (m->b.dev_unsupported[dev][0]) {
		snprintf(why, len, "%s", m->b.dev_unsupported[dev]);
		return NULL;
	}
	if (!m->have_opt && cupti_cb_sampling_options_from_env(&m->opt, why, len)) {
		*err = CUPTI_CB_EINVAL;
		return NULL;
	}
	m->have_opt = 1;
	struct cupti_cb_sampling_session *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, len, "out of memory");
		*err = CUPTI_CB_ENOMEM;
		return NULL;
	}
	if (cupti_cb_profiler_base_hold(&m->b, why, len)) {
		free(s);
		*err = CUPTI_CB_ECUPTI;
		return NULL;
	}
	int rc = cupti_cb_sampling_session_init(s, &m->b.p, &m->b.pm, dev, chip, &m->opt, m->b.e->trace, why, len);
	if (rc) {
		cupti_cb_profiler_base_release(&m->b);
		free(s);
		*err = session_error(rc);
		return NULL;
	}
	m->sess[dev] = s;
	return s;
}

/* A device whose session no set holds any more lets PM sampling go
 * (cuptiPmSamplingDisable: while it is enabled, even stopped, the Range
 * Profiler cannot start on the device), then the profiler and the
 * device's counters. At the cleanup of the last set, never in a stop. */
static void end_session_locked(struct ssrc *m, int d)
{
	uint64_t t0 = cupti_cb_mono_ns();
	cupti_cb_sampling_session_destroy(m->sess[d]);
	free(m->sess[d]);
	m->sess[d] = NULL;
	cupti_cb_profiler_base_release(&m->b);
	TRACE(m, "device %d: no sampled metric held: PM sampling disabled (%.1f ms)", d,
	      (cupti_cb_mono_ns() - t0) / 1e6);
}

static void release_idle_locked(struct ssrc *m)
{
	for (int d = 0; d < CUPTI_CB_MAX_DEVICES; d++) {
		if (m->sess[d] && cupti_cb_sampling_session_idle(m->sess[d]))
			end_session_locked(m, d);
		if (m->claimed[d] && !m->sess[d]) {
			cupti_cb_services_release_counters(m->b.e, d, COUNTERS_WHO);
			m->claimed[d] = 0;
		}
	}
}

/* ---- event sets ---------------------------------------------------------------- */

static void *s_set_new(void *self)
{
	(void)self;
	struct sset *s = calloc(1, sizeof(struct sset));
	if (!s)
		return NULL;
	s->bad = -1;
	for (unsigned i = 0; i < MAX_EVENTS; i++)
		s->trk[i] = CUPTI_CB_SAMPLING_NO_TRACKER;
	return s;
}

static void let_go_locked(struct ssrc *m, struct sset *s)
{
	/* What a hold took, also one that failed half way: an event's
	 * session is set once its metric is wanted. */
	for (unsigned i = 0; i < MAX_EVENTS; i++) {
		if (s->sess[i] && s->epoch == m->epoch) {
			if (s->trk[i] != CUPTI_CB_SAMPLING_NO_TRACKER)
				cupti_cb_sampling_session_untrack(s->sess[i], s->trk[i]);
			cupti_cb_sampling_session_unwant(s->sess[i], &s->sid[i], 1);
		}
		s->sess[i] = NULL;
		s->trk[i] = CUPTI_CB_SAMPLING_NO_TRACKER;
	}
	s->held = 0;
	release_idle_locked(m);
}

/* What an add can know of a start's refusals: counters restricted to
 * administrators, a device of another chip, a device CUPTI says cannot be
 * sampled, the device's counters held by the Range Profiler's events. */
static int refusal_at_add(struct ssrc *m, struct sset *s, char *why, size_t len)
{
	int devs[CUPTI_CB_MAX_DEVICES];
	unsigned k;
	int rc = cupti_cb_profiler_base_add_devices(&m->b, s->codes, s->n, devs, &k, why, len);
	/* All under the lock the caller holds (set_update_locked). */
	for (unsigned i = 0; i < k && !rc; i++)
		if (!(rc = cupti_cb_profiler_base_check_device_locked(&m->b, devs[i], why, len)))
			rc = cupti_cb_services_check_counters(m->b.e, devs[i], COUNTERS_WHO, why, len);
	return rc;
}

/* Pass count of the set's names for PM sampling (host only), cached by list. */
static size_t passes_of(struct ssrc *m, struct sset *s, char *why, size_t len)
{
	size_t key_len = 1;
	for (unsigned i = 0; i < s->n; i++)
		key_len += strlen(s->full[i]) + 1;
	char *key = malloc(key_len);
	if (!key)
		return 0;
	key[0] = '\0';
	for (unsigned i = 0; i < s->n; i++)
		strcat(strcat(key, s->full[i]), ",");
	if (m->passes_key && !strcmp(key, m->passes_key)) {
		free(key);
		return m->passes_val;
	}
	struct cupti_cb_profiler_config cfg;
	if (cupti_cb_profiler_config_build_for(&cfg, &m->b.p, CUPTI_PROFILER_TYPE_PM_SAMPLING, m->b.chip, NULL, s->full,
					       s->n, why, len)) {
		free(key);
		return 0;
	}
	size_t passes = cfg.passes;
	cupti_cb_profiler_config_free(&cfg);
	free(m->passes_key);
	m->passes_key = key;
	m->passes_val = passes;
	return passes;
}

static int set_update_locked(struct ssrc *m, struct sset *s, const uint32_t *codes, unsigned n, char *why,
			     size_t len)
{
	let_go_locked(m, s);
	s->n = 0;
	for (unsigned i = 0; i < n; i++) {
		int rc = cupti_cb_profiler_front_event(&m->b, codes[i], s->names[i], sizeof s->names[i],
						       &s->additive[i], &s->integer[i], &s->extreme[i]);
		if (rc)
			return rc;
		s->codes[i] = codes[i];
		s->full[i] = s->names[i];
		s->trk[i] = CUPTI_CB_SAMPLING_NO_TRACKER;
	}
	s->n = n;
	if (n == 0)
		return CUPTI_CB_OK;
	int rc = refusal_at_add(m, s, why, len);
	size_t passes = rc ? 0 : passes_of(m, s, why, len);
	if (!rc && passes == 0)
		rc = CUPTI_CB_ECUPTI;
	if (!rc && passes > 1) {
		snprintf(why, len,
			 "these %u metrics need %zu passes on %s, and PM sampling collects one pass: sample fewer "
			 "metrics in one set, or read them from the Range Profiler (the names without :sampled)",
			 n, passes, m->b.chip);
		rc = CUPTI_CB_EPASSES;
	}
	if (rc)
		s->n = 0;
	return rc;
}

static int s_set_update(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len)
{
	struct ssrc *m = self;
	struct sset *s = set;
	int rc = cupti_cb_profiler_front_update_refusal(n, MAX_EVENTS, "sampled metrics", CUPTI_CB_ELIMIT, s->running, why,
							 len);
	if (rc)
		return rc;
	int prev = cupti_cb_own_begin();
	pthread_mutex_lock(&m->b.lock);
	rc = set_update_locked(m, s, codes, n, why, len);
	pthread_mutex_unlock(&m->b.lock);
	cupti_cb_own_end(prev);
	return rc;
}

/* Takes the set's metrics into the sessions of their devices, all those of
 * one device in one want (each new union configures the device again). */
static int hold_locked(struct ssrc *m, struct sset *s, char *why, size_t len)
{
	int def = cupti_cb_profiler_base_default_device(&m->b);
	uint8_t done[MAX_EVENTS] = { 0 };
	s->epoch = m->epoch;	/* the sessions the wants below take from */
	s->gone = 0;
	for (unsigned i = 0; i < s->n; i++)
		s->dev[i] = CUPTI_CB_CODE_DEV(s->codes[i]) >= 0 ? CUPTI_CB_CODE_DEV(s->codes[i]) : def;
	for (unsigned i = 0; i < s->n; i++) {
		if (done[i])
			continue;
		int d = s->dev[i], err;
		const char *names[MAX_EVENTS];
		int additive[MAX_EVENTS];
		unsigned idx[MAX_EVENTS], ids[MAX_EVENTS], k = 0;
		for (unsigned j = i; j < s->n; j++)
			if (s->dev[j] == d) {
				names[k] = s->full[j];
				additive[k] = s->additive[j];
				idx[k++] = j;
			}
		if (d >= CUPTI_CB_MAX_DEVICES || d >= cupti_cb_profiler_base_devices_locked(&m->b)) {
			snprintf(why, len, "there is no CUDA device %d", d);
			return CUPTI_CB_EUNAVAIL;
		}
		int rc = cupti_cb_services_claim_counters(m->b.e, d, COUNTERS_WHO, why, len);
		if (rc)
			return rc;
		m->claimed[d] = 1;
		struct cupti_cb_sampling_session *ss = session(m, d, &err, why, len);
		if (!ss)
			return err;
		uint64_t t0 = cupti_cb_mono_ns();
		rc = cupti_cb_sampling_session_want(ss, names, additive, k, ids, why, len);
		if (rc)
			return session_error(rc);
		TRACE(m, "device %d: %u metrics held (%.1f ms)", d, k, (cupti_cb_mono_ns() - t0) / 1e6);
		for (unsigned q = 0; q < k; q++) {
			s->sid[idx[q]] = ids[q];
			s->sess[idx[q]] = ss;
			done[idx[q]] = 1;
		}
		for (unsigned q = 0; q < k; q++) {
			unsigned j = idx[q];
			if (s->extreme[j] &&
			    (rc = cupti_cb_sampling_session_track(ss, ids[q], s->extreme[j], &s->trk[j], why, len)))
				return session_error(rc);
		}
	}
	s->held = 1;
	s->epoch = m->epoch;
	return CUPTI_CB_OK;
}

/* What a read sees of every event: the sessions' totals, losses, the
 * extremes of the set's windows and the samples added so far. */
struct view {
	struct cupti_cb_profiler_total t[MAX_EVENTS];
	struct loss lost[MAX_EVENTS];
	double x[MAX_EVENTS];
	uint64_t samples[MAX_EVENTS];
	uint64_t gen[MAX_EVENTS];	/* the publications read (0: a cut, none) */
};

/* The sessions' totals now, for every event (each event's total, and its
 * tracker's value, of one publication). */
static int snapshot(struct sset *s, struct view *w)
{
	for (unsigned i = 0; i < s->n; i++) {
		unsigned trk = s->extreme[i] ? s->trk[i] : CUPTI_CB_SAMPLING_NO_TRACKER;
		if (cupti_cb_sampling_session_snapshot_all(s->sess[i], &s->sid[i], &trk, 1, &w->t[i], &w->x[i],
							   &w->lost[i].all, &w->lost[i].hard, &w->samples[i],
							   &w->gen[i]))
			return -1;
	}
	return 0;
}

/* The extremes' windows start after samples[i] of their sessions: 0, or
 * -1 when a session no longer keeps those samples (some may have moved). */
static int track_from(struct sset *s, const uint64_t *samples)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->extreme[i] && cupti_cb_sampling_session_track_from(s->sess[i], &s->trk[i], 1, samples[i]))
			return -1;
	return 0;
}

static int has_extremes(const struct sset *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->extreme[i])
			return 1;
	return 0;
}

/* The window starts at t (two copies: see struct sset). */
static void rebase(struct sset *s, const struct cupti_cb_profiler_total *t, const struct loss *lost)
{
	int w = 1 - atomic_load(&s->cur);
	memcpy(s->base[w].t, t, s->n * sizeof t[0]);
	memcpy(s->base[w].lost, lost, s->n * sizeof lost[0]);
	atomic_store(&s->cur, w);
	/* No later reset goes back before this one, without a read first. */
	s->last[CTX_THREAD].fresh = s->last[CTX_HANDLER].fresh = 0;
}

/* Runs the sessions of the set's devices (each once). */
static int run_sessions(struct sset *s, int on, char *why, size_t len)
{
	int first = 0;
	for (unsigned i = 0; i < s->n; i++) {
		int seen = 0;
		for (unsigned j = 0; j < i; j++)
			seen |= s->sess[j] == s->sess[i];
		if (seen)
			continue;
		char err[CUPTI_CB_WHY_LEN];
		int rc = on ? cupti_cb_sampling_session_run(s->sess[i], err, sizeof err) :
			      cupti_cb_sampling_session_halt(s->sess[i], err, sizeof err);
		if (rc && !first) {
			first = session_error(rc);
			snprintf(why, len, "%s", err);
		}
	}
	return first;
}

/* The window's edge at moment t (the GPU's clock), cut by the samples'
 * timestamps, for every event (cupti_cb_sampling_session_cut: waits until
 * the samples cover t). The extremes come from a snapshot: a sample's
 * extreme is not split. */
static int cut_sessions(struct sset *s, uint64_t t, int need_next, struct view *w, char *why, size_t len)
{
	if (snapshot(s, w))
		memset(w->x, 0, sizeof w->x);
	for (unsigned i = 0; i < s->n; i++) {
		int rc = cupti_cb_sampling_session_cut(s->sess[i], t, need_next, &s->sid[i], 1, &w->t[i],
						       &w->lost[i].all, &w->lost[i].hard, &w->samples[i], why, len);
		if (rc)
			return session_error(rc);
		w->gen[i] = 0;
	}
	return 0;
}

static uint64_t gpu_now(const struct sset *s)
{
	return s->n ? cupti_cb_sampling_session_now(s->sess[0]) : 0;
}

/* Whether the devices the set holds are still those its events name: an
 * event without a device qualifier follows the starting thread's current
 * device, as the Range Profiler's do. */
static int same_devices(struct ssrc *m, struct sset *s)
{
	int def = cupti_cb_profiler_base_default_device(&m->b);
	for (unsigned i = 0; i < s->n; i++) {
		int d = CUPTI_CB_CODE_DEV(s->codes[i]) >= 0 ? CUPTI_CB_CODE_DEV(s->codes[i]) : def;
		if (d != s->dev[i])
			return 0;
	}
	return 1;
}

static int start_locked(struct ssrc *m, struct sset *s, char *why, size_t len)
{
	if (!m->b.have_catalog) {
		snprintf(why, len, "sampled hardware metrics are not available: %s", m->b.why);
		return CUPTI_CB_EUNAVAIL;
	}
	if (!s->held || s->epoch != m->epoch || !same_devices(m, s)) {
		let_go_locked(m, s);
		int rc = hold_locked(m, s, why, len);
		if (rc) {
			let_go_locked(m, s);
			return rc;
		}
	}
	int rc = run_sessions(s, 1, why, len);
	if (rc) {
		char ignore[CUPTI_CB_WHY_LEN];
		run_sessions(s, 0, ignore, sizeof ignore);	/* the ones that started */
		return rc;
	}
	/* The window starts now by the samples' timestamps: work that ended
	 * before the start is not in it, however late its samples are decoded.
	 * The sample after the start's tells how much of the start's own
	 * sample came after it (cupti_cb_sampling_history.h), so the start
	 * waits for both (one to two intervals, once the GPU's buffer has
	 * them). */
	struct view w;
	uint64_t t = gpu_now(s);
	if ((rc = cut_sessions(s, t, 1, &w, why, len)) || track_from(s, w.samples)) {
		char ignore[CUPTI_CB_WHY_LEN];
		run_sessions(s, 0, ignore, sizeof ignore);	/* no runner stays counted */
		if (!rc)
			snprintf(why, len, "the sampled totals could not be read");
		return rc ? rc : CUPTI_CB_ECUPTI;
	}
	rebase(s, w.t, w.lost);
	memset(s->out, 0, sizeof s->out);
	s->running = 1;
	return CUPTI_CB_OK;
}

static int s_set_start(void *self, void *set, char *why, size_t len)
{
	struct ssrc *m = self;
	if (cupti_cb_in_signal_context()) {
		snprintf(why, len, "a set with sampled metrics cannot start in a signal handler (it calls CUPTI)");
		return CUPTI_CB_EUNAVAIL;
	}
	int prev = cupti_cb_own_begin();
	pthread_mutex_lock(&m->b.lock);
	uint64_t t0 = cupti_cb_mono_ns();
	int rc = start_locked(m, set, why, len);
	pthread_mutex_unlock(&m->b.lock);
	cupti_cb_own_end(prev);
	TRACE(m, "start: %s (%.2f ms)", rc ? why : "ok", (cupti_cb_mono_ns() - t0) / 1e6);
	return rc;
}

/* The window's values from totals t and extremes x, or an error when a
 * session lost samples in it. */
static int window_values(struct sset *s, const struct cupti_cb_profiler_total *t, const struct loss *lost,
			 const double *x, long long *v)
{
	int b = atomic_load(&s->cur), rc = CUPTI_CB_OK;
	for (unsigned i = 0; i < s->n; i++) {
		if (lost[i].hard != s->base[b].lost[i].hard) {
			s->bad = (int)i;	/* the sentence is made when asked (s_set_why): none here, in a handler */
			s->bad_soft = 0;
			return CUPTI_CB_ECUPTI;
		}
		if (lost[i].all != s->base[b].lost[i].all && rc == CUPTI_CB_OK) {
			s->bad = (int)i;
			s->bad_soft = 1;
			rc = CUPTI_CB_EDROPPED;	/* gaps: the values, and a warning */
		}
		const struct cupti_cb_profiler_total *from = &s->base[b].t[i];
		if (s->extreme[i]) {
			double d = isnan(x[i]) ? 0.0 : x[i];	/* no sample in the window yet */
			memcpy(&v[i], &d, sizeof d);
		} else if (s->integer[i]) {
			v[i] = (long long)cupti_cb_profiler_total_count(from, &t[i]);
		} else {
			double d = cupti_cb_profiler_total_value(from, &t[i], s->additive[i]);
			memcpy(&v[i], &d, sizeof d);
		}
	}
	return rc;
}

/* The set's sessions went away under it (the epoch moved): in a fork()
 * child, whose sessions, decode threads and locks are the parent's (a lock
 * the parent's decode thread held at the fork stays held), or after
 * PAPI_shutdown. Its reads fail with a sentence, and its stop touches no
 * session. */
static const char gone_why[] =
	"the sampled metrics' sessions of this event set are gone: this process is a fork() child of the one "
	"that started it (CUDA and PM sampling stay with the parent), or PAPI was shut down since; the set "
	"counts nothing here";

static int sessions_gone(const struct ssrc *m, struct sset *s)
{
	s->gone = s->epoch != m->epoch;	/* loads and a store: also in a signal handler */
	return s->gone;
}

/* Whether view w read the publications last[ctx] holds (the same values). */
static int same_read(const struct sset *s, int ctx, const uint64_t *gen)
{
	if (!s->last[ctx].have)
		return 0;
	for (unsigned i = 0; i < s->n; i++)
		if (!gen[i] || gen[i] != s->last[ctx].gen[i])
			return 0;
	return 1;
}

static void keep_read(struct sset *s, int ctx, const struct view *w, uint64_t ns)
{
	memcpy(s->last[ctx].t, w->t, s->n * sizeof w->t[0]);
	memcpy(s->last[ctx].lost, w->lost, s->n * sizeof w->lost[0]);
	memcpy(s->last[ctx].x, w->x, s->n * sizeof w->x[0]);
	memcpy(s->last[ctx].samples, w->samples, s->n * sizeof w->samples[0]);
	memcpy(s->last[ctx].gen, w->gen, s->n * sizeof w->gen[0]);
	s->last[ctx].ns = ns;
	s->last[ctx].have = 1;
	s->last[ctx].fresh = 1;
}

/* Notes a read for the reset that may follow in its own context (see
 * s_set_reset). Which context a read runs in takes a system call
 * (cupti_cb_in_signal_context), paid only when it matters: when the
 * publication read differs from one a kept read holds. Between two
 * decodes (a millisecond) every read sees the same publication, and a
 * reset continues from the same totals whichever read it takes. */
static void note_read(struct sset *s, const struct view *w)
{
	uint64_t ns = cupti_cb_mono_ns();
	int thread_same = same_read(s, CTX_THREAD, w->gen);
	if (thread_same && (!s->last[CTX_HANDLER].have || same_read(s, CTX_HANDLER, w->gen))) {
		s->last[CTX_THREAD].ns = ns;
		s->last[CTX_THREAD].fresh = 1;
		if (s->last[CTX_HANDLER].have)
			s->last[CTX_HANDLER].ns = ns, s->last[CTX_HANDLER].fresh = 1;
		return;
	}
	keep_read(s, cupti_cb_in_signal_context() ? CTX_HANDLER : CTX_THREAD, w, ns);
}

/* CUPTI_CB_SAMPLING_EXACT: a read in the thread's own code ends its
 * region where it is, by the samples' timestamps, as a stop does; a reset
 * right after it starts the next there. It waits for the sample after
 * its own as well (one interval more than a stop): a region boundary
 * usually lies in running work, whose rate after the boundary tells how
 * to split the boundary's sample. */
static int exact_read(struct sset *s, long long *values)
{
	struct view w;
	char why[CUPTI_CB_WHY_LEN];
	int prev = cupti_cb_own_begin();
	int rc = cut_sessions(s, gpu_now(s), 1, &w, why, sizeof why);
	cupti_cb_own_end(prev);
	if (rc) {
		snprintf(s->why, sizeof s->why, "%s", why);
		return rc;
	}
	rc = window_values(s, w.t, w.lost, w.x, values);
	if (rc && rc != CUPTI_CB_EDROPPED)
		return rc;
	keep_read(s, CTX_THREAD, &w, cupti_cb_mono_ns());
	return rc;
}

/* A copy of the published totals: no lock, the same in a signal handler.
 * The adapter's guard keeps a handler's read out of a start, reset or
 * stop of the same set on its thread (PAPI reads a set only on its own
 * thread), so the read may note its totals for the reset that follows in
 * its own context. */
static int s_set_read(void *self, void *set, long long *values)
{
	struct ssrc *m = self;
	struct sset *s = set;
	if (!s->running) {
		memcpy(values, s->out, s->n * sizeof values[0]);
		return CUPTI_CB_OK;
	}
	if (sessions_gone(m, s))
		return CUPTI_CB_EUNAVAIL;
	if (m->opt.exact && !cupti_cb_in_signal_context())
		return exact_read(s, values);
	struct view w;
	if (snapshot(s, &w))
		return CUPTI_CB_EUNAVAIL;
	int rc = window_values(s, w.t, w.lost, w.x, values);
	if (rc && rc != CUPTI_CB_EDROPPED)
		return rc;
	note_read(s, &w);
	return rc;
}

/* The window ends at the stop by the samples' timestamps: the stop waits
 * until the samples cover its moment (the sample in progress then, and the
 * one after it, which tells whether the GPU's work went on past the stop:
 * one to two intervals, once the GPU's buffer has them) and cuts the
 * totals there, so that start / work / synchronize / stop counts the work
 * and no more. PAPI_stop's own read came first and saw a copy; the
 * adapter hands out these values instead (values_at_stop). Sampling
 * goes on a while after the last running set of a device stops
 * (cupti_cb_sampling_session_halt). */
static int s_set_stop(void *self, void *set)
{
	struct ssrc *m = self;
	struct sset *s = set;
	if (cupti_cb_in_signal_context())
		return CUPTI_CB_EUNAVAIL;
	if (!s->running)
		return CUPTI_CB_OK;
	if (sessions_gone(m, s)) {
		s->running = 0;
		memset(s->out, 0, sizeof s->out);
		return CUPTI_CB_EUNAVAIL;
	}
	uint64_t t = gpu_now(s), t0 = cupti_cb_mono_ns();
	int prev = cupti_cb_own_begin();
	pthread_mutex_lock(&m->b.lock);
	struct view w;
	char why[CUPTI_CB_WHY_LEN];
	int rc = cut_sessions(s, t, 1, &w, why, sizeof why);
	if (rc == CUPTI_CB_OK)
		rc = window_values(s, w.t, w.lost, w.x, s->out);
	else
		snprintf(s->why, sizeof s->why, "%s", why);
	if (m->b.e->trace)
		TRACE(m, "stop: cut %s after %.3f ms", rc == CUPTI_CB_OK ? "made" : "failed",
		      (cupti_cb_mono_ns() - t0) / 1e6);
	if (rc != CUPTI_CB_OK && rc != CUPTI_CB_EDROPPED)
		memset(s->out, 0, sizeof s->out);
	if (run_sessions(s, 0, why, sizeof why))
		TRACE(m, "stop: %s", why);
	s->running = 0;
	pthread_mutex_unlock(&m->b.lock);
	cupti_cb_own_end(prev);
	return rc == CUPTI_CB_EDROPPED ? CUPTI_CB_OK : rc;	/* the stop's read gave the warning */
}

/* Which kept read a reset continues from: the one of its own context.
 * Only where both are kept and differ does the context need asking (a
 * system call), and for an extreme's window, which a handler may not
 * restart (it takes a short lock). Returns the context, or -1 for a
 * handler that may not reset. */
static int reset_context(struct sset *s)
{
	int both_differ = s->last[CTX_THREAD].have && s->last[CTX_HANDLER].have &&
			  !same_read(s, CTX_HANDLER, s->last[CTX_THREAD].gen);
	int ctx = CTX_THREAD;
	if (both_differ || has_extremes(s) || !s->last[CTX_THREAD].have)
		ctx = cupti_cb_in_signal_context() ? CTX_HANDLER : CTX_THREAD;
	if (ctx == CTX_HANDLER && has_extremes(s))
		return -1;
	return ctx;
}

/* A new window. Right after a read (within one decode period) it starts
 * where that read ended: tools that read and reset at every region
 * boundary (TAU, Caliper) then lose no sample decoded between the two
 * calls, and the regions add up to the whole. The read is the last one
 * made in the reset's own context: a sampler's read in a signal handler
 * between the thread's read and its reset is not where the thread's
 * window ended. Otherwise it starts at the totals now (a copy, as old as
 * a read's). Lock-free like a read, so allowed in a signal handler too. */
static int s_set_reset(void *self, void *set)
{
	struct ssrc *m = self;
	struct sset *s = set;
	if (!s->running) {
		memset(s->out, 0, sizeof s->out);
		return CUPTI_CB_OK;
	}
	if (sessions_gone(m, s))
		return CUPTI_CB_EUNAVAIL;
	int ctx = reset_context(s);
	if (ctx < 0)
		return CUPTI_CB_EUNAVAIL;
	if (s->last[ctx].have && s->last[ctx].fresh && cupti_cb_mono_ns() - s->last[ctx].ns <= m->opt.decode_ns &&
	    track_from(s, s->last[ctx].samples) == 0) {
		rebase(s, s->last[ctx].t, s->last[ctx].lost);
		return CUPTI_CB_OK;
	}
	/* Now; a session that decoded more than it keeps between the snapshot
	 * and track_from (a thread held up that long) is asked again. */
	struct view w;
	for (int tries = 0; tries < 3; tries++)
		if (snapshot(s, &w) == 0 && track_from(s, w.samples) == 0) {
			rebase(s, w.t, w.lost);
			return CUPTI_CB_OK;
		}
	return CUPTI_CB_EUNAVAIL;
}

static const char *s_set_why(void *self, void *set)
{
	(void)self;
	struct sset *s = set;
	if (!s)
		return "";
	if (s->gone)
		return gone_why;
	if (s->bad >= 0 && (unsigned)s->bad < s->n) {
		unsigned i = (unsigned)s->bad;
		char lost_why[256];
		cupti_cb_sampling_session_lost_why(s->sess[i], lost_why, sizeof lost_why);
		if (s->bad_soft)
			snprintf(s->why, sizeof s->why,
				 "device %d: the sampled values since the set's start or reset may undercount: %.300s",
				 s->dev[i], lost_why);
		else
			snprintf(s->why, sizeof s->why,
				 "device %d: sampled values since the set's start or reset miss GPU work: %.300s; "
				 "PAPI_reset starts a new window",
				 s->dev[i], lost_why);
		s->bad = -1;
	}
	return s->why;
}

static void s_set_free(void *self, void *set)
{
	struct ssrc *m = self;
	struct sset *s = set;
	if (!s)
		return;
	if (s->running)
		s_set_stop(m, s);
	int prev = cupti_cb_own_begin();
	pthread_mutex_lock(&m->b.lock);
	let_go_locked(m, s);
	pthread_mutex_unlock(&m->b.lock);
	cupti_cb_own_end(prev);
	free(s);
}

/* PAPI_shutdown: every session goes (PM sampling disabled), and with the
 * last the profiler; the catalogue stays. */
static void s_close(void *self)
{
	struct ssrc *m = self;
	int prev = cupti_cb_own_begin();
	pthread_mutex_lock(&m->b.lock);
	for (int d = 0; d < CUPTI_CB_MAX_DEVICES; d++) {
		if (m->sess[d])
			end_session_locked(m, d);
		if (m->claimed[d])
			cupti_cb_services_release_counters(m->b.e, d, COUNTERS_WHO);
		m->claimed[d] = 0;
	}
	m->epoch++;
	pthread_mutex_unlock(&m->b.lock);
	cupti_cb_own_end(prev);
}

/* fork(): the child has no decode thread and cannot use CUDA: the sessions
 * are forgotten (not destroyed: their locks and CUPTI's state are the
 * parent's), the base's lock and holds start anew, and every set's hold is
 * void. */
static void s_after_fork_child(void *self)
{
	struct ssrc *m = self;
	cupti_cb_profiler_base_after_fork_child(&m->b);
	memset(m->sess, 0, sizeof m->sess);
	memset(m->claimed, 0, sizeof m->claimed);
	m->epoch++;
}

/* The base takes it all; the lock is let go plainly. */
static void *s_open(struct cupti_cb_services *services, unsigned id)
{
	struct ssrc *m = calloc(1, sizeof *m);
	if (m)
		cupti_cb_profiler_base_init(&m->b, services, id, "sampling", CUPTI_PROFILER_TYPE_PM_SAMPLING,
					    "PM-sampled, device-wide: ", NULL);
	return m;
}

const struct cupti_cb_source_ops cupti_cb_sampling_source = {
	.label = "sampling",
	.no_overflow_why = "a sampled metric is known only when the GPU's sample is decoded, not during a CUDA "
			   "call, so no overflow can land at a call; overflow on a callback event "
			   "(kernel.launches, ...) and read the sampled metric in the handler",
	.tag = "sampled",
	.open = s_open,
	.after_fork_child = s_after_fork_child,
	CUPTI_CB_PROFILER_FRONT_ENTRIES,
	.close = s_close,
	.set_new = s_set_new,
	.set_free = s_set_free,
	.set_update = s_set_update,
	.set_start = s_set_start,
	.set_read = s_set_read,
	.set_stop = s_set_stop,
	.set_reset = s_set_reset,
	.set_why = s_set_why,
	.may_refuse_in_handler = 1,
	.values_at_stop = 1,
};
