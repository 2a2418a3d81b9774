/* test_names.c: parsing and printing event names, good and bad, and the
 * enumeration papi_native_avail walks. Uses the real CUPTI name table. */
#include "check.h"
#include "cupti_cb_callback_catalog.h"
#include "cupti_cb_loader.h"

static struct cupti_cb_catalog cat;

static uint32_t idx_of(const char *base)
{
	uint32_t code = 0;
	if (cupti_cb_catalog_parse(&cat, base, &code))
		return UINT32_MAX;
	return CUPTI_CB_CODE_IDX(code);
}

static void expect(const char *name, int rc, const char *why)
{
	uint32_t code = 0;
	CHECK_EQ(cupti_cb_catalog_parse(&cat, name, &code), rc, why);
}

static void expect_code(const char *name, uint32_t want)
{
	uint32_t code = 0;
	int rc = cupti_cb_catalog_parse(&cat, name, &code);
	CHECK(rc == 0 && code == want, "'%s' parses to %#x (rc %d, got %#x)", name, want, rc, code);
}

static void base_names(void)
{
	static const char *const cases[][2] = {
		{ "cudaMemcpy_v3020", "cudaMemcpy" },
		{ "cudaMemcpy_ptds_v7000", "cudaMemcpy" },
		{ "cuMemcpyHtoD_v2_ptds", "cuMemcpyHtoD" },
		{ "cuMemcpyAsync_ptsz", "cuMemcpyAsync" },
		{ "cuCtxCreate_v4", "cuCtxCreate" },
		{ "cudaGetDeviceProperties_v2_v12000", "cudaGetDeviceProperties" },
		{ "cuInit", "cuInit" },
		{ "cuLaunchKernel", "cuLaunchKernel" },
		{ "__cudaPushCallConfiguration", "__cudaPushCallConfiguration" },
		{ "cuFoo_v", "cuFoo_v" },
		{ "_v2", "_v2" },
		{ "cuFoo_vx2", "cuFoo_vx2" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "%s", cases[i][0]);
		cupti_cb_base_name(buf);
		CHECK_STR(buf, cases[i][1], cases[i][0]);
	}
}

static void good_names(void)
{
	uint32_t k = idx_of("kernel.launches");
	CHECK(k < cupti_cb_n_derived, "kernel.launches is a derived event");
	expect_code("kernel.launches", CUPTI_CB_CODE(k, -1, 0));
	expect_code("cupti_cb:::kernel.launches", CUPTI_CB_CODE(k, -1, 0));
	expect_code("kernel.launches:device=1", CUPTI_CB_CODE(k, 1, 0));
	expect_code("kernel.launches:device1", CUPTI_CB_CODE(k, 1, 0));
	expect_code("kernel.launches:device0:process", CUPTI_CB_CODE(k, 0, 1));
	expect_code("kernel.launches:process:device=0", CUPTI_CB_CODE(k, 0, 1));
	expect_code("kernel.launches:scope=process", CUPTI_CB_CODE(k, -1, 1));
	expect_code("kernel.launches:thread", CUPTI_CB_CODE(k, -1, 0));
	expect_code("kernel.launches:scope=thread", CUPTI_CB_CODE(k, -1, 0));
	uint32_t m = idx_of("cudaMemcpy.calls");
	CHECK(m >= cupti_cb_n_derived && cupti_cb_kind_of(&cat, m) == CUPTI_CB_API_CALLS,
	      "cudaMemcpy.calls is a per-API calls event");
	CHECK(idx_of("cudaMemcpy.time_ns") == m + 1, "cudaMemcpy.time_ns follows cudaMemcpy.calls");
	expect_code("cudaMemcpy.calls:process", CUPTI_CB_CODE(m, -1, 1));
	CHECK(idx_of("cuLaunchKernel.calls") != UINT32_MAX, "cuLaunchKernel.calls exists");
	CHECK(idx_of("api.calls") < cupti_cb_n_derived, "api.calls exists");

	char buf[CUPTI_CB_NAME_MAX];
	CHECK_EQ(cupti_cb_catalog_name(&cat, CUPTI_CB_CODE(k, 1, 1), buf, sizeof buf), 0, "name of a code");
	CHECK_STR(buf, "kernel.launches:device=1:process", "canonical qualified name");
	CHECK_EQ(cupti_cb_catalog_name(&cat, CUPTI_CB_CODE(m + 1, -1, 0), buf, sizeof buf), 0, "name");
	CHECK_STR(buf, "cudaMemcpy.time_ns", "per-API time name");
	CHECK_EQ(cupti_cb_catalog_name(&cat, CUPTI_CB_CODE(k, -1, 0), buf, 5), CUPTI_CB_EINVAL,
		 "name into a short buffer is refused");
	CHECK_STR(cupti_cb_catalog_units(&cat, CUPTI_CB_CODE(m + 1, -1, 0)), "ns", "time units");
	CHECK_STR(cupti_cb_catalog_units(&cat, CUPTI_CB_CODE(idx_of("memcpy.bytes"), -1, 0)), "bytes",
		  "bytes units");
}

static void bad_names(void)
{
	char huge[5001];
	memset(huge, 'a', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	uint32_t code;

	expect("", CUPTI_CB_EINVAL, "empty name");
	CHECK_EQ(cupti_cb_catalog_parse(&cat, NULL, &code), CUPTI_CB_EINVAL, "NULL name");
	expect(huge, CUPTI_CB_ENOEVNT, "5000-character name: no event has it (cupti_cb-diagnostics(7), PAPI_ENOEVNT)");
	expect("no_such_event", CUPTI_CB_ENOEVNT, "unknown name");
	expect("cudaMemcpy_v3020.calls", CUPTI_CB_ENOEVNT, "versioned spelling is not an event");
	expect("kernel.launches:device=2", CUPTI_CB_ENOEVNT, "device out of range (2 devices)");
	expect("kernel.launches:device=64", CUPTI_CB_ENOEVNT, "device beyond the limit");
	expect("kernel.launches:device=-1", CUPTI_CB_EINVAL, "negative device");
	expect("kernel.launches:device=01", CUPTI_CB_EINVAL, "leading zero");
	expect("kernel.launches:device=", CUPTI_CB_EINVAL, "device without a number");
	expect("kernel.launches:device=1x", CUPTI_CB_EINVAL, "device with junk");
	expect("kernel.launches:device=1:device=0", CUPTI_CB_EINVAL, "device twice");
	expect("kernel.launches:process:thread", CUPTI_CB_EINVAL, "scope twice");
	expect("kernel.launches:bogus", CUPTI_CB_ENOEVNT, "unknown qualifier");
	expect("kernel.launches::process", CUPTI_CB_EINVAL, "empty qualifier");
	expect("kernel.launches:", CUPTI_CB_EINVAL, "trailing colon");
	expect(":kernel.launches", CUPTI_CB_EINVAL, "leading colon");
	expect("cudaMemcpy.calls:device=0", CUPTI_CB_ENOEVNT, "device on a per-API event");
	expect("api.calls:device0", CUPTI_CB_ENOEVNT, "device on api.calls");
	expect("kernel.launches,memcpy.bytes", CUPTI_CB_ENOEVNT, "a list is not a name");
	CHECK(!cupti_cb_catalog_valid(&cat, CUPTI_CB_CODE(cat.n_events, -1, 0)), "index past the end");
	CHECK(!cupti_cb_catalog_valid(&cat, 0xffffffffu), "garbage code");
	CHECK(!cupti_cb_catalog_valid(&cat, CUPTI_CB_CODE(idx_of("cudaMemcpy.calls"), 0, 0)),
	      "device on a per-API code");
}

static void enumeration(void)
{
	uint32_t code = cupti_cb_catalog_first();
	unsigned n = 1;
	while (cupti_cb_catalog_next(&cat, &code) == 0)
		n++;
	CHECK_EQ(n, cat.n_events, "enumeration visits every event once");

	unsigned q = 0;
	code = CUPTI_CB_CODE(idx_of("kernel.launches"), -1, 0);
	char buf[CUPTI_CB_NAME_MAX], names[3][CUPTI_CB_NAME_MAX];
	for (int rc = cupti_cb_catalog_first_qualifier(&cat, &code); rc == 0;
	     rc = cupti_cb_catalog_next_qualifier(&cat, &code)) {
		cupti_cb_catalog_name(&cat, code, buf, sizeof buf);
		if (q < 3)
			snprintf(names[q], sizeof names[q], "%s", buf);
		q++;
	}
	CHECK_EQ(q, 3, "kernel.launches has 3 qualifiers with 2 devices");
	CHECK_STR(names[0], "kernel.launches:process", "first qualifier");
	CHECK_STR(names[2], "kernel.launches:device=1", "last qualifier");

	q = 0;
	code = CUPTI_CB_CODE(idx_of("cudaMemcpy.calls"), -1, 0);
	for (int rc = cupti_cb_catalog_first_qualifier(&cat, &code); rc == 0;
	     rc = cupti_cb_catalog_next_qualifier(&cat, &code))
		q++;
	CHECK_EQ(q, 1, "a per-API event has only the scope qualifier");

	CHECK_EQ(cupti_cb_catalog_qualifier_descr(&cat, CUPTI_CB_CODE(idx_of("kernel.launches"), 1, 0),
						  buf, sizeof buf), 0, "qualifier description");
	CHECK(strstr(buf, "device 1") != NULL, "qualifier description names the device: %s", buf);
}

int main(void)
{
	struct cupti_cb_api api = { 0 };
	char why[512];
	if (cupti_cb_load_cupti(&api, why, sizeof why)) {
		fprintf(stderr, "%s\n", why);
		return 1;	/* libcupti ships with the toolkit: its absence is a failure here */
	}
	CHECK_EQ(cupti_cb_catalog_build(&cat, api.cuptiGetCallbackName, 2), 0, "catalogue builds");
	base_names();
	good_names();
	bad_names();
	enumeration();
	cupti_cb_catalog_free(&cat);
	return checks_done();
}
