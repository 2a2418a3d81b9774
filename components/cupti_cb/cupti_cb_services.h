/* cupti_cb_services.h: what the sources share and none of them owns: the
 * loaded libraries, the devices, the one CUPTI subscription and the CBIDs
 * it enables (held as CBID sets), the listeners of each callback domain,
 * the context watch, the per-thread counters and the space each source
 * reserves in them, the correlation map, the driver operations table, the
 * clock. The services know no source; the adapter asks them only for the
 * stage and the reason.
 *
 * Data flows one way: CUPTI -> cupti_cb_services_callback -> the domain's
 * listener (the callback source's hot path) -> per-thread counters -> reads. */
#ifndef CUPTI_CB_SERVICES_H
#define CUPTI_CB_SERVICES_H

#include <pthread.h>
#include <stdatomic.h>

#include "cupti_cb_clock.h"
#include "cupti_cb_core.h"
#include "cupti_cb_driver_ops.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_multiple_subscribers.h"
#include "cupti_cb_thread_counters.h"

#define CUPTI_CB_ENV_TRACE "CUPTI_CB_TRACE"
#define CUPTI_CB_ENV_CHIP  "CUPTI_CB_CHIP"	/* list the metrics of this chip, GPU or not */
#define CUPTI_CB_ENV_CLOCK "CUPTI_CB_CLOCK"	/* "monotonic": CLOCK_MONOTONIC, never the TSC */
/* The device count, given by a caller that must not have cupti_cb call cuInit: a library the
 * CUDA driver loads and runs inside the program's first cuInit (CUDA_INJECTION64_PATH). */
#define CUPTI_CB_ENV_DEVICE_COUNT "CUPTI_CB_DEVICE_COUNT"

/* Opening is lazy and in two stages: the catalogues need only the loaded
 * libraries (libcupti's name table, no driver); the driver stage (cuInit,
 * the device count, the subscriber probe, the per-thread counters) runs
 * where it is really needed. */
enum cupti_cb_state {
	CUPTI_CB_UNINIT = 0,
	CUPTI_CB_CATALOG,		/* libraries loaded, no driver touched */
	CUPTI_CB_READY,
	CUPTI_CB_DISABLED,
};

/* What one event set holds enabled: its CBIDs, and whether it needs the
 * clock. A set holds them from its first start until its events change
 * or it is cleaned up, not only while it runs: CUPTI 13.0 was measured to
 * lose enables that follow disables while other threads make CUDA calls
 * (results/bench/RESULTS.md), so toggling at every start/stop is not exact. */
#define CUPTI_CB_CBID_BYTES(n) (((n) + 7) / 8)
struct cupti_cb_hold {
	uint8_t cbids[2][CUPTI_CB_CBID_BYTES((int)CUPTI_DRIVER_TRACE_CBID_SIZE > (int)CUPTI_RUNTIME_TRACE_CBID_SIZE ?
					     (int)CUPTI_DRIVER_TRACE_CBID_SIZE : (int)CUPTI_RUNTIME_TRACE_CBID_SIZE)];
	uint8_t timed;
	uint8_t active;
	unsigned epoch;			/* the engine's open epoch it was taken in */
};

struct cupti_cb_correlation_map;

/* Per-thread counter space a source reserved (cupti_cb_services_reserve). */
#define CUPTI_CB_MAX_RESERVATIONS 8
struct cupti_cb_reservation {
	size_t fixed;
	size_t per_row;
	size_t *offset;
};

/* A listener of one callback domain: runs on the application's thread for
 * every enabled CBID of the domain, under the hot path's rules (no lock,
 * no allocation, no system call but a clock read). */
typedef void (*cupti_cb_listener_fn)(void *arg, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				     const CUpti_CallbackData *cd);

/* created: 1 after a context is created, 0 before it is destroyed. Runs
 * on the application thread that creates or destroys it. */
typedef void (*cupti_cb_context_fn)(void *arg, CUcontext ctx, int created);

struct cupti_cb_services {
	/* What the callbacks read at every call, first and together (two cache
	 * lines, where the application's own work between two CUDA calls
	 * evicts whatever it touches): the listeners, the operations, the
	 * clock, the correlation table; the registry's generation follows. */
	struct {
		cupti_cb_listener_fn fn;
		void *arg;
	} listener[2];			/* [0] runtime, [1] driver */
	const struct cupti_cb_op **op_of;	/* driver CBID -> operation, or NULL */
	/* While a set with GPU activity events holds its CBIDs: the table in
	 * which the callback notes which thread issued each launch, graph
	 * launch, copy and memset (cupti_cb_correlation.h). NULL otherwise. */
	_Atomic(struct cupti_cb_correlation_map *) corr;
	atomic_int timing;		/* read the clock in callbacks */
	struct cupti_cb_clock clock;
	struct cupti_cb_thread_registry reg;
	struct cupti_cb_resolver resolver;	/* pointer and context lookups through the driver */

	enum cupti_cb_state state;
	char why[CUPTI_CB_WHY_LEN];	/* the disabled reason, or the last start error */
	/* Not "" when the catalogue was opened without a driver because
	 * CUPTI_CB_CHIP names a chip (a login node): why nothing can be added
	 * here. The events are listed; the driver stage is never tried. */
	char listing_only[CUPTI_CB_WHY_LEN];
	struct cupti_cb_api api;	/* loaded functions (faked by unit tests) */
	uint32_t n_cbids[2];		/* [0] runtime, [1] driver: CBID table sizes */

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

	struct cupti_cb_reservation reserved[CUPTI_CB_MAX_RESERVATIONS];
	unsigned n_reserved;

	/* The GPU's performance counters, shared by the sources of hardware
	 * metrics (cupti_cb_services_profiler_hold, _claim_counters). */
	pthread_mutex_t counters_lock;
	unsigned profiler_holds;
	const char *counters_holder[CUPTI_CB_MAX_DEVICES];	/* a source's label, or NULL */

	int trace;			/* CUPTI_CB_TRACE=1: log the cold path to stderr */
	int monotonic;			/* CUPTI_CB_CLOCK=monotonic */
};

/* Stage one: loads libcupti (and libcuda, no cuInit). No driver, no GPU.
 * On failure state is DISABLED and why holds the sentence. Idempotent. */
int cupti_cb_services_open_catalog(struct cupti_cb_services *e);
/* Stage two: cuInit, counts devices, probes for another subscriber, lays
 * out the per-thread counters. Idempotent. */
int cupti_cb_services_open(struct cupti_cb_services *e);

/* cuInit and the device count, nothing else (no subscription, no
 * context): for a source that needs to know the devices before the driver
 * stage, such as the metric catalogue that needs device 0's chip. Needs
 * libcuda loaded by the catalogue stage. Thread-safe; 0, or -1 with why. */
int cupti_cb_services_count_devices(struct cupti_cb_services *e, int *n, char *why, size_t len);

/* The driver stage's set-up, once the device count is known. */
int cupti_cb_services_setup_driver(struct cupti_cb_services *e, int n_devices);
/* fork(): the child of a process whose CUDA was initialized cannot use
 * CUDA or CUPTI; the services then disable themselves there with a
 * sentence, as they do where another thread was opening them (busy).
 * Returns 1 when the state changed so. */
int cupti_cb_services_fork_child(struct cupti_cb_services *e, int busy);
/* PAPI_library_init again after PAPI_shutdown: the thread counters serve
 * again (cupti_cb_thread_registry_attach). */
void cupti_cb_services_reattach(struct cupti_cb_services *e);
/* The component's description once libcupti is loaded: which one, its
 * version, whether CUPTI is shared. -1 before. */
int cupti_cb_services_describe(const struct cupti_cb_services *e, char *buf, size_t len);
/* Whether kernel thread tid has counters (it made a counted CUDA call). */
int cupti_cb_services_thread_known(struct cupti_cb_services *e, long tid);
/* The threads with counters, in the order they got them (*out is
 * malloc'ed; the caller frees it); -1 when memory is exhausted. */
int cupti_cb_services_threads(struct cupti_cb_services *e, struct cupti_cb_thread_owner **out);

/* Whether cupti_cb asks CUPTI to share the process with other subscribers
 * (the loaded libcupti is 13.2 or newer); and one line saying which
 * libcupti is loaded and that, for listings and traces. */
int cupti_cb_services_can_share(const struct cupti_cb_services *e);
void cupti_cb_services_cupti_summary(const struct cupti_cb_services *e, char *buf, size_t len);
/* The subscription now: -1 if none (*sub NULL), else 1 if shared, 0 if
 * exclusive. A source that makes subscriber-scoped calls reads it while a
 * hold of its own keeps the subscription. */
int cupti_cb_services_subscriber(struct cupti_cb_services *e, CUpti_SubscriberHandle *sub);

/* fn hears every enabled callback of domain (runtime or driver) from now
 * on. One listener per domain. */
void cupti_cb_services_listen(struct cupti_cb_services *e, CUpti_CallbackDomain domain, cupti_cb_listener_fn fn,
			      void *arg);

/* Drops the subscription (callbacks disabled first) and, when no thread can
 * call back any more, the memory. */
void cupti_cb_services_close(struct cupti_cb_services *e);
void cupti_cb_services_destroy(struct cupti_cb_services *e);

/* An event set starts: make h hold exactly the CBIDs of want (and the
 * clock if want->timed), subscribing at the first holder. A failure undoes
 * exactly what this call did, and copies the sentence into why. */
int cupti_cb_services_hold_cbids(struct cupti_cb_services *e, struct cupti_cb_hold *h, const struct cupti_cb_hold *want,
				 char *why, size_t why_len);
/* The set is cleaned up: let go of h; after the last holder every callback
 * is disabled and the subscription dropped. */
void cupti_cb_services_unhold(struct cupti_cb_services *e, struct cupti_cb_hold *h);
/* The CBIDs of every driver call that issues GPU work (launches, graph
 * launches, copies, memsets: the calls whose correlation ids GPU activity
 * records carry); of every driver call. */
void cupti_cb_services_work_cbids(const struct cupti_cb_services *e, struct cupti_cb_hold *want);
void cupti_cb_services_driver_cbids(const struct cupti_cb_services *e, struct cupti_cb_hold *want);

/* Context watch, a service for the sources: fn hears of every context
 * created or destroyed from now on, through the one subscription, until
 * cupti_cb_services_unwatch_contexts. One watcher at a time. Returns 0, or
 * an error with the sentence in why. */
int cupti_cb_services_watch_contexts(struct cupti_cb_services *e, cupti_cb_context_fn fn, void *arg, char *why,
				   size_t why_len);
void cupti_cb_services_unwatch_contexts(struct cupti_cb_services *e);
/* The resource-domain part of the callback. */
void cupti_cb_services_resource(struct cupti_cb_services *e, CUpti_CallbackId cbid, const void *cbdata);

/* Per-thread counter space for a source: fixed counters plus per_row for
 * each device row (the devices, then one for work of unknown device), in
 * every thread's counters. Asked before the driver stage; *offset is set
 * when the counters are laid out. 0, or -1 when the table is full or the
 * counters are laid out already. */
int cupti_cb_services_reserve(struct cupti_cb_services *e, size_t fixed, size_t per_row, size_t *offset);

/* Driver calls of every thread so far (nested ones too), while some hold
 * enables the driver domain: all GPU work is issued through them. */
uint64_t cupti_cb_services_driver_calls(const struct cupti_cb_services *e);

/* CUPTI's profiler (cuptiProfilerInitialize) is one per process, and the
 * sources of hardware metrics share it: up runs at the first hold, down
 * after the last release, each with arg. A hold whose up fails is not
 * taken: 0, or -1 with up's sentence in why. */
typedef int (*cupti_cb_profiler_up_fn)(void *arg, char *why, size_t len);
typedef void (*cupti_cb_profiler_down_fn)(void *arg);
int cupti_cb_services_profiler_hold(struct cupti_cb_services *e, cupti_cb_profiler_up_fn up, void *arg, char *why,
				    size_t len);
void cupti_cb_services_profiler_release(struct cupti_cb_services *e, cupti_cb_profiler_down_fn down, void *arg);

/* A device's performance counters serve one collector at a time: the
 * Range Profiler's or PM sampling's (while one runs, the other's start
 * fails with CUPTI_ERROR_HARDWARE_BUSY). A source claims the device's
 * counters with its label for as long as it collects there. 0 (claimed,
 * or already by who), or CUPTI_CB_ECONFLICT with a sentence naming the
 * holder in why. */
int cupti_cb_services_claim_counters(struct cupti_cb_services *e, int dev, const char *who, char *why, size_t len);
/* The same check without the claim: for an add, which knows the
 * conflict before a start. */
int cupti_cb_services_check_counters(struct cupti_cb_services *e, int dev, const char *who, char *why, size_t len);
void cupti_cb_services_release_counters(struct cupti_cb_services *e, int dev, const char *who);

static inline struct cupti_cb_thread_counters *cupti_cb_services_thread_counters(struct cupti_cb_services *e)
{
	return cupti_cb_thread_counters_self(&e->reg);
}

/* The CUPTI callback (CUpti_CallbackFunc); userdata is the services. */
void CUPTIAPI cupti_cb_services_callback(void *userdata, CUpti_CallbackDomain domain,
					 CUpti_CallbackId cbid, const void *cbdata);

#endif
