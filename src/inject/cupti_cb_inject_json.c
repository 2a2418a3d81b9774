/*
 * cupti_cb_inject_json.c: the process file, schema "cupti_cb_run/1" (src/runner/cupti_cb_run-contract.md),
 * written to a temporary name in CUPTI_CB_RUN_DIR and renamed to proc-<pid>.json, so that a
 * reader never sees half a file.
 *
 * When the process did not count (status.counting false), totals is {} and api, devices and
 * metrics are []: nothing was measured, which is not the same as zero.  "host_time": false says
 * that the host times were not measured (CUPTI_CB_RUN_TIME=0): their keys are absent, not 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cupti_cb_inject_clock.h"
#include "cupti_cb_inject_events.h"
#include "cupti_cb_inject_json.h"
#include "cupti_cb_inject_metrics.h"
#include "cupti_cb_inject_threads.h"

/* argv from /proc/self/cmdline: NUL-separated. */
static json_t *argv_array(void)
{
	json_t *a = json_array();
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (!f)
		return a;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getdelim(&buf, &cap, '\0', f)) > 0)
		json_array_append_new(a, json_stringn(buf, strnlen(buf, (size_t)n)));
	free(buf);
	fclose(f);
	return a;
}

/* The rank from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, in that order, or null. */
static json_t *rank_value(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };
	for (unsigned i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0)
				return json_integer(r);
		}
	}
	return json_null();
}

static json_t *process_object(const struct cupti_cb_inj *s)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		host[0] = '\0';
	json_t *p = json_object();
	json_object_set_new(p, "pid", json_integer(getpid()));
	json_object_set_new(p, "host", json_string(host));
	json_object_set_new(p, "rank", rank_value());
	json_object_set_new(p, "argv", argv_array());
	json_object_set_new(p, "wall_ns", json_integer(cupti_cb_inj_now_ns() - s->t0_ns));
	return p;
}

static const char *layer(const char *f)
{
	return !strncmp(f, "cuda", 4) || !strncmp(f, "__cuda", 6) ? "runtime" : "driver";
}

/* api[]: functions with calls > 0, in the set's order. */
static json_t *api_array(const struct cupti_cb_inj *s)
{
	json_t *a = json_array();
	json_t *row = NULL;
	int row_func = -1, row_calls = 0;
	for (int i = 0; i <= s->n_slots; i++) {
		const struct cupti_cb_inj_slot *sl = i < s->n_slots ? &s->slots[i] : NULL;
		int func = sl && sl->kind == CUPTI_CB_INJ_FUNC ? sl->func : -1;
		if (row && func != row_func) {
			if (row_calls)
				json_array_append(a, row);
			json_decref(row);
			row = NULL;
		}
		if (func < 0)
			continue;
		if (!row) {
			row = json_object();
			row_func = func;
			row_calls = 0;
			json_object_set_new(row, "function", json_string(s->funcs[func]));
			json_object_set_new(row, "layer", json_string(layer(s->funcs[func])));
		}
		json_object_set_new(row, cupti_cb_inj_func_keys[sl->field], json_integer(s->values[i]));
		if (sl->field == 0 && s->values[i] > 0)
			row_calls = 1;
	}
	return a;
}

static json_t *devices_array(const struct cupti_cb_inj *s)
{
	json_t *a = json_array();
	for (int d = 0; d < s->n_devices; d++) {
		json_t *ev = json_object();
		for (int i = 0; i < s->n_slots; i++) {
			const struct cupti_cb_inj_slot *sl = &s->slots[i];
			if (sl->kind == CUPTI_CB_INJ_DEVICE && sl->device == d)
				json_object_set_new(ev, cupti_cb_inj_dev_events[sl->field], json_integer(s->values[i]));
		}
		json_t *o = json_object();
		json_object_set_new(o, "device", json_integer(d));
		json_object_set_new(o, "events", ev);
		json_array_append_new(a, o);
	}
	return a;
}

/* metrics[]: those cupti_cb_inject_metrics.c collected. */
static json_t *metrics_array(void)
{
	json_t *a = json_array();
	const struct cupti_cb_inj_metric *m;
	int n = cupti_cb_inj_metrics_results(&m);
	for (int i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(m[i].name));
		json_object_set_new(o, "device", json_integer(m[i].device));
		if (m[i].fp64) {
			double v;
			memcpy(&v, &m[i].value, sizeof v);
			json_object_set_new(o, "value", json_real(v));
		} else {
			json_object_set_new(o, "value", json_integer(m[i].value));
		}
		json_object_set_new(o, "units", json_string(m[i].units));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *document(const struct cupti_cb_inj *s)
{
	json_t *doc = json_object(), *version = json_object(), *status = json_object();
	json_t *totals = json_object(), *notes = json_array();
	json_object_set_new(doc, "schema", json_string("cupti_cb_run/1"));
	json_object_set_new(version, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(doc, "cupti_cb", version);
	json_object_set_new(doc, "process", process_object(s));
	json_object_set_new(status, "counting", json_boolean(s->counting));
	json_object_set_new(status, "reason", s->counting ? json_null() : json_string(s->reason));
	json_object_set_new(doc, "status", status);
	json_object_set_new(doc, "host_time", json_boolean(s->host_time));
	for (int i = 0; s->counting && i < s->n_slots; i++)
		if (s->slots[i].kind == CUPTI_CB_INJ_TOTAL)
			json_object_set_new(totals, cupti_cb_inj_totals[s->slots[i].field], json_integer(s->values[i]));
	json_object_set_new(doc, "totals", totals);
	json_object_set_new(doc, "api", s->counting ? api_array(s) : json_array());
	json_object_set_new(doc, "devices", s->counting ? devices_array(s) : json_array());
	json_object_set_new(doc, "metrics", s->counting ? metrics_array() : json_array());
	json_t *threads = s->counting ? cupti_cb_inj_threads_json(s) : NULL;
	if (threads)
		json_object_set_new(doc, "threads", threads);
	for (int i = 0; i < s->n_notes; i++)
		json_array_append_new(notes, json_string(s->notes[i]));
	json_object_set_new(doc, "notes", notes);
	return doc;
}

/* The file that stands until the exit handler replaces it (see cupti_cb_inj_write_partial). */
static json_t *partial_document(const struct cupti_cb_inj *s, const char *const *names, const long long *v, int n,
				long long at_ns)
{
	json_t *doc = json_object(), *version = json_object();
	json_object_set_new(doc, "schema", json_string("cupti_cb_run/1"));
	json_object_set_new(version, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(doc, "cupti_cb", version);
	json_t *p = process_object(s);
	json_object_set_new(p, "wall_ns", json_integer(at_ns));
	json_object_set_new(doc, "process", p);
	json_object_set_new(doc, "status", json_pack("{s:b, s:b, s:s}", "counting", 0, "final", 0, "reason",
						     "no exit handler ran (a killing signal, _exit or quick_exit)"));
	json_object_set_new(doc, "host_time", json_boolean(s->host_time));
	json_object_set_new(doc, "totals", json_object());
	json_object_set_new(doc, "api", json_array());
	json_object_set_new(doc, "devices", json_array());
	json_object_set_new(doc, "metrics", json_array());
	json_object_set_new(doc, "notes", json_array());
	if (names) {
		json_t *ev = json_object();
		for (int i = 0; i < n; i++)
			json_object_set_new(ev, names[i], json_integer(v[i]));
		json_object_set_new(doc, "partial", json_pack("{s:I, s:o}", "at_ns", (json_int_t)at_ns, "events", ev));
	}
	return doc;
}

/* doc to <run_dir>/proc-<pid>.json through a temporary name. */
static int put(const struct cupti_cb_inj *s, json_t *doc)
{
	if (!s->run_dir) {
		json_decref(doc);
		errno = EINVAL;
		return -1;
	}
	char tmp[4096], final[4096];
	int pid = (int)getpid();
	if (snprintf(tmp, sizeof tmp, "%s/.proc-%d.json.tmp", s->run_dir, pid) >= (int)sizeof tmp ||
	    snprintf(final, sizeof final, "%s/proc-%d.json", s->run_dir, pid) >= (int)sizeof final) {
		json_decref(doc);
		errno = ENAMETOOLONG;
		return -1;
	}
	int rc = json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc != 0) {
		unlink(tmp);
		if (!errno)
			errno = EIO;
		return -1;
	}
	if (rename(tmp, final) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int cupti_cb_inj_write(const struct cupti_cb_inj *s)
{
	return put(s, document(s));
}

int cupti_cb_inj_write_partial(const struct cupti_cb_inj *s, const char *const *names, const long long *values,
			       int n, long long at_ns)
{
	return put(s, partial_document(s, names, values, n, at_ns));
}
