/* test_suggest: what a refused name is told (cupti_cb_suggest.c), over three
 * small sources shaped as the component's: callback-like names with a '.'
 * (kernel.launches), metric-like bases without one that take a rollup
 * (dram__bytes_read.sum), and the same metrics tagged ":sampled", one of
 * them only there. The distance itself (cupti_cb_name_distance): the swap
 * of two neighbours costs 1, and the walk stops past its bound. */
#include "check.h"
#include "cupti_cb_suggest.h"

static const char *const cb_names[] = { "kernel.launches", "kernel.threads", "memcpy.bytes_htod", "memcpy.bytes_dtoh",
					"api.calls" };
static const char *const metric_names[] = { "dram__bytes_read", "dram__bytes_write" };
static const char *const sampled_names[] = { "dram__bytes_read", "dram__bytes_write", "dram__read_throughput" };

struct src {
	unsigned id;
	const char *const *names;
	uint32_t n;
	unsigned quals;
};

static int lookup(void *self, const char *base, uint32_t *code)
{
	struct src *s = self;
	char head[64];
	size_t h = strcspn(base, ".");
	/* A metric takes the rollup ".sum" and nothing else. */
	if (s->id != 0 && strcmp(base + h, "") && strcmp(base + h, ".sum"))
		return CUPTI_CB_ENOEVNT;
	snprintf(head, sizeof head, "%.*s", (int)(s->id ? h : strlen(base)), base);
	for (uint32_t i = 0; i < s->n; i++)
		if (!strcmp(head, s->names[i])) {
			*code = CUPTI_CB_SCODE(s->id, i, 0, -1, 0);
			return CUPTI_CB_OK;
		}
	return CUPTI_CB_ENOEVNT;
}

static int first(void *self, uint32_t *code)
{
	*code = CUPTI_CB_SCODE(((struct src *)self)->id, 0, 0, -1, 0);
	return CUPTI_CB_OK;
}

static int next(void *self, uint32_t *code)
{
	struct src *s = self;
	uint32_t i = CUPTI_CB_CODE_IDX(*code) + 1;
	if (i >= s->n)
		return CUPTI_CB_ENOEVNT;
	*code = CUPTI_CB_SCODE(s->id, i, 0, -1, 0);
	return CUPTI_CB_OK;
}

static unsigned qualifiers(void *self, uint32_t code)
{
	(void)code;
	return ((struct src *)self)->quals;
}

static int devices(void *self)
{
	(void)self;
	return 2;
}

static int valid(void *self, uint32_t code)
{
	struct src *s = self;
	return CUPTI_CB_CODE_SRC(code) == s->id && CUPTI_CB_CODE_IDX(code) < s->n && CUPTI_CB_CODE_DEV(code) < 2;
}

static int base_name(void *self, uint32_t code, char *buf, size_t len)
{
	if (!valid(self, code))
		return CUPTI_CB_ENOEVNT;
	return (size_t)snprintf(buf, len, "%s", ((struct src *)self)->names[CUPTI_CB_CODE_IDX(code)]) < len
		       ? CUPTI_CB_OK
		       : CUPTI_CB_EINVAL;
}

static int cb_ours(const char *base)
{
	return !strncmp(base, "kernel.", 7) || !strncmp(base, "memcpy.", 7) || !strncmp(base, "api.", 4);
}

static int cb_near(const char *base)
{
	return strchr(base, '.') != NULL;
}

static int metric_ours(const char *base)
{
	return strstr(base, "__") != NULL;
}

#define OPS(lbl, tg, ours, near)                                                                              \
	{ .label = lbl, .tag = tg, .may_be_ours = ours, .may_be_near = near, .first = first, .next = next,    \
	  .lookup = lookup, .qualifiers = qualifiers, .devices = devices, .base_name = base_name, .valid = valid }
static const struct cupti_cb_source_ops cb_ops = OPS("callback", NULL, cb_ours, cb_near);
static const struct cupti_cb_source_ops metric_ops = OPS("metric", NULL, metric_ours, NULL);
static const struct cupti_cb_source_ops sampled_ops = OPS("sampled", "sampled", metric_ours, NULL);
static struct src cb_self = { 0, cb_names, 5, CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_THREAD };
static struct src metric_self = { 1, metric_names, 2, CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_DEVICE };
static struct src sampled_self = { 2, sampled_names, 3, CUPTI_CB_Q_PROCESS | CUPTI_CB_Q_DEVICE };
static const struct cupti_cb_source sources[] = {
	{ &cb_ops, &cb_self, 0 }, { &metric_ops, &metric_self, 1 }, { &sampled_ops, &sampled_self, 2 }
};

static void told(const char *name, int want_rc, const char *want)
{
	char buf[512] = "";
	int rc = cupti_cb_suggest(sources, 3, name, buf, sizeof buf);
	CHECK_EQ(rc, want_rc, name);
	CHECK_STR(buf, want, "the sentence");
}

int main(void)
{
	CHECK_EQ(cupti_cb_name_distance("kernel.lanches", "kernel.launches", 3), 1, "a letter left out");
	CHECK_EQ(cupti_cb_name_distance("kernel.luanches", "kernel.launches", 3), 1, "two letters swapped: 1");
	CHECK_EQ(cupti_cb_name_distance("abc", "abc", 0), 0, "the same name");
	CHECK_EQ(cupti_cb_name_distance("ca", "abc", 5), 3, "optimal string alignment: 'ca' to 'abc' is 3");
	CHECK_EQ(cupti_cb_name_distance("kitten", "sitting", 5), 3, "kitten, sitting");
	CHECK_EQ(cupti_cb_name_distance("kitten", "sitting", 2), 3, "past the bound: bound + 1");
	CHECK_EQ(cupti_cb_name_distance("a", "abcdefgh", 3), 4, "lengths too far apart: bound + 1");

	told("cupti_cb:::kernel.lanches", 1, "no event 'kernel.lanches'; did you mean 'kernel.launches'?");
	told("kernel.launches.x", 1, "no event 'kernel.launches.x'; did you mean 'kernel.launches'?");
	told("kernel.thread", 1, "no event 'kernel.thread'; did you mean 'kernel.threads'?");
	told("kernel.lanches:process", 1,
	     "no event 'kernel.lanches:process'; did you mean 'kernel.launches:process'?");
	told("dram__bytes_reed.sum", 1, "no event 'dram__bytes_reed.sum'; did you mean 'dram__bytes_read.sum'?");
	told("dram__bytes_reed.sum:sampled", 1,
	     "no event 'dram__bytes_reed.sum:sampled'; did you mean 'dram__bytes_read.sum:sampled'?");
	told("dram__bytes_read.avg", 1, "no event 'dram__bytes_read.avg'; did you mean 'dram__bytes_read'?");
	told("memcpy.bytes_htoh", 1, "no event 'memcpy.bytes_htoh'; did you mean 'memcpy.bytes_htod' or "
				     "'memcpy.bytes_dtoh'?");
	told("dram__bytes_rite.sum", 1, "no event 'dram__bytes_rite.sum'; did you mean 'dram__bytes_write.sum'?");
	told("dram__read_throughput", 1, "no event 'dram__read_throughput'; it exists as 'dram__read_throughput:sampled'");
	told("kernel.launches:sampled", 1,
	     "no event 'kernel.launches:sampled'; it exists as 'kernel.launches', without :sampled");
	told("api.calls:device=0", 1, "no event 'api.calls:device=0': 'api.calls' takes :process, :thread");
	/* A device the driver does not have (2 here): no suggestion printed, as programs probe so. */
	told("dram__bytes_read.sum:sampled:device=2:process", 0,
	     "no event 'dram__bytes_read.sum:sampled:device=2:process': there is no CUDA device 2 here");
	told("dram__bytes_read.sum:sampled:device7", 0,
	     "no event 'dram__bytes_read.sum:sampled:device7': there is no CUDA device 7 here");
	told("dram__bytes_read.sum:sampled:thread", 1,
	     "no event 'dram__bytes_read.sum:sampled:thread': 'dram__bytes_read.sum:sampled' takes :process, "
	     ":device=N (a device the driver sees)");
	told("zzzz__yyyy", 0, "no event 'zzzz__yyyy'");
	told("kernel.xxxxxxxxxx", 0, "no event 'kernel.xxxxxxxxxx'");
	char longname[300];
	memset(longname, 'k', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	told(longname, 0, "no event 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...': a name of 299 characters after "
			  "cupti_cb:::, longer than the 115 PAPI holds");
	char buf[256];
	CHECK_EQ(cupti_cb_suggest_too_long(longname, buf, sizeof buf), 1, "299 characters are too long");
	longname[115] = '\0';
	CHECK_EQ(cupti_cb_suggest_too_long(longname, buf, sizeof buf), 0, "115 are not");
	longname[115] = 'k', longname[116] = '\0';
	CHECK_EQ(cupti_cb_suggest_too_long(longname, buf, sizeof buf), 1, "116 are");

	CHECK(cupti_cb_suggest_worth(sources, 3, "cupti_cb:::kernal.x"), "a near name is worth a look");
	CHECK(!cupti_cb_suggest_worth(sources, 3, "PAPI_TOT_CYC"), "a name of no source's form is not");
	/* CHECK evaluates its condition twice: each answer is taken once. */
	int first = cupti_cb_suggest_first_time("cupti_cb:::kernel.lanches");
	int second = cupti_cb_suggest_first_time("kernel.lanches");
	int other = cupti_cb_suggest_first_time("kernel.lanchez");
	CHECK_EQ(first, 1, "the first time a name is asked about");
	CHECK_EQ(second, 0, "not the second, with or without the prefix");
	CHECK_EQ(other, 1, "another name is new");
	return checks_done();
}
