/*
 * cpu_fake_remove: PAPI_remove_event and adding again, after PAPI has handed out more than one
 * code for an event.  PAPI 7.0 gives out a new PAPI code at every PAPI_enum_cmp_event step (as
 * papi_native_avail walks the component) and at every lookup of a synonym
 * (kernel.launches:thread is kernel.launches).  After a remove, each remaining event must still
 * read its own counter.
 *
 * Each case runs in a fresh process (this program again, with the case's name):
 *   enum     - walk every event and qualifier as papi_native_avail does, then the sequence;
 *   synonym  - look up synonyms of the events (":thread", ":scope=thread") first;
 *   plain    - neither (the sequence alone).
 * The sequence: add memcpy.calls, kernel.launches, memset.calls; remove memcpy.calls; play 5
 * launches and 2 memsets: kernel.launches = 5, memset.calls = 2.  Add memcpy.calls again; play
 * 5 launches and 1 copy: 5, 0 memsets, 1 copy.  Remove kernel.launches (now the first), add it
 * back: 4 launches, 3 memsets, 2 copies read where they belong.
 */
#include "ctest_util.h"
#include "fake_play.h"

static int walk_component(int cidx)
{
    int code = 0 | PAPI_NATIVE_MASK, n = 0;
    PAPI_event_info_t info;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        return 0;
    do {
        if (PAPI_get_event_info(code, &info) == PAPI_OK)
            n++;
        int q = code;
        if (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK) {
            do {
                if (PAPI_get_event_info(q, &info) == PAPI_OK)
                    n++;
            } while (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    return n;
}

static void lookup(const char *name)
{
    int code = 0;
    char back[PAPI_MAX_STR_LEN];
    int rc = PAPI_event_name_to_code((char *)name, &code);
    ct_check_rc(name, rc, PAPI_OK);
    if (rc == PAPI_OK && PAPI_event_code_to_name(code, back) == PAPI_OK)
        ct_note("%s -> 0x%x -> %s", name, (unsigned)code, back);
}

static void add(int es, const char *name)
{
    char label[128];
    snprintf(label, sizeof label, "add %s", name);
    ct_check_rc(label, ct_add(es, name), PAPI_OK);
}

static void del(int es, const char *name)
{
    char buf[PAPI_HUGE_STR_LEN], label[128];
    snprintf(label, sizeof label, "remove %s", name);
    ct_check_rc(label, PAPI_remove_named_event(es, (char *)ct_full_name(name, buf, sizeof buf)), PAPI_OK);
}

static void window(int es, const char *label, int launches, int memsets, int copies, int n,
                   const char *const *names, const long long *want)
{
    long long v[8];
    char buf[256];
    PAPI_MUST(PAPI_start(es));
    play_launches(launches, FAKE_CTX0);
    for (int i = 0; i < memsets; i++)
        play_memset(16, 0);
    for (int i = 0; i < copies; i++)
        play_htod(8, 0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("events in the set", PAPI_num_events(es), n);
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s: %s", label, names[i]);
        CHECK_EQ(buf, v[i], want[i]);
    }
}

static int run_case(const char *which)
{
    fake_setup();
    ct_library_init();
    int cidx = cb_cidx();
    if (!strcmp(which, "enum")) {
        int n = walk_component(cidx);
        ct_note("walked %d events and qualifiers", n);
        CHECK_REL("events and qualifiers walked", n, ">", 2000);
    } else if (!strcmp(which, "synonym")) {
        lookup("cupti_cb:::kernel.launches:thread");
        lookup("cupti_cb:::kernel.launches:scope=thread");
        lookup("cupti_cb:::memcpy.calls:thread");
        lookup("cupti_cb:::memset.calls:scope=thread");
        lookup("cupti_cb:::memcpy.calls:thread");
    }

    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    add(es, "memcpy.calls");
    add(es, "kernel.launches");
    add(es, "memset.calls");
    del(es, "memcpy.calls");
    window(es, "after removing memcpy.calls", 5, 2, 0, 2, (const char *const[]){"kernel.launches", "memset.calls"},
           (const long long[]){5, 2});

    add(es, "memcpy.calls");
    window(es, "memcpy.calls added again", 5, 0, 1, 3,
           (const char *const[]){"kernel.launches", "memset.calls", "memcpy.calls"}, (const long long[]){5, 0, 1});

    del(es, "kernel.launches");
    add(es, "kernel.launches");
    window(es, "kernel.launches removed and added again", 4, 3, 2, 3,
           (const char *const[]){"memset.calls", "memcpy.calls", "kernel.launches"}, (const long long[]){3, 2, 4});

    /* Remove every event but one, then refill. */
    del(es, "memset.calls");
    del(es, "memcpy.calls");
    add(es, "memcpy.calls");
    add(es, "memset.calls");
    window(es, "emptied to one event and refilled", 6, 1, 3, 3,
           (const char *const[]){"kernel.launches", "memcpy.calls", "memset.calls"}, (const long long[]){6, 3, 1});
    ct_destroy(&es);
    return ct_done();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_case(argv[1]);
    static const char *const cases[] = {"plain", "synonym", "enum"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "case %s: every check of the child passed", cases[i]);
        CHECK_EQ(label, ct_run_self(argv[0], cases[i], NULL, NULL), 0);
    }
    return ct_done();
}
