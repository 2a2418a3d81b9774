/* cupti_cb_run_threads.c: the per-thread counts of the report. Each process
 * file may have a "threads" array (cupti_cb_run-contract.md); the report
 * keeps one row per thread of each process (pid + tid: a tid means nothing
 * across processes or hosts), and prints them as the "Per thread" table and
 * the CSV's "thread" rows. A report without threads (an older injected
 * library) has no "threads" key, and no table. A report without host times
 * (--no-time) has no time columns, and its rows go by calls. */
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

#define NUM 32
/* Rows of the text table; the JSON and the CSV have every thread. */
#define TABLE_ROWS 32

/* The rows of doc (a process file or a report) appended to the report's. */
void cupti_cb_run_merge_threads(json_t *report, json_t *doc)
{
	json_t *rows = json_object_get(doc, "threads"), *proc = json_object_get(doc, "process"), *t;
	size_t i;
	if (!json_is_array(rows))
		return;
	json_t *out = json_object_get(report, "threads");
	if (!out) {
		out = json_array();
		json_object_set_new(report, "threads", out);
	}
	json_array_foreach(rows, i, t) {
		if (!json_is_object(t))
			continue;
		json_t *r = json_deep_copy(t);
		if (json_is_object(proc)) {	/* a process file: the rows say whose they are */
			const char *keys[] = { "pid", "host", "rank" };
			for (int k = 0; k < 3; k++) {
				json_t *v = json_object_get(proc, keys[k]);
				json_object_set(r, keys[k], v ? v : json_null());
			}
		}
		json_array_append_new(out, r);
	}
}

static long long ev(json_t *t, const char *key)
{
	return cupti_cb_run_int(json_object_get(t, "events"), key);
}

/* By API time (by calls without host times), then pid and tid: the busiest threads first.
 * The runner is one thread: qsort's comparison takes the key from here. */
static const char *sort_key = "api.time_ns";

static int busiest_first(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	long long tx = ev(x, sort_key), ty = ev(y, sort_key);
	if (tx != ty)
		return tx > ty ? -1 : 1;
	long long px = cupti_cb_run_int(x, "pid"), py = cupti_cb_run_int(y, "pid");
	if (px != py)
		return px < py ? -1 : 1;
	long long ix = cupti_cb_run_int(x, "tid"), iy = cupti_cb_run_int(y, "tid");
	return ix < iy ? -1 : ix > iy;
}

/* An event the process's cupti_cb did not offer is "-", not 0. */
static void cell(char *buf, json_t *t, const char *key)
{
	json_t *v = json_object_get(json_object_get(t, "events"), key);
	if (json_is_integer(v))
		snprintf(buf, NUM, "%lld", (long long)json_integer_value(v));
	else
		strcpy(buf, "-");
}

void cupti_cb_run_threads_table(FILE *out, json_t *report)
{
	static const char *const h[] = { "PID", "TID", "Calls", "API Time (ns)", "Launches", "Memcpy Bytes",
					  "Sync Time (ns)", "GPU Kernels", "Name" };
	static const char *const keys[] = { "api.calls", "api.time_ns", "kernel.launches", "memcpy.bytes",
					     "sync.time_ns", "gpu.kernels" };
	/* The columns shown: all, or those that are not host times. */
	static const int all[] = { 0, 1, 2, 3, 4, 5 }, counts[] = { 0, 2, 3, 5 };
	json_t *threads = json_object_get(report, "threads"), *t;
	size_t n = json_array_size(threads), i;
	if (!n)
		return;
	int timed = cupti_cb_run_host_time(report), nc = timed ? 6 : 4;
	const int *col = timed ? all : counts;
	json_t **rows = calloc(n, sizeof *rows);
	if (!rows)
		abort();
	json_array_foreach(threads, i, t)
		rows[i] = t;
	sort_key = timed ? "api.time_ns" : "api.calls";
	qsort(rows, n, sizeof *rows, busiest_first);
	fprintf(out, "\nPer thread (%zu thread%s, by API %s; [exited]: the thread had ended, [shared]: the "
		     "counts of several threads)\n\n", n, n == 1 ? "" : "s", timed ? "time" : "calls");
	const char *head[9] = { h[0], h[1] };
	for (int k = 0; k < nc; k++)
		head[2 + k] = h[2 + col[k]];
	head[2 + nc] = h[8];
	struct cupti_cb_run_tab *tab = cupti_cb_run_tab_new(3 + nc, head, timed ? "rrrrrrrrl" : "rrrrrrl");
	for (i = 0; i < n && i < TABLE_ROWS; i++) {
		char c[8][NUM], name[96];
		t = rows[i];
		snprintf(c[0], NUM, "%lld", cupti_cb_run_int(t, "pid"));
		snprintf(c[1], NUM, "%lld", cupti_cb_run_int(t, "tid"));
		for (int k = 0; k < nc; k++)
			cell(c[2 + k], t, keys[col[k]]);
		snprintf(name, sizeof name, "%s%s%s", json_string_value(json_object_get(t, "name")) ?: "",
			 json_is_true(json_object_get(t, "exited")) ? " [exited]" : "",
			 json_is_true(json_object_get(t, "shared")) ? " [shared]" : "");
		const char *cells[9] = { c[0], c[1] };
		for (int k = 0; k < nc; k++)
			cells[2 + k] = c[2 + k];
		cells[2 + nc] = name;
		cupti_cb_run_tab_row(tab, cells);
	}
	cupti_cb_run_tab_print(out, tab);
	cupti_cb_run_tab_free(tab);
	if (n > TABLE_ROWS)
		fprintf(out, " %zu more threads: see --json or --csv.\n", n - TABLE_ROWS);
	free(rows);
}

/* thread,PID:TID:KEY,,VALUE,UNIT for each event and the flags; the name in
 * the unit column of thread,PID:TID:name,,, (it is text). */
void cupti_cb_run_threads_csv(FILE *f, json_t *report,
			      void (*row)(FILE *, const char *, const char *, json_t *, json_t *, const char *))
{
	json_t *t, *v;
	const char *key;
	size_t i;
	json_array_foreach(json_object_get(report, "threads"), i, t) {
		char name[160];
		long long pid = cupti_cb_run_int(t, "pid"), tid = cupti_cb_run_int(t, "tid");
		snprintf(name, sizeof name, "%lld:%lld:name", pid, tid);
		row(f, "thread", name, NULL, NULL, json_string_value(json_object_get(t, "name")));
		json_object_foreach(json_object_get(t, "events"), key, v) {
			snprintf(name, sizeof name, "%lld:%lld:%s", pid, tid, key);
			row(f, "thread", name, NULL, v, cupti_cb_run_unit(key));
		}
		const char *flags[] = { "exited", "shared" };
		for (int k = 0; k < 2; k++) {
			json_t *b = json_integer(json_is_true(json_object_get(t, flags[k])));
			snprintf(name, sizeof name, "%lld:%lld:%s", pid, tid, flags[k]);
			row(f, "thread", name, NULL, b, "");
			json_decref(b);
		}
	}
}
