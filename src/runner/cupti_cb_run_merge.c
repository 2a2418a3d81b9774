/* cupti_cb_run_merge.c: process files (and reports) merged into one report.
 *
 * Counts and times add up over processes; a minimum stays the smallest, a
 * maximum or a peak the largest (the peak of live memory of one process is
 * not added to another's: they are different address spaces, and the
 * report's peak answers "how much did one process need at most").
 * "host_time" is false as soon as one file measured no host time (--no-time). */
#include <dirent.h>
#include <limits.h>
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

/* dst[key] combined with v, as key says; -1 (with a sentence) when a sum
 * would not fit in 64 bits: refused rather than wrapped around. */
static int combine(json_t *dst, const char *key, json_t *v, const char *where, char *why, size_t n)
{
	if (!json_is_integer(v))
		return 0;
	long long b = json_integer_value(v);
	json_t *old = json_object_get(dst, key);
	if (!old) {
		json_object_set_new(dst, key, json_integer(b));
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
	json_integer_set(old, a);
	return 0;
}

static int combine_all(json_t *dst, json_t *src, const char *where, char *why, size_t n)
{
	const char *key;
	json_t *v;
	json_object_foreach(src, key, v)
		if (combine(dst, key, v, where, why, n))
			return -1;
	return 0;
}

/* The element of array whose field k1 equals that of like (and k2, if given). */
static json_t *find(json_t *array, json_t *like, const char *k1, const char *k2)
{
	size_t i;
	json_t *e;
	json_array_foreach(array, i, e) {
		if (!json_equal(json_object_get(e, k1), json_object_get(like, k1)))
			continue;
		if (k2 && !json_equal(json_object_get(e, k2), json_object_get(like, k2)))
			continue;
		return e;
	}
	return NULL;
}

static int merge_api(json_t *report, json_t *api, char *why, size_t n)
{
	size_t i;
	json_t *f;
	json_array_foreach(api, i, f) {
		json_t *d = find(json_object_get(report, "api"), f, "function", "layer");
		if (!d) {
			json_array_append_new(json_object_get(report, "api"), json_deep_copy(f));
			continue;
		}
		char where[320];
		snprintf(where, sizeof where, "api row %zu (%.200s)", i, json_string_value(json_object_get(f, "function")));
		const char *key;
		json_t *v;
		json_object_foreach(f, key, v)
			if (strcmp(key, "function") && strcmp(key, "layer") && combine(d, key, v, where, why, n))
				return -1;
	}
	return 0;
}

static int merge_devices(json_t *report, json_t *devices, char *why, size_t n)
{
	size_t i;
	json_t *dev;
	json_array_foreach(devices, i, dev) {
		json_t *d = find(json_object_get(report, "devices"), dev, "device", NULL);
		if (!d) {
			d = json_pack("{s:O, s:{}}", "device", json_object_get(dev, "device"), "events");
			json_array_append_new(json_object_get(report, "devices"), d);
		}
		char where[64];
		snprintf(where, sizeof where, "devices row %zu (device %lld)", i, cupti_cb_run_int(dev, "device"));
		if (combine_all(json_object_get(d, "events"), json_object_get(dev, "events"), where, why, n))
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
static int merge_metric(json_t *d, json_t *m, const char *where, char *why, size_t n)
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
		json_object_set_new(d, "min", extreme(json_object_get(d, "min"), lo ? lo : b, 0));
		json_object_set_new(d, "max", extreme(json_object_get(d, "max"), hi ? hi : b, 1));
	}
	if (!r) {
		snprintf(why, n, "%s: \"value\": the sum over the files is too large for a number", where);
		return -1;
	}
	json_object_set_new(d, "value", r);
	json_object_set_new(d, "processes", json_integer(nt));
	return 0;
}

static int merge_metrics(json_t *report, json_t *metrics, char *why, size_t n)
{
	size_t i;
	json_t *m;
	json_array_foreach(metrics, i, m) {
		json_t *d = find(json_object_get(report, "metrics"), m, "name", "device");
		char where[320];
		snprintf(where, sizeof where, "metrics row %zu (%.200s)", i, json_string_value(json_object_get(m, "name")));
		if (d) {
			if (merge_metric(d, m, where, why, n))
				return -1;
			continue;
		}
		d = json_deep_copy(m);
		if (!json_object_get(d, "processes"))
			json_object_set_new(d, "processes", json_integer(1));
		if (cupti_cb_run_metric_how(json_string_value(json_object_get(d, "name"))) == CUPTI_CB_RUN_MEAN) {
			json_t *v = json_object_get(d, "value");
			if (!json_object_get(d, "min"))
				json_object_set(d, "min", v);
			if (!json_object_get(d, "max"))
				json_object_set(d, "max", v);
		}
		json_array_append_new(json_object_get(report, "metrics"), d);
	}
	return 0;
}

static void merge_notes(json_t *report, json_t *notes)
{
	size_t i, j;
	json_t *n, *have;
	json_array_foreach(notes, i, n) {
		int seen = 0;
		json_array_foreach(json_object_get(report, "notes"), j, have)
			seen |= json_equal(have, n);
		if (!seen && json_is_string(n))
			json_array_append(json_object_get(report, "notes"), n);
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

/* doc merged into report (which is left as it was when doc is refused). */
static int merge_into(json_t *report, json_t *doc, char *why, size_t n)
{
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
	if (combine_all(json_object_get(report, "totals"), json_object_get(doc, "totals"), "\"totals\"", why, n) ||
	    merge_api(report, json_object_get(doc, "api"), why, n) ||
	    merge_devices(report, json_object_get(doc, "devices"), why, n) ||
	    merge_metrics(report, json_object_get(doc, "metrics"), why, n))
		return -1;
	merge_notes(report, json_object_get(doc, "notes"));
	cupti_cb_run_merge_threads(report, doc);
	return 0;
}

int cupti_cb_run_merge(json_t *report, json_t *doc, char *why, size_t n)
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
	/* Into a copy first: a sum that does not fit refuses the whole file. */
	json_t *trial = json_deep_copy(report);
	if (!trial) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	if (merge_into(trial, doc, why, n)) {
		json_decref(trial);
		return -1;
	}
	json_object_clear(report);
	json_object_update(report, trial);
	json_decref(trial);
	return 0;
}

json_t *cupti_cb_run_load(const char *path, char *why, size_t n)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	if (!doc)
		snprintf(why, n, "%s (line %d)", err.text, err.line);
	else if (!json_is_object(doc)) {
		snprintf(why, n, "not a JSON object");
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

static int is_proc_file(const char *name)
{
	return !strncmp(name, "proc-", 5) && ends_with(name, ".json");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	/* proc-<pid>.json: by pid, so that the report lists processes in order. */
	long pa = atol((*a)->d_name + 5), pb = atol((*b)->d_name + 5);
	return pa < pb ? -1 : pa > pb ? 1 : strcmp((*a)->d_name, (*b)->d_name);
}

static int select_proc(const struct dirent *d)
{
	return is_proc_file(d->d_name);
}

int cupti_cb_run_merge_dir(json_t *report, const char *dir, FILE *err)
{
	struct dirent **names;
	int n = scandir(dir, &names, select_proc, by_name), merged = 0;
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char path[4096], why[512];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		json_t *doc = cupti_cb_run_load(path, why, sizeof why);
		if (doc && !cupti_cb_run_merge(report, doc, why, sizeof why))
			merged++;
		else
			fprintf(err, "cupti_cb_run: %s is left out: %s\n", names[i]->d_name, why);
		json_decref(doc);
		free(names[i]);
	}
	free(names);
	return merged;
}
