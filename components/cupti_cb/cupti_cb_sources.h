/* cupti_cb_sources.h: the sources the component is made of, in the order
 * of enum cupti_cb_source_id, and the limits they share. */
#ifndef CUPTI_CB_SOURCES_H
#define CUPTI_CB_SOURCES_H

#include "cupti_cb_source.h"

#define CUPTI_CB_SET_MAX 1024	/* events in one event set, all sources together: room for every
				   counter of one kind per API function (PAPI 7 adds an event in time
				   proportional to the square of the set size: larger sets belong
				   to several threads) */

extern const struct cupti_cb_source_ops cupti_cb_callback_source;
extern const struct cupti_cb_source_ops cupti_cb_metric_source;
extern const struct cupti_cb_source_ops cupti_cb_activity_source;

struct cupti_cb_engine;
/* The metric source over the shared services; NULL when out of memory. */
void *cupti_cb_metric_source_new(struct cupti_cb_engine *services);
/* The GPU activity source over the shared services; NULL when out of memory. */
void *cupti_cb_activity_source_new(struct cupti_cb_engine *services);

#endif
