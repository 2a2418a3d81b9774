/*
 * cpu_fake_qualifier_text: every qualifier of every event carries its own text where PAPI's
 * utilities look for it.  papi_native_avail shows what follows "masks:" in a qualifier's
 * long_descr; papi_event_chooser prints from the first ':' on without checking that there is
 * one, and crashed (strlen of address 1) on the qualifiers of metrics whose descriptions, with
 * their lists of rollups, left no room for " masks:" and the qualifier's text.  (Metric
 * descriptions are shorter since; one over 660 bytes is cut, ending in "...": cpu_toy_source.)
 *
 * Walks the component as papi_native_avail and papi_event_chooser do (PAPI_enum_cmp_event with
 * PAPI_NTV_ENUM_UMASKS) with the fakes' device, whose chip lists the metrics, and checks each
 * qualifier: "masks:" followed by the text of the qualifier (":process", ":device=N"), at the end
 * of long_descr, and a ':' for papi_event_chooser; and that no event's description is longer
 * than papi_native_avail (PAPI 7.0) can fold into its buffer, which it grows 1,024 bytes at a
 * time: lines of 80 bytes for 66 of the description, one for the name and one for the units, so
 * 660 bytes at most (a metric's description once passed 1,000, and the utility aborted).
 */
#include "ctest_util.h"
#include "fake_play.h"

/* Whether text (what follows " masks:") is the qualifier's own: the qualifier in its name
 * (":process", ":device=N") says which. */
static int own_text(const char *symbol, const char *text)
{
    const char *q = strrchr(symbol, ':');
    char dev[32];
    if (!q || !*text)
        return 0;
    if (!strcmp(q, ":process"))
        return strstr(text, "process") != NULL;
    if (!strncmp(q, ":device=", 8)) {
        snprintf(dev, sizeof dev, "device %s", q + 8);
        return !strncmp(text, "Only ", 5) && strstr(text, dev) != NULL;
    }
    return 0;
}

int main(void)
{
    fake_setup();
    ct_library_init();
    int cidx = cb_cidx(), code = 0 | PAPI_NATIVE_MASK;
    long events = 0, qualifiers = 0, bad = 0, cut = 0, metric_qualifiers = 0;
    PAPI_event_info_t q, info;
    size_t longest = 0;
    char longest_name[PAPI_HUGE_STR_LEN] = "";
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
        ct_fatal("no first event");
    do {
        events++;
        if (PAPI_get_event_info(code, &info) == PAPI_OK && strlen(info.long_descr) > longest) {
            longest = strlen(info.long_descr);
            snprintf(longest_name, sizeof longest_name, "%s", info.symbol);
        }
        int k = code;
        if (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) != PAPI_OK)
            continue;
        do {
            if (PAPI_get_event_info(k, &q) != PAPI_OK) {
                if (bad++ < 5)
                    ct_result(0, "PAPI_get_event_info of qualifier code %#x", (unsigned)k);
                continue;
            }
            qualifiers++;
            metric_qualifiers += strstr(q.symbol, "__") != NULL;
            const char *masks = strstr(q.long_descr, " masks:");
            int ok = masks && own_text(q.symbol, masks + 7) && !strstr(masks + 7, " masks:") &&
                     strchr(q.long_descr, ':');
            if (!ok && bad++ < 5)
                ct_result(0, "%s: long_descr ends in its qualifier's text: \"%s\"", q.symbol, q.long_descr);
            if (masks && masks >= q.long_descr + 3 && !strncmp(masks - 3, "...", 3))
                cut++;
        } while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    ct_note("%ld events, %ld qualifiers (%ld of metrics), %ld descriptions cut to make room", events, qualifiers,
            metric_qualifiers, cut);
    ct_note("longest description: %zu bytes (%s)", longest, longest_name);
    CHECK_REL("the longest description fits papi_native_avail's buffer (bytes)", (long)longest, "<=", 660);
    CHECK_TRUE("qualifiers walked", qualifiers > events / 2);
    CHECK_TRUE("the metrics' qualifiers among them", metric_qualifiers > 1000);
    CHECK_EQ("qualifiers without their text where the utilities look", bad, 0);
    return ct_done();
}
