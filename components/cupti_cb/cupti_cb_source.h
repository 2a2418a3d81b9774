/* cupti_cb_source.h: the one narrow interface every source of counters
 * offers the PAPI adapter (cupti_cb.c). A source is a peer: the callback
 * counters, the hardware metrics, the GPU activity. The adapter
 * knows nothing else about them: it splits an event set's events by the
 * source in their code, and gathers the values each source reads into
 * PAPI's positions.
 *
 *   PAPI -> cupti_cb.c -> struct cupti_cb_source (catalogue, sets)
 *                              |-> callback source (cupti_cb_callback_source.c)
 *                              |-> metric source   (cupti_cb_metric_source.c)
 *                              '-> activity source (cupti_cb_activity_source.c)
 *   shared services (struct cupti_cb_engine): libraries, the CUPTI
 *   subscription and its context callbacks, devices, clock, thread blocks.
 *
 * Codes. Every source uses the same qualifier bits, so that qualifiers
 * parse and print the same way everywhere:
 *   bits  0..13  index within the source
 *   bits 14..20  device + 1 (0: no device qualifier)
 *   bit  21      :process
 *   bits 22..23  source
 *   bits 24..30  variant within the source (a metric's rollup/submetric)
 * The callback source's codes have source 0 and variant 0, the codes it
 * always had. */
#ifndef CUPTI_CB_SOURCE_H
#define CUPTI_CB_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_callback_catalog.h"

enum cupti_cb_source_id {
	CUPTI_CB_SRC_CALLBACK = 0,
	CUPTI_CB_SRC_METRIC = 1,
	CUPTI_CB_SRC_ACTIVITY = 2,
	CUPTI_CB_N_SOURCES
};

#define CUPTI_CB_SRC_SHIFT 22
#define CUPTI_CB_VAR_SHIFT 24
#define CUPTI_CB_VAR_MAX   127
#define CUPTI_CB_CODE_SRC(c) (((c) >> CUPTI_CB_SRC_SHIFT) & 3u)
#define CUPTI_CB_CODE_VAR(c) (((c) >> CUPTI_CB_VAR_SHIFT) & 0x7fu)
#define CUPTI_CB_SCODE(src, idx, var, dev, proc) \
	(CUPTI_CB_CODE(idx, dev, proc) | (uint32_t)(src) << CUPTI_CB_SRC_SHIFT | (uint32_t)(var) << CUPTI_CB_VAR_SHIFT)
/* The code without its qualifiers. */
#define CUPTI_CB_CODE_UNQUALIFIED(c) ((c) & ~((0x7fu << CUPTI_CB_IDX_BITS) | (1u << 21)))

/* How far the shared services are open; a source builds what it can at
 * each stage (see cupti_cb_engine.h). */
enum cupti_cb_stage { CUPTI_CB_STAGE_NAMES = 1, CUPTI_CB_STAGE_DRIVER = 2 };

/* Errors: enum cupti_cb_err, and these. */
enum cupti_cb_source_err {
	CUPTI_CB_EPASSES = -20,		/* the set needs more than one pass */
	CUPTI_CB_EUNAVAIL = -21,	/* the source cannot work here; why says why */
	CUPTI_CB_EPERM = -22,		/* not permitted (profiling restricted to admins) */
	CUPTI_CB_EDROPPED = -23,	/* a read whose values miss records CUPTI dropped (a warning) */
	CUPTI_CB_ELIMIT = -24,		/* a fixed limit of the component; why names it */
	CUPTI_CB_ECOMBO = -25,		/* an event an attached set cannot count; why says why */
};

/* What a source says about one of its events. */
struct cupti_cb_event_facts {
	char units[64];
	int is_double;			/* PAPI_DATATYPE_FP64 rather than UINT64 */
	int running_sum;		/* a count that only grows, rather than a ratio or rate */
	int is_signed;			/* PAPI_DATATYPE_INT64: a change that may be negative */
};

struct cupti_cb_source_ops {
	const char *label;		/* "callback", "metric": for traces */

	/* -- catalogue -- */
	/* Whether name could be this source's, from its form alone: nothing
	 * may be loaded to answer. */
	int (*may_be_ours)(const char *name);
	/* The shared services reached stage: build what this stage allows.
	 * A source that cannot work here keeps why and lists nothing; the
	 * other sources are not affected. */
	void (*opened)(void *self, enum cupti_cb_stage stage);
	/* Enumeration of base events: first, then next until non-zero. */
	int (*first)(void *self, uint32_t *code);
	int (*next)(void *self, uint32_t *code);
	/* Qualified variants of a base event, one at a time. */
	int (*first_qualifier)(void *self, uint32_t *code);
	int (*next_qualifier)(void *self, uint32_t *code);
	int (*parse)(void *self, const char *name, uint32_t *code);
	int (*event_name)(void *self, uint32_t code, char *buf, size_t len);
	int (*descr)(void *self, uint32_t code, char *buf, size_t len);
	int (*qualifier_descr)(void *self, uint32_t code, char *buf, size_t len);
	int (*facts)(void *self, uint32_t code, struct cupti_cb_event_facts *f);
	int (*valid)(void *self, uint32_t code);
	/* Why this source lists nothing or cannot count ("" when it can). */
	const char *(*why)(void *self);
	/* Base events it lists now. */
	unsigned (*count)(void *self);
	/* PAPI_shutdown: let go of CUPTI; the catalogue may stay. */
	void (*close)(void *self);

	/* -- event sets: the adapter keeps one opaque set per source -- */
	void *(*set_new)(void *self);
	void (*set_free)(void *self, void *set);	/* lets go of everything it holds */
	/* The set's events changed (codes in the source's own order). Checks
	 * the set as a whole: an error here is the error of PAPI_add_event. */
	int (*set_update)(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len);
	void (*set_granularity)(void *self, void *set, int process);
	/* PAPI_attach: the set counts kernel thread tid's work (0: its own
	 * thread again); called before set_update, which then refuses the
	 * events that have no per-thread meaning (CUPTI_CB_ECOMBO). An
	 * attached set's start does not zero it: its reads give the thread's
	 * counts since the thread's first counted call, until a reset. NULL:
	 * none of the source's events can be attached. */
	void (*set_attach)(void *self, void *set, long tid);
	int (*set_start)(void *self, void *set, char *why, size_t len);
	/* Values since start (or reset), in the order of set_update's codes;
	 * a double travels in the long long's bits, as PAPI expects. */
	int (*set_read)(void *self, void *set, long long *values);
	int (*set_stop)(void *self, void *set);
	int (*set_reset)(void *self, void *set);
	/* Its set_stop and set_reset may refuse in a signal handler: the
	 * adapter asks such sources before the others, so that a refusal
	 * changes nothing. */
	int may_refuse_in_handler;
	/* Optional: the sentence of the set's last failed read, stop or reset
	 * ("" if none), for PAPI_VERBOSE. */
	const char *(*set_why)(void *self, void *set);

	/* -- PAPI_overflow (cupti_cb_overflow.h); NULL: none of the source's
	 * events can drive one, and the adapter refuses it -- */
	/* Event ix (in set_update's order) raises signal sig on the thread
	 * whose call makes it cross each multiple of threshold events counted
	 * since the set's start; 0: no longer. Checked here (an event that
	 * cannot: an error with why), armed by set_start on the starting
	 * thread; set_update keeps the thresholds of the events that stay. */
	int (*set_overflow)(void *self, void *set, unsigned ix, uint64_t threshold, int sig, char *why, size_t len);
	/* In sig's handler, on the set's thread: one crossing of event ix
	 * taken (1), or none pending (0). Async-signal-safe. */
	int (*set_overflow_take)(void *self, void *set, unsigned ix);
};

struct cupti_cb_source {
	const struct cupti_cb_source_ops *ops;
	void *self;
};

#endif
