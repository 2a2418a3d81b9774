/* cupti_cb_engine.h: the callback engine. It owns the catalogue, the
 * per-thread counter blocks and the CUPTI subscription, enables exactly the
 * CBIDs that running event sets need, and counts in the callback.
 *
 * Data flows one way: CUPTI -> cupti_cb_engine_callback -> blocks -> reads.
 * The PAPI adapter talks to this interface only. */
#ifndef CUPTI_CB_ENGINE_H
#define CUPTI_CB_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>

#include "cupti_cb_callback_allocations.h"
#include "cupti_cb_thread_counters.h"
#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_clock.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_multiple_subscribers.h"
#include "cupti_cb_callback_ops.h"
#include "cupti_cb_callback_windows.h"

#define CUPTI_CB_ENV_TRACE "CUPTI_CB_TRACE"
#define CUPTI_CB_ENV_CHIP  "CUPTI_CB_CHIP"	/* list the metrics of this chip, GPU or not */
#define CUPTI_CB_ENV_CLOCK "CUPTI_CB_CLOCK"	/* "monotonic": CLOCK_MONOTONIC, never the TSC */
/* The device count, given by a caller that must not have cupti_cb call cuInit: a library the
 * CUDA driver loads and runs inside the program's first cuInit (CUDA_INJECTION64_PATH). */
#define CUPTI_CB_ENV_DEVICE_COUNT "CUPTI_CB_DEVICE_COUNT"

/* Opening is lazy and in two stages: the catalogue needs only libcupti's
 * name table (no driver); the driver stage (cuInit, the device count, the
 * subscriber probe, the counter blocks) runs where it is really needed. */
enum cupti_cb_state {
	CUPTI_CB_UNINIT = 0,
	CUPTI_CB_CATALOG,		/* names known, no driver touched */
	CUPTI_CB_READY,
	CUPTI_CB_DISABLED,
};

/* What one event set holds enabled: its CBIDs, and whether it needs the
 * clock. A set holds them from its first start until its events change
 * or it is cleaned up, not only while it runs: CUPTI 13.0 was measured to
 * lose enables that follow disables while other threads make CUDA calls
 * (bench/RESULTS.md), so toggling at every start/stop is not exact. */
#define CUPTI_CB_CBID_BYTES(n) (((n) + 7) / 8)
struct cupti_cb_hold {
	uint8_t cbids[2][CUPTI_CB_CBID_BYTES((int)CUPTI_DRIVER_TRACE_CBID_SIZE > (int)CUPTI_RUNTIME_TRACE_CBID_SIZE ?
					     (int)CUPTI_DRIVER_TRACE_CBID_SIZE : (int)CUPTI_RUNTIME_TRACE_CBID_SIZE)];
	uint8_t timed;
	uint8_t active;
	unsigned epoch;			/* the engine's open epoch it was taken in */
};

struct cupti_cb_correlation_map;

/* Per-thread counter space a source reserved (cupti_cb_engine_reserve). */
#define CUPTI_CB_MAX_RESERVATIONS 8
struct cupti_cb_reservation {
	size_t per_row;
	size_t *offset;
};

/* created: 1 after a context is created, 0 before it is destroyed. Runs
 * on the application thread that creates or destroys it. */
typedef void (*cupti_cb_context_fn)(void *arg, CUcontext ctx, int created);

struct cupti_cb_engine {
	enum cupti_cb_state state;
	char why[CUPTI_CB_WHY_LEN];	/* the disabled reason, or the last start error */

	struct cupti_cb_api api;	/* loaded functions (faked by unit tests) */
	struct cupti_cb_catalog cat;
	struct cupti_cb_thread_registry reg;
	struct cupti_cb_allocs allocs;
	struct cupti_cb_windows win;	/* min/max/peak windows and the live bytes */
	struct cupti_cb_resolver resolver;
	const struct cupti_cb_op **op_of;	/* driver CBID -> operation, or NULL */

	/* Cold path, under lock: which CBIDs running event sets hold. */
	pthread_mutex_t lock;
	uint32_t *refs[2];		/* running sets that need each CBID */
	uint8_t *on[2];			/* CBIDs CUPTI has enabled for us */
	unsigned timing_refs;
	unsigned holders;		/* event sets holding CBIDs */
	unsigned epoch;			/* bumped when the engine lets go of CUPTI */
	CUpti_SubscriberHandle sub;
	int subscribed;
	int shared;			/* sub was taken with allowMultipleSubscribers=1 */
	int n_devices;

	/* Contexts created and destroyed, for the sources that follow them
	 * (the metric source profiles every context of a device). */
	cupti_cb_context_fn on_context;
	void *on_context_arg;
	int watching;			/* resource callbacks enabled: holds the subscription */

	atomic_int counted;		/* devices, once cuInit succeeded; 0 before */

	/* While a set with GPU activity events holds its CBIDs: the table in
	 * which the callback notes which thread issued each launch, graph
	 * launch, copy and memset (cupti_cb_correlation.h). NULL otherwise. */
	_Atomic(struct cupti_cb_correlation_map *) corr;

	struct cupti_cb_reservation reserved[CUPTI_CB_MAX_RESERVATIONS];
	unsigned n_reserved;

	atomic_int timing;		/* read the clock in callbacks */
	struct cupti_cb_clock clock;
	int trace;			/* CUPTI_CB_TRACE=1: log the cold path to stderr */
	int monotonic;			/* CUPTI_CB_CLOCK=monotonic */
};

/* Stage one: loads libcupti and builds the catalogue. No driver, no GPU.
 * On failure state is DISABLED and why holds the sentence. Idempotent. */
int cupti_cb_engine_open_catalog(struct cupti_cb_engine *e);
/* Stage two: loads libcuda, cuInit, counts devices, probes for another
 * subscriber, sets up the counter blocks. Idempotent. */
int cupti_cb_engine_open(struct cupti_cb_engine *e);

/* cuInit and the device count, nothing else (no subscription, no
 * context): for a source that needs to know the devices before the driver
 * stage, such as the metric catalogue that needs device 0's chip. Needs
 * libcuda loaded by the catalogue stage. Thread-safe; 0, or -1 with why. */
int cupti_cb_engine_count_devices(struct cupti_cb_engine *e, int *n, char *why, size_t len);

/* The driver stage's set-up, once the device count is known. */
int cupti_cb_engine_setup_driver(struct cupti_cb_engine *e, int n_devices);
/* Sets up with an api already filled in (the unit tests' entry point). */
int cupti_cb_engine_setup(struct cupti_cb_engine *e, int n_devices);
/* fork(): the child of a process whose CUDA was initialized cannot use
 * CUDA or CUPTI; the engine then disables itself there with a sentence. */
void cupti_cb_engine_after_fork_child(struct cupti_cb_engine *e);

/* Whether cupti_cb asks CUPTI to share the process with other subscribers
 * (the loaded libcupti is 13.2 or newer); and one line saying which
 * libcupti is loaded and that, for listings and traces. */
int cupti_cb_engine_can_share(const struct cupti_cb_engine *e);
void cupti_cb_engine_cupti_summary(const struct cupti_cb_engine *e, char *buf, size_t len);
/* The subscription now: -1 if none (*sub NULL), else 1 if shared, 0 if
 * exclusive. A source that makes subscriber-scoped calls reads it while a
 * hold of its own keeps the subscription. */
int cupti_cb_engine_subscriber(struct cupti_cb_engine *e, CUpti_SubscriberHandle *sub);

/* Drops the subscription (callbacks disabled first) and, when no thread can
 * call back any more, the memory. */
void cupti_cb_engine_close(struct cupti_cb_engine *e);
void cupti_cb_engine_destroy(struct cupti_cb_engine *e);

/* An event set starts: make h hold exactly the CBIDs its codes need (and
 * enable them), subscribing at the first holder. A failure undoes exactly
 * what this call did, and copies the sentence into why. */
int cupti_cb_engine_hold(struct cupti_cb_engine *e, struct cupti_cb_hold *h, const uint32_t *codes,
			 unsigned n, char *why, size_t why_len);
/* The same for a set of CBIDs (want's cbids and timed), the services'
 * form: a source that counts nothing of the callback source's asks for
 * the calls it needs this way. */
int cupti_cb_engine_hold_cbids(struct cupti_cb_engine *e, struct cupti_cb_hold *h, const struct cupti_cb_hold *want,
			       char *why, size_t why_len);
/* The CBIDs of callback event codes; of every driver call that issues GPU
 * work (launches, graph launches, copies, memsets: the calls whose
 * correlation ids GPU activity records carry); of every driver call. */
void cupti_cb_engine_cbids_of(const struct cupti_cb_engine *e, const uint32_t *codes, unsigned n,
			      struct cupti_cb_hold *want);
void cupti_cb_engine_work_cbids(const struct cupti_cb_engine *e, struct cupti_cb_hold *want);
void cupti_cb_engine_driver_cbids(const struct cupti_cb_engine *e, struct cupti_cb_hold *want);
/* The set is cleaned up: let go of h; after the last holder every callback
 * is disabled and the subscription dropped. */
void cupti_cb_engine_unhold(struct cupti_cb_engine *e, struct cupti_cb_hold *h);
/* Unit tests: hold and unhold as a set's start and cleanup do. */
static inline int cupti_cb_engine_acquire(struct cupti_cb_engine *e, struct cupti_cb_hold *h,
					  const uint32_t *codes, unsigned n)
{
	return cupti_cb_engine_hold(e, h, codes, n, NULL, 0);
}

/* Context watch, a service for the sources: fn hears of every context
 * created or destroyed from now on, through the one subscription, until
 * cupti_cb_engine_unwatch_contexts. One watcher at a time. Returns 0, or
 * an error with the sentence in why. */
int cupti_cb_engine_watch_contexts(struct cupti_cb_engine *e, cupti_cb_context_fn fn, void *arg, char *why,
				   size_t why_len);
void cupti_cb_engine_unwatch_contexts(struct cupti_cb_engine *e);
/* The resource-domain part of the callback. */
void cupti_cb_engine_resource(struct cupti_cb_engine *e, CUpti_CallbackId cbid, const void *cbdata);

/* Per-thread counter space for a source that counts per thread and
 * device: per_row counters for each device row (the devices, then one for
 * work of unknown device) in every thread's counters. Asked before the
 * driver stage; *offset is set when the counters are laid out. 0, or -1
 * when the table is full or the counters are laid out already. */
int cupti_cb_engine_reserve(struct cupti_cb_engine *e, size_t per_row, size_t *offset);
/* The callback counters' regions of a layout (tests lay out with it too). */
void cupti_cb_callback_layout(struct cupti_cb_layout *lay, unsigned n_funcs, int n_devices);

/* Driver calls of every thread so far (nested ones too), while some hold
 * enables the driver domain: all GPU work is issued through them. */
uint64_t cupti_cb_engine_driver_calls(const struct cupti_cb_engine *e);

/* Reading. */
struct cupti_cb_probe cupti_cb_engine_probe(const struct cupti_cb_engine *e, uint32_t code);
/* A counter value, or a difference of two, in its unit: time counters hold
 * clock ticks. Calibrate once before converting a set of values. */
static inline uint64_t cupti_cb_engine_value(struct cupti_cb_engine *e, const struct cupti_cb_probe *p,
					     uint64_t raw)
{
	return p->ticks ? cupti_cb_clock_to_ns(&e->clock, raw) : raw;
}

static inline uint64_t cupti_cb_engine_raw(struct cupti_cb_engine *e, const struct cupti_cb_probe *p,
					   const struct cupti_cb_thread_counters *thread_block)
{
	return thread_block ? cupti_cb_probe_block(p, thread_block) : cupti_cb_probe_process(p, &e->reg);
}

static inline struct cupti_cb_thread_counters *cupti_cb_engine_thread_block(struct cupti_cb_engine *e)
{
	return cupti_cb_thread_counters_self(&e->reg);
}

/* The CUPTI callback (CUpti_CallbackFunc); userdata is the engine. */
void CUPTIAPI cupti_cb_engine_callback(void *userdata, CUpti_CallbackDomain domain,
				       CUpti_CallbackId cbid, const void *cbdata);

#endif
