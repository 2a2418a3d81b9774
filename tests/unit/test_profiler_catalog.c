/* test_profiler_catalog.c: the hardware-metric catalogue and configuration of GH100,
 * from the real libcupti's Profiler Host API (no GPU). A libcupti without
 * that API fails the test: CI has CUDA 13. */
#include <stdlib.h>
#include <time.h>

#include <dlfcn.h>

#include "check.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_config.h"

#define CHIP "GH100"

static struct cupti_cb_api api;
static struct cupti_cb_profiler_api prof;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int load(void)
{
	char why[512];
	if (cupti_cb_load_cupti(&api, why, sizeof why) || cupti_cb_profiler_api_load(&prof, api.cupti_lib, why, sizeof why)) {
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
	struct cupti_cb_profiler_config c;
	char why[512] = "";
	double t0 = now_ms();
	int r = cupti_cb_profiler_config_build(&c, &prof, CHIP, NULL, names, n, why, sizeof why);
	double ms = now_ms() - t0;
	CHECK(r == 0, "%s: configuration of %u metrics builds (%.1f ms) %s", what, n, ms, r ? why : "");
	if (r)
		return 0;
	CHECK(c.image && c.image_size > 0, "%s: config image of %zu bytes", what, c.image_size);
	CHECK(c.n == n && !strcmp(c.names[n - 1], names[n - 1]) && c.names[n - 1] != names[n - 1],
	      "%s: the names are owned copies", what);
	size_t passes = c.passes;
	printf("# %s: %u metrics, %zu passes, %.1f ms\n", what, n, passes, ms);
	cupti_cb_profiler_config_free(&c);
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
	struct cupti_cb_profiler_config c;
	char why[512] = "";
	int r = cupti_cb_profiler_config_build(&c, &prof, CHIP, NULL, names, n, why, sizeof why);
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
	struct cupti_cb_profiler_config c;
	char why[512] = "";
	int r = cupti_cb_profiler_config_build(&c, &prof, "XX999", NULL, one, 1, why, sizeof why);
	CHECK(r == -1 && strstr(why, "cuptiProfilerHostInitialize") && strstr(why, "XX999") &&
		      strstr(why, "CUPTI_ERROR_INVALID_CHIP_NAME"),
	      "an unknown chip: %s", why);
	r = cupti_cb_profiler_config_build(&c, &prof, CHIP, NULL, one, 0, why, sizeof why);
	CHECK(r == -1,
	      "an empty configuration is refused: %s", why);
	double v = 0;
	r = cupti_cb_profiler_config_evaluate(&c, NULL, 0, 0, &v, why, sizeof why);
	CHECK(r == -1,
	      "evaluating an unbuilt configuration is refused: %s", why);
	/* A counter-data image that is not one: CUPTI's refusal is reported. */
	if (cupti_cb_profiler_config_build(&c, &prof, CHIP, NULL, one, 1, why, sizeof why) == 0) {
		static const uint8_t junk[256];
		r = cupti_cb_profiler_config_evaluate(&c, junk, sizeof junk, 0, &v, why, sizeof why);
		CHECK(r == -1 &&
			      strstr(why, "cuptiProfilerHostEvaluateToGpuValues") && strstr(why, "CUPTI_ERROR_"),
		      "evaluating junk counter data is refused: %s", why);
		cupti_cb_profiler_config_free(&c);
	}
}

/* ---- catalogue ----------------------------------------------------------- */

static struct cupti_cb_profiler_catalog cat;

/* Build time and what it holds. The first Host API object of the process
 * is the cold one (libnvperf_host loaded and its tables read). */
static int build(void)
{
	char why[512] = "";
	double t0 = now_ms();
	int r = cupti_cb_profiler_catalog_build(&cat, &prof, CHIP, why, sizeof why);
	double cold = now_ms() - t0;
	CHECK(r == CUPTI_CB_PROFILER_CATALOG_OK, "the catalogue of " CHIP " builds (cold: %.1f ms) %s", cold, why);
	if (r)
		return -1;
	struct cupti_cb_profiler_catalog again;
	t0 = now_ms();
	r = cupti_cb_profiler_catalog_build(&again, &prof, CHIP, why, sizeof why);
	double warm = now_ms() - t0;
	CHECK(r == CUPTI_CB_PROFILER_CATALOG_OK, "built again (warm: %.1f ms)", warm);
	cupti_cb_profiler_catalog_free(&again);
	CHECK(again.strings == NULL && again.host == NULL && again.metrics == NULL, "free clears the catalogue");
	printf("# catalogue of " CHIP ": cold %.1f ms, warm %.1f ms\n", cold, warm);
	CHECK(cold < 1000, "cold build under 1 s: %.1f ms", cold);
	CHECK_STR(cat.chip, CHIP, "chip");
	CHECK_EQ(cat.n_of_type[0], 3389, "counters");
	CHECK_EQ(cat.n_of_type[1], 205, "ratios");
	CHECK_EQ(cat.n_of_type[2], 56, "throughputs");
	CHECK_EQ(cat.n_metrics, 3389 + 205 + 56, "metrics");
	CHECK_EQ(cat.n_suffixes[0], 44, "counter suffixes");
	CHECK_EQ(cat.n_suffixes[1], 3, "ratio suffixes");
	CHECK_EQ(cat.n_suffixes[2], 8, "throughput suffixes");
	CHECK_STR(cat.suffixes[0][cat.default_variant[0] - 1], ".sum", "counter default");
	CHECK_STR(cat.suffixes[1][cat.default_variant[1] - 1], ".pct", "ratio default");
	CHECK_STR(cat.suffixes[2][cat.default_variant[2] - 1], ".avg.pct_of_peak_sustained_elapsed",
		  "throughput default");
	return 0;
}

/* Sorted, unique, types counted right. */
static void sorted(void)
{
	unsigned bad = 0, of_type[CUPTI_CB_PROFILER_CATALOG_TYPES] = { 0 };
	for (unsigned i = 0; i < cat.n_metrics; i++) {
		if (i && strcmp(cat.metrics[i - 1].name, cat.metrics[i].name) >= 0)
			bad++;
		if (cat.metrics[i].type < CUPTI_CB_PROFILER_CATALOG_TYPES)
			of_type[cat.metrics[i].type]++;
	}
	CHECK_EQ(bad, 0, "metrics out of strict name order");
	CHECK(of_type[0] == cat.n_of_type[0] && of_type[1] == cat.n_of_type[1] && of_type[2] == cat.n_of_type[2],
	      "types of the metrics agree with the counts: %u %u %u", of_type[0], of_type[1], of_type[2]);
}

/* Every name and unit of the catalogue, as a listing does: must not cost a
 * configuration (a pass count) per metric, which would take about 3 ms
 * each, 10 s for the bases alone. */
static void listing(void)
{
	char name[CUPTI_CB_PROFILER_CATALOG_NAME_MAX], units[128];
	unsigned long names = 0, failed = 0;
	double t0 = now_ms();
	for (uint32_t i = 0; i < cat.n_metrics; i++)
		for (uint32_t v = 0; v <= cat.n_suffixes[cat.metrics[i].type]; v++, names++)
			if (cupti_cb_profiler_catalog_name(&cat, i, v, name, sizeof name) ||
			    cupti_cb_profiler_catalog_units(&cat, i, v, units, sizeof units))
				failed++;
	double ms = now_ms() - t0;
	printf("# listing %lu names with units: %.1f ms\n", names, ms);
	CHECK_EQ(names - cat.n_metrics, 150179, "(metric, suffix) pairs");
	CHECK_EQ(failed, 0, "names or units that failed");
	CHECK(ms < 3000, "every name and unit listed in %.1f ms (under 1 s expected; 3 s allowed)", ms);
}

static int forbidden(const char *s)
{
	for (; *s; s++)
		if (strchr(",|^=: \t", *s) || *s < 0x21 || *s > 0x7e)
			return 1;
	return 0;
}

/* parse(name(m, v)) == (m, v) for every event; full names parse to the
 * default variant; no name holds what PAPI_EVENTS or TAU_METRICS split on. */
static void round_trips(void)
{
	char name[CUPTI_CB_PROFILER_CATALOG_NAME_MAX], full[CUPTI_CB_PROFILER_CATALOG_NAME_MAX];
	unsigned long bad = 0, unsafe = 0, dotted = 0;
	for (uint32_t i = 0; i < cat.n_metrics; i++) {
		int t = cat.metrics[i].type;
		dotted += strchr(cat.metrics[i].name, '.') != NULL;
		for (uint32_t v = 0; v <= cat.n_suffixes[t]; v++) {
			uint32_t pm = ~0u, pv = ~0u, fm = ~0u, fv = ~0u;
			cupti_cb_profiler_catalog_name(&cat, i, v, name, sizeof name);
			cupti_cb_profiler_catalog_full_name(&cat, i, v, full, sizeof full);
			unsafe += forbidden(name);
			if (cupti_cb_profiler_catalog_parse(&cat, name, &pm, &pv) || pm != i || pv != v ||
			    cupti_cb_profiler_catalog_parse(&cat, full, &fm, &fv) || fm != i ||
			    fv != (v ? v : cat.default_variant[t])) {
				if (bad++ < 5)
					printf("# '%s' (%u, %u) parses to (%u, %u), '%s' to (%u, %u)\n", name, i, v,
					       pm, pv, full, fm, fv);
			}
		}
	}
	CHECK_EQ(bad, 0, "names that do not parse back to their event");
	CHECK_EQ(unsafe, 0, "names with characters PAPI_EVENTS or TAU_METRICS split on");
	CHECK_EQ(dotted, 127, "base names holding a dot");
}

/* The suffix table of a type holds for every metric of it. */
static void uniform(const struct cupti_cb_profiler_catalog *m, unsigned *odd)
{
	for (uint32_t i = 0; i < m->n_metrics; i++) {
		int t = m->metrics[i].type;
		CUpti_Profiler_Host_GetSubMetrics_Params sp = {
			.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE
		};
		sp.pHostObject = m->host;
		sp.metricType = (CUpti_MetricType)t;
		sp.pMetricName = m->metrics[i].name;
		int same = prof.cuptiProfilerHostGetSubMetrics(&sp) == CUPTI_SUCCESS &&
			   sp.numOfSubmetrics == m->n_suffixes[t];
		for (size_t k = 0; same && k < sp.numOfSubmetrics; k++)
			same = !strcmp(sp.ppSubMetrics[k], m->suffixes[t][k]);
		if (!same && (*odd)++ < 5)
			printf("# %s: '%s' takes other suffixes than its type\n", m->chip, m->metrics[i].name);
	}
}

/* Every chip this libcupti supports builds, with one suffix list per type
 * holding for every metric; but GV11B (Volta, Tegra), which CUPTI lists
 * and its Range Profiler refuses. */
static void every_chip(void)
{
	CUpti_Profiler_Host_GetSupportedChips_Params sp = {
		.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE
	};
	CUptiResult cr = prof.cuptiProfilerHostGetSupportedChips(&sp);
	CHECK(cr == CUPTI_SUCCESS && sp.numChips >= 20,
	      "CUPTI lists %zu supported chips", sp.numChips);
	unsigned built = 0, odd = 0, gv11b = 0;
	unsigned long metrics = 0;
	double t0 = now_ms();
	for (size_t c = 0; c < sp.numChips; c++) {
		struct cupti_cb_profiler_catalog m;
		char why[512] = "";
		if (cupti_cb_profiler_catalog_build(&m, &prof, sp.ppChipNames[c], why, sizeof why)) {
			printf("# %s\n", why);
			gv11b += !strcmp(sp.ppChipNames[c], "GV11B") && strstr(why, "CUPTI_ERROR_NOT_SUPPORTED") &&
				 !strstr(why, "GH100");
			continue;
		}
		built++;
		metrics += m.n_metrics;
		uniform(&m, &odd);
		cupti_cb_profiler_catalog_free(&m);
	}
	printf("# %u chips, %lu metrics checked in %.0f ms\n", built, metrics, now_ms() - t0);
	CHECK_EQ(built, sp.numChips - 1, "supported chips whose catalogue builds");
	CHECK_EQ(gv11b, 1, "GV11B refused as not supported, without the list of chips");
	CHECK_EQ(odd, 0, "metrics whose suffixes differ from their type's");
}

static void parses_to(const char *name, const char *base, const char *suffix, int type)
{
	uint32_t m = ~0u, v = ~0u;
	int r = cupti_cb_profiler_catalog_parse(&cat, name, &m, &v);
	const char *got = r == 0 && m < cat.n_metrics ? cat.metrics[m].name : "(error)";
	int t = r == 0 && m < cat.n_metrics ? cat.metrics[m].type : -1;
	const char *s = r || t < 0 ? "(error)" : v ? cat.suffixes[t][v - 1] : "";
	CHECK(r == 0 && !strcmp(got, base) && !strcmp(s, suffix) && t == type,
	      "'%s' parses to '%s' + '%s' (type %d): r=%d '%s' + '%s' (type %d)", name, base, suffix, type, r,
	      got, s, t);
}

static void parse_error(const char *name, int want, const char *what)
{
	uint32_t m = 7, v = 7;
	int r = cupti_cb_profiler_catalog_parse(&cat, name, &m, &v);
	CHECK(r == want && m == 7 && v == 7, "%s '%s': got %d, want %d; outputs untouched", what,
	      name ? name : "(null)", r, want);
}

static void parsing(void)
{
	parses_to("dram__bytes_read", "dram__bytes_read", "", 0);
	parses_to("dram__bytes_read.sum", "dram__bytes_read", ".sum", 0);
	parses_to("dram__bytes_read.max.pct_of_peak_sustained_active", "dram__bytes_read",
		  ".max.pct_of_peak_sustained_active", 0);
	parses_to("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput",
		  ".avg.pct_of_peak_sustained_elapsed", 2);
	parses_to("l1tex__t_sector_hit_rate.pct", "l1tex__t_sector_hit_rate", ".pct", 1);
	parses_to("l1tex__t_sector_hit_rate", "l1tex__t_sector_hit_rate", "", 1);
	/* Base names with dots: split at the longest base. */
	parses_to("CTC.TriageCompute.ctc__rx_bytes.sum", "CTC.TriageCompute.ctc__rx_bytes", ".sum", 0);
	parses_to("CTC.TriageCompute.ctc__rx_bytes", "CTC.TriageCompute.ctc__rx_bytes", "", 0);
	parses_to("TriageCompute.tpc__average_cta_latency_realtime.ratio",
		  "TriageCompute.tpc__average_cta_latency_realtime", ".ratio", 1);

	parse_error("no_such__metric", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "unknown base");
	parse_error("no_such__metric.sum", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "unknown base with a rollup");
	parse_error("dram__bytes_rea", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "a prefix of a base");
	parse_error("dram__bytes_read_x.sum", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "a longer base");
	parse_error("CTC.TriageCompute", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "the dotted prefix of bases");
	parse_error("CTC.TriageCompute.sum", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "the dotted prefix with a rollup");
	parse_error("DRAM__bytes_read", CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "case matters");
	parse_error("dram__bytes_read.pct", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "a counter with a ratio's suffix");
	parse_error("dram__bytes_read.Sum", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "a rollup in the wrong case");
	parse_error("dram__bytes_read.sum.bogus", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "an unknown submetric");
	parse_error("dram__bytes_read.sum.pct_of_peak_sustained_elapsed.sum", CUPTI_CB_PROFILER_CATALOG_ESUFFIX,
		    "a suffix after a complete one");
	parse_error("dram__bytes_read.pct_of_peak_sustained_elapsed", CUPTI_CB_PROFILER_CATALOG_ESUFFIX,
		    "a submetric without rollup");
	parse_error("l1tex__t_sector_hit_rate.sum", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "a ratio with a rollup");
	parse_error("sm__throughput.sum", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "a throughput with a bare rollup");
	parse_error("sm__throughput.avg.per_second", CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "a throughput with a counter's rate");
	parse_error(NULL, CUPTI_CB_PROFILER_CATALOG_EINVAL, "no name");
	parse_error("", CUPTI_CB_PROFILER_CATALOG_EINVAL, "empty");
	parse_error("dram__bytes_read.", CUPTI_CB_PROFILER_CATALOG_EINVAL, "trailing dot");
	parse_error(".dram__bytes_read", CUPTI_CB_PROFILER_CATALOG_EINVAL, "leading dot");
	parse_error("dram__bytes_read..sum", CUPTI_CB_PROFILER_CATALOG_EINVAL, "doubled dot");
	parse_error("dram__bytes_read,sum", CUPTI_CB_PROFILER_CATALOG_EINVAL, "a comma");
	parse_error("dram__bytes_read:device=0", CUPTI_CB_PROFILER_CATALOG_EINVAL, "a qualifier");
	parse_error("dram__bytes_read.sum ", CUPTI_CB_PROFILER_CATALOG_EINVAL, "a trailing space");
	parse_error("dram-bytes", CUPTI_CB_PROFILER_CATALOG_EINVAL, "a dash");
	char longname[CUPTI_CB_PROFILER_CATALOG_NAME_MAX + 8];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	parse_error(longname, CUPTI_CB_PROFILER_CATALOG_EINVAL, "too long");
	longname[CUPTI_CB_PROFILER_CATALOG_NAME_MAX - 1] = 0;
	parse_error(longname, CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "the longest allowed, unknown");
}

static uint32_t id_of(const char *name, uint32_t *variant)
{
	uint32_t m = ~0u;
	*variant = ~0u;
	cupti_cb_profiler_catalog_parse(&cat, name, &m, variant);
	return m;
}

static void naming(void)
{
	char buf[CUPTI_CB_PROFILER_CATALOG_NAME_MAX];
	uint32_t v, m = id_of("dram__bytes_read", &v);
	int r = cupti_cb_profiler_catalog_name(&cat, m, 0, buf, sizeof buf);
	CHECK(r == 0 && !strcmp(buf, "dram__bytes_read"),
	      "variant 0 is listed as the base: %s", buf);
	r = cupti_cb_profiler_catalog_full_name(&cat, m, 0, buf, sizeof buf);
	CHECK(r == 0 && !strcmp(buf, "dram__bytes_read.sum"),
	      "variant 0 of a counter evaluates as .sum: %s", buf);
	m = id_of("sm__throughput", &v);
	r = cupti_cb_profiler_catalog_full_name(&cat, m, 0, buf, sizeof buf);
	CHECK(r == 0 &&
		      !strcmp(buf, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
	      "variant 0 of a throughput: %s", buf);
	m = id_of("l1tex__t_sector_hit_rate", &v);
	r = cupti_cb_profiler_catalog_full_name(&cat, m, 0, buf, sizeof buf);
	CHECK(r == 0 &&
		      !strcmp(buf, "l1tex__t_sector_hit_rate.pct"),
	      "variant 0 of a ratio: %s", buf);
	CHECK_EQ(cupti_cb_profiler_catalog_name(&cat, cat.n_metrics, 0, buf, sizeof buf), CUPTI_CB_PROFILER_CATALOG_ENOMETRIC,
		 "name of a metric id out of range");
	CHECK_EQ(cupti_cb_profiler_catalog_name(&cat, m, 4, buf, sizeof buf), CUPTI_CB_PROFILER_CATALOG_ESUFFIX,
		 "name of variant 4 of a ratio (3 suffixes)");
	size_t need = strlen("l1tex__t_sector_hit_rate.pct") + 1;
	CHECK_EQ(cupti_cb_profiler_catalog_full_name(&cat, m, 0, buf, need - 1), CUPTI_CB_PROFILER_CATALOG_EINVAL,
		 "a buffer one byte short");
	CHECK_EQ(cupti_cb_profiler_catalog_full_name(&cat, m, 0, buf, need), CUPTI_CB_PROFILER_CATALOG_OK, "a buffer just long enough");
	CHECK_EQ(cupti_cb_profiler_catalog_units(&cat, cat.n_metrics, 0, buf, sizeof buf), CUPTI_CB_PROFILER_CATALOG_ENOMETRIC,
		 "units of a metric id out of range");
	CHECK_EQ(cupti_cb_profiler_catalog_is_integer(&cat, m, 99), CUPTI_CB_PROFILER_CATALOG_ESUFFIX, "is_integer of a bad variant");
}

static void units_are(const char *name, const char *want)
{
	uint32_t v, m = id_of(name, &v);
	char buf[128] = "(error)";
	int r = cupti_cb_profiler_catalog_units(&cat, m, v, buf, sizeof buf);
	CHECK(r == 0 && !strcmp(buf, want), "units of %s: got '%s' (r=%d), want '%s'", name, buf, r, want);
}

static void flags_are(const char *name, int integer, int additive)
{
	uint32_t v, m = id_of(name, &v);
	int i = cupti_cb_profiler_catalog_is_integer(&cat, m, v), a = cupti_cb_profiler_catalog_is_additive(&cat, m, v);
	CHECK(i == integer && a == additive, "%s: is_integer %d (want %d), is_additive %d (want %d)", name, i,
	      integer, a, additive);
}

static void properties(void)
{
	units_are("dram__bytes_read", "byte");
	units_are("dram__bytes_read.sum", "byte");
	units_are("dram__bytes_read.max", "byte");
	units_are("dram__bytes_read.sum.per_second", "byte/s");
	units_are("dram__bytes_read.sum.peak_sustained_elapsed.per_second", "byte/s");
	units_are("dram__bytes_read.sum.per_cycle_elapsed", "byte/cycle");
	units_are("dram__bytes_read.avg.peak_sustained", "byte/cycle");
	units_are("dram__bytes_read.sum.peak_sustained_active", "byte");
	units_are("dram__bytes_read.avg.pct_of_peak_sustained_elapsed", "%");
	units_are("smsp__inst_executed.sum.per_cycle_active", "instruction/cycle");
	units_are("sm__cycles_elapsed.avg.per_cycle_active", "");
	units_are("sm__cycles_elapsed.max", "gpc_cycle");
	units_are("gpu__time_duration", "nanosecond");
	units_are("sm__throughput", "%");
	units_are("sm__throughput.max.pct_of_peak_sustained_active", "%");
	units_are("l1tex__t_sector_hit_rate", "%");
	units_are("l1tex__t_sector_hit_rate.ratio", "");
	units_are("l1tex__average_t_sectors_per_request.ratio", "l2_sector/l1tex_request");
	units_are("l1tex__average_t_sectors_per_request.max_rate", "l2_sector/l1tex_request");

	flags_are("dram__bytes_read", 1, 1);
	flags_are("dram__bytes_read.sum", 1, 1);
	flags_are("dram__bytes_read.avg", 0, 1);
	/* .min/.max of pieces are summed (a bound of the joined range's, see
	 * cupti_cb_profiler_catalog_is_additive): a weighted mean of 10 and 30 would be
	 * 20, below the larger piece's own maximum. */
	flags_are("dram__bytes_read.max", 0, 1);
	flags_are("dram__bytes_read.min", 0, 1);
	flags_are("dram__bytes_read.max.per_second", 0, 0);
	flags_are("dram__bytes_read.sum.per_second", 0, 0);
	flags_are("dram__bytes_read.sum.peak_sustained", 0, 0);
	flags_are("gpu__time_duration.sum", 1, 1);
	flags_are("l1tex__t_sector_hit_rate", 0, 0);
	flags_are("l1tex__t_sector_hit_rate.ratio", 0, 0);
	flags_are("sm__throughput", 0, 0);

	uint32_t v, m = id_of("dram__bytes_read", &v);
	char buf[256] = "", small[8];
	int r = cupti_cb_profiler_catalog_descr(&cat, m, buf, sizeof buf);
	CHECK(r == 0 && !strcmp(buf, "# of bytes read from DRAM"),
	      "description of dram__bytes_read: %s", buf);
	const char *kept = cat.metrics[m].descr;
	r = cupti_cb_profiler_catalog_descr(&cat, m, buf, sizeof buf);
	CHECK(r == 0 && cat.metrics[m].descr == kept,
	      "the description is fetched once and kept");
	CHECK_EQ(cupti_cb_profiler_catalog_descr(&cat, m, small, sizeof small), CUPTI_CB_PROFILER_CATALOG_EINVAL,
		 "a description longer than the buffer");
	m = id_of("CTC.TriageCompute.ctc__rx_bytes", &v);
	r = cupti_cb_profiler_catalog_descr(&cat, m, buf, sizeof buf);
	CHECK(r == 0 && buf[0],
	      "a dotted base has a description: %s", buf);
}

static void unknown_chip(void)
{
	struct cupti_cb_profiler_catalog m;
	char why[1024] = "";
	int r = cupti_cb_profiler_catalog_build(&m, &prof, "XX999", why, sizeof why);
	CHECK(r == CUPTI_CB_PROFILER_CATALOG_ECUPTI && strstr(why, "'XX999'") && strstr(why, "GH100") && strstr(why, "GA100") &&
		      strstr(why, "CUPTI_ERROR_INVALID_CHIP_NAME"),
	      "an unknown chip names the supported ones: %s", why);
	CHECK(m.host == NULL && m.strings == NULL, "nothing is left of a failed build");
	r = cupti_cb_profiler_catalog_build(&m, &prof, "", why, sizeof why);
	CHECK_EQ(r, CUPTI_CB_PROFILER_CATALOG_EINVAL, "an empty chip name");
}

/* What the catalogue spells for CUPTI configures: the defaults of the
 * three types and a dotted base. */
static void full_names_configure(void)
{
	const char *bases[] = { "dram__bytes_read", "l1tex__t_sector_hit_rate", "sm__throughput",
				"CTC.TriageCompute.ctc__rx_bytes" };
	for (unsigned i = 0; i < 4; i++) {
		char full[CUPTI_CB_PROFILER_CATALOG_NAME_MAX];
		uint32_t v, m = id_of(bases[i], &v);
		cupti_cb_profiler_catalog_full_name(&cat, m, v, full, sizeof full);
		const char *names[] = { full };
		size_t passes = passes_of(names, 1, full);
		CHECK(passes >= 1, "the full name of %s configures", bases[i]);
	}
}

/* The metrics PM sampling collects on the chip (CUPTI lists 1,279 base
 * metrics on GH100, 611 of them counters), none of the sass ones. They are
 * not a subset of the Range Profiler's: 658 are in both (of the same
 * type), 621 only here (the clock domains' cycles such as
 * dramc__cycles_elapsed, throughputs such as dram__read_throughput). */
static void pm_sampling(void)
{
	char why[512] = "";
	struct cupti_cb_profiler_catalog pm;
	int r = cupti_cb_profiler_catalog_build_for(&pm, &prof, CHIP, CUPTI_PROFILER_TYPE_PM_SAMPLING, why, sizeof why);
	CHECK(r == CUPTI_CB_PROFILER_CATALOG_OK, "the PM sampling catalogue of " CHIP " builds %s", why);
	if (r)
		return;
	CHECK_EQ(pm.n_metrics, 1279, "PM sampling: base metrics");
	CHECK_EQ(pm.n_of_type[0], 611, "PM sampling: counters");
	unsigned sass = 0, missing = 0, other_type = 0;
	for (unsigned i = 0; i < pm.n_metrics; i++) {
		uint32_t id, variant;
		sass += strstr(pm.metrics[i].name, "sass") != NULL;
		if (cupti_cb_profiler_catalog_parse(&cat, pm.metrics[i].name, &id, &variant) != CUPTI_CB_PROFILER_CATALOG_OK)
			missing++;
		else if (cat.metrics[id].type != pm.metrics[i].type)
			other_type++;
	}
	CHECK_EQ(sass, 0, "PM sampling: no sass metric");
	CHECK_EQ(pm.n_metrics - missing, 658, "PM sampling: metrics the Range Profiler has too");
	CHECK_EQ(other_type, 0, "PM sampling: of the same type there");
	uint32_t id, variant;
	CHECK_EQ(cupti_cb_profiler_catalog_parse(&pm, "dram__read_throughput.avg.pct_of_peak_sustained_elapsed", &id,
					       &variant), CUPTI_CB_PROFILER_CATALOG_OK,
		 "PM sampling: dram__read_throughput, which the Range Profiler lacks");
	CHECK_EQ(cupti_cb_profiler_catalog_parse(&cat, "dram__read_throughput", &id, &variant),
		 CUPTI_CB_PROFILER_CATALOG_ENOMETRIC, "Range Profiler: no dram__read_throughput");
	CHECK_EQ(cupti_cb_profiler_catalog_parse(&pm, "dram__bytes_read.sum", &id, &variant), CUPTI_CB_PROFILER_CATALOG_OK,
		 "PM sampling: dram__bytes_read.sum");
	cupti_cb_profiler_catalog_free(&pm);

	/* Its entry points: every one in this libcupti; none in a library without them. */
	struct cupti_cb_pm_sampling_api pa;
	CHECK_EQ(cupti_cb_pm_sampling_api_load(&pa, api.cupti_lib, why, sizeof why), 0, "PM sampling: entry points");
	CHECK(pa.cuptiPmSamplingDecodeData && pa.cuptiPmSamplingCounterDataGetSampleInfo, "PM sampling: resolved");
	void *self = dlopen(NULL, RTLD_NOW);
	CHECK_EQ(cupti_cb_pm_sampling_api_load(&pa, self, why, sizeof why), -1, "PM sampling: none in this program");
	CHECK(strstr(why, "no cuptiPmSamplingSetConfig") && !pa.cuptiPmSamplingEnable, "and it says which: %s", why);
	dlclose(self);
}

int main(void)
{
	if (load() || build())
		return checks_done();
	sorted();
	listing();
	round_trips();
	parsing();
	naming();
	properties();
	unknown_chip();
	full_names_configure();
	single_pass();
	throughput_passes();
	many_passes();
	errors();
	every_chip();
	pm_sampling();
	cupti_cb_profiler_catalog_free(&cat);
	return checks_done();
}
