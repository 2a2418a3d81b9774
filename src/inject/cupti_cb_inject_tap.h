/*
 * cupti_cb_inject_tap.h: the library's one tap.  cupti_cb holds one tap at a time
 * (cupti_cb_tap_set, <cupti_cb.h>), and two parts of the library feed on it: the flame graph
 * (issue and work) and the timeline (call and work), in the same run when both are asked for.
 * Each part joins with its own hooks and leaves when it is done; while any part is in,
 * cupti_cb holds one tap whose hooks hand each call and each record to every part in, so that
 * neither part replaces, or takes away, the other's.
 *
 * Joining and leaving take a lock (never on the hot path); a hook costs one atomic load per
 * part beyond the part's own function.
 */
#ifndef CUPTI_CB_INJECT_TAP_H
#define CUPTI_CB_INJECT_TAP_H

#include "cupti_cb.h"

enum cupti_cb_inj_tap_part { CUPTI_CB_INJ_TAP_FLAME, CUPTI_CB_INJ_TAP_TIMELINE, CUPTI_CB_INJ_TAP_PARTS };

/* part's hooks (their arg is theirs) from now on, until it leaves; hooks must stay valid while
 * in and for as long after as a hook already running may take (static storage). */
void cupti_cb_inj_tap_join(enum cupti_cb_inj_tap_part part, const struct cupti_cb_tap *hooks);
/* part's hooks no more; the tap is unset when no part is left.  Safe from within a hook. */
void cupti_cb_inj_tap_leave(enum cupti_cb_inj_tap_part part);

#endif /* CUPTI_CB_INJECT_TAP_H */
