/* cupti_cb_sources.c: the list of sources. A source is a descriptor
 * (struct cupti_cb_source_ops), its catalogue and its back end; adding one
 * is one line here. Its place in the list is the source bits of its
 * codes, so the order never changes: new sources go at the end. */
#include <stddef.h>

#include "cupti_cb_sources.h"

#define CUPTI_CB_SOURCE_LIST(X)                                                        \
	X(cupti_cb_callback_source)	/* first: its codes have no source bits */     \
	X(cupti_cb_metric_source)                                                      \
	X(cupti_cb_activity_source)                                                    \
	X(cupti_cb_sampling_source)	/* the metrics again, tagged :sampled */      \
	/* new sources here, one line each */

#define DECLARE(s) extern const struct cupti_cb_source_ops s;
#define LIST(s) &s,
CUPTI_CB_SOURCE_LIST(DECLARE)
const struct cupti_cb_source_ops *const cupti_cb_sources[] = { CUPTI_CB_SOURCE_LIST(LIST) NULL };
