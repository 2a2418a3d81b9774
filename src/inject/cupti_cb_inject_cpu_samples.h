/*
 * cupti_cb_inject_cpu_samples.h: the CPU samples of the flame graph (CUPTI_CB_RUN_FLAME_HZ, the
 * runner's --flame-cpu-hz).  A timer per thread on the thread's CPU clock, found by a thread of
 * the library that looks at /proc/self/task every 20 ms; each tick is a SIGPROF to that thread,
 * whose handler adds the periods that passed (the tick and its overruns) to its stack
 * (cupti_cb_inject_stacks.h).  Only with libunwind's walk, which is safe in a signal handler.
 */
#ifndef CUPTI_CB_INJECT_CPU_SAMPLES_H
#define CUPTI_CB_INJECT_CPU_SAMPLES_H

#include "cupti_cb_inject_state.h"

/* Starts sampling every thread hz times a second of its CPU time; a note says why not. */
void cupti_cb_inj_cpu_samples_start(struct cupti_cb_inj *s, long hz);
/* Stops the timers and the thread; SIGPROF is ignored from then on. */
void cupti_cb_inj_cpu_samples_stop(void);

#endif /* CUPTI_CB_INJECT_CPU_SAMPLES_H */
