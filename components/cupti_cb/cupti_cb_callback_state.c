/* cupti_cb_callback_state.c: the callback source's set-up, the CBIDs its
 * events need and where their counters are (cupti_cb_callback_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_callback_state.h"

size_t cupti_cb_callback_fixed_words(unsigned n_funcs)
{
	/* api is rounded up to a line: up to 7 words more */
	return CUPTI_CB_N_THR_CTRS + (CUPTI_CB_API_STRIDE - 1) + CUPTI_CB_API_STRIDE * (size_t)n_funcs +
	       CUPTI_CB_WIN_OUT_WORDS;
}

void cupti_cb_callback_layout(struct cupti_cb_callback_layout *lay, unsigned n_funcs, int n_devices, size_t base)
{
	lay->n_funcs = n_funcs;
	lay->n_devrows = (unsigned)n_devices + 1;
	lay->thr = base;
	lay->dev = lay->thr + CUPTI_CB_N_THR_CTRS;
	lay->api = lay->dev + (size_t)lay->n_devrows * CUPTI_CB_N_DEV_CTRS;
	lay->api = (lay->api + CUPTI_CB_API_STRIDE - 1) / CUPTI_CB_API_STRIDE * CUPTI_CB_API_STRIDE;
	lay->win = lay->api + CUPTI_CB_API_STRIDE * (size_t)n_funcs;
	lay->end = lay->win + CUPTI_CB_WIN_OUT_WORDS;
}

/* The catalogue needs only libcupti's name table; the device count is not
 * known yet, so :device=N is checked against it at the driver stage. */
int cupti_cb_callback_open_names(struct cupti_cb_callback *cb)
{
	struct cupti_cb_services *svc = cb->svc;
	if (cb->have_catalog)
		return 0;
	uint64_t t0 = cupti_cb_mono_ns();
	if (cupti_cb_catalog_build(&cb->cat, svc->api.cuptiGetCallbackName, -1))
		return -1;
	if (cupti_cb_services_reserve(svc, cupti_cb_callback_fixed_words(cb->cat.n_funcs), CUPTI_CB_N_DEV_CTRS,
				      &cb->region)) {
		cupti_cb_catalog_free(&cb->cat);
		return -1;
	}
	cb->have_catalog = 1;
	if (svc->trace)
		fprintf(stderr, "cupti_cb: callback catalogue: %.2f ms (%u events, %u duplicate names dropped)\n",
			(cupti_cb_mono_ns() - t0) / 1e6, cb->cat.n_events, cb->cat.n_duplicates);
	return 0;
}

int cupti_cb_callback_open_driver(struct cupti_cb_callback *cb)
{
	struct cupti_cb_services *svc = cb->svc;
	if (cb->ready)
		return 0;
	if (!cb->have_catalog || svc->state != CUPTI_CB_READY)
		return -1;
	int n = svc->n_devices;
	cb->cat.n_devices = n < 0 ? 0 : n > CUPTI_CB_MAX_DEVICES ? CUPTI_CB_MAX_DEVICES : n;
	cupti_cb_callback_layout(&cb->lay, cb->cat.n_funcs, cb->cat.n_devices, cb->region);
	struct cupti_cb_win_layout at = { cb->lay.api + CUPTI_CB_API_WIN_AT, CUPTI_CB_API_STRIDE, cb->lay.win };
	if (cupti_cb_allocs_init(&cb->allocs, 16) ||
	    cupti_cb_windows_init(&cb->win, cb->lay.n_funcs, cb->lay.n_devrows, &at))
		return -1;
	cb->ready = 1;
	return 0;
}

void cupti_cb_callback_attach(struct cupti_cb_callback *cb, struct cupti_cb_services *svc)
{
	cb->svc = svc;
	cupti_cb_services_listen(svc, CUPTI_CB_DOMAIN_RUNTIME_API, cupti_cb_callback_listen, cb);
	cupti_cb_services_listen(svc, CUPTI_CB_DOMAIN_DRIVER_API, cupti_cb_callback_listen, cb);
}

int cupti_cb_callback_setup(struct cupti_cb_callback *cb, struct cupti_cb_services *svc, int n_devices)
{
	cupti_cb_callback_attach(cb, svc);
	if (cupti_cb_callback_open_names(cb))
		return -1;
	svc->state = CUPTI_CB_CATALOG;
	if (cupti_cb_services_setup_driver(svc, n_devices))
		return -1;
	return cupti_cb_callback_open_driver(cb);
}

void cupti_cb_callback_destroy(struct cupti_cb_callback *cb)
{
	int ready = cb->ready;
	cupti_cb_services_destroy(cb->svc);
	if (ready)
		cupti_cb_windows_fini(&cb->win);
	cupti_cb_allocs_fini(&cb->allocs);
	cupti_cb_catalog_free(&cb->cat);
	cb->ready = cb->have_catalog = 0;
}

/* ---- which CBIDs an event needs ------------------------------------------ */

static int code_timed(uint32_t code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	if (idx < cupti_cb_n_derived)
		return cupti_cb_derived_events[idx].timed;
	return cupti_cb_kind_timed(cupti_cb_kind_of(NULL, idx));
}

static int needs_cbid(const struct cupti_cb_callback *cb, uint32_t idx, int d, uint32_t cbid)
{
	unsigned slot = cb->cat.slot_of[d][cbid];
	if (idx >= cupti_cb_n_derived)
		return slot && slot - 1 == cupti_cb_slot_of_index(idx);
	uint32_t needs = cupti_cb_derived_events[idx].needs;
	if (needs & CUPTI_CB_ALL_CBIDS)
		return slot != 0;
	const struct cupti_cb_op *op = cb->svc->op_of[cbid];
	return d == 1 && op && (needs & CUPTI_CB_CLS_BIT(op->cls));
}

void cupti_cb_callback_cbids_of(const struct cupti_cb_callback *cb, const uint32_t *codes, unsigned n,
				struct cupti_cb_hold *want)
{
	memset(want, 0, sizeof *want);
	for (int d = 0; d < 2; d++)
		for (uint32_t c = 1; c < cb->cat.n_cbids[d]; c++)
			for (unsigned i = 0; i < n; i++)
				if (needs_cbid(cb, CUPTI_CB_CODE_IDX(codes[i]), d, c)) {
					want->cbids[d][c / 8] |= (uint8_t)(1u << (c % 8));
					break;
				}
	for (unsigned i = 0; i < n; i++)
		want->timed |= (uint8_t)code_timed(codes[i]);
}

int cupti_cb_callback_hold(struct cupti_cb_callback *cb, struct cupti_cb_hold *h, const uint32_t *codes, unsigned n,
			   char *why, size_t why_len)
{
	struct cupti_cb_hold want;
	cupti_cb_callback_cbids_of(cb, codes, n, &want);
	return cupti_cb_services_hold_cbids(cb->svc, h, &want, why, why_len);
}

/* ---- reading ------------------------------------------------------------- */

struct cupti_cb_probe cupti_cb_callback_probe(const struct cupti_cb_callback *cb, uint32_t code)
{
	const struct cupti_cb_callback_layout *lay = &cb->lay;
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	int dev = CUPTI_CB_CODE_DEV(code);
	struct cupti_cb_probe p = { 0, 1, 1, 0, (uint16_t)code_timed(code) };

	if (idx >= cupti_cb_n_derived) {
		unsigned slot = cupti_cb_slot_of_index(idx);
		switch (cupti_cb_kind_of(&cb->cat, idx)) {
		case CUPTI_CB_API_CALLS:
			p.off = (uint32_t)(lay->api + CUPTI_CB_API_STRIDE * (size_t)slot + CUPTI_CB_API_CALLS_AT);
			break;
		case CUPTI_CB_API_TIME:
			p.off = (uint32_t)(lay->api + CUPTI_CB_API_STRIDE * (size_t)slot + CUPTI_CB_API_TIME_AT);
			break;
		case CUPTI_CB_API_ERRORS:
			p.off = (uint32_t)(lay->api + CUPTI_CB_API_STRIDE * (size_t)slot + CUPTI_CB_API_ERRORS_AT);
			break;
		default:
			p.n = 0;	/* min and max: read from a window, not a counter */
			break;
		}
		return p;
	}
	const struct cupti_cb_derived *d = &cupti_cb_derived_events[idx];
	p.n = d->count;
	if (!d->per_device) {
		p.off = (uint32_t)(lay->thr + d->first);
		return p;
	}
	p.stride = CUPTI_CB_N_DEV_CTRS;
	if (dev >= 0) {
		p.off = (uint32_t)(lay->dev + (size_t)dev * CUPTI_CB_N_DEV_CTRS + d->first);
	} else {
		p.off = (uint32_t)(lay->dev + d->first);
		p.rows = (uint16_t)lay->n_devrows;
	}
	return p;
}
