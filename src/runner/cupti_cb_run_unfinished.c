/* cupti_cb_run_unfinished.c: processes whose counts are not (all) in the
 * report, said plainly.
 *
 * A process that did not count has a reason in its file. A process that
 * made CUDA calls and then ended without running its exit handlers (a
 * crash, a kill, _exit or quick_exit) could not write its counts: the file
 * it left is the one the injected library writes at its first CUDA call
 * and rewrites at every tick of --interval ("final": false, and "partial":
 * the counts of the last tick). Without it the process looked as if it
 * had made no CUDA call. The runner knows how its own child ended, and
 * says so. */
#define _GNU_SOURCE
#include <string.h>

#include "cupti_cb_run.h"

static int unfinished(json_t *p)
{
	return json_is_false(json_object_get(json_object_get(p, "status"), "final"));
}

void cupti_cb_run_explain_unfinished(json_t *report, long pid, int sig, int code)
{
	size_t i;
	json_t *p, *top = json_object_get(report, "status");
	char why[256];
	json_array_foreach(json_object_get(report, "processes"), i, p) {
		json_t *st = json_object_get(p, "status");
		if (!unfinished(p))
			continue;
		if (cupti_cb_run_int(p, "pid") == pid && sig)
			snprintf(why, sizeof why, "it was killed by signal %d (%s)", sig, strsignal(sig));
		else if (cupti_cb_run_int(p, "pid") == pid)
			snprintf(why, sizeof why, "it ended with _exit or quick_exit (exit status %d), which run "
				 "no exit handler", code);
		else
			continue;
		json_object_set_new(st, "reason", json_string(why));
	}
	/* The report's own reason is the first one of a process that did not count. */
	json_array_foreach(json_object_get(report, "processes"), i, p) {
		json_t *st = json_object_get(p, "status");
		if (json_is_false(json_object_get(st, "counting")) && json_is_string(json_object_get(st, "reason"))) {
			json_object_set(top, "reason", json_object_get(st, "reason"));
			break;
		}
	}
}

/* "api.calls=21 kernel.launches=7 ..." of what the process published. */
static void published(FILE *f, json_t *partial)
{
	const char *key;
	json_t *v;
	fprintf(f, " (%.1f s after its first CUDA call):", (double)cupti_cb_run_int(partial, "at_ns") / 1e9);
	json_object_foreach(json_object_get(partial, "events"), key, v)
		fprintf(f, " %s=%lld", key, (long long)json_integer_value(v));
	fputc('\n', f);
}

void cupti_cb_run_print_process_status(FILE *f, json_t *report, const char *prefix)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(report, "processes"), i, p) {
		json_t *st = json_object_get(p, "status"), *partial = json_object_get(p, "partial");
		const char *why = json_string_value(json_object_get(st, "reason")) ?: "no reason given";
		long long pid = cupti_cb_run_int(p, "pid");
		if (unfinished(p)) {
			fprintf(f, "%s process %lld made CUDA calls but ended before it wrote its counts: %s\n", prefix,
				pid, why);
			if (json_is_object(partial)) {
				fprintf(f, "%s process %lld: its last published counts", prefix, pid);
				published(f, partial);
			} else
				fprintf(f, "%s process %lld: what it did is unknown (--interval T publishes the counts "
					   "every T, and the last ones are kept)\n", prefix, pid);
		} else if (json_is_false(json_object_get(st, "counting")))
			fprintf(f, "%s process %lld did not count: %s\n", prefix, pid, why);
	}
}
