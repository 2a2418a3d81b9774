/* cupti_cb_overflow.h: PAPI_overflow on callback events, per thread.
 *
 * A sampling profiler wants each sample attributed to the code that made
 * the CUDA call that crossed the threshold. So the crossing is found in
 * the callback itself, on the calling thread, and a signal is raised on
 * that thread there and then: the handler runs inside the CUDA call, and
 * its context unwinds to the call site.
 *
 * A thread's running event set with overflow armed hangs its struct
 * cupti_cb_ovf on the thread's counter set (PAPI runs one set per thread
 * and component, so one at most). The hot path pays one load of that
 * pointer when nothing is armed; when something is, a compare of each
 * armed event's counters against its next threshold; a system call
 * (tgkill) only at a crossing.
 *
 * Thresholds count events since the set's start, like a hardware counter
 * that overflows every threshold events: PAPI_read and PAPI_reset do not
 * move them. A call that crosses k thresholds (a copy of 10 MiB with a
 * threshold of 1 MiB) owes k overflows: the handler is called k times. */
#ifndef CUPTI_CB_OVERFLOW_H
#define CUPTI_CB_OVERFLOW_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "cupti_cb_thread_counters.h"

#define CUPTI_CB_OVF_EVENTS 8		/* events of one set that may drive overflows */
/* The signal raised at a crossing: a real-time signal of its own, clear of
 * perf_event's SIGRTMIN+2 (PAPI keeps one handler per signal) and of the
 * few just above it that samplers' timers take (libmonitor's SIGRTMIN+4). */
#define CUPTI_CB_OVF_SIGNAL_OFFSET 8

struct cupti_cb_ovf {
	unsigned n;				/* armed events */
	uint16_t ix[CUPTI_CB_OVF_EVENTS];	/* each one's index in its set */
	struct cupti_cb_probe probe[CUPTI_CB_OVF_EVENTS];
	uint64_t threshold[CUPTI_CB_OVF_EVENTS];
	uint64_t next[CUPTI_CB_OVF_EVENTS];	/* the raw count of its next crossing */
	/* Crossings not handed to PAPI yet: the hot path adds, the signal
	 * handler takes, both on the owning thread. */
	_Atomic uint64_t pending[CUPTI_CB_OVF_EVENTS];
	_Atomic uint64_t raised;		/* signals raised */
	int sig;
	pid_t pid, tid;				/* the owning thread, where the signal goes */
};

/* Arms o on counter set b, the calling thread's own: the next crossings are
 * threshold events from now; nothing is pending. The set's probes and
 * thresholds are in o already. */
void cupti_cb_ovf_arm(struct cupti_cb_ovf *o, struct cupti_cb_thread_counters *b, int sig);
/* Takes o off b if it is there (any thread may call it). */
void cupti_cb_ovf_disarm(struct cupti_cb_ovf *o, struct cupti_cb_thread_counters *b);
/* fork() child: only the forking thread is left, and the parent's threads
 * are not this process's: no counter set may signal them. */
void cupti_cb_ovf_forget_all(struct cupti_cb_thread_registry *r);
/* One pending crossing of armed event k taken: 1, or 0 if none is left.
 * Async-signal-safe. */
int cupti_cb_ovf_take(struct cupti_cb_ovf *o, unsigned k);

/* The part of the hot path that runs only while o is armed. */
void cupti_cb_ovf_cross(struct cupti_cb_ovf *o, const struct cupti_cb_thread_counters *b);

/* Hot path, at the end of every callback that counted something. */
static inline void cupti_cb_ovf_check(const struct cupti_cb_thread_counters *b)
{
	struct cupti_cb_ovf *o = atomic_load_explicit(&b->ovf, memory_order_relaxed);
	if (__builtin_expect(o != NULL, 0))
		cupti_cb_ovf_cross(o, b);
}

#endif
