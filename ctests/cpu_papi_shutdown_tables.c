/* cpu_papi_shutdown_tables: PAPI's perf_event code forgets the tables it frees
 * at shutdown (patches/papi/0001-perf_event-clear-the-libpfm4-tables-at-
 * shutdown.patch), so that the lookups of the next PAPI_library_init cannot
 * reach freed memory.
 *
 * Without the fix, PAPI_shutdown followed by PAPI_library_init reads and
 * writes perf_event_uncore's freed event table on hosts where that
 * component is enabled (docs/building.md, "PAPI's own defects").  Such a
 * host is not needed to test the code path: this program drives the same
 * functions of the build's patched copy of PAPI (pe_libpfm4_events.c,
 * compiled into this test with AddressSanitizer) on a table that libpfm4
 * can fill on any Linux host, the operating system's generic PMU ("perf"):
 *
 *   1. _peu_libpfm4_init, the initialization of perf_event_uncore's table
 *      (here for the OS PMU type), and one event added to it by a lookup;
 *   2. _pe_libpfm4_shutdown, what PAPI_shutdown calls;
 *   3. the lookups the next PAPI_library_init makes before the component
 *      is initialized again: by event name (_pe_libpfm4_ntv_name_to_code,
 *      PAPI 7.0 to master) and by PMU name (cmp_info.pmu_names, master's
 *      component choice).  Before the fix AddressSanitizer stops the first
 *      one with a heap-use-after-free; after it they find nothing;
 *   4. a second initialization, which works as the first did, and its
 *      shutdown (LeakSanitizer: nothing leaks).
 *
 * Exit status 77 (SKIP) only where libpfm4 sees no OS PMU at all (no
 * perf_event in the kernel), with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_libpfm4_events.h"
#include "components/perf_event/pe_libpfm4_events.h"
#include "perfmon/pfmlib.h"

/* An event of libpfm4's "perf" PMU, the kernel's software clock: present
 * wherever perf_event is. */
static const char EVENT[] = "perf::PERF_COUNT_SW_CPU_CLOCK";

static int failures;

static void expect(int ok, const char *what)
{
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    if (!ok)
        failures++;
}

static int pmu_names_set(const papi_vector_t *v)
{
    int n = 0;
    for (int i = 0; i < PAPI_PMU_MAX; i++)
        n += v->cmp_info.pmu_names[i] != NULL;
    return n;
}

/* Steps 1 and 4: a table as an enabled component holds it.  Returns 0, or
 * 77 where the host has no OS PMU. */
static int fill(papi_vector_t *v, struct native_event_table_t *t, const char *round)
{
    char what[160];
    unsigned int code = 0;

    int rc = _peu_libpfm4_init(v, 1, t, PMU_TYPE_OS);
    snprintf(what, sizeof what, "%s: the table is initialized (%d)", round, rc);
    expect(rc == PAPI_OK && t->native_events != NULL, what);
    if (pmu_names_set(v) == 0) {
        printf("SKIP: libpfm4 finds no OS PMU on this host (no perf_event in the kernel): "
               "there is no table to fill\n");
        return 77;
    }
    rc = _pe_libpfm4_ntv_name_to_code(EVENT, &code, 1, t);
    snprintf(what, sizeof what, "%s: %s is added to it (%d; %d event)", round, EVENT, rc,
             t->num_native_events);
    expect(rc == PAPI_OK && t->num_native_events == 1, what);
    return 0;
}

int main(void)
{
    papi_vector_t v;
    struct native_event_table_t t;
    unsigned int code = 0;

    memset(&v, 0, sizeof v);
    memset(&t, 0, sizeof t);
    /* The lookups add the events they find to PAPI's own list, which needs
     * an initialized PAPI (the table itself is this test's, not PAPI's). */
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        printf("FAIL: PAPI_library_init\n");
        return 1;
    }
    if (pfm_initialize() != PFM_SUCCESS) {
        printf("SKIP: libpfm4 cannot be initialized on this host\n");
        return 77;
    }

    int rc = fill(&v, &t, "first initialization");
    if (rc != 0)
        return rc;

    expect(_pe_libpfm4_shutdown(&v, &t) == PAPI_OK, "shutdown");

    /* The next PAPI_library_init's lookup by event name.  Before the fix it
     * compared EVENT with the freed entry's name (AddressSanitizer:
     * heap-use-after-free in find_existing_event) or wrote a new entry into
     * the freed array. */
    rc = _pe_libpfm4_ntv_name_to_code(EVENT, &code, 1, &t);
    expect(rc == PAPI_ENOEVNT, "a lookup in the shut down table finds nothing");

    expect(t.native_events == NULL, "the freed event array is not reachable");
    expect(t.num_native_events == 0 && t.allocated_native_events == 0,
           "the table counts no event and no room");
    /* Master's lookup compares an event's PMU with each pmu_names[i] that
     * is not NULL: none may point at freed memory. */
    expect(pmu_names_set(&v) == 0, "no freed PMU name is reachable");

    rc = fill(&v, &t, "second initialization");
    if (rc != 0)
        return rc;
    expect(_pe_libpfm4_shutdown(&v, &t) == PAPI_OK, "second shutdown");
    PAPI_shutdown();

    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
