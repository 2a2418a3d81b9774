/*
 * cupti_cb_read_zero: a callback event of cupti_cb is added, started, read and stopped, and
 * counts 0, since this program does no CUDA work.
 *
 * cupti_cb:::kernel.launches counts the kernel launches of the calling thread, so every value
 * this program sees must be exactly 0: after PAPI_start, at a PAPI_read, at PAPI_stop, and after
 * a PAPI_reset.  Skips where the component is disabled (no NVIDIA driver or no device).
 */
#include <stdio.h>

#include "papi.h"
#include "papi_test.h"

#define EVENT "cupti_cb:::kernel.launches"

static void check_zero(const char *when, long long value)
{
    if (value != 0) {
        char what[128];
        snprintf(what, sizeof what, "%s %s: %lld, expected 0 (no CUDA work)", EVENT, when, value);
        test_fail(__FILE__, __LINE__, what, 0);
    }
}

int main(int argc, char **argv)
{
    int quiet = tests_quiet(argc, argv);

    int retval = PAPI_library_init(PAPI_VER_CURRENT);
    if (retval != PAPI_VER_CURRENT)
        test_fail(__FILE__, __LINE__, "PAPI_library_init", retval);

    int cidx = PAPI_get_component_index("cupti_cb");
    if (cidx < 0)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_index(\"cupti_cb\")", cidx);

    /* The first enumeration initializes the component: enabled, or disabled with a reason. */
    int code = PAPI_NATIVE_MASK;
    (void)PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
    const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
    if (info == NULL)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_info", 0);
    if (info->disabled != PAPI_OK) {
        if (!quiet)
            printf("cupti_cb is disabled: %s\n", info->disabled_reason);
        test_skip(__FILE__, __LINE__, "cupti_cb is disabled", info->disabled);
    }

    int set = PAPI_NULL;
    if ((retval = PAPI_create_eventset(&set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_create_eventset", retval);
    if ((retval = PAPI_add_named_event(set, EVENT)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_add_named_event(" EVENT ")", retval);

    long long value = -1;
    if ((retval = PAPI_start(set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_start", retval);
    if ((retval = PAPI_read(set, &value)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_read", retval);
    check_zero("at PAPI_read", value);
    if ((retval = PAPI_reset(set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_reset", retval);
    value = -1;
    if ((retval = PAPI_read(set, &value)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_read after PAPI_reset", retval);
    check_zero("after PAPI_reset", value);
    value = -1;
    if ((retval = PAPI_stop(set, &value)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_stop", retval);
    check_zero("at PAPI_stop", value);
    if (!quiet)
        printf("%s: 0 at PAPI_read, after PAPI_reset and at PAPI_stop\n", EVENT);

    if ((retval = PAPI_cleanup_eventset(set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_cleanup_eventset", retval);
    if ((retval = PAPI_destroy_eventset(&set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_destroy_eventset", retval);
    test_pass(__FILE__);
}
