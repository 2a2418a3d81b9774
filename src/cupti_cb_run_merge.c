/* cupti_cb_run_merge.c: process files (and reports) merged into one report.
 *
 * Counts and times add up over processes; a minimum stays the smallest, a
 * maximum or a peak the largest (the peak of live memory of one process is
 * not added to another's: they are different address spaces, and the
 * report's peak answers "how much did one process need at most"). */
#include <dirent.h>
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

/* dst[key] combined with v, as key says. */
static void combine(json_t *dst, const char *key, json_t *v)
{
	if (!json_is_integer(v))
		return;
	long long b = json_integer_value(v);
	json_t *old = json_object_get(dst, key);
	if (!old) {
		json_object_set_new(dst, key, json_integer(b));
		return;
	}
	long long a = json_integer_value(old);
	switch (how_of(key)) {
	case SUM: a += b; break;
	case MIN: a = b < a ? b : a; break;
	case MAX: a = b > a ? b : a; break;
	}
	json_integer_set(old, a);
}

static void combine_all(json_t *dst, json_t *src)
{
	const char *key;
	json_t *v;
	json_object_foreach(src, key, v)
		combine(dst, key, v);
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

static void merge_api(json_t *report, json_t *api)
{
	size_t i;
	json_t *f;
	json_array_foreach(api, i, f) {
		json_t *d = find(json_object_get(report, "api"), f, "function", "layer");
		if (!d) {
			json_array_append_new(json_object_get(report, "api"), json_deep_copy(f));
			continue;
		}
		const char *key;
		json_t *v;
		json_object_foreach(f, key, v)
			if (strcmp(key, "function") && strcmp(key, "layer"))
				combine(d, key, v);
	}
}

static void merge_devices(json_t *report, json_t *devices)
{
	size_t i;
	json_t *dev;
	json_array_foreach(devices, i, dev) {
		json_t *d = find(json_object_get(report, "devices"), dev, "device", NULL);
		if (!d) {
			d = json_pack("{s:O, s:{}}", "device", json_object_get(dev, "device"), "events");
			json_array_append_new(json_object_get(report, "devices"), d);
		}
		combine_all(json_object_get(d, "events"), json_object_get(dev, "events"));
	}
}

static double number(json_t *v)
{
	return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

/* Hardware metrics: a .sum adds up over processes, a .max or .min stays
 * the extreme; any other (averages, ratios, percentages) is the mean over
 * the processes that measured it, which "processes" counts. */
static void merge_metric(json_t *d, json_t *m)
{
	const char *name = json_string_value(json_object_get(d, "name"));
	json_t *a = json_object_get(d, "value"), *b = json_object_get(m, "value");
	long long na = cupti_cb_run_int(d, "processes"), nb = cupti_cb_run_int(m, "processes");
	nb = nb ? nb : 1;
	json_t *r;
	if (strstr(name, ".sum") && json_is_integer(a) && json_is_integer(b))
		r = json_integer(json_integer_value(a) + json_integer_value(b));
	else if (strstr(name, ".sum"))
		r = json_real(number(a) + number(b));
	else if (strstr(name, ".max") || strstr(name, ".min")) {
		int take_b = strstr(name, ".max") ? number(b) > number(a) : number(b) < number(a);
		r = json_deep_copy(take_b ? b : a);
	} else
		r = json_real((number(a) * (double)na + number(b) * (double)nb) / (double)(na + nb));
	json_object_set_new(d, "value", r);
	json_object_set_new(d, "processes", json_integer(na + nb));
}

static void merge_metrics(json_t *report, json_t *metrics)
{
	size_t i;
	json_t *m;
	json_array_foreach(metrics, i, m) {
		json_t *d = find(json_object_get(report, "metrics"), m, "name", "device");
		if (d) {
			merge_metric(d, m);
			continue;
		}
		d = json_deep_copy(m);
		if (!json_object_get(d, "processes"))
			json_object_set_new(d, "processes", json_integer(1));
		json_array_append_new(json_object_get(report, "metrics"), d);
	}
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

static void add_process(json_t *report, json_t *p, json_t *status)
{
	json_t *e = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}", "pid", json_object_get(p, "pid"),
			      "host", json_object_get(p, "host"), "rank", json_object_get(p, "rank"),
			      "argv", json_object_get(p, "argv"), "wall_ns", json_object_get(p, "wall_ns"),
			      "status", status ? status : json_object_get(p, "status"));
	if (e)
		json_array_append_new(json_object_get(report, "processes"), e);
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
	if (json_is_object(proc))
		add_process(report, proc, json_object_get(doc, "status"));
	size_t i;
	json_t *p;
	json_array_foreach(procs, i, p)
		add_process(report, p, NULL);
	json_t *version = json_object_get(json_object_get(doc, "cupti_cb"), "version");
	json_t *ours = json_object_get(report, "cupti_cb");
	if (version && !json_object_get(ours, "version"))
		json_object_set(ours, "version", version);
	merge_status(report, json_object_get(doc, "status"));
	combine_all(json_object_get(report, "totals"), json_object_get(doc, "totals"));
	merge_api(report, json_object_get(doc, "api"));
	merge_devices(report, json_object_get(doc, "devices"));
	merge_metrics(report, json_object_get(doc, "metrics"));
	merge_notes(report, json_object_get(doc, "notes"));
	cupti_cb_run_merge_threads(report, doc);
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
