/* fuzz_report.c: a libFuzzer target on the loader of cupti_cb_run's report
 * and baseline files (src/runner/cupti_cb_run_check.c, _merge.c) and on every
 * reader of what it accepts: the tables, the CSV, the per-rank summary of
 * --report and the comparison of --compare with rules of every kind (and
 * the check of the rules that match nothing).
 *
 * An input is the text of a file. It is parsed as cupti_cb_run_load parses
 * a file; an object is merged into an empty report, then again (the same
 * file twice: every row meets itself, as two ranks with the same functions
 * do), and into a report of a known process file. For each report that
 * took it:
 *
 *  - the outputs are printed (to /dev/null) and compared with the known
 *    report both ways, so that any field a reader trusts is exercised;
 *  - the report, written as the runner writes --json and read back, is
 *    accepted by the loader again: the runner never writes a report that
 *    it would refuse (a finding aborts).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined; run by
 * fuzz_report.sh from fuzz-corpus-report/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

static FILE *sink;
static json_t *known;
static struct cupti_cb_run_rule *rules;
static size_t n_rules;

static const char known_text[] =
	"{\"schema\": \"cupti_cb_run/1\", \"process\": {\"pid\": 7, \"host\": \"h\", \"rank\": 1, \"argv\": [\"a\"],"
	" \"wall_ns\": 100}, \"status\": {\"counting\": true, \"reason\": null},"
	" \"totals\": {\"api.calls\": 3, \"api.time_ns\": 30, \"api.errors\": 0},"
	" \"api\": [{\"function\": \"cudaMemcpy\", \"layer\": \"runtime\", \"calls\": 3, \"time_ns\": 30,"
	" \"min_ns\": 5, \"max_ns\": 15, \"errors\": 0}],"
	" \"devices\": [{\"device\": 0, \"events\": {\"kernel.launches\": 2, \"memcpy.bytes_htod\": 64,"
	" \"alloc.peak_bytes\": 8, \"gpu.busy_ns\": 50}}],"
	" \"metrics\": [{\"name\": \"dram__bytes_read.sum\", \"device\": 0, \"value\": 64, \"units\": \"byte\"},"
	" {\"name\": \"sm__throughput.avg.pct_of_peak_sustained_elapsed\", \"device\": 0, \"value\": 12.5,"
	" \"units\": \"%\"}], \"notes\": [\"n\"],"
	" \"threads\": [{\"tid\": 8, \"name\": \"t\", \"exited\": false, \"shared\": false,"
	" \"events\": {\"api.calls\": 3}}]}";

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "fuzz_report: " __VA_ARGS__);               \
		fprintf(stderr, "\n");                                      \
		abort();                                                    \
	} while (0)

static json_t *merged(json_t *doc, char *why, size_t n)
{
	json_t *r = cupti_cb_run_report_new();
	if (cupti_cb_run_merge(r, doc, why, n)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char why[512];
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	json_t *doc = json_loads(known_text, 0, NULL);
	if (!sink || !doc || !(known = merged(doc, why, sizeof why)))
		FAIL("the known process file is refused: %s", doc ? why : "not JSON");
	json_decref(doc);
	if (cupti_cb_run_parse_rules("calls:*=0%,time:total=1%,errors:cudaMemcpy=0%,bytes:total=0%,bytes:peer=0%,"
				     "kernels:launches=0%,kernels:gpu_time=5%,event:gpu.busy_ns=0%,"
				     "metric:dram__bytes_read.sum=0%,"
				     "metric:sm__throughput.avg.pct_of_peak_sustained_elapsed=0%",
				     &rules, &n_rules, why, sizeof why))
		FAIL("the rules are refused: %s", why);
	return 0;
}

/* Everything a report is read for, as the runner reads it. */
static void read_all(json_t *report)
{
	json_t *ranks[2] = { report, known };
	json_object_set_new(report, "run", json_pack("{s:[s], s:i, s:i, s:n}", "argv", "app", "exit_status", 0,
						     "wall_ns", 1000, "rank"));
	cupti_cb_run_print_tables(sink, report);
	cupti_cb_run_print_csv(sink, report);
	cupti_cb_run_print_ranks(sink, ranks, 2);
	cupti_cb_run_rules_unmatched(sink, "base", report, known, rules, n_rules);
	cupti_cb_run_compare(sink, "base", report, known, rules, n_rules);
	cupti_cb_run_compare(sink, "base", known, report, rules, n_rules);
}

/* The report as --json writes it, read back by the loader. */
static void round_trip(json_t *report)
{
	char why[512];
	char *text = json_dumps(report, JSON_INDENT(2));
	if (!text)
		FAIL("a report cannot be written");
	json_error_t err;
	json_t *back = json_loads(text, 0, &err);
	if (!back)
		FAIL("the report written is not JSON: %s\n%s", err.text, text);
	json_t *again = merged(back, why, sizeof why);
	if (!again)
		FAIL("the runner refuses a report it wrote: %s\n%s", why, text);
	json_decref(again);
	json_decref(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	json_error_t err;
	json_t *doc = json_loadb((const char *)data, size, 0, &err);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return 0;
	}
	json_t *once = merged(doc, why, sizeof why);
	if (once) {
		read_all(once);
		round_trip(once);
		/* The same file again: rows meet themselves. */
		if (!cupti_cb_run_merge(once, doc, why, sizeof why)) {
			read_all(once);
			round_trip(once);
		}
		json_decref(once);
	}
	json_t *with = json_deep_copy(known);
	if (!cupti_cb_run_merge(with, doc, why, sizeof why)) {
		read_all(with);
		round_trip(with);
	}
	json_decref(with);
	json_decref(doc);
	return 0;
}
