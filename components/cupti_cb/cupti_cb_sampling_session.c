/* cupti_cb_sampling_session.c: PM sampling of one device, decoded into
 * running totals (cupti_cb_sampling_session.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_sampling_session.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>

#include "cupti_cb_clock.h"
#include "cupti_cb_thread_counters.h"

#define TRACE(s, ...)                                                                     \
	do {                                                                              \
		if ((s)->trace) {                                                         \
			fprintf(stderr, "cupti_cb: sampling: device %d: ", (s)->ordinal); \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
		}                                                                         \
	} while (0)

static uint64_t boot_ns(void);
static void stop_locked(struct cupti_cb_sampling_session *s);

/* ---- options ---------------------------------------------------------------- */

static int env_u64(const char *name, uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t len)
{
	const char *v = getenv(name);
	*out = def;
	if (!v || !v[0])
		return 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || x < lo || x > hi) {
		snprintf(why, len, "%s=%s: give a whole number from %llu to %llu", name, v, (unsigned long long)lo,
			 (unsigned long long)hi);
		return -1;
	}
	*out = x;
	return 0;
}

int cupti_cb_sampling_options_from_env(struct cupti_cb_sampling_options *o, char *why, size_t len)
{
	uint64_t interval_us, decode_us, buffer_mb, exact;
	/* 10 us: one decode thread keeps up with 10 kHz (an H100), not 100 kHz. */
	if (env_u64(CUPTI_CB_ENV_SAMPLING_INTERVAL, 500, 10, 10000000, &interval_us, why, len) ||
	    env_u64(CUPTI_CB_ENV_SAMPLING_DECODE, 1000, 100, 10000000, &decode_us, why, len) ||
	    env_u64(CUPTI_CB_ENV_SAMPLING_BUFFER, 32, 1, 4096, &buffer_mb, why, len) ||
	    env_u64(CUPTI_CB_ENV_SAMPLING_EXACT, 0, 0, 1, &exact, why, len))
		return -1;
	o->exact = (int)exact;
	o->linger_ns = CUPTI_CB_SAMPLING_LINGER_MS * 1000000ull;
	o->interval_ns = interval_us * 1000;
	o->decode_ns = decode_us * 1000;
	o->buffer_bytes = (size_t)buffer_mb << 20;
	/* Room for the samples of two decode periods, so that one decode
	 * takes what a period brings even when it ran late. */
	uint64_t per = 2 * decode_us / interval_us + 16;
	o->max_samples = (unsigned)(per > 4096 ? 4096 : per);
	return 0;
}

/* ---- CUPTI's errors ------------------------------------------------------ */

static int cupti_failed(struct cupti_cb_sampling_session *s, CUptiResult r, const char *call, char *why, size_t len)
{
	const char *name = cupti_cb_profiler_api_error(s->p, r);
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		snprintf(why, len,
			 "%s failed on device %d: %s: this process may not read the GPU's performance counters (load "
			 "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0, or run as root)",
			 call, s->ordinal, name);
		return CUPTI_CB_SAMPLING_EPERM;
	case CUPTI_ERROR_HARDWARE_BUSY:
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		snprintf(why, len,
			 "%s failed on device %d: %s: another profiler holds the device's performance counters "
			 "(Nsight Compute, Nsight Systems' GPU metrics, DCGM, or another process's PM sampling or "
			 "range profiling)",
			 call, s->ordinal, name);
		return CUPTI_CB_SAMPLING_EBUSY;
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_NOT_COMPATIBLE:
		snprintf(why, len, "%s failed on device %d (%s): %s: PM sampling is not supported there", call,
			 s->ordinal, s->chip, name);
		return CUPTI_CB_SAMPLING_EUNSUPP;
	default:
		snprintf(why, len, "%s failed on device %d: %s", call, s->ordinal, name);
		return CUPTI_CB_SAMPLING_EFAIL;
	}
}

/* lost_why as the long longs of a publication. */
#define WHY_WORDS (sizeof(((struct cupti_cb_sampling_session *)0)->lost_why) / sizeof(long long))
_Static_assert(WHY_WORDS * sizeof(long long) == sizeof(((struct cupti_cb_sampling_session *)0)->lost_why),
	       "lost_why must fill whole words of a publication");

/* The reason is published for readers, never read where it is written: a
 * read of the source formats it while the decode thread may note the next
 * loss. */
static void note(struct cupti_cb_sampling_session *s, uint64_t n, int hard, const char *fmt, const char *what)
{
	long long v[WHY_WORDS];
	s->lost += n;
	if (hard)
		s->hard += n;
	snprintf(s->lost_why, sizeof s->lost_why, fmt, what);
	memcpy(v, s->lost_why, sizeof v);
	cupti_cb_publish_write(&s->pub_why, v, WHY_WORDS, 0);
	TRACE(s, "%s", s->lost_why);
}

/* Samples lost for sure: an overflow, a failed decode or evaluation. */
static void note_loss(struct cupti_cb_sampling_session *s, uint64_t n, const char *fmt, const char *what)
{
	note(s, n, 1, fmt, what);
}

/* ---- publication ------------------------------------------------------------ */

/* Under track_lock: the one writer of pub at a time. */
static void publish_locked(struct cupti_cb_sampling_session *s)
{
	long long v[CUPTI_CB_SAMPLING_PUBLISHED];
	memset(v, 0, sizeof v);
	v[0] = (long long)s->lost;
	v[1] = (long long)s->hard;
	v[2] = (long long)s->samples;
	v[3] = (long long)++s->generation;
	for (unsigned i = 0; i < s->n_entries; i++) {
		const struct cupti_cb_profiler_total *t = &s->entries[i].total;	/* all 0 in a free slot */
		v[CUPTI_CB_SAMPLING_PUB_TOTAL(i)] = (long long)t->count;
		memcpy(&v[CUPTI_CB_SAMPLING_PUB_TOTAL(i) + 1], &t->sum, sizeof t->sum);
		memcpy(&v[CUPTI_CB_SAMPLING_PUB_TOTAL(i) + 2], &t->weight, sizeof t->weight);
	}
	for (unsigned k = 0; k < CUPTI_CB_SAMPLING_MAX_TRACKERS; k++)
		memcpy(&v[CUPTI_CB_SAMPLING_PUB_TRACKER(k)], &s->trackers[k].value, sizeof(double));
	cupti_cb_publish_write(&s->pub, v, CUPTI_CB_SAMPLING_PUBLISHED, 0);
}

static void publish(struct cupti_cb_sampling_session *s)
{
	pthread_mutex_lock(&s->track_lock);
	publish_locked(s);
	pthread_mutex_unlock(&s->track_lock);
}

int cupti_cb_sampling_session_snapshot(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n,
				       struct cupti_cb_profiler_total *out, uint64_t *lost)
{
	return cupti_cb_sampling_session_snapshot_hard(s, ids, n, out, lost, NULL);
}

int cupti_cb_sampling_session_snapshot_hard(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n,
					    struct cupti_cb_profiler_total *out, uint64_t *lost, uint64_t *hard)
{
	uint64_t samples;
	return cupti_cb_sampling_session_snapshot_all(s, ids, NULL, n, out, NULL, lost, hard, &samples, NULL);
}

/* The values one snapshot of n metrics reads: the head, 3 per metric, 1 per
 * tracker. A signal handler's stack holds them. */
#define SNAP_MAX 64
#define SNAP_WORDS (CUPTI_CB_SAMPLING_HEAD + 4 * SNAP_MAX)

/* A publication read in one go (ids and trackers at most SNAP_MAX; more
 * are read SNAP_MAX at a time by the caller). */
static int snapshot_some(struct cupti_cb_sampling_session *s, const unsigned *ids, const unsigned *trackers, unsigned n,
			 struct cupti_cb_profiler_total *out, double *extreme, long long *head)
{
	unsigned at[SNAP_WORDS], k = CUPTI_CB_SAMPLING_HEAD;
	long long v[SNAP_WORDS];
	for (unsigned h = 0; h < CUPTI_CB_SAMPLING_HEAD; h++)
		at[h] = h;
	for (unsigned i = 0; i < n; i++) {
		if (ids[i] >= CUPTI_CB_SAMPLING_MAX_METRICS)
			return CUPTI_CB_SAMPLING_EINVAL;
		for (unsigned j = 0; j < 3; j++)
			at[k++] = CUPTI_CB_SAMPLING_PUB_TOTAL(ids[i]) + j;
		unsigned t = trackers ? trackers[i] : CUPTI_CB_SAMPLING_NO_TRACKER;
		/* No tracker: any word; its value is not used. */
		at[k++] = t < CUPTI_CB_SAMPLING_MAX_TRACKERS ? CUPTI_CB_SAMPLING_PUB_TRACKER(t) : 0;
	}
	int rc = cupti_cb_publish_read_at(&s->pub, at, v, k);
	if (rc == CUPTI_CB_PUBLISH_BUSY)
		return rc;
	memcpy(head, v, CUPTI_CB_SAMPLING_HEAD * sizeof v[0]);
	for (unsigned i = 0; i < n; i++) {
		const long long *w = &v[CUPTI_CB_SAMPLING_HEAD + 4 * i];
		out[i].count = (uint64_t)w[0];
		memcpy(&out[i].sum, &w[1], sizeof out[i].sum);
		memcpy(&out[i].weight, &w[2], sizeof out[i].weight);
		if (extreme && trackers && trackers[i] < CUPTI_CB_SAMPLING_MAX_TRACKERS)
			memcpy(&extreme[i], &w[3], sizeof extreme[i]);
		else if (extreme)
			extreme[i] = NAN;
	}
	return 0;
}

int cupti_cb_sampling_session_snapshot_all(struct cupti_cb_sampling_session *s, const unsigned *ids,
					   const unsigned *trackers, unsigned n, struct cupti_cb_profiler_total *out,
					   double *extreme, uint64_t *lost, uint64_t *hard, uint64_t *samples,
					   uint64_t *generation)
{
	long long head[CUPTI_CB_SAMPLING_HEAD];
	if (n > SNAP_MAX)
		return CUPTI_CB_SAMPLING_EINVAL;	/* a set's events of one device are fewer */
	int rc = snapshot_some(s, ids, trackers, n, out, extreme, head);
	if (rc)
		return rc;
	*lost = (uint64_t)head[0];
	if (hard)
		*hard = (uint64_t)head[1];
	*samples = (uint64_t)head[2];
	if (generation)
		*generation = (uint64_t)head[3];
	return 0;
}

/* ---- extremes --------------------------------------------------------------- */

static void fold(struct cupti_cb_sampling_tracker *t, double x)
{
	if (isnan(x))
		return;
	if (isnan(t->value) || (t->kind > 0 ? x > t->value : x < t->value))
		t->value = x;
}

/* Under track_lock: sample q's values (by entry) into the recent values and
 * the trackers. */
static void track_sample_locked(struct cupti_cb_sampling_session *s, uint64_t q, const double *values)
{
	for (unsigned i = 0; i < s->n_entries; i++)
		if (s->entries[i].recent)
			s->entries[i].recent[q % s->entries[i].recent_len] = values[i];
	for (unsigned k = 0; k < CUPTI_CB_SAMPLING_MAX_TRACKERS; k++)
		if (s->trackers[k].kind)
			fold(&s->trackers[k], values[s->trackers[k].entry]);
}

int cupti_cb_sampling_session_track(struct cupti_cb_sampling_session *s, unsigned id, int kind, unsigned *tracker,
				    char *why, size_t len)
{
	int rc = 0;
	pthread_mutex_lock(&s->track_lock);
	unsigned k = 0;
	while (k < CUPTI_CB_SAMPLING_MAX_TRACKERS && s->trackers[k].kind)
		k++;
	struct cupti_cb_sampling_entry *e = id < s->n_entries && s->entries[id].name ? &s->entries[id] : NULL;
	if (!e) {
		snprintf(why, len, "device %d: no sampled metric %u to follow", s->ordinal, id);
		rc = CUPTI_CB_SAMPLING_EINVAL;
	} else if (k == CUPTI_CB_SAMPLING_MAX_TRACKERS) {
		snprintf(why, len, "device %d would follow more than %d sampled .max and .min events at once",
			 s->ordinal, CUPTI_CB_SAMPLING_MAX_TRACKERS);
		rc = CUPTI_CB_SAMPLING_ELIMIT;
	} else if (!e->recent) {
		e->recent_len = (size_t)CUPTI_CB_SAMPLING_RECENT_PER_DECODE * s->opt.max_samples + 16;
		e->recent = calloc(e->recent_len, sizeof *e->recent);
		e->recent_since = s->samples;
		if (!e->recent) {
			snprintf(why, len, "out of memory");
			rc = CUPTI_CB_SAMPLING_ENOMEM;
		}
	}
	if (!rc) {
		s->trackers[k] = (struct cupti_cb_sampling_tracker){ .entry = id, .kind = kind > 0 ? 1 : -1, .value = NAN };
		*tracker = k;
		publish_locked(s);
	}
	pthread_mutex_unlock(&s->track_lock);
	return rc;
}

void cupti_cb_sampling_session_untrack(struct cupti_cb_sampling_session *s, unsigned tracker)
{
	if (tracker >= CUPTI_CB_SAMPLING_MAX_TRACKERS)
		return;
	pthread_mutex_lock(&s->track_lock);
	unsigned id = s->trackers[tracker].entry;
	s->trackers[tracker].kind = 0;
	int followed = 0;
	for (unsigned k = 0; k < CUPTI_CB_SAMPLING_MAX_TRACKERS; k++)
		followed |= s->trackers[k].kind && s->trackers[k].entry == id;
	if (!followed && id < CUPTI_CB_SAMPLING_MAX_METRICS) {
		free(s->entries[id].recent);
		s->entries[id].recent = NULL;
	}
	pthread_mutex_unlock(&s->track_lock);
}

int cupti_cb_sampling_session_track_from(struct cupti_cb_sampling_session *s, const unsigned *trackers, unsigned n,
					 uint64_t from)
{
	int rc = 0;
	pthread_mutex_lock(&s->track_lock);
	uint64_t cur = s->samples;
	for (unsigned i = 0; i < n && !rc; i++) {
		const struct cupti_cb_sampling_tracker *t = &s->trackers[trackers[i]];
		const struct cupti_cb_sampling_entry *e = &s->entries[t->entry];
		if (!t->kind || !e->recent || from > cur || from < e->recent_since || cur - from > e->recent_len)
			rc = -1;
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		struct cupti_cb_sampling_tracker *t = &s->trackers[trackers[i]];
		const struct cupti_cb_sampling_entry *e = &s->entries[t->entry];
		t->value = NAN;
		for (uint64_t q = from + 1; q <= cur; q++)
			fold(t, e->recent[q % e->recent_len]);
	}
	if (!rc)
		publish_locked(s);
	pthread_mutex_unlock(&s->track_lock);
	return rc;
}

void cupti_cb_sampling_session_lost_why(struct cupti_cb_sampling_session *s, char *buf, size_t len)
{
	long long v[WHY_WORDS];
	char text[sizeof v + 1];
	if (!len)
		return;
	if (cupti_cb_publish_read(&s->pub_why, v, WHY_WORDS) == CUPTI_CB_PUBLISH_BUSY) {
		snprintf(buf, len, "samples were lost, for reasons that kept changing while they were read");
		return;
	}
	memcpy(text, v, sizeof v);
	text[sizeof v] = 0;
	snprintf(buf, len, "%s", text);
}

/* ---- decoding (under lock) ----------------------------------------------------- */

/* Adds the image's completed samples from s->consumed on to the totals.
 * Consecutive samples touch (each starts where the one before ended): a
 * gap is samples lost, counted as such. */
static void add_samples(struct cupti_cb_sampling_session *s, size_t completed)
{
	char why[256];
	for (size_t i = s->consumed; i < completed; i++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params ip = {
			.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE
		};
		ip.pPmSamplingObject = s->obj;
		ip.pCounterDataImage = s->image;
		ip.counterDataImageSize = s->image_size;
		ip.sampleIndex = i;
		CUptiResult r = s->pm->cuptiPmSamplingCounterDataGetSampleInfo(&ip);
		if (r != CUPTI_SUCCESS)
			ip.startTimestamp = ip.endTimestamp = 0;
		double dur = ip.endTimestamp > ip.startTimestamp ? (double)(ip.endTimestamp - ip.startTimestamp) : 0;
		if (ip.startTimestamp && s->last_end && ip.startTimestamp > s->last_end + s->opt.interval_ns / 2) {
			char gap[128];
			snprintf(gap, sizeof gap, "%.3f ms", (ip.startTimestamp - s->last_end) / 1e6);
			/* Counted, not a hard loss: with TAU's threads on an H200 the GPU
			 * left gaps of 2 and 9.5 ms that no overflow or failure explains
			 * (it may not sample then). A read says so and still counts. */
			note(s, 1, 0, "PM sampling lost the samples of %s (a gap between two decoded samples)", gap);
		}
		if (ip.endTimestamp > s->last_end)
			s->last_end = ip.endTimestamp;
		if (!ip.endTimestamp)
			cupti_cb_sampling_history_clear(&s->hist);	/* no cut can tell where it lies */
		if (cupti_cb_profiler_config_evaluate(&s->cfg, s->image, s->image_size, i, s->values, why, sizeof why)) {
			note_loss(s, 1, "a sample could not be evaluated: %s", why);
			continue;
		}
		double by_entry[CUPTI_CB_SAMPLING_MAX_METRICS];
		for (unsigned k = 0; k < CUPTI_CB_SAMPLING_MAX_METRICS; k++)
			by_entry[k] = NAN;
		for (unsigned k = 0; k < s->cfg.n; k++) {
			struct cupti_cb_sampling_entry *e = &s->entries[s->cfg_entry[k]];
			cupti_cb_profiler_total_add(&e->total, e->additive, s->values[k], dur);
			by_entry[s->cfg_entry[k]] = s->values[k];
		}
		if (s->trace > 1)
			TRACE(s, "sample %zu: %llu..%llu (%.0f ns): %s = %.0f", i, (unsigned long long)ip.startTimestamp,
			      (unsigned long long)ip.endTimestamp, dur, s->cfg.names[0], s->values[0]);
		if (ip.endTimestamp)
			cupti_cb_sampling_history_push(&s->hist, ip.startTimestamp, ip.endTimestamp, by_entry);
		pthread_mutex_lock(&s->track_lock);
		track_sample_locked(s, s->samples + 1, by_entry);
		s->samples++;
		pthread_mutex_unlock(&s->track_lock);
	}
	s->consumed = completed;
}

static void restart_locked(struct cupti_cb_sampling_session *s)
{
	char why[256];
	CUpti_PmSampling_Stop_Params tp = { .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE };
	tp.pPmSamplingObject = s->obj;
	s->pm->cuptiPmSamplingStop(&tp);
	memcpy(s->image, s->blank, s->image_size);
	s->consumed = 0;
	CUpti_PmSampling_Start_Params sp = { .structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE };
	sp.pPmSamplingObject = s->obj;
	CUptiResult r = s->pm->cuptiPmSamplingStart(&sp);
	if (r != CUPTI_SUCCESS) {
		cupti_failed(s, r, "cuptiPmSamplingStart (after an overflow)", why, sizeof why);
		note_loss(s, 1, "%s", why);
		s->started = 0;
	}
	s->last_end = 0;
}

/* Drains the hardware buffer into the totals, image by image. */
static int decode_locked(struct cupti_cb_sampling_session *s)
{
	char why[256];
	if (!s->have_cfg || !s->image)
		return 0;
	uint64_t t0 = cupti_cb_mono_ns();
	int rc = 0, overflowed = 0;
	size_t completed_before = s->consumed;
	for (int round = 0; round < 64; round++) {
		CUpti_PmSampling_DecodeData_Params dp = { .structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE };
		dp.pPmSamplingObject = s->obj;
		dp.pCounterDataImage = s->image;
		dp.counterDataImageSize = s->image_size;
		CUptiResult r = s->pm->cuptiPmSamplingDecodeData(&dp);
		if (r == CUPTI_ERROR_OUT_OF_MEMORY || (r == CUPTI_SUCCESS && dp.overflow)) {
			note_loss(s, 1, "%s",
				  "the hardware buffer of PM sampling overflowed and samples were lost: decode more often "
				  "(" CUPTI_CB_ENV_SAMPLING_DECODE "), sample less often (" CUPTI_CB_ENV_SAMPLING_INTERVAL
				  ") or give a larger buffer (" CUPTI_CB_ENV_SAMPLING_BUFFER ")");
		}
		if (r == CUPTI_ERROR_OUT_OF_MEMORY) {
			/* After an overflow CUPTI decodes nothing more until sampling
			 * starts again. */
			restart_locked(s);
			rc = -1;
			break;
		}
		if (r != CUPTI_SUCCESS) {
			cupti_failed(s, r, "cuptiPmSamplingDecodeData", why, sizeof why);
			note_loss(s, 1, "%s (samples lost)", why);
			rc = -1;
			break;
		}
		CUpti_PmSampling_GetCounterDataInfo_Params gp = {
			.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE
		};
		gp.pCounterDataImage = s->image;
		gp.counterDataImageSize = s->image_size;
		r = s->pm->cuptiPmSamplingGetCounterDataInfo(&gp);
		if (r != CUPTI_SUCCESS) {
			cupti_failed(s, r, "cuptiPmSamplingGetCounterDataInfo", why, sizeof why);
			note_loss(s, 1, "%s (samples lost)", why);
			rc = -1;
			break;
		}
		if (s->trace > 1)
			TRACE(s, "decode at %.3f ms: %zu completed, %zu populated of %zu, stop reason %d, overflow %d",
			      cupti_cb_mono_ns() / 1e6, gp.numCompletedSamples, gp.numPopulatedSamples, gp.numTotalSamples,
			      (int)dp.decodeStopReason, (int)dp.overflow);
		add_samples(s, gp.numCompletedSamples);
		/* The gap that follows is the loss just counted, also when the
		 * buffer before it fills more images than the one that told. */
		overflowed |= dp.overflow;
		if (overflowed)
			s->last_end = 0;
		/* A sample still being written stays in the image for the next
		 * decode to complete, also when its first part filled the image
		 * (a new image would lose that part and take the rest for a
		 * sample); an image without one starts again (a copy of an
		 * initialized image costs far less than initializing it). */
		int partial = gp.numPopulatedSamples > gp.numCompletedSamples;
		if (!partial) {
			memcpy(s->image, s->blank, s->image_size);
			s->consumed = 0;
		}
		if (dp.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
			break;
		/* Full, and its last sample not complete yet: the next pass. */
		if (partial && gp.numCompletedSamples == completed_before)
			break;
		completed_before = gp.numCompletedSamples;
	}
	uint64_t dt = cupti_cb_mono_ns() - t0;
	if (dt > s->decode_ns_max)
		s->decode_ns_max = dt;
	s->decodes++;
	publish(s);
	return rc;
}

/* ---- the decode thread ------------------------------------------------------ */

static void to_timespec(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Passes on a fixed cadence, one every decode period (a pass that ran
 * late is followed at once by the next, never by a burst), so that a
 * read is never older than an interval and two periods. */
static void *decode_main(void *arg)
{
	struct cupti_cb_sampling_session *s = arg;
	/* Its CUPTI calls are cupti_cb's own, never the application's. */
	(void)cupti_cb_own_begin();
	uint64_t next = monotonic_ns();
	pthread_mutex_lock(&s->wait_lock);
	while (!s->quit) {
		pthread_mutex_unlock(&s->wait_lock);
		pthread_mutex_lock(&s->lock);
		if (s->started)
			decode_locked(s);
		if (s->started && !s->runners && s->idle_since && boot_ns() - s->idle_since >= s->opt.linger_ns)
			stop_locked(s);	/* no set ran for a while */
		pthread_mutex_unlock(&s->lock);
		next += s->opt.decode_ns;
		uint64_t now = monotonic_ns();
		if (next < now)
			next = now;
		struct timespec ts;
		to_timespec(next, &ts);
		pthread_mutex_lock(&s->wait_lock);
		while (!s->quit && pthread_cond_timedwait(&s->wake, &s->wait_lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&s->wait_lock);
	return NULL;
}

/* A program may exit with a sampled set running and without
 * PAPI_shutdown: a decode thread must not call into a CUPTI that exit is
 * tearing down (libcupti's destructors run after the atexit handlers; it
 * was seen to decode some 200 times inside that teardown). The sessions
 * whose thread runs are noted here, one slot per device, and the handler
 * stops them; whoever takes a session out of its slot stops its thread. */
#define EXIT_SLOTS 64
static struct cupti_cb_sampling_session *_Atomic exit_slot[EXIT_SLOTS];

static void join_thread(struct cupti_cb_sampling_session *s);

static void stop_all_at_exit(void)
{
	for (unsigned i = 0; i < EXIT_SLOTS; i++) {
		struct cupti_cb_sampling_session *s = atomic_exchange(&exit_slot[i], NULL);
		if (s && s->thread_pid == getpid())
			join_thread(s);
	}
}

static void note_for_exit(struct cupti_cb_sampling_session *s)
{
	static atomic_flag registered = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set(&registered))
		atexit(stop_all_at_exit);
	if (s->ordinal >= 0 && s->ordinal < EXIT_SLOTS)
		atomic_store(&exit_slot[s->ordinal], s);
}

/* 1 when s was still in its slot (the caller stops it), 0 when the exit
 * handler took it. A session whose device has no slot stops itself. */
static int unnote_for_exit(struct cupti_cb_sampling_session *s)
{
	if (s->ordinal < 0 || s->ordinal >= EXIT_SLOTS)
		return 1;
	struct cupti_cb_sampling_session *want = s;
	return atomic_compare_exchange_strong(&exit_slot[s->ordinal], &want, NULL);
}

/* The thread takes no signal: a handler that reads would otherwise
 * interrupt the one writer of the totals. */
static int start_thread(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	if (s->have_thread)
		return 0;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&s->thread, NULL, decode_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(why, len, "the decode thread of device %d could not be created: %s", s->ordinal, strerror(rc));
		return CUPTI_CB_SAMPLING_EFAIL;
	}
	s->have_thread = 1;
	s->thread_pid = getpid();
	note_for_exit(s);
	return 0;
}

static void stop_thread(struct cupti_cb_sampling_session *s)
{
	if (!s->have_thread)
		return;
	if (!unnote_for_exit(s) || s->thread_pid != getpid()) {
		s->have_thread = 0;	/* stopped at exit, or made before a fork */
		return;
	}
	join_thread(s);
}

static void join_thread(struct cupti_cb_sampling_session *s)
{
	pthread_mutex_lock(&s->wait_lock);
	s->quit = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->wait_lock);
	pthread_join(s->thread, NULL);
	s->have_thread = 0;
	s->quit = 0;
}

/* ---- start and stop (under lock) ------------------------------------------------ */

static int start_locked(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	if (s->started || !s->have_cfg)
		return 0;
	CUpti_PmSampling_Start_Params sp = { .structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE };
	sp.pPmSamplingObject = s->obj;
	CUptiResult r = s->pm->cuptiPmSamplingStart(&sp);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(s, r, "cuptiPmSamplingStart", why, len);
	s->started = 1;
	s->last_end = 0;	/* no gap to the samples before the stop */
	return 0;
}

/* Stops sampling and adds what the buffer still holds. */
static void stop_locked(struct cupti_cb_sampling_session *s)
{
	char why[256];
	if (!s->started)
		return;
	decode_locked(s);
	CUpti_PmSampling_Stop_Params sp = { .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE };
	sp.pPmSamplingObject = s->obj;
	CUptiResult r = s->pm->cuptiPmSamplingStop(&sp);
	if (r != CUPTI_SUCCESS) {
		cupti_failed(s, r, "cuptiPmSamplingStop", why, sizeof why);
		TRACE(s, "%s", why);
	}
	s->started = 0;
	decode_locked(s);
}

/* ---- configuration (under lock) ------------------------------------------------- */

static int set_config(struct cupti_cb_sampling_session *s, const struct cupti_cb_profiler_config *c, char *why,
		      size_t len)
{
	CUpti_PmSampling_SetConfig_Params p = { .structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE };
	p.pPmSamplingObject = s->obj;
	p.configSize = c->image_size;
	p.pConfig = c->image;
	p.hardwareBufferSize = s->opt.buffer_bytes;
	p.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	for (;;) {
		p.triggerMode = s->time_trigger ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL :
						  CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
		/* SYSCLK counts cycles: taken as 1 GHz, the interval is about as long. */
		p.samplingInterval = s->opt.interval_ns;
		CUptiResult r = s->pm->cuptiPmSamplingSetConfig(&p);
		if (r == CUPTI_SUCCESS)
			return 0;
		/* Turing and GA100 have no time trigger. */
		if (r == CUPTI_ERROR_NOT_SUPPORTED && s->time_trigger) {
			s->time_trigger = 0;
			TRACE(s, "no time trigger: the interval counts SYSCLK cycles");
			continue;
		}
		return cupti_failed(s, r, "cuptiPmSamplingSetConfig", why, len);
	}
}

static int make_images(struct cupti_cb_sampling_session *s, const struct cupti_cb_profiler_config *c,
		       uint8_t **image, uint8_t **blank, size_t *size, char *why, size_t len)
{
	CUpti_PmSampling_GetCounterDataSize_Params sp = {
		.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE
	};
	sp.pPmSamplingObject = s->obj;
	sp.pMetricNames = c->names;
	sp.numMetrics = c->n;
	sp.maxSamples = s->opt.max_samples;
	CUptiResult r = s->pm->cuptiPmSamplingGetCounterDataSize(&sp);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(s, r, "cuptiPmSamplingGetCounterDataSize", why, len);
	*image = malloc(sp.counterDataSize ? sp.counterDataSize : 1);
	*blank = malloc(sp.counterDataSize ? sp.counterDataSize : 1);
	if (!*image || !*blank) {
		free(*image), free(*blank);
		snprintf(why, len, "no memory for counter-data images of %zu bytes", sp.counterDataSize);
		return CUPTI_CB_SAMPLING_ENOMEM;
	}
	CUpti_PmSampling_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE
	};
	ip.pPmSamplingObject = s->obj;
	ip.counterDataSize = sp.counterDataSize;
	ip.pCounterData = *blank;
	r = s->pm->cuptiPmSamplingCounterDataImageInitialize(&ip);
	if (r != CUPTI_SUCCESS) {
		free(*image), free(*blank);
		return cupti_failed(s, r, "cuptiPmSamplingCounterDataImageInitialize", why, len);
	}
	memcpy(*image, *blank, sp.counterDataSize);
	*size = sp.counterDataSize;
	return 0;
}

/* A second cuptiPmSamplingSetConfig on an object does not take: on an
 * H100 (CUDA 13.0) no sample completed after it, and freeing the first
 * configuration then crashed the next decode. A new union gets a new
 * object (Disable, Enable: about 50 ms more), which the callbacks and the
 * activity records of cupti_cb survive (ctests/gpu/gpu_sampling.cu). */
static int reenable(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	CUpti_PmSampling_Disable_Params dp = { .structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE };
	dp.pPmSamplingObject = s->obj;
	s->pm->cuptiPmSamplingDisable(&dp);
	s->obj = NULL;
	CUpti_PmSampling_Enable_Params ep = { .structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE };
	ep.deviceIndex = (size_t)s->ordinal;
	CUptiResult r = s->pm->cuptiPmSamplingEnable(&ep);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(s, r, "cuptiPmSamplingEnable", why, len);
	s->obj = ep.pPmSamplingObject;
	return 0;
}

/* A reconfiguration stopped sampling that ran and could not start it
 * again: the running sets miss GPU work from now on, and their reads must
 * say so. */
static void note_stopped(struct cupti_cb_sampling_session *s, int was, const char *why)
{
	if (!was || s->started)
		return;
	note_loss(s, 1, "PM sampling stopped for a new set of metrics and could not start again: %s", why);
	publish(s);
}

/* The running sets' windows miss the GPU's work while sampling was
 * stopped for a new union (SetConfig: about 250 ms on an H100): no sample
 * spans that time, and no gap between samples shows it, as sampling
 * starts afresh. Their reads must say so. */
static void note_pause(struct cupti_cb_sampling_session *s)
{
	char what[160];
	uint64_t now = cupti_cb_sampling_session_now(s);
	snprintf(what, sizeof what, "%.1f ms", now > s->paused_at ? (now - s->paused_at) / 1e6 : 0.0);
	note_loss(s, 1,
		  "PM sampling stopped for %s to add another event set's metrics on the device: the GPU's work "
		  "in that time is not counted (start the sets that bring new metrics first)",
		  what);
}

/* Configures the union names[0..n), the value of names[k] going to entry
 * entry_of[k]. On failure the old configuration stays; on success the
 * caller sets the entries up and then calls resume_locked(was) with what
 * *was says (sampling ran). */
static int configure_locked(struct cupti_cb_sampling_session *s, const char *const *names, const unsigned *entry_of,
			    unsigned n, int *was_out, char *why, size_t len)
{
	struct cupti_cb_profiler_config c;
	if (cupti_cb_profiler_config_build_for(&c, s->p, CUPTI_PROFILER_TYPE_PM_SAMPLING, s->chip, s->avail, names, n,
					       why, len))
		return CUPTI_CB_SAMPLING_EFAIL;
	if (c.passes != 1) {
		snprintf(why, len,
			 "these %u metrics need %zu passes on %s, and PM sampling collects one: sample fewer metrics "
			 "on device %d, or use the Range Profiler's (the names without :sampled) in several runs",
			 n, c.passes, s->chip, s->ordinal);
		cupti_cb_profiler_config_free(&c);
		return CUPTI_CB_SAMPLING_EPASSES;
	}
	int was = s->started;
	stop_locked(s);
	s->paused_at = was ? cupti_cb_sampling_session_now(s) : 0;
	uint64_t t0 = cupti_cb_mono_ns();
	uint8_t *image = NULL, *blank = NULL;
	size_t size = 0;
	int rc = 0;
	if (s->have_cfg)
		rc = reenable(s, why, len);
	if (!rc)
		rc = make_images(s, &c, &image, &blank, &size, why, len);
	if (!rc)
		rc = set_config(s, &c, why, len);
	if (rc && image) {
		free(image), free(blank);
		image = blank = NULL;
	}
	if (rc) {
		cupti_cb_profiler_config_free(&c);
		/* The old configuration may be gone from the device: without
		 * one the session samples nothing until a want succeeds. */
		if (s->have_cfg && set_config(s, &s->cfg, why + strlen(why), 0) == 0 && was)
			start_locked(s, why + strlen(why), 0);
		note_stopped(s, was, why);
		return rc;
	}
	TRACE(s, "%u metrics configured in %.1f ms (counter-data image of %zu bytes, %u samples)", n,
	      (cupti_cb_mono_ns() - t0) / 1e6, size, s->opt.max_samples);
	if (s->have_cfg)
		cupti_cb_profiler_config_free(&s->cfg);
	free(s->image), free(s->blank);
	s->cfg = c;
	memcpy(s->cfg_entry, entry_of, n * sizeof entry_of[0]);
	s->have_cfg = 1;
	s->image = image, s->blank = blank, s->image_size = size;
	s->consumed = 0;
	s->last_end = 0;
	cupti_cb_sampling_history_clear(&s->hist);	/* the entries move */
	*was_out = was;
	return 0;
}

/* After a new union: the totals published, sampling running again if it ran. */
static int resume_locked(struct cupti_cb_sampling_session *s, int was, char *why, size_t len)
{
	int rc = 0;
	if (was && (rc = start_locked(s, why, len)))
		note_stopped(s, was, why);
	else if (was && s->runners)
		note_pause(s);
	publish(s);
	return rc;
}

/* ---- the session ------------------------------------------------------------------- */

static void fetch_availability(struct cupti_cb_sampling_session *s)
{
	CUpti_PmSampling_GetCounterAvailability_Params ap = {
		.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE
	};
	ap.deviceIndex = (size_t)s->ordinal;
	if (s->pm->cuptiPmSamplingGetCounterAvailability(&ap) != CUPTI_SUCCESS || !ap.counterAvailabilityImageSize)
		return;
	uint8_t *img = malloc(ap.counterAvailabilityImageSize);
	if (!img)
		return;
	ap.pCounterAvailabilityImage = img;
	if (s->pm->cuptiPmSamplingGetCounterAvailability(&ap) != CUPTI_SUCCESS) {
		free(img);
		return;
	}
	s->avail = img;
}

int cupti_cb_sampling_session_init(struct cupti_cb_sampling_session *s, const struct cupti_cb_profiler_api *p,
				   const struct cupti_cb_pm_sampling_api *pm, int ordinal, const char *chip,
				   const struct cupti_cb_sampling_options *opt, int trace, char *why, size_t len)
{
	memset(s, 0, sizeof *s);
	s->p = p, s->pm = pm, s->ordinal = ordinal, s->opt = *opt, s->trace = trace;
	s->time_trigger = 1;
	snprintf(s->chip, sizeof s->chip, "%s", chip);
	cupti_cb_publish_init(&s->pub);
	cupti_cb_publish_init(&s->pub_why);
	CUpti_PmSampling_Enable_Params ep = { .structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE };
	ep.deviceIndex = (size_t)ordinal;
	CUptiResult r = pm->cuptiPmSamplingEnable(&ep);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(s, r, "cuptiPmSamplingEnable", why, len);
	s->obj = ep.pPmSamplingObject;
	if (cupti_cb_sampling_history_init(&s->hist, CUPTI_CB_SAMPLING_RECENT_PER_DECODE * (size_t)opt->max_samples + 16,
					   CUPTI_CB_SAMPLING_MAX_METRICS, opt->interval_ns / 2)) {
		CUpti_PmSampling_Disable_Params dp = { .structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE };
		dp.pPmSamplingObject = s->obj;
		pm->cuptiPmSamplingDisable(&dp);
		snprintf(why, len, "out of memory");
		return CUPTI_CB_SAMPLING_ENOMEM;
	}
	fetch_availability(s);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->track_lock, NULL);
	pthread_mutex_init(&s->wait_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	s->inited = 1;
	TRACE(s, "PM sampling enabled (%s; interval %llu us, decode every %llu us, buffer %zu MiB)", chip,
	      (unsigned long long)(opt->interval_ns / 1000), (unsigned long long)(opt->decode_ns / 1000),
	      opt->buffer_bytes >> 20);
	return 0;
}

/* Also without an object: a new union whose Enable failed leaves none,
 * and the thread, the images and the names still go. */
void cupti_cb_sampling_session_destroy(struct cupti_cb_sampling_session *s)
{
	if (!s->inited)
		return;
	stop_thread(s);
	pthread_mutex_lock(&s->lock);
	stop_locked(s);
	TRACE(s, "%llu samples in %llu decodes (the longest %.2f ms), %llu lost", (unsigned long long)s->samples,
	      (unsigned long long)s->decodes, s->decode_ns_max / 1e6, (unsigned long long)s->lost);
	CUpti_PmSampling_Disable_Params dp = { .structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE };
	dp.pPmSamplingObject = s->obj;
	if (s->obj)
		s->pm->cuptiPmSamplingDisable(&dp);
	if (s->have_cfg)
		cupti_cb_profiler_config_free(&s->cfg);
	for (unsigned i = 0; i < CUPTI_CB_SAMPLING_MAX_METRICS; i++)
		free(s->entries[i].name), free(s->entries[i].recent);
	free(s->image), free(s->blank), free(s->avail);
	cupti_cb_sampling_history_free(&s->hist);
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->track_lock);
	pthread_mutex_destroy(&s->wait_lock);
	pthread_cond_destroy(&s->wake);
	memset(s, 0, sizeof *s);
}

static int find(const struct cupti_cb_sampling_session *s, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (s->entries[i].name && !strcmp(s->entries[i].name, name))
			return (int)i;
	return -1;
}

/* Slots for new[0..n_new): free ones, or those of entries no set wants
 * (nor this call: keep). 0, or CUPTI_CB_SAMPLING_ELIMIT with a sentence. */
static int slots_for(struct cupti_cb_sampling_session *s, const uint8_t *keep, unsigned n_new, unsigned *slot,
		     char *why, size_t len)
{
	unsigned k = 0;
	for (unsigned j = 0; j < n_new; j++, k++) {
		while (k < CUPTI_CB_SAMPLING_MAX_METRICS && s->entries[k].name && (s->entries[k].refs || keep[k]))
			k++;
		if (k == CUPTI_CB_SAMPLING_MAX_METRICS) {
			snprintf(why, len, "device %d would sample more than %d metrics at once", s->ordinal,
				 CUPTI_CB_SAMPLING_MAX_METRICS);
			return CUPTI_CB_SAMPLING_ELIMIT;
		}
		slot[j] = k;
	}
	return 0;
}

/* A new union: the entries some set wants (or this call: keep), and
 * new[0..n_new) into slots freed of entries no set wants any more, so
 * that metrics of sets long gone neither count against the limit nor
 * need a pass. On success the entries no set wants are gone (their slots
 * free or taken by new names); on failure nothing changed. */
static int grow_union_locked(struct cupti_cb_sampling_session *s, const uint8_t *keep, const char *const *new_names,
			     const int *new_add, unsigned n_new, unsigned *slot, char *why, size_t len)
{
	const char *names[CUPTI_CB_SAMPLING_MAX_METRICS];
	unsigned entry_of[CUPTI_CB_SAMPLING_MAX_METRICS], n = 0;
	char *copies[CUPTI_CB_SAMPLING_MAX_METRICS] = { 0 };
	int rc = slots_for(s, keep, n_new, slot, why, len), was = 0;
	for (unsigned i = 0; i < s->n_entries && !rc; i++)
		if (s->entries[i].name && (s->entries[i].refs || keep[i]))
			names[n] = s->entries[i].name, entry_of[n++] = i;
	for (unsigned j = 0; j < n_new && !rc; j++) {
		if (!(copies[j] = strdup(new_names[j]))) {
			snprintf(why, len, "out of memory");
			rc = CUPTI_CB_SAMPLING_ENOMEM;
		}
		names[n] = new_names[j], entry_of[n++] = slot[j];
	}
	if (!rc)
		rc = configure_locked(s, names, entry_of, n, &was, why, len);
	if (rc) {
		for (unsigned j = 0; j < n_new; j++)
			free(copies[j]);
		return rc;
	}
	for (unsigned i = 0; i < CUPTI_CB_SAMPLING_MAX_METRICS; i++)
		if (s->entries[i].name && !s->entries[i].refs && !keep[i]) {
			free(s->entries[i].name);
			free(s->entries[i].recent);
			memset(&s->entries[i], 0, sizeof s->entries[i]);
		}
	for (unsigned j = 0; j < n_new; j++) {
		struct cupti_cb_sampling_entry *e = &s->entries[slot[j]];
		memset(e, 0, sizeof *e);
		e->name = copies[j];
		e->additive = new_add[j];
	}
	s->n_entries = 0;
	for (unsigned i = 0; i < CUPTI_CB_SAMPLING_MAX_METRICS; i++)
		if (s->entries[i].name)
			s->n_entries = i + 1;
	TRACE(s, "%u metrics in the union", n);
	return resume_locked(s, was, why, len);
}

int cupti_cb_sampling_session_want(struct cupti_cb_sampling_session *s, const char *const *names, const int *additive,
				   unsigned n, unsigned *ids, char *why, size_t len)
{
	uint8_t keep[CUPTI_CB_SAMPLING_MAX_METRICS] = { 0 };
	const char *fresh[CUPTI_CB_SAMPLING_MAX_METRICS];
	int fresh_add[CUPTI_CB_SAMPLING_MAX_METRICS];
	unsigned pending[CUPTI_CB_SAMPLING_MAX_METRICS], slot[CUPTI_CB_SAMPLING_MAX_METRICS], n_fresh = 0;
	int rc = 0;
	if (n > CUPTI_CB_SAMPLING_MAX_METRICS) {
		snprintf(why, len, "device %d would sample more than %d metrics at once", s->ordinal,
			 CUPTI_CB_SAMPLING_MAX_METRICS);
		return CUPTI_CB_SAMPLING_ELIMIT;
	}
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < n; i++) {
		int id = find(s, s->n_entries, names[i]);
		pending[i] = UINT_MAX;
		if (id >= 0) {
			ids[i] = (unsigned)id;
			keep[id] = 1;
			continue;
		}
		unsigned j = 0;
		while (j < n_fresh && strcmp(fresh[j], names[i]))
			j++;
		if (j == n_fresh)
			fresh[n_fresh] = names[i], fresh_add[n_fresh++] = additive[i];
		pending[i] = j;
	}
	if (n_fresh)
		rc = grow_union_locked(s, keep, fresh, fresh_add, n_fresh, slot, why, len);
	if (!rc)
		for (unsigned i = 0; i < n; i++) {
			if (pending[i] != UINT_MAX)
				ids[i] = slot[pending[i]];
			s->entries[ids[i]].refs++;
		}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void cupti_cb_sampling_session_unwant(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n)
{
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < n; i++)
		if (ids[i] < s->n_entries && s->entries[ids[i]].refs)
			s->entries[ids[i]].refs--;
	pthread_mutex_unlock(&s->lock);
}

int cupti_cb_sampling_session_idle(const struct cupti_cb_sampling_session *s)
{
	for (unsigned i = 0; i < s->n_entries; i++)
		if (s->entries[i].refs)
			return 0;
	return 1;
}

int cupti_cb_sampling_session_run(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	int rc = start_thread(s, why, len);
	if (rc)
		return rc;
	pthread_mutex_lock(&s->lock);
	rc = start_locked(s, why, len);
	if (!rc) {
		s->runners++;
		s->idle_since = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int cupti_cb_sampling_session_flush(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	pthread_mutex_lock(&s->lock);
	if (!s->started) {
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	/* Every sample completed so far is added by this decode; the one in
	 * progress now is the next, and one more guards against a sample that
	 * completed just before it reached the buffer. A loss found on the way
	 * (an overflow or a gap of samples taken before the call) is counted
	 * for the windows that were open then; it is no failure of the caller,
	 * whose window starts after it. */
	decode_locked(s);
	uint64_t target = s->samples + 2;
	uint64_t limit = cupti_cb_mono_ns() + 4 * s->opt.interval_ns + 200000000u;
	while (s->started && s->samples < target && cupti_cb_mono_ns() < limit) {
		pthread_mutex_unlock(&s->lock);
		struct timespec nap = { 0, (long)(s->opt.interval_ns / 4 < 50000 ? 50000 : s->opt.interval_ns / 4) };
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&s->lock);
		if (s->started)
			decode_locked(s);
	}
	int rc = 0;
	if (!s->started) {
		/* Sampling could not start again after a failure: nothing counts. */
		snprintf(why, len, "device %d: PM sampling stopped: %s", s->ordinal, s->lost_why);
		rc = CUPTI_CB_SAMPLING_EFAIL;
	} else if (s->samples < target) {
		snprintf(why, len, "device %d: PM sampling gave no new sample for %llu ms", s->ordinal,
			 (unsigned long long)((4 * s->opt.interval_ns + 200000000u) / 1000000u));
		rc = CUPTI_CB_SAMPLING_EFAIL;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

uint64_t cupti_cb_sampling_session_now(const struct cupti_cb_sampling_session *s)
{
	uint64_t t = 0;
	if (s->pm->cuptiGetTimestamp && s->pm->cuptiGetTimestamp(&t) == CUPTI_SUCCESS && t)
		return t;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Elapsed time for the waits' bounds: a clock no test freezes. */
static uint64_t boot_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Decodes until the samples cover t (the caller holds lock), polling at a
 * quarter interval: a sample reaches the GPU's buffer some time after it
 * ends, and a decode thread's period is longer than a stop should wait. */
static int cover_locked(struct cupti_cb_sampling_session *s, uint64_t t, int need_next)
{
	uint64_t limit = boot_ns() + 4 * s->opt.interval_ns + 200000000u;
	if (s->started)
		decode_locked(s);
	while (s->started && !cupti_cb_sampling_history_covers(&s->hist, t, need_next) && boot_ns() < limit) {
		pthread_mutex_unlock(&s->lock);
		uint64_t q = s->opt.interval_ns / 4;
		struct timespec nap = { 0, (long)(q < 20000 ? 20000 : q > 250000 ? 250000 : q) };
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&s->lock);
		if (s->started)
			decode_locked(s);
	}
	return !s->started || cupti_cb_sampling_history_covers(&s->hist, t, need_next);
}

int cupti_cb_sampling_session_cut(struct cupti_cb_sampling_session *s, uint64_t t, int need_next, const unsigned *ids,
				  unsigned n, struct cupti_cb_profiler_total *out, uint64_t *lost, uint64_t *hard,
				  uint64_t *samples, char *why, size_t len)
{
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	uint64_t t0 = boot_ns();
	if (!cover_locked(s, t, need_next)) {
		snprintf(why, len, "device %d: PM sampling gave no sample past the moment asked for in %llu ms",
			 s->ordinal, (unsigned long long)((4 * s->opt.interval_ns + 200000000u) / 1000000u));
		rc = CUPTI_CB_SAMPLING_EFAIL;
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		const struct cupti_cb_sampling_entry *e = ids[i] < s->n_entries ? &s->entries[ids[i]] : NULL;
		if (!e || !e->name) {
			snprintf(why, len, "device %d: no sampled metric %u", s->ordinal, ids[i]);
			rc = CUPTI_CB_SAMPLING_EINVAL;
			break;
		}
		out[i] = e->total;
		if (cupti_cb_sampling_history_cut(&s->hist, t, ids[i], e->additive, &out[i])) {
			snprintf(why, len, "device %d: the samples of that moment are no longer kept", s->ordinal);
			rc = CUPTI_CB_SAMPLING_EINVAL;
		}
	}
	*lost = s->lost, *hard = s->hard, *samples = s->samples;
	if (s->trace > 1)
		TRACE(s, "cut at %llu%s: %s after %.3f ms", (unsigned long long)t, need_next ? " (and the next sample)" : "",
		      rc ? why : "ok", (boot_ns() - t0) / 1e6);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int cupti_cb_sampling_session_halt(struct cupti_cb_sampling_session *s, char *why, size_t len)
{
	int rc = 0;
	(void)why, (void)len;
	pthread_mutex_lock(&s->lock);
	if (s->runners && --s->runners == 0) {
		s->idle_since = boot_ns();	/* the decode thread stops sampling later */
		if (!s->opt.linger_ns)
			stop_locked(s);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}
