/*
 * cupti_cb_inject_flame.h: the flame graph's part of the library (CUPTI_CB_RUN_FLAME=1, the
 * runner's --flame): the stack of every call that issues GPU work, weighted by the GPU time of
 * that work, and CPU samples of every thread (CUPTI_CB_RUN_FLAME_HZ > 0).  At exit it writes
 * flame-PID.folded into the run directory: one line per distinct stack, "frame;...;frame
 * WEIGHT", root first, WEIGHT in nanoseconds; the runner merges the processes' files.
 *
 * While the program runs, through cupti_cb's tap (<cupti_cb.h>):
 *   - at each call that issues GPU work, on its thread: the stack (cupti_cb_inject_stacks.h),
 *     kept under the call's correlation id in a fixed table (one atomic store);
 *   - at each kernel, copy and memset record, on the thread that processes activity buffers
 *     (one at a time): its GPU time added to (stack, call, work) in a fixed table;
 *   - CPU samples (cupti_cb_inject_cpu_samples.h): each thread's stack, at a rate of its CPU
 *     time.
 * No lock, and no allocation after the start but once per thread (its stack bounds).
 */
#ifndef CUPTI_CB_INJECT_FLAME_H
#define CUPTI_CB_INJECT_FLAME_H

#include "cupti_cb_inject_state.h"

/* Reads CUPTI_CB_RUN_FLAME and CUPTI_CB_RUN_FLAME_HZ; joins the tap (cupti_cb_inject_tap.h).  A note says what failed. */
void cupti_cb_inj_flame_start(struct cupti_cb_inj *s);
/* After the sets stopped (the last records processed): stops the sampling, writes the file. */
void cupti_cb_inj_flame_finish(struct cupti_cb_inj *s);

#endif /* CUPTI_CB_INJECT_FLAME_H */
