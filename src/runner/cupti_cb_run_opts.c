/* cupti_cb_run_opts.c: the command line of cupti_cb_run.
 *
 * Options come before the program; the first word that is not an option
 * (or whatever follows "--") starts the program's command line, so the
 * program's own options are never read as ours, even when they have the
 * names of ours (cupti_cb_run ./app -o x --report y runs ./app with
 * "-o x --report y"). Only --report, which has no program, takes options
 * after its files. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

void cupti_cb_run_usage(FILE *f)
{
	fprintf(f,
		"usage: cupti_cb_run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       cupti_cb_run [OPTIONS] --report FILE...\n"
		"\n"
		"Runs PROGRAM unchanged with cupti_cb counting its CUDA calls (through\n"
		"CUDA_INJECTION64_PATH), then prints what it did: CUDA API calls and their\n"
		"host time, operations per device, GPU activity, hardware metrics.\n"
		"Exits with the program's status (128+N if signal N ended it).\n"
		"\n"
		"  -o, --output FILE     text tables to FILE (default: standard error)\n"
		"      --csv FILE        one CSV row per quantity: section,name,device,value,unit\n"
		"      --json FILE       the report (schema cupti_cb_run/1)\n"
		"      --metrics LIST    hardware metrics: names and group names, comma-separated\n"
		"                        (groups: cupti_cb_metric_groups)\n"
		"      --no-gpu-activity leave out the gpu.* events (CUPTI Activity API)\n"
		"      --no-time         measure no host time: calls, errors, launches, bytes,\n"
		"                        allocations without a clock read in each CUDA call\n"
		"                        (the cost of CUPTI's callbacks alone); GPU times stay\n"
		"      --interval T      every T (1s, 500ms) print one live line to standard error\n"
		"      --start-after T   start counting T (1s, 300ms) after the program's first\n"
		"                        CUDA call instead of inside it (leaves out the start-up)\n"
		"      --timeline FILE   a Chrome trace (Perfetto, chrome://tracing): CUDA calls\n"
		"                        on their threads, kernels, copies and memsets on their\n"
		"                        devices and streams, launch-to-GPU flows\n"
		"      --timeline-limit L stop the timeline at a size (500M, 2G) or a time (30s)\n"
		"                        (default 1G)\n"
		"      --flame FILE      a flame graph, as folded stacks: the CPU stack of each call\n"
		"                        that issued GPU work, weighted by its GPU time (ns)\n"
		"      --flame-svg FILE  the flame graph as a picture (SVG)\n"
		"      --flame-cpu-hz N  add CPU samples of every thread, N per second of its CPU\n"
		"                        time, in the same unit\n"
		"      --keep            keep the run directory of process files\n"
		"      --trace           the injected library says what it does\n"
		"      --compare BASE    compare with the report file BASE; exit 3 when a\n"
		"                        quantity went above its threshold\n"
		"      --fail-above SPEC thresholds: KIND:NAME=PCT%%[,...], KIND one of calls,\n"
		"                        time, errors, bytes, kernels, event, metric\n"
		"                        (default %s)\n"
		"      --report FILE...  no program: merge report files (one per rank) and print\n"
		"                        totals and per-rank min, max, mean and imbalance\n"
		"      --hl-output DIR   also write DIR/rank_NNNNNN.json for PAPI's\n"
		"                        papi_hl_output_writer.py\n"
		"  -h, --help            this text\n"
		"\n"
		"Options come before PROGRAM: every word after it is PROGRAM's own. Exit\n"
		"status 2: a bad option, rule or --compare/--report file; 3: a regression.\n"
		"\n"
		"In file names %%r is the MPI rank, %%p the pid, %%h the host; under MPI a name\n"
		"without %%r gets .rank<N> before its extension. See cupti_cb_run(1).\n",
		cupti_cb_run_default_rules);
}

/* "1s", "500ms", "250" (ms) -> milliseconds; -1 when not a duration. */
static long parse_interval(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	if (!strcmp(end, "s"))
		return v > 86400 ? -1 : v * 1000;
	if (!strcmp(end, "ms") || !*end)
		return v;
	return -1;
}

enum { OPT_CSV = 256, OPT_JSON, OPT_METRICS, OPT_NOACT, OPT_NOTIME, OPT_INTERVAL, OPT_START, OPT_KEEP, OPT_TRACE,
       OPT_COMPARE, OPT_FAIL, OPT_REPORT, OPT_HL,
       OPT_TIMELINE, OPT_TIMELINE_LIMIT, OPT_FLAME, OPT_FLAME_SVG, OPT_FLAME_HZ };

static const struct option longopts[] = {
	{ "output", required_argument, 0, 'o' },
	{ "csv", required_argument, 0, OPT_CSV },
	{ "json", required_argument, 0, OPT_JSON },
	{ "metrics", required_argument, 0, OPT_METRICS },
	{ "no-gpu-activity", no_argument, 0, OPT_NOACT },
	{ "no-time", no_argument, 0, OPT_NOTIME },
	{ "interval", required_argument, 0, OPT_INTERVAL },
	{ "start-after", required_argument, 0, OPT_START },
	{ "flame", required_argument, 0, OPT_FLAME },
	{ "flame-svg", required_argument, 0, OPT_FLAME_SVG },
	{ "flame-cpu-hz", required_argument, 0, OPT_FLAME_HZ },
	{ "keep", no_argument, 0, OPT_KEEP },
	{ "trace", no_argument, 0, OPT_TRACE },
	{ "compare", required_argument, 0, OPT_COMPARE },
	{ "fail-above", required_argument, 0, OPT_FAIL },
	{ "report", required_argument, 0, OPT_REPORT },
	{ "hl-output", required_argument, 0, OPT_HL },
	{ "timeline", required_argument, 0, OPT_TIMELINE },
	{ "timeline-limit", required_argument, 0, OPT_TIMELINE_LIMIT },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "cupti_cb_run: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (cupti_cb_run --help lists the options)\n");
	return CUPTI_CB_RUN_EXIT_USAGE;
}

/* word (--abbrev[=value]) abbreviates several long options: said, naming
 * them, as getopt_long says it when it prints its own messages (getopt
 * refuses both an unknown and an ambiguous option alike with opterr 0). */
static int ambiguous(const char *word)
{
	char list[512] = "";
	int n = 0;
	if (strncmp(word, "--", 2))
		return 0;
	size_t len = strcspn(word + 2, "=");
	for (const struct option *opt = longopts; opt->name; opt++)
		if (len && !strncmp(opt->name, word + 2, len)) {
			size_t at = strlen(list);
			snprintf(list + at, sizeof list - at, "%s--%s", n ? ", " : "", opt->name);
			n++;
		}
	if (n < 2)
		return 0;
	fprintf(stderr, "cupti_cb_run: option '%.*s' is ambiguous: it may be %s (cupti_cb_run --help lists the options)\n",
		(int)len + 2, word, list);
	return 1;
}

/* The option getopt refused: in a group (-kz) optind has not moved past
 * the word yet, so the word is not what to name; optopt is the letter. A
 * long option leaves optopt 0 (unknown) or its code (missing value), and
 * optind past its word. */
static int refused(int c, char **argv)
{
	char name[3] = { '-', (char)optopt, 0 };
	int is_short = optopt > 0 && optopt < 256;
	if (c == ':')
		return bad("%s needs a value", is_short ? name : argv[optind - 1]);
	if (!is_short && ambiguous(argv[optind - 1]))
		return CUPTI_CB_RUN_EXIT_USAGE;
	return bad("unknown option '%s'", is_short ? name : argv[optind - 1]);
}

/* One option; 0 to go on, else the exit status (-1 after --help). */
static int take(int c, char **argv, struct cupti_cb_run_opts *o)
{
	switch (c) {
	case 'o': o->output = optarg; break;
	case OPT_CSV: o->csv = optarg; break;
	case OPT_JSON: o->json = optarg; break;
	case OPT_METRICS: o->metrics = optarg; break;
	case OPT_NOACT: o->no_activity = 1; break;
	case OPT_NOTIME: o->no_time = 1; break;
	case OPT_INTERVAL:
		o->interval_ms = parse_interval(optarg);
		if (o->interval_ms < 0)
			return bad("--interval '%s': give a duration such as 1s or 500ms", optarg);
		break;
	case OPT_START:
		o->start_after_ms = parse_interval(optarg);
		if (o->start_after_ms < 0)
			return bad("--start-after '%s': give a duration such as 1s or 300ms", optarg);
		break;
	case OPT_FLAME: o->flame = optarg; break;
	case OPT_FLAME_SVG: o->flame_svg = optarg; break;
	case OPT_FLAME_HZ: {
		char *end;
		errno = 0;
		o->flame_hz = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || o->flame_hz < 1 || o->flame_hz > 10000)
			return bad("--flame-cpu-hz '%s': give a number of samples per second from 1 to 10000", optarg);
		break;
	}
	case OPT_KEEP: o->keep = 1; break;
	case OPT_TRACE: o->trace = 1; break;
	case OPT_COMPARE: o->compare = optarg; break;
	case OPT_FAIL: o->fail_above = optarg; break;
	case OPT_REPORT: o->reports[o->n_reports++] = optarg; break;
	case OPT_HL: o->hl_output = optarg; break;
	case OPT_TIMELINE: o->timeline = optarg; break;
	case OPT_TIMELINE_LIMIT: {
		unsigned long long bytes, ms;
		o->timeline_limit = optarg;
		if (cupti_cb_run_timeline_limit(optarg, &bytes, &ms))
			return bad("--timeline-limit '%s': give a size such as 500M or 2G, or a time such as 30s", optarg);
		break;
	}
	case 'h': cupti_cb_run_usage(stdout); return -1;
	default: return refused(c, argv);
	}
	return 0;
}

/* Parses options from optind up to the first word that is not an option
 * ('+': as env, time and nsys do) or past "--"; 0 or the exit status.
 * *dashes: the stop was at "--". */
static int options(int argc, char **argv, struct cupti_cb_run_opts *o, int *dashes)
{
	int c, rc;
	for (;;) {
		int at = optind;
		c = getopt_long(argc, argv, "+:o:h", longopts, NULL);
		if (c == -1) {
			/* At -1 getopt is between words: it stopped at a program's
			 * name or at the end, or it consumed "--". */
			*dashes = optind > at && !strcmp(argv[optind - 1], "--");
			return 0;
		}
		if ((rc = take(c, argv, o)))
			return rc;
	}
}

int cupti_cb_run_parse_opts(int argc, char **argv, struct cupti_cb_run_opts *o)
{
	int dashes = 0, rc;
	memset(o, 0, sizeof *o);
	opterr = 0;
	optind = 1;
	/* Room for every word: each --report and each file after them. */
	o->reports = malloc(sizeof *o->reports * (size_t)argc);
	if (!o->reports)
		return CUPTI_CB_RUN_EXIT_FAILED;
	if ((rc = options(argc, argv, o, &dashes)))
		return rc;
	if (o->n_reports) {
		/* --report A B C: no program, so the words that are not options are
		 * more files, and options may follow them (until "--"). */
		while (optind < argc) {
			o->reports[o->n_reports++] = argv[optind++];
			if (!dashes && (rc = options(argc, argv, o, &dashes)))
				return rc;
		}
	} else {
		free(o->reports);
		o->reports = NULL;
		o->argv = &argv[optind];
		o->argc = argc - optind;
		if (!o->argc)
			return bad("%s", "no program to run");
	}
	if (o->hl_output && o->reports)
		return bad("%s", "--hl-output writes the files of a run, not of --report");
	if (o->no_time && o->reports)
		return bad("%s", "--no-time is for a run: --report shows what its files measured");
	if (o->timeline && o->reports)
		return bad("%s", "--timeline is for a run: --report reads report files");
	if (o->timeline && o->no_time)
		return bad("%s", "--timeline needs the calls' host times: leave out --no-time");
	if (o->timeline_limit && !o->timeline)
		return bad("%s", "--timeline-limit needs --timeline FILE");
	if ((o->flame || o->flame_svg || o->flame_hz) && o->reports)
		return bad("%s", "--flame, --flame-svg and --flame-cpu-hz are for a run, not for --report");
	if (o->flame_hz && !o->flame && !o->flame_svg)
		return bad("%s", "--flame-cpu-hz adds CPU samples to a flame graph: give --flame FILE or --flame-svg FILE");
	if ((o->flame || o->flame_svg) && o->no_activity)
		return bad("%s", "--flame weighs stacks by GPU time, which --no-gpu-activity leaves out");
	if (o->fail_above && !o->compare)
		return bad("%s", "--fail-above needs --compare BASELINE.json");
	return 0;
}
