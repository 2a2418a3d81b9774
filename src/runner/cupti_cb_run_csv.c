/* cupti_cb_run_csv.c: the report as CSV, one row per quantity, so that a
 * spreadsheet, pandas or awk can load it without knowing the JSON:
 *
 *   section,name,device,value,unit
 *
 * section: run (exit_status, wall_ns, processes, and host_time 1 or 0 when
 * the report says whether host times were measured: 0 after --no-time, and
 * then no time row is there), totals, runtime_api, driver_api, device, metric, thread;
 * name: the cupti_cb event name (api rows: FUNCTION.FIELD; thread rows:
 * PID:TID:EVENT, PID:TID:exited and :shared (0 or 1), and PID:TID:name, whose
 * unit column holds the thread's name); device: empty
 * when the quantity is not per device; value: an integer in full, or a real
 * for some hardware metrics. */
#include <string.h>

#include "cupti_cb_run.h"

/* A field quoted only when it needs it (RFC 4180). */
static void field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void row(FILE *f, const char *section, const char *name, json_t *device, json_t *v, const char *unit)
{
	fprintf(f, "%s,", section);
	field(f, name);
	fputc(',', f);
	if (json_is_integer(device))
		fprintf(f, "%lld", (long long)json_integer_value(device));
	if (json_is_integer(v))
		fprintf(f, ",%lld,", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, ",%.17g,", json_real_value(v));
	else
		fprintf(f, ",,");
	field(f, unit ? unit : "");
	fputc('\n', f);
}

static void api_rows(FILE *f, json_t *report)
{
	static const char *const fields[] = { "calls", "time_ns", "min_ns", "max_ns", "errors", NULL };
	size_t i;
	json_t *fn;
	json_array_foreach(json_object_get(report, "api"), i, fn) {
		const char *layer = json_string_value(json_object_get(fn, "layer"));
		const char *section = layer && !strcmp(layer, "driver") ? "driver_api" : "runtime_api";
		for (int k = 0; fields[k]; k++) {
			char name[256];
			snprintf(name, sizeof name, "%s.%s", json_string_value(json_object_get(fn, "function")),
				 fields[k]);
			json_t *v = json_object_get(fn, fields[k]);
			if (v)
				row(f, section, name, NULL, v, cupti_cb_run_unit(fields[k]));
		}
	}
}

void cupti_cb_run_print_csv(FILE *f, json_t *report)
{
	json_t *run = json_object_get(report, "run"), *v, *d, *m;
	const char *key;
	size_t i;
	fprintf(f, "section,name,device,value,unit\n");
	row(f, "run", "exit_status", NULL, json_object_get(run, "exit_status"), "");
	row(f, "run", "wall_ns", NULL, json_object_get(run, "wall_ns"), "ns");
	json_t *np = json_integer((json_int_t)json_array_size(json_object_get(report, "processes")));
	row(f, "run", "processes", NULL, np, "processes");
	json_decref(np);
	if (json_is_boolean(json_object_get(report, "host_time"))) {
		json_t *ht = json_integer(cupti_cb_run_host_time(report));
		row(f, "run", "host_time", NULL, ht, "");
		json_decref(ht);
	}
	json_object_foreach(json_object_get(report, "totals"), key, v)
		row(f, "totals", key, NULL, v, cupti_cb_run_unit(key));
	api_rows(f, report);
	json_array_foreach(json_object_get(report, "devices"), i, d)
		json_object_foreach(json_object_get(d, "events"), key, v)
			row(f, "device", key, json_object_get(d, "device"), v, cupti_cb_run_unit(key));
	json_array_foreach(json_object_get(report, "metrics"), i, m)
		row(f, "metric", json_string_value(json_object_get(m, "name")), json_object_get(m, "device"),
		    json_object_get(m, "value"), json_string_value(json_object_get(m, "units")));
	cupti_cb_run_threads_csv(f, report, row);
}
