/* cupti_cb_run_quant.c: quantities read from a report, shared by the
 * tables, the CSV, the comparison and the rank summary. */
#include <limits.h>
#include <string.h>

#include "cupti_cb_run.h"

long long cupti_cb_run_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

long long cupti_cb_run_add(long long a, long long b)
{
	long long s;
	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? LLONG_MAX : LLONG_MIN;
	return s;
}

long long cupti_cb_run_event_sum(json_t *report, const char *key, int *present)
{
	size_t i;
	json_t *d;
	long long sum = 0;
	int any = 0;
	json_array_foreach(json_object_get(report, "devices"), i, d) {
		json_t *v = json_object_get(json_object_get(d, "events"), key);
		if (json_is_integer(v)) {
			sum = cupti_cb_run_add(sum, json_integer_value(v));
			any = 1;
		}
	}
	if (present)
		*present = any;
	return sum;
}

long long cupti_cb_run_wall_sum(json_t *report)
{
	size_t i;
	json_t *p;
	long long sum = 0;
	json_array_foreach(json_object_get(report, "processes"), i, p)
		sum = cupti_cb_run_add(sum, cupti_cb_run_int(p, "wall_ns"));
	return sum;
}

int cupti_cb_run_host_time(json_t *report)
{
	return !json_is_false(json_object_get(report, "host_time"));
}

int cupti_cb_run_is_host_time(const char *key)
{
	/* gpu.*_time_ns are the GPU's own times, from CUPTI's activity records. */
	return strncmp(key, "gpu.", 4) && (strstr(key, "time_ns") || !strcmp(key, "min_ns") || !strcmp(key, "max_ns"));
}

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* The unit of an event or a per-function field, from its name. */
const char *cupti_cb_run_unit(const char *key)
{
	if (has(key, "_ns"))
		return "ns";
	if (has(key, "bytes"))
		return "bytes";
	if (has(key, "threads"))
		return "threads";
	if (has(key, "launches"))
		return "launches";
	if (has(key, "errors"))
		return "errors";
	if (has(key, "calls"))
		return "calls";
	return "count";
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

/* Only a counter's plain .sum (bytes, instructions, cycles) adds up: the
 * same name with a submetric after the rollup (.sum.per_second,
 * .sum.pct_of_peak_sustained_elapsed, .sum.peak_sustained) is a rate or a
 * percentage, and two ranks at 60% of peak are not at 120%. */
enum cupti_cb_run_how cupti_cb_run_metric_how(const char *name)
{
	if (ends_with(name, ".sum"))
		return CUPTI_CB_RUN_SUM;
	if (ends_with(name, ".max"))
		return CUPTI_CB_RUN_MAX;
	if (ends_with(name, ".min"))
		return CUPTI_CB_RUN_MIN;
	return CUPTI_CB_RUN_MEAN;
}

/* The per-device events of the process file, in the contract's order. */
const char *const cupti_cb_run_device_events[] = {
	"kernel.launches", "graph.launches", "memcpy.calls", "memcpy.bytes_htod", "memcpy.bytes_dtoh",
	"memcpy.bytes_dtod", "memcpy.bytes_htoh", "memcpy.bytes_peer", "memset.calls", "memset.bytes",
	"alloc.calls", "alloc.bytes", "free.calls", "free.bytes", "alloc.peak_bytes", "sync.calls",
	"sync.time_ns", "kernel.threads", "kernel.dyn_smem_bytes", "kernel.launches_legacy_stream",
	"kernel.launches_other_stream", "gpu.kernels", "gpu.kernel_time_ns", "gpu.memcpy.count",
	"gpu.memcpy.bytes_htod", "gpu.memcpy.bytes_dtoh", "gpu.memcpy.bytes_dtod", "gpu.memcpy.bytes_htoh",
	"gpu.memcpy.bytes_peer", "gpu.memcpy.time_ns", "gpu.memset.count", "gpu.memset.bytes",
	"gpu.memset.time_ns", "gpu.busy_ns", NULL,
};
