/*
 * cupti_cb_inject_threads.h: the per-thread counts ("threads" of the process file).
 */
#ifndef CUPTI_CB_INJECT_THREADS_H
#define CUPTI_CB_INJECT_THREADS_H

#include <jansson.h>

#include "cupti_cb_inject_state.h"

/* At exit, after the sets stopped, reads each thread's counts through an event set attached to
 * it (s->threads; notes on failure). */
void cupti_cb_inj_threads_collect(struct cupti_cb_inj *s);
/* The "threads" array of the process file, or NULL when there are none. */
json_t *cupti_cb_inj_threads_json(const struct cupti_cb_inj *s);

#endif /* CUPTI_CB_INJECT_THREADS_H */
