/* merge_scale: merging files into a report is linear in their rows, and
 * exact. Not a timed test: it counts the work of the merge (the runner's
 * merge files are compiled in).
 *
 *  - key comparisons: every json_equal the merge calls (linked with
 *    -Wl,--wrap=json_equal). A row that searched the report's rows one by
 *    one would compare N^2/2 pairs for N distinct rows; a row found by its
 *    key compares at most its key's two fields with the one row found.
 *  - allocations: every allocation of jansson during the merges
 *    (json_set_alloc_funcs). A merge that worked on a copy of the whole
 *    report for every file allocated the report again per file.
 *
 * Then the merged values are checked one by one, and a file refused
 * half-way (a sum beyond 64 bits in its last row) leaves the report as it
 * was: the same JSON, and the next file merges as if it had never come. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

static unsigned long long equals, allocs;
static int fails;

int __real_json_equal(const json_t *a, const json_t *b);
int __wrap_json_equal(const json_t *a, const json_t *b);
int __wrap_json_equal(const json_t *a, const json_t *b)
{
	equals++;
	return __real_json_equal(a, b);
}

static void *counted_malloc(size_t n)
{
	allocs++;
	return malloc(n);
}

#define CHECK(cond, ...)                                      \
	do {                                                  \
		if (!(cond)) {                                \
			printf("FAIL: " __VA_ARGS__);         \
			printf("\n");                         \
			fails++;                              \
		}                                             \
	} while (0)

/* A process file of pid with functions f<first>..f<first+n-1>: function
 * fK has calls K+1 and time_ns 10(K+1), on device pid % 4, with one
 * metric per function (a .sum, of value K). */
static json_t *file(int pid, int first, int n)
{
	json_t *api = json_array(), *metrics = json_array();
	for (int k = first; k < first + n; k++) {
		char name[32];
		snprintf(name, sizeof name, "f%d", k);
		json_array_append_new(api, json_pack("{s:s, s:s, s:I, s:I, s:I}", "function", name, "layer", "runtime",
						     "calls", (json_int_t)k + 1, "time_ns", (json_int_t)10 * (k + 1),
						     "min_ns", (json_int_t)k));
		snprintf(name, sizeof name, "m%d.sum", k);
		json_array_append_new(metrics, json_pack("{s:s, s:i, s:I}", "name", name, "device", 0, "value",
							 (json_int_t)k));
	}
	return json_pack("{s:s, s:{s:i}, s:{s:b}, s:{s:i}, s:o, s:[{s:i, s:{s:i}}], s:o, s:[s]}", "schema",
			 CUPTI_CB_RUN_SCHEMA, "process", "pid", pid, "status", "counting", 1, "totals", "api.calls", 1,
			 "api", api, "devices", "device", pid % 4, "events", "kernel.launches", 1, "metrics", metrics,
			 "notes", "a note");
}

/* The row of array whose field is name: a lookup in an index of the test's
 * own, made once (by_name), so that checking stays linear too. */
static json_t *by_name(json_t *report, const char *array, const char *field)
{
	json_t *ix = json_object(), *r;
	size_t i;
	json_array_foreach(json_object_get(report, array), i, r)
		json_object_set(ix, json_string_value(json_object_get(r, field)) ?: "", r);
	return ix;
}

static json_t *row(json_t *report, const char *array, const char *field, const char *name)
{
	json_t *ix = by_name(report, array, field), *r = json_object_get(ix, name);
	json_incref(r);
	json_decref(ix);
	json_decref(r);	/* still held by the report */
	return r;
}

/* One file of n distinct rows, then the same file again. */
static void one_big_file(int n)
{
	char why[512];
	json_t *report = cupti_cb_run_report_new(), *doc = file(1, 0, n);
	struct cupti_cb_run_merger *m = cupti_cb_run_merger_new(report);
	equals = 0;
	CHECK(!cupti_cb_run_merger_add(m, doc, why, sizeof why), "the file is refused: %s", why);
	CHECK(!cupti_cb_run_merger_add(m, doc, why, sizeof why), "the file is refused again: %s", why);
	/* Every row of the second merge finds its row (2 fields each): n api
	 * rows, n metrics and the device. */
	CHECK(equals <= 4ULL * (unsigned long long)n + 2, "%d rows merged twice took %llu key comparisons (at most %d)",
	      n, equals, 4 * n + 2);
	CHECK(cupti_cb_run_merger_compared(m) == 2ULL * (unsigned long long)n + 1,
	      "%llu rows of the report compared, not %d (one per api row, metric and device found)",
	      cupti_cb_run_merger_compared(m), 2 * n + 1);
	cupti_cb_run_merger_free(m);
	CHECK(json_array_size(json_object_get(report, "api")) == (size_t)n, "%zu api rows, not %d",
	      json_array_size(json_object_get(report, "api")), n);
	json_t *last = json_array_get(json_object_get(report, "api"), (size_t)n - 1);
	CHECK(cupti_cb_run_int(last, "calls") == 2LL * n, "the last function has %lld calls, not %d",
	      cupti_cb_run_int(last, "calls"), 2 * n);
	CHECK(cupti_cb_run_int(last, "min_ns") == n - 1, "the last function's min_ns is %lld, not %d",
	      cupti_cb_run_int(last, "min_ns"), n - 1);
	CHECK(json_array_size(json_object_get(report, "notes")) == 1, "the note is there %zu times, not once",
	      json_array_size(json_object_get(report, "notes")));
	json_decref(doc);
	json_decref(report);
}

/* files files of n rows each, function sets overlapping by half: file k
 * has f(k*n/2) .. f(k*n/2 + n - 1). */
static void many_files(int files, int n)
{
	char why[512];
	json_t *report = cupti_cb_run_report_new(), **docs = calloc((size_t)files, sizeof *docs);
	for (int k = 0; k < files; k++)
		docs[k] = file(100 + k, k * n / 2, n);
	struct cupti_cb_run_merger *m = cupti_cb_run_merger_new(report);
	unsigned long long rows = (unsigned long long)files * (unsigned long long)n * 2;	/* api and metrics */
	equals = 0;
	allocs = 0;
	for (int k = 0; k < files; k++)
		CHECK(!cupti_cb_run_merger_add(m, docs[k], why, sizeof why), "file %d is refused: %s", k, why);
	CHECK(equals <= 2 * rows, "%llu rows took %llu key comparisons (at most %llu)", rows, equals, 2 * rows);
	/* A row's copy, its integers, its index entry and its key: about 10. */
	CHECK(allocs <= 40 * rows, "%llu rows took %llu allocations (at most %llu)", rows, allocs, 40 * rows);

	/* Each value: f(j) is in the files k with k*n/2 <= j < k*n/2 + n. */
	int nf = (files + 1) * n / 2;
	CHECK(json_array_size(json_object_get(report, "api")) == (size_t)nf, "%zu functions, not %d",
	      json_array_size(json_object_get(report, "api")), nf);
	json_t *fs = by_name(report, "api", "function"), *ms = by_name(report, "metrics", "name");
	for (int j = 0; j < nf; j++) {
		char name[32];
		int in = 0;
		for (int k = 0; k < files; k++)
			in += k * n / 2 <= j && j < k * n / 2 + n;
		snprintf(name, sizeof name, "f%d", j);
		json_t *f = json_object_get(fs, name);
		CHECK(cupti_cb_run_int(f, "calls") == (long long)in * (j + 1), "%s has %lld calls, not %lld", name,
		      cupti_cb_run_int(f, "calls"), (long long)in * (j + 1));
		snprintf(name, sizeof name, "m%d.sum", j);
		f = json_object_get(ms, name);
		CHECK(cupti_cb_run_int(f, "processes") == in, "%s has %lld processes, not %d", name,
		      cupti_cb_run_int(f, "processes"), in);
		CHECK(cupti_cb_run_int(f, "value") == (long long)in * j, "%s is %lld, not %lld", name,
		      cupti_cb_run_int(f, "value"), (long long)in * j);
	}
	json_decref(fs);
	json_decref(ms);
	CHECK(cupti_cb_run_int(json_object_get(report, "totals"), "api.calls") == files, "api.calls is %lld, not %d",
	      cupti_cb_run_int(json_object_get(report, "totals"), "api.calls"), files);
	CHECK(json_array_size(json_object_get(report, "devices")) == (size_t)(files < 4 ? files : 4),
	      "%zu devices", json_array_size(json_object_get(report, "devices")));

	/* Refused in its last row: m1.sum's value would pass 2^63 - 1. The
	 * rows before it are merged first: the totals, a row new to the report
	 * (f100000, m100000.sum), sums of rows it has (f1, device 3): all
	 * taken back. */
	json_t *before = json_deep_copy(report), *bad = file(7, 100000, 1);
	json_array_insert_new(json_object_get(bad, "api"), 0,
			      json_pack("{s:s, s:s, s:i}", "function", "f1", "layer", "runtime", "calls", 5));
	json_array_append_new(json_object_get(bad, "metrics"),
			      json_pack("{s:s, s:i, s:I}", "name", "m1.sum", "device", 0, "value", (json_int_t)INT64_MAX));
	CHECK(cupti_cb_run_merger_add(m, bad, why, sizeof why), "a sum beyond 2^63 - 1 is taken");
	CHECK(json_equal(before, report), "the refused file changed the report");
	/* The index too: f100000 is new again, f1 adds up from where it was. */
	json_t *again = file(8, 100000, 2);
	CHECK(!cupti_cb_run_merger_add(m, again, why, sizeof why), "the next file is refused: %s", why);
	CHECK(cupti_cb_run_int(row(report, "api", "function", "f100000"), "calls") == 100001,
	      "f100000 has %lld calls, not 100001", cupti_cb_run_int(row(report, "api", "function", "f100000"), "calls"));
	CHECK(json_array_size(json_object_get(report, "api")) == (size_t)nf + 2, "%zu functions after, not %d",
	      json_array_size(json_object_get(report, "api")), nf + 2);
	cupti_cb_run_merger_free(m);
	json_decref(again);
	json_decref(bad);
	json_decref(before);
	for (int k = 0; k < files; k++)
		json_decref(docs[k]);
	free(docs);
	json_decref(report);
}

int main(void)
{
	json_set_alloc_funcs(counted_malloc, free);
	one_big_file(5000);
	many_files(64, 200);
	if (fails) {
		printf("%d check(s) failed\n", fails);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
