/* cupti_cb_profiler_front.h: the catalogue half of the descriptor of a source
 * over CUPTI's profiler: the Range Profiler's metrics
 * (cupti_cb_metric_source.c) and PM sampling's (cupti_cb_sampling_source.c)
 * list the chip's metrics as events in the same way, so both descriptors
 * name these entries as they are.
 *
 * A source's own struct begins with its struct cupti_cb_profiler_base (the
 * descriptor's self is then the base), made by cupti_cb_profiler_base_init.
 * Each entry takes the source's lock, the base's, around the base's
 * *_locked calls. */
#ifndef CUPTI_CB_PROFILER_FRONT_H
#define CUPTI_CB_PROFILER_FRONT_H

#include "cupti_cb_profiler_base.h"
#include "cupti_cb_source.h"

/* The descriptor's entries (self: the source, whose first member is its base). */
int cupti_cb_profiler_front_may_be_ours(const char *base);
void cupti_cb_profiler_front_opened(void *self, enum cupti_cb_stage stage);
int cupti_cb_profiler_front_first(void *self, uint32_t *code);
int cupti_cb_profiler_front_next(void *self, uint32_t *code);
int cupti_cb_profiler_front_lookup(void *self, const char *base, uint32_t *code);
unsigned cupti_cb_profiler_front_qualifiers(void *self, uint32_t code);
void cupti_cb_profiler_front_set_granularity(void *self, void *set, int process);
int cupti_cb_profiler_front_devices(void *self);
int cupti_cb_profiler_front_base_name(void *self, uint32_t code, char *buf, size_t len);
int cupti_cb_profiler_front_descr(void *self, uint32_t code, char *buf, size_t len);
int cupti_cb_profiler_front_qualifier_descr(void *self, uint32_t code, char *buf, size_t len);
int cupti_cb_profiler_front_facts(void *self, uint32_t code, struct cupti_cb_event_facts *f);
int cupti_cb_profiler_front_valid(void *self, uint32_t code);
const char *cupti_cb_profiler_front_why(void *self);
unsigned cupti_cb_profiler_front_count(void *self);

/* The entries in a descriptor (struct cupti_cb_source_ops), as both sources list them: the
 * catalogue's, and the one set entry that is the same in both (the granularity). */
#define CUPTI_CB_PROFILER_FRONT_ENTRIES \
	.may_be_ours = cupti_cb_profiler_front_may_be_ours, \
	.opened = cupti_cb_profiler_front_opened, \
	.first = cupti_cb_profiler_front_first, \
	.next = cupti_cb_profiler_front_next, \
	.lookup = cupti_cb_profiler_front_lookup, \
	.qualifiers = cupti_cb_profiler_front_qualifiers, \
	.set_granularity = cupti_cb_profiler_front_set_granularity, \
	.devices = cupti_cb_profiler_front_devices, \
	.base_name = cupti_cb_profiler_front_base_name, \
	.descr = cupti_cb_profiler_front_descr, \
	.qualifier_descr = cupti_cb_profiler_front_qualifier_descr, \
	.facts = cupti_cb_profiler_front_facts, \
	.valid = cupti_cb_profiler_front_valid, \
	.why = cupti_cb_profiler_front_why, \
	.count = cupti_cb_profiler_front_count

/* For the source's own paths. The devices (counted once); the catalogue
 * (built at the first ask: 0, or -1 with b->why); a code's metric and
 * variant (CUPTI_CB_OK or CUPTI_CB_ENOEVNT). */
int cupti_cb_profiler_front_count_devices(struct cupti_cb_profiler_base *b);
int cupti_cb_profiler_front_catalog(struct cupti_cb_profiler_base *b);
int cupti_cb_profiler_front_decode(struct cupti_cb_profiler_base *b, uint32_t code, uint32_t *metric,
				   uint32_t *variant);
/* What a set_update refuses before it looks at the codes: more than max
 * metrics (too_many, with a sentence that calls them what), and a running
 * set (CUPTI_CB_EINVAL). 0 otherwise. */
int cupti_cb_profiler_front_update_refusal(unsigned n, unsigned max, const char *what, int too_many, int running,
					   char *why, size_t len);
/* What a set keeps of an event, from its code: its metric's full name as
 * CUPTI evaluates it (in name), whether its values add up (additive) and
 * are counts (integer), and, where extreme is not NULL, whether it is a
 * counter's .max (1) or .min (-1), else 0. CUPTI_CB_OK or CUPTI_CB_ENOEVNT. */
int cupti_cb_profiler_front_event(struct cupti_cb_profiler_base *b, uint32_t code, char *name, size_t len,
				  int *additive, uint8_t *integer, int *extreme);

#endif
