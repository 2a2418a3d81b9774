/*
 * cupti_cb_listed: the cupti_cb component is built into libpapi and says whether it can count.
 *
 * PAPI_get_component_index("cupti_cb") finds it, under that name.  Its initialization waits
 * for first use (PAPI_EDELAY_INIT); after the first enumeration it is either enabled with
 * native events, or disabled with a reason (on a machine without the NVIDIA driver or a device).
 * Passes either way: both are truthful states.  Needs no GPU.
 */
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "papi_test.h"

int main(int argc, char **argv)
{
    int quiet = tests_quiet(argc, argv);

    int retval = PAPI_library_init(PAPI_VER_CURRENT);
    if (retval != PAPI_VER_CURRENT)
        test_fail(__FILE__, __LINE__, "PAPI_library_init", retval);

    int cidx = PAPI_get_component_index("cupti_cb");
    if (cidx < 0)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_index(\"cupti_cb\"): not built into libpapi", cidx);

    const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
    if (info == NULL)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_info", 0);
    if (strcmp(info->name, "cupti_cb") != 0)
        test_fail(__FILE__, __LINE__, "component name is not cupti_cb", 0);

    /* The first enumeration initializes the component. */
    int code = PAPI_NATIVE_MASK;
    int first = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
    info = PAPI_get_component_info(cidx);
    if (info == NULL)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_info after the first enumeration", 0);

    if (info->disabled == PAPI_OK) {
        if (first != PAPI_OK)
            test_fail(__FILE__, __LINE__, "enabled, but PAPI_enum_cmp_event(PAPI_ENUM_FIRST)", first);
        if (info->num_native_events <= 0)
            test_fail(__FILE__, __LINE__, "enabled with no native events", 0);
        if (!quiet)
            printf("cupti_cb: component %d, enabled, %d native events\n", cidx, info->num_native_events);
    } else {
        if (info->disabled == PAPI_EDELAY_INIT)
            test_fail(__FILE__, __LINE__, "still waiting for its initialization after an enumeration", 0);
        if (info->disabled_reason[0] == '\0')
            test_fail(__FILE__, __LINE__, "disabled without a reason", info->disabled);
        if (!quiet)
            printf("cupti_cb: component %d, disabled: %s\n", cidx, info->disabled_reason);
    }

    test_pass(__FILE__);
}
