/* cupti_cb_profiler_catalog.h: the hardware-metric catalogue of one chip, from the
 * Profiler Host API. Needs only a chip name ("GH100"), never a GPU.
 *
 * A metric event is a base metric (CUPTI's name, as Nsight Compute spells
 * it: "dram__bytes_read") and a variant: 0 for the type's default rollup,
 * or 1 + the index of one of the type's suffixes (".sum",
 * ".avg.pct_of_peak_sustained_elapsed", ...). Every metric of a type takes
 * the same suffixes, so a suffix table per type is enough: checked for
 * every metric of the 29 chips CUDA 13.0's Range Profiler accepts
 * (test_profiler_catalog; GV11B is listed by CUPTI but refused), and at build time on
 * the first, middle and last metric of each type.
 *
 * Defaults (variant 0): ".sum" for counters, ".pct" for ratios,
 * ".avg.pct_of_peak_sustained_elapsed" for throughputs.
 *
 * Names: some base metrics contain dots ("CTC.TriageCompute.ctc__rx_bytes",
 * "TriageCompute.tpc__average_cta_latency_realtime": 127 of 3,650 on GH100),
 * so parsing splits at the longest base name that matches. Every base name
 * and suffix is made of [A-Za-z0-9_.] only: none holds a character that
 * PAPI_EVENTS or TAU_METRICS split on (',', '|', '^', '=', ':', ' '), so no
 * second spelling is needed; the build refuses a chip where that changes. */
#ifndef CUPTI_CB_PROFILER_CATALOG_H
#define CUPTI_CB_PROFILER_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_profiler_api.h"

#define CUPTI_CB_PROFILER_CATALOG_TYPES 3		/* counter, ratio, throughput (CUpti_MetricType) */
#define CUPTI_CB_PROFILER_CATALOG_MAX_SUFFIXES 63	/* variant (1 + suffix index) fits the code's 6 bits (CUPTI_CB_VAR_MAX) */
#define CUPTI_CB_PROFILER_CATALOG_NAME_MAX 256	/* a full name, its NUL included (GH100: 129 at most) */

enum cupti_cb_profiler_catalog_err {
	CUPTI_CB_PROFILER_CATALOG_OK = 0,
	CUPTI_CB_PROFILER_CATALOG_ENOMETRIC = -1,	/* no such base metric on this chip */
	CUPTI_CB_PROFILER_CATALOG_ESUFFIX = -2,	/* a rollup or submetric the metric does not take */
	CUPTI_CB_PROFILER_CATALOG_EINVAL = -3,	/* malformed */
	CUPTI_CB_PROFILER_CATALOG_ECUPTI = -4,	/* the Host API refused; why says how */
	CUPTI_CB_PROFILER_CATALOG_ENOMEM = -5,
};

struct cupti_cb_metric {
	const char *name;		/* base name */
	uint8_t type;			/* CUpti_MetricType */
	uint8_t has_props;		/* descr and dim fetched */
	const char *descr;		/* lazily, in the properties arena */
	const char *dim;		/* CUPTI's unit of the base ("byte", "" for a pure ratio) */
};

struct cupti_cb_profiler_catalog_chunk;

struct cupti_cb_profiler_catalog {
	char chip[64];
	CUpti_ProfilerType profiler;	/* whose metrics: the Range Profiler's, or PM sampling's */
	const struct cupti_cb_profiler_api *p;
	CUpti_Profiler_Host_Object *host;	/* for properties, fetched lazily */
	unsigned n_metrics;
	struct cupti_cb_metric *metrics;	/* sorted by name: index = metric id */
	unsigned n_of_type[CUPTI_CB_PROFILER_CATALOG_TYPES];
	unsigned n_suffixes[CUPTI_CB_PROFILER_CATALOG_TYPES];
	const char **suffixes[CUPTI_CB_PROFILER_CATALOG_TYPES];	/* with the leading '.' */
	unsigned default_variant[CUPTI_CB_PROFILER_CATALOG_TYPES];	/* 1 + suffix index */
	char *strings;			/* one arena: metrics[], suffixes[] and every name */
	struct cupti_cb_profiler_catalog_chunk *props;	/* descriptions and units, as fetched */
};

/* Builds the catalogue of chip. On failure returns an error and one
 * sentence in why (an unknown chip names the supported ones). */
int cupti_cb_profiler_catalog_build(struct cupti_cb_profiler_catalog *m, const struct cupti_cb_profiler_api *p, const char *chip,
			char *why, size_t len);
/* The same for the metrics another CUPTI profiler collects: PM sampling
 * (CUPTI_PROFILER_TYPE_PM_SAMPLING) takes a subset of the Range Profiler's
 * (no sass metrics), counted device-wide. */
int cupti_cb_profiler_catalog_build_for(struct cupti_cb_profiler_catalog *m, const struct cupti_cb_profiler_api *p,
				      const char *chip, CUpti_ProfilerType profiler, char *why, size_t len);
void cupti_cb_profiler_catalog_free(struct cupti_cb_profiler_catalog *m);
/* The spelling of chip that libcupti knows, into out: chip itself, or the
 * one supported chip it names in another case ("gh100" -> "GH100").
 * Returns 1 when the case was changed, 0 otherwise (out = chip). */
int cupti_cb_profiler_catalog_chip_spelling(const struct cupti_cb_profiler_api *p, const char *chip, char *out,
					    size_t len);

/* "dram__bytes_read" / "dram__bytes_read.sum" / "...avg.pct_of_peak_sustained_elapsed"
 * (no qualifiers) -> metric id and variant. Returns OK; ENOMETRIC where no
 * base metric matches; ESUFFIX where the longest matching base does not
 * take what follows it; EINVAL for NULL, "", a name of
 * CUPTI_CB_PROFILER_CATALOG_NAME_MAX characters or more, a character outside
 * [A-Za-z0-9_.], or a leading, trailing or doubled '.'. */
int cupti_cb_profiler_catalog_parse(const struct cupti_cb_profiler_catalog *m, const char *name, uint32_t *metric,
			uint32_t *variant);
/* The name as listed: the base alone for variant 0. The functions below
 * return ENOMETRIC for a metric id out of range, ESUFFIX for a variant out
 * of range and EINVAL for a buffer too small. */
int cupti_cb_profiler_catalog_name(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, char *buf,
		       size_t len);
/* The name CUPTI evaluates: the default suffix made explicit. */
int cupti_cb_profiler_catalog_full_name(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant,
			    char *buf, size_t len);
/* Description (fetched from the Host API on first use, with the unit, and
 * kept) and units. The unit is CUPTI's unit of the base, adjusted for the
 * suffix: ".per_second" -> "<unit>/s", ".pct*" -> "%", ".per_cycle_*" and
 * ".peak_sustained" -> "<unit>/cycle" ("" where the unit is itself a
 * cycle), CUPTI's "percent" -> "%", otherwise the base's unit (".ratio" of
 * a hit rate: ""). CUPTI spells some products without a separator
 * ("gpc_cyclewarp" for warps times cycles); they are passed on as they
 * are. */
int cupti_cb_profiler_catalog_descr(struct cupti_cb_profiler_catalog *m, uint32_t metric, char *buf, size_t len);
int cupti_cb_profiler_catalog_units(struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant, char *buf,
			size_t len);
/* 1 where the value is an integer count (a counter's .sum), 0 where it is
 * a double (ratios, percentages, rates, averages). */
int cupti_cb_profiler_catalog_is_integer(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant);
/* 1 where values of consecutive ranges are summed: a counter's .sum, .avg,
 * .min or .max without a submetric. For .sum and .avg the sum is the value
 * of the joined range. For .max it is the sum of each range's largest
 * per-unit count, which is at least the joined range's (max(a+b) <=
 * max(a) + max(b)), and for .min the sum of each range's smallest, at most
 * the joined range's: equal when the same unit is the extreme in every
 * range, and always for one range. The weighted mean the other metrics get
 * would be below even the largest range's own .max. */
int cupti_cb_profiler_catalog_is_additive(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant);
/* 1 for a counter's .max, -1 for its .min (the largest or smallest unit's
 * count, which no sum over samples gives), 0 otherwise. */
int cupti_cb_profiler_catalog_extreme(const struct cupti_cb_profiler_catalog *m, uint32_t metric, uint32_t variant);

#endif
