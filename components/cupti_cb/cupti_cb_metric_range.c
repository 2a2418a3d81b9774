/* cupti_cb_metric_range.c: Range Profiler calls on one context.
 *
 * No call here makes its context current. Every call names its context,
 * directly (enable, availability) or through the Range Profiler object,
 * and CUPTI does not look at the calling thread's context: on an H100
 * (CUDA 13.0, driver 580) the whole sequence, enable to disable, ran from a
 * thread with no current context with the values unchanged
 * (results/gpu-tests/results-msession-h100-2026-11-23.txt). So PAPI may read from any
 * thread, and a context on its way out is never made current. */
#include "cupti_cb_metric_range.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What to do about the errors whose cause is known, or "". */
static const char *advice(CUptiResult r)
{
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		return ": access to the GPU performance counters is restricted to admin users; load "
		       "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 (a line \"options "
		       "nvidia NVreg_RestrictProfilingToAdminUsers=0\" in /etc/modprobe.d, then reload "
		       "the module or reboot), or run as root";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		return ": the hypervisor does not allow profiling on this vGPU (enable profiling for "
		       "the VM in the vGPU manager)";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
		return ": profiling is not supported on this virtualized GPU (vGPU)";
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
		return ": profiling is not supported on this MIG instance (use a GPU without MIG, or "
		       "a GPU instance that profiling supports)";
	case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
		return ": profiling is not allowed while confidential computing is on";
	case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
		return ": NVIDIA Crypto Mining Processors cannot be profiled";
	case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
		return ": profiling is not supported with SLI";
	case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
		return ": profiling is not supported on this WSL setup";
	case CUPTI_ERROR_HARDWARE_BUSY:
		return ": another profiler holds the device's performance counters (Nsight Compute, "
		       "Nsight Systems GPU metrics, DCGM profiling, or another profiling session in "
		       "this process); end it, or pause DCGM with dcgmi profile --pause";
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		return ": another tool (Nsight Systems, Nsight Compute, cuda-gdb) is attached to the "
		       "process";
	case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
		return ": the legacy CUPTI Profiling API is in use in this process, and the Range "
		       "Profiler cannot run beside it";
	case CUPTI_ERROR_NOT_INITIALIZED:
		return ": cuptiProfilerInitialize did not run";
	default:
		return "";
	}
}

void cupti_cb_metric_range_error(const struct cupti_cb_api *api, const char *call, CUptiResult r, char *why,
			   size_t len)
{
	snprintf(why, len, "%s failed: CUPTI error %d (%s)%s", call, (int)r,
		 cupti_cb_cupti_error(api, r), advice(r));
}

/* Makes the CUPTI call; a failure is described in why. */
#define CALL(api, why, len, name, call)                                             \
	do {                                                                        \
		CUptiResult r_ = (call);                                            \
		if (r_ != CUPTI_SUCCESS) {                                          \
			cupti_cb_metric_range_error((api), (name), r_, (why), (len));     \
			return -1;                                                  \
		}                                                                   \
	} while (0)

/* CUPTI refuses the availability query while any profiling session runs on
 * the device: where the code does not say more, that is the likely cause. */
static void availability_error(const struct cupti_cb_api *api, CUptiResult r, char *why, size_t len)
{
	cupti_cb_metric_range_error(api, "cuptiProfilerGetCounterAvailability", r, why, len);
	size_t o = strlen(why);
	if (advice(r)[0] == '\0' && o < len)
		snprintf(why + o, len - o, ": CUPTI refuses this while another profiler uses the device "
			 "(Nsight Compute, Nsight Systems GPU metrics, DCGM profiling, or another "
			 "profiling session in this process)");
}

int cupti_cb_metric_range_availability(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
				 CUcontext ctx, uint8_t **image, size_t *size, char *why, size_t len)
{
	CUpti_Profiler_GetCounterAvailability_Params a = {
		CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, NULL, ctx, 0, NULL };
	CUptiResult r0 = p->cuptiProfilerGetCounterAvailability(&a);
	if (r0 != CUPTI_SUCCESS) {
		availability_error(api, r0, why, len);
		return -1;
	}
	*image = malloc(a.counterAvailabilityImageSize ? a.counterAvailabilityImageSize : 1);
	if (!*image) {
		snprintf(why, len, "out of memory for the counter availability image");
		return -1;
	}
	a.pCounterAvailabilityImage = *image;
	CUptiResult r = p->cuptiProfilerGetCounterAvailability(&a);
	if (r != CUPTI_SUCCESS) {
		availability_error(api, r, why, len);
		free(*image);
		*image = NULL;
		return -1;
	}
	*size = a.counterAvailabilityImageSize;
	return 0;
}

int cupti_cb_metric_range_enable(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			   struct cupti_cb_mctx *c, char *why, size_t len)
{
	CUpti_RangeProfiler_Enable_Params e = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL,
						c->ctx, NULL };
	CUptiResult r = p->cuptiRangeProfilerEnable(&e);
	if (r == CUPTI_ERROR_INVALID_OPERATION || r == CUPTI_ERROR_NOT_COMPATIBLE) {
		/* What CUPTI says when a range profiler already runs on the context. */
		snprintf(why, len, "cuptiRangeProfilerEnable failed: CUPTI error %d (%s): another "
			 "profiler already profiles this context (Nsight Compute, or another profiling "
			 "session in this process)", (int)r, cupti_cb_cupti_error(api, r));
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		cupti_cb_metric_range_error(api, "cuptiRangeProfilerEnable", r, why, len);
		return -1;
	}
	c->rp = e.pRangeProfilerObject;
	return 0;
}

static int image_size(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
		      struct cupti_cb_mctx *c, const struct cupti_cb_profiler_config *cfg, size_t *size, char *why,
		      size_t len)
{
	CUpti_RangeProfiler_GetCounterDataSize_Params g = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
	g.pRangeProfilerObject = c->rp;
	g.pMetricNames = cfg->names;
	g.numMetrics = cfg->n;
	g.maxNumOfRanges = 1;		/* one range per start */
	g.maxNumRangeTreeNodes = 1;
	CALL(api, why, len, "cuptiRangeProfilerGetCounterDataSize",
		   p->cuptiRangeProfilerGetCounterDataSize(&g));
	*size = g.counterDataSize;
	return 0;
}

static int set_config(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
		      struct cupti_cb_mctx *c, char *why, size_t len)
{
	CUpti_RangeProfiler_SetConfig_Params sc = {
		.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
	sc.pRangeProfilerObject = c->rp;
	sc.configSize = c->config_size;
	sc.pConfig = c->config;
	sc.counterDataImageSize = c->data_size;
	sc.pCounterDataImage = c->data;
	/* A user range over application work, which only the application could
	 * replay: single-pass configurations only, so pass 0 is the only pass. */
	sc.range = CUPTI_UserRange;
	sc.replayMode = CUPTI_UserReplay;
	sc.maxRangesPerPass = 1;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	CALL(api, why, len, "cuptiRangeProfilerSetConfig",
		   p->cuptiRangeProfilerSetConfig(&sc));
	return 0;
}

/* Disables the range profiler and frees the buffers it was given: only then
 * is nothing of them referenced by CUPTI any more. */
static void release(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
		    struct cupti_cb_mctx *c)
{
	(void)api;
	if (c->rp) {
		CUpti_RangeProfiler_Disable_Params d = {
			CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, c->rp };
		(void)p->cuptiRangeProfilerDisable(&d);
	}
	c->rp = NULL;
	free(c->data);
	free(c->config);
	c->data = c->config = NULL;
	c->data_size = c->config_size = 0;
	c->set = c->configured = c->started = 0;
}

/* The buffers of a configuration, owned by the context. */
static int buffers(struct cupti_cb_mctx *c, const struct cupti_cb_profiler_config *cfg, size_t size, char *why,
		   size_t len)
{
	c->data = malloc(size ? size : 1);
	c->config = malloc(cfg->image_size ? cfg->image_size : 1);
	if (!c->data || !c->config) {
		snprintf(why, len, "out of memory for a counter-data image of %zu bytes", size);
		return -1;
	}
	memcpy(c->config, cfg->image, cfg->image_size);
	c->data_size = size;
	c->config_size = cfg->image_size;
	return 0;
}

int cupti_cb_metric_range_configure(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			      struct cupti_cb_mctx *c, const struct cupti_cb_profiler_config *cfg, char *why,
			      size_t len)
{
	size_t size = 0;
	c->configured = 0;
	/* A range profiler is configured once: CUPTI keeps the config and
	 * counter-data images of SetConfig until Disable, so a new configuration
	 * gets a fresh one, and the old buffers are freed only after Disable. */
	if (c->set || !c->rp) {
		release(api, p, c);
		if (cupti_cb_metric_range_enable(api, p, c, why, len))
			return -1;
	}
	if (image_size(api, p, c, cfg, &size, why, len) || buffers(c, cfg, size, why, len))
		return -1;
	c->set = 1;	/* from here on CUPTI may hold the buffers */
	if (cupti_cb_metric_range_reinit(api, p, c, why, len) || set_config(api, p, c, why, len))
		return -1;
	c->configured = 1;
	return 0;
}

int cupti_cb_metric_range_start(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			  struct cupti_cb_mctx *c, char *why, size_t len)
{
	CUpti_RangeProfiler_Start_Params st = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL,
						c->rp };
	CUpti_RangeProfiler_PushRange_Params pr = { CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE,
						    NULL, c->rp, CUPTI_CB_METRIC_RANGE_NAME };
	CALL(api, why, len, "cuptiRangeProfilerStart", p->cuptiRangeProfilerStart(&st));
	CUptiResult r = p->cuptiRangeProfilerPushRange(&pr);
	if (r != CUPTI_SUCCESS) {
		/* Leave the profiler stopped, as it was found. */
		CUpti_RangeProfiler_Stop_Params sp = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
						       NULL, c->rp, 0, 0, 0 };
		(void)p->cuptiRangeProfilerStop(&sp);
		cupti_cb_metric_range_error(api, "cuptiRangeProfilerPushRange", r, why, len);
		return -1;
	}
	c->started = 1;
	return 0;
}

static int decode(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
		  struct cupti_cb_mctx *c, size_t *ranges, size_t *dropped, char *why, size_t len)
{
	CUpti_RangeProfiler_DecodeData_Params d = { CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
						    NULL, c->rp, 0 };
	CALL(api, why, len, "cuptiRangeProfilerDecodeData", p->cuptiRangeProfilerDecodeData(&d));
	*dropped = d.numOfRangeDropped;
	CUpti_RangeProfiler_GetCounterDataInfo_Params i = {
		CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, NULL, c->data,
		c->data_size, 0 };
	CUptiResult r = p->cuptiRangeProfilerGetCounterDataInfo(&i);
	if (r != CUPTI_SUCCESS) {
		cupti_cb_metric_range_error(api, "cuptiRangeProfilerGetCounterDataInfo", r, why, len);
		return -1;
	}
	*ranges = i.numTotalRanges;
	return 0;
}

int cupti_cb_metric_range_stop(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			 struct cupti_cb_mctx *c, size_t *ranges, size_t *dropped, char *why, size_t len)
{
	CUpti_RangeProfiler_PopRange_Params pr = { CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE,
						   NULL, c->rp };
	CUpti_RangeProfiler_Stop_Params sp = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL,
					       c->rp, 0, 0, 0 };
	*ranges = 0;
	*dropped = 0;
	CUptiResult r1 = p->cuptiRangeProfilerPopRange(&pr);
	/* Stop even when the pop failed: the profiler must not stay started. */
	CUptiResult r2 = p->cuptiRangeProfilerStop(&sp);
	c->started = 0;
	if (r1 != CUPTI_SUCCESS || r2 != CUPTI_SUCCESS) {
		cupti_cb_metric_range_error(api, r1 != CUPTI_SUCCESS ? "cuptiRangeProfilerPopRange"
							       : "cuptiRangeProfilerStop",
				      r1 != CUPTI_SUCCESS ? r1 : r2, why, len);
		return -1;
	}
	return decode(api, p, c, ranges, dropped, why, len);
}

int cupti_cb_metric_range_reinit(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			   struct cupti_cb_mctx *c, char *why, size_t len)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params in = {
		CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, NULL, c->rp,
		c->data_size, c->data };
	CALL(api, why, len, "cuptiRangeProfilerCounterDataImageInitialize",
		   p->cuptiRangeProfilerCounterDataImageInitialize(&in));
	return 0;
}

void cupti_cb_metric_range_disable(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			     struct cupti_cb_mctx *c)
{
	release(api, p, c);
}
