/* cupti_cb_activity_busy.h: gpu.busy_ns, the time a device ran at least one kernel,
 * copy or memset: the union of the work's intervals, not their sum.
 *
 * A union does not split into windows by subtraction. The union of all
 * records so far, read at a window's two ends, misses every part of the
 * window's work that overlaps work before it: a kernel that started before
 * a PAPI_reset and a longer one that overlaps it after the reset left the
 * new window shorter than its one kernel. So each event set's gpu.busy_ns
 * has a window of its own (struct cupti_cb_busy_window), which merges only
 * the records it counts, from its own start or reset: its value is never
 * less than any record in it. */
#ifndef CUPTI_CB_ACTIVITY_BUSY_H
#define CUPTI_CB_ACTIVITY_BUSY_H

#include <stdatomic.h>
#include <stdint.h>

struct cupti_cb_thread_counters;

/* The union of busy intervals on one device, merged in the order records
 * arrive: [*start, *end) is the last merged interval (*end == 0: none
 * yet). Returns the time [s, e) adds to the union: the parts of it outside
 * the last merged interval. A record entirely before that interval counts
 * whole (assumed not to overlap still earlier ones). */
uint64_t cupti_cb_busy_merge(uint64_t *start, uint64_t *end, uint64_t s, uint64_t e);

enum cupti_cb_busy_scope {
	CUPTI_CB_BUSY_PROCESS,		/* every record */
	CUPTI_CB_BUSY_THREAD,		/* records issued by one thread's counter set */
	CUPTI_CB_BUSY_TID,		/* records issued by any counter set of one kernel thread (PAPI_attach) */
};

/* One set's gpu.busy_ns. The activity's record processing (one writer at a
 * time) is the only writer of iv and total; readers load total. */
struct cupti_cb_busy_window {
	struct cupti_cb_busy_window *next;	/* the activity's list of windows */
	enum cupti_cb_busy_scope scope;
	const struct cupti_cb_thread_counters *counters;	/* CUPTI_CB_BUSY_THREAD */
	long tid;				/* CUPTI_CB_BUSY_TID */
	int device;				/* -1: every device, each merged apart and summed */
	unsigned n_rows;			/* device rows of iv */
	atomic_int restart;			/* forget iv before the next record (a reset that
						   could not wait for the processing) */
	_Atomic uint64_t total;			/* ns merged since the window was made */
	uint64_t iv[];				/* n_rows * 2: each device's last merged interval */
};

/* A window of n_rows device rows; NULL when memory is exhausted. */
struct cupti_cb_busy_window *cupti_cb_busy_window_new(enum cupti_cb_busy_scope scope,
						      const struct cupti_cb_thread_counters *counters, long tid, int device,
						      unsigned n_rows);
/* Whether a record issued by counter set b (NULL: unattributed) on device row
 * row belongs to w. */
int cupti_cb_busy_window_takes(const struct cupti_cb_busy_window *w, const struct cupti_cb_thread_counters *b,
			       unsigned row);
/* Merges [s, e) on device row row into w (the processing only). */
void cupti_cb_busy_window_merge(struct cupti_cb_busy_window *w, unsigned row, uint64_t s, uint64_t e);
/* Forgets the merged intervals: work after this point is merged afresh.
 * The caller holds the processing's lock. */
void cupti_cb_busy_window_clear(struct cupti_cb_busy_window *w);

#endif
