/* fuzz_metric_names.c: a libFuzzer target on hardware-metric names.
 *
 * The GH100 catalogue is built once from the real libcupti's Profiler Host
 * API (no GPU needed). An input is a name. It is split as the metric source
 * splits it (cupti_cb_split_name, cupti_cb_qualifiers_parse) and its base
 * parsed (cupti_cb_profiler_catalog_parse):
 *
 *  - a refusal is one of the documented errors, nothing else;
 *  - an accepted (metric, variant) is in range, its listed name and its
 *    full name parse back to the same metric (the full name to the variant
 *    itself, or to the default variant's suffix), and its name, full name
 *    and units are printed into buffers of every small size, each allocated
 *    to that size;
 *  - an accepted name is made only of [A-Za-z0-9_.], so it is safe in
 *    PAPI_EVENTS and TAU_METRICS.
 *
 * Any inconsistency aborts (a finding). Built with clang
 * -fsanitize=fuzzer,undefined: CUPTI opens its host library with
 * RTLD_DEEPBIND, which AddressSanitizer's runtime refuses. Run by
 * fuzz_metric_names.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_api.h"

static struct cupti_cb_api api;
static struct cupti_cb_profiler_api prof;
static struct cupti_cb_profiler_catalog cat;

#define FAIL(...)                                        \
	do {                                             \
		fprintf(stderr, "finding: " __VA_ARGS__); \
		fputc('\n', stderr);                     \
		abort();                                 \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char why[1024];
	(void)argc, (void)argv;
	if (cupti_cb_load_cupti(&api, why, sizeof why) || cupti_cb_profiler_api_load(&prof, api.cupti_lib, why, sizeof why) ||
	    cupti_cb_profiler_catalog_build(&cat, &prof, "GH100", why, sizeof why)) {
		fprintf(stderr, "fuzz_metric_names: %s\n", why);
		exit(1);
	}
	return 0;
}

static int safe(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '.'))
			return 0;
	return 1;
}

/* Every small buffer size: a print that does not fit must say so, never overflow. */
static void print_all_sizes(uint32_t metric, uint32_t variant)
{
	for (size_t len = 1; len < 96; len++) {
		char *b = malloc(len);
		if (!b)
			abort();
		(void)cupti_cb_profiler_catalog_name(&cat, metric, variant, b, len);
		(void)cupti_cb_profiler_catalog_full_name(&cat, metric, variant, b, len);
		(void)cupti_cb_profiler_catalog_units(&cat, metric, variant, b, len);
		free(b);
	}
}

static void check_accepted(const char *base, uint32_t metric, uint32_t variant)
{
	char name[CUPTI_CB_PROFILER_CATALOG_NAME_MAX], full[CUPTI_CB_PROFILER_CATALOG_NAME_MAX];
	uint32_t m2, v2;
	if (metric >= cat.n_metrics)
		FAIL("%s: metric %u out of range", base, metric);
	unsigned type = cat.metrics[metric].type;
	if (type >= CUPTI_CB_PROFILER_CATALOG_TYPES || variant > cat.n_suffixes[type])
		FAIL("%s: variant %u out of range", base, variant);
	if (!safe(base))
		FAIL("%s: accepted with a character unsafe in PAPI_EVENTS", base);
	if (cupti_cb_profiler_catalog_name(&cat, metric, variant, name, sizeof name) ||
	    cupti_cb_profiler_catalog_parse(&cat, name, &m2, &v2) || m2 != metric || v2 != variant)
		FAIL("%s: its name %s does not parse back", base, name);
	if (cupti_cb_profiler_catalog_full_name(&cat, metric, variant, full, sizeof full) ||
	    cupti_cb_profiler_catalog_parse(&cat, full, &m2, &v2) || m2 != metric ||
	    v2 != (variant ? variant : cat.default_variant[type]))
		FAIL("%s: its full name %s does not parse back", base, full);
	print_all_sizes(metric, variant);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), buf[CUPTI_CB_NAME_MAX], *quals;
	struct cupti_cb_quals q;
	uint32_t metric, variant;
	if (!in)
		abort();
	memcpy(in, data, size);
	in[size] = '\0';
	int rc = cupti_cb_split_name(in, buf, sizeof buf, &quals);
	/* A name too long for the buffer is no event; other refusals are malformed names. */
	int too_long = strlen(cupti_cb_strip_prefix(in)) >= sizeof buf;
	if (rc && rc != (too_long ? CUPTI_CB_ENOEVNT : CUPTI_CB_EINVAL))
		FAIL("split_name: %d", rc);
	if (rc == 0) {
		rc = cupti_cb_profiler_catalog_parse(&cat, buf, &metric, &variant);
		if (rc == 0)
			check_accepted(buf, metric, variant);
		else if (rc != CUPTI_CB_PROFILER_CATALOG_ENOMETRIC && rc != CUPTI_CB_PROFILER_CATALOG_ESUFFIX && rc != CUPTI_CB_PROFILER_CATALOG_EINVAL)
			FAIL("mcat_parse(%s): %d", buf, rc);
		rc = cupti_cb_qualifiers_parse(quals, &q);
		if (rc && rc != CUPTI_CB_EINVAL && rc != CUPTI_CB_ENOEVNT)
			FAIL("qualifiers: %d", rc);
		if (rc == 0 && (q.device < -1 || q.device > 999 || q.scope < -1 || q.scope > 1))
			FAIL("qualifiers out of range: device %d scope %d", q.device, q.scope);
	}
	free(in);
	return 0;
}
