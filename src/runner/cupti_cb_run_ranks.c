/* cupti_cb_run_ranks.c: MPI. Under mpirun or srun every rank runs its own
 * cupti_cb_run, which names its files after its rank; --report then reads
 * the ranks' reports and says how evenly the work was spread. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_cb_run.h"

/* The launchers' variables, in the order the injected library reads them. */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL };

int cupti_cb_run_rank(void)
{
	for (int i = 0; rank_vars[i]; i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		if (!v || !*v)
			continue;
		long r = strtol(v, &end, 10);
		if (!*end && r >= 0 && r < 1L << 30)
			return (int)r;
	}
	return -1;
}

/* Appends s to the growing buffer b (size *cap, used *len). */
static void put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = 2 * (*len + n + 1);
		*b = realloc(*b, *cap);
		if (!*b)
			abort();
	}
	memcpy(*b + *len, s, n);
	*len += n;
	(*b)[*len] = 0;
}

char *cupti_cb_run_file_name(const char *pattern, int rank)
{
	char *b = NULL, num[64], host[256];
	size_t len = 0, cap = 0;
	int has_rank = 0;
	put(&b, &len, &cap, "", 0);
	for (const char *p = pattern; *p; p++) {
		if (*p != '%' || !p[1] || !strchr("rph%", p[1])) {
			put(&b, &len, &cap, p, 1);
			continue;
		}
		p++;
		switch (*p) {
		case 'r':
			snprintf(num, sizeof num, "%d", rank < 0 ? 0 : rank);
			put(&b, &len, &cap, num, strlen(num));
			has_rank = 1;
			break;
		case 'p':
			snprintf(num, sizeof num, "%ld", (long)getpid());
			put(&b, &len, &cap, num, strlen(num));
			break;
		case 'h':
			if (gethostname(host, sizeof host))
				strcpy(host, "unknown");
			host[sizeof host - 1] = 0;
			put(&b, &len, &cap, host, strlen(host));
			break;
		default:
			put(&b, &len, &cap, "%", 1);
		}
	}
	if (rank < 0 || has_rank)
		return b;
	/* Ranked, but the name does not say which rank: out.json -> out.rank3.json. */
	char *slash = strrchr(b, '/'), *dot = strrchr(b, '.');
	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : b))
		dot = b + len;
	snprintf(num, sizeof num, ".rank%d", rank);
	char *out = malloc(len + strlen(num) + 1);
	if (!out)
		abort();
	size_t at = (size_t)(dot - b);
	memcpy(out, b, at);
	strcpy(out + at, num);
	strcat(out, b + at);
	free(b);
	return out;
}

/* ---- --report: the spread of the main quantities over ranks */

struct quant {
	const char *label, *unit;
	const char *total;	/* a key of "totals", or NULL */
	const char *events[6];	/* device events summed */
	int run_wall;
};

static const struct quant quants[] = {
	{ "wall time", "ns", NULL, { NULL }, 1 },
	{ "API calls", "calls", "api.calls", { NULL }, 0 },
	{ "API time", "ns", "api.time_ns", { NULL }, 0 },
	{ "API errors", "errors", "api.errors", { NULL }, 0 },
	{ "kernel launches", "launches", NULL, { "kernel.launches" }, 0 },
	{ "graph launches", "launches", NULL, { "graph.launches" }, 0 },
	{ "copies", "calls", NULL, { "memcpy.calls" }, 0 },
	{ "bytes copied", "bytes", NULL,
	  { "memcpy.bytes_htod", "memcpy.bytes_dtoh", "memcpy.bytes_dtod", "memcpy.bytes_htoh", "memcpy.bytes_peer" }, 0 },
	{ "memsets", "calls", NULL, { "memset.calls" }, 0 },
	{ "bytes allocated", "bytes", NULL, { "alloc.bytes" }, 0 },
	{ "synchronizations", "calls", NULL, { "sync.calls" }, 0 },
	{ "synchronization time", "ns", NULL, { "sync.time_ns" }, 0 },
	{ "GPU kernels", "kernels", NULL, { "gpu.kernels" }, 0 },
	{ "GPU kernel time", "ns", NULL, { "gpu.kernel_time_ns" }, 0 },
	{ "GPU busy time", "ns", NULL, { "gpu.busy_ns" }, 0 },
	{ NULL, NULL, NULL, { NULL }, 0 },
};

static long long value(json_t *r, const struct quant *q, int *present)
{
	*present = 0;
	if (q->run_wall) {
		json_t *v = json_object_get(json_object_get(r, "run"), "wall_ns");
		*present = json_is_integer(v);
		return *present ? json_integer_value(v) : cupti_cb_run_wall_sum(r);
	}
	if (q->total) {
		*present = json_object_get(json_object_get(r, "totals"), q->total) != NULL;
		return cupti_cb_run_int(json_object_get(r, "totals"), q->total);
	}
	long long sum = 0;
	for (int i = 0; q->events[i]; i++) {
		int p;
		sum = cupti_cb_run_add(sum, cupti_cb_run_event_sum(r, q->events[i], &p));
		*present |= p;
	}
	return sum;
}

static void rank_row(struct cupti_cb_run_tab *t, const struct quant *q, json_t **reports, int n)
{
	long long total = 0, min = 0, max = 0;
	int any = 0;
	for (int i = 0; i < n; i++) {
		int p;
		long long v = value(reports[i], q, &p);
		any |= p;
		total = cupti_cb_run_add(total, v);
		min = i == 0 || v < min ? v : min;
		max = i == 0 || v > max ? v : max;
	}
	if (!any)
		return;
	char c[5][32];
	double mean = (double)total / n;
	/* Ranks run at once: their wall times do not add up to anything. */
	if (q->run_wall)
		strcpy(c[0], "-");
	else
		snprintf(c[0], 32, "%lld", total);
	snprintf(c[1], 32, "%lld", min);
	snprintf(c[2], 32, "%lld", max);
	snprintf(c[3], 32, "%.1f", mean);
	if (mean > 0)
		snprintf(c[4], 32, "%.2f", (double)max / mean);
	else
		strcpy(c[4], "-");
	const char *cells[] = { q->label, q->unit, c[0], c[1], c[2], c[3], c[4] };
	cupti_cb_run_tab_row(t, cells);
}

void cupti_cb_run_print_ranks(FILE *f, json_t **reports, int n)
{
	static const char *const h[] = { "Quantity", "Unit", "Total", "Min", "Max", "Mean", "Imbalance (max/mean)" };
	fprintf(f, "\nPer rank (%d rank%s:", n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		json_t *rank = json_object_get(json_object_get(reports[i], "run"), "rank");
		if (json_is_integer(rank))
			fprintf(f, " %lld", (long long)json_integer_value(rank));
		else
			fprintf(f, " ?");
	}
	fprintf(f, ")\n\n");
	struct cupti_cb_run_tab *t = cupti_cb_run_tab_new(7, h, "llrrrrr");
	for (const struct quant *q = quants; q->label; q++)
		rank_row(t, q, reports, n);
	cupti_cb_run_tab_print(f, t);
	cupti_cb_run_tab_free(t);
	fprintf(f, " Imbalance 1.00 is an even spread; 2.00 means the busiest rank did twice the mean.\n"
		   " Wall time has no total: the ranks run at the same time.\n");
}
