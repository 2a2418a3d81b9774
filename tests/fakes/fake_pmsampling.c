/*
 * fake_pmsampling.c: the PM Sampling API (cupti_pmsampling.h) of the test-only fake libcupti
 * (linked into fakes/libcupti.so with fake_cupti.c and fake_profiler.c; control API in
 * fake_cuda.h).  A GPU samples its counters continuously into a hardware buffer, which
 * cuptiPmSamplingDecodeData empties into counter-data images; here the samples hold the values
 * a test adds with fake_pm_add, cut by the real CLOCK_MONOTONIC (the one fake_time_freeze can
 * freeze), so that the component's sampled source runs in CI without a GPU.
 *
 * One object per device, from cuptiPmSamplingEnable to cuptiPmSamplingDisable.  While it is
 * started, time is cut into samples of samplingInterval ns from the start (the interval is taken
 * as ns in both trigger modes).  The sample open now holds what fake_pm_add added to the device
 * since it opened; it completes when its interval has passed, which every call into this file
 * notices (there is no thread: a sample whose interval ended long ago completes at the next
 * call, with the end its interval gives), when fake_pm_tick ends it now, or at
 * cuptiPmSamplingStop (its end is then the stop time, however short the sample).  Completed
 * samples wait in the device's hardware buffer, of hardwareBufferSize / FAKE_PM_RECORD_BYTES
 * records; one that finds it full is dropped (KEEP_OLDEST) or drops the oldest (KEEP_LATEST),
 * counts in fake_pm_lost, and the next decode reports overflow once.
 *
 * A metric counts on an object only if cuptiPmSamplingGetCounterDataSize named it on that
 * object before the value was added (the union of the names of all its calls, up to
 * FAKE_PM_MAX_METRICS): what is not configured is not counted, as on a GPU.  The config image
 * of SetConfig is the real Host API's and is never read here.
 *
 * Counter-data images are the fake's own layout (struct pm_image below, FAKE_PM_IMAGE_MAGIC):
 * a header, the names of the object's last GetCounterDataSize call, and room for the samples.
 * They hold no pointer, so a memcpy of a fresh image is a fresh image.
 * cuptiProfilerHostEvaluateToGpuValues (fake_profiler.c) reads them through fake_pm_evaluate.
 *
 * Everything is under one mutex (pmlock); when the Range Profiler's lock (fake_profiler.c) is
 * needed as well, pmlock is taken first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>

#include "fake_cuda.h"

/* fake_profiler.c */
int fake_range_started_on(int dev);
void fake_chip_name(char *out, size_t size);
/* fake_cuda.c, when the program holds the fake libcuda too. */
int fake_devices(void) __attribute__((weak));
/* fake_cupti.c, when the program holds the whole fake libcupti (not fake_pmsampling_check). */
uint64_t fake_gpu_clock_offset(void) __attribute__((weak));

#define FAKE_PM_IMAGE_MAGIC 0x316d7066u /* "fpm1" */
#define FAKE_PM_AVAIL_MAGIC 0x616d7066u /* "fpma" */
#define FAKE_PM_AVAIL_BYTES 64
#define FAKE_PM_MAX_DEVICES 8
#define PM_NAME_BYTES 96

/* A completed sample in the hardware buffer: values by the object's name index. */
struct pm_record {
	uint64_t start, end;
	double v[FAKE_PM_MAX_METRICS];
};

struct pm_object { /* a CUpti_PmSampling_Object */
	int dev;
	int configured, started;
	int stale;		/* configured twice: as on an H100 (CUDA 13.0), no sample completes again */
	uint64_t interval;
	CUpti_PmSampling_TriggerMode trigger;
	CUpti_PmSampling_HardwareBuffer_AppendMode append;
	size_t capacity; /* records the hardware buffer holds */
	/* The hardware buffer: a ring grown as it fills, up to capacity records. */
	struct pm_record *ring;
	size_t ring_alloc, head, count;
	int overflow; /* a sample was dropped since the last decode */
	/* The open sample. */
	uint64_t open_start;
	double open[FAKE_PM_MAX_METRICS];
	/* Every name GetCounterDataSize gave, and the indices of its last call's (for images). */
	char names[FAKE_PM_MAX_METRICS][PM_NAME_BYTES];
	int n_names;
	int image_names[FAKE_PM_MAX_METRICS];
	int n_image_names;
};

/*
 * A counter-data image: this header, then n_names names of PM_NAME_BYTES, then capacity
 * samples of two uint64_t (start, end) and n_names doubles.
 */
struct pm_image {
	uint32_t magic;
	uint32_t n_names;
	uint64_t size;
	uint64_t capacity;
	uint64_t n_samples;
};

static pthread_mutex_t pmlock = PTHREAD_MUTEX_INITIALIZER;
static struct pm_object *objs[FAKE_PM_MAX_DEVICES];
static unsigned long lost[FAKE_PM_MAX_DEVICES];
static int unsupported;
static unsigned decode_delay_us;

/* ---- calls, and faults by call ------------------------------------------------------------ */

enum { ENABLE, DISABLE, SET_CONFIG, START, STOP, DECODE, AVAIL, DATA_SIZE, IMAGE_INIT, DATA_INFO, SAMPLE_INFO, N_CALLS };
static const char *const call_names[N_CALLS] = {
	"Enable", "Disable", "SetConfig", "Start", "Stop", "DecodeData", "GetCounterAvailability",
	"GetCounterDataSize", "CounterDataImageInitialize", "GetCounterDataInfo", "CounterDataGetSampleInfo",
};
static int n_calls[N_CALLS];
static int fault_n[N_CALLS];
static CUptiResult fault_err[N_CALLS];

static int call_index(const char *call)
{
	for (int i = 0; call && i < N_CALLS; i++)
		if (!strcmp(call, call_names[i]))
			return i;
	return -1;
}

void fake_pm_fault(const char *call, int n, CUptiResult err)
{
	int i = call_index(call);
	if (i < 0) {
		/* A misspelt name would inject nothing and let the test pass for the wrong reason. */
		fprintf(stderr, "fake_pm_fault: no cuptiPmSampling%s\n", call ? call : "(null)");
		abort();
	}
	pthread_mutex_lock(&pmlock);
	fault_n[i] = n;
	fault_err[i] = err;
	pthread_mutex_unlock(&pmlock);
}

int fake_pm_calls(const char *call)
{
	int i = call_index(call);
	if (i < 0)
		return -1;
	pthread_mutex_lock(&pmlock);
	int n = n_calls[i];
	pthread_mutex_unlock(&pmlock);
	return n;
}

/* Under pmlock: counts the call and gives the armed fault's error, or CUPTI_SUCCESS. */
static CUptiResult enter_call(int i)
{
	n_calls[i]++;
	if (fault_n[i] == 0)
		return CUPTI_SUCCESS;
	if (fault_n[i] > 0)
		fault_n[i]--;
	return fault_err[i];
}

void fake_pm_unsupported(int on)
{
	pthread_mutex_lock(&pmlock);
	unsupported = on;
	pthread_mutex_unlock(&pmlock);
}

int fake_pm_is_unsupported(void)
{
	pthread_mutex_lock(&pmlock);
	int u = unsupported;
	pthread_mutex_unlock(&pmlock);
	return u;
}

void fake_pm_decode_delay_us(unsigned us)
{
	pthread_mutex_lock(&pmlock);
	decode_delay_us = us;
	pthread_mutex_unlock(&pmlock);
}

/* The PM half of fake_reset_faults (through fake_cupti_reset_faults).  Objects still enabled
 * stay: they belong to whoever enabled them, whose handle must not dangle. */
void fake_pm_reset(void)
{
	pthread_mutex_lock(&pmlock);
	memset(n_calls, 0, sizeof n_calls);
	memset(fault_n, 0, sizeof fault_n);
	unsupported = 0;
	decode_delay_us = 0;
	for (int d = 0; d < FAKE_PM_MAX_DEVICES; d++)
		if (!objs[d])
			lost[d] = 0;
	pthread_mutex_unlock(&pmlock);
}

/* ---- time and samples --------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int ring_grow(struct pm_object *o)
{
	size_t n = o->ring_alloc ? o->ring_alloc * 2 : 16;
	if (n > o->capacity)
		n = o->capacity;
	struct pm_record *r = malloc(n * sizeof *r);
	if (!r)
		return -1;
	for (size_t i = 0; i < o->count; i++)
		r[i] = o->ring[(o->head + i) % o->ring_alloc];
	free(o->ring);
	o->ring = r;
	o->ring_alloc = n;
	o->head = 0;
	return 0;
}

/* Samples the hardware leaves out (fake_pm_skip), per device, under pmlock. */
static int skip_next[FAKE_PM_MAX_DEVICES];

static void drop_one(struct pm_object *o)
{
	o->overflow = 1;
	lost[o->dev]++;
}

static int name_index(const struct pm_object *o, const char *name);

/* Work the GPU does over a span of time (fake_pm_add_span), which every sample that overlaps
 * the span gets its share of, by time. Under pmlock. */
#define PM_SPANS 64
static struct pm_span {
	int live, dev;
	char metric[PM_NAME_BYTES];
	double v;
	uint64_t from, to;
} spans[PM_SPANS];

static void add_spans(const struct pm_object *o, uint64_t start, uint64_t end, double *v)
{
	for (int k = 0; k < PM_SPANS; k++) {
		struct pm_span *p = &spans[k];
		if (!p->live || p->dev != o->dev)
			continue;
		uint64_t a = p->from > start ? p->from : start, b = p->to < end ? p->to : end;
		int i = name_index(o, p->metric);
		if (b > a && i >= 0)
			v[i] += p->v * (double)(b - a) / (double)(p->to - p->from);
		if (p->to <= end)
			p->live = 0;
	}
}

/* A completed sample goes into the hardware buffer, or is dropped as the append mode says. */
static void push(struct pm_object *o, uint64_t start, uint64_t end, const double *given)
{
	double v[FAKE_PM_MAX_METRICS];
	memcpy(v, given, sizeof v);
	add_spans(o, start, end, v);
	if (skip_next[o->dev] > 0) {
		skip_next[o->dev]--;	/* never written: a gap, with no overflow */
		return;
	}
	if (o->count == o->capacity) {
		drop_one(o);
		if (o->append == CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST)
			return;
		o->head = (o->head + 1) % o->ring_alloc;
		o->count--;
	}
	if (o->count == o->ring_alloc && ring_grow(o) < 0) {
		drop_one(o); /* no memory: lost, as a sample the hardware could not write */
		return;
	}
	struct pm_record *r = &o->ring[(o->head + o->count) % o->ring_alloc];
	r->start = start;
	r->end = end;
	memcpy(r->v, v, sizeof r->v);
	o->count++;
}

/* The open sample completes at end; the next opens there. */
static void complete_open(struct pm_object *o, uint64_t end)
{
	push(o, o->open_start, end, o->open);
	memset(o->open, 0, sizeof o->open);
	o->open_start = end;
}

/* The next empty sample completes. */
static void push_empty(struct pm_object *o)
{
	static const double zero[FAKE_PM_MAX_METRICS];
	push(o, o->open_start, o->open_start + o->interval, zero);
	o->open_start += o->interval;
}

/*
 * The samples whose interval has passed by now complete; after the first, they are empty.
 * When more of them passed than the buffer holds, only those that can end up in it are made
 * (the first for KEEP_OLDEST, the last for KEEP_LATEST), and the others count as lost, as they
 * would have one by one.
 */
static void advance(struct pm_object *o, uint64_t now)
{
	if (!o || !o->started || o->stale || now < o->open_start || now - o->open_start < o->interval)
		return;
	uint64_t empty = (now - o->open_start) / o->interval - 1;
	complete_open(o, o->open_start + o->interval);
	uint64_t skip = empty > o->capacity ? empty - o->capacity : 0;
	if (skip) {
		lost[o->dev] += skip;
		o->overflow = 1;
	}
	int keep_oldest = o->append == CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	if (!keep_oldest)
		o->open_start += skip * o->interval;
	for (uint64_t i = 0; i < empty - skip; i++)
		push_empty(o);
	if (keep_oldest)
		o->open_start += skip * o->interval;
}

static void advance_all(void)
{
	uint64_t t = now_ns();
	for (int d = 0; d < FAKE_PM_MAX_DEVICES; d++)
		advance(objs[d], t);
}

static struct pm_object *live(CUpti_PmSampling_Object *p)
{
	for (int d = 0; p && d < FAKE_PM_MAX_DEVICES; d++)
		if (objs[d] == (struct pm_object *)(void *)p)
			return objs[d];
	return NULL;
}

static int name_index(const struct pm_object *o, const char *name)
{
	for (int i = 0; i < o->n_names; i++)
		if (!strcmp(o->names[i], name))
			return i;
	return -1;
}

/* ---- the control API ---------------------------------------------------------------------- */

void fake_pm_add(int dev, const char *metric, double v)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	struct pm_object *o = dev >= 0 && dev < FAKE_PM_MAX_DEVICES ? objs[dev] : NULL;
	int i = o && o->started && metric ? name_index(o, metric) : -1;
	if (i >= 0)
		o->open[i] += v;
	pthread_mutex_unlock(&pmlock);
}

void fake_pm_add_span(int dev, const char *metric, double v, uint64_t from, uint64_t to)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	int k = 0;
	while (k < PM_SPANS && spans[k].live)
		k++;
	if (k == PM_SPANS || !metric || to <= from || dev < 0 || dev >= FAKE_PM_MAX_DEVICES) {
		fprintf(stderr, "fake_pm_add_span: no room or a bad span\n");
		abort();
	}
	spans[k] = (struct pm_span){ .live = 1, .dev = dev, .v = v, .from = from, .to = to };
	snprintf(spans[k].metric, sizeof spans[k].metric, "%s", metric);
	pthread_mutex_unlock(&pmlock);
}

void fake_pm_skip(int dev, int n)
{
	pthread_mutex_lock(&pmlock);
	if (dev >= 0 && dev < FAKE_PM_MAX_DEVICES)
		skip_next[dev] = n;
	pthread_mutex_unlock(&pmlock);
}

void fake_pm_tick(int dev)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	struct pm_object *o = dev >= 0 && dev < FAKE_PM_MAX_DEVICES ? objs[dev] : NULL;
	if (o && o->started && !o->stale)
		complete_open(o, now_ns());
	pthread_mutex_unlock(&pmlock);
}

int fake_pm_started(int dev)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	int s = dev >= 0 && dev < FAKE_PM_MAX_DEVICES && objs[dev] && objs[dev]->started;
	pthread_mutex_unlock(&pmlock);
	return s;
}

unsigned long fake_pm_lost(int dev)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	unsigned long n = dev >= 0 && dev < FAKE_PM_MAX_DEVICES ? lost[dev] : 0;
	pthread_mutex_unlock(&pmlock);
	return n;
}

size_t fake_pm_buffered(int dev)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	size_t n = dev >= 0 && dev < FAKE_PM_MAX_DEVICES && objs[dev] ? objs[dev]->count : 0;
	pthread_mutex_unlock(&pmlock);
	return n;
}

/* For the Range Profiler (fake_profiler.c): fn(arg) runs under pmlock unless PM sampling is
 * started on device dev, which is then busy. */
CUptiResult fake_pm_exclusive(int dev, CUptiResult (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&pmlock);
	/* An enabled object holds the counters, started or not (H100, CUDA 13.0). */
	int busy = dev >= 0 && dev < FAKE_PM_MAX_DEVICES && objs[dev];
	CUptiResult r = busy ? CUPTI_ERROR_HARDWARE_BUSY : fn(arg);
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* ---- enable, configure, start, stop ------------------------------------------------------- */

/* The fake libcuda's count: bound at load when the program holds it, else looked up now (a
 * libcuda loaded after this library); 1 without it. */
static int device_count(void)
{
	int (*f)(void) = fake_devices;
	if (!f)
		*(void **)&f = dlsym(RTLD_DEFAULT, "fake_devices");
	int n = f ? f() : 1;
	return n < FAKE_PM_MAX_DEVICES ? n : FAKE_PM_MAX_DEVICES;
}

CUptiResult CUPTIAPI cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(ENABLE);
	if (r != CUPTI_SUCCESS)
		goto out;
	if (!p) {
		r = CUPTI_ERROR_INVALID_PARAMETER;
	} else if (!fake_profiler_up()) {
		r = CUPTI_ERROR_NOT_INITIALIZED;
	} else if (p->deviceIndex >= (size_t)device_count()) {
		r = CUPTI_ERROR_INVALID_DEVICE;
	} else if (objs[p->deviceIndex]) {
		r = CUPTI_ERROR_INVALID_OPERATION;
	} else {
		struct pm_object *o = calloc(1, sizeof *o);
		if (!o) {
			r = CUPTI_ERROR_OUT_OF_MEMORY;
			goto out;
		}
		o->dev = (int)p->deviceIndex;
		objs[o->dev] = o;
		lost[o->dev] = 0;
		p->pPmSamplingObject = (CUpti_PmSampling_Object *)(void *)o;
	}
out:
	pthread_mutex_unlock(&pmlock);
	return r;
}

CUptiResult CUPTIAPI cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(DISABLE);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r == CUPTI_SUCCESS && !o)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (o) {
		objs[o->dev] = NULL;
		free(o->ring);
		free(o);
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* GA100 and Turing have no fixed-frequency trigger (cupti_pmsampling.h). */
static int has_time_trigger(void)
{
	char chip[64];
	fake_chip_name(chip, sizeof chip);
	return strcmp(chip, "GA100") && strncmp(chip, "TU", 2);
}

static CUptiResult set_config(struct pm_object *o, const CUpti_PmSampling_SetConfig_Params *p)
{
	if (o->started)
		return CUPTI_ERROR_INVALID_OPERATION;
	if (p->samplingInterval == 0 || !p->pConfig || p->configSize == 0 ||
	    p->hardwareBufferSize < FAKE_PM_RECORD_BYTES || p->triggerMode >= CUPTI_PM_SAMPLING_TRIGGER_MODE_COUNT ||
	    (p->hwBufferAppendMode != CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST &&
	     p->hwBufferAppendMode != CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST))
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (p->triggerMode == CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL && !has_time_trigger())
		return CUPTI_ERROR_NOT_SUPPORTED;
	o->interval = p->samplingInterval;
	o->trigger = p->triggerMode;
	o->append = p->hwBufferAppendMode;
	o->capacity = p->hardwareBufferSize / FAKE_PM_RECORD_BYTES;
	/* A new configuration gets a new hardware buffer: what the old one held is gone. */
	free(o->ring);
	o->ring = NULL;
	o->ring_alloc = o->head = o->count = 0;
	o->overflow = 0;
	o->stale = o->configured;	/* a second configuration is taken, and samples no more */
	o->configured = 1;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(SET_CONFIG);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r == CUPTI_SUCCESS)
		r = o ? set_config(o, p) : CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_unlock(&pmlock);
	return r;
}

CUptiResult CUPTIAPI cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(START);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r != CUPTI_SUCCESS)
		;
	else if (!o)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else if (o->started || !o->configured)
		r = CUPTI_ERROR_INVALID_OPERATION;
	else if (fake_range_started_on(o->dev))
		r = CUPTI_ERROR_HARDWARE_BUSY; /* a range holds the counters (as on an H100) */
	else {
		o->started = 1;
		o->open_start = now_ns();
		memset(o->open, 0, sizeof o->open);
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

CUptiResult CUPTIAPI cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(STOP);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r != CUPTI_SUCCESS)
		;
	else if (!o)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else if (!o->started)
		r = CUPTI_ERROR_INVALID_OPERATION;
	else {
		/* Everything added before the stop is in a completed sample. */
		if (!o->stale)
			complete_open(o, now_ns());
		o->started = 0;
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* ---- counter-data images ------------------------------------------------------------------ */

static size_t sample_bytes(size_t n_names)
{
	return 2 * sizeof(uint64_t) + n_names * sizeof(double);
}

static size_t image_bytes(size_t n_names, size_t samples)
{
	return sizeof(struct pm_image) + n_names * PM_NAME_BYTES + samples * sample_bytes(n_names);
}

/* The image at data, if it is the fake's and whole; else NULL. */
static struct pm_image *image_of(const uint8_t *data, size_t size)
{
	struct pm_image *im = (struct pm_image *)(uintptr_t)data;
	if (!data || size < sizeof *im || im->magic != FAKE_PM_IMAGE_MAGIC || im->n_names > FAKE_PM_MAX_METRICS ||
	    im->size > size || im->n_samples > im->capacity || image_bytes(im->n_names, im->capacity) > im->size)
		return NULL;
	return im;
}

static const char *image_name(const struct pm_image *im, size_t i)
{
	return (const char *)(im + 1) + i * PM_NAME_BYTES;
}

static uint8_t *image_sample(struct pm_image *im, size_t s)
{
	return (uint8_t *)(im + 1) + im->n_names * PM_NAME_BYTES + s * sample_bytes(im->n_names);
}

static CUptiResult data_size(struct pm_object *o, CUpti_PmSampling_GetCounterDataSize_Params *p)
{
	if (!p->pMetricNames || p->numMetrics == 0 || p->numMetrics > FAKE_PM_MAX_METRICS || p->maxSamples == 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	int idx[FAKE_PM_MAX_METRICS], n_names = o->n_names;
	char names[FAKE_PM_MAX_METRICS][PM_NAME_BYTES];
	memcpy(names, o->names, sizeof names);
	for (size_t i = 0; i < p->numMetrics; i++) {
		const char *name = p->pMetricNames[i];
		if (!name || !name[0] || strlen(name) >= PM_NAME_BYTES)
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		int k = 0;
		while (k < n_names && strcmp(names[k], name))
			k++;
		if (k == n_names) {
			if (n_names == FAKE_PM_MAX_METRICS)
				return CUPTI_ERROR_INVALID_PARAMETER; /* more names than the fake counts */
			snprintf(names[n_names++], PM_NAME_BYTES, "%s", name);
		}
		idx[i] = k;
	}
	memcpy(o->names, names, sizeof names);
	o->n_names = n_names;
	memcpy(o->image_names, idx, sizeof idx);
	o->n_image_names = (int)p->numMetrics;
	p->counterDataSize = image_bytes(p->numMetrics, p->maxSamples);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(DATA_SIZE);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r == CUPTI_SUCCESS)
		r = o ? data_size(o, p) : CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_unlock(&pmlock);
	return r;
}

static CUptiResult image_init(const struct pm_object *o, CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
	size_t n = (size_t)o->n_image_names;
	if (n == 0 || !p->pCounterData || p->counterDataSize < image_bytes(n, 1))
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pCounterData, 0, p->counterDataSize);
	struct pm_image *im = (struct pm_image *)(void *)p->pCounterData;
	im->magic = FAKE_PM_IMAGE_MAGIC;
	im->n_names = (uint32_t)n;
	im->size = p->counterDataSize;
	im->capacity = (p->counterDataSize - image_bytes(n, 0)) / sample_bytes(n);
	for (size_t i = 0; i < n; i++)
		snprintf((char *)(im + 1) + i * PM_NAME_BYTES, PM_NAME_BYTES, "%s", o->names[o->image_names[i]]);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(IMAGE_INIT);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r == CUPTI_SUCCESS)
		r = o ? image_init(o, p) : CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* The oldest buffered record goes into the image's next sample. */
static void decode_one(struct pm_object *o, struct pm_image *im)
{
	const struct pm_record *rec = &o->ring[o->head];
	uint8_t *s = image_sample(im, im->n_samples);
	memcpy(s, &rec->start, sizeof rec->start);
	memcpy(s + sizeof(uint64_t), &rec->end, sizeof rec->end);
	for (uint32_t i = 0; i < im->n_names; i++) {
		int k = name_index(o, image_name(im, i));
		double v = k >= 0 ? rec->v[k] : 0;
		memcpy(s + 2 * sizeof(uint64_t) + i * sizeof(double), &v, sizeof v);
	}
	im->n_samples++;
	o->head = (o->head + 1) % o->ring_alloc;
	o->count--;
}

static CUptiResult decode(struct pm_object *o, CUpti_PmSampling_DecodeData_Params *p)
{
	struct pm_image *im = image_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im)
		return CUPTI_ERROR_INVALID_PARAMETER;
	while (o->count > 0 && im->n_samples < im->capacity)
		decode_one(o, im);
	p->decodeStopReason = o->count > 0 ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
					   : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
	p->overflow = (uint8_t)o->overflow;
	o->overflow = 0;
	return CUPTI_SUCCESS;
}

/* Calls of cuptiPmSamplingDecodeData in their delay now (fake_pm_decoding). */
static atomic_int decoding;

int fake_pm_decoding(void)
{
	return atomic_load(&decoding);
}

CUptiResult CUPTIAPI cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p)
{
	if (fake_cupti_finalized()) {
		static const char msg[] = "fake libcupti: cuptiPmSamplingDecodeData after CUPTI's teardown at exit\n";
		(void)!write(2, msg, sizeof msg - 1);
		abort();
	}
	pthread_mutex_lock(&pmlock);
	unsigned delay = decode_delay_us;
	pthread_mutex_unlock(&pmlock);
	atomic_fetch_add(&decoding, 1);
	if (delay)
		usleep(delay); /* outside the lock: a slow decode holds up no other caller */
	atomic_fetch_sub(&decoding, 1);
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(DECODE);
	struct pm_object *o = r == CUPTI_SUCCESS && p ? live(p->pPmSamplingObject) : NULL;
	if (r == CUPTI_SUCCESS)
		r = o ? decode(o, p) : CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_unlock(&pmlock);
	return r;
}

CUptiResult CUPTIAPI cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(DATA_INFO);
	const struct pm_image *im = r == CUPTI_SUCCESS && p ? image_of(p->pCounterDataImage, p->counterDataImageSize) : NULL;
	if (r == CUPTI_SUCCESS && !im)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (im) {
		/* The fake never leaves a sample half decoded in an image. */
		p->numTotalSamples = im->capacity;
		p->numPopulatedSamples = im->n_samples;
		p->numCompletedSamples = im->n_samples;
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

CUptiResult CUPTIAPI cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(SAMPLE_INFO);
	struct pm_image *im = r == CUPTI_SUCCESS && p ? image_of(p->pCounterDataImage, p->counterDataImageSize) : NULL;
	if (r == CUPTI_SUCCESS && (!im || p->sampleIndex >= im->n_samples))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (r == CUPTI_SUCCESS) {
		const uint8_t *s = image_sample(im, p->sampleIndex);
		memcpy(&p->startTimestamp, s, sizeof p->startTimestamp);
		memcpy(&p->endTimestamp, s + sizeof(uint64_t), sizeof p->endTimestamp);
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* A small image of the fake's own, which the fake never reads back. */
CUptiResult CUPTIAPI cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p)
{
	pthread_mutex_lock(&pmlock);
	advance_all();
	CUptiResult r = enter_call(AVAIL);
	if (r != CUPTI_SUCCESS)
		;
	else if (!p)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else if (!fake_profiler_up())
		r = CUPTI_ERROR_NOT_INITIALIZED;
	else if (p->deviceIndex >= (size_t)device_count())
		r = CUPTI_ERROR_INVALID_DEVICE;
	else if (!p->pCounterAvailabilityImage)
		p->counterAvailabilityImageSize = FAKE_PM_AVAIL_BYTES;
	else if (p->counterAvailabilityImageSize < FAKE_PM_AVAIL_BYTES)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else {
		uint32_t magic = FAKE_PM_AVAIL_MAGIC;
		memset(p->pCounterAvailabilityImage, 0, FAKE_PM_AVAIL_BYTES);
		memcpy(p->pCounterAvailabilityImage, &magic, sizeof magic);
		p->pCounterAvailabilityImage[sizeof magic] = (uint8_t)p->deviceIndex;
	}
	pthread_mutex_unlock(&pmlock);
	return r;
}

/* Whether image is one cuptiPmSamplingGetCounterAvailability made (cuptiProfilerHostInitialize
 * in fake_profiler.c keeps it from the real Host API); a real image is longer than the magic. */
int fake_pm_is_availability(const uint8_t *image)
{
	uint32_t magic = 0;
	if (image)
		memcpy(&magic, image, sizeof magic);
	return magic == FAKE_PM_AVAIL_MAGIC;
}

/* ---- evaluation (cuptiProfilerHostEvaluateToGpuValues, fake_profiler.c) -------------------- */

/* -1 when the image is not a PM sampling image of the fake; else the result of evaluating it:
 * rangeIndex is the sample. */
int fake_pm_evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	/* The image is the caller's (no lock: nothing here changes it). */
	struct pm_image *im = image_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im)
		return -1;
	if (p->rangeIndex >= im->n_samples)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (p->numMetrics && (!p->ppMetricNames || !p->pMetricValues))
		return CUPTI_ERROR_INVALID_PARAMETER;
	const uint8_t *s = image_sample(im, p->rangeIndex) + 2 * sizeof(uint64_t);
	for (size_t i = 0; i < p->numMetrics; i++) {
		uint32_t k = 0;
		while (k < im->n_names && (!p->ppMetricNames[i] || strcmp(image_name(im, k), p->ppMetricNames[i])))
			k++;
		if (k == im->n_names)
			return CUPTI_ERROR_INVALID_METRIC_NAME;
		memcpy(&p->pMetricValues[i], s + k * sizeof(double), sizeof(double));
	}
	return CUPTI_SUCCESS;
}

/* CUPTI's clock, which the samples' timestamps use: here the fake's (CLOCK_MONOTONIC, which
 * fake_time_freeze can freeze), ahead of it by fake_gpu_clock_offset() (0 unless a test asks). */
CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*timestamp = now_ns() + (fake_gpu_clock_offset ? fake_gpu_clock_offset() : 0);
	return CUPTI_SUCCESS;
}
