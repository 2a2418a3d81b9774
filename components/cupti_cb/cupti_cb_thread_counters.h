/* cupti_cb_thread_counters.h: per-thread counter sets.
 *
 * Each thread that makes a counted CUDA call owns one counter set and is its only
 * writer, so the hot path updates counters with plain relaxed loads and
 * stores: no locks, no atomic read-modify-write. Counter sets are never freed
 * while the registry lives: a thread that exits marks its counter set free, and
 * its counts stay visible to process-scope reads. Counters only grow, so
 * readers work with differences.
 *
 * Each counter set knows its owner: the kernel thread id and the thread's name,
 * taken once, when the thread gets its counter set (the first counted call: the
 * slow path, never the hot one), the name again when the thread exits. So
 * the counts of one thread can be read by another (PAPI_attach) and the
 * threads listed (cupti_cb_threads). To keep every thread's counts its own,
 * a new thread gets a new counter set while fewer than CUPTI_CB_THREAD_COUNTERS_OWN exist;
 * beyond that it adopts the counter set of an exited thread, whose counts then
 * merge into its own, and the counter set is marked shared. */
#ifndef CUPTI_CB_THREAD_COUNTERS_H
#define CUPTI_CB_THREAD_COUNTERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda.h>

/* How long each thread's c[] is. The counters know no source: each
 * source reserves its region (cupti_cb_services_reserve) and keeps its
 * offset; the regions are laid out one after the other. */
struct cupti_cb_layout {
	unsigned n_devrows;	/* devices + 1 row for operations of unknown device */
	size_t total;
};

/* The ENTERs seen on a thread whose EXIT has not come yet, newest on top.
 * A call's EXIT takes its start time only from its own ENTER (matched by
 * correlation id, CBID and domain), never from a slot that someone else may
 * have written: an EXIT whose ENTER was not seen (enabled in between, or
 * dropped) counts the call but no time. Entries whose EXIT never comes are
 * popped when an older call exits, or overwritten when the ring wraps. */
#define CUPTI_CB_PENDING 8
struct cupti_cb_pending {
	uint64_t key;			/* see cupti_cb_site_key() */
	uint64_t t0;			/* enter time in ticks; 0: not timed */
};

/* Counter sets made before adoption begins: a program with fewer threads than
 * this (that make CUDA calls over its life) has exact per-thread counts;
 * one with more costs at most this many counter sets (each of lay.total
 * counters) plus one per thread alive at once. Process-scope reads walk
 * every counter set. */
#define CUPTI_CB_THREAD_COUNTERS_OWN 256
#define CUPTI_CB_THREAD_NAME 16		/* the kernel's TASK_COMM_LEN */

struct cupti_cb_ovf;

struct cupti_cb_thread_counters {
	struct cupti_cb_thread_counters *next;	/* registry list; set once, before publication */
	atomic_int free;		/* 1: owner exited, may be adopted */
	/* The owner, written by the thread taking the counter set (at creation,
	 * before publication; at adoption, after the CAS on free) and at its
	 * exit; read by listings and attached sets of other threads. Atomic
	 * words so that a listing racing an adoption reads whole values. */
	atomic_long tid;		/* kernel thread id of the latest owner */
	_Atomic uint64_t name[CUPTI_CB_THREAD_NAME / 8];	/* its name, NUL-padded */
	atomic_uint owners;		/* threads whose counts it holds (> 1: shared) */
	uint32_t id;			/* 1, 2, ...: the counter set's number for its whole life (set once,
					   before publication): GPU activity finds its issuer by it */
	int in_lookup;			/* the engine's own driver calls are not counted */
	/* The runtime call in progress on this thread (0: none): driver calls
	 * made meanwhile are nested in it (not all of them carry its
	 * correlation id: a <<<>>> launch was measured to make one that does
	 * not). Tied to the call itself, so a lost EXIT cannot leave the thread
	 * "inside" for ever: the next runtime call replaces it, and its EXIT
	 * clears it. */
	uint32_t rt_corr;
	const char *rt_name;		/* its name, as CUPTI gives it (for the tap) */
	int last_dev;			/* context -> device cache of the owner thread */
	CUcontext last_ctx;
	uint64_t pending_free;		/* what the free in progress took from the allocation table
					   (size and device row, packed: see cupti_cb_callback_count.c) */
	uint64_t last_site;		/* the previous callback's site key */
	unsigned n_pending;		/* pushes so far; the top is pending[(n - 1) % N] */
	struct cupti_cb_pending pending[CUPTI_CB_PENDING];
	/* Calls of the owner that issued GPU work, noted under their
	 * correlation ids while GPU activity is collected (cupti_cb_correlation.h):
	 * the activity source's sign that no work was issued between two
	 * points. Written by the owner only. */
	_Atomic uint64_t issued;
	/* issued as of the owner's last host synchronization (the EXIT of a
	 * cuCtxSynchronize, cuStreamSynchronize or cuEventSynchronize): the
	 * work a read after it waits for (cupti_cb_activity_source.c). Written
	 * by the owner only. */
	_Atomic uint64_t synced;
	/* Of issued: the calls whose first activity record was processed, or
	 * that failed (no record will come). Added to by the thread processing
	 * a buffer and by the owner at a failed call's EXIT. */
	_Atomic uint64_t accounted;
	/* Driver calls of the owner, nested ones too: the sign that GPU work
	 * may have been issued (cupti_cb_services_driver_calls). Written by the
	 * owner only, by the driver domain's listener. */
	_Atomic uint64_t driver_calls;
	atomic_ulong repeats;		/* callbacks delivered twice, dropped */
	atomic_ulong unmatched;		/* EXITs without their ENTER: counted, not timed */
	/* The overflow armed by the owner's running event set, or NULL
	 * (cupti_cb_overflow.h); an exiting or adopting thread drops it. */
	_Atomic(struct cupti_cb_ovf *) ovf;
	/* On a cache line of its own: a source lays counters that are
	 * written together out in lines (cupti_cb_callback_state.h). */
	_Alignas(64) _Atomic uint64_t c[];
};

struct cupti_cb_thread_registry {
	struct cupti_cb_layout lay;
	_Atomic(struct cupti_cb_thread_counters *) head;
	atomic_uint n_counters;
	pthread_key_t exit_key;
	int key_live;			/* exit_key exists (see cupti_cb_thread_registry_detach) */
	unsigned id;			/* this registry, for the whole of its life */
	unsigned generation;		/* tells a thread its cached counter set is stale */
	unsigned own_max;		/* CUPTI_CB_THREAD_COUNTERS_OWN (tests lower it) */
};

/* An empty layout for n_devices devices (n_devices + 1 rows). */
void cupti_cb_layout_init(struct cupti_cb_layout *lay, int n_devices);
/* A region of words counters at the end of every thread's counters; its offset. */
size_t cupti_cb_layout_add(struct cupti_cb_layout *lay, size_t words);
int cupti_cb_thread_registry_init(struct cupti_cb_thread_registry *r, const struct cupti_cb_layout *lay);
/* Only when no thread can touch the registry any more (tests, exit). */
void cupti_cb_thread_registry_fini(struct cupti_cb_thread_registry *r);
/* PAPI_shutdown: drop the thread-exit key, whose destructor lives in
 * libpapi (a dlclose of libpapi must not leave it behind), and make every
 * thread look its counter set up again at its next counted call. Counter sets and
 * their counts stay. attach undoes it at the next use. */
void cupti_cb_thread_registry_detach(struct cupti_cb_thread_registry *r);
int cupti_cb_thread_registry_attach(struct cupti_cb_thread_registry *r);

/* The calling thread's counter set, adopted or created at its first use.
 * NULL only when memory is exhausted. */
struct cupti_cb_thread_counters *cupti_cb_thread_counters_slow(struct cupti_cb_thread_registry *r);

/* Initial-exec TLS: one load off the thread pointer in the hot path instead
 * of a __tls_get_addr call. libpapi is linked at start-up; a libpapi
 * opened with dlopen draws on glibc's static TLS reserve (16 bytes). */
#define CUPTI_CB_TLS _Thread_local __attribute__((tls_model("initial-exec")))
extern CUPTI_CB_TLS struct cupti_cb_thread_counters *cupti_cb_tls_counters;
extern CUPTI_CB_TLS int cupti_cb_tls_own;	/* > 0: inside cupti_cb's own driver calls */

/* Around driver calls that cupti_cb makes itself on a thread (a metric
 * session's contexts, the device of the calling thread): their callbacks
 * are not the application's calls. A thread that has a counter set marks it; one
 * that has none gets none meanwhile. Not for the hot path. */
static inline int cupti_cb_own_begin(void)
{
	struct cupti_cb_thread_counters *b = cupti_cb_tls_counters;
	int prev = b ? b->in_lookup : 0;
	if (b)
		b->in_lookup = 1;
	cupti_cb_tls_own++;
	return prev;
}

static inline void cupti_cb_own_end(int prev)
{
	struct cupti_cb_thread_counters *b = cupti_cb_tls_counters;
	if (b)
		b->in_lookup = prev;
	cupti_cb_tls_own--;
}
extern CUPTI_CB_TLS unsigned cupti_cb_tls_generation;
extern CUPTI_CB_TLS unsigned cupti_cb_tls_registry;

static inline struct cupti_cb_thread_counters *cupti_cb_thread_counters_self(struct cupti_cb_thread_registry *r)
{
	struct cupti_cb_thread_counters *b = cupti_cb_tls_counters;
	if (__builtin_expect(b != NULL && cupti_cb_tls_generation == r->generation, 1))
		return b;
	return cupti_cb_thread_counters_slow(r);
}

/* Owner-only increment: a plain load and store, atomic only so that
 * concurrent readers never see a torn value. */
static inline void cupti_cb_bump(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* What one event reads: rows * n counters, rows apart by stride. */
struct cupti_cb_probe {
	uint32_t off;
	uint16_t n;
	uint16_t rows;
	uint16_t stride;
	uint16_t ticks;		/* a time counter: clock ticks, not ns */
};

static inline uint64_t cupti_cb_probe_thread(const struct cupti_cb_probe *p, const struct cupti_cb_thread_counters *b)
{
	uint64_t v = 0;
	const _Atomic uint64_t *c = b->c + p->off;
	for (unsigned r = 0; r < p->rows; r++, c += p->stride)
		for (unsigned k = 0; k < p->n; k++)
			v += atomic_load_explicit(&c[k], memory_order_relaxed);
	return v;
}

/* What a listing says of one counter set. */
struct cupti_cb_thread_owner {
	long tid;
	char name[CUPTI_CB_THREAD_NAME];	/* NUL-terminated */
	int exited;			/* the latest owner exited */
	unsigned owners;		/* > 1: the counts of several threads */
	uint32_t id;
};
void cupti_cb_thread_owner(const struct cupti_cb_thread_counters *b, struct cupti_cb_thread_owner *o);
/* Fills out[0 .. max-1], newest counter set first; returns how many counter sets there
 * are (may exceed max). Lock-free; safe while threads come and go. */
unsigned cupti_cb_thread_registry_list(const struct cupti_cb_thread_registry *r, struct cupti_cb_thread_owner *out, unsigned max);
/* The counter sets whose latest owner is kernel thread tid (live or exited;
 * several when the kernel reused the id): out[0 .. max-1]; returns how
 * many there are. */
unsigned cupti_cb_thread_registry_find(const struct cupti_cb_thread_registry *r, long tid, const struct cupti_cb_thread_counters **out,
				unsigned max);

/* Sum over every counter set, live or exited: one probe, or the probes i with
 * which[i] != 0 (out[i] for those; the others are left alone). */
uint64_t cupti_cb_probe_process(const struct cupti_cb_probe *p, const struct cupti_cb_thread_registry *r);
void cupti_cb_probe_process_many(const struct cupti_cb_probe *p, const uint8_t *which, unsigned n,
				 const struct cupti_cb_thread_registry *r, uint64_t *out);

#endif
