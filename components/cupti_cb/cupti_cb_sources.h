/* cupti_cb_sources.h: the sources the component is made of
 * (cupti_cb_sources.c), in the order of the source bits of their codes. */
#ifndef CUPTI_CB_SOURCES_H
#define CUPTI_CB_SOURCES_H

#include "cupti_cb_source.h"

/* NULL-terminated; at most CUPTI_CB_MAX_SOURCES. */
extern const struct cupti_cb_source_ops *const cupti_cb_sources[];

#endif
