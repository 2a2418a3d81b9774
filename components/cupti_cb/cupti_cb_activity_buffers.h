/* cupti_cb_activity_buffers.h: GPU work as CUPTI's Activity API reports it. Owns
 * the activity buffers (a pool, refilled in batches), the registration
 * with CUPTI, the activity kinds while sets need them, and the totals the
 * records add up to: per device for the process, and per device in the
 * counter set of the thread that issued the work (found through cupti_cb_correlation.h).
 *
 * Records are processed in CUPTI's buffer-completed callback, on CUPTI's
 * thread or on the thread that flushes. One mutex serialises that
 * processing, so each total has one writer at a time; the application's
 * CUDA calls never take it (they only write the correlation table). */
#ifndef CUPTI_CB_ACTIVITY_BUFFERS_H
#define CUPTI_CB_ACTIVITY_BUFFERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cupti.h>

#include "cupti_cb_activity_busy.h"
#include "cupti_cb_correlation.h"
#include "cupti_cb_activity_flusher.h"
#include "cupti_cb_multiple_subscribers.h"

/* GPU activity counters kept per device in every thread's counter set, for the
 * work the thread issued (written only by the thread that processes
 * CUPTI's activity buffers). The last two slots are the state of the
 * thread's busy-interval union, not counters. */
enum cupti_cb_act_ctr {
	CUPTI_CB_A_KERNELS,
	CUPTI_CB_A_KERNEL_TIME,
	CUPTI_CB_A_MEMCPY_COUNT,
	CUPTI_CB_A_BYTES_HTOD,	/* the five directions, in enum cupti_cb_dir order */
	CUPTI_CB_A_BYTES_DTOH,
	CUPTI_CB_A_BYTES_DTOD,
	CUPTI_CB_A_BYTES_HTOH,
	CUPTI_CB_A_BYTES_PEER,
	CUPTI_CB_A_MEMCPY_TIME,
	CUPTI_CB_A_MEMSET_COUNT,
	CUPTI_CB_A_MEMSET_BYTES,
	CUPTI_CB_A_MEMSET_TIME,
	CUPTI_CB_A_BUSY,
	CUPTI_CB_N_ACT_CTRS,
	CUPTI_CB_A_BUSY_START = CUPTI_CB_N_ACT_CTRS,
	CUPTI_CB_A_BUSY_END,
	CUPTI_CB_N_ACT_SLOTS
};

struct cupti_cb_services;
struct cupti_cb_thread_counters;

/* The Activity API entry points, resolved from the loaded libcupti. */
struct cupti_cb_activity_fns {
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*enable)(CUpti_ActivityKind);
	CUptiResult (*disable)(CUpti_ActivityKind);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
};

/* CUPTI keeps concurrent kernels' records in buffers of their stream: a
 * thread per stream each holds at least one buffer until its records are
 * complete, so the bound is set by streams, not by records. 64 buffers were
 * too few for 64 threads on streams of their own (H200: 4,707 of 96,000
 * kernel records dropped, every buffer out); 256 (128 MiB at most,
 * allocated 4 at a time as needed) hold about 250 such streams. */
#define CUPTI_CB_ACT_BUF_SIZE  (512u * 1024u)
#define CUPTI_CB_ACT_BUF_BATCH 4u
#define CUPTI_CB_ACT_BUF_MAX   256u	/* past it CUPTI drops records (counted); = free_slot's size */

struct cupti_cb_activity {
	struct cupti_cb_services *e;
	struct cupti_cb_activity_fns fn;
	/* The subscriber-scoped calls (CUPTI 13.2), all or none (NULL). Used
	 * whenever the engine's subscription is shared: CUPTI does not allow
	 * the process-wide calls once several subscribers exist. Their only
	 * process-wide call left is cuptiActivityFlushAll, which has no
	 * subscriber-scoped variant: it flushes every subscriber's buffers. */
	struct cupti_cb_activity_v2_fns v2;
	int scoped;			/* registered through v2 for sub */
	CUpti_SubscriberHandle sub;
	unsigned n_devrows;		/* devices + 1 row for an unknown device */
	size_t off;			/* the activity region in every thread's counters: n_devrows *
					   CUPTI_CB_N_ACT_SLOTS, reserved by the source (cupti_cb_services_reserve) */

	pthread_mutex_t lock;		/* cold path: registration, kinds, users */
	int registered;
	unsigned users;			/* sets holding the activity kinds */
	char why[512];			/* why activity cannot be used here ("" if it can) */

	pthread_mutex_t proc;		/* serialises record processing (see above) */
	struct cupti_cb_thread_counters **by_id;	/* counter set id -> counter set, filled on a miss */
	size_t n_by_id;
	struct cupti_cb_busy_window *windows;	/* the sets' gpu.busy_ns, under proc */
	struct cupti_cb_flusher flusher;	/* flushes while sets use activity */
	unsigned wait_ms;		/* cupti_cb_activity_settle's bound (CUPTI_CB_ACTIVITY_WAIT_MS) */

	/* The free buffers, one slot each (NULL: empty). Taking and returning a
	 * buffer is one atomic exchange or compare-and-swap: CUPTI asks for
	 * buffers on application threads, and the processing thread returns
	 * them, so neither may wait for the other. Only a refill (a batch of
	 * allocations, when every buffer is out) takes grow_lock, which the
	 * processing thread never takes. */
	_Atomic(uint8_t *) free_slot[CUPTI_CB_ACT_BUF_MAX];
	pthread_mutex_t grow_lock;
	atomic_uint n_bufs;

	struct cupti_cb_correlation_map *map;	/* allocated at the first enable, never freed */
	_Atomic uint64_t *all;		/* n_devrows * CUPTI_CB_N_ACT_SLOTS: all work of the process */

	atomic_ulong records, dropped, unattributed, flushes, refused_buffers;
};


/* Resolves the entry points from the engine's libcupti; 0, or -1 with why. */
int cupti_cb_activity_init(struct cupti_cb_activity *a, struct cupti_cb_services *e);
/* A set with activity events starts for the first time (the engine's
 * subscription held by that set): register with CUPTI (once per
 * subscription when it is shared, once per process otherwise), enable the kinds and the attribution (first user). 0, or
 * an enum cupti_cb_source_err with the sentence in why. */
int cupti_cb_activity_use(struct cupti_cb_activity *a, char *why, size_t len);
/* The set is cleaned up; the last user disables the kinds. */
void cupti_cb_activity_unuse(struct cupti_cb_activity *a);
/* Delivers the records of finished work (cuptiActivityFlushAll). Never in
 * a signal handler: it takes CUPTI's locks and proc. */
void cupti_cb_activity_flush(struct cupti_cb_activity *a);

/* The work b's owner issued before its last host synchronization has
 * finished on the GPU, but CUPTI hands a buffer over only once all its
 * records are complete, and a buffer holds other threads' unfinished work
 * too: a read right after the synchronization found some of it missing.
 * Flushes until every such call of b has its first record processed (or
 * failed), for at most wait_ms. excused: calls already reported missing,
 * not waited for again. Returns the number still missing (0: complete).
 * Never in a signal handler: it flushes and sleeps. */
#define CUPTI_CB_ENV_ACTIVITY_WAIT_MS "CUPTI_CB_ACTIVITY_WAIT_MS"
#define CUPTI_CB_ACTIVITY_WAIT_MS_DEFAULT 200u
#define CUPTI_CB_ACTIVITY_WAIT_MS_MAX 60000u
uint64_t cupti_cb_activity_settle(struct cupti_cb_activity *a, const struct cupti_cb_thread_counters *b,
				  uint64_t excused);
/* The calls of b issued before its owner's last synchronization that are
 * not accounted for yet (no wait, no lock: loads only). */
uint64_t cupti_cb_activity_owed(const struct cupti_cb_thread_counters *b);

/* A set's gpu.busy_ns window joins or leaves the processing (never in a
 * signal handler: both wait for proc). */
void cupti_cb_activity_window_add(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w);
void cupti_cb_activity_window_remove(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w);
/* The window starts again, and *base gets its total at that point. may_wait
 * 0 (a signal handler): proc is not taken; the merged intervals are
 * forgotten before the next record is merged, so a record processed at
 * that moment may count in the window before (see cupti_cb-activity(7)). */
void cupti_cb_activity_window_restart(struct cupti_cb_activity *a, struct cupti_cb_busy_window *w,
				      int may_wait, uint64_t *base);
/* PAPI_shutdown: disable the kinds whatever the users. */
void cupti_cb_activity_close(struct cupti_cb_activity *a);

/* Process rows (every record), one row per device. */
static inline const _Atomic uint64_t *cupti_cb_activity_all(const struct cupti_cb_activity *a)
{
	return a->all;
}

/* Processes one completed buffer (what the CUPTI callback does; the unit
 * tests call it directly). */
void cupti_cb_activity_process(struct cupti_cb_activity *a, uint8_t *buf, size_t valid);

/* The buffer pool behind CUPTI's buffer callbacks: a free buffer, or NULL
 * when CUPTI_CB_ACT_BUF_MAX are out; and its return. Lock-free but for a
 * refill (see free_slot). */
uint8_t *cupti_cb_activity_buffer_get(struct cupti_cb_activity *a);
void cupti_cb_activity_buffer_put(struct cupti_cb_activity *a, uint8_t *buf);

#endif
