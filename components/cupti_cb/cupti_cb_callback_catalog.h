/* cupti_cb_callback_catalog.h: the event catalogue. Names <-> codes, qualifiers,
 * descriptions, and the map from each CBID to its per-API counter slot.
 *
 * Event indices: [0, n_derived) are the derived events, then
 * CUPTI_CB_PER_FUNC per CUDA API function, in enum cupti_cb_kind order:
 * <func>.calls, .time_ns, .time_ns_min, .time_ns_max, .errors.
 * A code packs an index and its qualifiers (see CUPTI_CB_CODE). */
#ifndef CUPTI_CB_CALLBACK_CATALOG_H
#define CUPTI_CB_CALLBACK_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include <cupti.h>

#include "cupti_cb_callback_derived.h"
#include "cupti_cb_core.h"

typedef CUptiResult (*cupti_cb_name_fn)(CUpti_CallbackDomain, uint32_t, const char **);

/* One CUDA API function; its _vN/_ptds/_ptsz CBIDs all map to it. */
struct cupti_cb_func {
	const char *name;
	CUpti_CallbackDomain domain;
};

struct cupti_cb_named {
	const char *name;	/* full base name: "cudaMemcpy.calls" */
	uint32_t index;
};

struct cupti_cb_catalog {
	unsigned n_funcs;
	struct cupti_cb_func *funcs;
	uint32_t n_cbids[2];		/* [0] runtime, [1] driver: CBID table sizes */
	uint16_t *slot_of[2];		/* CBID -> slot + 1; 0: not an API function */
	uint8_t *internal;		/* by slot: the runtime's own __cuda* entry points,
					 * not counted in api.calls */
	unsigned n_duplicates;		/* names CUPTI gave twice: the later ones are not listed */
	unsigned n_events;
	struct cupti_cb_named *by_name;	/* sorted by name, for lookups */
	unsigned n_named;		/* entries of by_name: n_events - n_duplicates */
	char *strings;			/* storage for every name */
	int n_devices;
};

enum cupti_cb_kind {
	CUPTI_CB_DERIVED,
	CUPTI_CB_API_CALLS,	/* the first of a function's events */
	CUPTI_CB_API_TIME,
	CUPTI_CB_API_TIME_MIN,
	CUPTI_CB_API_TIME_MAX,
	CUPTI_CB_API_ERRORS,
};
#define CUPTI_CB_PER_FUNC 5

/* The suffix of a function's event of this kind: ".calls", ... */
const char *cupti_cb_kind_suffix(enum cupti_cb_kind k);

/* Whether an event of this kind counts time (needs the clock). */
static inline int cupti_cb_kind_timed(enum cupti_cb_kind k)
{
	return k == CUPTI_CB_API_TIME || k == CUPTI_CB_API_TIME_MIN || k == CUPTI_CB_API_TIME_MAX;
}

static inline int cupti_cb_domain_ix(CUpti_CallbackDomain d)
{
	return d == CUPTI_CB_DOMAIN_DRIVER_API;
}

int cupti_cb_catalog_build(struct cupti_cb_catalog *cat, cupti_cb_name_fn name_of, int n_devices);
void cupti_cb_catalog_free(struct cupti_cb_catalog *cat);

/* Whether name could be a cupti_cb event at all, judged from its form
 * alone (no catalogue needed): a derived event's name, or
 * "<identifier>.calls" (or another suffix of enum cupti_cb_kind) of a CUDA
 * function (cu*, __cu*), each with optional qualifiers. */
int cupti_cb_catalog_may_be_ours(const char *name);
/* Whether name (a base) may be a callback event's name misspelt, from its
 * form alone: a derived family within one letter, or "cu..." with a '.'. */
int cupti_cb_catalog_may_be_near(const char *name);

/* "kernel.launches:device=1:process" -> code. Errors: enum cupti_cb_err. */
int cupti_cb_catalog_parse(const struct cupti_cb_catalog *cat, const char *name, uint32_t *code);
int cupti_cb_catalog_name(const struct cupti_cb_catalog *cat, uint32_t code, char *buf, size_t len);
int cupti_cb_catalog_descr(const struct cupti_cb_catalog *cat, uint32_t code, char *buf, size_t len);
const char *cupti_cb_catalog_units(const struct cupti_cb_catalog *cat, uint32_t code);
int cupti_cb_catalog_valid(const struct cupti_cb_catalog *cat, uint32_t code);

/* Enumeration: first event, next event, and the qualifiers of an event
 * (first_qualifier takes a base code; next_qualifier a qualified one). */
uint32_t cupti_cb_catalog_first(void);
int cupti_cb_catalog_next(const struct cupti_cb_catalog *cat, uint32_t *code);
int cupti_cb_catalog_first_qualifier(const struct cupti_cb_catalog *cat, uint32_t *code);
int cupti_cb_catalog_next_qualifier(const struct cupti_cb_catalog *cat, uint32_t *code);
/* "masks:" text for papi_native_avail, describing one qualified code. */
int cupti_cb_catalog_qualifier_descr(const struct cupti_cb_catalog *cat, uint32_t code, char *buf,
				     size_t len);

static inline enum cupti_cb_kind cupti_cb_kind_of(const struct cupti_cb_catalog *cat, uint32_t idx)
{
	(void)cat;
	if (idx < cupti_cb_n_derived)
		return CUPTI_CB_DERIVED;
	return (enum cupti_cb_kind)(CUPTI_CB_API_CALLS + (idx - cupti_cb_n_derived) % CUPTI_CB_PER_FUNC);
}

static inline unsigned cupti_cb_slot_of_index(uint32_t idx)
{
	return (idx - cupti_cb_n_derived) / CUPTI_CB_PER_FUNC;
}

static inline uint32_t cupti_cb_index_of(unsigned slot, enum cupti_cb_kind k)
{
	return cupti_cb_n_derived + slot * CUPTI_CB_PER_FUNC + (uint32_t)(k - CUPTI_CB_API_CALLS);
}

/* A derived event that exists only for the whole process (:thread refused). */
static inline int cupti_cb_process_only(uint32_t idx)
{
	return idx < cupti_cb_n_derived && cupti_cb_derived_events[idx].read != CUPTI_CB_READ_COUNT;
}

/* Strips _vNNNN, _v2, _ptds and _ptsz suffixes in place. */
void cupti_cb_base_name(char *name);

#endif
