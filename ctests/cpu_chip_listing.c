/*
 * cpu_chip_listing: planning event sets on a login node. With CUPTI_CB_CHIP=GH100, the real
 * libcupti's Profiler Host API lists GH100's hardware metrics through PAPI whether or not the
 * machine has a GPU or a driver, together with the callback events:
 *
 * - papi_native_avail's walk lists 3,650 metric events (3,389 counters, 205 ratios, 56
 *   throughputs) after more than 2,000 callback events, and the 1,279 metrics PM sampling can
 *   collect, named with :sampled, in under a second; a metric only PM sampling has
 *   (dram__read_throughput) is listed only so;
 * - names resolve and name back, with their units and data types;
 * - without a driver (libcuda.so.1 does not load: the CI machines), adding any cupti_cb event fails
 *   and the component's reason begins "No NVIDIA driver"; with a driver (a GPU machine) the metric
 *   is added instead.
 */
#include "ctest_util.h"

#include <dlfcn.h>
#include <time.h>

#define GH100_METRICS (3389 + 205 + 56)
#define GH100_SAMPLED 1279

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* 1: a Range Profiler metric, 2: a sampled one, 0: a callback or activity event. */
static int is_metric(const char *full)
{
    const char *n = strstr(full, ":::");
    n = n ? n + 3 : full;
    if (n[0] == '_' || strstr(n, "__") == NULL)
        return 0;
    return strstr(n, ":sampled") ? 2 : 1;
}

int main(void)
{
    setenv("CUPTI_CB_CHIP", "GH100", 1);
    ct_library_init();
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    if (cidx < 0)
        ct_fatal("no component %s in this libpapi", CT_COMPONENT);

    int code = PAPI_NATIVE_MASK, n_metric = 0, n_sampled = 0, n_cb = 0, pm_only = 0;
    double t0 = now_s();
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) == PAPI_OK) {
        do {
            PAPI_event_info_t info;
            if (PAPI_get_event_info(code, &info) != PAPI_OK)
                continue;
            int kind = is_metric(info.symbol);
            n_metric += kind == 1;
            n_sampled += kind == 2;
            n_cb += kind == 0;
            pm_only += !strcmp(info.symbol, "cupti_cb:::dram__read_throughput:sampled") ||
                       !strcmp(info.symbol, "cupti_cb:::dram__read_throughput");
        } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    }
    double t = now_s() - t0;
    ct_note("listing: %d metric, %d sampled and %d callback events in %.3f s", n_metric, n_sampled, n_cb, t);
    CHECK_EQ("GH100's metrics listed, each base metric once", n_metric, GH100_METRICS);
    CHECK_EQ("GH100's sampled metrics listed, each once", n_sampled, GH100_SAMPLED);
    CHECK_EQ("dram__read_throughput listed once (sampled only)", pm_only, 1);
    CHECK_EQ("and resolves only with :sampled",
             PAPI_event_name_to_code("cupti_cb:::dram__read_throughput", &code), PAPI_ENOEVNT);
    CHECK_EQ("with :sampled", PAPI_event_name_to_code("cupti_cb:::dram__read_throughput:sampled", &code), PAPI_OK);
    CHECK_REL("callback events listed too", n_cb, ">", 2000);
    ct_result(t < 1.0, "the whole listing, with every event's info, takes under a second (%.3f s)", t);

    PAPI_event_info_t info;
    char back[PAPI_MAX_STR_LEN];
    int rc = PAPI_event_name_to_code("cupti_cb:::l1tex__t_sector_hit_rate.pct", &code);
    CHECK_EQ("cupti_cb:::l1tex__t_sector_hit_rate.pct resolves", rc, PAPI_OK);
    PAPI_event_code_to_name(code, back);
    CHECK_TRUE("and names back", !strcmp(back, "cupti_cb:::l1tex__t_sector_hit_rate.pct"));
    PAPI_get_event_info(code, &info);
    CHECK_EQ("a ratio is a double", info.data_type, PAPI_DATATYPE_FP64);
    CHECK_TRUE("in %", !strcmp(info.units, "%"));
    rc = PAPI_event_name_to_code("cupti_cb:::dram__bytes_read", &code);
    CHECK_EQ("the base name alone resolves", rc, PAPI_OK);
    PAPI_get_event_info(code, &info);
    CHECK_EQ("a counter's default .sum is an integer", info.data_type, PAPI_DATATYPE_UINT64);
    CHECK_TRUE("in bytes", !strcmp(info.units, "byte"));

    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    rc = PAPI_add_named_event(es, "cupti_cb:::dram__bytes_read.sum");
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    if (!cuda) {
        ct_note("no driver here: reason \"%s\"", ci->disabled_reason);
        CHECK_TRUE("without a driver the add fails", rc != PAPI_OK);
        CHECK_TRUE("and the reason says so", !strncmp(ci->disabled_reason, "No NVIDIA driver", 16));
    } else {
        ct_note("a driver is here: the add returned %s", ct_papi_err(rc));
        CHECK_TRUE("with a driver, the add succeeds or names its reason",
                   rc == PAPI_OK || ci->disabled_reason[0] != '\0');
        dlclose(cuda);
    }
    return ct_done();
}
