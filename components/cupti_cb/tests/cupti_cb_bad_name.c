/*
 * cupti_cb_bad_name: a name that cupti_cb does not have is refused with PAPI_ENOEVNT, and the
 * event set it was to join stays empty and usable.
 *
 * PAPI_event_name_to_code and PAPI_add_named_event both return PAPI_ENOEVNT for
 * "cupti_cb:::no.such.event", whether the component is enabled or disabled (PAPI asks no other
 * component for a name with the "cupti_cb:::" prefix).  Needs no GPU.
 */
#include <stdio.h>

#include "papi.h"
#include "papi_test.h"

#define BAD "cupti_cb:::no.such.event"

int main(int argc, char **argv)
{
    int quiet = tests_quiet(argc, argv);

    int retval = PAPI_library_init(PAPI_VER_CURRENT);
    if (retval != PAPI_VER_CURRENT)
        test_fail(__FILE__, __LINE__, "PAPI_library_init", retval);
    if (PAPI_get_component_index("cupti_cb") < 0)
        test_fail(__FILE__, __LINE__, "PAPI_get_component_index(\"cupti_cb\")", PAPI_ENOCMP);

    int code = 0;
    retval = PAPI_event_name_to_code(BAD, &code);
    if (retval != PAPI_ENOEVNT)
        test_fail(__FILE__, __LINE__, "PAPI_event_name_to_code(" BAD ") is not PAPI_ENOEVNT", retval);

    int set = PAPI_NULL;
    if ((retval = PAPI_create_eventset(&set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_create_eventset", retval);
    retval = PAPI_add_named_event(set, BAD);
    if (retval != PAPI_ENOEVNT)
        test_fail(__FILE__, __LINE__, "PAPI_add_named_event(" BAD ") is not PAPI_ENOEVNT", retval);
    int n = PAPI_num_events(set);
    if (n != 0)
        test_fail(__FILE__, __LINE__, "the event set is not empty after the refused add", n);
    if (!quiet)
        printf("%s: PAPI_ENOEVNT from PAPI_event_name_to_code and PAPI_add_named_event\n", BAD);

    if ((retval = PAPI_destroy_eventset(&set)) != PAPI_OK)
        test_fail(__FILE__, __LINE__, "PAPI_destroy_eventset", retval);
    test_pass(__FILE__);
}
