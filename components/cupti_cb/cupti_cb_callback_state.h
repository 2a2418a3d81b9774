/* cupti_cb_callback_state.h: the callback source's own state. The source
 * counts CUDA API calls in the callbacks of the runtime and driver
 * domains, whose listener it is (cupti_cb_callback_count.c), into its
 * region of every thread's counters; it owns its catalogue (the CBID name
 * table), the mapping from an event code to counters and CBIDs, the
 * allocation table and the min/max/peak windows. */
#ifndef CUPTI_CB_CALLBACK_STATE_H
#define CUPTI_CB_CALLBACK_STATE_H

#include "cupti_cb_callback_allocations.h"
#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_callback_windows.h"
#include "cupti_cb_services.h"

/* Where each family of the callback counters sits in a thread's c[]. */
struct cupti_cb_callback_layout {
	unsigned n_funcs;	/* per-API slots */
	unsigned n_devrows;	/* devices + 1 row for operations of unknown device */
	size_t thr;		/* c[thr + ctr]: enum cupti_cb_thr_ctr */
	size_t dev;		/* c[dev + row * CUPTI_CB_N_DEV_CTRS + ctr] */
	size_t api;		/* c[api + CUPTI_CB_API_STRIDE * slot + CUPTI_CB_API_CALLS_AT / _TIME_AT /
				   _ERRORS_AT / _WIN_AT]: a function's counters and the inline entry of
				   its min/max window in one cache line (api is a multiple of 8 words, and
				   c is aligned on a line), so that a timed call writes one line of them */
	size_t win;		/* c[win ...]: the out-of-line entries of the min/max windows
				   (cupti_cb_callback_windows.h) */
	size_t end;		/* one past the last */
};

#define CUPTI_CB_API_STRIDE 8	/* words per function: one cache line */
#define CUPTI_CB_API_CALLS_AT 0
#define CUPTI_CB_API_TIME_AT 1
#define CUPTI_CB_API_ERRORS_AT 2
#define CUPTI_CB_API_WIN_AT 3	/* CUPTI_CB_WIN_ENTRY words: the inline window entry */
_Static_assert(CUPTI_CB_API_WIN_AT + CUPTI_CB_WIN_ENTRY <= CUPTI_CB_API_STRIDE, "one line per function");

/* The hot path reads svc, lay, the catalogue's CBID tables and the windows'
 * masks at every call: they come first, in two cache lines, and what only
 * the cold path reads (the reason, the allocation table) after them. */
struct cupti_cb_callback {
	struct cupti_cb_services *svc;
	struct cupti_cb_callback_layout lay;
	struct cupti_cb_catalog cat;
	struct cupti_cb_windows win;	/* min/max/peak windows and the live bytes */
	struct cupti_cb_allocs allocs;
	int have_catalog;
	int ready;			/* the driver stage's part is set up */
	size_t region;			/* its reserved region (set by the services) */
	char why[CUPTI_CB_WHY_LEN];	/* why it cannot count, "" if it can */
};

/* The regions, laid out from base: the per-thread counters first (a
 * process-scope read of them touches a few cache lines per thread). */
void cupti_cb_callback_layout(struct cupti_cb_callback_layout *lay, unsigned n_funcs, int n_devices, size_t base);
/* Words of the fixed part and of each device row. */
size_t cupti_cb_callback_fixed_words(unsigned n_funcs);

/* The stages (the source's opened operation): the catalogue and the
 * reservation; then the windows, the allocation table and the offsets. */
int cupti_cb_callback_open_names(struct cupti_cb_callback *cb);
int cupti_cb_callback_open_driver(struct cupti_cb_callback *cb);
/* The source over the services: it listens to the runtime and driver domains. */
void cupti_cb_callback_attach(struct cupti_cb_callback *cb, struct cupti_cb_services *svc);
/* Unit tests: the services (api filled in) and the source, set up at once. */
int cupti_cb_callback_setup(struct cupti_cb_callback *cb, struct cupti_cb_services *svc, int n_devices);
void cupti_cb_callback_destroy(struct cupti_cb_callback *cb);

/* The CBIDs (and the clock) that counting these codes needs. */
void cupti_cb_callback_cbids_of(const struct cupti_cb_callback *cb, const uint32_t *codes, unsigned n,
				struct cupti_cb_hold *want);
int cupti_cb_callback_hold(struct cupti_cb_callback *cb, struct cupti_cb_hold *h, const uint32_t *codes, unsigned n,
			   char *why, size_t why_len);
static inline int cupti_cb_callback_acquire(struct cupti_cb_callback *cb, struct cupti_cb_hold *h,
					    const uint32_t *codes, unsigned n)
{
	return cupti_cb_callback_hold(cb, h, codes, n, NULL, 0);
}

/* Reading: where a code's counters are. */
struct cupti_cb_probe cupti_cb_callback_probe(const struct cupti_cb_callback *cb, uint32_t code);
/* A counter value, or a difference of two, in its unit: time counters hold
 * clock ticks. Calibrate once before converting a set of values. */
static inline uint64_t cupti_cb_callback_value(struct cupti_cb_callback *cb, const struct cupti_cb_probe *p,
					       uint64_t raw)
{
	return p->ticks ? cupti_cb_clock_to_ns(&cb->svc->clock, raw) : raw;
}

static inline uint64_t cupti_cb_callback_raw(struct cupti_cb_callback *cb, const struct cupti_cb_probe *p,
					     const struct cupti_cb_thread_counters *thread_counters)
{
	return thread_counters ? cupti_cb_probe_thread(p, thread_counters) : cupti_cb_probe_process(p, &cb->svc->reg);
}

/* The listener of the runtime and driver domains: the hot path. */
void cupti_cb_callback_listen(void *arg, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			      const CUpti_CallbackData *cd);

#endif
