/*
 * cupti_cb_inject_stacks.h: the call stacks of the flame graph (--flame), taken on the thread
 * that makes a CUDA call (inside CUPTI's callback) or in a CPU sample's signal handler, and kept
 * once per distinct chain of return addresses.
 *
 * Capture walks the stack from the tables of .eh_frame (no frame pointer needed), with
 * libunwind's unw_backtrace when libunwind.so.8 can be loaded (it caches what it learnt of each
 * return address), else with libgcc's _Unwind_Backtrace (glibc's backtrace() is the same walk).
 * Where the tables end in memory that no loaded object covers (Python 3.12's perf trampolines, a
 * JIT's code), both go on by frame pointers from that frame, within the thread's stack, which
 * is how perf walks the same frames.
 *
 * Interning: a fixed table of CUPTI_CB_INJ_STACKS chains (open addressing by a hash of the
 * chain, a compare-and-swap to claim a slot) over a fixed pool of return addresses: no lock,
 * no allocation after cupti_cb_inj_stacks_init, so that it may run in a signal handler.  A
 * chain that finds the table or the pool full gets id 0 and is counted (cupti_cb_inj_stacks_lost).
 */
#ifndef CUPTI_CB_INJECT_STACKS_H
#define CUPTI_CB_INJECT_STACKS_H

#include <stdint.h>

#define CUPTI_CB_INJ_STACK_DEPTH 256		/* return addresses kept per stack, from the leaf */
#define CUPTI_CB_INJ_STACKS_BITS 16
#define CUPTI_CB_INJ_STACKS (1u << CUPTI_CB_INJ_STACKS_BITS)
#define CUPTI_CB_INJ_STACK_POOL (1u << 21)	/* return addresses of all stacks: 16 MiB */

/* Finds the unwinder and allocates the tables; 0, or -1 (out of memory). */
int cupti_cb_inj_stacks_init(void);
/* Notes this thread's stack bounds for the frame-pointer walk (outside a signal handler). */
void cupti_cb_inj_stacks_thread(void);
/* The id (1 ... CUPTI_CB_INJ_STACKS) of the calling thread's stack, without the frames of
 * this library's skip innermost functions; 0 when it could not be kept. */
uint32_t cupti_cb_inj_stack_take(int skip);
/* The return addresses of stack id, leaf first; their number, or 0. */
unsigned cupti_cb_inj_stack_get(uint32_t id, const uintptr_t **pcs);
/* Adds n CPU samples to stack id (a signal handler may call it). */
void cupti_cb_inj_stack_sample(uint32_t id, uint64_t n);
uint64_t cupti_cb_inj_stack_samples(uint32_t id);
/* The unwinder in use, for the process file's note. */
const char *cupti_cb_inj_stacks_walker(void);
/* Stacks that could not be kept (tables full, or an insertion in progress under a signal). */
uint64_t cupti_cb_inj_stacks_lost(void);

#endif /* CUPTI_CB_INJECT_STACKS_H */
