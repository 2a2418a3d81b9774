/* cupti_cb_overflow.c: see cupti_cb_overflow.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cupti_cb_overflow.h"

void cupti_cb_ovf_arm(struct cupti_cb_ovf *o, struct cupti_cb_thread_counters *b, int sig)
{
	for (unsigned k = 0; k < o->n; k++) {
		o->next[k] = cupti_cb_probe_thread(&o->probe[k], b) + o->threshold[k];
		atomic_store_explicit(&o->pending[k], 0, memory_order_relaxed);
	}
	o->sig = sig;
	o->pid = getpid();
	o->tid = (pid_t)syscall(SYS_gettid);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&b->ovf, o, memory_order_release);
}

void cupti_cb_ovf_disarm(struct cupti_cb_ovf *o, struct cupti_cb_thread_counters *b)
{
	struct cupti_cb_ovf *mine = o;
	if (b)
		atomic_compare_exchange_strong(&b->ovf, &mine, NULL);
}

void cupti_cb_ovf_forget_all(struct cupti_cb_thread_registry *r)
{
	for (struct cupti_cb_thread_counters *b = atomic_load(&r->head); b; b = b->next)
		atomic_store(&b->ovf, NULL);
}

int cupti_cb_ovf_take(struct cupti_cb_ovf *o, unsigned k)
{
	uint64_t p = atomic_load_explicit(&o->pending[k], memory_order_relaxed);
	if (!p)
		return 0;
	atomic_store_explicit(&o->pending[k], p - 1, memory_order_relaxed);
	return 1;
}

/* Out of line: the common case (no crossing) stays a few loads and
 * compares, and the division runs only at a crossing. */
__attribute__((noinline)) void cupti_cb_ovf_cross(struct cupti_cb_ovf *o, const struct cupti_cb_thread_counters *b)
{
	int crossed = 0;
	for (unsigned k = 0; k < o->n; k++) {
		uint64_t v = cupti_cb_probe_thread(&o->probe[k], b);
		if (v < o->next[k])
			continue;
		uint64_t times = (v - o->next[k]) / o->threshold[k] + 1;
		o->next[k] += times * o->threshold[k];
		atomic_store_explicit(&o->pending[k],
				      atomic_load_explicit(&o->pending[k], memory_order_relaxed) + times,
				      memory_order_relaxed);
		crossed = 1;
	}
	if (!crossed)
		return;
	atomic_store_explicit(&o->raised, atomic_load_explicit(&o->raised, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	/* The handler runs before tgkill returns (unless the thread blocks the
	 * signal: then when it unblocks it), and may stop the set: o is not
	 * touched after this. */
	syscall(SYS_tgkill, o->pid, o->tid, o->sig);
}
