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

/* Taps (cupti_cb(7), "Taps"): what a profiler built on cupti_cb (cupti_cb_run
 * --flame) needs beyond counts: the calls that issue GPU work, on the
 * threads that make them, and the GPU work itself, joined by CUPTI's
 * correlation id. issue runs on the issuing thread inside the CUDA call
 * (at the driver API's ENTER of each launch, graph launch, copy and
 * memset) while a set with callback events runs: it must neither lock nor
 * allocate beyond a bound. call is the CUDA call the program made, as
 * CUPTI names it: the runtime call the driver call is nested in, or the
 * driver call. work runs on the thread that processes activity buffers,
 * one call at a time, while a set with gpu.* events runs. */
enum cupti_cb_tap_kind { CUPTI_CB_TAP_KERNEL, CUPTI_CB_TAP_MEMCPY, CUPTI_CB_TAP_MEMSET };
struct cupti_cb_tap_work {
	int kind;			/* enum cupti_cb_tap_kind */
	int copy_kind;			/* CUpti_ActivityMemcpyKind of a copy; a peer copy is
					   CUPTI_ACTIVITY_MEMCPY_KIND_PTOP */
	unsigned correlation_id, device, stream;
	unsigned long long start_ns, end_ns, bytes;
	const char *name;		/* a kernel's (mangled) name, or NULL */
};
struct cupti_cb_tap {
	void (*issue)(void *arg, unsigned correlation_id, const char *call);
	void (*work)(void *arg, const struct cupti_cb_tap_work *w);
	void *arg;
};
/* Sets the tap (NULL: none); the struct must outlive its use. Returns PAPI_OK. */
__attribute__((visibility("default"))) int cupti_cb_tap_set(const struct cupti_cb_tap *tap);

#ifdef __cplusplus
}
#endif

#endif
