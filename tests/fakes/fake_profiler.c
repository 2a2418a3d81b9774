/*
 * fake_profiler.c: the profiler half of the test-only fake libcupti (linked into fake/libcupti.so
 * with fake_cupti.c; control API in fake_cuda.h).
 *
 * The Profiler Host API needs no GPU, so it is the real one: every cuptiProfilerHost* call is
 * forwarded to the real libcupti.  The target calls are faked: cuptiProfilerInitialize succeeds
 * and the profiler stays initialized until cuptiProfilerDeInitialize (fake_profiler_up(); the
 * target calls below fail with CUPTI_ERROR_NOT_INITIALIZED meanwhile, as CUPTI's do),
 * cuptiDeviceGetChipName names the chip fake_chip() set ("GH100" by default), the device is
 * supported.  The Range Profiler cannot work without a GPU: cuptiRangeProfilerEnable and
 * cuptiProfilerGetCounterAvailability return the error fake_range_error() set
 * (CUPTI_ERROR_NOT_SUPPORTED by default), so that tests can give the component the refusals
 * real CUPTI gives (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES without profiling permission,
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED with another profiler on the device).
 *
 * With fake_range_error(CUPTI_SUCCESS) the Range Profiler works, with values the test gives:
 * fake_metric_add(name, v) adds v to the metric in every started range (and is lost while
 * none is, as GPU work outside a range is); fake_metric_add_ctx(ctx, name, v) only in a range
 * started on context ctx, as an H100 counts (a range counts the work of its own context); a
 * range stopped writes what it holds into its counter-data image (the fake's own layout,
 * marked FAKE_IMAGE_MAGIC), and
 * cuptiProfilerHostEvaluateToGpuValues gives those values for such an image (any other image
 * goes to the real Host API).  A metric nothing was added to is 0, except
 * gpu__time_duration.sum, FAKE_RANGE_NS per range, so that duration-weighted metrics have a
 * weight.  fake_range_fault() makes the next calls of one Range Profiler function fail (a
 * stop or decode that fails after a start, as on a GPU that was reset or lost).
 *
 * Where it meets PM sampling (fake_pmsampling.c): a range does not start on a context of a
 * device where PM sampling is started (CUPTI_ERROR_HARDWARE_BUSY, as on an H100), the PM
 * sampling fake's images are evaluated here too (one sample a range), its counter
 * availability image is dropped before cuptiProfilerHostInitialize reaches the real one, and
 * cuptiProfilerDeviceSupported refuses CUPTI_PROFILER_PM_SAMPLING after fake_pm_unsupported(1).
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

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "fake_cuda.h"

int fake_ctx_device(CUcontext ctx); /* fake_cupti.c */
/* fake_pmsampling.c */
CUptiResult fake_pm_exclusive(int dev, CUptiResult (*fn)(void *), void *arg);
int fake_pm_evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p);
int fake_pm_is_unsupported(void);
int fake_pm_is_availability(const uint8_t *image);

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static char chip[64] = "GH100";
static _Atomic CUptiResult range_err = CUPTI_ERROR_NOT_SUPPORTED;
static atomic_int n_init, n_enable, n_double, up, n_start, refuse_in_cuinit, n_refused;

/* The working Range Profiler's values (see the top of this file), under plock. */
#define FAKE_IMAGE_MAGIC 0x31707266u	/* "frp1" */
#define FAKE_MAX_METRICS 16
#define FAKE_RANGE_NS 1000.0
struct fake_value {
	char name[96];
	double v;
};
struct fake_image {
	uint32_t magic;
	uint32_t ranges;
	struct fake_value values[FAKE_MAX_METRICS];
};
struct fake_rp {			/* a CUpti_RangeProfiler_Object */
	CUcontext ctx;
	uint8_t *image;
	size_t size;
	int started;
	struct fake_value acc[FAKE_MAX_METRICS];	/* what the started range holds */
	int n_acc;
	struct fake_rp *next;
};
static struct fake_rp *rps;	/* every enabled range profiler, under plock */
static int n_started;
static char fault_call[64];
static int fault_n;
static CUptiResult fault_err;

void fake_range_fault(const char *call, int n, CUptiResult err)
{
	pthread_mutex_lock(&plock);
	snprintf(fault_call, sizeof fault_call, "%s", call ? call : "");
	fault_n = n;
	fault_err = err;
	pthread_mutex_unlock(&plock);
}

/* CUPTI_SUCCESS, or the armed fault's error for this call. */
static CUptiResult fault(const char *call)
{
	CUptiResult r = CUPTI_SUCCESS;
	pthread_mutex_lock(&plock);
	if (fault_n > 0 && !strcmp(call, fault_call)) {
		fault_n--;
		r = fault_err;
	}
	pthread_mutex_unlock(&plock);
	return r;
}

void fake_chip(const char *name)
{
	pthread_mutex_lock(&plock);
	snprintf(chip, sizeof chip, "%s", name);
	pthread_mutex_unlock(&plock);
}

/* The chip's name, for the PM sampling fake (fake_pmsampling.c). */
void fake_chip_name(char *out, size_t size)
{
	pthread_mutex_lock(&plock);
	snprintf(out, size, "%s", chip);
	pthread_mutex_unlock(&plock);
}

void fake_range_error(CUptiResult err)
{
	atomic_store(&range_err, err);
}

int fake_profiler_init_calls(void)
{
	return atomic_load(&n_init);
}

int fake_profiler_up(void)
{
	return atomic_load(&up);
}

int fake_profiler_double_inits(void)
{
	return atomic_load(&n_double);
}

int fake_range_enable_calls(void)
{
	return atomic_load(&n_enable);
}

void fake_profiler_refuse_in_cuinit(int on)
{
	atomic_store(&refuse_in_cuinit, on);
}

int fake_profiler_refused_in_cuinit(void)
{
	return atomic_load(&n_refused);
}

/* The fake libcuda's fake_injecting (the program links both fakes). */
static int injecting(void)
{
	int (*f)(void);
	*(void **)&f = dlsym(RTLD_DEFAULT, "fake_injecting");
	return f && f();
}

int fake_range_starts(void)
{
	return atomic_load(&n_start);
}

static void add_to(struct fake_rp *rp, const char *name, double v)
{
	int i = 0;
	while (i < rp->n_acc && strcmp(rp->acc[i].name, name))
		i++;
	if (i == rp->n_acc && rp->n_acc < FAKE_MAX_METRICS)
		snprintf(rp->acc[rp->n_acc++].name, sizeof rp->acc[0].name, "%s", name);
	if (i < rp->n_acc)
		rp->acc[i].v += v;
}

/* ctx NULL: every started range. */
static void metric_add(CUcontext ctx, const char *name, double v)
{
	pthread_mutex_lock(&plock);
	for (struct fake_rp *rp = rps; rp; rp = rp->next)
		if (rp->started && (!ctx || rp->ctx == ctx))
			add_to(rp, name, v);
	pthread_mutex_unlock(&plock);
}

void fake_metric_add(const char *name, double v)
{
	metric_add(NULL, name, v);
}

void fake_metric_add_ctx(CUcontext ctx, const char *name, double v)
{
	metric_add(ctx, name, v);
}

/* ---- the Host API: the real one ------------------------------------------------------------ */

static void *real(const char *name)
{
	static void *lib;
	pthread_mutex_lock(&plock);
	if (!lib)
		lib = dlopen(fake_real_cupti(), RTLD_NOW | RTLD_LOCAL);
	pthread_mutex_unlock(&plock);
	return lib ? dlsym(lib, name) : NULL;
}

/* The Host API's parameter types are spelled CUpti_Profiler_Host_<X>_Params. */
#define FORWARD_HOST(x)                                                               \
	CUptiResult CUPTIAPI cuptiProfilerHost##x(CUpti_Profiler_Host_##x##_Params *p)    \
	{                                                                             \
		CUptiResult (*f)(CUpti_Profiler_Host_##x##_Params *);                 \
		*(void **)&f = real("cuptiProfilerHost" #x);                          \
		return f ? f(p) : CUPTI_ERROR_NOT_INITIALIZED;                        \
	}

/* The PM sampling fake's availability image means nothing to the real Host API (which
 * crashes on it): a host object is made for it as without one, for every metric of the chip. */
CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	CUptiResult (*f)(CUpti_Profiler_Host_Initialize_Params *);
	*(void **)&f = real("cuptiProfilerHostInitialize");
	if (!f)
		return CUPTI_ERROR_NOT_INITIALIZED;
	if (!p || !fake_pm_is_availability(p->pCounterAvailabilityImage))
		return f(p);
	CUpti_Profiler_Host_Initialize_Params q = *p;
	q.pCounterAvailabilityImage = NULL;
	CUptiResult r = f(&q);
	p->pHostObject = q.pHostObject;
	return r;
}

FORWARD_HOST(Deinitialize)
FORWARD_HOST(GetSupportedChips)
FORWARD_HOST(GetBaseMetrics)
FORWARD_HOST(GetSubMetrics)
FORWARD_HOST(GetMetricProperties)
FORWARD_HOST(ConfigAddMetrics)
FORWARD_HOST(GetConfigImageSize)
FORWARD_HOST(GetConfigImage)
FORWARD_HOST(GetNumOfPasses)
FORWARD_HOST(GetMaxNumHardwareMetricsPerPass)

/* ---- the target: a supported device of the fake chip -------------------------------------- */

static _Atomic CUptiResult init_err = CUPTI_SUCCESS;

void fake_profiler_init_error(CUptiResult err)
{
	atomic_store(&init_err, err);
}

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	(void)p;
	atomic_fetch_add(&n_init, 1);
	if (atomic_load(&init_err) != CUPTI_SUCCESS)
		return atomic_load(&init_err);
	if (atomic_load(&refuse_in_cuinit) && injecting()) {
		atomic_fetch_add(&n_refused, 1);
		return CUPTI_ERROR_NOT_INITIALIZED;
	}
	if (atomic_exchange(&up, 1))
		atomic_fetch_add(&n_double, 1);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
	(void)p;
	atomic_store(&up, 0);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	static char out[64];
	if (!atomic_load(&up))
		return CUPTI_ERROR_NOT_INITIALIZED;
	pthread_mutex_lock(&plock);
	memcpy(out, chip, sizeof out);
	pthread_mutex_unlock(&plock);
	p->pChipName = out;
	return CUPTI_SUCCESS;
}

static atomic_int vgpu_off;

void fake_device_vgpu_unsupported(int on)
{
	atomic_store(&vgpu_off, on);
}

CUptiResult CUPTIAPI cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	if (!atomic_load(&up))
		return CUPTI_ERROR_NOT_INITIALIZED;
	int vgpu = atomic_load(&vgpu_off);
	/* PM sampling refused as CUPTI refuses it to a chip without it (before Turing): by its
	 * architecture. */
	int no_pm = p->structSize >= CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE &&
		    p->api == CUPTI_PROFILER_PM_SAMPLING && fake_pm_is_unsupported();
	p->isSupported = vgpu || no_pm ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED
				       : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->architecture = no_pm ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->sli = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->vGpu = vgpu ? CUPTI_PROFILER_CONFIGURATION_DISABLED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->confidentialCompute = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->cmp = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->wsl = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	return CUPTI_SUCCESS;
}

/* The fake has no availability image to give: with a working Range Profiler it answers that it
 * cannot (what the component then does with the refusal it had), never an empty image that the
 * real Host API would read. */
CUptiResult CUPTIAPI cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	(void)p;
	CUptiResult r = atomic_load(&range_err);
	return r == CUPTI_SUCCESS ? CUPTI_ERROR_NOT_SUPPORTED : r;
}

/* ---- the Range Profiler: refusals, or the working fake ----------------------------------- */

static atomic_long n_calls;

long fake_profiler_calls(void)
{
	return atomic_load(&n_calls);
}

/* Every Range Profiler call asks this first: it is counted here. */
static int working(void)
{
	atomic_fetch_add(&n_calls, 1);
	return atomic_load(&range_err) == CUPTI_SUCCESS;
}

static struct fake_image *image_of(const uint8_t *data, size_t size)
{
	struct fake_image *im = (struct fake_image *)(uintptr_t)data;
	return data && size >= sizeof *im && im->magic == FAKE_IMAGE_MAGIC ? im : NULL;
}

CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
	atomic_fetch_add(&n_enable, 1);
	if (!atomic_load(&up))
		return CUPTI_ERROR_NOT_INITIALIZED;
	if (!working())
		return atomic_load(&range_err);
	struct fake_rp *rp = calloc(1, sizeof *rp);
	if (!rp)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	rp->ctx = p->ctx;
	pthread_mutex_lock(&plock);
	rp->next = rps;
	rps = rp;
	pthread_mutex_unlock(&plock);
	p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)(void *)rp;
	return CUPTI_SUCCESS;
}

#define RP(p) ((struct fake_rp *)(void *)(p)->pRangeProfilerObject)

CUptiResult CUPTIAPI cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	struct fake_rp *rp = RP(p);
	pthread_mutex_lock(&plock);
	if (rp && rp->started)
		n_started--;
	for (struct fake_rp **q = &rps; *q; q = &(*q)->next)
		if (*q == rp) {
			*q = rp->next;
			break;
		}
	pthread_mutex_unlock(&plock);
	free(rp);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	p->counterDataSize = sizeof(struct fake_image);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerCounterDataImageInitialize(
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	if (!p->pCounterData || p->counterDataSize < sizeof(struct fake_image))
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pCounterData, 0, sizeof(struct fake_image));
	((struct fake_image *)(void *)p->pCounterData)->magic = FAKE_IMAGE_MAGIC;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	RP(p)->image = p->pCounterDataImage;
	RP(p)->size = p->counterDataImageSize;
	return CUPTI_SUCCESS;
}

static CUptiResult start_range(void *arg)
{
	struct fake_rp *rp = arg;
	pthread_mutex_lock(&plock);
	int was = rp->started;
	if (!was) {
		rp->started = 1;
		n_started++;
	}
	pthread_mutex_unlock(&plock);
	return was ? CUPTI_ERROR_INVALID_OPERATION : CUPTI_SUCCESS;
}

/* Whether a range is started on a context of device dev (fake_pmsampling.c, under its lock). */
int fake_range_started_on(int dev)
{
	int on = 0;
	pthread_mutex_lock(&plock);
	for (struct fake_rp *rp = rps; rp && !on; rp = rp->next)
		on = rp->started && fake_ctx_device(rp->ctx) == dev;
	pthread_mutex_unlock(&plock);
	return on;
}

/* While PM sampling is started on the context's device, the counters are busy (as on an H100). */
CUptiResult CUPTIAPI cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	CUptiResult f = fault("cuptiRangeProfilerStart");
	if (f != CUPTI_SUCCESS)
		return f;
	struct fake_rp *rp = RP(p);
	/* Under the PM sampling fake's lock, so that the two cannot both start on one device. */
	CUptiResult r = fake_pm_exclusive(fake_ctx_device(rp->ctx), start_range, rp);
	if (r == CUPTI_SUCCESS)
		atomic_fetch_add(&n_start, 1);
	return r;
}

/* The range ends: what was added while it ran goes into its image. */
CUptiResult CUPTIAPI cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	struct fake_rp *rp = RP(p);
	struct fake_image *im = image_of(rp->image, rp->size);
	CUptiResult f = fault("cuptiRangeProfilerStop");
	pthread_mutex_lock(&plock);
	if (rp->started) {
		/* A failed stop stops, and what the range held is lost. */
		rp->started = 0;
		n_started--;
		if (im && f == CUPTI_SUCCESS) {
			memcpy(im->values, rp->acc, sizeof rp->acc);
			im->ranges = 1;
		}
		memset(rp->acc, 0, sizeof rp->acc);
		rp->n_acc = 0;
	}
	pthread_mutex_unlock(&plock);
	p->isAllPassSubmitted = 1;
	return f;
}

CUptiResult CUPTIAPI cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params *p)
{
	(void)p;
	return atomic_load(&range_err);
}

CUptiResult CUPTIAPI cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params *p)
{
	(void)p;
	return atomic_load(&range_err);
}

CUptiResult CUPTIAPI cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	CUptiResult f = fault("cuptiRangeProfilerDecodeData");
	if (f != CUPTI_SUCCESS)
		return f;
	p->numOfRangeDropped = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	struct fake_image *im = image_of(p->pCounterDataImage, p->counterDataImageSize);
	p->numTotalRanges = im ? im->ranges : 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerCounterDataGetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *p)
{
	if (!working())
		return atomic_load(&range_err);
	p->rangeName = "fake";
	return CUPTI_SUCCESS;
}

/* The values of a fake image (see the top of this file), or of the PM sampling fake's
 * (fake_pm_evaluate); any other image is the real Host API's to evaluate. */
CUptiResult CUPTIAPI cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	int pm = fake_pm_evaluate(p);
	if (pm >= 0)
		return (CUptiResult)pm;
	const struct fake_image *im = image_of(p->pCounterDataImage, p->counterDataImageSize);
	if (!im) {
		CUptiResult (*f)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
		*(void **)&f = real("cuptiProfilerHostEvaluateToGpuValues");
		return f ? f(p) : CUPTI_ERROR_NOT_INITIALIZED;
	}
	if (p->rangeIndex >= im->ranges)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numMetrics; i++) {
		const char *name = p->ppMetricNames[i];
		double v = strcmp(name, "gpu__time_duration.sum") ? 0 : FAKE_RANGE_NS;
		for (int k = 0; k < FAKE_MAX_METRICS; k++)
			if (im->values[k].name[0] && !strcmp(im->values[k].name, name))
				v = im->values[k].v;
		p->pMetricValues[i] = v;
	}
	return CUPTI_SUCCESS;
}
