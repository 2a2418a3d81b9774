/* cupti_cb_mcat.h: the hardware-metric catalogue of one chip, from the
 * Profiler Host API. Needs only a chip name ("GH100"), never a GPU.
 *
 * A metric event is a base metric (CUPTI's name, as Nsight Compute spells
 * it: "dram__bytes_read") and a variant: 0 for the type's default rollup,
 * or 1 + the index of one of the type's suffixes (".sum",
 * ".avg.pct_of_peak_sustained_elapsed", ...). Every metric of a type takes
 * the same suffixes, so a suffix table per type is enough. */
#ifndef CUPTI_CB_MCAT_H
#define CUPTI_CB_MCAT_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_profapi.h"

#define CUPTI_CB_MCAT_TYPES 3		/* counter, ratio, throughput (CUpti_MetricType) */
#define CUPTI_CB_MCAT_MAX_SUFFIXES 127	/* variant fits 7 bits */

enum cupti_cb_mcat_err {
	CUPTI_CB_MCAT_OK = 0,
	CUPTI_CB_MCAT_ENOMETRIC = -1,	/* no such base metric on this chip */
	CUPTI_CB_MCAT_ESUFFIX = -2,	/* a rollup or submetric the metric does not take */
	CUPTI_CB_MCAT_EINVAL = -3,	/* malformed */
	CUPTI_CB_MCAT_ECUPTI = -4,	/* the Host API refused; why says how */
	CUPTI_CB_MCAT_ENOMEM = -5,
};

struct cupti_cb_metric {
	const char *name;		/* base name */
	uint8_t type;			/* CUpti_MetricType */
};

struct cupti_cb_mcat {
	char chip[64];
	const struct cupti_cb_profapi *p;
	CUpti_Profiler_Host_Object *host;	/* for properties, fetched lazily */
	unsigned n_metrics;
	struct cupti_cb_metric *metrics;	/* sorted by name: index = metric id */
	unsigned n_of_type[CUPTI_CB_MCAT_TYPES];
	unsigned n_suffixes[CUPTI_CB_MCAT_TYPES];
	const char **suffixes[CUPTI_CB_MCAT_TYPES];	/* with the leading '.' */
	unsigned default_variant[CUPTI_CB_MCAT_TYPES];	/* 1 + suffix index */
	char *strings;
};

/* Builds the catalogue of chip. On failure returns an error and one
 * sentence in why (an unknown chip names the supported ones). */
int cupti_cb_mcat_build(struct cupti_cb_mcat *m, const struct cupti_cb_profapi *p, const char *chip,
			char *why, size_t len);
void cupti_cb_mcat_free(struct cupti_cb_mcat *m);

/* "dram__bytes_read" / "dram__bytes_read.sum" / "...avg.pct_of_peak_sustained_elapsed"
 * (no qualifiers) -> metric id and variant. */
int cupti_cb_mcat_parse(const struct cupti_cb_mcat *m, const char *name, uint32_t *metric,
			uint32_t *variant);
/* The name as listed: the base alone for variant 0. */
int cupti_cb_mcat_name(const struct cupti_cb_mcat *m, uint32_t metric, uint32_t variant, char *buf,
		       size_t len);
/* The name CUPTI evaluates: the default suffix made explicit. */
int cupti_cb_mcat_full_name(const struct cupti_cb_mcat *m, uint32_t metric, uint32_t variant,
			    char *buf, size_t len);
/* Description (fetched from the Host API on first use) and units. */
int cupti_cb_mcat_descr(struct cupti_cb_mcat *m, uint32_t metric, char *buf, size_t len);
int cupti_cb_mcat_units(struct cupti_cb_mcat *m, uint32_t metric, uint32_t variant, char *buf,
			size_t len);
/* 1 where the value is an integer count (a counter's .sum), 0 where it is
 * a double (ratios, percentages, rates, averages). */
int cupti_cb_mcat_is_integer(const struct cupti_cb_mcat *m, uint32_t metric, uint32_t variant);
/* 1 where values of consecutive ranges add up to the value of the joined
 * range (a counter's .sum/.avg/.min/.max without a submetric). */
int cupti_cb_mcat_is_additive(const struct cupti_cb_mcat *m, uint32_t metric, uint32_t variant);

#endif
