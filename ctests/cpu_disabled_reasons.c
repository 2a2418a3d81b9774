/*
 * cpu_disabled_reasons: the overrides of the library search, and the
 * sentence each failure gives. Runs the same on a CPU machine and a GPU one:
 * each case is a child process (this program again, with one argument)
 * whose environment points the component at a library that does not exist.
 *
 * - CUPTI_CB_CUPTI_LIB=/nonexistent/libcupti.so: disabled, the reason begins
 *   "libcupti not found: CUPTI_CB_CUPTI_LIB=/nonexistent/libcupti.so" (an
 *   override that fails is never replaced by a search).
 * - CUPTI_CB_CUDA_LIB=/nonexistent/libcuda.so.1: disabled, the reason begins
 *   "No NVIDIA driver: /nonexistent/libcuda.so.1 cannot be loaded".
 * - CUPTI_CB_CUPTI_LIB=libc.so.6 (a library that loads but has no
 *   CUPTI): disabled, the reason begins "libcupti not usable:" and names
 *   cuptiGetVersion.
 * In each case PAPI itself still works and the add of a cupti_cb event
 * fails with PAPI_ENOEVNT.
 */
#include "ctest_util.h"


static int child(const char *want)
{
    ct_library_init();
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    const PAPI_component_info_t *ci = ct_component_after_init(cidx);
    ct_note("reason: %s", ci->disabled_reason);
    CHECK_TRUE("the component is disabled", ci->disabled != 0);
    CHECK_TRUE(want, strncmp(ci->disabled_reason, want, strlen(want)) == 0);
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    ct_check_rc("add kernel.launches", ct_add(es, "kernel.launches"), PAPI_ENOEVNT);
    CHECK_TRUE("PAPI's clock still works", PAPI_get_real_nsec() > 0);
    PAPI_MUST(PAPI_destroy_eventset(&es));
    return ct_done();
}

struct scenario {
    const char *var, *value, *want;
};

static const struct scenario cases[] = {
    {"CUPTI_CB_CUPTI_LIB", "/nonexistent/libcupti.so",
     "libcupti not found: CUPTI_CB_CUPTI_LIB=/nonexistent/libcupti.so"},
    {"CUPTI_CB_CUDA_LIB", "/nonexistent/libcuda.so.1",
     "No NVIDIA driver: /nonexistent/libcuda.so.1 cannot be loaded"},
    {"CUPTI_CB_CUPTI_LIB", "libc.so.6", "libcupti not usable: libc.so.6 lacks cuptiGetVersion"},
};

int main(int argc, char **argv)
{
    if (argc > 1)
        return child(argv[1]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int status = ct_run_self(argv[0], cases[i].want, cases[i].var, cases[i].value);
        char label[256];
        snprintf(label, sizeof label, "%s=%s: every check of the child passed", cases[i].var,
                 cases[i].value);
        CHECK_EQ(label, status, 0);
    }
    return ct_done();
}
