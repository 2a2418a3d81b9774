/* cupti_cb_source.h: the one narrow interface every source of counters
 * offers the PAPI adapter (cupti_cb.c). A source is a descriptor: its name,
 * its catalogue operations and its event-set operations, listed once in
 * cupti_cb_sources.c. The adapter loops over that list and never names a
 * source; it splits an event set's events by the source in their code and
 * gathers the values each source reads into PAPI's positions. Names and
 * qualifiers are the core's (cupti_cb_core.h, cupti_cb_events.c): a source
 * looks up base names and says which qualifiers each event takes.
 *
 *   PAPI -> cupti_cb.c -> cupti_cb_sources[] (cupti_cb_source.h)
 *                              |-> callback source (cupti_cb_callback_source.c)
 *                              |-> metric source   (cupti_cb_metric_source.c)
 *                              '-> activity source (cupti_cb_activity_source.c)
 *   shared services (cupti_cb_services.h): libraries, the CUPTI
 *   subscription, devices, clock, per-thread counters. */
#ifndef CUPTI_CB_SOURCE_H
#define CUPTI_CB_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_core.h"

struct cupti_cb_services;

#define CUPTI_CB_SET_MAX 1024	/* events in one event set, all sources together: room for every
				   counter of one kind per API function (PAPI 7 adds an event in time
				   proportional to the square of the set size: larger sets belong
				   to several threads) */

/* How far the shared services are open; a source builds what it can at
 * each stage. */
enum cupti_cb_stage { CUPTI_CB_STAGE_NAMES = 1, CUPTI_CB_STAGE_DRIVER = 2 };

/* What a source says about one of its events. */
struct cupti_cb_event_facts {
	char units[64];
	int is_double;			/* PAPI_DATATYPE_FP64 rather than UINT64 */
	int running_sum;		/* a count that only grows, rather than a ratio or rate */
	int is_signed;			/* PAPI_DATATYPE_INT64: a change that may be negative */
};

struct cupti_cb_source_ops {
	const char *label;		/* "callback", "metric": for traces and messages */
	/* Why none of its events can drive PAPI_overflow (set_overflow NULL). */
	const char *no_overflow_why;
	/* Optional: a word every name of the source carries as a qualifier
	 * (":sampled"), required when parsing and printed when naming, so
	 * that two sources may count the same base names in different ways.
	 * A source without one refuses names that carry another's. */
	const char *tag;
	/* Its state over the shared services; id is its place in the list,
	 * the source bits of its codes. NULL: out of memory. */
	void *(*open)(struct cupti_cb_services *services, unsigned id);
	/* Optional: a fork() child of a process whose CUDA was initialized
	 * (locks held by threads that are gone). */
	void (*after_fork_child)(void *self);

	/* -- catalogue -- */
	/* Whether base (a name without "cupti_cb:::" and qualifiers) could be
	 * this source's, from its form alone: nothing may be loaded to answer. */
	int (*may_be_ours)(const char *base);
	/* Optional: whether base may be one of its names misspelt, from its
	 * form alone (nothing may be loaded to answer): after a failed
	 * lookup, the catalogue is then searched for the nearest names
	 * (cupti_cb_suggest.h). NULL: may_be_ours answers. */
	int (*may_be_near)(const char *base);
	/* The shared services reached stage: build what this stage allows.
	 * A source that cannot work here keeps why and lists nothing; the
	 * other sources are not affected. */
	void (*opened)(void *self, enum cupti_cb_stage stage);
	/* Enumeration of base events: first, then next until non-zero. */
	int (*first)(void *self, uint32_t *code);
	int (*next)(void *self, uint32_t *code);
	/* A base name to its code, without qualifiers (enum cupti_cb_err). */
	int (*lookup)(void *self, const char *base, uint32_t *code);
	/* The qualifiers the event of a base code takes (enum cupti_cb_qualifier). */
	unsigned (*qualifiers)(void *self, uint32_t code);
	/* Devices its device qualifiers range over now (listing, checks). */
	int (*devices)(void *self);
	/* The name of a code without its qualifiers. */
	int (*base_name)(void *self, uint32_t code, char *buf, size_t len);
	int (*descr)(void *self, uint32_t code, char *buf, size_t len);
	/* "masks:" text of one qualified code, for papi_native_avail. */
	int (*qualifier_descr)(void *self, uint32_t code, char *buf, size_t len);
	int (*facts)(void *self, uint32_t code, struct cupti_cb_event_facts *f);
	/* Whether code, qualifiers included, is one of its events now. */
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
	/* Its set_stop settles values that the read before it could not know
	 * yet (the sampled metrics' window ends at the stop by the samples'
	 * timestamps): after the stop, set_read gives them, and the adapter
	 * makes them PAPI_stop's values. */
	int values_at_stop;
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
	unsigned id;
};

/* ---- what the adapter does with any source's names (cupti_cb_events.c) ---- */

/* Whether name ("cupti_cb:::" optional, qualifiers included) could be the
 * source's, from its form alone. */
int cupti_cb_event_may_be_ours(const struct cupti_cb_source *s, const char *name);
/* A full name to its code: the base looked up, the qualifiers parsed and
 * checked against those the event takes; names too long for PAPI refused. */
int cupti_cb_event_parse(const struct cupti_cb_source *s, const char *name, uint32_t *code);
/* A code to its full name. */
int cupti_cb_event_name(const struct cupti_cb_source *s, uint32_t code, char *buf, size_t len);
/* The qualified variants of a base event, one at a time. */
int cupti_cb_event_first_qualifier(const struct cupti_cb_source *s, uint32_t *code);
int cupti_cb_event_next_qualifier(const struct cupti_cb_source *s, uint32_t *code);

#endif
