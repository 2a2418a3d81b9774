/* test_sampling_session: PM sampling of one device (cupti_cb_sampling_session.c)
 * against a fake PM Sampling API and a fake Profiler Host API (struct
 * cupti_cb_pm_sampling_api and struct cupti_cb_profiler_api are tables of
 * function pointers, filled here), with the real configuration code
 * (cupti_cb_profiler_config) on top of the fake Host API.
 *
 * The fake GPU, as the session relies on CUPTI: time is the fake's own
 * (gpu_advance, or one interval at every decode in the "auto" mode); it
 * is cut into contiguous samples of the configured interval from the
 * start; work added while sampling runs goes into the open sample, for
 * the metrics configured on the object only. A completed sample goes into
 * the hardware buffer (hardwareBufferSize / REC_BYTES records), optionally
 * one decode later (lag); a full buffer drops it and flags an overflow
 * (reported once by the next decode) or, in the OUT_OF_MEMORY mode, makes
 * every decode fail with CUPTI_ERROR_OUT_OF_MEMORY until sampling starts
 * again. A decode moves records into the counter-data image (the fake's
 * own layout) until it is full (COUNTER_DATA_FULL); a record marked split
 * is written in two decodes: populated but not completed after the first,
 * completed by the next one if the image still holds its first part, else
 * lost. A second SetConfig on one object is refused (as on an H100 it does
 * not take). Everything of the fake is under one mutex: the decode thread
 * and the test thread both call it.
 *
 * The cases that count decodes, overflows and restarts exactly have the
 * session's decode thread find no record in the buffer (quiet_thread):
 * its first pass, whenever the scheduler runs it, would otherwise drain
 * the buffer before the overflow the case builds up. The decodes of
 * flush, halt and want, on the test's thread, are the fake's.
 *
 * Also built with ThreadSanitizer (test_sampling_session_tsan): the
 * concurrency cases have the decode thread publish while two reader
 * threads and a SIGPROF handler snapshot, and note losses while two
 * threads read their reason. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "check.h"
#include "cupti_cb_sampling_session.h"

/* ------------------------------------------------------------ fake Host API */

#define MAXM 96
#define NAMELEN 32
#define REC_BYTES 1024u
#define MAXREC 64
#define INTERVAL 1000000u	/* 1 ms */

/* PM sampling's passes: 2 when any metric is "multipass". */
#define FAKE_HOST_TYPE CUPTI_PROFILER_TYPE_PM_SAMPLING
#define FAKE_HOST_PASSES(multi) ((multi) ? 2 : 1)
#include "fake_profiler_host.h"

static pthread_mutex_t gl = PTHREAD_MUTEX_INITIALIZER;

/* Every name ending in .sum or .avg is a metric; multipass.* needs 2 passes. */
static int known(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && l < NAMELEN && (!strcmp(name + l - 4, ".sum") || !strcmp(name + l - 4, ".avg"));
}

static CUptiResult f_cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
	     : r == CUPTI_ERROR_HARDWARE_BUSY	     ? "CUPTI_ERROR_HARDWARE_BUSY"
	     : r == CUPTI_ERROR_OUT_OF_MEMORY	     ? "CUPTI_ERROR_OUT_OF_MEMORY"
						     : "CUPTI_ERROR_SOMETHING";
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ fake GPU and PM Sampling API */

/* A counter-data image: the header, then cap samples. */
struct fimg {
	uint32_t magic;
	unsigned n;
	size_t cap, populated, completed;
	char names[MAXM][NAMELEN];
};
struct fsample {
	uint64_t start, end;
	double v[MAXM];
};
#define IMG_MAGIC 0x676d6966u

struct frec {
	uint64_t start, end;
	double v[MAXM];		/* by the object's configured names */
	int split;		/* written in two decodes */
	int half;		/* its first part is in an image */
	uint64_t ready;		/* the decode from which it can be read */
};

struct fobj {
	int live, configured, started;
	struct fhost cfg;
	uint64_t interval;
	size_t cap;		/* records of the hardware buffer */
	struct frec ring[MAXREC];
	size_t head, count;
	int overflow, oom;
	double open[MAXM];
	uint64_t open_start;
	struct fhost image_names;	/* of the last GetCounterDataSize */
};

static struct fobj objs[8];
static struct fobj *cur;	/* the live object */
static uint64_t fnow;		/* the fake GPU's clock (ns) */
static int n_enable, n_disable, n_setconfig, n_start, n_stop, n_decode;
static uint64_t auto_ns;	/* advance at every decode (0: only gpu_advance) */
static unsigned lag;		/* decodes before a completed sample can be read */
static int drop_next;		/* samples the hardware loses silently */
static int split_next;		/* the next completed sample is written in two decodes */
static int oom_mode;		/* a full buffer: OUT_OF_MEMORY until a restart */
static CUptiResult enable_error, decode_error, start_error;
static int decode_errors;	/* decodes that fail with decode_error */
static int evaluate_errors;
static double lost_work[MAXM];	/* per configured index of the live object: work never decoded */
static int rests_lost, rests_completed;
static int quiet_thread;	/* decodes off the test's thread find no record */
static pthread_t test_thread;

#define OBJ(p) ((struct fobj *)(void *)(p))

static void push_locked(struct fobj *o, uint64_t end)
{
	struct frec r;
	memset(&r, 0, sizeof r);
	r.start = o->open_start, r.end = end;
	memcpy(r.v, o->open, sizeof r.v);
	r.split = split_next, split_next = 0;
	r.ready = (uint64_t)n_decode + lag;
	memset(o->open, 0, sizeof o->open);
	o->open_start = end;
	int dropped = 0;
	if (drop_next > 0) {
		drop_next--;
		dropped = 1;
	} else if (o->count == o->cap || o->count == MAXREC) {
		if (oom_mode)
			o->oom = 1;
		else
			o->overflow = 1;
		dropped = 1;
	}
	if (dropped) {
		for (unsigned k = 0; k < MAXM; k++)
			lost_work[k] += r.v[k];
		return;
	}
	o->ring[(o->head + o->count) % MAXREC] = r;
	o->count++;
}

static void advance_locked(uint64_t ns)
{
	struct fobj *o = cur;
	fnow += ns;
	while (o && o->started && o->open_start + o->interval <= fnow)
		push_locked(o, o->open_start + o->interval);
}

static void gpu_advance(uint64_t ns)
{
	pthread_mutex_lock(&gl);
	advance_locked(ns);
	pthread_mutex_unlock(&gl);
}

/* Work of the device: counted in the open sample, for configured metrics only. */
static void gpu_add2(const char *m1, double v1, const char *m2, double v2)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = cur;
	for (unsigned k = 0; o && o->started && k < o->cfg.n; k++) {
		if (m1 && !strcmp(o->cfg.names[k], m1))
			o->open[k] += v1;
		if (m2 && !strcmp(o->cfg.names[k], m2))
			o->open[k] += v2;
	}
	pthread_mutex_unlock(&gl);
}

static void gpu_add(const char *m, double v)
{
	gpu_add2(m, v, NULL, 0);
}

static int fake_int(const int *x)
{
	pthread_mutex_lock(&gl);
	int v = *x;
	pthread_mutex_unlock(&gl);
	return v;
}

static void fake_set(int *x, int v)
{
	pthread_mutex_lock(&gl);
	*x = v;
	pthread_mutex_unlock(&gl);
}

static CUptiResult f_Enable(CUpti_PmSampling_Enable_Params *p)
{
	pthread_mutex_lock(&gl);
	CUptiResult r = enable_error;
	if (!r && (cur || p->deviceIndex != 0))
		r = CUPTI_ERROR_INVALID_OPERATION;	/* one object per device */
	if (!r) {
		struct fobj *o = &objs[n_enable % 8];
		memset(o, 0, sizeof *o);
		o->live = 1;
		cur = o;
		n_enable++;
		p->pPmSamplingObject = (CUpti_PmSampling_Object *)(void *)o;
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_Disable(CUpti_PmSampling_Disable_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
	if (!r) {
		o->live = 0;
		cur = NULL;
		n_disable++;
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_SetConfig(CUpti_PmSampling_SetConfig_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = CUPTI_SUCCESS;
	/* A second configuration of one object does not take on an H100. */
	if (!o || !o->live || o->configured || o->started || p->configSize != sizeof(struct fhost))
		r = CUPTI_ERROR_INVALID_OPERATION;
	else if (p->triggerMode != CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL || !p->samplingInterval)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		memcpy(&o->cfg, p->pConfig, sizeof o->cfg);
		o->interval = p->samplingInterval;
		o->cap = p->hardwareBufferSize / REC_BYTES;
		o->configured = 1;
		n_setconfig++;
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_Start(CUpti_PmSampling_Start_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live && o->configured && !o->started ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
	if (!r && start_error)
		r = start_error;
	if (!r) {
		o->started = 1;
		o->open_start = fnow;
		memset(o->open, 0, sizeof o->open);
		if (o->oom)	/* the buffer that overflowed starts again empty */
			o->count = 0;
		o->oom = 0;
		n_start++;
	}
	pthread_mutex_unlock(&gl);
	return r;
}

/* The open sample completes at the stop, however short. */
static CUptiResult f_Stop(CUpti_PmSampling_Stop_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live && o->started ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
	if (!r) {
		push_locked(o, fnow);
		o->started = 0;
		n_stop++;
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static struct fimg *img_of(const uint8_t *data, size_t size)
{
	struct fimg *im = (struct fimg *)(uintptr_t)data;
	if (!data || size < sizeof *im || im->magic != IMG_MAGIC ||
	    size < sizeof *im + im->cap * sizeof(struct fsample) || im->populated > im->cap ||
	    im->completed > im->populated)
		return NULL;
	return im;
}

static struct fsample *slot(struct fimg *im, size_t i)
{
	return (struct fsample *)(void *)((uint8_t *)(im + 1) + i * sizeof(struct fsample));
}

static void write_rec(const struct fobj *o, struct fimg *im, const struct frec *r, size_t i, double part)
{
	struct fsample *s = slot(im, i);
	s->start = r->start;
	s->end = part < 1 ? 0 : r->end;
	for (unsigned j = 0; j < im->n; j++) {
		s->v[j] = 0;
		for (unsigned k = 0; k < o->cfg.n; k++)
			if (!strcmp(o->cfg.names[k], im->names[j]))
				s->v[j] = r->v[k] * part;
	}
}

static CUptiResult decode_locked(struct fobj *o, CUpti_PmSampling_DecodeData_Params *p)
{
	struct fimg *im = img_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
	while (o->count) {
		struct frec *r = &o->ring[o->head];
		if (r->ready > (uint64_t)n_decode)
			break;
		if (r->half) {
			/* The rest of a sample whose first part is in an image. */
			if (im->populated > im->completed) {
				write_rec(o, im, r, im->completed, 1);
				im->completed++;
				rests_completed++;
			} else {
				for (unsigned k = 0; k < MAXM; k++)
					lost_work[k] += r->v[k];
				rests_lost++;
			}
			o->head = (o->head + 1) % MAXREC, o->count--;
			continue;
		}
		if (im->populated == im->cap) {
			p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
			break;
		}
		if (r->split) {
			write_rec(o, im, r, im->populated++, 0.5);
			r->half = 1;
			r->ready = (uint64_t)n_decode + 1;	/* the rest comes with the next decode */
			if (im->populated == im->cap)	/* its first part filled the image */
				p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
			break;
		}
		write_rec(o, im, r, im->populated++, 1);
		im->completed++;
		o->head = (o->head + 1) % MAXREC, o->count--;
	}
	p->overflow = (uint8_t)o->overflow;
	o->overflow = 0;
	return CUPTI_SUCCESS;
}

static CUptiResult f_DecodeData(CUpti_PmSampling_DecodeData_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live && o->configured ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
	if (!r && quiet_thread && !pthread_equal(pthread_self(), test_thread)) {
		p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
		p->overflow = 0;
		pthread_mutex_unlock(&gl);
		return CUPTI_SUCCESS;
	}
	if (!r) {
		n_decode++;
		if (o->started && auto_ns)
			advance_locked(auto_ns);
	}
	if (!r && decode_errors > 0) {
		decode_errors--;
		r = decode_error;
	}
	if (!r && o->oom)
		r = CUPTI_ERROR_OUT_OF_MEMORY;
	if (!r)
		r = decode_locked(o, p);
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_GetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p)
{
	if (p->pCounterAvailabilityImage)
		memset(p->pCounterAvailabilityImage, 0xa5, 16);
	p->counterAvailabilityImageSize = 16;
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live && p->numMetrics && p->numMetrics <= MAXM && p->maxSamples
				? CUPTI_SUCCESS
				: CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		o->image_names.n = (unsigned)p->numMetrics;
		for (size_t i = 0; i < p->numMetrics; i++)
			snprintf(o->image_names.names[i], NAMELEN, "%s", p->pMetricNames[i]);
		p->counterDataSize = sizeof(struct fimg) + p->maxSamples * sizeof(struct fsample);
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_ImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
	pthread_mutex_lock(&gl);
	struct fobj *o = OBJ(p->pPmSamplingObject);
	CUptiResult r = o && o->live && p->pCounterData && p->counterDataSize >= sizeof(struct fimg)
				? CUPTI_SUCCESS
				: CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		memset(p->pCounterData, 0, p->counterDataSize);
		struct fimg *im = (struct fimg *)(void *)p->pCounterData;
		im->magic = IMG_MAGIC;
		im->n = o->image_names.n;
		memcpy(im->names, o->image_names.names, sizeof im->names);
		im->cap = (p->counterDataSize - sizeof *im) / sizeof(struct fsample);
	}
	pthread_mutex_unlock(&gl);
	return r;
}

static CUptiResult f_GetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
	const struct fimg *im = img_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->numTotalSamples = im->cap;
	p->numPopulatedSamples = im->populated;
	p->numCompletedSamples = im->completed;
	return CUPTI_SUCCESS;
}

/* Only a completed sample has its times. */
static CUptiResult f_GetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
	struct fimg *im = img_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im || p->sampleIndex >= im->completed)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->startTimestamp = slot(im, p->sampleIndex)->start;
	p->endTimestamp = slot(im, p->sampleIndex)->end;
	return CUPTI_SUCCESS;
}

/* The fake GPU's clock: the samples' timestamps use it. */
static CUptiResult f_GetTimestamp(uint64_t *t)
{
	pthread_mutex_lock(&gl);
	*t = fnow;
	pthread_mutex_unlock(&gl);
	return CUPTI_SUCCESS;
}

/* Only a completed sample has values. */
static CUptiResult f_Evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	struct fimg *im = img_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im || p->rangeIndex >= im->completed)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&gl);
	int fail = evaluate_errors > 0;
	evaluate_errors -= fail;
	pthread_mutex_unlock(&gl);
	if (fail)
		return CUPTI_ERROR_UNKNOWN;
	for (size_t i = 0; i < p->numMetrics; i++) {
		unsigned j = 0;
		while (j < im->n && strcmp(im->names[j], p->ppMetricNames[i]))
			j++;
		if (j == im->n)
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		p->pMetricValues[i] = slot(im, p->rangeIndex)->v[j];
	}
	return CUPTI_SUCCESS;
}

static const struct cupti_cb_profiler_api prof = {
	.cuptiGetResultString = f_cuptiGetResultString,
	.cuptiProfilerHostInitialize = f_HostInitialize,
	.cuptiProfilerHostDeinitialize = f_HostDeinitialize,
	.cuptiProfilerHostEvaluateToGpuValues = f_Evaluate,
	.cuptiProfilerHostConfigAddMetrics = f_ConfigAddMetrics,
	.cuptiProfilerHostGetConfigImageSize = f_GetConfigImageSize,
	.cuptiProfilerHostGetConfigImage = f_GetConfigImage,
	.cuptiProfilerHostGetNumOfPasses = f_GetNumOfPasses,
};

static const struct cupti_cb_pm_sampling_api pm = {
	.cuptiPmSamplingSetConfig = f_SetConfig,
	.cuptiPmSamplingEnable = f_Enable,
	.cuptiPmSamplingDisable = f_Disable,
	.cuptiPmSamplingStart = f_Start,
	.cuptiPmSamplingStop = f_Stop,
	.cuptiPmSamplingDecodeData = f_DecodeData,
	.cuptiPmSamplingGetCounterAvailability = f_GetCounterAvailability,
	.cuptiPmSamplingGetCounterDataSize = f_GetCounterDataSize,
	.cuptiPmSamplingCounterDataImageInitialize = f_ImageInitialize,
	.cuptiPmSamplingGetCounterDataInfo = f_GetCounterDataInfo,
	.cuptiPmSamplingCounterDataGetSampleInfo = f_GetSampleInfo,
	.cuptiGetTimestamp = f_GetTimestamp,
};

/* ------------------------------------------------------------ helpers */

static char why[1024];

/* A fresh fake and options: 1 ms interval, a decode thread that sleeps an
 * hour between passes and finds no record (quiet_thread: the decodes are
 * those of the test's calls), 16 records of buffer. */
static struct cupti_cb_sampling_options reset_fake(void)
{
	pthread_mutex_lock(&gl);
	memset(objs, 0, sizeof objs);
	cur = NULL;
	fnow = 1000000000u;
	n_enable = n_disable = n_setconfig = n_start = n_stop = n_decode = 0;
	auto_ns = 0, lag = 0, drop_next = split_next = oom_mode = 0;
	enable_error = decode_error = start_error = 0, decode_errors = evaluate_errors = 0;
	memset(lost_work, 0, sizeof lost_work);
	rests_lost = rests_completed = 0;
	quiet_thread = 1;
	test_thread = pthread_self();
	pthread_mutex_unlock(&gl);
	struct cupti_cb_sampling_options o = {
		.interval_ns = INTERVAL, .decode_ns = 3600000000000ull, .buffer_bytes = 16 * REC_BYTES, .max_samples = 8
	};
	return o;
}

static int open_session(struct cupti_cb_sampling_session *s, const struct cupti_cb_sampling_options *o)
{
	return cupti_cb_sampling_session_init(s, &prof, &pm, 0, "FAKE1", o, 0, why, sizeof why);
}

/* A session with one metric wanted, a.sum (a counter): its id. */
static unsigned open_a_sum(struct cupti_cb_sampling_session *s, const struct cupti_cb_sampling_options *o)
{
	const char *names[] = { "a.sum" };
	const int add[] = { 1 };
	unsigned id = UINT_MAX;
	CHECK_EQ(open_session(s, o), 0, "init");
	CHECK_EQ(cupti_cb_sampling_session_want(s, names, add, 1, &id, why, sizeof why), 0, "want a.sum");
	return id;
}

/* The published total of one id (count for a counter). */
static struct cupti_cb_profiler_total snap1(struct cupti_cb_sampling_session *s, unsigned id, uint64_t *lost)
{
	struct cupti_cb_profiler_total t = { 0, NAN, NAN };
	uint64_t l = UINT64_MAX;
	if (cupti_cb_sampling_session_snapshot(s, &id, 1, &t, &l))
		t.count = UINT64_MAX;
	if (lost)
		*lost = l;
	return t;
}

static uint64_t count_of(struct cupti_cb_sampling_session *s, unsigned id)
{
	return snap1(s, id, NULL).count;
}

static uint64_t lost_of(struct cupti_cb_sampling_session *s)
{
	uint64_t l;
	(void)snap1(s, 0, &l);
	return l;
}

/* The hard losses (overflows, failures), which the gaps are not. */
static uint64_t hard_of(struct cupti_cb_sampling_session *s)
{
	struct cupti_cb_profiler_total t;
	uint64_t l = 0, h = 0;
	unsigned id = 0;
	(void)cupti_cb_sampling_session_snapshot_hard(s, &id, 1, &t, &l, &h);
	return h;
}

static uint64_t locked_samples(struct cupti_cb_sampling_session *s)
{
	pthread_mutex_lock(&s->lock);
	uint64_t v = s->samples;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* The reason of the last loss. */
static char reason_buf[300];
static const char *reason(struct cupti_cb_sampling_session *s)
{
	cupti_cb_sampling_session_lost_why(s, reason_buf, sizeof reason_buf);
	return reason_buf;
}

static int contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* ------------------------------------------------------------ options */

static void test_options(void)
{
	struct cupti_cb_sampling_options o;
	static const char *const vars[] = { CUPTI_CB_ENV_SAMPLING_INTERVAL, CUPTI_CB_ENV_SAMPLING_DECODE,
					    CUPTI_CB_ENV_SAMPLING_BUFFER };
	for (unsigned i = 0; i < 3; i++)
		unsetenv(vars[i]);
	CHECK_EQ(cupti_cb_sampling_options_from_env(&o, why, sizeof why), 0, "options: the defaults");
	CHECK(o.interval_ns == 500000 && o.decode_ns == 1000000 && o.buffer_bytes == (size_t)32 << 20 &&
		      o.max_samples == 2 * 1000 / 500 + 16 && o.linger_ns == CUPTI_CB_SAMPLING_LINGER_MS * 1000000ull &&
		      !o.exact,
	      "defaults: 500 us, 1000 us, 32 MiB, 20 samples a decode (got %llu ns, %llu ns, %zu bytes, %u)",
	      (unsigned long long)o.interval_ns, (unsigned long long)o.decode_ns, o.buffer_bytes, o.max_samples);
	setenv(CUPTI_CB_ENV_SAMPLING_INTERVAL, "100", 1);
	setenv(CUPTI_CB_ENV_SAMPLING_DECODE, "2000", 1);
	setenv(CUPTI_CB_ENV_SAMPLING_BUFFER, "8", 1);
	CHECK_EQ(cupti_cb_sampling_options_from_env(&o, why, sizeof why), 0, "options: good values");
	CHECK(o.interval_ns == 100000 && o.decode_ns == 2000000 && o.buffer_bytes == (size_t)8 << 20 &&
		      o.max_samples == 2 * 2000 / 100 + 16,
	      "100 us, 2000 us, 8 MiB, 56 samples a decode (got %llu ns, %llu ns, %zu bytes, %u)",
	      (unsigned long long)o.interval_ns, (unsigned long long)o.decode_ns, o.buffer_bytes, o.max_samples);
	setenv(CUPTI_CB_ENV_SAMPLING_INTERVAL, "10", 1);
	setenv(CUPTI_CB_ENV_SAMPLING_DECODE, "10000000", 1);
	setenv(CUPTI_CB_ENV_SAMPLING_BUFFER, "4096", 1);
	CHECK(cupti_cb_sampling_options_from_env(&o, why, sizeof why) == 0 && o.max_samples == 4096 &&
		      o.buffer_bytes == (size_t)4096 << 20,
	      "the largest values; samples a decode capped at 4096 (got %u)", o.max_samples);
	for (unsigned i = 0; i < 3; i++)
		unsetenv(vars[i]);

	static const char *const bad[] = { "abc", "-5", "0", "12x", "1.5", "99999999999", "" };
	static const char *const too_large[] = { "10000001", "10000001", "4097" };
	for (unsigned i = 0; i < 3; i++) {
		for (unsigned b = 0; b + 1 < sizeof bad / sizeof bad[0]; b++) {
			setenv(vars[i], bad[b], 1);
			why[0] = 0;
			int rc = cupti_cb_sampling_options_from_env(&o, why, sizeof why);
			CHECK(rc == -1 && contains(why, vars[i]), "%s=%s refused, naming the variable: %s", vars[i],
			      bad[b], why);
		}
		setenv(vars[i], too_large[i], 1);
		int rc = cupti_cb_sampling_options_from_env(&o, why, sizeof why);
		CHECK(rc == -1 && contains(why, vars[i]) && contains(why, "whole number"), "%s=%s (too large): %s",
		      vars[i], too_large[i], why);
		setenv(vars[i], "", 1);
		CHECK_EQ(cupti_cb_sampling_options_from_env(&o, why, sizeof why), 0, "an empty variable is the default");
		unsetenv(vars[i]);
	}
	setenv(CUPTI_CB_ENV_SAMPLING_INTERVAL, "9", 1);
	CHECK(cupti_cb_sampling_options_from_env(&o, why, sizeof why) == -1 && contains(why, "from 10"),
	      "an interval under 10 us: %s", why);
	unsetenv(CUPTI_CB_ENV_SAMPLING_INTERVAL);
}

/* ------------------------------------------------------------ init */

static void test_init_errors(void)
{
	static const struct {
		CUptiResult r;
		int rc;
		const char *words;
	} cases[] = {
		{ CUPTI_ERROR_HARDWARE_BUSY, CUPTI_CB_SAMPLING_EBUSY, "another profiler" },
		{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, CUPTI_CB_SAMPLING_EPERM, "NVreg_RestrictProfilingToAdminUsers=0" },
		{ CUPTI_ERROR_NOT_SUPPORTED, CUPTI_CB_SAMPLING_EUNSUPP, "not supported" },
		{ CUPTI_ERROR_UNKNOWN, CUPTI_CB_SAMPLING_EFAIL, "cuptiPmSamplingEnable" },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cupti_cb_sampling_options o = reset_fake();
		struct cupti_cb_sampling_session s;
		enable_error = cases[i].r;
		int rc = open_session(&s, &o);
		CHECK(rc == cases[i].rc && contains(why, cases[i].words) && contains(why, "device 0"),
		      "Enable refused with %d: error %d, %s", (int)cases[i].r, rc, why);
	}
}

/* ------------------------------------------------------------ totals */

static void test_totals(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	CHECK_EQ(open_session(&s, &o), 0, "init");
	const char *names[] = { "a.sum", "b.sum", "r.avg" };
	const int add[] = { 1, 1, 0 };
	unsigned ids[3];
	CHECK_EQ(cupti_cb_sampling_session_want(&s, names, add, 3, ids, why, sizeof why), 0, "want a.sum, b.sum, r.avg");
	CHECK(ids[0] == 0 && ids[1] == 1 && ids[2] == 2, "ids in order: %u %u %u", ids[0], ids[1], ids[2]);
	CHECK(n_enable == 1 && n_setconfig == 1 && n_start == 0, "configured once, not started (%d enables, %d configs)",
	      n_enable, n_setconfig);
	CHECK(!cupti_cb_sampling_session_idle(&s), "a wanted metric: not idle");

	gpu_advance(5 * INTERVAL);
	gpu_add("a.sum", 1000);	/* no sampling yet: never counted */
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "the first runner");
	CHECK_EQ(fake_int(&n_start), 1, "sampling starts with the first runner");
	CHECK_EQ(count_of(&s, ids[0]), 0, "a snapshot right after the start shows nothing from before it");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "a second runner");
	CHECK_EQ(fake_int(&n_start), 1, "a second runner starts nothing");

	/* A sample of 1 ms: a 5, b 7, r 10; then 0.5 ms cut by the stop: a 11, r 40. */
	gpu_add2("a.sum", 5, "b.sum", 7);
	gpu_add("r.avg", 10);
	gpu_advance(INTERVAL);
	gpu_add("a.sum", 11);
	gpu_add("r.avg", 40);
	gpu_advance(INTERVAL / 2);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "one runner of two halts");
	CHECK(fake_int(&n_stop) == 0 && fake_int(&cur->started), "sampling goes on while a runner remains");
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "the last runner halts");
	CHECK_EQ(fake_int(&n_stop), 1, "sampling stops with the last runner");
	uint64_t lost;
	struct cupti_cb_profiler_total ta = snap1(&s, ids[0], &lost), tb = snap1(&s, ids[1], NULL),
				       tr = snap1(&s, ids[2], NULL);
	struct cupti_cb_profiler_total z = { 0, 0, 0 };
	CHECK_EQ(ta.count, 16, "a.sum: 5 + 11, exact, the stop's short sample included");
	CHECK_EQ(tb.count, 7, "b.sum");
	CHECK(ta.sum == 0 && tb.sum == 0, "counters add up in count only");
	double r = cupti_cb_profiler_total_value(&z, &tr, 0);
	CHECK(fabs(r - 20.0) < 1e-9, "r.avg weighted by duration: (10 * 1 + 40 * 0.5) / 1.5 = 20, got %.6f", r);
	CHECK(fabs(tr.weight - 1.5 * INTERVAL) < 1e-6, "its weight is the samples' GPU time: %.0f ns", tr.weight);
	CHECK_EQ(lost, 0, "nothing lost");
	CHECK_EQ(locked_samples(&s), 2, "two samples added");
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "a halt without a runner");
	CHECK_EQ(fake_int(&n_stop), 1, "stops nothing");

	/* Stopped: work is not sampled; a new start shows none of it. */
	gpu_add("a.sum", 500);
	gpu_advance(3 * INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run again");
	CHECK_EQ(fake_int(&n_start), 2, "sampling starts again");
	CHECK_EQ(count_of(&s, ids[0]), 16, "a snapshot right after the restart: what the stop left");
	gpu_add("a.sum", 3);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, ids[0]), 19, "a.sum adds up across runs");
	CHECK_EQ(lost_of(&s), 0, "no gap counted across a stop and a start");

	cupti_cb_sampling_session_unwant(&s, ids, 3);
	CHECK(cupti_cb_sampling_session_idle(&s), "every metric unwanted: idle");
	cupti_cb_sampling_session_destroy(&s);
	CHECK(n_disable == 1 && cur == NULL, "destroy disables PM sampling (%d disables)", n_disable);
}

/* A set that starts while another runs: its baseline, taken after a
 * flush, holds the work done before its start. */
static void test_second_start(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	lag = 1;
	pthread_mutex_unlock(&gl);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "set A runs");
	gpu_add("a.sum", 100);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "set B runs");
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "B's start flushes");
	uint64_t base = count_of(&s, id);
	CHECK_EQ(base, 100, "B's baseline holds the work done before its start");
	gpu_add("a.sum", 23);
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "flush");
	CHECK_EQ(count_of(&s, id) - base, 23, "B's window: only its work");
	CHECK_EQ(count_of(&s, id), 123, "A's window: both");
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ partial samples */

static void test_partial(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	CHECK_EQ(open_session(&s, &o), 0, "init");
	const char *names[] = { "a.sum", "r.avg" };
	const int add[] = { 1, 0 };
	unsigned ids[2];
	CHECK_EQ(cupti_cb_sampling_session_want(&s, names, add, 2, ids, why, sizeof why), 0, "want");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	gpu_add("a.sum", 2);
	gpu_advance(INTERVAL);
	gpu_add("a.sum", 8);
	gpu_add("r.avg", 6);
	fake_set(&split_next, 1);
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	pthread_mutex_unlock(&gl);
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "flush over a sample decoded in two parts");
	CHECK_EQ(fake_int(&rests_completed), 1, "the sample was populated, then completed by a later decode");
	CHECK_EQ(fake_int(&rests_lost), 0, "its first part was kept in the image for the second");
	CHECK_EQ(count_of(&s, ids[0]), 10, "a.sum: the partial sample added once, whole (2 + 8)");
	struct cupti_cb_profiler_total tr = snap1(&s, ids[1], NULL);
	CHECK(fabs(tr.sum - 6.0 * INTERVAL) < 1e-6, "r.avg: the whole sample's value, not its first part (sum %.0f)",
	      tr.sum);
	CHECK_EQ(lost_of(&s), 0, "nothing lost");
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "flush again");
	CHECK_EQ(count_of(&s, ids[0]), 10, "nothing added twice");

	/* A sample split by the stop's decode: the decode after the stop
	 * completes it. */
	fake_set(&split_next, 1);
	gpu_add("a.sum", 30);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, ids[0]), 40, "a.sum after the stop");
	CHECK_EQ(lost_of(&s), 0, "nothing lost");
	cupti_cb_sampling_session_destroy(&s);
}

/* A sample still being written when its first part fills the image (the
 * decode stops with COUNTER_DATA_FULL): the image is kept until the next
 * decode completes it, so that it is added once, whole, and nothing is
 * lost; then the image starts again. */
static void test_partial_full(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	for (int i = 0; i < 7; i++) {
		gpu_add("a.sum", 1);
		gpu_advance(INTERVAL);
	}
	gpu_add("a.sum", 100);
	fake_set(&split_next, 1);
	gpu_advance(INTERVAL);	/* the image's eighth and last sample, written in two decodes */
	gpu_add("a.sum", 1000);
	gpu_advance(INTERVAL);
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	pthread_mutex_unlock(&gl);
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "flush");
	CHECK_EQ(fake_int(&rests_lost), 0, "the split sample's rest found its first part in the image");
	CHECK_EQ(fake_int(&rests_completed), 1, "and completed it");
	CHECK_EQ(count_of(&s, id), 1107, "every sample added once, whole: 7 + 100 + 1000");
	CHECK_EQ(lost_of(&s), 0, "nothing lost");
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ losses */

static void test_gap(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	CHECK(!reason(&s)[0], "no loss: no reason");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	gpu_add("a.sum", 1);
	gpu_advance(INTERVAL);
	fake_set(&drop_next, 2);
	gpu_add("a.sum", 100);	/* lost with its sample */
	gpu_advance(2 * INTERVAL);
	gpu_add("a.sum", 4);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, id), 5, "a.sum of the samples decoded");
	CHECK_EQ(lost_of(&s), 1, "a gap of 2 ms between two samples counts as a loss");
	CHECK_EQ(hard_of(&s), 0, "but not as a hard one (a read warns and counts)");
	CHECK(contains(reason(&s), "gap") &&
		      contains(reason(&s), "2.000 ms"),
	      "why: %s", reason(&s));
	cupti_cb_sampling_session_destroy(&s);
}

/* The buffer holds 4 records; 6 samples complete before a decode. The
 * image takes 2 samples: the decode goes on image after image. */
static void test_overflow(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	o.buffer_bytes = 4 * REC_BYTES;
	o.max_samples = 2;
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	for (int i = 0; i < 6; i++) {
		gpu_add("a.sum", 1);
		gpu_advance(INTERVAL);
	}
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, id), 4, "a.sum of the 4 samples the buffer kept, over 2 full images");
	CHECK_EQ(lost_of(&s), 1, "the overflow counts as one loss");
	CHECK_EQ(hard_of(&s), 1, "a hard one");
	CHECK(contains(reason(&s), "overflowed") &&
		      contains(reason(&s), CUPTI_CB_ENV_SAMPLING_BUFFER),
	      "why names the overflow and what to change: %s", reason(&s));
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run again");
	gpu_add("a.sum", 2);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, id), 6, "sampling goes on after the overflow");
	CHECK_EQ(lost_of(&s), 1, "no further loss");
	cupti_cb_sampling_session_destroy(&s);
}

static void test_out_of_memory(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	o.buffer_bytes = 4 * REC_BYTES;
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	fake_set(&oom_mode, 1);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	for (int i = 0; i < 6; i++) {
		gpu_add("a.sum", 1);
		gpu_advance(INTERVAL);
	}
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	pthread_mutex_unlock(&gl);
	int rc = cupti_cb_sampling_session_flush(&s, why, sizeof why);
	CHECK(rc == 0, "a flush that meets CUPTI_ERROR_OUT_OF_MEMORY (samples before the call) succeeds: %s", why);
	CHECK_EQ(lost_of(&s), 1, "OUT_OF_MEMORY counts as one loss, for the windows open then");
	CHECK(contains(reason(&s), "overflowed"), "why: %s",
	      reason(&s));
	CHECK(fake_int(&n_stop) == 1 && fake_int(&n_start) == 2 && fake_int(&cur->started),
	      "sampling restarted (%d stops, %d starts)", fake_int(&n_stop), fake_int(&n_start));
	uint64_t before = count_of(&s, id);
	gpu_add("a.sum", 2);
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "a flush after the restart");
	CHECK_EQ(count_of(&s, id) - before, 2, "samples after the restart are added");
	CHECK_EQ(lost_of(&s), 1, "no further loss");
	cupti_cb_sampling_session_destroy(&s);
}

/* An overflow whose restart fails: sampling stopped, and the flush, whose
 * caller would count nothing, says so. */
static void test_flush_stopped(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	o.buffer_bytes = 4 * REC_BYTES;
	struct cupti_cb_sampling_session s;
	open_a_sum(&s, &o);
	fake_set(&oom_mode, 1);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	for (int i = 0; i < 6; i++) {
		gpu_add("a.sum", 1);
		gpu_advance(INTERVAL);
	}
	pthread_mutex_lock(&gl);
	start_error = CUPTI_ERROR_HARDWARE_BUSY;
	pthread_mutex_unlock(&gl);
	int rc = cupti_cb_sampling_session_flush(&s, why, sizeof why);
	CHECK(rc == CUPTI_CB_SAMPLING_EFAIL && contains(why, "stopped") && contains(why, "cuptiPmSamplingStart"),
	      "a flush after which sampling cannot run says why: %s", why);
	pthread_mutex_lock(&gl);
	start_error = 0;
	pthread_mutex_unlock(&gl);
	cupti_cb_sampling_session_destroy(&s);
}

static void test_failed_decode(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	open_a_sum(&s, &o);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	decode_error = CUPTI_ERROR_UNKNOWN;
	decode_errors = 1;
	pthread_mutex_unlock(&gl);
	int rc = cupti_cb_sampling_session_flush(&s, why, sizeof why);
	CHECK(rc == 0, "a flush whose first decode fails still brings the totals up to the call: %s", why);
	CHECK_EQ(lost_of(&s), 1, "a failed decode counts as a loss");
	CHECK(contains(reason(&s), "cuptiPmSamplingDecodeData"), "why: %s",
	      reason(&s));
	fake_set(&evaluate_errors, 1);
	gpu_add("a.sum", 9);
	rc = cupti_cb_sampling_session_flush(&s, why, sizeof why);
	CHECK(rc == 0, "a sample that cannot be evaluated does not fail the flush: %s", why);
	CHECK_EQ(lost_of(&s), 2, "a failed evaluation counts as a loss");
	CHECK(contains(reason(&s), "evaluated"), "why: %s", reason(&s));
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "then flushes succeed");

	/* No sample comes (the clock stands still): the flush gives up. */
	pthread_mutex_lock(&gl);
	auto_ns = 0;
	pthread_mutex_unlock(&gl);
	rc = cupti_cb_sampling_session_flush(&s, why, sizeof why);
	CHECK(rc == CUPTI_CB_SAMPLING_EFAIL && contains(why, "no new sample"), "no sample comes: %s", why);
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ flush */

/* A completed sample reaches the buffer one decode late: a flush that
 * decoded once would miss the work of the sample in progress. */
static void test_flush(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "a flush while stopped");
	CHECK_EQ(fake_int(&n_decode), 0, "decodes nothing");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	lag = 1;
	pthread_mutex_unlock(&gl);
	for (int k = 1; k <= 5; k++) {
		gpu_add("a.sum", k);
		CHECK_EQ(cupti_cb_sampling_session_flush(&s, why, sizeof why), 0, "flush");
		CHECK_EQ(count_of(&s, id), k * (k + 1) / 2, "after the flush: the sample in progress at the call");
	}
	CHECK(fake_int(&n_decode) >= 15, "each flush decoded until 2 more samples were in (%d decodes)",
	      fake_int(&n_decode));
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ want and the union */

static void test_union(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	CHECK_EQ(open_session(&s, &o), 0, "init");
	const char *a[] = { "a.sum" }, *b[] = { "b.sum" }, *mp[] = { "multipass.sum" };
	const int add[] = { 1 };
	unsigned ida, idb, idm, ida2;
	CHECK_EQ(cupti_cb_sampling_session_want(&s, a, add, 1, &ida, why, sizeof why), 0, "want a.sum");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	gpu_add("a.sum", 5);
	gpu_add("b.sum", 50);	/* not configured: not counted */
	gpu_advance(INTERVAL);
	gpu_add("a.sum", 6);	/* in the open sample when the union changes */
	CHECK_EQ(cupti_cb_sampling_session_want(&s, b, add, 1, &idb, why, sizeof why), 0, "want b.sum: a new union");
	CHECK_EQ(idb, 1, "b.sum's id");
	CHECK(n_disable == 1 && n_enable == 2 && n_setconfig == 2,
	      "a new object for the new union: %d disables, %d enables, %d configurations", n_disable, n_enable,
	      n_setconfig);
	CHECK(cur && cur->cfg.n == 2 && cur->started, "the new object samples both, started");
	CHECK_EQ(count_of(&s, ida), 11, "a.sum's total kept, the open sample's included");
	CHECK_EQ(count_of(&s, idb), 0, "b.sum starts at 0");
	gpu_add2("a.sum", 1, "b.sum", 2);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_want(&s, a, add, 1, &ida2, why, sizeof why), 0, "want a.sum again");
	CHECK(ida2 == ida && n_setconfig == 2 && n_enable == 2, "same id, no new configuration");
	CHECK_EQ(s.entries[ida].refs, 2, "a.sum: 2 references");

	int starts = fake_int(&n_start), stops = fake_int(&n_stop);
	int rc = cupti_cb_sampling_session_want(&s, mp, add, 1, &idm, why, sizeof why);
	CHECK(rc == CUPTI_CB_SAMPLING_EPASSES && contains(why, "2 passes") && contains(why, "device 0"),
	      "a union of 2 passes is refused: %s", why);
	CHECK(n_setconfig == 2 && n_enable == 2 && fake_int(&n_start) == starts && fake_int(&n_stop) == stops &&
		      cur->started && s.n_entries == 2,
	      "and changes nothing (sampling not stopped, %u entries)", s.n_entries);

	/* 78 more: 80 in all, the most; one more is refused. */
	char many[CUPTI_CB_SAMPLING_MAX_METRICS + 1][NAMELEN];
	const char *pm_names[CUPTI_CB_SAMPLING_MAX_METRICS + 1];
	int adds[CUPTI_CB_SAMPLING_MAX_METRICS + 1];
	unsigned mids[CUPTI_CB_SAMPLING_MAX_METRICS + 1];
	for (unsigned i = 0; i <= CUPTI_CB_SAMPLING_MAX_METRICS; i++) {
		snprintf(many[i], NAMELEN, "m%u.sum", i);
		pm_names[i] = many[i];
		adds[i] = 1;
	}
	rc = cupti_cb_sampling_session_want(&s, pm_names, adds, CUPTI_CB_SAMPLING_MAX_METRICS - 1, mids, why, sizeof why);
	CHECK(rc == CUPTI_CB_SAMPLING_ELIMIT && contains(why, "80"), "81 metrics: %s", why);
	CHECK(s.n_entries == 2 && n_setconfig == 2 && !s.entries[2].name, "and nothing changed (%u entries)",
	      s.n_entries);
	rc = cupti_cb_sampling_session_want(&s, pm_names, adds, CUPTI_CB_SAMPLING_MAX_METRICS - 2, mids, why, sizeof why);
	CHECK(rc == 0 && s.n_entries == CUPTI_CB_SAMPLING_MAX_METRICS && mids[0] == 2, "80 metrics: %s",
	      rc ? why : "ok");
	gpu_add("m77.sum", 3);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, ida), 12, "a.sum across two reconfigurations");
	CHECK_EQ(count_of(&s, idb), 2, "b.sum");
	CHECK_EQ(count_of(&s, mids[77]), 3, "the 80th metric");
	/* The work of the time sampling stood still for each new union is in
	 * no sample, and no gap between samples shows it: each pause under a
	 * running set is a loss of its own. */
	CHECK_EQ(lost_of(&s), 2, "each reconfiguration under a running set is a loss");
	char lw[256];
	cupti_cb_sampling_session_lost_why(&s, lw, sizeof lw);
	CHECK(contains(lw, "PM sampling stopped for") && contains(lw, "another event set's metrics"), "why: %s", lw);

	cupti_cb_sampling_session_unwant(&s, &ida, 1);
	CHECK(s.entries[ida].refs == 1 && !cupti_cb_sampling_session_idle(&s), "one reference of a.sum left");
	cupti_cb_sampling_session_unwant(&s, &ida, 1);
	cupti_cb_sampling_session_unwant(&s, &idb, 1);
	cupti_cb_sampling_session_unwant(&s, mids, CUPTI_CB_SAMPLING_MAX_METRICS - 2);
	CHECK(cupti_cb_sampling_session_idle(&s), "every reference given back: idle");
	cupti_cb_sampling_session_destroy(&s);
	CHECK(cur == NULL && n_disable == n_enable, "destroy disables the last object");
}

/* A new union whose new object cannot be enabled (another profiler took
 * the counters between Disable and Enable): the want fails, and destroy
 * still stops the decode thread and frees everything (the source frees
 * the session right after). */
static void test_failed_reenable(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	o.decode_ns = 1000000;
	struct cupti_cb_sampling_session *s = calloc(1, sizeof *s);
	CHECK_EQ(open_session(s, &o), 0, "init");
	const char *a[] = { "a.sum" }, *b[] = { "b.sum" };
	const int add[] = { 1 };
	unsigned ida, idb;
	CHECK_EQ(cupti_cb_sampling_session_want(s, a, add, 1, &ida, why, sizeof why), 0, "want a.sum");
	CHECK_EQ(cupti_cb_sampling_session_run(s, why, sizeof why), 0, "run");
	gpu_add("a.sum", 4);
	gpu_advance(INTERVAL);
	pthread_mutex_lock(&gl);
	enable_error = CUPTI_ERROR_HARDWARE_BUSY;
	pthread_mutex_unlock(&gl);
	int rc = cupti_cb_sampling_session_want(s, b, add, 1, &idb, why, sizeof why);
	pthread_mutex_lock(&gl);
	enable_error = 0;
	pthread_mutex_unlock(&gl);
	CHECK(rc == CUPTI_CB_SAMPLING_EBUSY && contains(why, "cuptiPmSamplingEnable") && contains(why, "another profiler"),
	      "a new object that cannot be enabled: %s", why);
	CHECK(s->n_entries == 1 && s->entries[ida].refs == 1, "the union is what it was (%u entries)", s->n_entries);
	CHECK_EQ(count_of(s, ida), 4, "a.sum's total kept");
	CHECK_EQ(cupti_cb_sampling_session_halt(s, why, sizeof why), 0, "halt");
	cupti_cb_sampling_session_destroy(s);
	CHECK(!s->have_thread && s->image == NULL && s->entries[0].name == NULL,
	      "destroy stopped the decode thread and freed the session's memory");
	if (!s->have_thread)
		free(s);	/* else the thread would wake in freed memory */
}

/* A new union configured, but sampling cannot start again (another
 * profiler took the counters): the sets that run miss GPU work from now
 * on, so their reads must see a loss, with the reason. */
static void test_failed_restart(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	CHECK_EQ(open_session(&s, &o), 0, "init");
	const char *a[] = { "a.sum" }, *b[] = { "b.sum" };
	const int add[] = { 1 };
	unsigned ida, idb;
	CHECK_EQ(cupti_cb_sampling_session_want(&s, a, add, 1, &ida, why, sizeof why), 0, "want a.sum");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "a set runs");
	gpu_add("a.sum", 4);
	gpu_advance(INTERVAL);
	pthread_mutex_lock(&gl);
	start_error = CUPTI_ERROR_HARDWARE_BUSY;
	pthread_mutex_unlock(&gl);
	int rc = cupti_cb_sampling_session_want(&s, b, add, 1, &idb, why, sizeof why);
	CHECK(rc == CUPTI_CB_SAMPLING_EBUSY && contains(why, "cuptiPmSamplingStart"),
	      "the union is configured, the start after it refused: %s", why);
	CHECK(!fake_int(&cur->started), "sampling is stopped");
	CHECK_EQ(count_of(&s, ida), 4, "a.sum up to the reconfiguration");
	CHECK_EQ(lost_of(&s), 1, "the running set's window misses work from now on: a loss");
	CHECK(contains(reason(&s), "cuptiPmSamplingStart"), "why: %s", reason(&s));
	pthread_mutex_lock(&gl);
	start_error = 0;
	pthread_mutex_unlock(&gl);
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ extremes */

/* One decode of what completed: a flush whose clock stands still (it gives
 * up waiting for the next sample after its limit, about 0.2 s). */
static void decode_once(struct cupti_cb_sampling_session *s)
{
	(void)cupti_cb_sampling_session_flush(s, why, sizeof why);
}

/* Samples of the given values, one interval each. */
static void samples_of(const double *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		gpu_add("a.sum", v[i]);
		gpu_advance(INTERVAL);
	}
}

/* The published values of trackers t[0..1] and the samples so far. */
static uint64_t extremes(struct cupti_cb_sampling_session *s, unsigned id, const unsigned *t, double *x)
{
	struct cupti_cb_profiler_total tot[2];
	unsigned ids[2] = { id, id };
	uint64_t lost = 0, hard = 0, samples = 0;
	x[0] = x[1] = -1;
	if (cupti_cb_sampling_session_snapshot_all(s, ids, t, 2, tot, x, &lost, &hard, &samples, NULL))
		return UINT64_MAX;
	return samples;
}

/* A counter's .max and .min over a window: the largest and smallest value
 * one sample had, tracked from the window's start on (never a sum), from
 * the recent samples when the window starts in the past. */
static void test_extremes(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o), t[2];
	CHECK_EQ(cupti_cb_sampling_session_track(&s, id, 1, &t[0], why, sizeof why), 0, "track the largest");
	CHECK_EQ(cupti_cb_sampling_session_track(&s, id, -1, &t[1], why, sizeof why), 0, "and the smallest");
	CHECK(t[0] != t[1], "two trackers, two slots (%u, %u)", t[0], t[1]);
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	double x[2];
	uint64_t q0 = extremes(&s, id, t, x);
	CHECK(isnan(x[0]) && isnan(x[1]), "no sample yet: NaN (%g, %g)", x[0], x[1]);
	CHECK_EQ(cupti_cb_sampling_session_track_from(&s, t, 2, q0), 0, "the window starts now");
	static const double first[] = { 5, 9, 2 };
	samples_of(first, 3);
	decode_once(&s);
	uint64_t q1 = extremes(&s, id, t, x);
	CHECK_EQ(q1, q0 + 3, "three samples added");
	CHECK(x[0] == 9 && x[1] == 2, "the largest and smallest sample: 9 and 2, not a sum (%g, %g)", x[0], x[1]);
	CHECK_EQ(count_of(&s, id), 16, "while the total adds up");
	static const double second[] = { 4, 7 };
	samples_of(second, 2);
	decode_once(&s);
	uint64_t q2 = extremes(&s, id, t, x);
	CHECK(x[0] == 9 && x[1] == 2, "the window goes on: 9 and 2 (%g, %g)", x[0], x[1]);
	CHECK_EQ(cupti_cb_sampling_session_track_from(&s, t, 2, q1), 0, "a window from a past read's samples");
	extremes(&s, id, t, x);
	CHECK(x[0] == 7 && x[1] == 4, "published at once: the samples since, 7 and 4 (%g, %g)", x[0], x[1]);
	CHECK_EQ(cupti_cb_sampling_session_track_from(&s, t, 2, q2), 0, "a window from now");
	extremes(&s, id, t, x);
	CHECK(isnan(x[0]) && isnan(x[1]), "empty: NaN (%g, %g)", x[0], x[1]);
	static const double third[] = { 3 };
	samples_of(third, 1);
	decode_once(&s);
	extremes(&s, id, t, x);
	CHECK(x[0] == 3 && x[1] == 3, "its one sample: 3 and 3 (%g, %g)", x[0], x[1]);

	/* The recent values cover 2 * 8 + 16 samples: a window older than
	 * that cannot start, and nothing changes. */
	uint64_t old = extremes(&s, id, t, x);
	for (int round = 0; round < 3; round++) {
		double v[14];
		for (unsigned i = 0; i < 14; i++)
			v[i] = 100 + i;
		samples_of(v, 14);
		decode_once(&s);
	}
	CHECK_EQ(lost_of(&s), 0, "nothing lost on the way");
	CHECK_EQ(cupti_cb_sampling_session_track_from(&s, t, 2, old), -1, "42 samples back: no longer kept");
	extremes(&s, id, t, x);
	CHECK(x[0] == 113 && x[1] == 3, "the window stays as it was (%g, %g)", x[0], x[1]);

	unsigned more[CUPTI_CB_SAMPLING_MAX_TRACKERS], k = 0;
	int rc = 0;
	while (k < CUPTI_CB_SAMPLING_MAX_TRACKERS && !rc)
		if (!(rc = cupti_cb_sampling_session_track(&s, id, 1, &more[k], why, sizeof why)))
			k++;
	CHECK(rc == CUPTI_CB_SAMPLING_ELIMIT && k == CUPTI_CB_SAMPLING_MAX_TRACKERS - 2 && contains(why, ".max"),
	      "every slot taken: refused with a sentence after %u more: %s", k, why);
	for (unsigned i = 0; i < k; i++)
		cupti_cb_sampling_session_untrack(&s, more[i]);
	cupti_cb_sampling_session_untrack(&s, t[0]);
	unsigned again = UINT_MAX;
	rc = cupti_cb_sampling_session_track(&s, id, 1, &again, why, sizeof why);
	CHECK(rc == 0 && again == t[0], "a slot let go is taken again (%u)", again);
	cupti_cb_sampling_session_destroy(&s);
}

/* Metrics no set wants any more leave the union when it must change: a
 * set that fits beside those still wanted is not refused for metrics of
 * sets long gone. */
static void test_union_shrinks(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	struct cupti_cb_sampling_session s;
	unsigned a = open_a_sum(&s, &o);
	char names[60][NAMELEN];
	const char *b[60], *c[30];
	int add[60];
	unsigned bid[60], cid[30];
	for (unsigned i = 0; i < 60; i++) {
		snprintf(names[i], NAMELEN, "%c%u.sum", i < 30 ? 'b' : 'c', i);
		add[i] = 1;
	}
	for (unsigned i = 0; i < 60; i++)
		b[i] = names[i];
	CHECK_EQ(cupti_cb_sampling_session_want(&s, b, add, 60, bid, why, sizeof why), 0, "a set of 60 more: 61");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	gpu_add("a.sum", 5);
	gpu_advance(INTERVAL);
	cupti_cb_sampling_session_unwant(&s, bid, 60);	/* that set is gone */
	for (unsigned i = 0; i < 30; i++) {
		snprintf(names[i], NAMELEN, "d%u.sum", i);
		c[i] = names[i];
	}
	int rc = cupti_cb_sampling_session_want(&s, c, add, 30, cid, why, sizeof why);
	CHECK(rc == 0, "30 new beside the 1 still wanted (61 unwanted ones in the union before): %s", rc ? why : "ok");
	CHECK_EQ(fake_int(&n_setconfig), 3, "configured a third time, for the new union");
	gpu_add("a.sum", 7);
	gpu_add("d3.sum", 11);
	gpu_advance(INTERVAL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "halt");
	CHECK_EQ(count_of(&s, a), 12, "the metric wanted all along kept its total across the new union (5 + 7)");
	CHECK_EQ(rc ? 0 : count_of(&s, cid[3]), 11, "a new metric counts");
	cupti_cb_sampling_session_destroy(&s);
}

/* ------------------------------------------------------------ concurrency */

static struct cupti_cb_sampling_session cs;
static unsigned cids[2];
static atomic_int stop_readers;
static atomic_long r_reads, r_unequal, r_back, r_busy, r_why_bad;
static atomic_long h_reads, h_unequal, h_back;
static _Thread_local uint64_t h_last;

static void on_prof(int sig)
{
	(void)sig;
	struct cupti_cb_profiler_total t[2];
	uint64_t lost;
	if (cupti_cb_sampling_session_snapshot(&cs, cids, 2, t, &lost))
		return;
	atomic_fetch_add(&h_reads, 1);
	if (t[0].count != t[1].count)
		atomic_fetch_add(&h_unequal, 1);
	else if (t[0].count < h_last)
		atomic_fetch_add(&h_back, 1);
	else
		h_last = t[0].count;
}

static void *reader(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* SIGPROF goes to the thread that pushes work */
	uint64_t last = 0, last_lost = 0;
	while (!atomic_load(&stop_readers)) {
		struct cupti_cb_profiler_total t[2];
		uint64_t lost;
		int rc = cupti_cb_sampling_session_snapshot(&cs, cids, 2, t, &lost);
		atomic_fetch_add(&r_reads, 1);
		if (rc) {
			atomic_fetch_add(&r_busy, 1);
			continue;
		}
		if (t[0].count != t[1].count || t[0].weight != t[1].weight)
			atomic_fetch_add(&r_unequal, 1);
		else if (t[0].count < last || lost < last_lost)
			atomic_fetch_add(&r_back, 1);
		else
			last = t[0].count;
		/* As a read of the source does when its window lost samples. */
		if (lost != last_lost) {
			char copy[256];
			cupti_cb_sampling_session_lost_why(&cs, copy, sizeof copy);
			if (!strstr(copy, "gap"))
				atomic_fetch_add(&r_why_bad, 1);
			last_lost = lost;
		}
	}
	return NULL;
}

static void test_concurrency(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	fake_set(&quiet_thread, 0);
	o.decode_ns = 200000;	/* 0.2 ms */
	o.max_samples = 4;
	o.buffer_bytes = MAXREC * REC_BYTES;
	CHECK_EQ(open_session(&cs, &o), 0, "init");
	const char *names[] = { "a.sum", "b.sum" };
	const int add[] = { 1, 1 };
	CHECK_EQ(cupti_cb_sampling_session_want(&cs, names, add, 2, cids, why, sizeof why), 0, "want");
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;	/* time passes with each decode of the thread */
	pthread_mutex_unlock(&gl);
	CHECK_EQ(cupti_cb_sampling_session_run(&cs, why, sizeof why), 0, "run: the decode thread publishes");

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	setitimer(ITIMER_PROF, &it, NULL);

	/* Until five samples were dropped and the handler has read 100 times: conditions, not
	 * durations, so that a slow or loaded machine takes longer but checks the same. The
	 * handler's timer runs on the process's CPU time, which the readers spend. */
	struct timespec nap = { 0, 20000 };
	long pushed = 0, drops = 0;
	for (long k = 1; drops < 5 || atomic_load(&h_reads) < 100; k++) {
		gpu_add2("a.sum", 1, "b.sum", 1);
		pushed++;
		if (k % 500 == 0 && drops < 5) {
			fake_set(&drop_next, 1);	/* a sample lost: a gap */
			drops++;
		}
		nanosleep(&nap, NULL);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	CHECK_EQ(cupti_cb_sampling_session_halt(&cs, why, sizeof why), 0, "halt");
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	signal(SIGPROF, SIG_IGN);

	struct cupti_cb_profiler_total t[2];
	uint64_t lost;
	CHECK_EQ(cupti_cb_sampling_session_snapshot(&cs, cids, 2, t, &lost), 0, "the final snapshot");
	pthread_mutex_lock(&gl);
	double dropped = lost_work[0];
	pthread_mutex_unlock(&gl);
	printf("# %ld pushes, %ld handler reads, %ld thread reads (%ld overtaken), %llu samples, %llu lost\n", pushed,
	       atomic_load(&h_reads), atomic_load(&r_reads), atomic_load(&r_busy),
	       (unsigned long long)locked_samples(&cs), (unsigned long long)lost);
	CHECK(t[0].count == t[1].count && t[0].count == (uint64_t)(pushed - (long)dropped),
	      "the totals: every push but those of lost samples (%llu, %llu, want %ld - %.0f)",
	      (unsigned long long)t[0].count, (unsigned long long)t[1].count, pushed, dropped);
	CHECK(lost >= 1 && lost <= (uint64_t)drops, "each dropped sample a loss: %llu of %ld",
	      (unsigned long long)lost, drops);
	CHECK(atomic_load(&h_reads) >= 50, "the handler read while the thread decoded: %ld", atomic_load(&h_reads));
	CHECK(atomic_load(&r_reads) > atomic_load(&r_busy) + 1000, "the reader threads read: %ld",
	      atomic_load(&r_reads));
	CHECK_EQ(atomic_load(&h_unequal), 0, "handler snapshots with a.sum != b.sum (torn)");
	CHECK_EQ(atomic_load(&h_back), 0, "handler snapshots that went back");
	CHECK_EQ(atomic_load(&r_unequal), 0, "thread snapshots with a.sum != b.sum (torn)");
	CHECK_EQ(atomic_load(&r_back), 0, "thread snapshots that went back");
	CHECK_EQ(atomic_load(&r_why_bad), 0, "reasons read while losses were noted that were not the gap's");
	cupti_cb_sampling_session_destroy(&cs);
}

/* The reason of the last loss, read as a read of the source reads it once
 * its window lost samples (every read after that), while the decode thread
 * notes loss after loss of two kinds: each reason read must be whole. */
static atomic_long w_reads, w_torn;
static char w_example[300];
static atomic_int w_have_example;

static int whole_reason(const char *w)
{
	static const char gap0[] = "PM sampling lost the samples of ",
			  gap1[] = " ms (a gap between two decoded samples)",
			  ev0[] = "a sample could not be evaluated: cuptiProfilerHostEvaluateToGpuValues failed for range ",
			  ev1[] = " metrics: CUPTI_ERROR_SOMETHING";
	size_t n = strlen(w);
	if (!n)
		return 1;	/* no loss yet */
	if (!strncmp(w, gap0, sizeof gap0 - 1))
		return n >= sizeof gap0 - 1 + sizeof gap1 - 1 && !strcmp(w + n - (sizeof gap1 - 1), gap1);
	if (!strncmp(w, ev0, sizeof ev0 - 1))
		return n >= sizeof ev0 - 1 + sizeof ev1 - 1 && !strcmp(w + n - (sizeof ev1 - 1), ev1);
	return 0;
}

static void *why_reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_readers)) {
		char copy[300];
		cupti_cb_sampling_session_lost_why(&cs, copy, sizeof copy);
		atomic_fetch_add(&w_reads, 1);
		if (!whole_reason(copy)) {
			atomic_fetch_add(&w_torn, 1);
			if (!atomic_exchange(&w_have_example, 1))
				memcpy(w_example, copy, sizeof copy);
		}
	}
	return NULL;
}

static void test_reason_while_losing(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	fake_set(&quiet_thread, 0);
	o.decode_ns = 100000;
	o.max_samples = 4;
	o.buffer_bytes = MAXREC * REC_BYTES;
	CHECK_EQ(open_session(&cs, &o), 0, "init");
	const char *names[] = { "a.sum" };
	const int add[] = { 1 };
	CHECK_EQ(cupti_cb_sampling_session_want(&cs, names, add, 1, cids, why, sizeof why), 0, "want");
	pthread_mutex_lock(&gl);
	auto_ns = INTERVAL;
	pthread_mutex_unlock(&gl);
	atomic_store(&stop_readers, 0);
	CHECK_EQ(cupti_cb_sampling_session_run(&cs, why, sizeof why), 0, "run");
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, why_reader, NULL);
	/* Until more than 100 losses were noted (a condition, not a duration: a loaded machine
	 * takes longer, and checks the same). */
	struct timespec nap = { 0, 150000 };
	for (long k = 0; lost_of(&cs) <= 100; k++) {
		pthread_mutex_lock(&gl);
		if (k % 2)
			drop_next = 1 + (int)(k % 3);	/* gaps of 1, 2 or 3 ms */
		else
			evaluate_errors = 1;
		pthread_mutex_unlock(&gl);
		nanosleep(&nap, NULL);
	}
	CHECK_EQ(cupti_cb_sampling_session_halt(&cs, why, sizeof why), 0, "halt");
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	uint64_t lost = lost_of(&cs);
	printf("# %llu losses, %ld reasons read\n", (unsigned long long)lost, atomic_load(&w_reads));
	CHECK(lost > 100, "losses noted while the reason was read: %llu", (unsigned long long)lost);
	CHECK(atomic_load(&w_torn) == 0, "reasons read torn: %ld of %ld (e.g. '%s')", atomic_load(&w_torn),
	      atomic_load(&w_reads), atomic_load(&w_have_example) ? w_example : "");
	cupti_cb_sampling_session_destroy(&cs);
}

/* Sampling goes on after the last runner halts, for linger_ns: the decode
 * thread stops it then; a runner that comes back before starts nothing. */
static void test_linger(void)
{
	struct cupti_cb_sampling_options o = reset_fake();
	o.decode_ns = 1000000;	/* 1 ms */
	o.linger_ns = 20000000;	/* 20 ms */
	struct cupti_cb_sampling_session s;
	unsigned id = open_a_sum(&s, &o);
	(void)id;
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "run");
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "the last runner halts");
	CHECK(fake_int(&n_stop) == 0 && fake_int(&cur->started), "sampling goes on after it");
	CHECK_EQ(cupti_cb_sampling_session_run(&s, why, sizeof why), 0, "a runner again, at once");
	CHECK_EQ(fake_int(&n_start), 1, "which starts nothing");
	CHECK_EQ(cupti_cb_sampling_session_halt(&s, why, sizeof why), 0, "and halts");
	struct timespec t0, t1, nap = { 0, 1000000 };
	clock_gettime(CLOCK_BOOTTIME, &t0);
	for (int i = 0; i < 5000 && fake_int(&n_stop) == 0; i++)
		nanosleep(&nap, NULL);
	clock_gettime(CLOCK_BOOTTIME, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	CHECK(fake_int(&n_stop) == 1 && !fake_int(&cur->started), "the decode thread stops it (after %.1f ms)", ms);
	CHECK(ms >= 19, "not before the linger: %.1f ms", ms);
	cupti_cb_sampling_session_destroy(&s);
}

int main(void)
{
	test_options();
	test_init_errors();
	test_totals();
	test_second_start();
	test_partial();
	test_gap();
	test_overflow();
	test_out_of_memory();
	test_failed_decode();
	test_flush();
	test_union();
	test_failed_reenable();
	test_failed_restart();
	test_flush_stopped();
	test_partial_full();
	test_union_shrinks();
	test_extremes();
	test_concurrency();
	test_reason_while_losing();
	test_linger();
	return checks_done();
}
