/* fuzz_names.c: a libFuzzer target on event names and codes.
 *
 * The catalogue is built once from the real libcupti name table, for 2, 0
 * and 64 devices. An input is a name, optionally followed by a NUL and four
 * bytes taken as a raw event code (little-endian). For every catalogue:
 *
 *  - the name is parsed, and the result is compared with an independent
 *    reference parser written from the documented grammar (cupti_cb(7)):
 *    both accept or both refuse, and accepted names give the same code;
 *    a refusal is CUPTI_CB_ENOEVNT or CUPTI_CB_EINVAL, nothing else;
 *  - an accepted code is valid, its canonical name parses back to it, and
 *    its name, description, qualifier description and units are printed
 *    into buffers of every small size and of exactly the needed size, each
 *    allocated to that size so that AddressSanitizer sees any overflow;
 *  - the raw code is valid exactly when its name can be printed, and a
 *    valid raw code round-trips through its name.
 *
 * Any inconsistency aborts (a finding). Built with clang
 * -fsanitize=fuzzer,address,undefined; run by fuzz_names.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_loader.h"

#define PREFIX "cupti_cb:::"
#define N_CATS 3

static const int cat_devices[N_CATS] = { 2, 0, 64 };
static struct cupti_cb_catalog cats[N_CATS];

/* The reference's own table: every base name, found by enumeration, with
 * its index. Linear search: independent of the catalogue's bsearch. */
struct ref_name {
	char name[CUPTI_CB_NAME_MAX];
	size_t len;
	uint32_t idx;
};
static struct ref_name *ref_names;
static unsigned n_ref_names;

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "fuzz_names: " __VA_ARGS__);                \
		fprintf(stderr, "\n");                                      \
		abort();                                                    \
	} while (0)

/* ---- the reference parser --------------------------------------------- */

static int ref_find(const char *base, size_t len, uint32_t *idx)
{
	for (unsigned i = 0; i < n_ref_names; i++)
		if (ref_names[i].len == len && !memcmp(ref_names[i].name, base, len)) {
			*idx = ref_names[i].idx;
			return 1;
		}
	return 0;
}

static int ref_per_device(uint32_t idx)
{
	return idx < cupti_cb_n_derived && cupti_cb_derived_events[idx].per_device;
}

/* The gauges and peaks (alloc.live_bytes, alloc.peak_bytes) exist for the
 * process only: cupti_cb(7) says :thread is refused for them. */
static int ref_process_only(uint32_t idx)
{
	return idx < cupti_cb_n_derived && cupti_cb_derived_events[idx].read != CUPTI_CB_READ_COUNT;
}

/* "0".."63": digits only, no leading zero. -1 when not a number. */
static int ref_ordinal(const char *s, size_t len)
{
	if (len == 0 || len > 3 || (s[0] == '0' && len > 1))
		return -1;
	int v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int field_is(const char *f, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(f, word, len);
}

/* 1 and *code when the documented grammar accepts name, 0 otherwise:
 *   [cupti_cb:::]BASE(:QUALIFIER)*
 *   QUALIFIER = process | thread | scope=process | scope=thread   (once)
 *             | device=N | deviceN   (once; per-device events; N < devices)
 * (thread and scope=thread not for the process-only gauges) and the name
 * after the prefix is shorter than CUPTI_CB_NAME_MAX. */
static int ref_parse(int n_devices, const char *name, uint32_t *code)
{
	if (!strncmp(name, PREFIX, strlen(PREFIX)))
		name += strlen(PREFIX);
	size_t n = strlen(name);
	if (n == 0 || n >= CUPTI_CB_NAME_MAX)
		return 0;
	const char *f = name, *end = name + n;
	const char *colon = memchr(f, ':', (size_t)(end - f));
	size_t flen = colon ? (size_t)(colon - f) : (size_t)(end - f);
	uint32_t idx;
	if (flen == 0 || !ref_find(f, flen, &idx))
		return 0;
	int device = -1, scope = -1;
	while (colon) {
		f = colon + 1;
		colon = memchr(f, ':', (size_t)(end - f));
		flen = colon ? (size_t)(colon - f) : (size_t)(end - f);
		if (flen == 0)
			return 0;
		if (field_is(f, flen, "process") || field_is(f, flen, "scope=process") ||
		    field_is(f, flen, "thread") || field_is(f, flen, "scope=thread")) {
			if (scope >= 0)
				return 0;
			scope = f[flen - 1] == 's';	/* "process" */
			continue;
		}
		int dev;
		if (flen > 7 && !memcmp(f, "device=", 7))
			dev = ref_ordinal(f + 7, flen - 7);
		else if (flen > 6 && !memcmp(f, "device", 6) && f[6] != '=')
			dev = ref_ordinal(f + 6, flen - 6);
		else
			return 0;
		if (dev < 0 || device >= 0 || !ref_per_device(idx) || dev >= n_devices)
			return 0;
		device = dev;
	}
	if (scope == 0 && ref_process_only(idx))
		return 0;
	*code = CUPTI_CB_CODE(idx, device, scope == 1);
	return 1;
}

/* ---- checks --------------------------------------------------------------- */

typedef int (*print_fn)(const struct cupti_cb_catalog *, uint32_t, char *, size_t);

/* Prints code with fn into a buffer of exactly len bytes on the heap. */
static int print_into(print_fn fn, const struct cupti_cb_catalog *cat, uint32_t code, size_t len,
		      char *copy, size_t copy_len)
{
	char *buf = malloc(len ? len : 1);
	if (!buf)
		FAIL("out of memory");
	if (len)
		memset(buf, 'X', len);
	int rc = fn(cat, code, len ? buf : NULL, len);
	if (len && !memchr(buf, '\0', len))
		FAIL("code %#x: output of %zu bytes not NUL-terminated (rc %d)", code, len, rc);
	snprintf(copy, copy_len, "%s", len ? buf : "");
	free(buf);
	return rc;
}

/* The description names the qualifiers of the code. */
static void check_descr(uint32_t code, const char *d)
{
	char want[64];
	if (!*d)
		FAIL("empty description for %#x", code);
	snprintf(want, sizeof want, "; device %d only", CUPTI_CB_CODE_DEV(code));
	if ((CUPTI_CB_CODE_DEV(code) >= 0) != (strstr(d, want) != NULL))
		FAIL("description of %#x and its device: '%s'", code, d);
	if (CUPTI_CB_CODE_PROC(code) != (strstr(d, "; all threads of the process") != NULL))
		FAIL("description of %#x and its scope: '%s'", code, d);
}

/* name: exact when it fits, CUPTI_CB_EINVAL and a NUL-terminated prefix
 * otherwise. descr and qualifier_descr: a NUL-terminated prefix of the full
 * text (they truncate: PAPI's description fields are fixed-size). */
static void check_printers(const struct cupti_cb_catalog *cat, uint32_t code, const char *canon)
{
	static const struct {
		print_fn fn;
		const char *what;
		int strict;	/* refuses to truncate */
	} printers[] = {
		{ cupti_cb_catalog_name, "name", 1 },
		{ cupti_cb_catalog_descr, "descr", 0 },
		{ cupti_cb_catalog_qualifier_descr, "qualifier_descr", 0 },
	};
	static char full[4096], part[4096];
	for (size_t p = 0; p < sizeof printers / sizeof printers[0]; p++) {
		int rc = print_into(printers[p].fn, cat, code, sizeof full, full, sizeof full);
		if (rc != CUPTI_CB_OK)
			FAIL("%s of valid code %#x failed: %d", printers[p].what, code, rc);
		size_t n = strlen(full);
		if (n + 1 >= sizeof full)
			FAIL("%s of code %#x is implausibly long", printers[p].what, code);
		if (printers[p].strict && strcmp(full, canon))
			FAIL("name of %#x is '%s' once, '%s' again", code, canon, full);
		if (printers[p].fn == cupti_cb_catalog_descr)
			check_descr(code, full);
		size_t sizes[] = { 0, 1, 2, 3, 7, 16, n / 2, n, n + 1, n + 2 };
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			size_t len = sizes[s];
			rc = print_into(printers[p].fn, cat, code, len, part, sizeof part);
			int fits = len > n;
			if (printers[p].strict && rc != (fits ? CUPTI_CB_OK : CUPTI_CB_EINVAL))
				FAIL("%s of %#x into %zu bytes (needs %zu): rc %d", printers[p].what, code,
				     len, n + 1, rc);
			if (!printers[p].strict && rc != CUPTI_CB_OK)
				FAIL("%s of %#x into %zu bytes: rc %d", printers[p].what, code, len, rc);
			if (len && strncmp(part, full, len - 1 < n ? len - 1 : n))
				FAIL("%s of %#x into %zu bytes is not a prefix: '%s' of '%s'",
				     printers[p].what, code, len, part, full);
			if (len && strlen(part) != (len - 1 < n ? len - 1 : n))
				FAIL("%s of %#x into %zu bytes: %zu characters, want %zu", printers[p].what,
				     code, len, strlen(part), len - 1 < n ? len - 1 : n);
		}
	}
	const char *u = cupti_cb_catalog_units(cat, code);
	if (!u || strlen(u) > 16)
		FAIL("units of %#x: %s", code, u ? u : "(null)");
	uint32_t idx = CUPTI_CB_CODE_IDX(code);
	if (cupti_cb_kind_of(cat, idx) == CUPTI_CB_API_TIME && strcmp(u, "ns"))
		FAIL("time event %#x has units '%s'", code, u);
	if (cupti_cb_kind_of(cat, idx) == CUPTI_CB_API_CALLS && *u)
		FAIL("calls event %#x has units '%s'", code, u);
}

/* A valid code: its canonical name parses back to it, and so does the name
 * with the component prefix. */
static void check_code(const struct cupti_cb_catalog *cat, uint32_t code)
{
	char canon[CUPTI_CB_NAME_MAX], prefixed[CUPTI_CB_NAME_MAX + sizeof PREFIX];
	if (!cupti_cb_catalog_valid(cat, code))
		FAIL("code %#x is not valid", code);
	int rc = cupti_cb_catalog_name(cat, code, canon, sizeof canon);
	if (rc != CUPTI_CB_OK)
		FAIL("valid code %#x has no name: %d", code, rc);
	uint32_t back = ~0u;
	rc = cupti_cb_catalog_parse(cat, canon, &back);
	if (rc != CUPTI_CB_OK || back != code)
		FAIL("'%s' (code %#x) parses back to %#x, rc %d", canon, code, back, rc);
	snprintf(prefixed, sizeof prefixed, PREFIX "%s", canon);
	back = ~0u;
	rc = cupti_cb_catalog_parse(cat, prefixed, &back);
	if (rc != CUPTI_CB_OK || back != code)
		FAIL("'%s' (code %#x) parses back to %#x, rc %d", prefixed, code, back, rc);
	check_printers(cat, code, canon);
}

static void check_name(const struct cupti_cb_catalog *cat, int n_devices, const char *name)
{
	uint32_t code = 0xdeadbeefu, want = 0;
	int rc = cupti_cb_catalog_parse(cat, name, &code);
	int ok = ref_parse(n_devices, name, &want);
	if (rc != CUPTI_CB_OK && rc != CUPTI_CB_ENOEVNT && rc != CUPTI_CB_EINVAL)
		FAIL("'%s': undocumented error %d", name, rc);
	if (rc != CUPTI_CB_OK && code != 0xdeadbeefu)
		FAIL("'%s': refused (%d) but the code was written", name, rc);
	if (ok != (rc == CUPTI_CB_OK))
		FAIL("'%s' with %d devices: the catalogue says %d, the grammar says %s", name, n_devices,
		     rc, ok ? "valid" : "invalid");
	if (!ok)
		return;
	if (code != want)
		FAIL("'%s': code %#x, want %#x", name, code, want);
	check_code(cat, code);
}

static void check_raw_code(const struct cupti_cb_catalog *cat, uint32_t code)
{
	char buf[CUPTI_CB_NAME_MAX];
	int valid = cupti_cb_catalog_valid(cat, code);
	int rc = cupti_cb_catalog_name(cat, code, buf, sizeof buf);
	if (valid != (rc == CUPTI_CB_OK))
		FAIL("raw code %#x: valid %d but name rc %d", code, valid, rc);
	if (valid) {
		check_code(cat, code);
		return;
	}
	if (rc != CUPTI_CB_ENOEVNT)
		FAIL("invalid raw code %#x: name rc %d", code, rc);
	if ((rc = cupti_cb_catalog_descr(cat, code, buf, sizeof buf)) != CUPTI_CB_ENOEVNT)
		FAIL("invalid raw code %#x: descr rc %d", code, rc);
	if ((rc = cupti_cb_catalog_qualifier_descr(cat, code, buf, sizeof buf)) != CUPTI_CB_ENOEVNT)
		FAIL("invalid raw code %#x: qualifier_descr rc %d", code, rc);
}

/* ---- set-up: the catalogues, and one pass over every code ---------------- */

/* Every event and every qualifier the enumeration offers round-trips. */
static void check_enumeration(const struct cupti_cb_catalog *cat)
{
	uint32_t code = cupti_cb_catalog_first();
	unsigned events = 0;
	do {
		check_code(cat, code);
		events++;
		uint32_t q = code;
		for (int rc = cupti_cb_catalog_first_qualifier(cat, &q); rc == 0;
		     rc = cupti_cb_catalog_next_qualifier(cat, &q))
			check_code(cat, q);
	} while (cupti_cb_catalog_next(cat, &code) == 0);
	if (events != cat->n_events)
		FAIL("enumeration gave %u events of %u", events, cat->n_events);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	static struct cupti_cb_api api;
	char why[512];
	if (cupti_cb_load_cupti(&api, why, sizeof why))
		FAIL("cannot load libcupti: %s", why);
	for (int c = 0; c < N_CATS; c++) {
		int rc = cupti_cb_catalog_build(&cats[c], api.cuptiGetCallbackName, cat_devices[c]);
		if (rc != CUPTI_CB_OK)
			FAIL("catalogue for %d devices: %d", cat_devices[c], rc);
		if (cats[c].n_events != cats[0].n_events)
			FAIL("catalogues differ in size: %u, %u", cats[c].n_events, cats[0].n_events);
	}
	if (cats[0].n_events < 1000)
		FAIL("only %u events: is this the real libcupti?", cats[0].n_events);
	ref_names = calloc(cats[0].n_events, sizeof *ref_names);
	if (!ref_names)
		FAIL("out of memory");
	uint32_t code = cupti_cb_catalog_first();
	do {
		struct ref_name *r = &ref_names[n_ref_names++];
		if (cupti_cb_catalog_name(&cats[0], code, r->name, sizeof r->name))
			FAIL("event %#x has no name", code);
		r->idx = CUPTI_CB_CODE_IDX(code);
		r->len = strlen(r->name);
		if (strchr(r->name, ':'))
			FAIL("base name '%s' holds a ':'", r->name);
		for (unsigned i = 0; i + 1 < n_ref_names; i++)
			if (!strcmp(ref_names[i].name, r->name))
				FAIL("two events are named '%s'", r->name);
	} while (cupti_cb_catalog_next(&cats[0], &code) == 0);
	for (int c = 0; c < N_CATS; c++)
		check_enumeration(&cats[c]);
	fprintf(stderr, "fuzz_names: %u events, enumeration of %d catalogues checked\n",
		cats[0].n_events, N_CATS);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The name: the bytes up to the first NUL (or all of them). */
	char *name = malloc(size + 1);
	if (!name)
		FAIL("out of memory");
	memcpy(name, data, size);
	name[size] = '\0';
	size_t n = strlen(name);
	for (int c = 0; c < N_CATS; c++)
		check_name(&cats[c], cat_devices[c], name);
	/* The raw code: four bytes after the NUL, when present. */
	if (n + 1 + 4 <= size) {
		const uint8_t *b = data + n + 1;
		uint32_t code = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				(uint32_t)b[3] << 24;
		for (int c = 0; c < N_CATS; c++)
			check_raw_code(&cats[c], code);
	}
	free(name);
	return 0;
}
