/*
 * cupti_cb_inject_timeline.h: the timeline (CUPTI_CB_RUN_TIMELINE=FILE, the runner's --timeline):
 * every CUDA call of the process as a span on its thread, every kernel, copy and memset as a
 * span on its device and stream, flows from launches to their GPU work, and the live view's
 * counts as counter tracks, appended to FILE while the program runs.
 *
 * How, and at what cost.  cupti_cb's tap (cupti_cb.h) hands over each call at its exit on the
 * calling thread: the call goes into that thread's ring (one writer, the thread; one reader,
 * the timeline's thread), a copy of 24 bytes and two atomic stores, no lock, no system call;
 * a thread's first call allocates its ring (384 KiB) and reads its name (prctl), as cupti_cb
 * does for its counters, and its exit reads the name again (threads name themselves late); a
 * thread that exited leaves its ring to the next new thread.  A full ring drops the call and
 * counts it (the file's note says how many).  GPU records come on the thread that processes
 * CUPTI's buffers, which formats them itself.  The timeline's thread wakes every 10 ms: it
 * reads an anchor of the clocks (cupti_cb_inject_tlclock.h), formats what the rings hold and
 * appends it to FILE with one write (O_APPEND: the processes of a run share the file), so
 * memory stays bounded whatever the run's length.  It stops (and the note says why) at
 * CUPTI_CB_RUN_TIMELINE_MAX_BYTES of file or CUPTI_CB_RUN_TIMELINE_MAX_MS after the run's origin.
 */
#ifndef CUPTI_CB_INJECT_TIMELINE_H
#define CUPTI_CB_INJECT_TIMELINE_H

#include "cupti_cb_inject_state.h"

/* Reads the environment; when CUPTI_CB_RUN_TIMELINE is set, opens the file, starts the thread
 * and joins the tap (cupti_cb_inject_tap.h).  Problems become notes of s. */
void cupti_cb_inj_timeline_start(struct cupti_cb_inj *s);
/* The live view's counts at one of its ticks: counter tracks (differences between ticks; GPU
 * busy as a percentage of the interval, averaged over n_devices). */
void cupti_cb_inj_timeline_counters(const char *const *names, const long long *v, int n, int n_devices);
/* At exit, once the event sets stopped (their last GPU records went through the tap): the
 * last of the rings written, the thread joined; notes of what was dropped or cut. */
void cupti_cb_inj_timeline_stop(struct cupti_cb_inj *s);

#endif /* CUPTI_CB_INJECT_TIMELINE_H */
