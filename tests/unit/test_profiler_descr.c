/* test_profiler_descr.c: a metric's description as PAPI shows it: CUPTI's text, the metric's
 * type, its default and every suffix it takes, written as heads times tails where the type's
 * table is their product (".avg .max .sum, each alone or followed by .per_second"), one by one
 * where it is not; always within the caller's buffer, cut short rather than overrun.  A hand-made
 * catalogue: the tables of GH100 are all products (test_profiler_catalog), so the other form is
 * only reached here. */
#include "check.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_events.h"

static const char *counter[] = { ".avg", ".avg.per_second", ".max", ".max.per_second", ".sum", ".sum.per_second" };
static const char *ratio[] = { ".max_rate", ".pct", ".ratio" };
static const char *no_bare[] = { ".avg.p1", ".avg.p2", ".max.p1", ".max.p2" };
static const char *odd[] = { ".avg.pct", ".max.pct", ".sum", ".sum.per_second" };	/* 3 heads x 3 tails != 4 */

static struct cupti_cb_metric metrics[] = {
	{ "a__counter", 0, 1, "Counter A", "byte" },
	{ "b__ratio", 1, 1, "Ratio B", "" },
	{ "c__throughput", 2, 1, "Throughput C", "" },
};

static struct cupti_cb_profiler_catalog cat = {
	.chip = "TEST",
	.n_metrics = 3,
	.metrics = metrics,
	.n_suffixes = { 6, 3, 4 },
	.suffixes = { counter, ratio, no_bare },
	.default_variant = { 5, 2, 1 },
};

static const struct cupti_cb_profiler_events ev = { &cat, 1 };

static void described(uint32_t metric, const char *want, const char *what)
{
	char buf[512];
	memset(buf, 'x', sizeof buf);
	cupti_cb_profiler_events_descr(&ev, metric, buf, sizeof buf);
	CHECK_STR(buf, want, what);
}

int main(void)
{
	described(0, "Counter A [counter; default .sum; takes .avg .max .sum, each alone or followed by .per_second]",
		  "a counter: rollups, each alone or with a tail");
	described(1, "Ratio B [ratio; default .pct; takes .max_rate .pct .ratio]", "a ratio: heads only");
	described(2, "Throughput C [throughput; default .avg.p1; takes .avg .max, each followed by .p1 .p2]",
		  "no head alone: each followed by");
	cat.suffixes[2] = odd;
	described(2, "Throughput C [throughput; default .avg.pct; takes .avg.pct .max.pct .sum .sum.per_second]",
		  "not a product of heads and tails: one by one");

	/* Buffers too short: cut, terminated, nothing written past them. */
	for (size_t len = 1; len <= 96; len++) {
		char buf[128];
		memset(buf, 'x', sizeof buf);
		cupti_cb_profiler_events_descr(&ev, 0, buf, len);
		int ok = strlen(buf) < len && buf[len] == 'x' && !strncmp(buf, "Counter A", strlen(buf) < 9 ? strlen(buf) : 9);
		if (!ok || len == 1 || len == 96)
			CHECK(ok, "a buffer of %zu bytes: \"%s\" within it", len, buf);
	}
	return checks_done();
}
