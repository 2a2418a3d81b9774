/*
 * cpu_toy_source: the shape of the component, proved by a fourth source.  The toy source below
 * is a descriptor and its table, nothing else; the list it joins is the component's own
 * cupti_cb_sources.c with one line added (the Makefile makes toy_sources.c from it with sed),
 * and this program links libpapi statically so that its list is the one the real adapter reads.
 * Through PAPI, with the fake libcupti and libcuda, the toy's events are
 *   enumerate - listed after the other sources' events, with their :process qualifier;
 *   names     - name -> code -> name round-trips; an unknown toy name, a device qualifier the
 *               toy does not take and ":thread:process" are refused with PAPI_ENOEVNT/EINVAL;
 *   counting  - one set of kernel.launches and both toy events: exact values after start, a
 *               reset, more counts and the stop; PAPI_overflow on a toy event is refused with
 *               PAPI_ENOSUPP (the toy has no set_overflow).
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "cupti_cb_source.h"

/* ---- the toy source: a table and a descriptor ---------------------------------------------- */

static const struct {
    const char *name, *descr;
} toy_events[] = {
    {"toy.ticks", "Ticks the test counted"},
    {"toy.calls", "Calls the test counted"},
};
#define TOY_N (sizeof toy_events / sizeof toy_events[0])
static _Atomic uint64_t toy_value[TOY_N];	/* what the toy counts: the test adds to it */

struct toy { unsigned id; };
struct toy_set {
    unsigned n;
    uint32_t codes[CUPTI_CB_SET_MAX];
    uint64_t base[CUPTI_CB_SET_MAX];
};

static void *toy_open(struct cupti_cb_services *services, unsigned id)
{
    (void)services;
    struct toy *t = calloc(1, sizeof *t);
    if (t)
        t->id = id;
    return t;
}
static int toy_may_be_ours(const char *base) { return !strncmp(base, "toy.", 4); }
static void toy_opened(void *self, enum cupti_cb_stage stage) { (void)self, (void)stage; }
static int toy_valid(void *self, uint32_t code)
{
    return CUPTI_CB_CODE_SRC(code) == ((struct toy *)self)->id && CUPTI_CB_CODE_IDX(code) < TOY_N &&
           CUPTI_CB_CODE_VAR(code) == 0 && CUPTI_CB_CODE_DEV(code) < 0;
}
static int toy_first(void *self, uint32_t *code)
{
    *code = CUPTI_CB_SCODE(((struct toy *)self)->id, 0, 0, -1, 0);
    return CUPTI_CB_OK;
}
static int toy_next(void *self, uint32_t *code)
{
    uint32_t idx = CUPTI_CB_CODE_IDX(*code) + 1;
    if (idx >= TOY_N)
        return CUPTI_CB_ENOEVNT;
    *code = CUPTI_CB_SCODE(((struct toy *)self)->id, idx, 0, -1, 0);
    return CUPTI_CB_OK;
}
static int toy_lookup(void *self, const char *base, uint32_t *code)
{
    for (uint32_t i = 0; i < TOY_N; i++)
        if (!strcmp(base, toy_events[i].name)) {
            *code = CUPTI_CB_SCODE(((struct toy *)self)->id, i, 0, -1, 0);
            return CUPTI_CB_OK;
        }
    return CUPTI_CB_ENOEVNT;
}
static unsigned toy_qualifiers(void *self, uint32_t code)
{
    (void)self, (void)code;
    return CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_LIST_PROCESS | CUPTI_CB_Q_THREAD;
}
static int toy_devices(void *self) { (void)self; return 0; }
static int toy_base_name(void *self, uint32_t code, char *buf, size_t len)
{
    if (!toy_valid(self, code))
        return CUPTI_CB_ENOEVNT;
    return (size_t)snprintf(buf, len, "%s", toy_events[CUPTI_CB_CODE_IDX(code)].name) < len ? CUPTI_CB_OK
                                                                                             : CUPTI_CB_EINVAL;
}
static int toy_descr(void *self, uint32_t code, char *buf, size_t len)
{
    if (!toy_valid(self, code))
        return CUPTI_CB_ENOEVNT;
    /* toy.ticks says more than papi_native_avail can show (a metric's list of suffixes once did) */
    int n = snprintf(buf, len, "%s", toy_events[CUPTI_CB_CODE_IDX(code)].descr);
    for (unsigned i = 0; CUPTI_CB_CODE_IDX(code) == 0 && i < 40 && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, ", and then some more ticks");
    return CUPTI_CB_OK;
}
static int toy_qualifier_descr(void *self, uint32_t code, char *buf, size_t len)
{
    (void)self, (void)code;
    snprintf(buf, len, "Every thread's counts");
    return CUPTI_CB_OK;
}
static int toy_facts(void *self, uint32_t code, struct cupti_cb_event_facts *f)
{
    if (!toy_valid(self, code))
        return CUPTI_CB_ENOEVNT;
    snprintf(f->units, sizeof f->units, "%s", "");
    f->is_double = f->is_signed = 0;
    f->running_sum = 1;
    return CUPTI_CB_OK;
}
static const char *toy_why(void *self) { (void)self; return ""; }
static unsigned toy_count(void *self) { (void)self; return TOY_N; }
static void toy_close(void *self) { (void)self; }
static void *toy_set_new(void *self) { (void)self; return calloc(1, sizeof(struct toy_set)); }
static void toy_set_free(void *self, void *set) { (void)self; free(set); }
static int toy_set_update(void *self, void *set, const uint32_t *codes, unsigned n, char *why, size_t len)
{
    (void)self, (void)why, (void)len;
    struct toy_set *s = set;
    s->n = n;
    memcpy(s->codes, codes, n * sizeof *codes);
    return CUPTI_CB_OK;
}
static void toy_set_granularity(void *self, void *set, int process) { (void)self, (void)set, (void)process; }
static int toy_set_reset(void *self, void *set)
{
    (void)self;
    struct toy_set *s = set;
    for (unsigned i = 0; i < s->n; i++)
        s->base[i] = atomic_load(&toy_value[CUPTI_CB_CODE_IDX(s->codes[i])]);
    return CUPTI_CB_OK;
}
static int toy_set_start(void *self, void *set, char *why, size_t len)
{
    (void)why, (void)len;
    return toy_set_reset(self, set);
}
static int toy_set_read(void *self, void *set, long long *values)
{
    (void)self;
    struct toy_set *s = set;
    for (unsigned i = 0; i < s->n; i++)
        values[i] = (long long)(atomic_load(&toy_value[CUPTI_CB_CODE_IDX(s->codes[i])]) - s->base[i]);
    return CUPTI_CB_OK;
}
static int toy_set_stop(void *self, void *set) { (void)self, (void)set; return CUPTI_CB_OK; }

const struct cupti_cb_source_ops cupti_cb_toy_source = {
    .label = "toy",
    .no_overflow_why = "the toy counts nothing during a CUDA call",
    .open = toy_open,
    .may_be_ours = toy_may_be_ours,
    .opened = toy_opened,
    .first = toy_first,
    .next = toy_next,
    .lookup = toy_lookup,
    .qualifiers = toy_qualifiers,
    .devices = toy_devices,
    .base_name = toy_base_name,
    .descr = toy_descr,
    .qualifier_descr = toy_qualifier_descr,
    .facts = toy_facts,
    .valid = toy_valid,
    .why = toy_why,
    .count = toy_count,
    .close = toy_close,
    .set_new = toy_set_new,
    .set_free = toy_set_free,
    .set_update = toy_set_update,
    .set_granularity = toy_set_granularity,
    .set_start = toy_set_start,
    .set_read = toy_set_read,
    .set_stop = toy_set_stop,
    .set_reset = toy_set_reset,
};

/* ---- the test, through PAPI ---------------------------------------------------------------- */

static int enumerate_case(void)
{
    ct_library_init();
    int cidx = cb_cidx(), code = 0 | PAPI_NATIVE_MASK, seen = 0, quals = 0, after_gpu = 0, gpu = 0;
    char name[PAPI_MAX_STR_LEN];
    PAPI_MUST(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx));
    do {
        PAPI_MUST(PAPI_event_code_to_name(code, name));
        if (!strncmp(name, "cupti_cb:::gpu.", 15))
            gpu = 1;
        if (strncmp(name, "cupti_cb:::toy.", 15))
            continue;
        seen++;
        after_gpu += gpu;
        int q = code;
        if (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK) {
            char qn[PAPI_MAX_STR_LEN];
            PAPI_MUST(PAPI_event_code_to_name(q, qn));
            char want[PAPI_MAX_STR_LEN + 16];
            snprintf(want, sizeof want, "%s:process", name);
            quals += !strcmp(qn, want);
            ct_note("%s, qualified: %s", name, qn);
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    CHECK_EQ("toy events listed", seen, (int)TOY_N);
    CHECK_EQ("listed after the gpu.* events (its place in the list)", after_gpu, (int)TOY_N);
    CHECK_EQ("each with its :process qualifier", quals, (int)TOY_N);
    return ct_done();
}

static int names_case(void)
{
    ct_library_init();
    int code = 0;
    char back[PAPI_MAX_STR_LEN];
    for (unsigned i = 0; i < TOY_N; i++) {
        char full[PAPI_MAX_STR_LEN];
        snprintf(full, sizeof full, "cupti_cb:::%s:process", toy_events[i].name);
        ct_check_rc(full, PAPI_event_name_to_code(full, &code), PAPI_OK);
        PAPI_MUST(PAPI_event_code_to_name(code, back));
        CHECK_TRUE("the name comes back", !strcmp(back, full));
    }
    PAPI_event_info_t info;
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::toy.calls", &code));
    PAPI_MUST(PAPI_get_event_info(code, &info));
    CHECK_TRUE("the description is the toy's", !strcmp(info.long_descr, "Calls the test counted"));
    /* A description longer than papi_native_avail (PAPI 7.0) folds into its buffer: cut at 660
     * bytes with "...", and a qualifier's text still after " masks:" (papi_event_chooser prints
     * from the first ':' on). */
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::toy.ticks", &code));
    PAPI_MUST(PAPI_get_event_info(code, &info));
    size_t n = strlen(info.long_descr);
    CHECK_EQ("a long description is cut to 660 bytes", (long long)n, 660);
    CHECK_TRUE("with \"...\" at its end", n >= 3 && !strcmp(info.long_descr + n - 3, "..."));
    CHECK_TRUE("after the toy's own words", !strncmp(info.long_descr, "Ticks the test counted, and", 27));
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::toy.ticks:process", &code));
    PAPI_MUST(PAPI_get_event_info(code, &info));
    const char *masks = strstr(info.long_descr, " masks:");
    CHECK_TRUE("its qualifier's text after the cut description",
               masks == info.long_descr + 660 && !strcmp(masks, " masks:Every thread's counts"));
    ct_check_rc("cupti_cb:::toy.nope", PAPI_event_name_to_code("cupti_cb:::toy.nope", &code), PAPI_ENOEVNT);
    ct_check_rc("cupti_cb:::toy.ticks:device=0",
                PAPI_event_name_to_code("cupti_cb:::toy.ticks:device=0", &code), PAPI_ENOEVNT);
    int rc = PAPI_event_name_to_code("cupti_cb:::toy.ticks:thread:process", &code);
    ct_result(rc == PAPI_ENOEVNT || rc == PAPI_EINVAL, "cupti_cb:::toy.ticks:thread:process refused (%s)",
              ct_papi_err(rc));
    return ct_done();
}

static void on_overflow(int es, void *address, long long vector, void *context)
{
    (void)es, (void)address, (void)vector, (void)context;
}

static int counting_case(void)
{
    static const char *const names[] = {"kernel.launches", "toy.ticks", "toy.calls"};
    long long v[3];
    ct_library_init();
    int es = ct_eventset(3, names);
    atomic_store(&toy_value[0], 100);	/* before the start: not counted */
    PAPI_MUST(PAPI_start(es));
    play_launches(2, FAKE_CTX0);
    atomic_fetch_add(&toy_value[0], 5);
    atomic_fetch_add(&toy_value[1], 3);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("kernel.launches", v[0], 2);
    CHECK_EQ("toy.ticks", v[1], 5);
    CHECK_EQ("toy.calls", v[2], 3);
    PAPI_MUST(PAPI_reset(es));
    atomic_fetch_add(&toy_value[0], 7);
    play_launches(1, FAKE_CTX0);
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("after the reset: kernel.launches", v[0], 1);
    CHECK_EQ("after the reset: toy.ticks", v[1], 7);
    CHECK_EQ("after the reset: toy.calls", v[2], 0);
    int code;
    PAPI_MUST(PAPI_event_name_to_code("cupti_cb:::toy.ticks", &code));
    ct_check_rc("PAPI_overflow on toy.ticks", PAPI_overflow(es, code, 10, 0, on_overflow), PAPI_ENOSUPP);
    return ct_done();
}

int main(int argc, char **argv)
{
    static const struct fake_case cases[] = {
        {"enumerate", enumerate_case}, {"names", names_case}, {"counting", counting_case},
    };
    return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
