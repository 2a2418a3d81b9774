/* test_metric_session: the hardware-metric session against a fake driver and a
 * fake CUPTI profiler (struct cupti_cb_api and struct cupti_cb_profiler_api are
 * tables of function pointers, filled here), with the real configuration
 * code (cupti_cb_profiler_config) on top of the fake Host API.
 *
 * The fake GPU: work given to a context counts only while a range is open
 * on it; a decode turns what the range counted into one range of values.
 * The session never changes the calling thread's current context: the
 * tests check that the fake context stack is left as it was. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cupti_cb_metric_session.h"

/* ------------------------------------------------------------ fake GPU */

#define MAXM 16
#define NAMELEN 64

/* The metric session's passes: one, and one more for each "multipass" metric. */
#define FAKE_HOST_TYPE CUPTI_PROFILER_TYPE_RANGE_PROFILER
#define FAKE_HOST_PASSES(multi) (1 + (multi))
#include "fake_profiler_host.h"


struct fctx {
	int device;
	int enabled, configured, started, open;
	const struct fhost *cfg;	/* the config image given to SetConfig, kept as CUPTI does */
	uint8_t *image;			/* the counter-data image given to SetConfig */
	double a, b, ns;		/* counted by the open range */
};

static struct fctx ctx_a = { .device = 0 }, ctx_b = { .device = 0 }, primary = { .device = 0 },
		   other_dev = { .device = 1 };
static int primary_active, primary_refs, retains_inactive;
static CUptiResult enable_error, avail_error, start_error;
static int start_fails;		/* the next Starts that fail with start_error (0: every one while set) */
static int avail_calls;
static int vgpu_unsupported;

static __thread CUcontext stack[8];
static __thread int depth;

static CUcontext H(struct fctx *f)
{
	return (CUcontext)(void *)f;
}

static struct fctx *F(CUcontext c)
{
	return (struct fctx *)(void *)c;
}

/* Work on a context: counted only inside an open range. Like CUPTI, the
 * fake reads the images it was given while the profiler is enabled (ASan
 * reports one freed too early). */
static void work(struct fctx *f, double a, double b, double ns)
{
	if (f->enabled && f->cfg)
		(void)(f->cfg->n + ((volatile uint8_t *)f->image)[0]);
	if (f->open) {
		f->a += a;
		f->b += b;
		f->ns += ns;
	}
}

/* The value the fake hardware gives for a metric over the range. */
static int metric_value(const struct fctx *f, const char *name, double *v)
{
	if (!strcmp(name, "gpu__time_duration.sum"))
		*v = f->ns;
	else if (!strcmp(name, "a.sum"))
		*v = f->a;
	else if (!strcmp(name, "b.sum"))
		*v = f->b;
	else if (!strcmp(name, "a.sum.per_second"))
		*v = f->ns > 0 ? f->a / f->ns * 1e9 : NAN;
	else if (!strcmp(name, "multipass.sum"))
		*v = 0;
	else
		return -1;
	return 0;
}

/* ------------------------------------------------------------ fake driver */

static CUresult f_cuDeviceGet(CUdevice *d, int ordinal)
{
	*d = ordinal;
	return CUDA_SUCCESS;
}

static CUresult f_cuCtxGetCurrent(CUcontext *c)
{
	*c = depth ? stack[depth - 1] : NULL;
	return CUDA_SUCCESS;
}

/* The application's context stack, driven by the tests. */
static CUresult f_cuCtxPushCurrent(CUcontext c)
{
	if (!c || depth == 8)
		return CUDA_ERROR_INVALID_CONTEXT;
	stack[depth++] = c;
	return CUDA_SUCCESS;
}

static CUresult f_cuCtxPopCurrent(CUcontext *c)
{
	if (!depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	*c = stack[--depth];
	return CUDA_SUCCESS;
}

static CUresult f_cuDevicePrimaryCtxGetState(CUdevice d, unsigned *flags, int *active)
{
	(void)d;
	*flags = 0;
	*active = primary_active;
	return CUDA_SUCCESS;
}

static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	retains_inactive += !primary_active;
	primary_refs++;
	*c = H(&primary);
	return CUDA_SUCCESS;
}

static CUresult f_cuDevicePrimaryCtxRelease(CUdevice d)
{
	(void)d;
	primary_refs--;
	return CUDA_SUCCESS;
}

static CUresult f_cuGetErrorString(CUresult r, const char **s)
{
	(void)r;
	*s = "fake CUDA error";
	return CUDA_SUCCESS;
}

static CUptiResult f_cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
	     : r == CUPTI_ERROR_HARDWARE_BUSY	     ? "CUPTI_ERROR_HARDWARE_BUSY"
						     : "CUPTI_ERROR_SOMETHING";
	return CUPTI_SUCCESS;
}

static CUptiResult f_cuptiGetDeviceId(CUcontext c, uint32_t *d)
{
	*d = (uint32_t)F(c)->device;
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ fake Host API */

static int known(const char *name)
{
	double v;
	return metric_value(&ctx_a, name, &v) == 0;
}

/* Counter-data image: the number of ranges, then one value per metric. */
struct fimage {
	uint64_t ranges;
	double v[MAXM];
};

static CUptiResult f_Evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	const struct fimage *im = (const struct fimage *)(const void *)p->pCounterDataImage;
	if (p->counterDataImageSize < sizeof *im || p->rangeIndex >= im->ranges)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numMetrics; i++)
		p->pMetricValues[i] = im->v[i];
	return CUPTI_SUCCESS;
}

/* ------------------------------------------------------------ fake target and Range Profiler */

static CUptiResult f_ProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	(void)p;
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetChipName(CUpti_Device_GetChipName_Params *p)
{
	p->pChipName = p->deviceIndex == 0 ? "FAKE1" : NULL;
	return p->deviceIndex == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_DEVICE;
}

static CUptiResult f_DeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	p->architecture = p->sli = p->confidentialCompute = p->cmp = p->wsl =
		CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->vGpu = vgpu_unsupported ? CUPTI_PROFILER_CONFIGURATION_DISABLED
				   : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	p->isSupported = vgpu_unsupported ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED
					  : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	avail_calls++;
	if (avail_error)
		return avail_error;
	if (p->pCounterAvailabilityImage)
		memset(p->pCounterAvailabilityImage, 0xa5, 16);
	p->counterAvailabilityImageSize = 16;
	return CUPTI_SUCCESS;
}

#define RP(x) F((CUcontext)(void *)(x))
#define NEED_ENABLED(rp)                                               \
	do {                                                           \
		if (!(rp) || !(rp)->enabled)                           \
			return CUPTI_ERROR_INVALID_OPERATION;          \
	} while (0)

static CUptiResult f_Enable(CUpti_RangeProfiler_Enable_Params *p)
{
	if (enable_error)
		return enable_error;
	if (F(p->ctx)->enabled)
		return CUPTI_ERROR_INVALID_OPERATION;
	F(p->ctx)->enabled = 1;
	p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)(void *)p->ctx;
	return CUPTI_SUCCESS;
}

static CUptiResult f_Disable(CUpti_RangeProfiler_Disable_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	f->enabled = f->configured = f->started = f->open = 0;
	f->cfg = NULL;
	f->image = NULL;
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
	NEED_ENABLED(RP(p->pRangeProfilerObject));
	p->counterDataSize = sizeof(struct fimage);
	return CUPTI_SUCCESS;
}

static CUptiResult f_ImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
	NEED_ENABLED(RP(p->pRangeProfilerObject));
	if (p->counterDataSize < sizeof(struct fimage))
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pCounterData, 0, sizeof(struct fimage));
	return CUPTI_SUCCESS;
}

static CUptiResult f_SetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	/* The session sets one configuration per enable. */
	if (f->cfg || f->started || p->range != CUPTI_UserRange || p->replayMode != CUPTI_UserReplay)
		return CUPTI_ERROR_INVALID_OPERATION;
	f->cfg = (const struct fhost *)(const void *)p->pConfig;
	f->image = p->pCounterDataImage;
	f->configured = 1;
	return CUPTI_SUCCESS;
}

/* As on an H100: the counters serve one started range per device. */
static int device_busy(const struct fctx *f)
{
	const struct fctx *all[] = { &ctx_a, &ctx_b, &primary, &other_dev };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i] != f && all[i]->device == f->device && all[i]->started)
			return 1;
	return 0;
}

static CUptiResult f_Start(CUpti_RangeProfiler_Start_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	if (!f->configured || f->started)
		return CUPTI_ERROR_INVALID_OPERATION;
	if (device_busy(f))
		return CUPTI_ERROR_HARDWARE_BUSY;
	if (start_error) {
		CUptiResult r = start_error;
		if (start_fails > 0 && --start_fails == 0)
			start_error = 0;
		return r;
	}
	f->started = 1;
	return CUPTI_SUCCESS;
}

static CUptiResult f_Push(CUpti_RangeProfiler_PushRange_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	if (!f->started || f->open)
		return CUPTI_ERROR_INVALID_OPERATION;
	f->open = 1;
	f->a = f->b = f->ns = 0;
	return CUPTI_SUCCESS;
}

static CUptiResult f_Pop(CUpti_RangeProfiler_PopRange_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	if (!f->open)
		return CUPTI_ERROR_INVALID_OPERATION;
	f->open = 0;
	return CUPTI_SUCCESS;
}

static CUptiResult f_Stop(CUpti_RangeProfiler_Stop_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	if (!f->started)
		return CUPTI_ERROR_INVALID_OPERATION;
	f->started = 0;
	p->isAllPassSubmitted = 1;
	return CUPTI_SUCCESS;
}

static CUptiResult f_Decode(CUpti_RangeProfiler_DecodeData_Params *p)
{
	struct fctx *f = RP(p->pRangeProfilerObject);
	NEED_ENABLED(f);
	struct fimage *im = (struct fimage *)(void *)f->image;
	im->ranges = 1;
	for (unsigned i = 0; i < f->cfg->n; i++)
		(void)metric_value(f, f->cfg->names[i], &im->v[i]);
	f->a = f->b = f->ns = 0;
	p->numOfRangeDropped = 0;
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
	p->numTotalRanges = ((const struct fimage *)(const void *)p->pCounterDataImage)->ranges;
	return CUPTI_SUCCESS;
}

static struct cupti_cb_api api = {
	.cuptiGetResultString = f_cuptiGetResultString,
	.cuptiGetDeviceId = f_cuptiGetDeviceId,
	.cuGetErrorString = f_cuGetErrorString,
	.cuDeviceGet = f_cuDeviceGet,
	.cuCtxGetCurrent = f_cuCtxGetCurrent,
	.cuDevicePrimaryCtxGetState = f_cuDevicePrimaryCtxGetState,
	.cuDevicePrimaryCtxRetain = f_cuDevicePrimaryCtxRetain,
	.cuDevicePrimaryCtxRelease_v2 = f_cuDevicePrimaryCtxRelease,
};

static struct cupti_cb_profiler_api prof = {
	.cuptiProfilerHostInitialize = f_HostInitialize,
	.cuptiProfilerHostDeinitialize = f_HostDeinitialize,
	.cuptiProfilerHostEvaluateToGpuValues = f_Evaluate,
	.cuptiProfilerHostConfigAddMetrics = f_ConfigAddMetrics,
	.cuptiProfilerHostGetConfigImageSize = f_GetConfigImageSize,
	.cuptiProfilerHostGetConfigImage = f_GetConfigImage,
	.cuptiProfilerHostGetNumOfPasses = f_GetNumOfPasses,
	.cuptiProfilerInitialize = f_ProfilerInitialize,
	.cuptiProfilerGetCounterAvailability = f_GetCounterAvailability,
	.cuptiDeviceGetChipName = f_GetChipName,
	.cuptiProfilerDeviceSupported = f_DeviceSupported,
	.cuptiRangeProfilerEnable = f_Enable,
	.cuptiRangeProfilerDisable = f_Disable,
	.cuptiRangeProfilerSetConfig = f_SetConfig,
	.cuptiRangeProfilerStart = f_Start,
	.cuptiRangeProfilerStop = f_Stop,
	.cuptiRangeProfilerPushRange = f_Push,
	.cuptiRangeProfilerPopRange = f_Pop,
	.cuptiRangeProfilerDecodeData = f_Decode,
	.cuptiRangeProfilerGetCounterDataSize = f_GetCounterDataSize,
	.cuptiRangeProfilerCounterDataImageInitialize = f_ImageInitialize,
	.cuptiRangeProfilerGetCounterDataInfo = f_GetCounterDataInfo,
};

/* ------------------------------------------------------------ tests */

static char why[1024];

static double total(const struct cupti_cb_metric_session *s, unsigned id, int additive,
		    struct cupti_cb_profiler_total *since)
{
	struct cupti_cb_profiler_total t;
	if (cupti_cb_metric_session_total(s, id, &t))
		return NAN;
	return cupti_cb_profiler_total_value(since, &t, additive);
}

static void *sample_thread(void *arg)
{
	char w[256];
	return (void *)(intptr_t)cupti_cb_metric_session_sample(arg, w, sizeof w);
}

static void test_init_errors(void)
{
	struct cupti_cb_metric_session s;
	vgpu_unsupported = 1;
	int rc = cupti_cb_metric_session_init(&s, &api, &prof, 0, "FAKE1", why, sizeof why);
	vgpu_unsupported = 0;
	CHECK(rc == CUPTI_CB_METRIC_SESSION_EFAIL && strstr(why, "vGPU") && strstr(why, "disabled"),
	      "an unsupported device names the cause: %s", why);
	struct cupti_cb_api none = api;
	none.cuDevicePrimaryCtxGetState = NULL;
	rc = cupti_cb_metric_session_init(&s, &none, &prof, 0, "FAKE1", why, sizeof why);
	CHECK(rc && strstr(why, "cuDevicePrimaryCtxGetState"), "a driver without a function: %s", why);
}

/* Contexts found: the current one and the active primary; nothing retained
 * while the primary is inactive. */
static void test_adopt(struct cupti_cb_metric_session *s)
{
	CUcontext dummy;
	primary_active = 0;
	f_cuCtxPushCurrent(H(&ctx_a));
	CHECK_EQ(cupti_cb_metric_session_adopt_current(s, why, sizeof why), 0, "adopt with an inactive primary");
	CHECK_EQ(s->n_ctxs, 1, "contexts: the current one");
	CHECK_EQ(retains_inactive, 0, "no inactive primary context retained");
	primary_active = 1;
	CHECK_EQ(cupti_cb_metric_session_adopt_current(s, why, sizeof why), 0, "adopt with an active primary");
	CHECK_EQ(s->n_ctxs, 2, "contexts: current + primary");
	CHECK_EQ(primary_refs, 0, "the primary context's retain is released");
	CHECK(depth == 1 && stack[0] == H(&ctx_a), "the thread's current context is left as it was");
	f_cuCtxPopCurrent(&dummy);
	CHECK(ctx_a.enabled && primary.enabled && !ctx_a.started, "range profiler enabled, not started");
	CHECK_EQ(cupti_cb_metric_session_add_context(s, H(&other_dev), why, sizeof why), CUPTI_CB_METRIC_SESSION_EINVAL,
		 "a context of another device is refused");
}

static void test_collect(struct cupti_cb_metric_session *s, unsigned *ids)
{
	const char *names[] = { "a.sum", "a.sum.per_second" };
	const int add[] = { 1, 0 };
	struct cupti_cb_profiler_total z = { 0, 0, 0 };
	CHECK_EQ(cupti_cb_metric_session_want(s, names, add, 2, ids, why, sizeof why), 0, "want a.sum, a rate");
	CHECK(ctx_a.open && !primary.open && primary.enabled,
	      "a range is open on the first context only; the other waits, enabled");
	CHECK_EQ(depth, 0, "no context left pushed on the calling thread");
	CHECK_EQ(s->cfg.n, 3, "configuration: weight + 2");
	work(&ctx_a, 100, 0, 1000);
	work(&primary, 50, 0, 1000);	/* a context that waits is not collected */
	CHECK_EQ(cupti_cb_metric_session_sample(s, why, sizeof why), 0, "sample");
	CHECK_EQ(total(s, ids[0], 1, &z), 100, "a.sum of the collecting context");
	CHECK(fabs(total(s, ids[1], 0, &z) - 1e8) < 1e-3, "rate = 100 / 1000 ns: %.1f", total(s, ids[1], 0, &z));
	/* Two segments of different rates: the weighted mean is the joined rate. */
	struct cupti_cb_profiler_total t0;
	cupti_cb_metric_session_total(s, ids[1], &t0);
	work(&ctx_a, 100, 0, 1000);
	pthread_t th;
	pthread_create(&th, NULL, sample_thread, s);
	void *ret;
	pthread_join(th, &ret);
	CHECK_EQ((intptr_t)ret, 0, "sample from a thread with no current context");
	work(&ctx_a, 300, 0, 1000);
	cupti_cb_metric_session_sample(s, why, sizeof why);
	CHECK(fabs(total(s, ids[1], 0, &t0) - 2e8) < 1e-3, "rate over 2 segments = 400 / 2000 ns: %.1f",
	      total(s, ids[1], 0, &t0));
	CHECK_EQ(total(s, ids[0], 1, &z), 500, "a.sum after 3 segments");
	start_error = CUPTI_ERROR_UNKNOWN;
	CHECK(cupti_cb_metric_session_sample(s, why, sizeof why) && strstr(why, "cuptiRangeProfilerStart"),
	      "a failed restart is reported: %s", why);
	start_error = 0;
	CHECK(!ctx_a.open, "no range open after it");
	CHECK_EQ(cupti_cb_metric_session_sample(s, why, sizeof why), 0, "the next sample");
	CHECK(ctx_a.open, "starts collecting again");
}

static void test_reconfigure(struct cupti_cb_metric_session *s, unsigned *ids)
{
	const char *b[] = { "b.sum" };
	const char *mp[] = { "multipass.sum" };
	const int add[] = { 1 };
	struct cupti_cb_profiler_total z = { 0, 0, 0 };
	unsigned idb, idm;
	work(&ctx_a, 10, 0, 100);
	CHECK_EQ(cupti_cb_metric_session_want(s, b, add, 1, &idb, why, sizeof why), 0, "want b.sum: reconfigure");
	CHECK_EQ(total(s, ids[0], 1, &z), 510, "the range before the reconfiguration is collected");
	CHECK_EQ(ctx_a.cfg->n, 4, "new configuration on the collecting context");
	work(&ctx_a, 5, 7, 100);
	cupti_cb_metric_session_sample(s, why, sizeof why);
	CHECK_EQ(total(s, idb, 1, &z), 7, "b.sum after the reconfiguration");
	CHECK_EQ(total(s, ids[0], 1, &z), 515, "a.sum after the reconfiguration");
	int rc = cupti_cb_metric_session_want(s, mp, add, 1, &idm, why, sizeof why);
	CHECK(rc == CUPTI_CB_METRIC_SESSION_EPASSES && strstr(why, "2 passes"), "multi-pass refused: %s", why);
	CHECK_EQ(s->cfg.n, 4, "configuration unchanged after the refusal");
	CHECK_EQ(s->entries[idb].refs, 1, "references unchanged after the refusal");
	const char *twice[] = { "b.sum", "nosuch.sum" };
	const int add2[] = { 1, 1 };
	unsigned out[2];
	rc = cupti_cb_metric_session_want(s, twice, add2, 2, out, why, sizeof why);
	CHECK(rc == CUPTI_CB_METRIC_SESSION_EFAIL && strstr(why, "nosuch.sum"), "an unknown metric: %s", why);
	CHECK_EQ(s->entries[idb].refs, 1, "b.sum's reference taken by the failed want is given back");
	CHECK_EQ(cupti_cb_metric_session_unwant(s, &idb, 1, why, sizeof why), 0, "unwant b.sum");
	CHECK_EQ(ctx_a.cfg->n, 3, "configuration shrinks");
	CHECK_EQ(cupti_cb_metric_session_unwant(s, &idb, 1, why, sizeof why), CUPTI_CB_METRIC_SESSION_EINVAL,
		 "unwant of an id no longer referenced");
}

/* Contexts come and go: the next one in the table takes over collection. */
static void test_handover(struct cupti_cb_metric_session *s, unsigned *ids)
{
	struct cupti_cb_profiler_total z = { 0, 0, 0 };
	CHECK_EQ(cupti_cb_metric_session_add_context(s, H(&ctx_b), why, sizeof why), 0, "a context added later");
	CHECK(ctx_b.enabled && !ctx_b.open, "it waits, enabled");
	work(&ctx_a, 4, 0, 10);
	CHECK_EQ(cupti_cb_metric_session_drop_context(s, H(&ctx_a), why, sizeof why), 0, "drop the collecting context");
	CHECK_EQ(total(s, ids[0], 1, &z), 4, "its range is collected when dropped");
	CHECK(!ctx_a.enabled && primary.open && s->n_ctxs == 2, "disabled; the next context collects");
	work(&primary, 5, 0, 10);
	cupti_cb_metric_session_sample(s, why, sizeof why);
	CHECK_EQ(total(s, ids[0], 1, &z), 9, "collected from the context that took over");
	CHECK_EQ(cupti_cb_metric_session_drop_context(s, H(&ctx_b), why, sizeof why), 0, "drop a waiting context");
	CHECK(!ctx_b.enabled && primary.open && s->n_ctxs == 1, "the collecting context goes on");
	CHECK_EQ(cupti_cb_metric_session_add_context(s, H(&ctx_b), why, sizeof why), 0, "add it back");
	CHECK_EQ(cupti_cb_metric_session_drop_context(s, H(&primary), why, sizeof why), 0, "drop the collecting one");
	CHECK(ctx_b.open && !primary.enabled, "the last one collects");
	work(&ctx_b, 1, 0, 10);
	cupti_cb_metric_session_sample(s, why, sizeof why);
	CHECK_EQ(total(s, ids[0], 1, &z), 10, "after two handovers");
}

static void test_stop_and_errors(struct cupti_cb_metric_session *s, unsigned *ids)
{
	struct cupti_cb_profiler_total z = { 0, 0, 0 };
	CHECK_EQ(cupti_cb_metric_session_unwant(s, ids, 2, why, sizeof why), 0, "unwant the rest");
	CHECK(!s->running && !ctx_a.started && !primary.started && ctx_a.enabled,
	      "no reference: stopped on every context, still enabled");
	work(&ctx_a, 1, 1, 1);	/* the images set on it are still alive */
	CHECK_EQ(s->n_entries > 0 && s->entries[ids[0]].name == NULL, 1, "entries freed");
	const char *names[] = { "a.sum" };
	const int add[] = { 1 };
	CHECK_EQ(cupti_cb_metric_session_want(s, names, add, 1, ids, why, sizeof why), 0, "want again");
	CHECK_EQ(total(s, ids[0], 1, &z), 0, "a new entry starts at 0");
	CHECK(ctx_a.open, "collection starts again");
	test_handover(s, ids);

	struct cupti_cb_metric_session s2;
	CHECK_EQ(cupti_cb_metric_session_init(&s2, &api, &prof, 0, "FAKE1", why, sizeof why), 0, "a second session");
	int rc = cupti_cb_metric_session_add_context(&s2, H(&ctx_b), why, sizeof why);
	CHECK(rc && strstr(why, "another profiler"), "on a profiled context: %s", why);
	cupti_cb_metric_session_destroy(&s2);

	enable_error = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	rc = cupti_cb_metric_session_add_context(s, H(&ctx_a), why, sizeof why);
	enable_error = 0;
	CHECK(rc && strstr(why, "NVreg_RestrictProfilingToAdminUsers=0") && strstr(why, "root"),
	      "insufficient privileges: %s", why);
	CHECK_EQ(s->n_ctxs, 1, "the refused context is not kept");

}

/* Configurations assume every counter of the chip: the device is asked
 * which counters it offers only when CUPTI refuses one (and then the
 * configuration is built again with the answer). */
static void test_availability(void)
{
	struct cupti_cb_metric_session s3;
	unsigned id;
	int rc;
	const char *names[] = { "a.sum" };
	const int add[] = { 1 };
	CHECK_EQ(cupti_cb_metric_session_init(&s3, &api, &prof, 0, "FAKE1", why, sizeof why), 0, "a session");
	CHECK_EQ(cupti_cb_metric_session_want(&s3, names, add, 1, &id, why, sizeof why), 0, "want");
	int before = avail_calls;
	CHECK_EQ(cupti_cb_metric_session_add_context(&s3, H(&ctx_a), why, sizeof why), 0, "a context");
	CHECK_EQ(avail_calls, before, "no availability query when CUPTI takes the configuration");
	CHECK(s3.avail == NULL, "no availability image");
	cupti_cb_metric_session_destroy(&s3);

	CHECK_EQ(cupti_cb_metric_session_init(&s3, &api, &prof, 0, "FAKE1", why, sizeof why), 0, "a session");
	CHECK_EQ(cupti_cb_metric_session_want(&s3, names, add, 1, &id, why, sizeof why), 0, "want");
	start_error = CUPTI_ERROR_NOT_SUPPORTED;
	start_fails = 1;
	rc = cupti_cb_metric_session_add_context(&s3, H(&ctx_a), why, sizeof why);
	CHECK(rc == 0, "a refused configuration is built again with the device's availability (%s)",
	      rc ? why : "ok");
	CHECK_EQ(avail_calls, before + 2, "the device was asked once (its size, then its image)");
	CHECK(s3.avail != NULL && ctx_a.open, "and the range runs with the new configuration");
	cupti_cb_metric_session_destroy(&s3);

	CHECK_EQ(cupti_cb_metric_session_init(&s3, &api, &prof, 0, "FAKE1", why, sizeof why), 0, "a session");
	CHECK_EQ(cupti_cb_metric_session_want(&s3, names, add, 1, &id, why, sizeof why), 0, "want");
	start_error = CUPTI_ERROR_HARDWARE_BUSY;
	start_fails = 0;
	avail_error = CUPTI_ERROR_HARDWARE_BUSY;
	rc = cupti_cb_metric_session_add_context(&s3, H(&ctx_a), why, sizeof why);
	start_error = avail_error = 0;
	CHECK(rc && strstr(why, "Nsight Compute"), "counters held by another profiler: %s", why);
	cupti_cb_metric_session_destroy(&s3);
}

int main(void)
{
	struct cupti_cb_metric_session s;
	unsigned ids[2];
	test_init_errors();
	CHECK_EQ(cupti_cb_metric_session_init(&s, &api, &prof, 0, NULL, why, sizeof why), 0, "init");
	CHECK_STR(s.chip, "FAKE1", "chip asked of CUPTI when none is given");
	test_adopt(&s);
	test_collect(&s, ids);
	test_reconfigure(&s, ids);
	test_stop_and_errors(&s, ids);
	cupti_cb_metric_session_destroy(&s);
	CHECK(!ctx_a.enabled && !primary.enabled && !ctx_b.enabled, "destroy disables every context");
	test_availability();
	CHECK_EQ(depth, 0, "no context left pushed");
	return checks_done();
}
