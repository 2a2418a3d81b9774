/* cupti_cb_profiler_events.c: a hardware-metric catalogue as a source's
 * events (cupti_cb_profiler_events.h). */
#include "cupti_cb_profiler_events.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A metric's variant (1 + its suffix's index) travels in the code's variant
 * bits: the catalogue refuses a chip whose types take more suffixes. */
_Static_assert(CUPTI_CB_PROFILER_CATALOG_MAX_SUFFIXES <= CUPTI_CB_VAR_MAX, "a variant must fit the code's bits");

int cupti_cb_profiler_events_may_be(const char *name)
{
	size_t n = strlen(name);
	if (!n || !isalpha((unsigned char)name[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '.')
			return 0;
	const char *dd = strstr(name, "__");
	return dd && (size_t)(dd - name) < n;
}

int cupti_cb_profiler_events_decode(const struct cupti_cb_profiler_events *ev, uint32_t code, int n_devices,
				    uint32_t *metric, uint32_t *variant)
{
	const struct cupti_cb_profiler_catalog *cat = ev->cat;
	if (!cat || CUPTI_CB_CODE_SRC(code) != ev->id || code >> 31)
		return CUPTI_CB_ENOEVNT;
	*metric = CUPTI_CB_CODE_IDX(code);
	*variant = CUPTI_CB_CODE_VAR(code);
	if (*metric >= cat->n_metrics)
		return CUPTI_CB_ENOEVNT;
	unsigned type = cat->metrics[*metric].type;
	if (type >= CUPTI_CB_PROFILER_CATALOG_TYPES || *variant > cat->n_suffixes[type])
		return CUPTI_CB_ENOEVNT;
	int dev = CUPTI_CB_CODE_DEV(code);
	if (dev >= 0 && dev >= n_devices)
		return CUPTI_CB_ENOEVNT;
	return CUPTI_CB_OK;
}

int cupti_cb_profiler_events_first(const struct cupti_cb_profiler_events *ev, uint32_t *code)
{
	if (!ev->cat || ev->cat->n_metrics == 0)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_SCODE(ev->id, 0, 0, -1, 0);
	return CUPTI_CB_OK;
}

int cupti_cb_profiler_events_next(const struct cupti_cb_profiler_events *ev, uint32_t *code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(*code) + 1;
	if (!ev->cat || idx >= ev->cat->n_metrics)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_SCODE(ev->id, idx, 0, -1, 0);
	return CUPTI_CB_OK;
}

static int catalog_error(int rc)
{
	switch (rc) {
	case CUPTI_CB_PROFILER_CATALOG_OK:
		return CUPTI_CB_OK;
	case CUPTI_CB_PROFILER_CATALOG_ENOMETRIC:
	case CUPTI_CB_PROFILER_CATALOG_ESUFFIX:
		return CUPTI_CB_ENOEVNT;
	case CUPTI_CB_PROFILER_CATALOG_ENOMEM:
		return CUPTI_CB_ENOMEM;
	default:
		return CUPTI_CB_EINVAL;
	}
}

int cupti_cb_profiler_events_lookup(const struct cupti_cb_profiler_events *ev, const char *base, uint32_t *code)
{
	uint32_t metric, variant;
	if (!ev->cat)
		return CUPTI_CB_ENOEVNT;
	int rc = catalog_error(cupti_cb_profiler_catalog_parse(ev->cat, base, &metric, &variant));
	if (rc)
		return rc;
	*code = CUPTI_CB_SCODE(ev->id, metric, variant, -1, 0);
	return CUPTI_CB_OK;
}

int cupti_cb_profiler_events_base_name(const struct cupti_cb_profiler_events *ev, uint32_t metric, uint32_t variant,
				       char *buf, size_t len)
{
	return cupti_cb_profiler_catalog_name(ev->cat, metric, variant, buf, len) ? CUPTI_CB_EINVAL : CUPTI_CB_OK;
}

/* Appends to buf (n used) and returns the new length, len - 1 at most. */
static size_t put(char *buf, size_t len, size_t n, const char *s)
{
	if (!len)
		return 0;
	if (n + 1 < len)
		n += (size_t)snprintf(buf + n, len - n, "%s", s);
	return n < len ? n : len - 1;
}

#define MAX_PARTS 64

/* Where suffix s splits into its head and its tail: .avg.per_second is .avg
 * and .per_second, .pct is .pct and "". */
static size_t head_len(const char *s)
{
	const char *dot = strchr(s + 1, '.');
	return dot ? (size_t)(dot - s) : strlen(s);
}

/* The index of s (len bytes) among the n parts, each lens[i] bytes long. */
static int index_of(const char *const *list, const size_t *lens, unsigned n, const char *s, size_t len)
{
	for (unsigned i = 0; i < n; i++)
		if (lens[i] == len && !strncmp(list[i], s, len))
			return (int)i;
	return -1;
}

/* A type's suffixes as heads times tails where the table is their product
 * (".avg .max .min .sum, each alone or followed by .per_second ..."),
 * else one by one. A counter's 44 written out made a description of over
 * 1,000 bytes, which papi_native_avail (PAPI 7.0) folds into a buffer it
 * grows 1,024 bytes at a time, and overran ("realloc(): invalid next
 * size" on papi_native_avail -i dram__bytes_read). */
static size_t put_suffixes(char *buf, size_t len, size_t n, const char *const *suf, unsigned ns)
{
	const char *heads[MAX_PARTS], *tails[MAX_PARTS];
	size_t hlen[MAX_PARTS], tlen[MAX_PARTS];
	unsigned nh = 0, nt = 0, product = ns > 0 && ns <= MAX_PARTS;
	for (unsigned i = 0; product && i < ns; i++) {
		size_t h = head_len(suf[i]), t = strlen(suf[i] + h);
		if (index_of(heads, hlen, nh, suf[i], h) < 0)
			heads[nh] = suf[i], hlen[nh++] = h;
		if (index_of(tails, tlen, nt, suf[i] + h, t) < 0)
			tails[nt] = suf[i] + h, tlen[nt++] = t;
	}
	product = product && nh * nt == ns;	/* distinct suffixes: then each pair is one */
	if (!product) {
		for (unsigned i = 0; i < ns; i++)
			n = put(buf, len, put(buf, len, n, " "), suf[i]);
		return n;
	}
	char head[MAX_PARTS];
	for (unsigned i = 0; i < nh; i++) {
		snprintf(head, sizeof head, " %.*s", (int)hlen[i], heads[i]);
		n = put(buf, len, n, head);
	}
	int bare = index_of(tails, tlen, nt, "", 0) >= 0;
	if (nt > (unsigned)bare)
		n = put(buf, len, n, bare ? ", each alone or followed by" : ", each followed by");
	for (unsigned i = 0; i < nt; i++)
		if (tails[i][0])
			n = put(buf, len, put(buf, len, n, " "), tails[i]);
	return n;
}

void cupti_cb_profiler_events_descr(const struct cupti_cb_profiler_events *ev, uint32_t metric, char *buf,
				    size_t len)
{
	static const char *const type_word[] = { "counter", "ratio", "throughput" };
	struct cupti_cb_profiler_catalog *cat = ev->cat;
	unsigned type = cat->metrics[metric].type;
	char tag[128];
	cupti_cb_profiler_catalog_descr(cat, metric, buf, len);
	snprintf(tag, sizeof tag, " [%s; default %s; takes", type_word[type],
		 cat->suffixes[type][cat->default_variant[type] - 1]);
	size_t n = put(buf, len, strlen(buf), tag);
	n = put_suffixes(buf, len, n, cat->suffixes[type], cat->n_suffixes[type]);
	put(buf, len, n, "]");
}

void cupti_cb_profiler_events_facts(const struct cupti_cb_profiler_events *ev, uint32_t metric, uint32_t variant,
				    struct cupti_cb_event_facts *f)
{
	cupti_cb_profiler_catalog_units(ev->cat, metric, variant, f->units, sizeof f->units);
	f->is_double = !cupti_cb_profiler_catalog_is_integer(ev->cat, metric, variant);
	f->running_sum = cupti_cb_profiler_catalog_is_additive(ev->cat, metric, variant);
}

void cupti_cb_profiler_events_device_descr(uint32_t code, char *buf, size_t len)
{
	snprintf(buf, len, "Only CUDA device %d (also spelt :device%d)", CUPTI_CB_CODE_DEV(code),
		 CUPTI_CB_CODE_DEV(code));
}
