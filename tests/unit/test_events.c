/* test_events: the names of any source's events (cupti_cb_events.c) over two
 * small sources with the same base names, one of them tagged (":sampled",
 * as the metrics a second way of collecting them will be): parsing with
 * the qualifiers each event takes, printing, round trips, the tag required
 * by one source and refused by the other, listing the qualified variants,
 * and the name-length rule. */
#include "check.h"
#include "cupti_cb_source.h"

static const char *const bases[] = { "m.x", "m.y" };
#define N_BASES 2
#define LONG_BASE "m.a_base_name_so_long_that_it_does_not_fit_the_one_hundred_and_fifteen_characters_papi_holds_after_cupti_cb_and_its_prefix"

struct src {
	unsigned id;
};

static int lookup(void *self, const char *base, uint32_t *code)
{
	unsigned id = ((struct src *)self)->id;
	for (uint32_t i = 0; i < N_BASES; i++)
		if (!strcmp(base, bases[i])) {
			*code = CUPTI_CB_SCODE(id, i, 0, -1, 0);
			return CUPTI_CB_OK;
		}
	if (!strcmp(base, LONG_BASE)) {
		*code = CUPTI_CB_SCODE(id, N_BASES, 0, -1, 0);
		return CUPTI_CB_OK;
	}
	return CUPTI_CB_ENOEVNT;
}

static unsigned qualifiers(void *self, uint32_t code)
{
	(void)self, (void)code;
	return CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_DEVICE;
}

static int devices(void *self)
{
	(void)self;
	return 2;
}

static int valid(void *self, uint32_t code)
{
	return CUPTI_CB_CODE_SRC(code) == ((struct src *)self)->id && CUPTI_CB_CODE_IDX(code) <= N_BASES &&
	       CUPTI_CB_CODE_DEV(code) < 2;
}

static int base_name(void *self, uint32_t code, char *buf, size_t len)
{
	uint32_t i = CUPTI_CB_CODE_IDX(code);
	if (!valid(self, code))
		return CUPTI_CB_ENOEVNT;
	return (size_t)snprintf(buf, len, "%s", i < N_BASES ? bases[i] : LONG_BASE) < len ? CUPTI_CB_OK
											 : CUPTI_CB_EINVAL;
}

static int may_be_ours(const char *base)
{
	return !strncmp(base, "m.", 2);
}

static const struct cupti_cb_source_ops plain_ops = {
	.label = "plain", .may_be_ours = may_be_ours, .lookup = lookup, .qualifiers = qualifiers,
	.devices = devices, .base_name = base_name, .valid = valid,
};
static const struct cupti_cb_source_ops tagged_ops = {
	.label = "tagged", .tag = "sampled", .may_be_ours = may_be_ours, .lookup = lookup,
	.qualifiers = qualifiers, .devices = devices, .base_name = base_name, .valid = valid,
};
static struct src plain_self = { 3 }, tagged_self = { 4 };
static const struct cupti_cb_source plain = { &plain_ops, &plain_self, 3 };
static const struct cupti_cb_source tagged = { &tagged_ops, &tagged_self, 4 };

/* parse name with s, expecting rc; on success its name must be want_name and parse back the same. */
static void parses(const struct cupti_cb_source *s, const char *name, int want_rc, const char *want_name)
{
	uint32_t code = 0, again = 0;
	char back[256] = "";
	char what[300];
	int rc = cupti_cb_event_parse(s, name, &code);
	snprintf(what, sizeof what, "%s: '%s' parses", s->ops->label, name);
	CHECK_EQ(rc, want_rc, what);
	if (rc || !want_name)
		return;
	CHECK_EQ(cupti_cb_event_name(s, code, back, sizeof back), CUPTI_CB_OK, "and is named");
	CHECK_STR(back, want_name, "its name");
	CHECK_EQ(cupti_cb_event_parse(s, back, &again), CUPTI_CB_OK, "the name parses back");
	CHECK_EQ(again, code, "to the same code");
}

int main(void)
{
	parses(&tagged, "cupti_cb:::m.x:sampled", CUPTI_CB_OK, "m.x:sampled");
	parses(&tagged, "m.y:device=1:sampled", CUPTI_CB_OK, "m.y:sampled:device=1");
	parses(&tagged, "m.x:process:sampled:device1", CUPTI_CB_OK, "m.x:sampled:device=1:process");
	parses(&tagged, "m.x", CUPTI_CB_ENOEVNT, NULL);			/* the tag is required */
	parses(&tagged, "m.x:device=0", CUPTI_CB_ENOEVNT, NULL);
	parses(&tagged, "m.x:sampled:sampled", CUPTI_CB_EINVAL, NULL);	/* given twice */
	parses(&tagged, "m.x:sampled:thread", CUPTI_CB_ENOEVNT, NULL);	/* a qualifier it does not take */
	parses(&tagged, "m.x:sampled:device=2", CUPTI_CB_ENOEVNT, NULL);	/* the source has 2 devices */
	parses(&tagged, "m.z:sampled", CUPTI_CB_ENOEVNT, NULL);
	parses(&tagged, "m.x::sampled", CUPTI_CB_EINVAL, NULL);
	parses(&plain, "m.x:device=1", CUPTI_CB_OK, "m.x:device=1");
	parses(&plain, "m.x:sampled", CUPTI_CB_ENOEVNT, NULL);		/* another source's tag */
	parses(&plain, LONG_BASE, CUPTI_CB_ENOEVNT, NULL);		/* longer than PAPI holds */

	/* The qualified variants the tagged source lists: device 0, then device 1. */
	uint32_t code;
	char name[256];
	CHECK_EQ(cupti_cb_event_parse(&tagged, "m.y:sampled", &code), CUPTI_CB_OK, "m.y:sampled");
	CHECK_EQ(cupti_cb_event_first_qualifier(&tagged, &code), CUPTI_CB_OK, "a first qualified variant");
	cupti_cb_event_name(&tagged, code, name, sizeof name);
	CHECK_STR(name, "m.y:sampled:device=0", "the first");
	CHECK_EQ(cupti_cb_event_next_qualifier(&tagged, &code), CUPTI_CB_OK, "a second");
	cupti_cb_event_name(&tagged, code, name, sizeof name);
	CHECK_STR(name, "m.y:sampled:device=1", "the second");
	CHECK_EQ(cupti_cb_event_next_qualifier(&tagged, &code), CUPTI_CB_ENOEVNT, "and no more");
	CHECK(cupti_cb_event_may_be_ours(&tagged, "cupti_cb:::m.x:sampled:device=0"), "the form is the source's");
	CHECK(!cupti_cb_event_may_be_ours(&tagged, "kernel.launches:sampled"), "another form is not");
	return checks_done();
}
