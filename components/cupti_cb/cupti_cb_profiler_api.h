/* cupti_cb_profiler_api.h: the Profiler Host, profiler target and Range Profiler
 * entry points, resolved from the libcupti the loader opened. Kept apart
 * from struct cupti_cb_api because only the metrics source needs them, and
 * a libcupti without them (older than CUDA 12.6) still serves callbacks.
 *
 * Beside other CUPTI subscribers (cupti_cb_multiple_subscribers.h): none of these has a
 * subscriber-scoped variant, up to CUPTI 13.5 at least. The Host API only
 * computes (configurations, metric values) and shares nothing. The profiler
 * target and the Range Profiler act on a context's hardware counters,
 * which serve one range at a time: while another tool profiles a context of
 * the device, cuptiRangeProfilerEnable or Start fails and the metric events
 * say so (the callback and activity events still count); the other tool
 * meets the same error while cupti_cb's range runs. */
#ifndef CUPTI_CB_PROFILER_API_H
#define CUPTI_CB_PROFILER_API_H

#include <stddef.h>
#include <cupti_profiler_host.h>	/* needs cxx_shims/ on the include path from C */
#include <cupti_profiler_target.h>
#include <cupti_pmsampling.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>


struct cupti_cb_profiler_api {
	/* Every CUPTI error the metrics source reports names CUPTI's result
	 * string; kept here so the metric code needs no struct cupti_cb_api. */
	CUptiResult (*cuptiGetResultString)(CUptiResult, const char **);

	/* Host API: no GPU needed, only a chip name. */
	CUptiResult (*cuptiProfilerHostInitialize)(CUpti_Profiler_Host_Initialize_Params *);
	CUptiResult (*cuptiProfilerHostDeinitialize)(CUpti_Profiler_Host_Deinitialize_Params *);
	CUptiResult (*cuptiProfilerHostGetSupportedChips)(CUpti_Profiler_Host_GetSupportedChips_Params *);
	CUptiResult (*cuptiProfilerHostGetBaseMetrics)(CUpti_Profiler_Host_GetBaseMetrics_Params *);
	CUptiResult (*cuptiProfilerHostGetSubMetrics)(CUpti_Profiler_Host_GetSubMetrics_Params *);
	CUptiResult (*cuptiProfilerHostGetMetricProperties)(CUpti_Profiler_Host_GetMetricProperties_Params *);
	CUptiResult (*cuptiProfilerHostEvaluateToGpuValues)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
	CUptiResult (*cuptiProfilerHostConfigAddMetrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params *);
	CUptiResult (*cuptiProfilerHostGetConfigImageSize)(CUpti_Profiler_Host_GetConfigImageSize_Params *);
	CUptiResult (*cuptiProfilerHostGetConfigImage)(CUpti_Profiler_Host_GetConfigImage_Params *);
	CUptiResult (*cuptiProfilerHostGetNumOfPasses)(CUpti_Profiler_Host_GetNumOfPasses_Params *);
	CUptiResult (*cuptiProfilerHostGetMaxNumHardwareMetricsPerPass)(
		CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params *);

	/* Target: needs the driver. */
	CUptiResult (*cuptiProfilerInitialize)(CUpti_Profiler_Initialize_Params *);
	CUptiResult (*cuptiProfilerDeInitialize)(CUpti_Profiler_DeInitialize_Params *);
	CUptiResult (*cuptiDeviceGetChipName)(CUpti_Device_GetChipName_Params *);
	CUptiResult (*cuptiProfilerGetCounterAvailability)(CUpti_Profiler_GetCounterAvailability_Params *);
	CUptiResult (*cuptiProfilerDeviceSupported)(CUpti_Profiler_DeviceSupported_Params *);

	/* Range Profiler: collection on a context. */
	CUptiResult (*cuptiRangeProfilerEnable)(CUpti_RangeProfiler_Enable_Params *);
	CUptiResult (*cuptiRangeProfilerDisable)(CUpti_RangeProfiler_Disable_Params *);
	CUptiResult (*cuptiRangeProfilerSetConfig)(CUpti_RangeProfiler_SetConfig_Params *);
	CUptiResult (*cuptiRangeProfilerStart)(CUpti_RangeProfiler_Start_Params *);
	CUptiResult (*cuptiRangeProfilerStop)(CUpti_RangeProfiler_Stop_Params *);
	CUptiResult (*cuptiRangeProfilerPushRange)(CUpti_RangeProfiler_PushRange_Params *);
	CUptiResult (*cuptiRangeProfilerPopRange)(CUpti_RangeProfiler_PopRange_Params *);
	CUptiResult (*cuptiRangeProfilerDecodeData)(CUpti_RangeProfiler_DecodeData_Params *);
	CUptiResult (*cuptiRangeProfilerGetCounterDataSize)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
	CUptiResult (*cuptiRangeProfilerCounterDataImageInitialize)(
		CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
	CUptiResult (*cuptiRangeProfilerGetCounterDataInfo)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
	CUptiResult (*cuptiRangeProfilerCounterDataGetRangeInfo)(
		CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *);
};

/* Resolves every entry point from an open libcupti handle. Returns 0, or
 * -1 with a sentence naming the first missing one in why. */
int cupti_cb_profiler_api_load(struct cupti_cb_profiler_api *p, void *cupti_lib, char *why, size_t len);

/* PM sampling (CUDA 12.6 and newer): counters sampled continuously on a
 * device, decoded on the host. Loaded apart from the Range Profiler's
 * entry points, so that a libcupti without them still serves the metrics
 * of the Range Profiler. */
struct cupti_cb_pm_sampling_api {
	CUptiResult (*cuptiPmSamplingSetConfig)(CUpti_PmSampling_SetConfig_Params *);
	CUptiResult (*cuptiPmSamplingEnable)(CUpti_PmSampling_Enable_Params *);
	CUptiResult (*cuptiPmSamplingDisable)(CUpti_PmSampling_Disable_Params *);
	CUptiResult (*cuptiPmSamplingStart)(CUpti_PmSampling_Start_Params *);
	CUptiResult (*cuptiPmSamplingStop)(CUpti_PmSampling_Stop_Params *);
	CUptiResult (*cuptiPmSamplingDecodeData)(CUpti_PmSampling_DecodeData_Params *);
	CUptiResult (*cuptiPmSamplingGetCounterAvailability)(CUpti_PmSampling_GetCounterAvailability_Params *);
	CUptiResult (*cuptiPmSamplingGetCounterDataSize)(CUpti_PmSampling_GetCounterDataSize_Params *);
	CUptiResult (*cuptiPmSamplingCounterDataImageInitialize)(
		CUpti_PmSampling_CounterDataImage_Initialize_Params *);
	CUptiResult (*cuptiPmSamplingGetCounterDataInfo)(CUpti_PmSampling_GetCounterDataInfo_Params *);
	CUptiResult (*cuptiPmSamplingCounterDataGetSampleInfo)(CUpti_PmSampling_CounterData_GetSampleInfo_Params *);
	/* The clock of CUPTI's timestamps, the samples' among them: where a
	 * window's start and stop lie among the samples. */
	CUptiResult (*cuptiGetTimestamp)(uint64_t *);
};

/* Resolves the PM sampling entry points. Returns 0, or -1 with a sentence
 * naming the first one missing. */
int cupti_cb_pm_sampling_api_load(struct cupti_cb_pm_sampling_api *p, void *cupti_lib, char *why, size_t len);

/* The sentence for a device cuptiProfilerDeviceSupported refused: "device
 * N does not support <what>:" and each configuration feature to blame. */
void cupti_cb_profiler_unsupported(const CUpti_Profiler_DeviceSupported_Params *d, int ordinal, const char *what,
				   char *why, size_t len);

/* Why a metric catalogue could not be built, as the error a lookup of one
 * of its names gives: CUPTI_CB_ECONFLICT where another profiler holds
 * CUPTI's profiler (Nsight Compute: cuptiProfilerInitialize gives
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) or the counters,
 * CUPTI_CB_EPERM without permission, else CUPTI_CB_ENOEVNT. */
int cupti_cb_profiler_refusal(const char *why);

/* CUPTI's name of r ("CUPTI_ERROR_INVALID_METRIC_NAME"), never NULL. */
const char *cupti_cb_profiler_api_error(const struct cupti_cb_profiler_api *p, CUptiResult r);

#endif
