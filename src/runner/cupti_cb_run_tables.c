/* cupti_cb_run_tables.c: the text report, modelled on nsys stats'
 * cuda_api_sum, cuda_gpu_kern_sum and cuda_gpu_mem_*_sum: CUDA API calls per
 * layer, operations per device, what the GPU ran, hardware metrics. Numbers
 * are printed in full (no k/M rounding) so that they can be checked.
 *
 * A report without host times (--no-time: "host_time" false) says so once,
 * under the header, and its API tables have no time columns and are sorted
 * by calls: columns of "-" would only hide the counts, and zeros would look
 * like times. */
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

#define NUM 32

/* ---- CUDA API calls, one table per layer */

static int by_key(json_t *x, json_t *y, const char *key)
{
	long long tx = cupti_cb_run_int(x, key), ty = cupti_cb_run_int(y, key);
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "function")),
		      json_string_value(json_object_get(y, "function")));
}

static int by_time(const void *a, const void *b)
{
	return by_key(*(json_t *const *)a, *(json_t *const *)b, "time_ns");
}

static int by_calls(const void *a, const void *b)
{
	return by_key(*(json_t *const *)a, *(json_t *const *)b, "calls");
}

/* A field the installed cupti_cb does not offer is absent: "-", not 0. */
static void field(char *buf, json_t *f, const char *key)
{
	json_t *v = json_object_get(f, key);
	if (json_is_integer(v))
		snprintf(buf, NUM, "%lld", (long long)json_integer_value(v));
	else
		strcpy(buf, "-");
}

static void api_row(struct cupti_cb_run_tab *t, json_t *f, long long layer_ns)
{
	char c[7][NUM];
	long long ns = cupti_cb_run_int(f, "time_ns"), calls = cupti_cb_run_int(f, "calls");
	snprintf(c[0], NUM, "%.1f", layer_ns ? 100.0 * (double)ns / (double)layer_ns : 0.0);
	snprintf(c[1], NUM, "%lld", ns);
	snprintf(c[2], NUM, "%lld", calls);
	snprintf(c[3], NUM, "%.1f", calls ? (double)ns / (double)calls : 0.0);
	field(c[4], f, "min_ns");
	field(c[5], f, "max_ns");
	field(c[6], f, "errors");
	const char *cells[] = { c[0], c[1], c[2], c[3], c[4], c[5], c[6],
				json_string_value(json_object_get(f, "function")) };
	cupti_cb_run_tab_row(t, cells);
}

/* Without host times: calls, errors, name. */
static void counts_row(struct cupti_cb_run_tab *t, json_t *f)
{
	char c[2][NUM];
	field(c[0], f, "calls");
	field(c[1], f, "errors");
	const char *cells[] = { c[0], c[1], json_string_value(json_object_get(f, "function")) };
	cupti_cb_run_tab_row(t, cells);
}

static void api_table(FILE *out, json_t *report, const char *layer)
{
	static const char *const h[] = { "Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)",
					  "Min (ns)", "Max (ns)", "Errors", "Name" };
	static const char *const h_counts[] = { "Num Calls", "Errors", "Name" };
	int timed = cupti_cb_run_host_time(report);
	json_t *api = json_object_get(report, "api"), *f;
	size_t n = 0, i;
	long long layer_ns = 0;
	json_t **rows = calloc(json_array_size(api) + 1, sizeof *rows);
	if (!rows)
		abort();
	json_array_foreach(api, i, f)
		if (!strcmp(layer, json_string_value(json_object_get(f, "layer")) ?: "")) {
			rows[n++] = f;
			layer_ns = cupti_cb_run_add(layer_ns, cupti_cb_run_int(f, "time_ns"));
		}
	if (timed)
		fprintf(out, "\nCUDA %s API (%zu function%s; Time (%%) is within the %s layer)\n\n", layer, n,
			n == 1 ? "" : "s", layer);
	else
		fprintf(out, "\nCUDA %s API (%zu function%s, by calls)\n\n", layer, n, n == 1 ? "" : "s");
	if (!n) {
		fprintf(out, " no %s API call was counted\n", layer);
		free(rows);
		return;
	}
	qsort(rows, n, sizeof *rows, timed ? by_time : by_calls);
	struct cupti_cb_run_tab *t = timed ? cupti_cb_run_tab_new(8, h, "rrrrrrrl")
					   : cupti_cb_run_tab_new(3, h_counts, "rrl");
	for (i = 0; i < n; i++)
		if (timed)
			api_row(t, rows[i], layer_ns);
		else
			counts_row(t, rows[i]);
	cupti_cb_run_tab_print(out, t);
	cupti_cb_run_tab_free(t);
	free(rows);
}

/* ---- per-device tables: one row per quantity, one column per device */

struct row {
	const char *key, *label, *unit;
};

static const struct row ops_rows[] = {
	{ "kernel.launches", "kernel launches", "launches" },
	{ "kernel.launches_legacy_stream", "  on the legacy stream", "launches" },
	{ "kernel.launches_other_stream", "  on other streams", "launches" },
	{ "kernel.threads", "threads launched", "threads" },
	{ "kernel.dyn_smem_bytes", "dynamic shared memory", "bytes" },
	{ "graph.launches", "graph launches", "launches" },
	{ "memcpy.calls", "copies", "calls" },
	{ "memcpy.bytes_htod", "  bytes host to device", "bytes" },
	{ "memcpy.bytes_dtoh", "  bytes device to host", "bytes" },
	{ "memcpy.bytes_dtod", "  bytes device to device", "bytes" },
	{ "memcpy.bytes_htoh", "  bytes host to host", "bytes" },
	{ "memcpy.bytes_peer", "  bytes peer to peer", "bytes" },
	{ "memset.calls", "memsets", "calls" },
	{ "memset.bytes", "  bytes set", "bytes" },
	{ "alloc.calls", "allocations", "calls" },
	{ "alloc.bytes", "  bytes allocated", "bytes" },
	{ "free.calls", "frees", "calls" },
	{ "free.bytes", "  bytes freed", "bytes" },
	{ "alloc.peak_bytes", "peak live memory", "bytes" },
	{ "alloc.live_bytes", "live memory at exit", "bytes" },
	{ "sync.calls", "synchronizations", "calls" },
	{ "sync.time_ns", "  synchronization time", "ns" },
	{ NULL, NULL, NULL },
};

static const struct row gpu_rows[] = {
	{ "gpu.kernels", "kernels executed", "kernels" },
	{ "gpu.kernel_time_ns", "  kernel time", "ns" },
	{ "gpu.memcpy.count", "copies", "copies" },
	{ "gpu.memcpy.bytes_htod", "  bytes host to device", "bytes" },
	{ "gpu.memcpy.bytes_dtoh", "  bytes device to host", "bytes" },
	{ "gpu.memcpy.bytes_dtod", "  bytes device to device", "bytes" },
	{ "gpu.memcpy.bytes_htoh", "  bytes host to host", "bytes" },
	{ "gpu.memcpy.bytes_peer", "  bytes peer to peer", "bytes" },
	{ "gpu.memcpy.time_ns", "  copy time", "ns" },
	{ "gpu.memset.count", "memsets", "memsets" },
	{ "gpu.memset.bytes", "  bytes set", "bytes" },
	{ "gpu.memset.time_ns", "  memset time", "ns" },
	{ "gpu.busy_ns", "busy time", "ns" },
	{ NULL, NULL, NULL },
};

static int any_device_has(json_t *report, const char *key)
{
	int present;
	cupti_cb_run_event_sum(report, key, &present);
	return present;
}

/* Header cells: Operation, Unit, Device N... */
static struct cupti_cb_run_tab *device_tab(json_t *devices, const char *first)
{
	char heads[16][NUM], align[16];
	const char *h[16] = { first, "Unit" };
	size_t n = json_array_size(devices), i;
	json_t *d;
	if (n > 14)
		n = 14;
	memset(align, 'r', sizeof align);
	align[0] = align[1] = 'l';
	json_array_foreach(devices, i, d) {
		if (i >= n)
			break;
		snprintf(heads[i], NUM, "Device %lld", cupti_cb_run_int(d, "device"));
		h[2 + i] = heads[i];
	}
	return cupti_cb_run_tab_new((int)n + 2, h, align);
}

static void device_row(struct cupti_cb_run_tab *t, json_t *devices, const char *label,
		       const char *unit, const char *key)
{
	char vals[14][NUM];
	const char *cells[16] = { label, unit };
	size_t i;
	json_t *d;
	json_array_foreach(devices, i, d) {
		if (i >= 14)
			break;
		json_t *v = json_object_get(json_object_get(d, "events"), key);
		if (json_is_integer(v))
			snprintf(vals[i], NUM, "%lld", (long long)json_integer_value(v));
		else
			strcpy(vals[i], "-");
		cells[2 + i] = vals[i];
	}
	cupti_cb_run_tab_row(t, cells);
}

static int listed(const struct row *rows, const char *key)
{
	for (; rows->key; rows++)
		if (!strcmp(rows->key, key))
			return 1;
	return 0;
}

static void ops_table(FILE *out, json_t *report)
{
	json_t *devices = json_object_get(report, "devices");
	fprintf(out, "\nOperations per device (as the host issued them)\n\n");
	if (!json_array_size(devices)) {
		fprintf(out, " no device was used\n");
		return;
	}
	struct cupti_cb_run_tab *t = device_tab(devices, "Operation");
	int timed = cupti_cb_run_host_time(report);
	for (const struct row *r = ops_rows; r->key; r++)
		if (any_device_has(report, r->key) && (timed || !cupti_cb_run_is_host_time(r->key)))
			device_row(t, devices, r->label, r->unit, r->key);
	/* Events this program does not know yet still show, under their names. */
	json_t *first = json_object_get(json_array_get(devices, 0), "events"), *v;
	const char *key;
	json_object_foreach(first, key, v)
		if (strncmp(key, "gpu.", 4) && !listed(ops_rows, key) && (timed || !cupti_cb_run_is_host_time(key)))
			device_row(t, devices, key, cupti_cb_run_unit(key), key);
	cupti_cb_run_tab_print(out, t);
	cupti_cb_run_tab_free(t);
}

static void gpu_table(FILE *out, json_t *report)
{
	json_t *devices = json_object_get(report, "devices"), *d;
	int any = 0;
	for (const struct row *r = gpu_rows; r->key; r++)
		any |= any_device_has(report, r->key);
	if (!any)
		return;
	fprintf(out, "\nGPU activity per device (as the GPU ran it)\n\n");
	struct cupti_cb_run_tab *t = device_tab(devices, "Quantity");
	for (const struct row *r = gpu_rows; r->key; r++)
		if (any_device_has(report, r->key))
			device_row(t, devices, r->label, r->unit, r->key);
	long long wall = cupti_cb_run_wall_sum(report);
	if (any_device_has(report, "gpu.busy_ns") && wall > 0) {
		char vals[14][NUM];
		const char *cells[16] = { "utilization", "%" };
		size_t i;
		json_array_foreach(devices, i, d) {
			if (i >= 14)
				break;
			json_t *v = json_object_get(json_object_get(d, "events"), "gpu.busy_ns");
			if (json_is_integer(v))
				snprintf(vals[i], NUM, "%.1f", 100.0 * (double)json_integer_value(v) / (double)wall);
			else
				strcpy(vals[i], "-");
			cells[2 + i] = vals[i];
		}
		cupti_cb_run_tab_row(t, cells);
	}
	cupti_cb_run_tab_print(out, t);
	cupti_cb_run_tab_free(t);
	fprintf(out, " Utilization is busy time over the wall time of the process%s (%lld ns).\n",
		json_array_size(json_object_get(report, "processes")) > 1 ? "es, summed" : "", wall);
}

/* A metric in % has one decimal, as every percentage of the tables (a
 * value of 60.0 was printed "60"); any other as it was measured. */
static int is_percent(json_t *m)
{
	const char *units = json_string_value(json_object_get(m, "units"));
	return units && !strcmp(units, "%");
}

static void metric_number(char *buf, json_t *v, int percent)
{
	if (percent)
		snprintf(buf, NUM, "%.1f", json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v));
	else if (json_is_integer(v))
		snprintf(buf, NUM, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, NUM, "%.15g", json_real_value(v));
}

/* How the value stands for its processes (cupti_cb_run_metric_how): only a
 * .sum is a sum; a rate or a percentage is their mean, with its range. */
static void across(char *buf, size_t n, json_t *m)
{
	long long np = cupti_cb_run_int(m, "processes");
	char lo[NUM], hi[NUM];
	if (np <= 1) {
		snprintf(buf, n, "1 process");
		return;
	}
	switch (cupti_cb_run_metric_how(json_string_value(json_object_get(m, "name")))) {
	case CUPTI_CB_RUN_SUM: snprintf(buf, n, "sum of %lld", np); break;
	case CUPTI_CB_RUN_MAX: snprintf(buf, n, "max of %lld", np); break;
	case CUPTI_CB_RUN_MIN: snprintf(buf, n, "min of %lld", np); break;
	default:
		metric_number(lo, json_object_get(m, "min"), is_percent(m));
		metric_number(hi, json_object_get(m, "max"), is_percent(m));
		snprintf(buf, n, "mean of %lld (min %s, max %s)", np, lo, hi);
	}
}

static void metrics_table(FILE *out, json_t *report)
{
	static const char *const h[] = { "Metric", "Device", "Value", "Units", "Across processes" };
	json_t *metrics = json_object_get(report, "metrics"), *m;
	size_t i;
	if (!json_array_size(metrics))
		return;
	fprintf(out, "\nHardware metrics\n\n");
	struct cupti_cb_run_tab *t = cupti_cb_run_tab_new(5, h, "lrrll");
	json_array_foreach(metrics, i, m) {
		char dev[NUM], val[NUM], how[3 * NUM + 48];
		snprintf(dev, NUM, "%lld", cupti_cb_run_int(m, "device"));
		metric_number(val, json_object_get(m, "value"), is_percent(m));
		across(how, sizeof how, m);
		const char *cells[] = { json_string_value(json_object_get(m, "name")), dev, val,
					json_string_value(json_object_get(m, "units")), how };
		cupti_cb_run_tab_row(t, cells);
	}
	cupti_cb_run_tab_print(out, t);
	cupti_cb_run_tab_free(t);
	fprintf(out, " A .sum adds up over processes; .max and .min are the extreme; any other metric (an average,\n"
		     " a ratio, a percentage, a rate) is the mean over the processes that measured it.\n");
}

static void header(FILE *out, json_t *report)
{
	json_t *run = json_object_get(report, "run"), *a;
	size_t i, np = json_array_size(json_object_get(report, "processes"));
	fprintf(out, "cupti_cb_run:");
	json_array_foreach(json_object_get(run, "argv"), i, a)
		fprintf(out, " %s", json_string_value(a));
	fprintf(out, "\n exit status %lld; %zu process%s with CUDA; wall time %lld ns\n",
		cupti_cb_run_int(run, "exit_status"), np, np == 1 ? "" : "es",
		cupti_cb_run_int(run, "wall_ns"));
	const char *why = json_string_value(json_object_get(json_object_get(report, "status"), "reason"));
	if (!np && why)	/* a report of nothing: why */
		fprintf(out, " %s\n", why);
	if (!cupti_cb_run_host_time(report))
		fprintf(out, " host times were not measured (--no-time): no time per CUDA call or synchronization;\n"
			     " calls, errors, launches, bytes, allocations and the GPU's own times are counted\n");
	cupti_cb_run_print_process_status(out, report, "");
}

void cupti_cb_run_print_tables(FILE *out, json_t *report)
{
	json_t *n;
	size_t i;
	header(out, report);
	api_table(out, report, "runtime");
	api_table(out, report, "driver");
	fprintf(out, "\n The runtime calls the driver: driver calls made inside runtime calls are\n"
		     " counted in both tables, and are not extra work. Do not add the two up.\n");
	ops_table(out, report);
	gpu_table(out, report);
	metrics_table(out, report);
	cupti_cb_run_threads_table(out, report);
	json_array_foreach(json_object_get(report, "notes"), i, n)
		fprintf(out, "%s note: %s\n", i ? "" : "\n", json_string_value(n));
}
