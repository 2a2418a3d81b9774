/*
 * fake_pmsampling_check.c: checks the PM sampling fake (fake_pmsampling.c) through its C API
 * and CUPTI's, without PAPI or the component: enabling and configuring, samples cut by explicit
 * ticks and by time, decoding into a small image (COUNTER_DATA_FULL, then END_OF_RECORDS),
 * evaluating every sample, overflow in both append modes, HARDWARE_BUSY both ways with the
 * fake Range Profiler, fault injection, the chips without a time trigger, the availability
 * image in CUPTI's flow through the real Host API, and threads (the
 * component decodes on a thread of its own while the application's threads work).
 *
 * Time is frozen (fake_time_freeze) where a check needs exact sample boundaries.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include "fake_cuda.h"

static _Atomic int failures; /* the decode thread checks too */

#define CHECK(cond, ...)                                                          \
	do {                                                                      \
		if (!(cond)) {                                                    \
			failures++;                                               \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
			printf(__VA_ARGS__);                                      \
			printf("\n");                                             \
		}                                                                 \
	} while (0)
#define CHECK_R(call, want) \
	do { \
		CUptiResult r_ = (call); \
		CHECK(r_ == (want), "%s returned %d, want %d (%s)", #call, (int)r_, (int)(want), #want); \
	} while (0)

#define READ "dram__bytes_read.sum"
#define WRITE "dram__bytes_write.sum"
#define CYCLES "sm__cycles_active.sum"
static const char *names[] = {READ, WRITE, CYCLES};
#define N_NAMES 3
#define T0 1000000000ull /* where time is frozen */

static const uint8_t config_image[16] = {1}; /* never read by the fake */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- CUPTI calls --------------------------------------------------------------------------- */

static CUptiResult enable(size_t dev, CUpti_PmSampling_Object **o)
{
	CUpti_PmSampling_Enable_Params p = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE, .deviceIndex = dev};
	CUptiResult r = cuptiPmSamplingEnable(&p);
	*o = p.pPmSamplingObject;
	return r;
}

static CUptiResult disable(CUpti_PmSampling_Object *o)
{
	CUpti_PmSampling_Disable_Params p = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
					     .pPmSamplingObject = o};
	return cuptiPmSamplingDisable(&p);
}

static CUptiResult config(CUpti_PmSampling_Object *o, uint64_t interval, size_t records,
			  CUpti_PmSampling_TriggerMode trigger, CUpti_PmSampling_HardwareBuffer_AppendMode append)
{
	CUpti_PmSampling_SetConfig_Params p = {
		.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
		.pPmSamplingObject = o,
		.configSize = sizeof config_image,
		.pConfig = config_image,
		.hardwareBufferSize = records * FAKE_PM_RECORD_BYTES,
		.samplingInterval = interval,
		.triggerMode = trigger,
		.hwBufferAppendMode = append,
	};
	return cuptiPmSamplingSetConfig(&p);
}

static CUptiResult start(CUpti_PmSampling_Object *o)
{
	CUpti_PmSampling_Start_Params p = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE, .pPmSamplingObject = o};
	return cuptiPmSamplingStart(&p);
}

static CUptiResult stop(CUpti_PmSampling_Object *o)
{
	CUpti_PmSampling_Stop_Params p = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE, .pPmSamplingObject = o};
	return cuptiPmSamplingStop(&p);
}

/* A counter-data image for max_samples samples of the three names, and a copy of it fresh. */
struct image {
	uint8_t *data, *fresh;
	size_t size;
};

static int image_make(CUpti_PmSampling_Object *o, uint32_t max_samples, struct image *im)
{
	CUpti_PmSampling_GetCounterDataSize_Params s = {.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE,
							.pPmSamplingObject = o,
							.pMetricNames = names,
							.numMetrics = N_NAMES,
							.maxSamples = max_samples};
	CUptiResult r = cuptiPmSamplingGetCounterDataSize(&s);
	CHECK(r == CUPTI_SUCCESS, "GetCounterDataSize: %d", (int)r);
	if (r != CUPTI_SUCCESS)
		return -1;
	im->size = s.counterDataSize;
	im->data = malloc(im->size);
	im->fresh = malloc(im->size);
	CUpti_PmSampling_CounterDataImage_Initialize_Params i = {
		.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.pPmSamplingObject = o,
		.counterDataSize = im->size,
		.pCounterData = im->data};
	r = cuptiPmSamplingCounterDataImageInitialize(&i);
	CHECK(r == CUPTI_SUCCESS, "CounterDataImageInitialize: %d", (int)r);
	memcpy(im->fresh, im->data, im->size);
	return r == CUPTI_SUCCESS ? 0 : -1;
}

static void image_free(struct image *im)
{
	free(im->data);
	free(im->fresh);
}

/* As the component does after reading an image: the saved fresh copy back. */
static void image_reset(struct image *im)
{
	memcpy(im->data, im->fresh, im->size);
}

static CUptiResult decode(CUpti_PmSampling_Object *o, struct image *im, CUpti_PmSampling_DecodeStopReason *why,
			  int *overflow)
{
	CUpti_PmSampling_DecodeData_Params p = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE,
						.pPmSamplingObject = o,
						.pCounterDataImage = im->data,
						.counterDataImageSize = im->size,
						.overflow = 7};
	CUptiResult r = cuptiPmSamplingDecodeData(&p);
	*why = p.decodeStopReason;
	*overflow = p.overflow;
	return r;
}

/* The completed samples of the image (-1 on error), with its capacity in *total. */
static long samples_in(const struct image *im, size_t *total)
{
	CUpti_PmSampling_GetCounterDataInfo_Params p = {.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE,
							.pCounterDataImage = im->data,
							.counterDataImageSize = im->size};
	if (cuptiPmSamplingGetCounterDataInfo(&p) != CUPTI_SUCCESS)
		return -1;
	CHECK(p.numPopulatedSamples == p.numCompletedSamples, "populated %zu, completed %zu", p.numPopulatedSamples,
	      p.numCompletedSamples);
	if (total)
		*total = p.numTotalSamples;
	return (long)p.numCompletedSamples;
}

static CUptiResult sample_info(CUpti_PmSampling_Object *o, const struct image *im, size_t i, uint64_t *t0, uint64_t *t1)
{
	CUpti_PmSampling_CounterData_GetSampleInfo_Params p = {
		.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE,
		.pPmSamplingObject = o,
		.pCounterDataImage = im->data,
		.counterDataImageSize = im->size,
		.sampleIndex = i};
	CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&p);
	*t0 = p.startTimestamp;
	*t1 = p.endTimestamp;
	return r;
}

static CUptiResult evaluate(const struct image *im, size_t sample, const char **which, size_t n, double *v)
{
	CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
		.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
		.pCounterDataImage = im->data,
		.counterDataImageSize = im->size,
		.rangeIndex = sample,
		.ppMetricNames = which,
		.numMetrics = n,
		.pMetricValues = v};
	return cuptiProfilerHostEvaluateToGpuValues(&p);
}

/* The three values of sample i, in the order of names[]; the check fails on an error. */
static void values(const struct image *im, size_t i, double v[N_NAMES])
{
	memset(v, 0, N_NAMES * sizeof *v);
	CHECK_R(evaluate(im, i, names, N_NAMES, v), CUPTI_SUCCESS);
}

static void profiler_init(void)
{
	CUpti_Profiler_Initialize_Params p = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	CHECK_R(cuptiProfilerInitialize(&p), CUPTI_SUCCESS);
}

/* ---- enabling and configuring -------------------------------------------------------------- */

static void check_enable(void)
{
	CUpti_PmSampling_Object *o = NULL, *o2 = NULL;
	CUpti_PmSampling_GetCounterAvailability_Params a = {
		.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	CHECK_R(enable(0, &o), CUPTI_ERROR_NOT_INITIALIZED);
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_ERROR_NOT_INITIALIZED);
	profiler_init();
	CHECK_R(enable(2, &o), CUPTI_ERROR_INVALID_DEVICE); /* two devices: 0 and 1 */
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK(o != NULL, "no object");
	CHECK_R(enable(0, &o2), CUPTI_ERROR_INVALID_OPERATION);
	CHECK_R(enable(1, &o2), CUPTI_SUCCESS);
	CHECK(o2 != NULL && o2 != o, "device 1's object %p, device 0's %p", (void *)o2, (void *)o);
	CHECK(fake_pm_calls("Enable") == 5, "Enable calls: %d", fake_pm_calls("Enable"));

	/* The availability image: its size first, then the image. */
	a.deviceIndex = 1;
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_SUCCESS);
	CHECK(a.counterAvailabilityImageSize > 0, "availability size %zu", a.counterAvailabilityImageSize);
	uint8_t *img = calloc(1, a.counterAvailabilityImageSize);
	a.pCounterAvailabilityImage = img;
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_SUCCESS);
	CHECK(img[0] != 0, "availability image left empty");
	a.counterAvailabilityImageSize--;
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_ERROR_INVALID_PARAMETER);
	free(img);

	/* Refused configurations; a start before any configuration. */
	const CUpti_PmSampling_TriggerMode sys = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL,
					   time = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	const CUpti_PmSampling_HardwareBuffer_AppendMode oldest = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	CHECK_R(start(o), CUPTI_ERROR_INVALID_OPERATION);
	CHECK_R(config(o, 0, 4, time, oldest), CUPTI_ERROR_INVALID_PARAMETER);
	CHECK_R(config(o, 1000, 0, time, oldest), CUPTI_ERROR_INVALID_PARAMETER);
	CUpti_PmSampling_SetConfig_Params p = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
					       .pPmSamplingObject = o,
					       .configSize = sizeof config_image,
					       .hardwareBufferSize = FAKE_PM_RECORD_BYTES,
					       .samplingInterval = 1000};
	CHECK_R(cuptiPmSamplingSetConfig(&p), CUPTI_ERROR_INVALID_PARAMETER); /* no config image */
	p.pConfig = config_image;
	p.configSize = 0;
	CHECK_R(cuptiPmSamplingSetConfig(&p), CUPTI_ERROR_INVALID_PARAMETER); /* an empty one */
	p.configSize = sizeof config_image;
	p.hardwareBufferSize = FAKE_PM_RECORD_BYTES - 1;
	CHECK_R(cuptiPmSamplingSetConfig(&p), CUPTI_ERROR_INVALID_PARAMETER); /* not one record */
	CHECK_R(start(o), CUPTI_ERROR_INVALID_OPERATION);

	/* No time trigger on GA100 and Turing; the clock trigger works there. */
	fake_chip("GA100");
	CHECK_R(config(o, 1000, 4, time, oldest), CUPTI_ERROR_NOT_SUPPORTED);
	CHECK_R(config(o, 1000, 4, sys, oldest), CUPTI_SUCCESS);
	fake_chip("TU102");
	CHECK_R(config(o, 1000, 4, time, oldest), CUPTI_ERROR_NOT_SUPPORTED);
	fake_chip("GA102");
	CHECK_R(config(o, 1000, 4, time, oldest), CUPTI_SUCCESS);
	fake_chip("GH100");
	CHECK_R(config(o, 1000, 4, time, oldest), CUPTI_SUCCESS);
	CHECK(fake_pm_calls("SetConfig") == 10, "SetConfig calls: %d", fake_pm_calls("SetConfig"));

	/* Started: no second start, no configuration; stopped: no second stop. */
	CHECK_R(start(o), CUPTI_SUCCESS);
	CHECK(fake_pm_started(0) == 1 && fake_pm_started(1) == 0, "started: %d %d", fake_pm_started(0),
	      fake_pm_started(1));
	CHECK_R(start(o), CUPTI_ERROR_INVALID_OPERATION);
	CHECK_R(config(o, 1000, 4, time, oldest), CUPTI_ERROR_INVALID_OPERATION);
	CHECK_R(stop(o), CUPTI_SUCCESS);
	CHECK_R(stop(o), CUPTI_ERROR_INVALID_OPERATION);
	CHECK(fake_pm_started(0) == 0, "still started");

	/* Disable ends a started object, and the device can be enabled again. */
	CHECK_R(start(o), CUPTI_SUCCESS);
	CHECK_R(disable(o), CUPTI_SUCCESS);
	CHECK(fake_pm_started(0) == 0, "started after Disable");
	CHECK_R(disable(o), CUPTI_ERROR_INVALID_PARAMETER);
	CHECK_R(start(o), CUPTI_ERROR_INVALID_PARAMETER);
	CHECK_R(disable(o2), CUPTI_SUCCESS);
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(disable(o), CUPTI_SUCCESS);
}

/* ---- samples by tick and by time, decoding, evaluating ------------------------------------ */

static void check_samples(void)
{
	CUpti_PmSampling_Object *o;
	struct image im;
	CUpti_PmSampling_DecodeStopReason why;
	int overflow;
	double v[N_NAMES];
	uint64_t t0, t1;
	const uint64_t iv = 1000000; /* 1 ms */

	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, iv, 16, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	if (image_make(o, 4, &im) < 0)
		return;
	size_t total = 0;
	CHECK(samples_in(&im, &total) == 0 && total == 4, "fresh image: %ld of %zu", samples_in(&im, NULL), total);

	fake_time_freeze(T0);
	fake_pm_add(0, READ, 1000); /* not started: not seen */
	CHECK_R(start(o), CUPTI_SUCCESS);
	fake_pm_add(0, READ, 100);
	fake_pm_add(0, WRITE, 7);
	fake_pm_add(0, "lts__t_bytes.sum", 5); /* not asked for: not counted */
	fake_pm_add(1, READ, 50);	       /* device 1 is not started */
	fake_time_advance(100);
	fake_pm_tick(0); /* sample 0: [T0, T0+100] */
	fake_pm_add(0, READ, 5);
	fake_time_advance(50);
	fake_pm_tick(0); /* sample 1: [T0+100, T0+150] */
	fake_pm_add(0, WRITE, 3);
	CHECK(fake_pm_buffered(0) == 2, "buffered after two ticks: %zu", fake_pm_buffered(0));
	fake_time_advance(iv);	/* sample 2 completes by time: [T0+150, T0+150+iv] */
	CHECK(fake_pm_buffered(0) == 3, "buffered after an interval: %zu", fake_pm_buffered(0));
	fake_time_advance(3 * iv + iv / 2); /* samples 3, 4, 5: empty */
	fake_pm_add(0, READ, 11);
	fake_pm_add(0, CYCLES, 2);
	CHECK(fake_pm_buffered(0) == 6, "buffered after 3.5 intervals: %zu", fake_pm_buffered(0));
	CHECK_R(stop(o), CUPTI_SUCCESS); /* sample 6, half an interval long */
	fake_pm_add(0, READ, 1000);	 /* stopped: not seen */
	CHECK(fake_pm_buffered(0) == 7, "buffered after the stop: %zu", fake_pm_buffered(0));

	/* What each sample must hold, and when. */
	const double want[7][N_NAMES] = {{100, 7, 0}, {5, 0, 0}, {0, 3, 0}, {0}, {0}, {0}, {11, 0, 2}};
	const uint64_t b = T0 + 150;
	const uint64_t when[7][2] = {{T0, T0 + 100}, {T0 + 100, b}, {b, b + iv}, {b + iv, b + 2 * iv},
				     {b + 2 * iv, b + 3 * iv}, {b + 3 * iv, b + 4 * iv}, {b + 4 * iv, b + 4 * iv + iv / 2}};
	double sum[N_NAMES] = {0};

	/* The image holds 4: the first decode fills it, the rest waits in the buffer. */
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL, "first decode's reason: %d", (int)why);
	CHECK(overflow == 0, "overflow %d", overflow);
	CHECK(samples_in(&im, &total) == 4 && total == 4, "after the first decode: %ld of %zu", samples_in(&im, NULL),
	      total);
	CHECK(fake_pm_buffered(0) == 3, "left in the buffer: %zu", fake_pm_buffered(0));
	for (size_t i = 0; i < 4; i++) {
		values(&im, i, v);
		CHECK_R(sample_info(o, &im, i, &t0, &t1), CUPTI_SUCCESS);
		CHECK(t0 == when[i][0] && t1 == when[i][1], "sample %zu: [%llu, %llu], want [%llu, %llu]", i,
		      (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)when[i][0],
		      (unsigned long long)when[i][1]);
		for (int k = 0; k < N_NAMES; k++) {
			CHECK(v[k] == want[i][k], "sample %zu %s: %g, want %g", i, names[k], v[k], want[i][k]);
			sum[k] += v[k];
		}
	}
	/* One name alone, another order; errors past the samples and for a name not in the image. */
	const char *one[] = {CYCLES, READ};
	CHECK_R(evaluate(&im, 0, one, 2, v), CUPTI_SUCCESS);
	CHECK(v[0] == 0 && v[1] == 100, "sample 0 by other names: %g %g", v[0], v[1]);
	CHECK_R(evaluate(&im, 4, names, N_NAMES, v), CUPTI_ERROR_INVALID_PARAMETER);
	const char *unknown[] = {"lts__t_bytes.sum"};
	CHECK_R(evaluate(&im, 0, unknown, 1, v), CUPTI_ERROR_INVALID_METRIC_NAME);
	CHECK_R(sample_info(o, &im, 4, &t0, &t1), CUPTI_ERROR_INVALID_PARAMETER);

	/* The saved fresh copy is a fresh image: the second decode empties the buffer into it. */
	image_reset(&im);
	CHECK(samples_in(&im, NULL) == 0, "restored image holds %ld", samples_in(&im, NULL));
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS, "second decode's reason: %d", (int)why);
	CHECK(samples_in(&im, NULL) == 3, "second decode: %ld samples", samples_in(&im, NULL));
	for (size_t i = 0; i < 3; i++) {
		values(&im, i, v);
		CHECK_R(sample_info(o, &im, i, &t0, &t1), CUPTI_SUCCESS);
		CHECK(t0 == when[4 + i][0] && t1 == when[4 + i][1], "sample %zu: [%llu, %llu]", 4 + i,
		      (unsigned long long)t0, (unsigned long long)t1);
		for (int k = 0; k < N_NAMES; k++) {
			CHECK(v[k] == want[4 + i][k], "sample %zu %s: %g, want %g", 4 + i, names[k], v[k],
			      want[4 + i][k]);
			sum[k] += v[k];
		}
	}
	CHECK(sum[0] == 116 && sum[1] == 10 && sum[2] == 2, "sums %g %g %g, want 116 10 2", sum[0], sum[1], sum[2]);
	CHECK_R(sample_info(o, &im, 3, &t0, &t1), CUPTI_ERROR_INVALID_PARAMETER);

	/* Nothing left: a decode moves nothing. */
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS && samples_in(&im, NULL) == 0,
	      "empty decode: reason %d, %ld samples", (int)why, samples_in(&im, NULL));

	/* An image that is not the fake's. */
	struct image bad = {.data = calloc(1, im.size), .size = im.size};
	CHECK_R(decode(o, &bad, &why, &overflow), CUPTI_ERROR_INVALID_PARAMETER);
	CHECK(samples_in(&bad, NULL) == -1, "foreign image read as the fake's");
	free(bad.data);

	/* A stop right at a sample's end: the stop closes a sample of no length. */
	CHECK_R(start(o), CUPTI_SUCCESS);
	fake_pm_add(0, READ, 9);
	fake_time_advance(iv);
	CHECK_R(stop(o), CUPTI_SUCCESS);
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(samples_in(&im, NULL) == 2, "interval then stop: %ld samples", samples_in(&im, NULL));
	values(&im, 0, v);
	CHECK(v[0] == 9, "first sample %g", v[0]);
	CHECK_R(sample_info(o, &im, 1, &t0, &t1), CUPTI_SUCCESS);
	CHECK(t0 == t1, "last sample [%llu, %llu]", (unsigned long long)t0, (unsigned long long)t1);

	/* By the real clock: 1 ms samples cut as real time passes, until five have completed (a
	 * condition, not a duration).  The values go into the first sample with the clock frozen
	 * at the real time and the start, so that no delay of this machine's can move them into
	 * a later sample: with KEEP_OLDEST the first samples are kept even when a stall of more
	 * than the buffer's 16 ms makes the fake drop the later ones. */
	fake_time_freeze(0); /* mono_ns reads the fake's clock: the real one, once thawed */
	fake_time_freeze(mono_ns());
	CHECK_R(start(o), CUPTI_SUCCESS);
	fake_pm_add(0, READ, 1);
	fake_pm_add(0, WRITE, 1);
	fake_time_freeze(0);
	while (fake_pm_buffered(0) < 5)
		sched_yield();
	CHECK_R(stop(o), CUPTI_SUCCESS);
	size_t n = fake_pm_buffered(0);
	struct image big;
	CUpti_PmSampling_Object *same = o;
	if (image_make(same, (uint32_t)n, &big) == 0) {
		CHECK_R(decode(o, &big, &why, &overflow), CUPTI_SUCCESS);
		CHECK(why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS && samples_in(&big, NULL) == (long)n,
		      "real-time decode: reason %d, %ld of %zu", (int)why, samples_in(&big, NULL), n);
		double r = 0, w = 0;
		uint64_t prev_end = 0;
		for (size_t i = 0; i < n; i++) {
			values(&big, i, v);
			r += v[0];
			w += v[1];
			CHECK_R(sample_info(o, &big, i, &t0, &t1), CUPTI_SUCCESS);
			CHECK(i == 0 || t0 == prev_end, "sample %zu starts at %llu, the last ended at %llu", i,
			      (unsigned long long)t0, (unsigned long long)prev_end);
			CHECK(i == n - 1 ? t1 - t0 <= iv : t1 - t0 == iv, "sample %zu lasts %llu ns", i,
			      (unsigned long long)(t1 - t0));
			prev_end = t1;
		}
		CHECK(r == 1 && w == 1, "real-time sums %g %g", r, w);
		image_free(&big);
	}
	image_free(&im);
	CHECK_R(disable(o), CUPTI_SUCCESS);
}

/* ---- overflow ------------------------------------------------------------------------------ */

/* Five ticked samples with 1..5 into a buffer of three; then 1 + 9 samples by time. */
static void check_overflow(CUpti_PmSampling_HardwareBuffer_AppendMode mode, const double kept[3])
{
	CUpti_PmSampling_Object *o;
	struct image im;
	CUpti_PmSampling_DecodeStopReason why;
	int overflow;
	double v[N_NAMES];
	uint64_t t0, t1;
	const char *m = mode == CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST ? "KEEP_OLDEST" : "KEEP_LATEST";

	/* Device 0 may have lost samples before, by the real clock: only a change counts. */
	unsigned long lost0 = fake_pm_lost(0);
	CHECK_R(enable(1, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 3, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL, mode), CUPTI_SUCCESS);
	if (image_make(o, 8, &im) < 0)
		return;
	fake_time_freeze(T0);
	CHECK_R(start(o), CUPTI_SUCCESS);
	for (int i = 1; i <= 5; i++) {
		fake_pm_add(1, READ, i);
		fake_time_advance(10);
		fake_pm_tick(1);
	}
	CHECK(fake_pm_lost(1) == 2 && fake_pm_lost(0) == lost0, "%s: lost %lu (device 0: %lu more)", m,
	      fake_pm_lost(1), fake_pm_lost(0) - lost0);
	CHECK(fake_pm_buffered(1) == 3, "%s: buffered %zu", m, fake_pm_buffered(1));
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(overflow == 1 && why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS, "%s: overflow %d, reason %d",
	      m, overflow, (int)why);
	CHECK(samples_in(&im, NULL) == 3, "%s: %ld samples", m, samples_in(&im, NULL));
	for (size_t i = 0; i < 3; i++) {
		values(&im, i, v);
		CHECK(v[0] == kept[i], "%s: sample %zu holds %g, want %g", m, i, v[0], kept[i]);
	}
	/* Overflow is reported once. */
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(overflow == 0 && samples_in(&im, NULL) == 0, "%s: second decode: overflow %d, %ld samples", m, overflow,
	      samples_in(&im, NULL));

	/* Ten intervals pass at once: one sample with 9, nine empty; three kept. */
	uint64_t from = T0 + 50;
	fake_pm_add(1, WRITE, 9);
	fake_time_advance(10 * 1000 + 500);
	CHECK(fake_pm_lost(1) == 2 + 7, "%s: lost after ten intervals: %lu", m, fake_pm_lost(1));
	CHECK_R(stop(o), CUPTI_SUCCESS); /* one more, dropped too */
	CHECK(fake_pm_lost(1) == 2 + 8, "%s: lost after the stop: %lu", m, fake_pm_lost(1));
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	CHECK(overflow == 1 && samples_in(&im, NULL) == 3, "%s: overflow %d, %ld samples", m, overflow,
	      samples_in(&im, NULL));
	int oldest = mode == CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	for (size_t i = 0; i < 3; i++) {
		/* KEEP_OLDEST: samples 0, 1, 2 of the eleven; KEEP_LATEST: 8, 9 and the stop's. */
		uint64_t s = oldest ? from + i * 1000 : from + (8 + i) * 1000;
		uint64_t e = oldest || i < 2 ? s + 1000 : s + 500;
		values(&im, i, v);
		CHECK(v[1] == (oldest && i == 0 ? 9 : 0), "%s: sample %zu holds %g", m, i, v[1]);
		CHECK_R(sample_info(o, &im, i, &t0, &t1), CUPTI_SUCCESS);
		CHECK(t0 == s && t1 == e, "%s: sample %zu [%llu, %llu], want [%llu, %llu]", m, i, (unsigned long long)t0,
		      (unsigned long long)t1, (unsigned long long)s, (unsigned long long)e);
	}
	fake_time_freeze(0);
	image_free(&im);
	CHECK_R(disable(o), CUPTI_SUCCESS);
	CHECK(fake_pm_lost(1) == 10, "%s: lost after Disable: %lu", m, fake_pm_lost(1));
}

/* ---- the Range Profiler and PM sampling on one device ------------------------------------- */

static CUptiResult range_start(CUpti_RangeProfiler_Object *r)
{
	CUpti_RangeProfiler_Start_Params p = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
					      .pRangeProfilerObject = r};
	return cuptiRangeProfilerStart(&p);
}

static CUptiResult range_stop(CUpti_RangeProfiler_Object *r)
{
	CUpti_RangeProfiler_Stop_Params p = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
					     .pRangeProfilerObject = r};
	return cuptiRangeProfilerStop(&p);
}

static CUpti_RangeProfiler_Object *range_enable(CUcontext ctx)
{
	CUpti_RangeProfiler_Enable_Params p = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, .ctx = ctx};
	CHECK_R(cuptiRangeProfilerEnable(&p), CUPTI_SUCCESS);
	return p.pRangeProfilerObject;
}

static void range_disable(CUpti_RangeProfiler_Object *r)
{
	CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
						.pRangeProfilerObject = r};
	CHECK_R(cuptiRangeProfilerDisable(&p), CUPTI_SUCCESS);
}

/* A second configuration of one object is taken, and no sample completes after it. */
static void check_second_config(void)
{
	CUpti_PmSampling_Object *o;
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 4, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 4, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	CHECK_R(start(o), CUPTI_SUCCESS);
	fake_pm_add(0, READ, 5);
	fake_pm_tick(0);
	CHECK(fake_pm_buffered(0) == 0, "a sample completed after a second SetConfig: %zu buffered",
	      fake_pm_buffered(0));
	CHECK_R(stop(o), CUPTI_SUCCESS);
	CHECK(fake_pm_buffered(0) == 0, "the stop completed a sample after a second SetConfig");
	CHECK_R(disable(o), CUPTI_SUCCESS);
}

static void check_busy(void)
{
	CUpti_PmSampling_Object *o;
	fake_range_error(CUPTI_SUCCESS);
	CUpti_RangeProfiler_Object *r0 = range_enable(FAKE_CTX0), *r0b = range_enable(FAKE_CTX0B),
				   *r1 = range_enable(FAKE_CTX1);
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 4, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST),
		CUPTI_SUCCESS);
	int starts = fake_range_starts();

	/* PM sampling holds device 0: no range on either of its contexts; device 1 is free. */
	CHECK_R(start(o), CUPTI_SUCCESS);
	CHECK_R(range_start(r0), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK_R(range_start(r0b), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK_R(range_start(r1), CUPTI_SUCCESS);
	CHECK(fake_range_starts() == starts + 1, "range starts %d, want %d", fake_range_starts(), starts + 1);
	CHECK_R(range_stop(r1), CUPTI_SUCCESS);
	CHECK_R(stop(o), CUPTI_SUCCESS);
	/* Stopped but enabled, the object still holds device 0 (as on an H100). */
	CHECK_R(range_start(r0), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK_R(disable(o), CUPTI_SUCCESS);

	/* A range on device 0 holds it: no PM sampling there, until the range stops. */
	CHECK_R(range_start(r0b), CUPTI_SUCCESS);
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 4, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST),
		CUPTI_SUCCESS);
	CHECK_R(start(o), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK(fake_pm_started(0) == 0, "started while busy");
	CHECK_R(range_stop(r0b), CUPTI_SUCCESS);
	CHECK_R(start(o), CUPTI_SUCCESS);
	CHECK_R(stop(o), CUPTI_SUCCESS);
	CHECK_R(disable(o), CUPTI_SUCCESS);
	range_disable(r0);
	range_disable(r0b);
	range_disable(r1);
	fake_range_error(CUPTI_ERROR_NOT_SUPPORTED);
}

/* ---- faults, support, a slow decode ------------------------------------------------------- */

static void check_faults(void)
{
	CUpti_PmSampling_Object *o = NULL;
	struct image im;
	CUpti_PmSampling_DecodeStopReason why;
	int overflow;

	/* Enable refused until disarmed, and nothing enabled meanwhile. */
	fake_pm_fault("Enable", -1, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
	CHECK_R(enable(0, &o), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
	CHECK_R(enable(0, &o), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
	fake_pm_fault("Enable", 1, CUPTI_ERROR_HARDWARE_BUSY); /* re-armed: one more, then none */
	CHECK_R(enable(0, &o), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);

	/* SetConfig refused once: still unconfigured (Start refused), then configured. */
	int sets = fake_pm_calls("SetConfig");
	fake_pm_fault("SetConfig", 1, CUPTI_ERROR_NOT_SUPPORTED);
	CHECK_R(config(o, 1000, 8, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_ERROR_NOT_SUPPORTED);
	CHECK_R(start(o), CUPTI_ERROR_INVALID_OPERATION);
	CHECK_R(config(o, 1000, 8, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	CHECK(fake_pm_calls("SetConfig") == sets + 2, "SetConfig calls %d, want %d", fake_pm_calls("SetConfig"),
	      sets + 2);
	if (image_make(o, 8, &im) < 0)
		return;

	/* Start refused as busy (another profiler): not started, nothing counted. */
	fake_time_freeze(T0);
	fake_pm_fault("Start", 1, CUPTI_ERROR_HARDWARE_BUSY);
	CHECK_R(start(o), CUPTI_ERROR_HARDWARE_BUSY);
	CHECK(fake_pm_started(0) == 0, "started after a refused start");
	fake_pm_add(0, READ, 4);
	CHECK_R(start(o), CUPTI_SUCCESS);
	fake_pm_add(0, READ, 6);
	fake_time_advance(10);
	fake_pm_tick(0);

	/* A decode that fails moves nothing; the next one gets the sample. */
	int decodes = fake_pm_calls("DecodeData");
	fake_pm_fault("DecodeData", 1, CUPTI_ERROR_OUT_OF_MEMORY);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_ERROR_OUT_OF_MEMORY);
	CHECK(samples_in(&im, NULL) == 0 && fake_pm_buffered(0) == 1, "failed decode: %ld in the image, %zu buffered",
	      samples_in(&im, NULL), fake_pm_buffered(0));
	fake_pm_fault("DecodeData", -1, CUPTI_ERROR_UNKNOWN);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_ERROR_UNKNOWN);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_ERROR_UNKNOWN);
	fake_pm_fault("DecodeData", 0, CUPTI_SUCCESS);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	double v[N_NAMES];
	values(&im, 0, v);
	CHECK(samples_in(&im, NULL) == 1 && v[0] == 6, "after the faults: %ld samples, read %g", samples_in(&im, NULL),
	      v[0]);
	CHECK(fake_pm_calls("DecodeData") == decodes + 4, "DecodeData calls: %d, want %d", fake_pm_calls("DecodeData"),
	      decodes + 4);

	/* Stop refused: still started, and what was added is still counted. */
	fake_pm_fault("Stop", 1, CUPTI_ERROR_UNKNOWN);
	fake_pm_add(0, READ, 3);
	CHECK_R(stop(o), CUPTI_ERROR_UNKNOWN);
	CHECK(fake_pm_started(0) == 1, "stopped by a refused stop");
	CHECK_R(stop(o), CUPTI_SUCCESS);
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	values(&im, 0, v);
	CHECK(samples_in(&im, NULL) == 1 && v[0] == 3, "after a refused stop: %ld samples, read %g",
	      samples_in(&im, NULL), v[0]);
	fake_time_freeze(0);

	/* A slow decode. */
	fake_pm_decode_delay_us(20000);
	uint64_t t = mono_ns();
	image_reset(&im);
	CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
	t = mono_ns() - t;
	CHECK(t >= 20000000, "slow decode took %llu ns", (unsigned long long)t);
	fake_pm_decode_delay_us(0);
	image_free(&im);
	CHECK_R(disable(o), CUPTI_SUCCESS);

	/* Support: PM sampling refused by architecture; the Range Profiler not. */
	CUpti_Profiler_DeviceSupported_Params s = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
						   .api = CUPTI_PROFILER_PM_SAMPLING};
	CHECK_R(cuptiProfilerDeviceSupported(&s), CUPTI_SUCCESS);
	CHECK(s.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED, "PM sampling unsupported by default");
	fake_pm_unsupported(1);
	CHECK_R(cuptiProfilerDeviceSupported(&s), CUPTI_SUCCESS);
	CHECK(s.isSupported == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
		      s.architecture == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED,
	      "unsupported PM sampling: isSupported %d, architecture %d", (int)s.isSupported, (int)s.architecture);
	s.api = CUPTI_PROFILER_RANGE_PROFILING;
	CHECK_R(cuptiProfilerDeviceSupported(&s), CUPTI_SUCCESS);
	CHECK(s.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED, "range profiling refused with PM sampling");

	/* fake_reset_faults disarms all of it. */
	fake_pm_fault("Start", -1, CUPTI_ERROR_UNKNOWN);
	fake_pm_decode_delay_us(1000000);
	fake_reset_faults();
	fake_device_count(CUDA_SUCCESS, 2);
	s.api = CUPTI_PROFILER_PM_SAMPLING;
	CHECK_R(cuptiProfilerDeviceSupported(&s), CUPTI_SUCCESS);
	CHECK(s.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED, "still unsupported after the reset");
	CHECK(fake_pm_calls("Start") == 0 && fake_pm_calls("Bogus") == -1, "calls after the reset: %d, %d",
	      fake_pm_calls("Start"), fake_pm_calls("Bogus"));
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CHECK_R(config(o, 1000, 8, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	CHECK_R(start(o), CUPTI_SUCCESS);
	CHECK_R(stop(o), CUPTI_SUCCESS);
	if (image_make(o, 8, &im) == 0) {
		t = mono_ns();
		CHECK_R(decode(o, &im, &why, &overflow), CUPTI_SUCCESS);
		CHECK(mono_ns() - t < 500000000, "decode still delayed after the reset");
		image_free(&im);
	}
	CHECK_R(disable(o), CUPTI_SUCCESS);
}

/* ---- the availability image and the real Host API ----------------------------------------- */

#ifdef FAKE_PM_CHECK_HOST
/*
 * CUPTI's own flow: the availability image of the device goes to cuptiProfilerHostInitialize,
 * whose config image goes to SetConfig.  The real Host API must not see the fake's image, and
 * its config image must be what SetConfig takes.  (Only in the build against the libraries:
 * the real Host API loads libnvperf_host with RTLD_DEEPBIND, which the sanitizers' runtimes
 * refuse.)
 */
static void check_host(void)
{
	CUpti_PmSampling_GetCounterAvailability_Params a = {
		.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_SUCCESS);
	uint8_t *avail = calloc(1, a.counterAvailabilityImageSize);
	a.pCounterAvailabilityImage = avail;
	CHECK_R(cuptiPmSamplingGetCounterAvailability(&a), CUPTI_SUCCESS);
	CUpti_Profiler_Host_Initialize_Params h = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
						   .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
						   .pChipName = "GH100",
						   .pCounterAvailabilityImage = avail};
	CHECK_R(cuptiProfilerHostInitialize(&h), CUPTI_SUCCESS);
	CHECK(h.pHostObject != NULL, "no host object");
	CUpti_Profiler_Host_ConfigAddMetrics_Params m = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
							 .pHostObject = h.pHostObject,
							 .ppMetricNames = names,
							 .numMetrics = 2};
	CHECK_R(cuptiProfilerHostConfigAddMetrics(&m), CUPTI_SUCCESS);
	CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, .pHostObject = h.pHostObject};
	CHECK_R(cuptiProfilerHostGetConfigImageSize(&sz), CUPTI_SUCCESS);
	CHECK(sz.configImageSize > 0, "config image of %zu bytes", sz.configImageSize);
	uint8_t *image = malloc(sz.configImageSize ? sz.configImageSize : 1);
	CUpti_Profiler_Host_GetConfigImage_Params gi = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
							.pHostObject = h.pHostObject,
							.configImageSize = sz.configImageSize,
							.pConfigImage = image};
	CHECK_R(cuptiProfilerHostGetConfigImage(&gi), CUPTI_SUCCESS);
	CUpti_PmSampling_Object *o;
	CHECK_R(enable(0, &o), CUPTI_SUCCESS);
	CUpti_PmSampling_SetConfig_Params p = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
					       .pPmSamplingObject = o,
					       .configSize = sz.configImageSize,
					       .pConfig = image,
					       .hardwareBufferSize = 4 * FAKE_PM_RECORD_BYTES,
					       .samplingInterval = 1000,
					       .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL};
	CHECK_R(cuptiPmSamplingSetConfig(&p), CUPTI_SUCCESS);
	CHECK_R(disable(o), CUPTI_SUCCESS);
	CUpti_Profiler_Host_Deinitialize_Params d = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
						     .pHostObject = h.pHostObject};
	CHECK_R(cuptiProfilerHostDeinitialize(&d), CUPTI_SUCCESS);
	free(image);
	free(avail);
}
#endif

/* ---- threads ------------------------------------------------------------------------------- */

#define ADDERS 3
#define ADDS 20000
static CUpti_PmSampling_Object *shared_o;
static int adders_done;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ADDS; i++) {
		fake_pm_add(0, READ, 1);
		if (i % 1000 == 0)
			fake_pm_tick(0);
	}
	return NULL;
}

static int done(void)
{
	pthread_mutex_lock(&done_lock);
	int d = adders_done;
	pthread_mutex_unlock(&done_lock);
	return d;
}

/* The component's decode thread: decodes, adds up, restores the image, until told and empty. */
static struct image shared_im; /* made before the start: the names must be asked for first */

static void *decoder(void *arg)
{
	double *sum = arg;
	struct image im = shared_im;
	CUpti_PmSampling_DecodeStopReason why;
	int overflow;
	for (;;) {
		int last = done();
		CUptiResult r = decode(shared_o, &im, &why, &overflow);
		CHECK(r == CUPTI_SUCCESS && overflow == 0, "decode on its thread: %d, overflow %d", (int)r, overflow);
		long n = samples_in(&im, NULL);
		for (long i = 0; i < n; i++) {
			double v[N_NAMES];
			values(&im, (size_t)i, v);
			*sum += v[0];
		}
		image_reset(&im);
		if (last && why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS)
			break;
		if (why == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS)
			usleep(200);
	}
	image_free(&im);
	return NULL;
}

static void check_threads(void)
{
	CUpti_PmSampling_Object *o1;
	pthread_t add[ADDERS], dec;
	double sum = 0;
	CHECK_R(enable(0, &shared_o), CUPTI_SUCCESS);
	CHECK_R(enable(1, &o1), CUPTI_SUCCESS);
	CHECK_R(config(shared_o, 50000, 1 << 16, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST),
		CUPTI_SUCCESS);
	CHECK_R(config(o1, 50000, 4, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		       CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST),
		CUPTI_SUCCESS);
	if (image_make(shared_o, 16, &shared_im) < 0)
		return;
	CHECK_R(start(shared_o), CUPTI_SUCCESS);
	pthread_create(&dec, NULL, decoder, &sum);
	for (int i = 0; i < ADDERS; i++)
		pthread_create(&add[i], NULL, adder, NULL);
	/* Meanwhile device 1 starts and stops, against a range on its context. */
	fake_range_error(CUPTI_SUCCESS);
	CUpti_RangeProfiler_Object *r1 = range_enable(FAKE_CTX1);
	for (int i = 0; i < 200; i++) {
		CUptiResult a = start(o1), b = range_start(r1);
		CHECK((a == CUPTI_SUCCESS) != (b == CUPTI_SUCCESS), "PM start %d and range start %d on one device",
		      (int)a, (int)b);
		if (a == CUPTI_SUCCESS)
			CHECK_R(stop(o1), CUPTI_SUCCESS);
		if (b == CUPTI_SUCCESS)
			CHECK_R(range_stop(r1), CUPTI_SUCCESS);
	}
	range_disable(r1);
	fake_range_error(CUPTI_ERROR_NOT_SUPPORTED);
	for (int i = 0; i < ADDERS; i++)
		pthread_join(add[i], NULL);
	CHECK_R(stop(shared_o), CUPTI_SUCCESS);
	pthread_mutex_lock(&done_lock);
	adders_done = 1;
	pthread_mutex_unlock(&done_lock);
	pthread_join(dec, NULL);
	CHECK(sum == ADDERS * ADDS, "decoded %g of %d added", sum, ADDERS * ADDS);
	CHECK(fake_pm_lost(0) == 0, "lost %lu", fake_pm_lost(0));
	CHECK_R(disable(shared_o), CUPTI_SUCCESS);
	CHECK_R(disable(o1), CUPTI_SUCCESS);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	fake_device_count(CUDA_SUCCESS, 2);
	check_enable();
	check_samples();
	static const double oldest[3] = {1, 2, 3}, latest[3] = {3, 4, 5};
	check_overflow(CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST, oldest);
	check_overflow(CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST, latest);
	check_busy();
	check_second_config();
	check_faults();
#ifdef FAKE_PM_CHECK_HOST
	check_host();
#endif
	check_threads();
	if (failures) {
		printf("FAIL: %d check(s) failed\n", atomic_load(&failures));
		return 1;
	}
	printf("PASS: fake PM sampling\n");
	return 0;
}
