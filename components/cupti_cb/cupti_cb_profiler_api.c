/* cupti_cb_profiler_api.c: resolve the profiler entry points from libcupti. */
#include "cupti_cb_profiler_api.h"
#include "cupti_cb_core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define PSYM(f) { #f, offsetof(struct cupti_cb_profiler_api, f) }

static const struct {
	const char *name;
	size_t offset;
} prof_syms[] = {
	PSYM(cuptiGetResultString),
	PSYM(cuptiProfilerHostInitialize),
	PSYM(cuptiProfilerHostDeinitialize),
	PSYM(cuptiProfilerHostGetSupportedChips),
	PSYM(cuptiProfilerHostGetBaseMetrics),
	PSYM(cuptiProfilerHostGetSubMetrics),
	PSYM(cuptiProfilerHostGetMetricProperties),
	PSYM(cuptiProfilerHostEvaluateToGpuValues),
	PSYM(cuptiProfilerHostConfigAddMetrics),
	PSYM(cuptiProfilerHostGetConfigImageSize),
	PSYM(cuptiProfilerHostGetConfigImage),
	PSYM(cuptiProfilerHostGetNumOfPasses),
	PSYM(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass),
	PSYM(cuptiProfilerInitialize),
	PSYM(cuptiProfilerDeInitialize),
	PSYM(cuptiDeviceGetChipName),
	PSYM(cuptiProfilerGetCounterAvailability),
	PSYM(cuptiProfilerDeviceSupported),
	PSYM(cuptiRangeProfilerEnable),
	PSYM(cuptiRangeProfilerDisable),
	PSYM(cuptiRangeProfilerSetConfig),
	PSYM(cuptiRangeProfilerStart),
	PSYM(cuptiRangeProfilerStop),
	PSYM(cuptiRangeProfilerPushRange),
	PSYM(cuptiRangeProfilerPopRange),
	PSYM(cuptiRangeProfilerDecodeData),
	PSYM(cuptiRangeProfilerGetCounterDataSize),
	PSYM(cuptiRangeProfilerCounterDataImageInitialize),
	PSYM(cuptiRangeProfilerGetCounterDataInfo),
	PSYM(cuptiRangeProfilerCounterDataGetRangeInfo),
};

int cupti_cb_profiler_api_load(struct cupti_cb_profiler_api *p, void *cupti_lib, char *why, size_t len)
{
	memset(p, 0, sizeof *p);
	if (!cupti_lib) {
		snprintf(why, len, "libcupti is not loaded");
		return -1;
	}
	for (size_t i = 0; i < sizeof prof_syms / sizeof prof_syms[0]; i++) {
		void *f = dlsym(cupti_lib, prof_syms[i].name);
		if (!f) {
			snprintf(why, len,
				 "the loaded libcupti has no %s: hardware metrics need the Profiler Host "
				 "and Range Profiler APIs of CUDA 13 or newer",
				 prof_syms[i].name);
			memset(p, 0, sizeof *p);
			return -1;
		}
		memcpy((char *)p + prof_syms[i].offset, &f, sizeof f);
	}
	return 0;
}

#define PMSYM(f) { #f, offsetof(struct cupti_cb_pm_sampling_api, f) }

static const struct {
	const char *name;
	size_t offset;
} pm_syms[] = {
	PMSYM(cuptiPmSamplingSetConfig),
	PMSYM(cuptiPmSamplingEnable),
	PMSYM(cuptiPmSamplingDisable),
	PMSYM(cuptiPmSamplingStart),
	PMSYM(cuptiPmSamplingStop),
	PMSYM(cuptiPmSamplingDecodeData),
	PMSYM(cuptiPmSamplingGetCounterAvailability),
	PMSYM(cuptiPmSamplingGetCounterDataSize),
	PMSYM(cuptiPmSamplingCounterDataImageInitialize),
	PMSYM(cuptiPmSamplingGetCounterDataInfo),
	PMSYM(cuptiPmSamplingCounterDataGetSampleInfo),
	PMSYM(cuptiGetTimestamp),
};

int cupti_cb_pm_sampling_api_load(struct cupti_cb_pm_sampling_api *p, void *cupti_lib, char *why, size_t len)
{
	memset(p, 0, sizeof *p);
	if (!cupti_lib) {
		snprintf(why, len, "libcupti is not loaded");
		return -1;
	}
	for (size_t i = 0; i < sizeof pm_syms / sizeof pm_syms[0]; i++) {
		void *f = dlsym(cupti_lib, pm_syms[i].name);
		if (!f) {
			snprintf(why, len, "the loaded libcupti has no %s: PM sampling needs CUPTI 12.6 or newer",
				 pm_syms[i].name);
			memset(p, 0, sizeof *p);
			return -1;
		}
		memcpy((char *)p + pm_syms[i].offset, &f, sizeof f);
	}
	return 0;
}

const char *cupti_cb_profiler_api_error(const struct cupti_cb_profiler_api *p, CUptiResult r)
{
	const char *s = NULL;
	if (p && p->cuptiGetResultString && p->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown CUPTI error";
}

/* ---- what keeps a device from profiling ---- */

static const char *level(CUpti_Profiler_Support_Level l)
{
	return l == CUPTI_PROFILER_CONFIGURATION_DISABLED ? "disabled" : "unsupported";
}

void cupti_cb_profiler_unsupported(const CUpti_Profiler_DeviceSupported_Params *d, int ordinal, const char *what,
				   char *why, size_t len)
{
	const struct {
		const char *what;
		CUpti_Profiler_Support_Level l;
	} f[] = {
		{ "the architecture (compute capability 7.5 or newer is needed)", d->architecture },
		{ "SLI", d->sli },
		{ "vGPU (profiling must be enabled for the VM)", d->vGpu },
		{ "confidential computing", d->confidentialCompute },
		{ "a Crypto Mining Processor (CMP)", d->cmp },
		{ "WSL", d->wsl },
	};
	size_t o = (size_t)snprintf(why, len, "device %d does not support %s:", ordinal, what);
	int named = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0] && o < len; i++)
		if (f[i].l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
			o += (size_t)snprintf(why + o, len - o, "%s %s %s", named ? "," : "",
					      f[i].what, level(f[i].l));
			named = 1;
		}
	if (!named && o < len)
		snprintf(why + o, len - o, " CUPTI names no reason (a MIG instance?)");
}


int cupti_cb_profiler_refusal(const char *why)
{
	if (strstr(why, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") || strstr(why, "CUPTI_ERROR_HARDWARE_BUSY"))
		return CUPTI_CB_ECONFLICT;
	if (strstr(why, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"))
		return CUPTI_CB_EPERM;
	return CUPTI_CB_ENOEVNT;
}
