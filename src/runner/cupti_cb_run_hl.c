/* cupti_cb_run_hl.c: --hl-output DIR writes what PAPI's high-level API
 * writes at exit (src/high-level/papi_hl.c), so that the tools made for it
 * (papi_hl_output_writer.py) aggregate cupti_cb_run's ranks too:
 *
 *   DIR/rank_NNNNNN.json   (the MPI rank; outside MPI the pid, mod 10^6)
 *   { "papi_version": "7.0.0.0",
 *     "event_definitions": { "cupti_cb:::api.calls": {"component": "cupti_cb", "type": "delta"}, ... },
 *     "threads": { "0": { "regions": { "0": {
 *         "name": "cupti_cb_run", "parent_region_id": "-1",
 *         "cycles": "0", "real_time_nsec": "<wall ns>",
 *         "cupti_cb:::api.calls": "<value>", ... } } } } }
 *
 * Values are decimal strings, as papi_hl.c prints them. The whole run is
 * one region of one thread. The writer takes the event definitions from the
 * first file it reads and looks up every other file's events there, so
 * every rank defines the same fixed list: the totals and every per-device
 * event of the process file, summed over devices. Per-function counts and
 * hardware metrics (a list that differs between ranks) are left out. A
 * quantity the report does not have (api.time_ns after --no-time) is
 * defined but has no value: it was not measured, which is not 0. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cupti_cb_run.h"

#ifndef CUPTI_CB_RUN_PAPI_VERSION
#define CUPTI_CB_RUN_PAPI_VERSION "7.0.0.0"
#endif

static const char *const totals[] = { "api.calls", "api.time_ns", "api.errors", NULL };

static void define(json_t *defs, const char *ev, const char *type)
{
	char name[160];
	snprintf(name, sizeof name, "cupti_cb:::%s", ev);
	json_object_set_new(defs, name, json_pack("{s:s, s:s}", "component", "cupti_cb", "type", type));
}

static void value(json_t *region, const char *ev, long long v)
{
	char name[160], num[32];
	snprintf(name, sizeof name, "cupti_cb:::%s", ev);
	snprintf(num, sizeof num, "%lld", v);
	json_object_set_new(region, name, json_string(num));
}

static json_t *hl_doc(json_t *report)
{
	json_t *defs = json_object(), *region = json_object();
	char wall[32];
	snprintf(wall, sizeof wall, "%lld", cupti_cb_run_int(json_object_get(report, "run"), "wall_ns"));
	json_object_set_new(region, "name", json_string("cupti_cb_run"));
	json_object_set_new(region, "parent_region_id", json_string("-1"));
	json_object_set_new(region, "cycles", json_string("0"));
	json_object_set_new(region, "real_time_nsec", json_string(wall));
	for (int i = 0; totals[i]; i++) {
		json_t *v = json_object_get(json_object_get(report, "totals"), totals[i]);
		define(defs, totals[i], "delta");
		if (json_is_integer(v))
			value(region, totals[i], json_integer_value(v));
	}
	for (int i = 0; cupti_cb_run_device_events[i]; i++) {
		const char *ev = cupti_cb_run_device_events[i];
		int present;
		long long v = cupti_cb_run_event_sum(report, ev, &present);
		define(defs, ev, strstr(ev, "peak") ? "instant" : "delta");
		if (present)
			value(region, ev, v);
	}
	return json_pack("{s:s, s:o, s:{s:{s:{s:o}}}}", "papi_version", CUPTI_CB_RUN_PAPI_VERSION,
			 "event_definitions", defs, "threads", "0", "regions", "0", region);
}

int cupti_cb_run_hl_dir(const char *dir, char *why, size_t n)
{
	struct stat st;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(why, n, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, n, "%s is not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(why, n, "cannot write into %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int cupti_cb_run_write_hl(const char *dir, json_t *report, int rank, char *why, size_t n)
{
	char path[4096];
	if (cupti_cb_run_hl_dir(dir, why, n))
		return -1;
	snprintf(path, sizeof path, "%s/rank_%06d.json", dir, rank >= 0 ? rank : (int)(getpid() % 1000000));
	json_t *doc = hl_doc(report);
	int rc = json_dump_file(doc, path, JSON_INDENT(2));
	json_decref(doc);
	if (rc) {
		snprintf(why, n, "cannot write %s", path);
		return -1;
	}
	return 0;
}
