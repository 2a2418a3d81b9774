/* cupti_cb_core.h: what every source of counters shares, once: the error
 * codes, the layout of an event code, and the names of events with their
 * qualifiers (parsing, printing, enumerating, describing). A source says
 * which qualifiers each of its events takes; the core does the rest
 * (cupti_cb_source.h).
 *
 * An event code:
 *   bits  0..13  index within the source
 *   bits 14..20  device + 1 (0: no device qualifier)
 *   bit  21      :process
 *   bits 22..24  source: its place in the list (cupti_cb_sources.c)
 *   bits 25..30  variant within the source (a metric's rollup/submetric)
 * Bit 31 stays clear: PAPI keeps codes in ints and reads negative ones as
 * errors. The callback source's codes have source 0 and variant 0. */
#ifndef CUPTI_CB_CORE_H
#define CUPTI_CB_CORE_H

#include <stddef.h>
#include <stdint.h>

enum cupti_cb_err {
	CUPTI_CB_OK = 0,
	CUPTI_CB_ENOEVNT = -1,		/* no such event, or a qualifier it does not take */
	CUPTI_CB_EINVAL = -2,		/* malformed name or code */
	CUPTI_CB_ENOMEM = -3,
	CUPTI_CB_ECONFLICT = -10,	/* another CUPTI subscriber holds the process */
	CUPTI_CB_ECUPTI = -11,		/* CUPTI refused; why says how */
	CUPTI_CB_EPASSES = -20,		/* the set needs more than one pass */
	CUPTI_CB_EUNAVAIL = -21,	/* the source cannot work here; why says why */
	CUPTI_CB_EPERM = -22,		/* not permitted (profiling restricted to admins) */
	CUPTI_CB_EDROPPED = -23,	/* a read whose values miss records CUPTI dropped (a warning) */
	CUPTI_CB_ELIMIT = -24,		/* a fixed limit of the component; why names it */
	CUPTI_CB_ECOMBO = -25,		/* an event an attached set cannot count; why says why */
	CUPTI_CB_EINCOMPLETE = -26,	/* records of synchronized work still missing after the wait; why says how many */
};

#define CUPTI_CB_WHY_LEN     512
#define CUPTI_CB_MAX_DEVICES 64
#define CUPTI_CB_NAME_MAX    256	/* longest full name accepted, NUL included */
#define CUPTI_CB_PREFIX      "cupti_cb:::"
/* PAPI (7.0 to HEAD) holds an event name in PAPI_MAX_STR_LEN (128) bytes,
 * "cupti_cb:::" and the NUL included: PAPI_event_code_to_name fails with
 * PAPI_ENOMEM for a longer one, and for one of exactly 127 characters
 * PAPI 7.0's prefixing (sprintf "%s:::%s%c" with a '\0') writes one byte
 * past the caller's buffer. So a name is listed and accepted only where its
 * canonical spelling has at most 126 characters with the prefix, and every
 * name round-trips (on GH100 the longest metric names with a submetric and
 * qualifiers do not). */
#define CUPTI_CB_NAME_ROOM   (128 - sizeof CUPTI_CB_PREFIX - 1)

#define CUPTI_CB_IDX_BITS   14
#define CUPTI_CB_SRC_SHIFT  22
#define CUPTI_CB_SRC_BITS   3
#define CUPTI_CB_MAX_SOURCES (1u << CUPTI_CB_SRC_BITS)
#define CUPTI_CB_VAR_SHIFT  25
#define CUPTI_CB_VAR_MAX    63

#define CUPTI_CB_CODE(idx, dev, proc) \
	((uint32_t)(idx) | (uint32_t)((dev) + 1) << CUPTI_CB_IDX_BITS | (uint32_t)(proc) << 21)
#define CUPTI_CB_SCODE(src, idx, var, dev, proc) \
	(CUPTI_CB_CODE(idx, dev, proc) | (uint32_t)(src) << CUPTI_CB_SRC_SHIFT | (uint32_t)(var) << CUPTI_CB_VAR_SHIFT)
#define CUPTI_CB_CODE_IDX(c)  ((c) & ((1u << CUPTI_CB_IDX_BITS) - 1))
#define CUPTI_CB_CODE_DEV(c)  ((int)(((c) >> CUPTI_CB_IDX_BITS) & 0x7f) - 1)
#define CUPTI_CB_CODE_PROC(c) (((c) >> 21) & 1)
#define CUPTI_CB_CODE_SRC(c)  (((c) >> CUPTI_CB_SRC_SHIFT) & (CUPTI_CB_MAX_SOURCES - 1))
#define CUPTI_CB_CODE_VAR(c)  (((c) >> CUPTI_CB_VAR_SHIFT) & CUPTI_CB_VAR_MAX)
/* The code without its qualifiers. */
#define CUPTI_CB_CODE_UNQUALIFIED(c) ((c) & ~((0x7fu << CUPTI_CB_IDX_BITS) | (1u << 21)))
/* The code with other qualifiers. */
#define CUPTI_CB_CODE_REQUALIFY(c, dev, proc) (CUPTI_CB_CODE_UNQUALIFIED(c) | CUPTI_CB_CODE(0, dev, proc))

/* The qualifiers an event takes (a source's qualifiers operation). */
enum cupti_cb_qualifier {
	CUPTI_CB_Q_PROCESS = 1,		/* ":process" is accepted */
	CUPTI_CB_Q_THREAD = 2,		/* ":thread" is accepted (the default scope, spelt out) */
	CUPTI_CB_Q_DEVICE = 4,		/* ":device=N" is accepted and listed */
	CUPTI_CB_Q_LIST_PROCESS = 8,	/* ":process" is listed (it changes what is counted) */
};

/* Qualifiers as given: device -1 and scope -1 when absent; scope 0 is
 * ":thread", 1 ":process". */
struct cupti_cb_quals {
	int device;
	int scope;
};

/* The name without "cupti_cb:::". */
const char *cupti_cb_strip_prefix(const char *name);
/* Copies the name without "cupti_cb:::" into buf and cuts it at the first
 * ':'; *quals points at the qualifiers in buf, or is NULL. Empty fields
 * are malformed (CUPTI_CB_EINVAL); a name that does not fit in buf is no
 * event (CUPTI_CB_ENOEVNT). */
int cupti_cb_split_name(const char *name, char *buf, size_t len, char **quals);
/* Parses "device=1:process" (modified in place): syntax only. */
int cupti_cb_qualifiers_parse(char *quals, struct cupti_cb_quals *q);
int cupti_cb_qualifier_token(const char *tok, struct cupti_cb_quals *q);
/* Whether an event that takes the qualifiers mask (enum cupti_cb_qualifier)
 * takes those given, with n_devices devices (device ordinals are checked
 * later, by the source's valid, where the count is not known yet: -1). */
int cupti_cb_qualifiers_allowed(const struct cupti_cb_quals *q, unsigned mask, int n_devices);
/* Appends code's qualifiers (":device=N", ":process") to buf, which holds
 * the base name. CUPTI_CB_EINVAL when it does not fit. */
int cupti_cb_qualifiers_print(uint32_t code, char *buf, size_t len);

/* The Damerau-Levenshtein distance of a and b (optimal string alignment:
 * an insertion, a deletion, a substitution or a swap of two neighbours
 * costs 1), or max + 1 as soon as it must be larger than max. Names of
 * CUPTI_CB_NAME_MAX bytes at most; longer ones are max + 1 away. */
unsigned cupti_cb_name_distance(const char *a, const char *b, unsigned max);

/* Enumeration of an event's qualified variants, one at a time: ":process"
 * if listed, then ":device=0" .. ":device=n_devices-1". first takes a base
 * code, next a qualified one. */
int cupti_cb_qualifier_first(uint32_t *code, unsigned mask, int n_devices);
int cupti_cb_qualifier_next(uint32_t *code, unsigned mask, int n_devices);

#endif
