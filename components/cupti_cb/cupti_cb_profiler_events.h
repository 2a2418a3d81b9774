/* cupti_cb_profiler_events.h: a hardware-metric catalogue
 * (cupti_cb_profiler_catalog.h) as a source's events: codes, listing,
 * lookup, names, descriptions and facts. The two sources of hardware
 * metrics (the Range Profiler's and PM sampling's) list their catalogues
 * through it, each with its own source bits and catalogue.
 *
 * A code holds the metric's index and its variant (1 + the suffix index,
 * 0: the type's default rollup); the device qualifier is the core's. The
 * listing shows each base metric once, its rollups in its description. */
#ifndef CUPTI_CB_PROFILER_EVENTS_H
#define CUPTI_CB_PROFILER_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_source.h"

struct cupti_cb_profiler_events {
	struct cupti_cb_profiler_catalog *cat;	/* NULL until built */
	unsigned id;				/* the source bits of the codes */
};

/* Whether base could be a CUPTI metric name from its form alone:
 * "<unit>__<name>[.<rollup>[.<submetric>]]", a letter first, a double
 * underscore, nothing but [A-Za-z0-9_.]. */
int cupti_cb_profiler_events_may_be(const char *base);
/* A code to its metric and variant (enum cupti_cb_err); n_devices bounds
 * the device qualifier. */
int cupti_cb_profiler_events_decode(const struct cupti_cb_profiler_events *ev, uint32_t code, int n_devices,
				    uint32_t *metric, uint32_t *variant);
int cupti_cb_profiler_events_first(const struct cupti_cb_profiler_events *ev, uint32_t *code);
int cupti_cb_profiler_events_next(const struct cupti_cb_profiler_events *ev, uint32_t *code);
int cupti_cb_profiler_events_lookup(const struct cupti_cb_profiler_events *ev, const char *base, uint32_t *code);
int cupti_cb_profiler_events_base_name(const struct cupti_cb_profiler_events *ev, uint32_t metric, uint32_t variant,
				       char *buf, size_t len);
/* "<CUPTI's description> [counter; default .sum; takes .avg .max .min .sum, each alone or followed
 * by .per_second ...]": the suffixes as rollups and what may follow them (cupti_cb_profiler_events.c).
 * The catalogue fetches descriptions lazily: the caller serializes. */
void cupti_cb_profiler_events_descr(const struct cupti_cb_profiler_events *ev, uint32_t metric, char *buf,
				    size_t len);
/* Units, data type and whether it is a running sum. The caller serializes. */
void cupti_cb_profiler_events_facts(const struct cupti_cb_profiler_events *ev, uint32_t metric, uint32_t variant,
				    struct cupti_cb_event_facts *f);
/* "masks:" text of a device-qualified code. */
void cupti_cb_profiler_events_device_descr(uint32_t code, char *buf, size_t len);

#endif
