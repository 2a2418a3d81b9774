/* cupti_cb_metric_groups: prints cupti_cb's metric groups, or the events of
 * one group in the form PAPI_EVENTS, TAU_METRICS and papi_command_line take;
 * with --check, computes on the host how many passes each group needs on a
 * chip (no GPU needed).
 *
 *   cupti_cb_metric_groups                  the groups, one a line
 *   cupti_cb_metric_groups memory           cupti_cb:::dram__bytes_read.sum,...
 *   cupti_cb_metric_groups -s ' ' memory    the same, space-separated
 *   cupti_cb_metric_groups --check GH100    passes of every group on GH100
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_metric_group_table.h"
#include "cupti_cb_profiler_api.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: cupti_cb_metric_groups [-s SEPARATOR] [GROUP]\n"
		   "       cupti_cb_metric_groups --check CHIP\n");
}

static int list_groups(void)
{
	for (unsigned i = 0; i < cupti_cb_n_metric_groups; i++) {
		unsigned n = 0;
		while (cupti_cb_metric_group_table[i].metrics[n])
			n++;
		printf("%-13s %u metrics: %s\n", cupti_cb_metric_group_table[i].name, n, cupti_cb_metric_group_table[i].descr);
	}
	return 0;
}

static int print_group(const char *name, const char *sep)
{
	const struct cupti_cb_metric_group *g = cupti_cb_metric_group_find(name);
	if (!g) {
		fprintf(stderr, "cupti_cb_metric_groups: no group '%s'; the groups are:\n", name);
		for (unsigned i = 0; i < cupti_cb_n_metric_groups; i++)
			fprintf(stderr, "  %s\n", cupti_cb_metric_group_table[i].name);
		return 2;
	}
	for (unsigned i = 0; g->metrics[i]; i++)
		printf("%scupti_cb:::%s", i ? sep : "", g->metrics[i]);
	printf("\n");
	return 0;
}

static int check_groups(const char *chip)
{
	struct cupti_cb_api api;
	struct cupti_cb_profiler_api p;
	char why[512];
	int bad = 0;
	memset(&api, 0, sizeof api);
	if (cupti_cb_load_cupti(&api, why, sizeof why) || cupti_cb_profiler_api_load(&p, api.cupti_lib, why, sizeof why)) {
		fprintf(stderr, "cupti_cb_metric_groups: %s\n", why);
		return 1;
	}
	for (unsigned i = 0; i < cupti_cb_n_metric_groups; i++) {
		const struct cupti_cb_metric_group *g = &cupti_cb_metric_group_table[i];
		struct cupti_cb_profiler_config cfg;
		unsigned n = 0;
		while (g->metrics[n])
			n++;
		if (cupti_cb_profiler_config_build(&cfg, &p, chip, NULL, g->metrics, n, why, sizeof why)) {
			printf("%-13s FAIL: %s\n", g->name, why);
			bad = 1;
			continue;
		}
		printf("%-13s %zu pass%s on %s\n", g->name, cfg.passes, cfg.passes == 1 ? "" : "es", chip);
		bad |= cfg.passes != 1;
		cupti_cb_profiler_config_free(&cfg);
	}
	return bad;
}

/* A wrong command line: what was wrong, in one sentence, then the usage. */
static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "cupti_cb_metric_groups: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *sep = ",";
	int i = 1;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--check")) {
		if (argc == 2)
			return bad_usage("--check needs a chip name (for example %s)", "GH100");
		if (argc > 3)
			return bad_usage("--check takes one chip: '%s' is one argument too many", argv[3]);
		return check_groups(argv[2]);
	}
	if (argc > 1 && !strcmp(argv[1], "-s")) {
		if (argc == 2)
			return bad_usage("-s needs a separator (for example %s)", "' '");
		sep = argv[2];
		i = 3;
	}
	if (i == argc)
		return list_groups();
	if (argv[i][0] == '-')
		return bad_usage("unknown option '%s'", argv[i]);
	if (i + 1 < argc)
		return bad_usage("one group at a time: '%s' is one argument too many", argv[i + 1]);
	return print_group(argv[i], sep);
}
