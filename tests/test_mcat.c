/* test_mcat.c: the hardware-metric configuration and catalogue of GH100,
 * from the real libcupti's Profiler Host API (no GPU). A libcupti without
 * that API fails the test: CI has CUDA 13. */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_mconfig.h"

#define CHIP "GH100"

static struct cupti_cb_api api;
static struct cupti_cb_profapi prof;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int load(void)
{
	char why[512];
	if (cupti_cb_load_cupti(&api, why, sizeof why) || cupti_cb_profapi_load(&prof, api.cupti_lib, why, sizeof why)) {
		CHECK(0, "the Profiler Host API loads: %s", why);
		return -1;
	}
	CHECK(1, "the Profiler Host API loads from %s", api.cupti_path);
	return 0;
}

/* The base counters of CHIP as CUPTI lists them, straight from the Host
 * API, independent of the catalogue; the names stay valid while *host
 * lives. */
static const char **host_counters(CUpti_Profiler_Host_Object **host, size_t *n)
{
	CUpti_Profiler_Host_Initialize_Params ip = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = CHIP;
	if (prof.cuptiProfilerHostInitialize(&ip) != CUPTI_SUCCESS)
		return NULL;
	*host = ip.pHostObject;
	CUpti_Profiler_Host_GetBaseMetrics_Params bp = {
		.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE
	};
	bp.pHostObject = *host;
	bp.metricType = CUPTI_METRIC_TYPE_COUNTER;
	if (prof.cuptiProfilerHostGetBaseMetrics(&bp) != CUPTI_SUCCESS)
		return NULL;
	*n = bp.numMetrics;
	return bp.ppMetricNames;
}

static void host_free(CUpti_Profiler_Host_Object *host)
{
	CUpti_Profiler_Host_Deinitialize_Params dp = { .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };
	dp.pHostObject = host;
	prof.cuptiProfilerHostDeinitialize(&dp);
}

static size_t passes_of(const char *const *names, unsigned n, const char *what)
{
	struct cupti_cb_mconfig c;
	char why[512] = "";
	double t0 = now_ms();
	int r = cupti_cb_mconfig_build(&c, &prof, CHIP, NULL, names, n, why, sizeof why);
	double ms = now_ms() - t0;
	CHECK(r == 0, "%s: configuration of %u metrics builds (%.1f ms) %s", what, n, ms, r ? why : "");
	if (r)
		return 0;
	CHECK(c.image && c.image_size > 0, "%s: config image of %zu bytes", what, c.image_size);
	CHECK(c.n == n && !strcmp(c.names[n - 1], names[n - 1]) && c.names[n - 1] != names[n - 1],
	      "%s: the names are owned copies", what);
	size_t passes = c.passes;
	printf("# %s: %u metrics, %zu passes, %.1f ms\n", what, n, passes, ms);
	cupti_cb_mconfig_free(&c);
	CHECK(c.host == NULL && c.image == NULL && c.names == NULL, "%s: free clears the configuration", what);
	return passes;
}

static void single_pass(void)
{
	const char *names[] = { "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum" };
	CHECK_EQ(passes_of(names, 3, "dram read+write, gpu time"), 1, "passes of dram read+write and gpu time");
}

/* A throughput is a composite of many counters: one alone takes several
 * passes. */
static void throughput_passes(void)
{
	const char *names[] = { "sm__throughput.avg.pct_of_peak_sustained_elapsed" };
	size_t p = passes_of(names, 1, "sm__throughput");
	CHECK(p > 1, "sm__throughput alone needs several passes: %zu", p);
}

/* 150 counters (.sum) from five units, the first of each unit in name
 * order: far more than the 88 hardware metrics of one pass. */
static void many_passes(void)
{
	CUpti_Profiler_Host_Object *host = NULL;
	size_t n = 0;
	const char **all = host_counters(&host, &n);
	CHECK(all != NULL, "the Host API lists the counters of " CHIP);
	if (!all)
		return;
	const char *units[] = { "dram__", "l1tex__", "lts__", "sm__", "smsp__" };
	static char buf[150][128];
	const char *names[150];
	unsigned k = 0;
	for (unsigned u = 0; u < 5 && k < 150; u++) {
		unsigned taken = 0, want = (150 - k) / (5 - u);
		for (size_t i = 0; i < n && taken < want; i++) {
			if (strncmp(all[i], units[u], strlen(units[u])))
				continue;
			snprintf(buf[k], sizeof buf[k], "%s.sum", all[i]);
			names[k] = buf[k];
			k++;
			taken++;
		}
	}
	CHECK_EQ(k, 150, "counters taken from dram, l1tex, lts, sm, smsp");
	size_t p = passes_of(names, k, "150 counters");
	CHECK(p > 1, "150 counters need several passes: %zu", p);
	host_free(host);
}

static void refused(const char *const *names, unsigned n, const char *want, const char *what)
{
	struct cupti_cb_mconfig c;
	char why[512] = "";
	int r = cupti_cb_mconfig_build(&c, &prof, CHIP, NULL, names, n, why, sizeof why);
	CHECK(r == -1, "%s is refused", what);
	CHECK(strstr(why, want) != NULL, "%s: the sentence says '%s': %s", what, want, why);
	CHECK(c.host == NULL && c.image == NULL && c.names == NULL, "%s: nothing is left allocated", what);
}

static void errors(void)
{
	const char *unknown[] = { "dram__bytes_read.sum", "no_such__metric.sum", "gpu__time_duration.sum" };
	refused(unknown, 3, "metric 'no_such__metric.sum'", "an unknown metric");
	const char *suffix[] = { "dram__bytes_read.bogus" };
	refused(suffix, 1, "metric 'dram__bytes_read.bogus'", "an unknown rollup");
	/* CUPTI evaluates full names only: the default rollup must be spelled. */
	const char *bare[] = { "dram__bytes_read" };
	refused(bare, 1, "metric 'dram__bytes_read'", "a base name without rollup");
	/* Valid alone, refused together (chip-to-chip with DRAM counters). */
	const char *pair[] = { "dram__bytes_read.sum", "gpu__time_duration.sum", "ctc__tx_bytes.sum" };
	refused(pair, 3, "metric 'ctc__tx_bytes.sum' together with 'dram__bytes_read.sum'",
		"two metrics CUPTI does not combine");
	const char *one[] = { "dram__bytes_read.sum" };
	struct cupti_cb_mconfig c;
	char why[512] = "";
	CHECK(cupti_cb_mconfig_build(&c, &prof, "XX999", NULL, one, 1, why, sizeof why) == -1 &&
		      strstr(why, "cuptiProfilerHostInitialize") && strstr(why, "XX999") &&
		      strstr(why, "CUPTI_ERROR_INVALID_CHIP_NAME"),
	      "an unknown chip: %s", why);
	CHECK(cupti_cb_mconfig_build(&c, &prof, CHIP, NULL, one, 0, why, sizeof why) == -1,
	      "an empty configuration is refused: %s", why);
	double v = 0;
	CHECK(cupti_cb_mconfig_evaluate(&c, NULL, 0, 0, &v, why, sizeof why) == -1,
	      "evaluating an unbuilt configuration is refused: %s", why);
	/* A counter-data image that is not one: CUPTI's refusal is reported. */
	if (cupti_cb_mconfig_build(&c, &prof, CHIP, NULL, one, 1, why, sizeof why) == 0) {
		static const uint8_t junk[256];
		CHECK(cupti_cb_mconfig_evaluate(&c, junk, sizeof junk, 0, &v, why, sizeof why) == -1 &&
			      strstr(why, "cuptiProfilerHostEvaluateToGpuValues") && strstr(why, "CUPTI_ERROR_"),
		      "evaluating junk counter data is refused: %s", why);
		cupti_cb_mconfig_free(&c);
	}
}

int main(void)
{
	if (load())
		return checks_done();
	single_pass();
	throughput_passes();
	many_passes();
	errors();
	return checks_done();
}
