/*
 * cpu_fake_big_set: one event set that holds one counter of every CUDA API function (as
 * cupti_cb_run builds them: a thousand events) counts exactly, event by event.
 *
 * Every "<function>.calls" event the component lists is added to one set, with
 * kernel.launches and memcpy.bytes_htod.  3 runtime launches (cudaLaunchKernel ->
 * cuLaunchKernel) and 2 copies of 100 bytes (cudaMemcpy -> cuMemcpyHtoD_v2) are played:
 * cudaLaunchKernel.calls = cuLaunchKernel.calls = 3, cudaMemcpy.calls = cuMemcpyHtoD.calls = 2,
 * every other .calls event 0, kernel.launches 3, memcpy.bytes_htod 200.  Then
 * cudaMemcpy.calls is removed from the middle of the set and one more copy played: each
 * remaining event still reads its own counter.  Adding events past the component's limit
 * (num_cntrs) is refused (PAPI itself answers PAPI_ECNFLCT: no counter left), and the set
 * still counts.
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <time.h>

#define MAX_NAMES 20000

static char *names[MAX_NAMES];
static int n_names;

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every "<function>.calls" event of the component. */
static void collect(int cidx)
{
    int code = PAPI_NATIVE_MASK;
    char name[PAPI_MAX_STR_LEN];
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        ct_fatal("the component lists no event");
    do {
        if (PAPI_event_code_to_name(code, name) != PAPI_OK)
            continue;
        const char *base = strstr(name, ":::") ? strstr(name, ":::") + 3 : name;
        if (strncmp(base, "cu", 2) != 0 && strncmp(base, "__cu", 4) != 0)
            continue;	/* a derived event (memcpy.calls, api.calls, ...) */
        if (ends_with(base, ".calls") && n_names < MAX_NAMES)
            names[n_names++] = strdup(base);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int index_of(const char *name)
{
    for (int i = 0; i < n_names; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    ct_fatal("%s is not in the catalogue", name);
}

/* values[] follows names[], then kernel.launches, memcpy.bytes_htod; skip: a removed index. */
static void check_all(const long long *values, int skip, long long launches, long long copies)
{
    int bad = 0;
    for (int i = 0, v = 0; i < n_names; i++) {
        if (i == skip)
            continue;
        long long want = 0;
        const char *n = names[i];
        if (!strcmp(n, "cudaLaunchKernel.calls") || !strcmp(n, "cuLaunchKernel.calls"))
            want = launches;
        else if (!strcmp(n, "cudaMemcpy.calls") || !strcmp(n, "cuMemcpyHtoD.calls"))
            want = copies;
        if (values[v] != want) {
            ct_check_eq(n, values[v], want);
            bad++;
        }
        v++;
    }
    int m = n_names - (skip >= 0);
    ct_result(bad == 0, "every one of %d <function>.calls events reads its own counter (%d wrong)", m, bad);
    ct_check_eq("kernel.launches", values[m], launches);
    ct_check_eq("memcpy.bytes_htod", values[m + 1], 100 * copies);
}

int main(void)
{
    fake_setup();
    ct_library_init();
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    if (cidx < 0)
        ct_fatal("no cupti_cb component");
    collect(cidx);
    ct_note("%d per-API events in the catalogue", n_names);
    ct_check_rel("per-API events listed", n_names, ">=", 1000);

    int es = PAPI_NULL;
    ct_papi_must("PAPI_create_eventset", PAPI_create_eventset(&es));
    double t0 = seconds();
    int added = 0;
    for (int i = 0; i < n_names; i++)
        added += ct_add(es, names[i]) == PAPI_OK;
    CHECK_PAPI(ct_add(es, "kernel.launches"));
    CHECK_PAPI(ct_add(es, "memcpy.bytes_htod"));
    ct_note("%d adds took %.3f s", n_names + 2, seconds() - t0);
    ct_check_eq("events added", added, n_names);

    long long *values = calloc(2048, sizeof *values);
    CHECK_PAPI(PAPI_start(es));
    play_launches(3, FAKE_CTX0);
    play_htod(100, 0);
    play_htod(100, 0);
    CHECK_PAPI(PAPI_read(es, values));
    check_all(values, -1, 3, 2);
    CHECK_PAPI(PAPI_stop(es, values));

    /* Remove from the middle: positions of the events after it stay, and so do their counters. */
    int gone = index_of("cudaMemcpy.calls");
    char full[PAPI_MAX_STR_LEN];
    CHECK_PAPI(PAPI_remove_named_event(es, (char *)ct_full_name(names[gone], full, sizeof full)));
    CHECK_PAPI(PAPI_start(es));
    play_launches(3, FAKE_CTX0);
    play_htod(100, 0);
    play_htod(100, 0);
    play_htod(100, 0);
    CHECK_PAPI(PAPI_stop(es, values));
    check_all(values, gone, 3, 3);

    /* Past the limit: the <function>.time_ns events fill the set up to num_cntrs; the next
     * add is refused and the set keeps its events and counts. */
    const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
    int rc = PAPI_OK, k = 0;
    char tname[PAPI_MAX_STR_LEN];
    while (rc == PAPI_OK && k < n_names) {
        snprintf(tname, sizeof tname, "%.*s.time_ns", (int)(strlen(names[k]) - 6), names[k]);
        rc = ct_add(es, tname);
        k++;
    }
    ct_check_eq("events held at the limit", PAPI_num_events(es), info->num_cntrs);
    ct_check_rc("the add past the limit", rc, PAPI_ECNFLCT);
    CHECK_PAPI(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    play_htod(100, 0);
    CHECK_PAPI(PAPI_stop(es, values));
    ct_check_eq("kernel.launches in the full set", values[n_names - 1], 2);
    ct_check_eq("memcpy.bytes_htod in the full set", values[n_names], 100);
    free(values);
    return ct_done();
}
