/*
 * cupti_cb_inject_set.h: the event sets of the library: the main set (part 0) and the
 * per-function parts (cupti_cb_inject_state.h says why there are several).
 */
#ifndef CUPTI_CB_INJECT_SET_H
#define CUPTI_CB_INJECT_SET_H

#include "cupti_cb_inject_state.h"

/* Fills the main set (part 0: created, empty) and the per-function parts (it starts their
 * threads), and starts them all.  Sets s->counting, or s->reason.  Never fails the program. */
void cupti_cb_inj_build_and_start(struct cupti_cb_inj *s);
/* Starts a part's thread, which creates its (empty) set: PAPI_OK, or the error. */
int cupti_cb_inj_open_part(struct cupti_cb_inj *s, int windowed);
/* Asks every part's thread to stop its set; 0, or -1 when one did not within timeout_s. */
int cupti_cb_inj_finish_parts(struct cupti_cb_inj *s, int timeout_s);

#endif /* CUPTI_CB_INJECT_SET_H */
