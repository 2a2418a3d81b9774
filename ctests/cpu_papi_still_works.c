/*
 * cpu_papi_still_works: whatever cupti_cb finds (on a CPU machine: no driver, so it disables
 * itself), the rest of PAPI keeps working.  CPU counters are not used (perf_event may be
 * disabled on the machine).
 *
 * PAPI_library_init == PAPI_VER_CURRENT; PAPI_num_components >= 1; cupti_cb's lazy init forced;
 * create/cleanup/destroy of an event set; PAPI_get_real_nsec advances across a 2 ms sleep by at
 * least 2 ms; PAPI_shutdown, then PAPI_library_init again, and the same works again.
 */
#include "ctest_util.h"

#include <time.h>

static void round_trip(const char *when)
{
    char name[128];
    int es = PAPI_NULL;

    snprintf(name, sizeof name, "%s: PAPI_num_components >= 1", when);
    CHECK_REL(name, PAPI_num_components(), ">=", 1);

    int cidx = PAPI_get_component_index(CT_COMPONENT);
    snprintf(name, sizeof name, "%s: cupti_cb listed", when);
    if (CHECK_REL(name, cidx, ">=", 0)) {
        const PAPI_component_info_t *info = ct_component_after_init(cidx);
        ct_note("%s: cupti_cb disabled=%d reason=\"%s\"", when, info->disabled, info->disabled_reason);
    }

    snprintf(name, sizeof name, "%s: PAPI_create_eventset", when);
    ct_check_rc(name, PAPI_create_eventset(&es), PAPI_OK);
    snprintf(name, sizeof name, "%s: PAPI_num_events of an empty set", when);
    CHECK_EQ(name, PAPI_num_events(es), 0);
    snprintf(name, sizeof name, "%s: PAPI_cleanup_eventset", when);
    ct_check_rc(name, PAPI_cleanup_eventset(es), PAPI_OK);
    snprintf(name, sizeof name, "%s: PAPI_destroy_eventset", when);
    ct_check_rc(name, PAPI_destroy_eventset(&es), PAPI_OK);
    snprintf(name, sizeof name, "%s: event set handle reset to PAPI_NULL", when);
    CHECK_EQ(name, es, PAPI_NULL);

    struct timespec two_ms = {0, 2000000};
    long long t0 = PAPI_get_real_nsec();
    nanosleep(&two_ms, NULL);
    long long t1 = PAPI_get_real_nsec();
    snprintf(name, sizeof name, "%s: PAPI_get_real_nsec advanced over a 2 ms sleep (ns)", when);
    CHECK_REL(name, t1 - t0, ">=", 2000000);
    snprintf(name, sizeof name, "%s: ... and by less than 10 s (ns)", when);
    CHECK_REL(name, t1 - t0, "<", 10000000000LL);
}

int main(void)
{
    CHECK_EQ("PAPI_is_initialized before init", PAPI_is_initialized(), PAPI_NOT_INITED);
    CHECK_EQ("PAPI_library_init", PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    round_trip("first init");

    PAPI_shutdown();
    CHECK_EQ("PAPI_is_initialized after PAPI_shutdown", PAPI_is_initialized(), PAPI_NOT_INITED);

    CHECK_EQ("PAPI_library_init again", PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    round_trip("second init");
    PAPI_shutdown();
    return ct_done();
}
