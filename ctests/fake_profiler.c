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
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "fake_cuda.h"

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static char chip[64] = "GH100";
static _Atomic CUptiResult range_err = CUPTI_ERROR_NOT_SUPPORTED;
static atomic_int n_init, n_enable, n_double, up;

void fake_chip(const char *name)
{
	pthread_mutex_lock(&plock);
	snprintf(chip, sizeof chip, "%s", name);
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

FORWARD_HOST(Initialize)
FORWARD_HOST(Deinitialize)
FORWARD_HOST(GetSupportedChips)
FORWARD_HOST(GetBaseMetrics)
FORWARD_HOST(GetSubMetrics)
FORWARD_HOST(GetMetricProperties)
FORWARD_HOST(EvaluateToGpuValues)
FORWARD_HOST(ConfigAddMetrics)
FORWARD_HOST(GetConfigImageSize)
FORWARD_HOST(GetConfigImage)
FORWARD_HOST(GetNumOfPasses)
FORWARD_HOST(GetMaxNumHardwareMetricsPerPass)

/* ---- the target: a supported device of the fake chip -------------------------------------- */

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	(void)p;
	atomic_fetch_add(&n_init, 1);
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

CUptiResult CUPTIAPI cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	if (!atomic_load(&up))
		return CUPTI_ERROR_NOT_INITIALIZED;
	p->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->architecture = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->sli = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->vGpu = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->confidentialCompute = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->cmp = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->wsl = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	(void)p;
	return atomic_load(&range_err);
}

/* ---- the Range Profiler: no GPU here ------------------------------------------------------- */

CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
	(void)p;
	atomic_fetch_add(&n_enable, 1);
	if (!atomic_load(&up))
		return CUPTI_ERROR_NOT_INITIALIZED;
	return atomic_load(&range_err);
}

/* cuptiRangeProfiler<X> takes CUpti_RangeProfiler_<Y>_Params. */
#define REFUSE(x, y)                                                           \
	CUptiResult CUPTIAPI cuptiRangeProfiler##x(CUpti_RangeProfiler_##y##_Params *p) \
	{                                                                      \
		(void)p;                                                       \
		return atomic_load(&range_err);                                \
	}

REFUSE(Disable, Disable)
REFUSE(SetConfig, SetConfig)
REFUSE(Start, Start)
REFUSE(Stop, Stop)
REFUSE(PushRange, PushRange)
REFUSE(PopRange, PopRange)
REFUSE(DecodeData, DecodeData)
REFUSE(GetCounterDataSize, GetCounterDataSize)
REFUSE(GetCounterDataInfo, GetCounterDataInfo)
REFUSE(CounterDataImageInitialize, CounterDataImage_Initialize)
REFUSE(CounterDataGetRangeInfo, CounterData_GetRangeInfo)
