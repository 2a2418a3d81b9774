/* cupti_cb_run_check.c: what a process file or a report must be before
 * anything reads it.
 *
 * Every reader of the report (the merge, the tables, the CSV, --compare,
 * --report) takes a function name, a metric name, a device number or a
 * count for what the schema says it is. A file written by hand, cut short
 * by a full disk or edited by a script can break that promise, so each
 * file is checked once, whole, before it is merged: a file that fails is
 * refused with a sentence that names the row and the field, and the
 * readers never see it (exit status 2 for --compare and --report).
 *
 * A count (calls, times, bytes, launches...) is a JSON integer >= 0: a
 * negative one is not a measurement (and a negative baseline would never
 * regress), and a real, a string or a boolean is not a count. Sums over
 * files that would not fit in 64 bits are refused by the merge. */
#include <math.h>
#include <string.h>

#include "cupti_cb_run.h"

#define BAD(...) (snprintf(why, n, __VA_ARGS__), -1)

static const char *type_of(json_t *v)
{
	if (!v)
		return "missing";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return json_integer_value(v) < 0 ? "negative" : "an integer";
	case JSON_REAL: return json_real_value(v) < 0 ? "negative" : "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static int is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* Every member of obj a count; where says whose they are. */
static int counts(json_t *obj, const char *where, const char *skip1, const char *skip2, char *why, size_t n)
{
	const char *key;
	json_t *v;
	if (!json_is_object(obj))
		return BAD("%s is %s, not an object", where, type_of(obj));
	json_object_foreach(obj, key, v) {
		if ((skip1 && !strcmp(key, skip1)) || (skip2 && !strcmp(key, skip2)))
			continue;
		if (!is_count(v))
			return BAD("%s: \"%s\" is %s, not a count (an integer >= 0)", where, key, type_of(v));
	}
	return 0;
}

/* An optional member: absent, or of the kind check says. */
#define OPTIONAL(obj, key, test) (!json_object_get(obj, key) || (test)(json_object_get(obj, key)))
/* The same, or null: the runner writes null for what a process file lacked. */
#define NULLABLE(obj, key, test) (json_is_null(json_object_get(obj, key)) || OPTIONAL(obj, key, test))

/* jansson's json_is_* are macros: OPTIONAL needs functions. */
static int is_bool(json_t *v)
{
	return json_is_boolean(v);
}

static int is_int(json_t *v)
{
	return json_is_integer(v);
}

static int is_string(json_t *v)
{
	return json_is_string(v);
}

static int is_string_or_null(json_t *v)
{
	return json_is_string(v) || json_is_null(v);
}

static int is_strings(json_t *v)
{
	size_t i;
	json_t *s;
	if (!json_is_array(v))
		return 0;
	json_array_foreach(v, i, s)
		if (!json_is_string(s))
			return 0;
	return 1;
}

static int is_int_or_null(json_t *v)
{
	return json_is_integer(v) || json_is_null(v);
}

static int check_status(json_t *st, const char *where, char *why, size_t n)
{
	if (!json_is_object(st))
		return BAD("%s \"status\" is %s, not an object", where, type_of(st));
	if (!OPTIONAL(st, "counting", is_bool))
		return BAD("%s \"status\": \"counting\" is not true or false", where);
	if (!OPTIONAL(st, "reason", is_string_or_null))
		return BAD("%s \"status\": \"reason\" is not a sentence or null", where);
	if (!OPTIONAL(st, "final", is_bool))
		return BAD("%s \"status\": \"final\" is not true or false", where);
	return 0;
}

/* The counts a process published before it ended without its file. */
static int check_partial(json_t *p, const char *where, char *why, size_t n)
{
	char w[96];
	if (!json_is_object(p))
		return BAD("%s \"partial\" is %s, not an object", where, type_of(p));
	if (!is_count(json_object_get(p, "at_ns")))
		return BAD("%s \"partial\": \"at_ns\" is not a count (an integer >= 0)", where);
	snprintf(w, sizeof w, "%s \"partial\" \"events\"", where);
	return counts(json_object_get(p, "events"), w, NULL, NULL, why, n);
}

/* One entry of "processes", or "process". */
static int check_process(json_t *p, const char *where, char *why, size_t n)
{
	if (!json_is_object(p))
		return BAD("%s is %s, not an object", where, type_of(p));
	if (!NULLABLE(p, "pid", is_int) || !NULLABLE(p, "rank", is_int))
		return BAD("%s: \"pid\" or \"rank\" is not an integer", where);
	if (!NULLABLE(p, "wall_ns", is_count))
		return BAD("%s: \"wall_ns\" is not a count (an integer >= 0)", where);
	if (!NULLABLE(p, "argv", is_strings))
		return BAD("%s: \"argv\" is not an array of strings", where);
	if (!NULLABLE(p, "host", is_string))
		return BAD("%s: \"host\" is not a string", where);
	json_t *part = json_object_get(p, "partial");
	if (part && !json_is_null(part) && check_partial(part, where, why, n))
		return -1;
	/* The runner writes null for a process whose file had no status. */
	if (json_object_get(p, "status") && !json_is_null(json_object_get(p, "status")))
		return check_status(json_object_get(p, "status"), where, why, n);
	return 0;
}

static int check_api(json_t *api, char *why, size_t n)
{
	size_t i;
	json_t *f;
	char where[320];
	json_array_foreach(api, i, f) {
		const char *name = json_string_value(json_object_get(f, "function"));
		if (!json_is_object(f))
			return BAD("api row %zu is %s, not an object", i, type_of(f));
		if (!name || !*name)
			return BAD("api row %zu has no \"function\" (a CUDA function's name)", i);
		if (!json_is_string(json_object_get(f, "layer")))
			return BAD("api row %zu (%.200s) has no \"layer\" (runtime or driver)", i, name);
		snprintf(where, sizeof where, "api row %zu (%.200s)", i, name);
		if (counts(f, where, "function", "layer", why, n))
			return -1;
	}
	return 0;
}

static int check_devices(json_t *devices, char *why, size_t n)
{
	size_t i;
	json_t *d;
	char where[64];
	json_array_foreach(devices, i, d) {
		if (!json_is_object(d))
			return BAD("devices row %zu is %s, not an object", i, type_of(d));
		if (!is_count(json_object_get(d, "device")))
			return BAD("devices row %zu has no \"device\" (a device number >= 0)", i);
		snprintf(where, sizeof where, "devices row %zu (device %lld) \"events\"", i,
			 (long long)json_integer_value(json_object_get(d, "device")));
		if (counts(json_object_get(d, "events"), where, NULL, NULL, why, n))
			return -1;
	}
	return 0;
}

static int is_measure(json_t *v)
{
	return is_count(v) || (json_is_real(v) && isfinite(json_real_value(v)) && json_real_value(v) >= 0);
}

static int is_processes(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 1;
}

static int check_metrics(json_t *metrics, char *why, size_t n)
{
	size_t i;
	json_t *m;
	json_array_foreach(metrics, i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		if (!json_is_object(m))
			return BAD("metrics row %zu is %s, not an object", i, type_of(m));
		if (!name || !*name)
			return BAD("metrics row %zu has no \"name\" (a metric's name)", i);
		if (!is_count(json_object_get(m, "device")))
			return BAD("metrics row %zu (%.200s) has no \"device\" (a device number >= 0)", i, name);
		if (!is_measure(json_object_get(m, "value")))
			return BAD("metrics row %zu (%.200s): \"value\" is %s, not a number >= 0", i, name,
				   json_object_get(m, "value") ? type_of(json_object_get(m, "value")) : "missing");
		if (!OPTIONAL(m, "min", is_measure) || !OPTIONAL(m, "max", is_measure))
			return BAD("metrics row %zu (%.200s): \"min\" or \"max\" is not a number >= 0", i, name);
		if (!OPTIONAL(m, "units", is_string))
			return BAD("metrics row %zu (%.200s): \"units\" is not a string", i, name);
		if (!OPTIONAL(m, "processes", is_processes))
			return BAD("metrics row %zu (%.200s): \"processes\" is not a number of processes (>= 1)", i,
				   name);
	}
	return 0;
}

static int check_threads(json_t *threads, char *why, size_t n)
{
	size_t i;
	json_t *t;
	char where[64];
	json_array_foreach(threads, i, t) {
		if (!json_is_object(t))
			return BAD("threads row %zu is %s, not an object", i, type_of(t));
		snprintf(where, sizeof where, "threads row %zu \"events\"", i);
		if (json_object_get(t, "events") && counts(json_object_get(t, "events"), where, NULL, NULL, why, n))
			return -1;
		if (!OPTIONAL(t, "name", is_string))
			return BAD("threads row %zu: \"name\" is not a string", i);
	}
	return 0;
}

static int check_run(json_t *run, char *why, size_t n)
{
	if (!json_is_object(run))
		return BAD("\"run\" is %s, not an object", type_of(run));
	if (!OPTIONAL(run, "argv", is_strings))
		return BAD("\"run\": \"argv\" is not an array of strings");
	if (!OPTIONAL(run, "exit_status", is_int) || !OPTIONAL(run, "rank", is_int_or_null))
		return BAD("\"run\": \"exit_status\" or \"rank\" is not an integer");
	if (!OPTIONAL(run, "wall_ns", is_count))
		return BAD("\"run\": \"wall_ns\" is not a count (an integer >= 0)");
	return 0;
}

/* Each top-level array: absent, or an array. */
static int arrays(json_t *doc, char *why, size_t n)
{
	static const char *const keys[] = { "api", "devices", "metrics", "notes", "threads", "processes", NULL };
	for (int k = 0; keys[k]; k++) {
		json_t *v = json_object_get(doc, keys[k]);
		if (v && !json_is_array(v))
			return BAD("\"%s\" is %s, not an array", keys[k], type_of(v));
	}
	return 0;
}

int cupti_cb_run_check(json_t *doc, char *why, size_t n)
{
	size_t i;
	json_t *p;
	char where[64];
	if (arrays(doc, why, n))
		return -1;
	if (json_object_get(doc, "process") && check_process(json_object_get(doc, "process"), "\"process\"", why, n))
		return -1;
	json_array_foreach(json_object_get(doc, "processes"), i, p) {
		snprintf(where, sizeof where, "processes row %zu", i);
		if (check_process(p, where, why, n))
			return -1;
	}
	if (json_object_get(doc, "status") && check_status(json_object_get(doc, "status"), "the", why, n))
		return -1;
	/* Read as "the times were measured" unless it is false: a string would be misread. */
	if (!OPTIONAL(doc, "host_time", is_bool))
		return BAD("\"host_time\" is %s, not true or false", type_of(json_object_get(doc, "host_time")));
	if (json_object_get(doc, "partial") && check_partial(json_object_get(doc, "partial"), "the", why, n))
		return -1;
	/* A report's "run" is null until the runner knows the run. */
	if (json_object_get(doc, "run") && !json_is_null(json_object_get(doc, "run")) &&
	    check_run(json_object_get(doc, "run"), why, n))
		return -1;
	if (json_object_get(doc, "totals") && counts(json_object_get(doc, "totals"), "\"totals\"", NULL, NULL, why, n))
		return -1;
	if (check_api(json_object_get(doc, "api"), why, n) || check_devices(json_object_get(doc, "devices"), why, n) ||
	    check_metrics(json_object_get(doc, "metrics"), why, n) || check_threads(json_object_get(doc, "threads"), why, n))
		return -1;
	return 0;
}
