/* cupti_cb_run_merge.c: process files (and reports) merged into one report.
 *
 * Counts and times add up over processes; a minimum stays the smallest, a
 * maximum or a peak the largest (the peak of live memory of one process is
 * not added to another's: they are different address spaces, and the
 * report's peak answers "how much did one process need at most").
 * "host_time" is false as soon as one file measured no host time (--no-time).
 *
 * A row of a file finds the row of the report it adds to through an index
 * by key (a jansson object: a hash table), not by a search through the
 * report's rows, and changes are taken back through an undo log when a
 * file is refused, not made on a copy of the report: merging is linear in
 * the rows of the files (issue: 20,000 rows took 120 s). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

json_t *cupti_cb_run_report_new(void)
{
	return json_pack("{s:s, s:{}, s:n, s:[], s:{s:b, s:n}, s:{}, s:[], s:[], s:[], s:[]}",
			 "schema", CUPTI_CB_RUN_SCHEMA, "cupti_cb", "run", "processes",
			 "status", "counting", 1, "reason", "totals", "api", "devices", "metrics", "notes");
}

enum how { SUM, MIN, MAX };

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

static enum how how_of(const char *key)
{
	if (ends_with(key, "peak_bytes") || ends_with(key, "max_ns") || ends_with(key, "_max"))
		return MAX;
	if (ends_with(key, "min_ns") || ends_with(key, "_min"))
		return MIN;
	return SUM;
}

struct cupti_cb_run_merger {
	json_t *report;
	/* key -> row of the report: "api" (function and layer), "devices"
	 * (device), "metrics" (name and device); "notes" (the note -> true). */
	json_t *api, *devices, *metrics, *notes;
	unsigned long long compared;
	struct cupti_cb_run_undo undo;
};

/* ---- the keys */

/* "LEN:AB" with LEN the length of a: no two pairs (a, b) give one key. */
static char *pair_key(const char *a, const char *b)
{
	char *k;
	if (asprintf(&k, "%zu:%s%s", strlen(a), a, b) < 0)
		abort();
	return k;
}

/* NULL for a row without its key's fields (never one of a checked file). */
static char *api_key(json_t *row)
{
	const char *f = json_string_value(json_object_get(row, "function"));
	const char *l = json_string_value(json_object_get(row, "layer"));
	return f && l ? pair_key(l, f) : NULL;
}

static char *device_key(json_t *row)
{
	json_t *d = json_object_get(row, "device");
	char num[32];
	if (!json_is_integer(d))
		return NULL;
	snprintf(num, sizeof num, "%lld", (long long)json_integer_value(d));
	return strdup(num);
}

static char *metric_key(json_t *row)
{
	const char *name = json_string_value(json_object_get(row, "name"));
	json_t *d = json_object_get(row, "device");
	char num[32];
	if (!name || !json_is_integer(d))
		return NULL;
	snprintf(num, sizeof num, "%lld", (long long)json_integer_value(d));
	return pair_key(num, name);
}

/* ---- the index */

/* row at index[key(row)], unless a row has that key already: the first row
 * of a key is the one found, as a search from the start would find it. */
static void index_row(json_t *index, char *(*key)(json_t *), json_t *row)
{
	char *k = key(row);
	if (k && !json_object_get(index, k))
		json_object_set(index, k, row);
	free(k);
}

static json_t *index_rows(json_t *rows, char *(*key)(json_t *))
{
	json_t *index = json_object(), *row;
	size_t i;
	if (!index)
		abort();
	json_array_foreach(rows, i, row)
		index_row(index, key, row);
	return index;
}

/* The report's row with the key of like's, or NULL. The row found is
 * compared with like (the fields of the key), and counted. */
static json_t *find(struct cupti_cb_run_merger *m, json_t *index, char *(*key)(json_t *), json_t *like,
		    const char *k1, const char *k2)
{
	char *k = key(like);
	json_t *row = k ? json_object_get(index, k) : NULL;
	free(k);
	if (!row)
		return NULL;
	m->compared++;
	if (!json_equal(json_object_get(row, k1), json_object_get(like, k1)) ||
	    (k2 && !json_equal(json_object_get(row, k2), json_object_get(like, k2))))
		return NULL;
	return row;
}

/* A new row at the end of the report's array name, and in the index. */
static void append(struct cupti_cb_run_merger *m, const char *name, json_t *index, char *(*key)(json_t *),
		   json_t *row)
{
	json_array_append_new(json_object_get(m->report, name), row);
	index_row(index, key, row);
}

/* The rows appended since the array had n rows taken away, index first. */
static void truncate_rows(struct cupti_cb_run_merger *m, const char *name, json_t *index,
			  char *(*key)(json_t *), size_t n)
{
	json_t *rows = json_object_get(m->report, name);
	while (json_array_size(rows) > n) {
		size_t last = json_array_size(rows) - 1;
		char *k = key(json_array_get(rows, last));
		if (k && json_object_get(index, k) == json_array_get(rows, last))
			json_object_del(index, k);
		free(k);
		json_array_remove(rows, last);
	}
}

/* ---- combining */

/* dst[key] combined with v, as key says; -1 (with a sentence) when a sum
 * would not fit in 64 bits: refused rather than wrapped around. */
static int combine(struct cupti_cb_run_undo *u, json_t *dst, const char *key, json_t *v, const char *where,
		   char *why, size_t n)
{
	if (!json_is_integer(v))
		return 0;
	long long b = json_integer_value(v);
	json_t *old = json_object_get(dst, key);
	if (!old) {
		cupti_cb_run_undo_set(u, dst, key, json_integer(b));
		return 0;
	}
	long long a = json_integer_value(old);
	switch (how_of(key)) {
	case SUM:
		if (__builtin_add_overflow(a, b, &a)) {
			snprintf(why, n, "%s: \"%s\": the sum over the files exceeds %lld", where, key, LLONG_MAX);
			return -1;
		}
		break;
	case MIN: a = b < a ? b : a; break;
	case MAX: a = b > a ? b : a; break;
	}
	cupti_cb_run_undo_set(u, dst, key, json_integer(a));
	return 0;
}

static int combine_all(struct cupti_cb_run_undo *u, json_t *dst, json_t *src, const char *where, char *why,
		       size_t n)
{
	const char *key;
	json_t *v;
	json_object_foreach(src, key, v)
		if (combine(u, dst, key, v, where, why, n))
			return -1;
	return 0;
}

static int merge_api(struct cupti_cb_run_merger *m, json_t *api, char *why, size_t n)
{
	size_t i;
	json_t *f;
	json_array_foreach(api, i, f) {
		json_t *d = find(m, m->api, api_key, f, "function", "layer");
		if (!d) {
			append(m, "api", m->api, api_key, json_deep_copy(f));
			continue;
		}
		char where[320];
		snprintf(where, sizeof where, "api row %zu (%.200s)", i, json_string_value(json_object_get(f, "function")));
		const char *key;
		json_t *v;
		json_object_foreach(f, key, v)
			if (strcmp(key, "function") && strcmp(key, "layer") && combine(&m->undo, d, key, v, where, why, n))
				return -1;
	}
	return 0;
}

static int merge_devices(struct cupti_cb_run_merger *m, json_t *devices, char *why, size_t n)
{
	size_t i;
	json_t *dev;
	json_array_foreach(devices, i, dev) {
		json_t *d = find(m, m->devices, device_key, dev, "device", NULL);
		if (!d) {
			d = json_pack("{s:O, s:{}}", "device", json_object_get(dev, "device"), "events");
			append(m, "devices", m->devices, device_key, d);
		}
		char where[64];
		snprintf(where, sizeof where, "devices row %zu (device %lld)", i, cupti_cb_run_int(dev, "device"));
		if (combine_all(&m->undo, json_object_get(d, "events"), json_object_get(dev, "events"), where, why, n))
			return -1;
	}
	return 0;
}
static double number(json_t *v)
{
	return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static json_t *extreme(json_t *a, json_t *b, int want_max)
{
	int take_b = want_max ? number(b) > number(a) : number(b) < number(a);
	return json_deep_copy(take_b ? b : a);
}

/* A hardware metric of one more process (or of the processes of a
 * report): cupti_cb_run_metric_how says how its values combine. A mean
 * keeps the smallest and the largest value of its processes beside it. */
static int merge_metric(struct cupti_cb_run_undo *u, json_t *d, json_t *m, const char *where, char *why, size_t n)
{
	json_t *a = json_object_get(d, "value"), *b = json_object_get(m, "value"), *r;
	long long na = cupti_cb_run_int(d, "processes"), nb = cupti_cb_run_int(m, "processes"), nt;
	nb = nb ? nb : 1;
	if (__builtin_add_overflow(na, nb, &nt)) {
		snprintf(why, n, "%s: \"processes\": the sum over the files exceeds %lld", where, LLONG_MAX);
		return -1;
	}
	switch (cupti_cb_run_metric_how(json_string_value(json_object_get(d, "name")))) {
	case CUPTI_CB_RUN_SUM:
		if (json_is_integer(a) && json_is_integer(b)) {
			long long s;
			if (__builtin_add_overflow(json_integer_value(a), json_integer_value(b), &s)) {
				snprintf(why, n, "%s: \"value\": the sum over the files exceeds %lld", where, LLONG_MAX);
				return -1;
			}
			r = json_integer(s);
		} else
			r = json_real(number(a) + number(b));	/* NULL when infinite */
		break;
	case CUPTI_CB_RUN_MAX: r = extreme(a, b, 1); break;
	case CUPTI_CB_RUN_MIN: r = extreme(a, b, 0); break;
	default:
		/* Written so that it stays finite for any finite a and b. */
		r = json_real(number(a) + (number(b) - number(a)) * ((double)nb / (double)nt));
		json_t *lo = json_object_get(m, "min"), *hi = json_object_get(m, "max");
		cupti_cb_run_undo_set(u, d, "min", extreme(json_object_get(d, "min"), lo ? lo : b, 0));
		cupti_cb_run_undo_set(u, d, "max", extreme(json_object_get(d, "max"), hi ? hi : b, 1));
	}
	if (!r) {
		snprintf(why, n, "%s: \"value\": the sum over the files is too large for a number", where);
		return -1;
	}
	cupti_cb_run_undo_set(u, d, "value", r);
	cupti_cb_run_undo_set(u, d, "processes", json_integer(nt));
	return 0;
}

static int merge_metrics(struct cupti_cb_run_merger *m, json_t *metrics, char *why, size_t n)
{
	size_t i;
	json_t *r;
	json_array_foreach(metrics, i, r) {
		json_t *d = find(m, m->metrics, metric_key, r, "name", "device");
		char where[320];
		snprintf(where, sizeof where, "metrics row %zu (%.200s)", i, json_string_value(json_object_get(r, "name")));
		if (d) {
			if (merge_metric(&m->undo, d, r, where, why, n))
				return -1;
			continue;
		}
		d = json_deep_copy(r);
		if (!json_object_get(d, "processes"))
			json_object_set_new(d, "processes", json_integer(1));
		if (cupti_cb_run_metric_how(json_string_value(json_object_get(d, "name"))) == CUPTI_CB_RUN_MEAN) {
			json_t *v = json_object_get(d, "value");
			if (!json_object_get(d, "min"))
				json_object_set(d, "min", v);
			if (!json_object_get(d, "max"))
				json_object_set(d, "max", v);
		}
		append(m, "metrics", m->metrics, metric_key, d);
	}
	return 0;
}

static void merge_notes(struct cupti_cb_run_merger *m, json_t *notes)
{
	size_t i;
	json_t *note;
	json_array_foreach(notes, i, note) {
		const char *text = json_string_value(note);
		if (text && !json_object_get(m->notes, text)) {
			json_array_append(json_object_get(m->report, "notes"), note);
			json_object_set_new(m->notes, text, json_true());
		}
	}
}

static void merge_status(json_t *report, json_t *status)
{
	json_t *st = json_object_get(report, "status");
	if (!json_is_true(json_object_get(status, "counting")))
		json_object_set_new(st, "counting", json_false());
	json_t *why = json_object_get(status, "reason");
	if (json_is_string(why) && !json_is_string(json_object_get(st, "reason")))
		json_object_set(st, "reason", why);
}

/* partial: the counts a process published before it ended without its
 * file (a process file's top-level "partial"), kept on its row. */
static void add_process(json_t *report, json_t *p, json_t *status, json_t *partial)
{
	json_t *e = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}", "pid", json_object_get(p, "pid"),
			      "host", json_object_get(p, "host"), "rank", json_object_get(p, "rank"),
			      "argv", json_object_get(p, "argv"), "wall_ns", json_object_get(p, "wall_ns"),
			      "status", status ? status : json_object_get(p, "status"));
	if (!partial)
		partial = json_object_get(p, "partial");
	if (e && partial && !json_is_null(partial))
		json_object_set(e, "partial", partial);
	if (e)
		json_array_append_new(json_object_get(report, "processes"), e);
}

/* The rows of doc: the only part of a merge that can refuse a file, done
 * first; what it changed is taken back when it does. */
static int merge_rows(struct cupti_cb_run_merger *m, json_t *doc, char *why, size_t n)
{
	json_t *r = m->report;
	size_t na = json_array_size(json_object_get(r, "api")), nd = json_array_size(json_object_get(r, "devices")),
	       nm = json_array_size(json_object_get(r, "metrics"));
	if (!combine_all(&m->undo, json_object_get(r, "totals"), json_object_get(doc, "totals"), "\"totals\"", why, n) &&
	    !merge_api(m, json_object_get(doc, "api"), why, n) && !merge_devices(m, json_object_get(doc, "devices"), why, n) &&
	    !merge_metrics(m, json_object_get(doc, "metrics"), why, n)) {
		cupti_cb_run_undo_commit(&m->undo);
		return 0;
	}
	cupti_cb_run_undo_rollback(&m->undo);
	truncate_rows(m, "api", m->api, api_key, na);
	truncate_rows(m, "devices", m->devices, device_key, nd);
	truncate_rows(m, "metrics", m->metrics, metric_key, nm);
	return -1;
}

/* doc merged into the report (which is left as it was when doc is refused). */
static int merge_into(struct cupti_cb_run_merger *m, json_t *doc, char *why, size_t n)
{
	json_t *report = m->report;
	if (merge_rows(m, doc, why, n))
		return -1;
	json_t *proc = json_object_get(doc, "process"), *procs = json_object_get(doc, "processes");
	if (json_is_object(proc))
		add_process(report, proc, json_object_get(doc, "status"), json_object_get(doc, "partial"));
	size_t i;
	json_t *p;
	json_array_foreach(procs, i, p)
		add_process(report, p, NULL, NULL);
	json_t *version = json_object_get(json_object_get(doc, "cupti_cb"), "version");
	json_t *ours = json_object_get(report, "cupti_cb");
	if (json_is_string(version) && !json_object_get(ours, "version"))
		json_object_set(ours, "version", version);
	merge_status(report, json_object_get(doc, "status"));
	json_t *host_time = json_object_get(doc, "host_time");
	if (json_is_boolean(host_time) && cupti_cb_run_host_time(report))
		json_object_set(report, "host_time", host_time);
	merge_notes(m, json_object_get(doc, "notes"));
	cupti_cb_run_merge_threads(report, doc);
	return 0;
}

struct cupti_cb_run_merger *cupti_cb_run_merger_new(json_t *report)
{
	struct cupti_cb_run_merger *m = calloc(1, sizeof *m);
	json_t *note;
	size_t i;
	if (!m)
		abort();
	m->report = json_incref(report);
	m->api = index_rows(json_object_get(report, "api"), api_key);
	m->devices = index_rows(json_object_get(report, "devices"), device_key);
	m->metrics = index_rows(json_object_get(report, "metrics"), metric_key);
	m->notes = json_object();
	json_array_foreach(json_object_get(report, "notes"), i, note)
		if (json_is_string(note))
			json_object_set_new(m->notes, json_string_value(note), json_true());
	return m;
}

void cupti_cb_run_merger_free(struct cupti_cb_run_merger *m)
{
	if (!m)
		return;
	cupti_cb_run_undo_free(&m->undo);
	json_decref(m->api);
	json_decref(m->devices);
	json_decref(m->metrics);
	json_decref(m->notes);
	json_decref(m->report);
	free(m);
}

unsigned long long cupti_cb_run_merger_compared(const struct cupti_cb_run_merger *m)
{
	return m->compared;
}

int cupti_cb_run_merger_add(struct cupti_cb_run_merger *m, json_t *doc, char *why, size_t n)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, CUPTI_CB_RUN_SCHEMA)) {
		snprintf(why, n, "its schema is %s%s%s, not " CUPTI_CB_RUN_SCHEMA, schema ? "'" : "",
			 schema ? schema : "missing", schema ? "'" : "");
		return -1;
	}
	json_t *proc = json_object_get(doc, "process"), *procs = json_object_get(doc, "processes");
	if (!json_is_object(proc) && !json_is_array(procs)) {
		snprintf(why, n, "it has neither \"process\" nor \"processes\"");
		return -1;
	}
	if (cupti_cb_run_check(doc, why, n))
		return -1;
	return merge_into(m, doc, why, n);
}

int cupti_cb_run_merge(json_t *report, json_t *doc, char *why, size_t n)
{
	struct cupti_cb_run_merger *m = cupti_cb_run_merger_new(report);
	int rc = cupti_cb_run_merger_add(m, doc, why, n);
	cupti_cb_run_merger_free(m);
	return rc;
}
