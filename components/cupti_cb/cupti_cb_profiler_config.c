/* cupti_cb_profiler_config.c: one configuration of the Range Profiler or of
 * PM sampling, built with the Profiler Host API: the metrics are added to a host object of their own
 * (a host object accumulates every metric ever added to it, so sharing one
 * between configurations would mix them), the config image is read out and
 * its pass count asked for. The host object is kept for the evaluation,
 * which must see the same metrics. */
#include "cupti_cb_profiler_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cupti_failed(const struct cupti_cb_profiler_api *p, CUptiResult r, const char *call, const char *chip,
			char *why, size_t len)
{
	snprintf(why, len, "%s failed for chip %s: %s", call, chip, cupti_cb_profiler_api_error(p, r));
	return -1;
}

/* names[] and the strings they point to, in one allocation. */
static int copy_names(struct cupti_cb_profiler_config *c, const char *const *names, unsigned n, char *why,
		      size_t len)
{
	size_t bytes = (size_t)n * sizeof(char *);
	for (unsigned i = 0; i < n; i++) {
		if (!names[i] || !names[i][0]) {
			snprintf(why, len, "metric %u of the configuration has no name", i);
			return -1;
		}
		bytes += strlen(names[i]) + 1;
	}
	char **v = malloc(bytes ? bytes : 1);
	if (!v) {
		snprintf(why, len, "no memory for the names of %u metrics", n);
		return -1;
	}
	char *s = (char *)(v + n);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + 1;
		memcpy(s, names[i], l);
		v[i] = s;
		s += l;
	}
	c->names = (const char **)v;
	c->n = n;
	return 0;
}

static int host_init(struct cupti_cb_profiler_config *c, const char *chip, const uint8_t *counter_availability,
		     char *why, size_t len)
{
	CUpti_Profiler_Host_Initialize_Params ip = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	ip.profilerType = c->type;
	ip.pChipName = chip;
	ip.pCounterAvailabilityImage = counter_availability;
	CUptiResult r = c->p->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(c->p, r, "cuptiProfilerHostInitialize", chip, why, len);
	c->host = ip.pHostObject;
	return 0;
}

static CUptiResult add_names(const struct cupti_cb_profiler_api *p, CUpti_Profiler_Host_Object *host,
			     const char **names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
		.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE
	};
	ap.pHostObject = host;
	ap.ppMetricNames = names;
	ap.numMetrics = n;
	return p->cuptiProfilerHostConfigAddMetrics(&ap);
}

/* Whether CUPTI accepts names[0..n) added together, on a scratch host
 * object: after a refusal a host object refuses everything that follows. */
static CUptiResult try_names(const struct cupti_cb_profiler_config *c, const char *chip,
			     const uint8_t *counter_availability, const char **names, size_t n)
{
	CUpti_Profiler_Host_Initialize_Params ip = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	ip.profilerType = c->type;
	ip.pChipName = chip;
	ip.pCounterAvailabilityImage = counter_availability;
	CUptiResult r = c->p->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return r;
	r = add_names(c->p, ip.pHostObject, names, n);
	CUpti_Profiler_Host_Deinitialize_Params dp = {
		.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE
	};
	dp.pHostObject = ip.pHostObject;
	c->p->cuptiProfilerHostDeinitialize(&dp);
	return r;
}

/* After a refused batch, names the metric to blame. Metrics valid alone can
 * be refused together (GH100: ctc__tx_bytes.sum with
 * fbpa__cycles_in_region.sum gives CUPTI_ERROR_NOT_SUPPORTED), so the
 * shortest refused prefix is found by bisection; its last metric is refused
 * alone, or with one earlier partner, or with the prefix as a whole. Only
 * the failure path pays for the scratch objects (about 2 ms each). */
static int name_refused(struct cupti_cb_profiler_config *c, const char *chip, const uint8_t *counter_availability,
			CUptiResult batch, char *why, size_t len)
{
	size_t lo = 1, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (try_names(c, chip, counter_availability, c->names, mid) != CUPTI_SUCCESS)
			hi = mid;
		else
			lo = mid + 1;
	}
	const char *bad = c->names[lo - 1];
	CUptiResult r = try_names(c, chip, counter_availability, &c->names[lo - 1], 1);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, len, "cuptiProfilerHostConfigAddMetrics refused metric '%s' for chip %s: %s", bad,
			 chip, cupti_cb_profiler_api_error(c->p, r));
		return -1;
	}
	for (size_t j = 0; j + 1 < lo; j++) {
		const char *pair[2] = { c->names[j], bad };
		r = try_names(c, chip, counter_availability, pair, 2);
		if (r != CUPTI_SUCCESS) {
			snprintf(why, len,
				 "cuptiProfilerHostConfigAddMetrics refused metric '%s' together with '%s' for "
				 "chip %s: %s",
				 bad, pair[0], chip, cupti_cb_profiler_api_error(c->p, r));
			return -1;
		}
	}
	snprintf(why, len,
		 "cuptiProfilerHostConfigAddMetrics refused metric '%s' together with the %zu metrics "
		 "before it for chip %s: %s",
		 bad, lo - 1, chip, cupti_cb_profiler_api_error(c->p, batch));
	return -1;
}

/* All metrics in one call: CUPTI schedules each call on its own, so adding
 * them one by one multiplies the passes (measured on GH100:
 * dram__bytes_read.sum and dram__bytes_write.sum take 1 pass added together,
 * 2 added one after the other). */
static int add_metrics(struct cupti_cb_profiler_config *c, const char *chip, const uint8_t *counter_availability,
		       char *why, size_t len)
{
	CUptiResult r = add_names(c->p, c->host, c->names, c->n);
	if (r != CUPTI_SUCCESS)
		return name_refused(c, chip, counter_availability, r, why, len);
	return 0;
}

static int read_image(struct cupti_cb_profiler_config *c, const char *chip, char *why, size_t len)
{
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
	};
	sp.pHostObject = c->host;
	CUptiResult r = c->p->cuptiProfilerHostGetConfigImageSize(&sp);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(c->p, r, "cuptiProfilerHostGetConfigImageSize", chip, why, len);
	c->image = malloc(sp.configImageSize ? sp.configImageSize : 1);
	if (!c->image) {
		snprintf(why, len, "no memory for a config image of %zu bytes", sp.configImageSize);
		return -1;
	}
	CUpti_Profiler_Host_GetConfigImage_Params gp = {
		.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE
	};
	gp.pHostObject = c->host;
	gp.configImageSize = sp.configImageSize;
	gp.pConfigImage = c->image;
	r = c->p->cuptiProfilerHostGetConfigImage(&gp);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(c->p, r, "cuptiProfilerHostGetConfigImage", chip, why, len);
	c->image_size = sp.configImageSize;
	return 0;
}

static int count_passes(struct cupti_cb_profiler_config *c, const char *chip, char *why, size_t len)
{
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
		.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE
	};
	np.configImageSize = c->image_size;
	np.pConfigImage = c->image;
	CUptiResult r = c->p->cuptiProfilerHostGetNumOfPasses(&np);
	if (r != CUPTI_SUCCESS)
		return cupti_failed(c->p, r, "cuptiProfilerHostGetNumOfPasses", chip, why, len);
	c->passes = np.numOfPasses;
	return 0;
}

int cupti_cb_profiler_config_build(struct cupti_cb_profiler_config *c, const struct cupti_cb_profiler_api *p, const char *chip,
			   const uint8_t *counter_availability, const char *const *names, unsigned n,
			   char *why, size_t len)
{
	return cupti_cb_profiler_config_build_for(c, p, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, counter_availability,
						  names, n, why, len);
}

int cupti_cb_profiler_config_build_for(struct cupti_cb_profiler_config *c, const struct cupti_cb_profiler_api *p,
				       CUpti_ProfilerType type, const char *chip, const uint8_t *counter_availability,
				       const char *const *names, unsigned n, char *why, size_t len)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->type = type;
	if (!chip || !chip[0]) {
		snprintf(why, len, "no chip named for the metric configuration");
		return -1;
	}
	if (!n) {
		snprintf(why, len, "a metric configuration needs at least one metric");
		return -1;
	}
	if (copy_names(c, names, n, why, len) || host_init(c, chip, counter_availability, why, len) ||
	    add_metrics(c, chip, counter_availability, why, len) || read_image(c, chip, why, len) ||
	    count_passes(c, chip, why, len)) {
		cupti_cb_profiler_config_free(c);
		return -1;
	}
	return 0;
}

void cupti_cb_profiler_config_free(struct cupti_cb_profiler_config *c)
{
	if (c->host && c->p) {
		CUpti_Profiler_Host_Deinitialize_Params dp = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE
		};
		dp.pHostObject = c->host;
		c->p->cuptiProfilerHostDeinitialize(&dp);
	}
	free(c->names);
	free(c->image);
	const struct cupti_cb_profiler_api *p = c->p;
	CUpti_ProfilerType type = c->type;
	memset(c, 0, sizeof *c);
	c->p = p;
	c->type = type;
}

int cupti_cb_profiler_config_evaluate(const struct cupti_cb_profiler_config *c, const uint8_t *counter_data, size_t size,
			      size_t range, double *values, char *why, size_t len)
{
	if (!c->host) {
		snprintf(why, len, "the metric configuration was not built");
		return -1;
	}
	if (!counter_data || !size) {
		snprintf(why, len, "no counter data to evaluate");
		return -1;
	}
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ep = {
		.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE
	};
	ep.pHostObject = c->host;
	ep.pCounterDataImage = counter_data;
	ep.counterDataImageSize = size;
	ep.rangeIndex = range;
	ep.ppMetricNames = c->names;
	ep.numMetrics = c->n;
	ep.pMetricValues = values;
	CUptiResult r = c->p->cuptiProfilerHostEvaluateToGpuValues(&ep);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, len, "cuptiProfilerHostEvaluateToGpuValues failed for range %zu of %u metrics: %s",
			 range, c->n, cupti_cb_profiler_api_error(c->p, r));
		return -1;
	}
	return 0;
}
