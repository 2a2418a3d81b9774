/* cupti_cb_profiler_config.h: a configuration for a list of full metric names on
 * one chip, for the Range Profiler or PM sampling: the Host API object, the
 * config image, the pass count, and the evaluation of a counter-data image
 * (a range's or a sample's). Host-side only: no GPU needed. Shared by the
 * two sources of hardware metrics. */
#ifndef CUPTI_CB_PROFILER_CONFIG_H
#define CUPTI_CB_PROFILER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_profiler_api.h"

struct cupti_cb_profiler_config {
	const struct cupti_cb_profiler_api *p;
	CUpti_ProfilerType type;	/* the Range Profiler's or PM sampling's */
	CUpti_Profiler_Host_Object *host;
	unsigned n;
	const char **names;		/* copies, owned */
	uint8_t *image;			/* config image */
	size_t image_size;
	size_t passes;
};

/* Builds the configuration of names[0..n) for chip; counter_availability
 * may be NULL (host-only: every counter assumed available). Returns 0, or
 * -1 with one sentence in why. A configuration that needs several passes
 * is built all the same: the caller decides.
 *
 * Names are full names: CUPTI refuses a base name without its rollup
 * ("dram__bytes_read"; cupti_cb_profiler_catalog_full_name spells the default). All
 * names go to CUPTI in one call, because CUPTI schedules each call apart
 * (one by one, dram__bytes_read.sum and dram__bytes_write.sum take 2 passes
 * on GH100 instead of 1). Metrics valid alone can be refused together
 * (ctc__tx_bytes.sum with dram__bytes_read.sum on GH100): the sentence
 * then names both. CUPTI's errors are spelled through
 * cupti_cb_profiler_api_error. */
int cupti_cb_profiler_config_build(struct cupti_cb_profiler_config *c, const struct cupti_cb_profiler_api *p, const char *chip,
			   const uint8_t *counter_availability, const char *const *names, unsigned n,
			   char *why, size_t len);
/* The same for a profiler type: CUPTI_PROFILER_TYPE_PM_SAMPLING builds the
 * config image of cuptiPmSamplingSetConfig, whose metrics must fit one
 * pass (the caller checks passes). */
int cupti_cb_profiler_config_build_for(struct cupti_cb_profiler_config *c, const struct cupti_cb_profiler_api *p,
				       CUpti_ProfilerType type, const char *chip, const uint8_t *counter_availability,
				       const char *const *names, unsigned n, char *why, size_t len);
void cupti_cb_profiler_config_free(struct cupti_cb_profiler_config *c);

/* Values of every configured metric for one range of a decoded counter-data
 * image, into values[0..c->n) in the order of c->names. Returns 0, or -1
 * with a sentence. */
int cupti_cb_profiler_config_evaluate(const struct cupti_cb_profiler_config *c, const uint8_t *counter_data, size_t size,
			      size_t range, double *values, char *why, size_t len);

#endif
