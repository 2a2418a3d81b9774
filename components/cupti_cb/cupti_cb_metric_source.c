/* cupti_cb_metric_source.c: GPU hardware metrics as a source. The
 * catalogue comes from the Profiler Host API for one chip
 * (cupti_cb_profiler_catalog.c): the chip CUPTI_CB_CHIP names, else the chip of device
 * 0, which needs the driver but no context. Collection is one profiling
 * session per device (cupti_cb_metric_session.c), shared by every event set that
 * measures the device; each set reads its own start..stop deltas.
 *
 * Everything here is the cold path, under the source's lock (m->b.lock). A read waits for the
 * GPU work in the range (the profiler decodes the range), so a read from a
 * signal handler (cupti_cb_signal_context.h) takes none of that path: it copies
 * the values the set's last ordinary read or start published
 * (cupti_cb_publish.h), without a lock or a call of CUPTI, and a stop or reset
 * there is refused (cupti_cb-metrics(7), "Reading"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_services.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_base.h"
#include "cupti_cb_profiler_events.h"
#include "cupti_cb_profiler_front.h"
#include "cupti_cb_publish.h"
#include "cupti_cb_metric_session.h"
#include "cupti_cb_profiler_api.h"
#include "cupti_cb_signal_context.h"
#include "cupti_cb_source.h"

/* Hardware metrics in one set: a set that fits one pass holds far fewer;
 * the per-set state and the scratch arrays on the stack are sized by it. */
#define MAX_EVENTS 128

#define TRACE(m, ...) CUPTI_CB_PROFILER_TRACE(&(m)->b, __VA_ARGS__)

/* Contexts created while the source's lock was held (see on_context). */
#define MAX_PENDING_CTX 16

struct msrc {
	/* The services, the Profiler API, the profiler's holds, the devices'
	 * chips, the catalogue and the source's lock (b.lock), shared in form
	 * with PM sampling's source; first, as the descriptor's catalogue
	 * entries take self to be it (cupti_cb_profiler_front.h). */
	struct cupti_cb_profiler_base b;
	pthread_mutex_t pend_lock;	/* only around the pending list: never held across a call */
	CUcontext pending[MAX_PENDING_CTX];
	int pending_dev[MAX_PENDING_CTX];
	unsigned n_pending;
	atomic_int has_pending;
	unsigned long lost_contexts;	/* pending list full: not profiled (traced) */
	struct cupti_cb_metric_session *sess[CUPTI_CB_MAX_DEVICES];
	unsigned epoch;			/* bumped when the sessions go (PAPI_shutdown) */
	/* Idle reads. All GPU work is issued through driver calls, and a sample
	 * collects everything issued before it: when no thread made a driver
	 * call since a device's last sample, its totals cannot have changed,
	 * and a read skips the sample (about 13 ms). The driver calls are
	 * counted by the services, under this hold of every driver CBID. */
	struct cupti_cb_hold activity;
	int watch_activity;		/* the hold is on: idle reads can be told */
	uint64_t drv_seen[CUPTI_CB_MAX_DEVICES];	/* driver calls before the last sample */
	uint8_t fresh[CUPTI_CB_MAX_DEVICES];		/* drv_seen is valid */
	unsigned long samples, skipped;
	/* The last pass count computed, by its list of names. */
	char *passes_key;
	size_t passes_val;
};

/* One event set's metrics. */
struct mset {
	unsigned n;
	int running;
	/* The set holds its metrics in the sessions from its first start until
	 * its events change or it is cleaned up, not only while it runs: a
	 * session whose union changes is configured again (a disable and an
	 * enable of the range profiler, hundreds of ms), which start/stop
	 * pairs must not pay. A stopped set reads nothing. */
	int held;
	unsigned epoch;			/* the source's epoch it was held in */
	uint32_t codes[MAX_EVENTS];
	char *full[MAX_EVENTS];		/* the names CUPTI evaluates */
	int additive[MAX_EVENTS];
	uint8_t integer[MAX_EVENTS];
	int dev[MAX_EVENTS];		/* the device, resolved at start */
	unsigned id[MAX_EVENTS];	/* entry in the device's session */
	struct cupti_cb_profiler_total base[MAX_EVENTS];
	/* The window since start (or reset) is good while no session it
	 * reads lost data (struct cupti_cb_metric_session's lost) after base was
	 * taken, and every one of them was collecting then. */
	unsigned long long lost_base[MAX_EVENTS];
	int window_bad;
	long long out[MAX_EVENTS];	/* the values of the last good read, in PAPI's form */
	char why[CUPTI_CB_WHY_LEN];	/* why the last read, stop or reset failed */
	struct cupti_cb_publish pub;	/* out, for reads in a signal handler */
	char names[MAX_EVENTS][CUPTI_CB_NAME_MAX];
};

static void on_context(void *arg, CUcontext ctx, int created);

/* The profiler's holds, the devices, their chips and the catalogue are the
 * base's (cupti_cb_profiler_base.h), under this source's lock. */
#define COUNTERS_WHO "Range Profiler"

/* ---- sessions -------------------------------------------------------------- */

static void add_context_locked(struct msrc *m, int dev, CUcontext ctx)
{
	char why[CUPTI_CB_WHY_LEN];
	struct cupti_cb_metric_session *s = m->sess[dev];
	if (s && cupti_cb_metric_session_add_context(s, ctx, why, sizeof why))
		TRACE(m, "device %d: a new context cannot be profiled: %s", dev, why);
}

/* Releases the source's lock, first adding the contexts created meanwhile.
 * The base lets the lock go this way too (cupti_cb_profiler_base_unlock):
 * it is the source's first member. */
static void unlock_source(struct cupti_cb_profiler_base *b)
{
	struct msrc *m = (struct msrc *)b;
	for (;;) {
		CUcontext ctx[MAX_PENDING_CTX];
		int dev[MAX_PENDING_CTX];
		pthread_mutex_lock(&m->pend_lock);
		unsigned n = m->n_pending;
		memcpy(ctx, m->pending, n * sizeof ctx[0]);
		memcpy(dev, m->pending_dev, n * sizeof dev[0]);
		m->n_pending = 0;
		atomic_store(&m->has_pending, 0);
		pthread_mutex_unlock(&m->pend_lock);
		for (unsigned i = 0; i < n; i++)
			add_context_locked(m, dev[i], ctx[i]);
		pthread_mutex_unlock(&m->b.lock);
		/* A context created after the list was taken and before the unlock. */
		if (!atomic_load(&m->has_pending) || pthread_mutex_trylock(&m->b.lock) != 0)
			return;
	}
}

/* A context was created or is being destroyed (application thread, inside
 * the driver). A creation never waits for the source's lock: its holder
 * may be inside CUPTI's range profiler, waiting for the driver, which this
 * thread holds while it creates the context (on an H100 a metric set
 * started on one thread while another created its first context hung both).
 * The context is then left to the holder, which adds it before it lets the
 * lock go. A destruction must wait: the range profiler has to leave the
 * context before it is gone. */
static void on_context_own(void *arg, CUcontext ctx, int created)
{
	struct msrc *m = arg;
	int dev = m->b.e->resolver.context_device(m->b.e->resolver.arg, ctx);
	if (dev < 0 || dev >= CUPTI_CB_MAX_DEVICES)
		return;
	if (created && pthread_mutex_trylock(&m->b.lock) != 0) {
		pthread_mutex_lock(&m->pend_lock);
		if (m->n_pending < MAX_PENDING_CTX) {
			m->pending[m->n_pending] = ctx;
			m->pending_dev[m->n_pending++] = dev;
		} else {
			m->lost_contexts++;
		}
		atomic_store(&m->has_pending, 1);
		pthread_mutex_unlock(&m->pend_lock);
		/* The holder may have let the lock go before it saw the list. */
		if (pthread_mutex_trylock(&m->b.lock) == 0)
			unlock_source(&m->b);
		return;
	}
	if (!created)
		pthread_mutex_lock(&m->b.lock);
	if (created) {
		add_context_locked(m, dev, ctx);
	} else if (m->sess[dev]) {
		char why[CUPTI_CB_WHY_LEN];
		if (cupti_cb_metric_session_drop_context(m->sess[dev], ctx, why, sizeof why))
			TRACE(m, "device %d: a context on its way out: %s", dev, why);
	}
	unlock_source(&m->b);
}

/* The device's session, made at its first use. */
static struct cupti_cb_metric_session *session(struct msrc *m, int dev, char *why, size_t len)
{
	if (m->sess[dev])
		return m->sess[dev];
	const char *chip = cupti_cb_profiler_base_chip_locked(&m->b, dev);
	if (!chip) {
		snprintf(why, len, "%s", m->b.why);
		return NULL;
	}
	if (cupti_cb_profiler_base_other_chip(&m->b, dev, chip, why, len))
		return NULL;
	if (cupti_cb_services_claim_counters(m->b.e, dev, COUNTERS_WHO, why, len))
		return NULL;
	struct cupti_cb_metric_session *s = calloc(1, sizeof *s);
	if (!s || cupti_cb_profiler_base_hold(&m->b, m->b.why, sizeof m->b.why)) {
		snprintf(why, len, "%s", s ? m->b.why : "out of memory");
		free(s);
		cupti_cb_services_release_counters(m->b.e, dev, COUNTERS_WHO);
		return NULL;
	}
	if (cupti_cb_metric_session_init(s, &m->b.e->api, &m->b.p, dev, chip, why, len)) {
		cupti_cb_profiler_base_release(&m->b);
		free(s);
		cupti_cb_services_release_counters(m->b.e, dev, COUNTERS_WHO);
		return NULL;
	}
	m->sess[dev] = s;
	return s;
}

/* A device's session goes with the last metric it holds: the range
 * profiler leaves the device's contexts, and with the last session the
 * profiler is de-initialized (cupti_cb_profiler_base_hold), and the driver
 * calls are no longer watched (watch_activity). The next set to start makes a new one. */
static void end_session_locked(struct msrc *m, int dev)
{
	cupti_cb_metric_session_destroy(m->sess[dev]);
	free(m->sess[dev]);
	m->sess[dev] = NULL;
	m->fresh[dev] = 0;
	cupti_cb_services_release_counters(m->b.e, dev, COUNTERS_WHO);
	cupti_cb_profiler_base_release(&m->b);
	for (int d = 0; d < CUPTI_CB_MAX_DEVICES; d++)
		if (m->sess[d])
			return;
	cupti_cb_services_unhold(m->b.e, &m->activity);
	m->watch_activity = 0;
}

static void end_idle_sessions_locked(struct msrc *m)
{
	for (int d = 0; d < CUPTI_CB_MAX_DEVICES; d++)
		if (m->sess[d] && cupti_cb_metric_session_idle(m->sess[d])) {
			TRACE(m, "device %d: no metric held: the session ends", d);
			end_session_locked(m, d);
		}
}

/* ---- event sets ------------------------------------------------------------ */

static void *m_set_new(void *self)
{
	(void)self;
	struct mset *s = calloc(1, sizeof(struct mset));
	if (s)
		cupti_cb_publish_init(&s->pub);
	return s;
}

static size_t passes_of(struct msrc *m, struct mset *s, char *why, size_t len);
static void let_go_locked(struct msrc *m, struct mset *s);

/* What a start would meet and an add can know: TAU puts all of a
 * component's events in one set, and a metric that fails at PAPI_start
 * takes the callback events down with it. Known here: counters restricted
 * to administrators (the driver's parameters), a device of another chip
 * than the catalogue's, and a device CUPTI says cannot be profiled (vGPU
 * without profiling, WSL, ...; both asked once, with the chip names).
 * Not known before a start: the counters a device offers, a MIG instance
 * (CUPTI refuses it only at the enable), another profiler on the device. */
static int refusal_at_add(struct msrc *m, struct mset *s, char *why, size_t len)
{
	int devs[CUPTI_CB_MAX_DEVICES];
	unsigned k;
	int rc = cupti_cb_profiler_base_add_devices(&m->b, s->codes, s->n, devs, &k, why, len);
	/* The lock only around the base's checks; the counters' claims are the
	 * services' (PM sampling may hold the device). */
	for (unsigned i = 0; i < k && !rc; i++) {
		pthread_mutex_lock(&m->b.lock);
		rc = cupti_cb_profiler_base_check_device_locked(&m->b, devs[i], why, len);
		unlock_source(&m->b);
		if (!rc)
			rc = cupti_cb_services_check_counters(m->b.e, devs[i], COUNTERS_WHO, why, len);
	}
	return rc;
}

static int m_set_update(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len)
{
	struct msrc *m = self;
	struct mset *s = set;
	int rc = cupti_cb_profiler_front_update_refusal(n, MAX_EVENTS, "hardware metrics", CUPTI_CB_EINVAL, s->running, why,
							 len);
	if (rc)
		return rc;
	pthread_mutex_lock(&m->b.lock);
	let_go_locked(m, s);	/* the events change: what they held goes */
	end_idle_sessions_locked(m);
	unlock_source(&m->b);
	for (unsigned i = 0; i < n; i++) {
		rc = cupti_cb_profiler_front_event(&m->b, codes[i], s->names[i], sizeof s->names[i], &s->additive[i],
						   &s->integer[i], NULL);
		if (rc)
			return rc;
		s->codes[i] = codes[i];
		s->full[i] = s->names[i];
	}
	s->n = n;
	if (n == 0)
		return CUPTI_CB_OK;
	rc = refusal_at_add(m, s, why, len);
	if (rc) {
		s->n = 0;
		return rc;
	}
	pthread_mutex_lock(&m->b.lock);
	size_t passes = passes_of(m, s, why, len);
	unlock_source(&m->b);
	if (passes == 0)
		return CUPTI_CB_ECUPTI;
	if (passes > 1) {
		snprintf(why, len,
			 "these %u metrics need %zu passes on %s, and cupti_cb collects one pass over a PAPI "
			 "range (the application's work cannot be replayed): split them into event sets of "
			 "one pass each, or into several runs",
			 n, passes, m->b.chip);
		s->n = 0;
		return CUPTI_CB_EPASSES;
	}
	return CUPTI_CB_OK;
}

/* Pass count of the set's distinct names, computed once per list (the
 * same list is asked again when PAPI re-establishes a set). 0: failed. */
static size_t passes_of(struct msrc *m, struct mset *s, char *why, size_t len)
{
	/* What the session will configure: the set's metrics, and its weight
	 * where a metric is not additive (cupti_cb_metric_session.h). */
	const char *names[MAX_EVENTS + 1];
	unsigned n = 0;
	int weighted = 0;
	for (unsigned i = 0; i < s->n; i++) {
		names[n++] = s->full[i];
		weighted |= !s->additive[i];
	}
	if (weighted)
		names[n++] = CUPTI_CB_METRIC_SESSION_WEIGHT;
	size_t key_len = 1;
	for (unsigned i = 0; i < n; i++)
		key_len += strlen(names[i]) + 1;
	char *key = malloc(key_len);
	if (!key)
		return 0;
	key[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		strcat(strcat(key, names[i]), ",");
	if (m->passes_key && !strcmp(key, m->passes_key)) {
		free(key);
		return m->passes_val;
	}
	struct cupti_cb_profiler_config cfg;
	uint64_t t0 = cupti_cb_mono_ns();
	if (cupti_cb_profiler_config_build(&cfg, &m->b.p, m->b.chip, NULL, names, n, why, len)) {
		free(key);
		return 0;
	}
	size_t passes = cfg.passes;
	cupti_cb_profiler_config_free(&cfg);
	TRACE(m, "%u metrics need %zu pass%s on %s (%.1f ms)", s->n, passes, passes == 1 ? "" : "es", m->b.chip,
	      (cupti_cb_mono_ns() - t0) / 1e6);
	free(m->passes_key);
	m->passes_key = key;
	m->passes_val = passes;
	return passes;
}

static int session_error(int rc);

/* Gives back the wants of the events marked in which, all those of one
 * device in one call: each change of a device's union configures its
 * range profiler again. */
static void unwant_done(struct msrc *m, struct mset *s, const uint8_t *which)
{
	char why[CUPTI_CB_WHY_LEN];
	uint8_t left[MAX_EVENTS];
	memcpy(left, which, s->n);
	for (unsigned i = 0; i < s->n; i++) {
		if (!left[i])
			continue;
		unsigned ids[MAX_EVENTS], k = 0;
		for (unsigned j = i; j < s->n; j++)
			if (left[j] && s->dev[j] == s->dev[i]) {
				ids[k++] = s->id[j];
				left[j] = 0;
			}
		struct cupti_cb_metric_session *ss = m->sess[s->dev[i]];
		if (ss && cupti_cb_metric_session_unwant(ss, ids, k, why, sizeof why))
			TRACE(m, "device %d: %s", s->dev[i], why);
	}
}

static void unwant(struct msrc *m, struct mset *s, unsigned upto)
{
	uint8_t which[MAX_EVENTS] = { 0 };
	memset(which, 1, upto);
	unwant_done(m, s, which);
}

/* The session's sentences carry CUPTI's error name (cupti_cb_metric_range_error);
 * a refusal for want of privileges is the one users must act on, so it
 * gets its own PAPI code. */
static int session_error_why(int rc, const char *why)
{
	if (rc == CUPTI_CB_METRIC_SESSION_EFAIL && why && strstr(why, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"))
		return CUPTI_CB_EPERM;
	if (rc == CUPTI_CB_METRIC_SESSION_EFAIL && why && strstr(why, "not supported"))
		return CUPTI_CB_EUNAVAIL;
	if (rc == CUPTI_CB_METRIC_SESSION_EFAIL && why && strstr(why, "CUPTI_ERROR_HARDWARE_BUSY"))
		return CUPTI_CB_ECONFLICT;	/* another profiler holds the device's counters */
	return session_error(rc);
}

static int session_error(int rc)
{
	switch (rc) {
	case CUPTI_CB_METRIC_SESSION_OK:
		return CUPTI_CB_OK;
	case CUPTI_CB_METRIC_SESSION_EPASSES:
		return CUPTI_CB_EPASSES;
	case CUPTI_CB_METRIC_SESSION_ENOMEM:
		return CUPTI_CB_ENOMEM;
	case CUPTI_CB_METRIC_SESSION_EINVAL:
		return CUPTI_CB_EINVAL;
	default:
		return CUPTI_CB_ECUPTI;
	}
}

/* Brings every session the set uses up to date (a GPU wait). Every device
 * is sampled, also after one failed (a reset rebases them all); the first
 * error is returned. */
static int sample(struct msrc *m, struct mset *s, char *why, size_t len)
{
	uint8_t done[CUPTI_CB_MAX_DEVICES] = { 0 };
	int first = 0;
	char err[CUPTI_CB_WHY_LEN];
	for (unsigned i = 0; i < s->n; i++) {
		int d = s->dev[i], rc = 0;
		if (done[d])
			continue;
		done[d] = 1;
		uint64_t calls = m->watch_activity ? cupti_cb_services_driver_calls(m->b.e) : 0;
		if (!m->sess[d]) {
			snprintf(err, sizeof err, "the profiling session of device %d is gone (PAPI_shutdown)", d);
			rc = CUPTI_CB_EUNAVAIL;
		} else if (m->watch_activity && m->fresh[d] && calls == m->drv_seen[d]) {
			m->skipped++;	/* nothing issued since the last sample */
		} else {
			m->fresh[d] = 0;
			rc = cupti_cb_metric_session_sample(m->sess[d], err, sizeof err);
			rc = rc ? session_error_why(rc, err) : 0;
			if (!rc) {
				m->samples++;
				m->drv_seen[d] = calls;
				m->fresh[d] = m->watch_activity;
			}
		}
		if (rc && !first) {
			first = rc;
			snprintf(why, len, "%s", err);
		}
	}
	return first;
}

/* The window starts at the sessions' totals now. */
static void rebase(struct msrc *m, struct mset *s)
{
	s->window_bad = 0;
	for (unsigned i = 0; i < s->n; i++) {
		struct cupti_cb_metric_session *ss = m->sess[s->dev[i]];
		if (!ss) {
			s->window_bad = 1;
			continue;
		}
		cupti_cb_metric_session_total(ss, s->id[i], &s->base[i]);
		s->lost_base[i] = ss->lost;
		s->window_bad |= !cupti_cb_metric_session_collecting(ss);
		s->out[i] = 0;
	}
}

/* The window's values in PAPI's form (a double in the long long's bits),
 * or an error and why when a session it reads lost data in it. */
static int window_values(struct msrc *m, struct mset *s, long long *v, char *why, size_t len)
{
	for (unsigned i = 0; i < s->n; i++) {
		struct cupti_cb_metric_session *ss = m->sess[s->dev[i]];
		if (!ss) {
			snprintf(why, len, "the profiling session of device %d is gone (PAPI_shutdown)", s->dev[i]);
			return CUPTI_CB_EUNAVAIL;
		}
		if (s->window_bad || ss->lost != s->lost_base[i]) {
			snprintf(why, len,
				 "device %d: hardware metric values since the set's start or reset miss GPU work, "
				 "because collection failed (%.300s); PAPI_reset starts a new window",
				 s->dev[i], ss->lost_why[0] ? ss->lost_why : "no range could be started");
			return CUPTI_CB_ECUPTI;
		}
		struct cupti_cb_profiler_total now = s->base[i];
		cupti_cb_metric_session_total(ss, s->id[i], &now);
		if (s->integer[i]) {
			v[i] = (long long)cupti_cb_profiler_total_count(&s->base[i], &now);
		} else {
			double d = cupti_cb_profiler_total_value(&s->base[i], &now, s->additive[i]);
			memcpy(&v[i], &d, sizeof d);
		}
	}
	return CUPTI_CB_OK;
}

/* What a read in a signal handler gets from now on: the good values, or
 * the error of a window that lost data. */
static void publish(struct mset *s, int err)
{
	cupti_cb_publish_write(&s->pub, s->out, s->n, err);
}

/* Counts driver calls from now on (see struct msrc). Without it (the
 * hold refused) every read samples: slower, as exact. */
static void watch_activity(struct msrc *m)
{
	struct cupti_cb_hold want;
	char why[CUPTI_CB_WHY_LEN];
	if (m->activity.active && m->activity.epoch == m->b.e->epoch)
		return;
	m->watch_activity = 0;
	memset(m->fresh, 0, sizeof m->fresh);
	cupti_cb_services_driver_cbids(m->b.e, &want);
	if (cupti_cb_services_hold_cbids(m->b.e, &m->activity, &want, why, sizeof why)) {
		TRACE(m, "every read samples: the driver calls cannot be watched");
		return;
	}
	m->watch_activity = 1;
}

/* Resolves each event's device (the default one is the calling thread's
 * current device now) and whether the set already holds them. */
static int devices_unchanged(struct msrc *m, struct mset *s, int *dev)
{
	int def = cupti_cb_profiler_base_default_device(&m->b), same = s->held && s->epoch == m->epoch;
	for (unsigned i = 0; i < s->n; i++) {
		int d = CUPTI_CB_CODE_DEV(s->codes[i]);
		dev[i] = d >= 0 ? d : def;
		same &= dev[i] == s->dev[i];
	}
	return same;
}

/* Takes the set's metrics into the sessions of their devices: all the
 * metrics of one device in one want, since every change of a device's
 * union configures its range profiler again (about 130 ms on an H100).
 * The metrics first, then the contexts: a context found after the
 * configuration is enabled once, with it. */
static int hold_locked(struct msrc *m, struct mset *s, const int *dev, char *why, size_t len)
{
	uint8_t done[MAX_EVENTS] = { 0 };
	for (unsigned i = 0; i < s->n; i++)
		s->dev[i] = dev[i];
	for (unsigned i = 0; i < s->n; i++) {
		if (done[i])
			continue;
		const char *names[MAX_EVENTS];
		int additive[MAX_EVENTS];
		unsigned idx[MAX_EVENTS], ids[MAX_EVENTS], k = 0;
		for (unsigned j = i; j < s->n; j++) {
			if (s->dev[j] != s->dev[i])
				continue;
			names[k] = s->full[j];
			additive[k] = s->additive[j];
			idx[k++] = j;
		}
		uint64_t t0 = cupti_cb_mono_ns();
		struct cupti_cb_metric_session *ss = session(m, s->dev[i], why, len);
		int rc = ss ? cupti_cb_metric_session_want(ss, names, additive, k, ids, why, len) : CUPTI_CB_EUNAVAIL;
		uint64_t t1 = cupti_cb_mono_ns();
		if (rc == 0) {
			for (unsigned q = 0; q < k; q++) {
				s->id[idx[q]] = ids[q];
				done[idx[q]] = 1;
			}
			rc = cupti_cb_metric_session_adopt_current(ss, why, len);
		}
		if (rc) {
			unwant_done(m, s, done);
			return ss ? session_error_why(rc, why) : CUPTI_CB_EUNAVAIL;
		}
		TRACE(m, "device %d: %u metrics: %.2f ms session and configuration, %.2f ms contexts", s->dev[i], k,
		      (t1 - t0) / 1e6, (cupti_cb_mono_ns() - t1) / 1e6);
	}
	s->held = 1;
	s->epoch = m->epoch;
	return CUPTI_CB_OK;
}

static void let_go_locked(struct msrc *m, struct mset *s)
{
	if (s->held && s->epoch == m->epoch)
		unwant(m, s, s->n);
	s->held = 0;
}

static int start_locked(struct msrc *m, struct mset *s, char *why, size_t len)
{
	int dev[MAX_EVENTS];
	if (!m->b.have_catalog) {
		snprintf(why, len, "hardware metrics are not available: %s", m->b.why);
		return CUPTI_CB_EUNAVAIL;
	}
	int rc = cupti_cb_services_watch_contexts(m->b.e, on_context, m, why, len);
	if (rc)
		return rc;
	watch_activity(m);
	uint64_t t0 = cupti_cb_mono_ns();
	if (!devices_unchanged(m, s, dev)) {
		let_go_locked(m, s);
		rc = hold_locked(m, s, dev, why, len);
		end_idle_sessions_locked(m);	/* after the hold: a session kept is not made again */
		if (rc)
			return rc;
	}
	uint64_t t1 = cupti_cb_mono_ns();
	/* The baseline: what the sessions hold now (a GPU wait). */
	if ((rc = sample(m, s, why, len))) {
		let_go_locked(m, s);
		end_idle_sessions_locked(m);
		return rc;
	}
	TRACE(m, "start: %.2f ms taking the metrics into the sessions, %.2f ms for the baseline sample",
	      (t1 - t0) / 1e6, (cupti_cb_mono_ns() - t1) / 1e6);
	rebase(m, s);
	publish(s, 0);
	s->running = 1;
	return CUPTI_CB_OK;
}

static int m_set_start_own(void *self, void *set, char *why, size_t len)
{
	struct msrc *m = self;
	if (cupti_cb_in_signal_context()) {
		snprintf(why, len, "a set with hardware metrics cannot start in a signal handler (it would wait for "
				   "the GPU and call CUPTI)");
		return CUPTI_CB_EUNAVAIL;
	}
	pthread_mutex_lock(&m->b.lock);
	int rc = start_locked(m, set, why, len);
	unlock_source(&m->b);
	TRACE(m, "start: %s", rc ? why : "ok");
	return rc;
}

/* The values since start (or reset), after a sample; the values of a
 * stopped set are those of its last read. A failed sample, or a window in
 * which a session lost data, is an error: the values would miss GPU work.
 * Nothing of it is printed here (the adapter says it under PAPI_VERBOSE,
 * from set_why); the trace says it too. */
static int m_set_read_own(void *self, void *set, long long *values)
{
	struct msrc *m = self;
	struct mset *s = set;
	long long v[MAX_EVENTS];
	int rc = CUPTI_CB_OK;
	pthread_mutex_lock(&m->b.lock);
	if (s->running) {
		rc = sample(m, s, s->why, sizeof s->why);
		if (rc == CUPTI_CB_OK)
			rc = window_values(m, s, v, s->why, sizeof s->why);
		if (rc == CUPTI_CB_OK)
			memcpy(s->out, v, s->n * sizeof v[0]);
		publish(s, rc);
	}
	unlock_source(&m->b);
	if (rc) {
		TRACE(m, "read: %s", s->why);
		return rc;
	}
	memcpy(values, s->out, s->n * sizeof values[0]);
	return CUPTI_CB_OK;
}

/* In a signal handler: the values the last ordinary read or start
 * published (cupti_cb_publish.h); no lock, no CUPTI, nothing printed. */
static int m_set_read_signal(struct mset *s, long long *values)
{
	int rc = cupti_cb_publish_read(&s->pub, values, s->n);
	return rc == CUPTI_CB_PUBLISH_BUSY ? CUPTI_CB_EUNAVAIL : rc;
}

/* Stop and reset would take the lock and sample: refused in a signal
 * handler, changing nothing (nothing is written either: the interrupted
 * code may be writing the set). */
static int refuse_in_handler(void)
{
	return CUPTI_CB_EUNAVAIL;
}

static int m_set_stop(void *self, void *set)
{
	struct msrc *m = self;
	struct mset *s = set;
	if (cupti_cb_in_signal_context())
		return refuse_in_handler();
	pthread_mutex_lock(&m->b.lock);
	s->running = 0;
	unlock_source(&m->b);
	return CUPTI_CB_OK;
}

/* A new window from the sessions' totals after a sample. A failed sample
 * loses the range before the reset, not the window after it, as long as
 * collection runs again: then the reset succeeds. */
static int m_set_reset_own(void *self, void *set)
{
	struct msrc *m = self;
	struct mset *s = set;
	int rc = CUPTI_CB_OK;
	pthread_mutex_lock(&m->b.lock);
	if (s->running) {
		char why[CUPTI_CB_WHY_LEN];
		int sampled = sample(m, s, why, sizeof why);
		rebase(m, s);
		if (s->window_bad) {
			rc = sampled ? sampled : CUPTI_CB_ECUPTI;
			snprintf(s->why, sizeof s->why, "the reset cannot start a new window of hardware metrics: "
							"collection does not run (%.300s)", sampled ? why : "no range started");
		}
		publish(s, rc);
	}
	unlock_source(&m->b);
	if (rc)
		TRACE(m, "reset: %s", s->why);
	return rc;
}

static const char *m_set_why(void *self, void *set)
{
	(void)self;
	return set ? ((struct mset *)set)->why : "";
}

static void m_set_free_own(void *self, void *set)
{
	struct msrc *m = self;
	if (!set)
		return;
	pthread_mutex_lock(&m->b.lock);
	((struct mset *)set)->running = 0;
	let_go_locked(m, set);
	end_idle_sessions_locked(m);
	unlock_source(&m->b);
	free(set);
}

/* The context watch stays on while sessions exist: a context the range
 * profiler is enabled on must be dropped before it is destroyed. */
static void m_close_own(void *self)
{
	struct msrc *m = self;
	TRACE(m, "%lu samples, %lu reads without GPU work since the last sample skipped theirs, %lu contexts "
		 "created meanwhile not profiled (more than %d at once)", m->samples, m->skipped, m->lost_contexts,
	      MAX_PENDING_CTX);
	cupti_cb_services_unwatch_contexts(m->b.e);
	pthread_mutex_lock(&m->b.lock);
	for (int d = 0; d < CUPTI_CB_MAX_DEVICES; d++)
		if (m->sess[d])
			end_session_locked(m, d);
	cupti_cb_services_unhold(m->b.e, &m->activity);
	m->watch_activity = 0;
	m->epoch++;	/* every set's hold is void */
	unlock_source(&m->b);
}

/* ---- cupti_cb's own driver calls (cupti_cb_own_begin) ------------------ */

static void on_context(void *arg, CUcontext ctx, int created)
{
	int prev = cupti_cb_own_begin();
	on_context_own(arg, ctx, created);
	cupti_cb_own_end(prev);
}

static int m_set_start(void *self, void *set, char *why, size_t len)
{
	int prev = cupti_cb_own_begin();
	int rc = m_set_start_own(self, set, why, len);
	cupti_cb_own_end(prev);
	return rc;
}

static int m_set_read(void *self, void *set, long long *values)
{
	if (cupti_cb_in_signal_context())
		return m_set_read_signal(set, values);
	int prev = cupti_cb_own_begin();
	int rc = m_set_read_own(self, set, values);
	cupti_cb_own_end(prev);
	return rc;
}

static int m_set_reset(void *self, void *set)
{
	if (cupti_cb_in_signal_context())
		return refuse_in_handler();
	int prev = cupti_cb_own_begin();
	int rc = m_set_reset_own(self, set);
	cupti_cb_own_end(prev);
	return rc;
}

static void m_set_free(void *self, void *set)
{
	int prev = cupti_cb_own_begin();
	m_set_free_own(self, set);
	cupti_cb_own_end(prev);
}

static void m_close(void *self)
{
	int prev = cupti_cb_own_begin();
	m_close_own(self);
	cupti_cb_own_end(prev);
}

/* The base takes the rest; the pending list's lock is this source's own. */
static void *m_open(struct cupti_cb_services *services, unsigned id)
{
	struct msrc *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	cupti_cb_profiler_base_init(&m->b, services, id, "metrics", CUPTI_PROFILER_TYPE_RANGE_PROFILER, "",
				    unlock_source);
	pthread_mutex_init(&m->pend_lock, NULL);
	return m;
}

const struct cupti_cb_source_ops cupti_cb_metric_source = {
	.label = "metric",
	.no_overflow_why = "a hardware metric is counted by the GPU and known only when its range ends, not "
			   "during a CUDA call, so no sample can land at a call; overflow on a callback event "
			   "(kernel.launches, ...) and read the metric at the end",
	.open = m_open,
	CUPTI_CB_PROFILER_FRONT_ENTRIES,
	.close = m_close,
	.set_new = m_set_new,
	.set_free = m_set_free,
	.set_update = m_set_update,
	.set_start = m_set_start,
	.set_read = m_set_read,
	.set_stop = m_set_stop,
	.set_reset = m_set_reset,
	.set_why = m_set_why,
	.may_refuse_in_handler = 1,
};
