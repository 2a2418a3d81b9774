/* cupti_cb_callback_catalog.c: see cupti_cb_callback_catalog.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_callback_catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const domain_word[2] = { "CUDA runtime API", "CUDA driver API" };
static const uint32_t cbid_table_size[2] = { CUPTI_RUNTIME_TRACE_CBID_SIZE,
					     CUPTI_DRIVER_TRACE_CBID_SIZE };

/* ---- names --------------------------------------------------------------- */

static const char *const suffixes[CUPTI_CB_PER_FUNC] = { ".calls", ".time_ns", ".time_ns_min", ".time_ns_max",
							 ".errors" };

const char *cupti_cb_kind_suffix(enum cupti_cb_kind k)
{
	return k >= CUPTI_CB_API_CALLS && k <= CUPTI_CB_API_ERRORS ? suffixes[k - CUPTI_CB_API_CALLS] : "";
}

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n > k && memcmp(s + n - k, suf, k) == 0;
}

void cupti_cb_base_name(char *name)
{
	for (;;) {
		size_t n = strlen(name);
		if (ends_with(name, n, "_ptds") || ends_with(name, n, "_ptsz")) {
			name[n - 5] = '\0';
			continue;
		}
		size_t i = n;
		while (i > 0 && isdigit((unsigned char)name[i - 1]))
			i--;
		if (i < n && i >= 2 && name[i - 1] == 'v' && name[i - 2] == '_' && i > 2) {
			name[i - 2] = '\0';
			continue;
		}
		return;
	}
}

/* A usable API name: an identifier (no ':', ',', '|', '^', '=' or spaces). */
static int is_identifier(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* Entry points the CUDA runtime's own code calls on the application's
 * behalf, outside any call CUPTI reports as a runtime call: the __cuda*
 * registration and launch-configuration functions of nvcc's generated
 * code, and cuKernelGetName, which every <<<>>> launch was measured to make
 * beside its cudaLaunchKernel (H100, CUDA 13.0, driver 580). They are not
 * calls of the application: api.calls leaves them out; their own .calls
 * events still count them. */
static int is_runtime_internal(const char *base)
{
	return !strncmp(base, "__cuda", 6) || !strcmp(base, "cuKernelGetName");
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct cupti_cb_named *)a)->name, ((const struct cupti_cb_named *)b)->name);
}

/* ---- building ------------------------------------------------------------ */

/* Larger than both CBID tables together, so the probe always ends. */
#define HASH_SLOTS 4096u
_Static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE + CUPTI_DRIVER_TRACE_CBID_SIZE < HASH_SLOTS,
	       "CBID tables outgrew the name hash");

static size_t hash_name(const char *s, CUpti_CallbackDomain dom)
{
	size_t h = 1469598103934665603ull ^ (size_t)dom;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Collects the distinct base names of both domains into funcs, and
 * fills slot_of. Storage for names is appended to *buf. */
static int collect_funcs(struct cupti_cb_catalog *cat, cupti_cb_name_fn name_of, char **buf,
			 size_t *used, size_t *cap)
{
	size_t max_funcs = cbid_table_size[0] + cbid_table_size[1];
	size_t *offs = calloc(max_funcs, sizeof *offs);
	uint16_t *table = calloc(HASH_SLOTS, sizeof *table);
	cat->funcs = calloc(max_funcs, sizeof *cat->funcs);
	cat->internal = calloc(max_funcs, sizeof *cat->internal);
	if (!offs || !table || !cat->funcs || !cat->internal) {
		free(offs);
		free(table);
		return CUPTI_CB_ENOMEM;
	}
	for (int d = 0; d < 2; d++) {
		CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		cat->n_cbids[d] = cbid_table_size[d];
		cat->slot_of[d] = calloc(cbid_table_size[d], sizeof *cat->slot_of[d]);
		if (!cat->slot_of[d]) {
			free(offs);
			free(table);
			return CUPTI_CB_ENOMEM;
		}
		for (uint32_t cbid = 1; cbid < cbid_table_size[d]; cbid++) {
			const char *raw = NULL;
			char base[CUPTI_CB_NAME_MAX];
			if (name_of(dom, cbid, &raw) != CUPTI_SUCCESS || !is_identifier(raw) ||
			    strlen(raw) >= sizeof base - 16)
				continue;
			snprintf(base, sizeof base, "%s", raw);
			cupti_cb_base_name(base);
			/* Open-addressing lookup of the base name among those seen. */
			size_t h = hash_name(base, dom) & (HASH_SLOTS - 1);
			while (table[h] && (cat->funcs[table[h] - 1].domain != dom ||
					    strcmp(*buf + offs[table[h] - 1], base)))
				h = (h + 1) & (HASH_SLOTS - 1);
			unsigned slot = table[h] ? table[h] - 1u : cat->n_funcs;
			if (slot == cat->n_funcs) {
				table[h] = (uint16_t)(slot + 1);
				size_t n = strlen(base) + 1;
				if (*used + n > *cap) {
					size_t ncap = (*cap + n) * 2;
					char *nb = realloc(*buf, ncap);
					if (!nb) {
						free(offs);
						free(table);
						return CUPTI_CB_ENOMEM;
					}
					*buf = nb;
					*cap = ncap;
				}
				memcpy(*buf + *used, base, n);
				offs[slot] = *used;
				*used += n;
				cat->funcs[slot].domain = dom;
				cat->internal[slot] = is_runtime_internal(base);
				cat->n_funcs++;
			}
			cat->slot_of[d][cbid] = (uint16_t)(slot + 1);
		}
	}
	/* The buffer may have moved while growing: set pointers last. */
	for (unsigned i = 0; i < cat->n_funcs; i++)
		cat->funcs[i].name = (const char *)(uintptr_t)offs[i];
	free(offs);
	free(table);
	return CUPTI_CB_OK;
}

int cupti_cb_catalog_build(struct cupti_cb_catalog *cat, cupti_cb_name_fn name_of, int n_devices)
{
	memset(cat, 0, sizeof *cat);
	/* A negative count: not known yet (no driver asked); any ordinal a
	 * process could have is accepted until it is. */
	cat->n_devices = n_devices < 0 ? CUPTI_CB_MAX_DEVICES :
			 n_devices > CUPTI_CB_MAX_DEVICES ? CUPTI_CB_MAX_DEVICES : n_devices;
	size_t used = 0, cap = 64 * 1024;
	char *names = malloc(cap);
	if (!names)
		return CUPTI_CB_ENOMEM;
	int rc = collect_funcs(cat, name_of, &names, &used, &cap);
	if (rc) {
		free(names);
		cupti_cb_catalog_free(cat);
		return rc;
	}
	cat->n_events = cupti_cb_n_derived + CUPTI_CB_PER_FUNC * cat->n_funcs;
	if (cat->n_events >= (1u << CUPTI_CB_IDX_BITS)) {
		free(names);
		cupti_cb_catalog_free(cat);
		return CUPTI_CB_EINVAL;
	}
	/* Full names "<func>.calls", "<func>.time_ns", ... in one counter set. */
	size_t suffix_len = 0;
	for (int t = 0; t < CUPTI_CB_PER_FUNC; t++)
		suffix_len += strlen(suffixes[t]) + 1;
	size_t full_len = CUPTI_CB_PER_FUNC * used + cat->n_funcs * suffix_len;
	cat->strings = malloc(full_len + used);
	cat->by_name = calloc(cat->n_events, sizeof *cat->by_name);
	if (!cat->strings || !cat->by_name) {
		free(names);
		cupti_cb_catalog_free(cat);
		return CUPTI_CB_ENOMEM;
	}
	memcpy(cat->strings, names, used);	/* base names first */
	free(names);
	char *p = cat->strings + used;
	for (unsigned i = 0; i < cupti_cb_n_derived; i++)
		cat->by_name[i] = (struct cupti_cb_named){ cupti_cb_derived_events[i].name, i };
	for (unsigned s = 0; s < cat->n_funcs; s++) {
		cat->funcs[s].name = cat->strings + (uintptr_t)cat->funcs[s].name;
		for (int t = 0; t < CUPTI_CB_PER_FUNC; t++) {
			uint32_t idx = cupti_cb_n_derived + CUPTI_CB_PER_FUNC * s + (uint32_t)t;
			int n = sprintf(p, "%s%s", cat->funcs[s].name, suffixes[t]);
			cat->by_name[idx] = (struct cupti_cb_named){ p, idx };
			p += n + 1;
		}
	}
	qsort(cat->by_name, cat->n_events, sizeof *cat->by_name, cmp_named);
	/* One name, one event: should CUPTI ever give two functions the same
	 * base name (in two domains), keep the first and drop the others
	 * from lookups, so that a name never resolves to either at random. */
	unsigned kept = 0;
	for (unsigned i = 0; i < cat->n_events; i++) {
		if (kept && !strcmp(cat->by_name[kept - 1].name, cat->by_name[i].name)) {
			cat->n_duplicates++;
			continue;
		}
		cat->by_name[kept++] = cat->by_name[i];
	}
	cat->n_named = kept;
	return CUPTI_CB_OK;
}

void cupti_cb_catalog_free(struct cupti_cb_catalog *cat)
{
	free(cat->funcs);
	free(cat->internal);
	free(cat->slot_of[0]);
	free(cat->slot_of[1]);
	free(cat->by_name);
	free(cat->strings);
	memset(cat, 0, sizeof *cat);
}

/* ---- lookups ------------------------------------------------------------- */

static int per_device(uint32_t idx)
{
	return idx < cupti_cb_n_derived && cupti_cb_derived_events[idx].per_device;
}

int cupti_cb_catalog_valid(const struct cupti_cb_catalog *cat, uint32_t code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	int dev = CUPTI_CB_CODE_DEV(code);
	if (code >> 22 || idx >= cat->n_events)
		return 0;
	if (dev >= 0 && (!per_device(idx) || dev >= cat->n_devices))
		return 0;
	return 1;
}

static int find_base(const struct cupti_cb_catalog *cat, const char *base, uint32_t *idx)
{
	struct cupti_cb_named key = { base, 0 };
	const struct cupti_cb_named *hit =
		bsearch(&key, cat->by_name, cat->n_named, sizeof key, cmp_named);
	if (!hit)
		return CUPTI_CB_ENOEVNT;
	*idx = hit->index;
	return CUPTI_CB_OK;
}


int cupti_cb_catalog_may_be_ours(const char *name)
{
	if (!name)
		return 0;
	name = cupti_cb_strip_prefix(name);
	size_t n = strcspn(name, ":");
	for (unsigned i = 0; i < cupti_cb_n_derived; i++)
		if (strlen(cupti_cb_derived_events[i].name) == n &&
		    !strncmp(cupti_cb_derived_events[i].name, name, n))
			return 1;
	if (strncmp(name, "cu", 2) && strncmp(name, "__cu", 4))
		return 0;
	for (int t = 0; t < CUPTI_CB_PER_FUNC; t++)
		if (ends_with(name, n, suffixes[t]))
			return 1;
	return 0;
}




/* A derived event's family ("kernel" of "kernel.launches") misspelt by
 * one letter at most, or a function's name with a misspelt suffix. */
int cupti_cb_catalog_may_be_near(const char *name)
{
	char family[32];
	size_t n = strcspn(name, ".:");
	if (name[n] != '.')
		return 0;
	if (!strncmp(name, "cu", 2) || !strncmp(name, "__cu", 4))
		return 1;
	if (n >= sizeof family)
		return 0;
	memcpy(family, name, n);
	family[n] = '\0';
	for (unsigned i = 0; i < cupti_cb_n_derived; i++) {
		char known[32];
		const char *d = cupti_cb_derived_events[i].name;
		size_t k = strcspn(d, ".");
		if (k >= sizeof known)
			continue;
		memcpy(known, d, k);
		known[k] = '\0';
		if (cupti_cb_name_distance(family, known, 1) <= 1)
			return 1;
	}
	return 0;
}

int cupti_cb_catalog_parse(const struct cupti_cb_catalog *cat, const char *name, uint32_t *code)
{
	char buf[CUPTI_CB_NAME_MAX], *quals;
	uint32_t idx;
	struct cupti_cb_quals q;
	if (!code)
		return CUPTI_CB_EINVAL;
	int rc = cupti_cb_split_name(name, buf, sizeof buf, &quals);
	if (rc)
		return rc;
	if ((rc = find_base(cat, buf, &idx)))
		return rc;
	if ((rc = cupti_cb_qualifiers_parse(quals, &q)))
		return rc;
	if (q.device >= 0 && (!per_device(idx) || q.device >= cat->n_devices))
		return CUPTI_CB_ENOEVNT;
	if (q.scope == 0 && cupti_cb_process_only(idx))
		return CUPTI_CB_ENOEVNT;	/* a process-wide gauge has no thread's share */
	*code = CUPTI_CB_CODE(idx, q.device, q.scope == 1);
	return CUPTI_CB_OK;
}

int cupti_cb_catalog_name(const struct cupti_cb_catalog *cat, uint32_t code, char *buf, size_t len)
{
	if (!cupti_cb_catalog_valid(cat, code))
		return CUPTI_CB_ENOEVNT;
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	char dev[16] = "";
	if (CUPTI_CB_CODE_DEV(code) >= 0)
		snprintf(dev, sizeof dev, ":device=%d", CUPTI_CB_CODE_DEV(code));
	const char *base = idx < cupti_cb_n_derived ? cupti_cb_derived_events[idx].name : NULL;
	const char *func = base ? "" : cat->funcs[cupti_cb_slot_of_index(idx)].name;
	const char *suffix = base ? "" : cupti_cb_kind_suffix(cupti_cb_kind_of(cat, idx));
	int n = snprintf(buf, len, "%s%s%s%s", base ? base : func, suffix, dev,
			 CUPTI_CB_CODE_PROC(code) ? ":process" : "");
	return (n < 0 || (size_t)n >= len) ? CUPTI_CB_EINVAL : CUPTI_CB_OK;
}

int cupti_cb_catalog_descr(const struct cupti_cb_catalog *cat, uint32_t code, char *buf, size_t len)
{
	if (!cupti_cb_catalog_valid(cat, code))
		return CUPTI_CB_ENOEVNT;
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	int n;
	if (idx < cupti_cb_n_derived) {
		n = snprintf(buf, len, "%s", cupti_cb_derived_events[idx].descr);
	} else {
		static const char *const what[CUPTI_CB_PER_FUNC] = {
			"Calls of", "Host time (ns) in",
			"Host time (ns) of the shortest single call since PAPI_start (0: none); after a PAPI_reset, "
			"how much it changed since (0 or negative), so that read+reset pieces add up; of",
			"Host time (ns) of the longest single call since PAPI_start (0: none); after a PAPI_reset, "
			"how much it rose since, so that read+reset pieces add up; of",
			"Calls that returned an error (any value but success; cudaErrorNotReady too) of",
		};
		const struct cupti_cb_func *f = &cat->funcs[cupti_cb_slot_of_index(idx)];
		n = snprintf(buf, len, "%s %s (%s, all versions and per-thread-stream variants)",
			     what[cupti_cb_kind_of(cat, idx) - CUPTI_CB_API_CALLS], f->name,
			     domain_word[cupti_cb_domain_ix(f->domain)]);
	}
	if (n >= 0 && (size_t)n < len && CUPTI_CB_CODE_DEV(code) >= 0)
		n += snprintf(buf + n, len - (size_t)n, "; device %d only", CUPTI_CB_CODE_DEV(code));
	if (n >= 0 && (size_t)n < len && CUPTI_CB_CODE_PROC(code))
		n += snprintf(buf + n, len - (size_t)n, "; all threads of the process");
	return CUPTI_CB_OK;
}

const char *cupti_cb_catalog_units(const struct cupti_cb_catalog *cat, uint32_t code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	if (idx < cupti_cb_n_derived)
		return cupti_cb_derived_events[idx].units;
	return cupti_cb_kind_timed(cupti_cb_kind_of(cat, idx)) ? "ns" : "";
}

/* ---- enumeration --------------------------------------------------------- */

uint32_t cupti_cb_catalog_first(void)
{
	return CUPTI_CB_CODE(0, -1, 0);
}

int cupti_cb_catalog_next(const struct cupti_cb_catalog *cat, uint32_t *code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(*code) + 1;
	if (idx >= cat->n_events)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_CODE(idx, -1, 0);
	return CUPTI_CB_OK;
}

/* Qualifiers are listed one at a time: ":process", then ":device=0".. */
int cupti_cb_catalog_first_qualifier(const struct cupti_cb_catalog *cat, uint32_t *code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(*code);
	if (idx >= cat->n_events)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_CODE(idx, -1, 1);
	return CUPTI_CB_OK;
}

int cupti_cb_catalog_next_qualifier(const struct cupti_cb_catalog *cat, uint32_t *code)
{
	uint32_t idx = CUPTI_CB_CODE_IDX(*code);
	int dev = CUPTI_CB_CODE_DEV(*code) + 1;	/* process -> device 0 -> device 1 .. */
	if (!per_device(idx) || dev >= cat->n_devices)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_CODE(idx, dev, 0);
	return CUPTI_CB_OK;
}

int cupti_cb_catalog_qualifier_descr(const struct cupti_cb_catalog *cat, uint32_t code, char *buf,
				     size_t len)
{
	if (!cupti_cb_catalog_valid(cat, code))
		return CUPTI_CB_ENOEVNT;
	if (CUPTI_CB_CODE_DEV(code) >= 0)
		snprintf(buf, len, "Only operations on CUDA device %d (also spelt :device%d)",
			 CUPTI_CB_CODE_DEV(code), CUPTI_CB_CODE_DEV(code));
	else
		snprintf(buf, len, "Count every thread of the process, exited threads included "
				   "(default :thread counts the calling thread)");
	return CUPTI_CB_OK;
}
