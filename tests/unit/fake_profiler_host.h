/* fake_profiler_host.h: the Profiler Host API's host object as the unit tests
 * of the two profiler sessions fake it (test_metric_session.c,
 * test_sampling_session.c): a list of metric names, whose config image is a
 * copy of the object, for chip "FAKE1" only. Included once, after the test
 * defines
 *   MAXM, NAMELEN            the object's room (metrics, bytes of a name)
 *   FAKE_HOST_TYPE           the profiler type the session must ask for, or -1 for any
 *   FAKE_HOST_PASSES(n)      the passes of a configuration with n "multipass*" metrics
 *   static int known(const char *name)   whether the chip has the metric. */
#ifndef FAKE_PROFILER_HOST_H
#define FAKE_PROFILER_HOST_H

#include <stdlib.h>
#include <string.h>
#include <cupti_profiler_host.h>

struct fhost {
	char names[MAXM][NAMELEN];
	unsigned n;
};

static int known(const char *name);

static CUptiResult f_HostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	if (!p->pChipName || strcmp(p->pChipName, "FAKE1"))
		return CUPTI_ERROR_INVALID_CHIP_NAME;
	if (FAKE_HOST_TYPE >= 0 && (int)p->profilerType != FAKE_HOST_TYPE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pHostObject = calloc(1, sizeof(struct fhost));
	return p->pHostObject ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}

static CUptiResult f_HostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	free(p->pHostObject);
	return CUPTI_SUCCESS;
}

/* All the metrics or none: an unknown one, or more than the object holds, adds nothing. */
static CUptiResult f_ConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	struct fhost *h = (struct fhost *)p->pHostObject;
	for (size_t i = 0; i < p->numMetrics; i++)
		if (!known(p->ppMetricNames[i]) || h->n + i >= MAXM)
			return CUPTI_ERROR_INVALID_METRIC_NAME;
	for (size_t i = 0; i < p->numMetrics; i++)
		snprintf(h->names[h->n++], NAMELEN, "%s", p->ppMetricNames[i]);
	return CUPTI_SUCCESS;
}

/* The config image is the host object itself. */
static CUptiResult f_GetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	p->configImageSize = sizeof(struct fhost);
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	memcpy(p->pConfigImage, p->pHostObject, sizeof(struct fhost));
	return CUPTI_SUCCESS;
}

static CUptiResult f_GetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	const struct fhost *h = (const struct fhost *)(const void *)p->pConfigImage;
	unsigned multi = 0;
	for (unsigned i = 0; i < h->n; i++)
		multi += !strncmp(h->names[i], "multipass", 9);
	p->numOfPasses = FAKE_HOST_PASSES(multi);
	return CUPTI_SUCCESS;
}

#endif
