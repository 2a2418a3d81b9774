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

#include "cupti_cb_allocs.h"
#include "cupti_cb_blocks.h"
#include "cupti_cb_catalog.h"
#include "cupti_cb_clock.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_ops.h"

#define CUPTI_CB_WHY_LEN 512
#define CUPTI_CB_ENV_TRACE "CUPTI_CB_TRACE"
#define CUPTI_CB_ENV_KEEP "CUPTI_CB_KEEP_CALLBACKS"

enum cupti_cb_state {
	CUPTI_CB_UNINIT = 0,
	CUPTI_CB_READY,
	CUPTI_CB_DISABLED,
};

enum cupti_cb_acquire_err {
	CUPTI_CB_ECONFLICT = -10,	/* another CUPTI subscriber holds the process */
	CUPTI_CB_ECUPTI = -11,		/* CUPTI refused; why says how */
};

struct cupti_cb_engine {
	enum cupti_cb_state state;
	char why[CUPTI_CB_WHY_LEN];	/* the disabled reason, or the last start error */

	struct cupti_cb_api api;	/* loaded functions (faked by unit tests) */
	struct cupti_cb_catalog cat;
	struct cupti_cb_registry reg;
	struct cupti_cb_allocs allocs;
	struct cupti_cb_resolver resolver;
	const struct cupti_cb_op **op_of;	/* driver CBID -> operation, or NULL */

	/* Cold path, under lock: which CBIDs running event sets hold. */
	pthread_mutex_t lock;
	uint32_t *refs[2];		/* running sets that need each CBID */
	uint8_t *on[2];			/* CBIDs CUPTI has enabled for us */
	unsigned timing_refs;
	unsigned holders;		/* event sets running */
	CUpti_SubscriberHandle sub;
	int subscribed;

	atomic_int timing;		/* read the clock in callbacks */
	struct cupti_cb_clock clock;
	int trace;			/* CUPTI_CB_TRACE=1: log the cold path to stderr */
	/* Keep every callback enabled once a set needed it, and the
	 * subscription, until PAPI_shutdown. CUPTI 13.0 was measured to lose
	 * an enable that follows a disable while other threads make CUDA
	 * calls (bench/RESULTS.md); keeping them makes start/stop churn exact,
	 * at the price of CUPTI's dispatch on those APIs after PAPI_stop. */
	int keep;
};

/* Loads libcupti and libcuda, checks for a device and for another
 * subscriber, then sets up. On failure state is DISABLED and why holds the
 * sentence. Idempotent. */
int cupti_cb_engine_open(struct cupti_cb_engine *e);

/* Sets up with an api already filled in (the unit tests' entry point). */
int cupti_cb_engine_setup(struct cupti_cb_engine *e, int n_devices);

/* Drops the subscription (callbacks disabled first) and, when no thread can
 * call back any more, the memory. */
void cupti_cb_engine_close(struct cupti_cb_engine *e);
void cupti_cb_engine_destroy(struct cupti_cb_engine *e);

/* An event set starts / stops: enable / disable the CBIDs its codes need,
 * subscribing at the first holder and unsubscribing after the last. */
int cupti_cb_engine_acquire(struct cupti_cb_engine *e, const uint32_t *codes, unsigned n);
void cupti_cb_engine_release(struct cupti_cb_engine *e, const uint32_t *codes, unsigned n);

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
					   const struct cupti_cb_block *thread_block)
{
	return thread_block ? cupti_cb_probe_block(p, thread_block) : cupti_cb_probe_process(p, &e->reg);
}

static inline struct cupti_cb_block *cupti_cb_engine_thread_block(struct cupti_cb_engine *e)
{
	return cupti_cb_block_self(&e->reg);
}

/* The CUPTI callback (CUpti_CallbackFunc); userdata is the engine. */
void CUPTIAPI cupti_cb_engine_callback(void *userdata, CUpti_CallbackDomain domain,
				       CUpti_CallbackId cbid, const void *cbdata);

#endif
