/* cupti_cb_run: measures a CUDA program unchanged.
 *
 *   cupti_cb_run [OPTIONS] [--] PROGRAM [ARGS...]
 *   cupti_cb_run [OPTIONS] --report FILE...
 *
 * The CUDA driver loads the injected library (CUDA_INJECTION64_PATH) into
 * every process of the program that starts CUDA; each such process writes
 * a process file into a private run directory at exit. The runner merges
 * them into one report and prints it. See man/cupti_cb_run.1. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_cb_run.h"
#include "cupti_cb_run_flame.h"

/* ---- output files */

static FILE *open_out(const char *pattern, int rank, FILE *dflt, char **name, const char *mode)
{
	*name = NULL;
	if (!pattern)
		return dflt;
	if (!strcmp(pattern, "-"))
		return stdout;
	*name = cupti_cb_run_file_name(pattern, rank);
	FILE *f = fopen(*name, mode);
	if (!f)
		fprintf(stderr, "cupti_cb_run: cannot write %s: %s\n", *name, strerror(errno));
	return f;
}

static int close_out(FILE *f, char *name)
{
	int bad = 0;
	if (f && name) {
		bad = ferror(f) | fclose(f);
		if (bad)
			fprintf(stderr, "cupti_cb_run: writing %s failed\n", name);
	} else if (f)
		fflush(f);
	free(name);
	return bad || !f;
}

/* Text, CSV, JSON and high-level output; 0, or -1 when one failed. */
static int write_outputs(const struct cupti_cb_run_opts *o, json_t *report, int rank, FILE *text_dflt,
			 json_t **ranks, int nranks)
{
	int bad = 0;
	char *name;
	FILE *f;
	if (o->output || text_dflt) {	/* no default: only the files asked for */
		f = open_out(o->output, rank, text_dflt, &name, "w");
		if (f) {
			cupti_cb_run_print_tables(f, report);
			if (nranks)
				cupti_cb_run_print_ranks(f, ranks, nranks);
		}
		bad |= close_out(f, name);
	}
	if (o->csv) {
		f = open_out(o->csv, rank, stdout, &name, "w");
		if (f)
			cupti_cb_run_print_csv(f, report);
		bad |= close_out(f, name);
	}
	if (o->json) {
		f = open_out(o->json, rank, stdout, &name, "w");
		if (f && (json_dumpf(report, f, JSON_INDENT(2)) || fputc('\n', f) == EOF))
			bad = 1;
		bad |= close_out(f, name);
	}
	if (o->hl_output) {
		char why[512];
		if (cupti_cb_run_write_hl(o->hl_output, report, rank, why, sizeof why)) {
			fprintf(stderr, "cupti_cb_run: --hl-output: %s\n", why);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* ---- --compare */

struct baseline {
	json_t *doc;
	struct cupti_cb_run_rule *rules;
	size_t n;
};

/* The reason of a report that measured nothing (no process), into buf, to
 * be put inside a sentence: without the period of its own sentence (the
 * runner's reasons have one, so "...loaded.; it is left out" was printed). */
static const char *nothing_reason(json_t *report, char *buf, size_t n)
{
	const char *why = json_string_value(json_object_get(json_object_get(report, "status"), "reason"));
	snprintf(buf, n, "%s", why ? why : "nothing was measured");
	size_t len = strlen(buf);
	while (len && (buf[len - 1] == '.' || buf[len - 1] == ' '))
		buf[--len] = 0;
	return buf;
}

/* 0, or the exit status for a bad baseline or rule list. */
static int load_baseline(const struct cupti_cb_run_opts *o, struct baseline *b)
{
	char why[512];
	memset(b, 0, sizeof *b);
	if (!o->compare)
		return 0;
	const char *spec = o->fail_above ? o->fail_above : cupti_cb_run_default_rules;
	if (cupti_cb_run_parse_rules(spec, &b->rules, &b->n, why, sizeof why)) {
		fprintf(stderr, "cupti_cb_run: %s\n", why);
		return CUPTI_CB_RUN_EXIT_USAGE;
	}
	/* Known before the program runs: this run could never compare it. */
	for (size_t i = 0; o->no_time && i < b->n; i++)
		if (cupti_cb_run_rule_host_time(b->rules[i].kind, b->rules[i].name)) {
			fprintf(stderr, "cupti_cb_run: --fail-above '%s:%s': a host time, which --no-time does not "
				"measure; leave out the rule or --no-time\n", b->rules[i].kind, b->rules[i].name);
			return CUPTI_CB_RUN_EXIT_USAGE;
		}
	json_t *doc = cupti_cb_run_load(o->compare, why, sizeof why);
	b->doc = cupti_cb_run_report_new();
	if (!doc || cupti_cb_run_merge(b->doc, doc, why, sizeof why)) {
		fprintf(stderr, "cupti_cb_run: --compare %s: %s\n", o->compare, why);
		json_decref(doc);
		return CUPTI_CB_RUN_EXIT_USAGE;
	}
	json_decref(doc);
	if (!json_array_size(json_object_get(b->doc, "processes"))) {
		/* Against nothing every count would be new growth: refused. */
		fprintf(stderr, "cupti_cb_run: --compare %s: the baseline is of a run that measured nothing (%s): "
			"there is nothing to compare with\n", o->compare, nothing_reason(b->doc, why, sizeof why));
		return CUPTI_CB_RUN_EXIT_USAGE;
	}
	return 0;
}

/* The comparison, on the text output: 0, CUPTI_CB_RUN_EXIT_REGRESSED, or
 * CUPTI_CB_RUN_EXIT_USAGE when a rule names what neither report has (then
 * nothing is compared: a gate with a misspelt name must not pass). */
static int compare(const struct cupti_cb_run_opts *o, struct baseline *b, json_t *report, int rank, FILE *dflt)
{
	char *name;
	if (cupti_cb_run_rules_unmatched(stderr, o->compare, b->doc, report, b->rules, b->n))
		return CUPTI_CB_RUN_EXIT_USAGE;
	/* After the tables, in the same place. */
	FILE *f = open_out(o->output, rank, dflt, &name, "a");
	int regressed = cupti_cb_run_compare(f ? f : stderr, o->compare, b->doc, report, b->rules, b->n);
	close_out(f, name);
	if (regressed)
		fprintf(stderr, "cupti_cb_run: %d quantit%s regressed against %s\n", regressed,
			regressed == 1 ? "y" : "ies", o->compare);
	return regressed ? CUPTI_CB_RUN_EXIT_REGRESSED : 0;
}

/* ---- the run directory */

static char *make_run_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;
	if (asprintf(&dir, "%s/cupti_cb_run.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		fprintf(stderr, "cupti_cb_run: cannot create a run directory %s: %s\n", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

static void remove_run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* ---- the two modes */

static json_t *argv_json(char **argv, int argc)
{
	json_t *a = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

static int run_program(const struct cupti_cb_run_opts *o, struct baseline *b)
{
	int rank = cupti_cb_run_rank();
	struct cupti_cb_run_child child;
	char hl_why[512];
	/* Said before the run: after it, a wrong directory would waste the run
	 * (and when nothing was measured no file is written at all). */
	if (o->hl_output && cupti_cb_run_hl_dir(o->hl_output, hl_why, sizeof hl_why)) {
		fprintf(stderr, "cupti_cb_run: --hl-output: %s\n", hl_why);
		return CUPTI_CB_RUN_EXIT_USAGE;
	}
	struct cupti_cb_run_timeline timeline;
	if (cupti_cb_run_timeline_open(&timeline, o, rank, hl_why, sizeof hl_why)) {
		fprintf(stderr, "cupti_cb_run: --timeline: %s\n", hl_why);
		cupti_cb_run_timeline_close(&timeline, 0);
		return CUPTI_CB_RUN_EXIT_USAGE;
	}
	char *dir = make_run_dir();
	if (!dir)
		return CUPTI_CB_RUN_EXIT_FAILED;
	cupti_cb_run_watch_driver(dir);
	int started = !cupti_cb_run_set_env(o, dir) && !cupti_cb_run_exec(o->argv, &child), err = errno;
	cupti_cb_run_timeline_close(&timeline, started ? child.pid : 0);
	if (!started) {
		fprintf(stderr, "cupti_cb_run: cannot start %s: %s\n", o->argv[0], strerror(err));
		remove_run_dir(dir);
		free(dir);
		return CUPTI_CB_RUN_EXIT_FAILED;
	}
	if (child.exec_errno) {
		fprintf(stderr, "cupti_cb_run: cannot execute %s: %s\n", o->argv[0], strerror(child.exec_errno));
		remove_run_dir(dir);
		free(dir);
		return CUPTI_CB_RUN_EXIT_NOEXEC;
	}
	int status = child.status;
	json_t *report = cupti_cb_run_report_new();
	int n = cupti_cb_run_merge_dir(report, dir, stderr);
	json_object_set_new(report, "run", json_pack("{s:o, s:i, s:I, s:o}", "argv", argv_json(o->argv, o->argc),
						     "exit_status", status, "wall_ns", (json_int_t)child.wall_ns,
						     "rank", rank >= 0 ? json_integer(rank) : json_null()));
	if (n <= 0) {
		/* Still a report, of the same schema, that says why: a pipeline
		 * that reads --json or --csv finds a file it can parse. */
		char why[1024];
		cupti_cb_run_why_nothing(dir, why, sizeof why);
		fprintf(stderr, "cupti_cb_run: %s\n", why);
		json_object_set_new(report, "status", json_pack("{s:b, s:s}", "counting", 0, "reason", why));
		json_object_set_new(json_object_get(report, "cupti_cb"), "version", json_string(PACKAGE_VERSION));
		struct cupti_cb_run_opts files = { .output = o->output, .json = o->json, .csv = o->csv };
		if (write_outputs(&files, report, rank, NULL, NULL, 0) && !status)
			status = CUPTI_CB_RUN_EXIT_FAILED;
		if (b->doc)
			fprintf(stderr, "cupti_cb_run: --compare: there is nothing to compare with %s.\n", o->compare);
		if (o->hl_output)
			fprintf(stderr, "cupti_cb_run: --hl-output: no file written into %s: nothing was measured\n",
				o->hl_output);
	} else {
		cupti_cb_run_explain_unfinished(report, child.pid, child.signal, child.status);
		if (o->output)
			cupti_cb_run_print_process_status(stderr, report, "cupti_cb_run:");
		if (write_outputs(o, report, rank, stderr, NULL, 0) && !status)
			status = CUPTI_CB_RUN_EXIT_FAILED;
		int verdict = b->doc ? compare(o, b, report, rank, stderr) : 0;
		if (verdict && !status)
			status = verdict;
	}
	if (o->flame || o->flame_svg) {
		char *folded = o->flame ? cupti_cb_run_file_name(o->flame, rank) : NULL;
		char *svg = o->flame_svg ? cupti_cb_run_file_name(o->flame_svg, rank) : NULL;
		if (cupti_cb_run_flame_write(folded, svg, o->flame_hz, dir, o->argv, o->argc) && !status)
			status = CUPTI_CB_RUN_EXIT_FAILED;
		free(folded);
		free(svg);
	}
	if (o->keep)
		fprintf(stderr, "cupti_cb_run: the process files are kept in %s\n", dir);
	else
		remove_run_dir(dir);
	free(dir);
	json_decref(report);
	return status;
}

static int report_files(const struct cupti_cb_run_opts *o, struct baseline *b)
{
	json_t *total = cupti_cb_run_report_new(), **ranks = calloc((size_t)o->n_reports, sizeof *ranks);
	int status = 0, nr = 0;
	long long wall = 0, exit_status = 0;
	if (!ranks)
		return CUPTI_CB_RUN_EXIT_FAILED;
	/* One merger for every file: the total's rows stay indexed between files. */
	struct cupti_cb_run_merger *into_total = cupti_cb_run_merger_new(total);
	for (int i = 0; i < o->n_reports && !status; i++) {
		char why[512];
		json_t *doc = cupti_cb_run_load(o->reports[i], why, sizeof why);
		int k = nr++;
		ranks[k] = cupti_cb_run_report_new();
		if (!doc || cupti_cb_run_merge(ranks[k], doc, why, sizeof why) ||
		    cupti_cb_run_merger_add(into_total, doc, why, sizeof why)) {
			fprintf(stderr, "cupti_cb_run: --report %s: %s\n", o->reports[i], why);
			status = CUPTI_CB_RUN_EXIT_USAGE;
		} else if (!json_array_size(json_object_get(ranks[k], "processes"))) {
			/* A report of a run that measured nothing: a rank of zeros would
			 * only bend the minimum and the mean. */
			fprintf(stderr, "cupti_cb_run: --report %s: %s; it is left out of the per-rank table\n",
				o->reports[i], nothing_reason(ranks[k], why, sizeof why));
			json_decref(ranks[k]);
			nr--;
		} else {
			/* A process file has no "run": its process stands for it. */
			json_t *run = json_object_get(doc, "run");
			if (!run) {
				json_t *p = json_object_get(doc, "process");
				run = json_pack("{s:O?, s:i, s:O?, s:O?}", "argv", json_object_get(p, "argv"), "exit_status", 0,
						"wall_ns", json_object_get(p, "wall_ns"), "rank", json_object_get(p, "rank"));
			} else
				json_incref(run);
			json_object_set_new(ranks[k], "run", run);
			/* The per-rank table reads the run, the totals, the devices and
			 * the processes; the rows of functions, metrics and threads are in
			 * the total: not kept once per rank (1,024 ranks of 1,000
			 * functions held a million rows). */
			json_object_set_new(ranks[k], "api", json_array());
			json_object_set_new(ranks[k], "metrics", json_array());
			json_object_del(ranks[k], "threads");
			long long w = cupti_cb_run_int(run, "wall_ns"), e = cupti_cb_run_int(run, "exit_status");
			wall = w > wall ? w : wall;
			exit_status = e > exit_status ? e : exit_status;
		}
		json_decref(doc);
	}
	cupti_cb_run_merger_free(into_total);
	if (!status) {
		json_t *run0 = json_object_get(ranks[0], "run");
		json_object_set_new(total, "run", json_pack("{s:O?, s:I, s:I, s:n}", "argv", json_object_get(run0, "argv"),
							    "exit_status", (json_int_t)exit_status,
							    "wall_ns", (json_int_t)wall, "rank"));
		if (write_outputs(o, total, -1, stdout, ranks, nr))
			status = CUPTI_CB_RUN_EXIT_FAILED;
		else if (b->doc)
			status = compare(o, b, total, -1, stdout);
	}
	for (int i = 0; i < nr; i++)
		json_decref(ranks[i]);
	free(ranks);
	json_decref(total);
	return status;
}

int main(int argc, char **argv)
{
	struct cupti_cb_run_opts o;
	struct baseline b;
	int rc = cupti_cb_run_parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = load_baseline(&o, &b);
	if (!rc)
		rc = o.reports ? report_files(&o, &b) : run_program(&o, &b);
	json_decref(b.doc);
	free(b.rules);
	free(o.reports);
	return rc;
}
