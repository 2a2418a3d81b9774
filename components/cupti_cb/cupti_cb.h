/* cupti_cb.h: what the cupti_cb component offers beyond PAPI's own API.
 * libpapi exports it (the component is compiled into libpapi); include
 * papi.h for the error codes. See cupti_cb-threads(7), "Threads".
 *
 * Each thread that makes a counted CUDA call (or starts a cupti_cb event
 * set) has a counter set. cupti_cb_threads lists the kernel thread ids
 * that have one, so that another thread can read their counts with
 * PAPI_attach(EventSet, tid). */
#ifndef CUPTI_CB_H
#define CUPTI_CB_H

#ifdef __cplusplus
extern "C" {
#endif

#define CUPTI_CB_THREAD_NAME_LEN 16	/* the kernel's thread names: 15 characters and a NUL */
/* Threads that get a counter set of their own: beyond this many counter sets, a
 * new thread adopts the counter set of an exited one (which becomes shared). */
#define CUPTI_CB_THREADS_OWN 256

struct cupti_cb_thread_info {
	long tid;			/* kernel thread id (gettid) of the counter set's latest owner */
	char name[CUPTI_CB_THREAD_NAME_LEN];	/* its name when it got the counter set, or when it exited */
	int exited;			/* the owner has exited; its counts stay */
	int shared;			/* the counts of several threads: an exited thread's counter set was
					   adopted by a new one (beyond CUPTI_CB_THREADS_OWN blocks) */
	unsigned threads;		/* how many threads' counts the counter set holds (1 unless shared) */
};

/* Fills out[0 .. max-1] with the threads that have counter sets, in the
 * order they got them, and returns how many there are (which may exceed
 * max; call with max 0 to size an array). 0 before cupti_cb counted
 * anything; PAPI_EINVAL when max < 0 or out is NULL with max > 0. A tid
 * appears twice when the kernel reused the id of an exited thread. */
/* Exported from libpapi, which PAPI builds with -fvisibility=hidden. */
__attribute__((visibility("default"))) int cupti_cb_threads(struct cupti_cb_thread_info *out, int max);

/* Reads in signal handlers (cupti_cb-threads(7), "Signal handlers"): a call that
 * blocks a signal the thread did not block at its last PAPI_start (as a
 * sampler's handler blocks its own signal) reads without flushing GPU
 * activity or decoding hardware metrics: it gets the values as of the last
 * flush or decode. A thread that never calls PAPI from a signal handler and
 * changes its signal mask between its start and its reads calls this once
 * to read as other threads always do. Returns PAPI_OK. */
__attribute__((visibility("default"))) int cupti_cb_service_thread(void);

/* ---- the tap: what tools built on cupti_cb need beyond counts (cupti_cb-tools(7), "The tap")
 *
 * One tap at a time, with three hooks, any of them NULL, joined by CUPTI's correlation id:
 *   issue  at the driver API's ENTER of each call that issues GPU work (launch, graph launch,
 *          copy, memset), on the issuing thread, while a set with callback events runs; call is
 *          the CUDA call the program made, as CUPTI names it: the runtime call the driver call is
 *          nested in, or the driver call (cupti_cb_run --flame takes the stack here);
 *   call   at the EXIT of every CUDA call that a running set's callbacks see, on the calling
 *          thread, with its start and end ticks; the calls are timed only while a running set
 *          needs host time (any .time_ns event) (cupti_cb_run --timeline);
 *   work   each kernel, copy and memset record of GPU activity, on the thread that processes
 *          CUPTI's buffers, one at a time, while a running set has gpu.* events (both). */
#include <stdint.h>

enum { CUPTI_CB_TAP_FAILED = 1,		/* the call returned an error */
       CUPTI_CB_TAP_ISSUES_WORK = 2 };	/* a driver call that issues GPU work (launch, graph launch,
					   copy, memset): its records carry its correlation id */

struct cupti_cb_tap_call {
	uint64_t start, end;		/* ticks of cupti_cb_tap_clock (end 0: not timed) */
	uint32_t correlation;		/* CUPTI's; a runtime call and the driver call inside it share it */
	uint16_t cbid;			/* CUPTI's callback id (cupti_cb_tap_call_name) */
	uint8_t driver;			/* 1: driver API (cu*), 0: runtime API (cuda*) */
	uint8_t flags;			/* CUPTI_CB_TAP_* */
};

enum cupti_cb_tap_kind { CUPTI_CB_TAP_KERNEL, CUPTI_CB_TAP_MEMCPY, CUPTI_CB_TAP_MEMSET };

struct cupti_cb_tap_work {
	int kind;			/* enum cupti_cb_tap_kind */
	uint32_t correlation, device, context, stream;
	uint64_t start, end;		/* ns, CUPTI's clock (cupti_cb_tap_gpu_clock) */
	uint64_t bytes;			/* copies and memsets */
	int copy_kind;			/* CUpti_ActivityMemcpyKind of a copy; a peer copy is
					   CUPTI_ACTIVITY_MEMCPY_KIND_PTOP */
	const char *name;		/* a kernel's name as CUPTI gives it (mangled), or NULL */
	int32_t grid[3], block[3];	/* a kernel's */
};

/* issue and call run on the application's thread inside its CUDA call: they must not block,
 * lock, allocate (but a bounded amount, once per thread), make a CUDA call or take long. work
 * runs on one thread at a time. */
struct cupti_cb_tap {
	void (*issue)(void *arg, uint32_t correlation, const char *call);
	void (*call)(void *arg, const struct cupti_cb_tap_call *c);
	void (*work)(void *arg, const struct cupti_cb_tap_work *w);
	void *arg;
};

/* Sets the tap (NULL: none); it replaces the one set before. The struct must stay valid while
 * set, and for as long after as a hook already running may take. Returns 0 (PAPI_OK). */
__attribute__((visibility("default"))) int cupti_cb_tap_set(const struct cupti_cb_tap *t);
/* Now, in the ticks of struct cupti_cb_tap_call (a TSC or CLOCK_MONOTONIC ns: see cupti_cb(7)). */
__attribute__((visibility("default"))) uint64_t cupti_cb_tap_clock(void);
/* *ns = now on CUPTI's clock (cuptiGetTimestamp), the clock of GPU activity records: 0, or -1
 * before libcupti is loaded or when it lacks cuptiGetTimestamp. */
__attribute__((visibility("default"))) int cupti_cb_tap_gpu_clock(uint64_t *ns);
/* The name of a CUDA function ("cudaLaunchKernel", "cuLaunchKernel"), or NULL. */
__attribute__((visibility("default"))) const char *cupti_cb_tap_call_name(int driver, unsigned cbid);

#ifdef __cplusplus
}
#endif

#endif
