/*
 * cupti_cb_inject_notes.h: what the library tells.  A note goes into the process file
 * ("notes": what was left out or not counted, and why; at most CUPTI_CB_INJ_MAX_NOTES); a trace
 * line goes to stderr with CUPTI_CB_RUN_TRACE=1 only, and every note is traced too.
 */
#ifndef CUPTI_CB_INJECT_NOTES_H
#define CUPTI_CB_INJECT_NOTES_H

#include "cupti_cb_inject_state.h"

void cupti_cb_inj_note(struct cupti_cb_inj *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cupti_cb_inj_trace(const struct cupti_cb_inj *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* CUPTI_CB_INJECT_NOTES_H */
