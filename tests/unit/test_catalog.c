/* test_catalog.c: every callback name CUPTI knows maps to exactly one event
 * and back; no duplicates, no characters that PAPI_EVENTS or TAU_METRICS
 * would split on. Uses the real libcupti name table. */
#include <ctype.h>

#include "check.h"
#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_loader.h"

static struct cupti_cb_catalog cat;
static struct cupti_cb_api api;

static const char *domain_name(int d)
{
	return d ? "driver" : "runtime";
}

/* Each CBID with a usable name has a slot whose name is its base name, and
 * whose two events parse back to that slot. */
static void every_cbid_maps_once(void)
{
	unsigned named = 0, bad = 0;
	for (int d = 0; d < 2; d++) {
		CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		for (uint32_t cbid = 1; cbid < cat.n_cbids[d]; cbid++) {
			const char *raw = NULL;
			if (api.cuptiGetCallbackName(dom, cbid, &raw) != CUPTI_SUCCESS || !raw)
				continue;
			named++;
			char base[CUPTI_CB_NAME_MAX], want[CUPTI_CB_NAME_MAX + 8];
			snprintf(base, sizeof base, "%s", raw);
			cupti_cb_base_name(base);
			unsigned slot = cat.slot_of[d][cbid];
			uint32_t code = 0;
			snprintf(want, sizeof want, "%s.calls", base);
			if (!slot || strcmp(cat.funcs[slot - 1].name, base) || cat.funcs[slot - 1].domain != dom ||
			    cupti_cb_catalog_parse(&cat, want, &code) ||
			    cupti_cb_slot_of_index(CUPTI_CB_CODE_IDX(code)) != slot - 1) {
				if (bad++ < 5)
					printf("# %s CBID %u '%s' does not map to '%s'\n", domain_name(d), cbid,
					       raw, want);
			}
		}
	}
	CHECK(named > 1000, "CUPTI names %u runtime+driver CBIDs", named);
	CHECK_EQ(bad, 0, "CBIDs that do not map to their event");
	CHECK(cat.n_funcs < named, "versions and _ptds/_ptsz variants merged: %u functions from %u CBIDs",
	      cat.n_funcs, named);
}

static void merged_variants(void)
{
	const unsigned r = 0, dv = 1;
	CHECK(cat.slot_of[r][CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020] ==
		      cat.slot_of[r][CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000],
	      "cudaMemcpy and its _ptds variant share one event");
	CHECK(cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2] ==
		      cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds],
	      "cuMemcpyHtoD_v2 and _v2_ptds share one event");
	CHECK(cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] ==
		      cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz],
	      "cuLaunchKernel and _ptsz share one event");
	CHECK(cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize] ==
		      cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2],
	      "cuCtxSynchronize and _v2 share one event");
	CHECK(cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] !=
		      cat.slot_of[dv][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx],
	      "cuLaunchKernelEx is its own function");
}

static int forbidden(const char *s)
{
	for (; *s; s++)
		if (strchr(",|^=: \t", *s) || !isprint((unsigned char)*s))
			return 1;
	return 0;
}

/* Names are unique, clean, and every code round-trips through its name,
 * qualified codes included. */
static void names_round_trip(void)
{
	unsigned dups = 0, dirty = 0, trips = 0, broken = 0;
	for (unsigned i = 1; i < cat.n_events; i++)
		dups += !strcmp(cat.by_name[i - 1].name, cat.by_name[i].name);
	for (unsigned i = 0; i < cat.n_events; i++)
		dirty += forbidden(cat.by_name[i].name);
	for (uint32_t idx = 0; idx < cat.n_events; idx++) {
		uint32_t code = CUPTI_CB_CODE(idx, -1, 0);
		int rc = 0;
		do {
			char name[CUPTI_CB_NAME_MAX];
			uint32_t back = 0;
			trips++;
			if (cupti_cb_catalog_name(&cat, code, name, sizeof name) ||
			    cupti_cb_catalog_parse(&cat, name, &back) || back != code) {
				if (broken++ < 5)
					printf("# code %#x (%s) does not round-trip\n", code, name);
			}
			rc = code == CUPTI_CB_CODE(idx, -1, 0) ? cupti_cb_catalog_first_qualifier(&cat, &code)
							      : cupti_cb_catalog_next_qualifier(&cat, &code);
		} while (rc == 0);
	}
	CHECK_EQ(cat.n_events, cupti_cb_n_derived + 5 * cat.n_funcs, "event count: five per function");
	CHECK_EQ(dups, 0, "duplicate names");
	CHECK_EQ(dirty, 0, "names with ',', '|', '^', '=', ':' or spaces");
	CHECK_EQ(broken, 0, "codes that do not round-trip through their names");
	CHECK(trips > 2 * cat.n_events, "%u qualified and plain codes checked", trips);
}

/* The five events of a function, in enum cupti_cb_kind order, and the
 * process-wide gauges that refuse :thread. */
static void function_kinds(void)
{
	static const struct {
		const char *suffix;
		enum cupti_cb_kind kind;
		const char *units;
	} k[] = { { ".calls", CUPTI_CB_API_CALLS, "" },
		  { ".time_ns", CUPTI_CB_API_TIME, "ns" },
		  { ".time_ns_min", CUPTI_CB_API_TIME_MIN, "ns" },
		  { ".time_ns_max", CUPTI_CB_API_TIME_MAX, "ns" },
		  { ".errors", CUPTI_CB_API_ERRORS, "" } };
	unsigned slot = cat.slot_of[1][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] - 1u;
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		char name[64];
		uint32_t code = 0;
		snprintf(name, sizeof name, "cuLaunchKernel%s", k[i].suffix);
		int rc = cupti_cb_catalog_parse(&cat, name, &code);
		uint32_t idx = CUPTI_CB_CODE_IDX(code);
		CHECK(rc == 0 && cupti_cb_kind_of(&cat, idx) == k[i].kind && cupti_cb_slot_of_index(idx) == slot &&
			      idx == cupti_cb_index_of(slot, k[i].kind) &&
			      !strcmp(cupti_cb_catalog_units(&cat, code), k[i].units),
		      "%s: kind %d, slot %u, units '%s'", name, (int)k[i].kind, slot, k[i].units);
		CHECK(cupti_cb_catalog_may_be_ours(name), "%s may be ours", name);
	}
	uint32_t code;
	CHECK_EQ(cupti_cb_catalog_parse(&cat, "alloc.live_bytes:thread", &code), CUPTI_CB_ENOEVNT,
		 "alloc.live_bytes:thread is refused");
	CHECK_EQ(cupti_cb_catalog_parse(&cat, "alloc.peak_bytes:device=0:scope=thread", &code), CUPTI_CB_ENOEVNT,
		 "alloc.peak_bytes:...:scope=thread is refused");
	CHECK_EQ(cupti_cb_catalog_parse(&cat, "alloc.live_bytes:process", &code), 0, "alloc.live_bytes:process");
	CHECK_EQ(cupti_cb_catalog_parse(&cat, "api.errors:thread", &code), 0, "api.errors:thread");
	CHECK_EQ(cupti_cb_catalog_parse(&cat, "kernel.threads:device0", &code), 0, "kernel.threads:device0");
}

static void descriptions(void)
{
	unsigned empty = 0;
	for (uint32_t idx = 0; idx < cat.n_events; idx++) {
		char d[512] = "";
		if (cupti_cb_catalog_descr(&cat, CUPTI_CB_CODE(idx, -1, 0), d, sizeof d) || strlen(d) < 10)
			empty++;
	}
	CHECK_EQ(empty, 0, "events without a description");
	char d[512];
	uint32_t code;
	cupti_cb_catalog_parse(&cat, "cuMemcpyHtoD.time_ns", &code);
	cupti_cb_catalog_descr(&cat, code, d, sizeof d);
	CHECK(strstr(d, "cuMemcpyHtoD") && strstr(d, "driver"), "per-API description: %s", d);
}

int main(void)
{
	char why[512];
	if (cupti_cb_load_cupti(&api, why, sizeof why)) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	CHECK_EQ(cupti_cb_catalog_build(&cat, api.cuptiGetCallbackName, 4), 0, "catalogue builds");
	every_cbid_maps_once();
	merged_variants();
	names_round_trip();
	function_kinds();
	descriptions();
	cupti_cb_catalog_free(&cat);
	return checks_done();
}
