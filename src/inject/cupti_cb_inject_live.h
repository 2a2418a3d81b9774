/*
 * cupti_cb_inject_live.h: the live view (CUPTI_CB_RUN_INTERVAL_MS).  Its set is added and
 * started on the calling thread (the one inside cuInit, like the main set); its owner thread
 * prints a line every interval and rewrites the partial process file.
 */
#ifndef CUPTI_CB_INJECT_LIVE_H
#define CUPTI_CB_INJECT_LIVE_H

#include "cupti_cb_inject_state.h"

void cupti_cb_inj_live_start(struct cupti_cb_inj *s);
void cupti_cb_inj_live_stop(void);

#endif /* CUPTI_CB_INJECT_LIVE_H */
