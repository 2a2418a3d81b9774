/* cupti_cb_profiler_front.c: see cupti_cb_profiler_front.h. Cold path only. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "cupti_cb_profiler_front.h"

int cupti_cb_profiler_front_count_devices(struct cupti_cb_profiler_base *b)
{
	int n = atomic_load(&b->n_devices);
	if (n >= 0)
		return n;
	cupti_cb_profiler_base_lock(b);
	n = cupti_cb_profiler_base_devices_locked(b);
	cupti_cb_profiler_base_unlock(b);
	return n;
}

static int chip_named(void)
{
	const char *chip = getenv(CUPTI_CB_ENV_CHIP);
	return chip && chip[0];
}

/* A chip named in CUPTI_CB_CHIP that gives no catalogue leaves out of
 * every listing what the user asked for: said on stderr, once per process
 * for both metric sources (their sentences differ only in the profiler
 * named), without CUPTI_CB_TRACE. */
static void say_no_catalogue(const struct cupti_cb_profiler_base *b)
{
	static atomic_int said;
	if (b->e->trace)
		fprintf(stderr, "cupti_cb: %s: no catalogue: %s\n", b->label, b->why);
	else if (chip_named() && !atomic_exchange(&said, 1))
		fprintf(stderr, "cupti_cb: no hardware metric listed: %s\n", b->why);
}

int cupti_cb_profiler_front_catalog(struct cupti_cb_profiler_base *b)
{
	cupti_cb_profiler_base_lock(b);
	int tried = b->tried_catalog;
	int rc = cupti_cb_profiler_base_catalog_locked(b);
	if (rc && !tried)
		say_no_catalogue(b);
	cupti_cb_profiler_base_unlock(b);
	return rc;
}

int cupti_cb_profiler_front_decode(struct cupti_cb_profiler_base *b, uint32_t code, uint32_t *metric,
				   uint32_t *variant)
{
	if (!b->have_catalog)
		return CUPTI_CB_ENOEVNT;
	int n = CUPTI_CB_CODE_DEV(code) >= 0 ? cupti_cb_profiler_front_count_devices(b) : 0;
	return cupti_cb_profiler_events_decode(&b->events, code, n, metric, variant);
}

int cupti_cb_profiler_front_update_refusal(unsigned n, unsigned max, const char *what, int too_many, int running,
					   char *why, size_t len)
{
	if (n > max) {
		snprintf(why, len, "one event set holds at most %u %s (this one would hold %u)", max, what, n);
		return too_many;
	}
	return running ? CUPTI_CB_EINVAL : 0;
}

int cupti_cb_profiler_front_event(struct cupti_cb_profiler_base *b, uint32_t code, char *name, size_t len,
				  int *additive, uint8_t *integer, int *extreme)
{
	uint32_t metric, variant;
	int rc = cupti_cb_profiler_front_decode(b, code, &metric, &variant);
	if (rc)
		return rc;
	cupti_cb_profiler_catalog_full_name(&b->cat, metric, variant, name, len);
	*additive = cupti_cb_profiler_catalog_is_additive(&b->cat, metric, variant);
	*integer = (uint8_t)cupti_cb_profiler_catalog_is_integer(&b->cat, metric, variant);
	if (extreme)
		*extreme = cupti_cb_profiler_catalog_extreme(&b->cat, metric, variant);
	return CUPTI_CB_OK;
}

/* ---- the descriptor's entries ---------------------------------------------------- */

int cupti_cb_profiler_front_may_be_ours(const char *base)
{
	return cupti_cb_profiler_events_may_be(base);
}

/* The catalogue is built when first asked for: the chip CUPTI_CB_CHIP names
 * needs nothing, device 0's chip only cuInit. */
void cupti_cb_profiler_front_opened(void *self, enum cupti_cb_stage stage)
{
	(void)self, (void)stage;
}

int cupti_cb_profiler_front_valid(void *self, uint32_t code)
{
	uint32_t metric, variant;
	return cupti_cb_profiler_front_decode(self, code, &metric, &variant) == CUPTI_CB_OK;
}

int cupti_cb_profiler_front_first(void *self, uint32_t *code)
{
	struct cupti_cb_profiler_base *b = self;
	return cupti_cb_profiler_front_catalog(b) ? CUPTI_CB_ENOEVNT : cupti_cb_profiler_events_first(&b->events, code);
}

int cupti_cb_profiler_front_next(void *self, uint32_t *code)
{
	struct cupti_cb_profiler_base *b = self;
	return b->have_catalog ? cupti_cb_profiler_events_next(&b->events, code) : CUPTI_CB_ENOEVNT;
}

int cupti_cb_profiler_front_lookup(void *self, const char *base, uint32_t *code)
{
	struct cupti_cb_profiler_base *b = self;
	return cupti_cb_profiler_front_catalog(b) ? cupti_cb_profiler_refusal(b->why) :
						    cupti_cb_profiler_events_lookup(&b->events, base, code);
}

/* A metric counts a device's work, whoever issued it: ":process" is
 * accepted (it changes nothing, so it is not listed), ":thread" is not. */
unsigned cupti_cb_profiler_front_qualifiers(void *self, uint32_t code)
{
	(void)self, (void)code;
	return CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_DEVICE;
}

/* For the same reason a set's granularity (PAPI_GRN_THR or _PROC) changes nothing. */
void cupti_cb_profiler_front_set_granularity(void *self, void *set, int process)
{
	(void)self, (void)set, (void)process;
}

int cupti_cb_profiler_front_devices(void *self)
{
	return cupti_cb_profiler_front_count_devices(self);
}

int cupti_cb_profiler_front_base_name(void *self, uint32_t code, char *buf, size_t len)
{
	struct cupti_cb_profiler_base *b = self;
	uint32_t metric, variant;
	int rc = cupti_cb_profiler_front_decode(b, code, &metric, &variant);
	return rc ? rc : cupti_cb_profiler_events_base_name(&b->events, metric, variant, buf, len);
}

int cupti_cb_profiler_front_descr(void *self, uint32_t code, char *buf, size_t len)
{
	struct cupti_cb_profiler_base *b = self;
	uint32_t metric, variant;
	int rc = cupti_cb_profiler_front_decode(b, code, &metric, &variant);
	if (rc)
		return rc;
	int o = snprintf(buf, len, "%s", b->descr_prefix ? b->descr_prefix : "");
	if (o < 0 || (size_t)o >= len)
		return CUPTI_CB_OK;
	cupti_cb_profiler_base_lock(b);
	cupti_cb_profiler_events_descr(&b->events, metric, buf + o, len - (size_t)o);
	cupti_cb_profiler_base_unlock(b);
	return CUPTI_CB_OK;
}

int cupti_cb_profiler_front_qualifier_descr(void *self, uint32_t code, char *buf, size_t len)
{
	if (!cupti_cb_profiler_front_valid(self, code))
		return CUPTI_CB_ENOEVNT;
	cupti_cb_profiler_events_device_descr(code, buf, len);
	return CUPTI_CB_OK;
}

int cupti_cb_profiler_front_facts(void *self, uint32_t code, struct cupti_cb_event_facts *f)
{
	struct cupti_cb_profiler_base *b = self;
	uint32_t metric, variant;
	int rc = cupti_cb_profiler_front_decode(b, code, &metric, &variant);
	if (rc)
		return rc;
	cupti_cb_profiler_base_lock(b);
	cupti_cb_profiler_events_facts(&b->events, metric, variant, f);
	cupti_cb_profiler_base_unlock(b);
	return CUPTI_CB_OK;
}

const char *cupti_cb_profiler_front_why(void *self)
{
	return ((struct cupti_cb_profiler_base *)self)->why;
}

/* With the chip named, the catalogue needs no driver: it is built for the
 * count, so that papi_component_avail's count is what a listing shows.
 * Without, it waits for a listing or a lookup (it needs cuInit). */
unsigned cupti_cb_profiler_front_count(void *self)
{
	struct cupti_cb_profiler_base *b = self;
	if (!b->have_catalog && !b->tried_catalog && chip_named())
		cupti_cb_profiler_front_catalog(b);
	return b->have_catalog ? b->cat.n_metrics : 0;
}
