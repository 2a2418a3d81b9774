/* cupti_cb_run.h: the pieces of the cupti_cb_run program, one file each.
 *
 * The program's data is the report (schema "cupti_cb_run/1", see
 * man/cupti_cb_run.1) held as a jansson tree: process files are merged into
 * it, and the tables, the CSV, the comparison, the rank summary and the
 * high-level output are all read from it. One model, so that what the text
 * says and what the JSON says cannot differ. */
#ifndef CUPTI_CB_RUN_H
#define CUPTI_CB_RUN_H

#include <stdio.h>
#include <jansson.h>

#define CUPTI_CB_RUN_SCHEMA "cupti_cb_run/1"

/* Exit statuses of the runner itself (the program's own status otherwise). */
#define CUPTI_CB_RUN_EXIT_USAGE 2	/* bad options, bad --fail-above */
#define CUPTI_CB_RUN_EXIT_REGRESSED 3	/* --compare: a quantity went above its threshold */
#define CUPTI_CB_RUN_EXIT_FAILED 125	/* the runner could not do its own work */
#define CUPTI_CB_RUN_EXIT_NOEXEC 127	/* the program could not be executed */

/* ---- cupti_cb_run_opts.c: the command line */
struct cupti_cb_run_opts {
	const char *output;	/* -o: text tables (default stderr) */
	const char *csv;
	const char *json;
	const char *metrics;	/* as given: names and group names */
	const char *compare;	/* baseline report file */
	const char *fail_above;	/* rule list, or NULL for the default */
	const char *hl_output;	/* directory */
	long interval_ms;	/* 0: no live view */
	long start_after_ms;	/* 0: count from inside the first cuInit */
	int no_activity;
	int no_time;		/* --no-time: no host time, no clock read in the callbacks */
	int keep;
	int trace;
	const char *timeline;	/* --timeline FILE: a Chrome trace (cupti_cb_run_timeline.c) */
	const char *timeline_limit;	/* --timeline-limit: a size or a time, checked */
	const char *flame;	/* --flame: folded stacks */
	const char *flame_svg;	/* --flame-svg: the picture */
	long flame_hz;		/* --flame-cpu-hz: CPU samples per second of a thread's CPU time (0: none) */
	char **reports;		/* --report FILE...: no program */
	int n_reports;
	char **argv;		/* the program and its arguments */
	int argc;
};

/* 0 to go on; otherwise the exit status (0 after --help). */
int cupti_cb_run_parse_opts(int argc, char **argv, struct cupti_cb_run_opts *o);
void cupti_cb_run_usage(FILE *f);

/* ---- cupti_cb_run_env.c: the environment the injected library reads */
/* Expands group names and drops duplicates and "cupti_cb:::" prefixes; NULL
 * for an empty list. The result is malloc'd. */
char *cupti_cb_run_expand_metrics(const char *list);
int cupti_cb_run_set_env(const struct cupti_cb_run_opts *o, const char *dir);
const char *cupti_cb_run_inject_path(void);

/* ---- cupti_cb_run_why.c: why a run measured nothing */
/* Before the run: when no CUDA driver can be loaded, the program's
 * processes log the libraries they load into dir (LD_DEBUG=files), so that
 * a program that tried CUDA can be told from one that never did. */
void cupti_cb_run_watch_driver(const char *dir);
/* After a run without a process file: why, in one sentence. */
void cupti_cb_run_why_nothing(const char *dir, char *why, size_t n);

/* ---- cupti_cb_run_exec.c: running the program */
struct cupti_cb_run_child {
	int status;		/* what the runner returns: exit status, 128+N for signal N */
	long pid;
	int signal;		/* the signal that ended it, or 0 (it exited) */
	int exec_errno;		/* non-zero: the program could not be executed */
	long long wall_ns;
};
int cupti_cb_run_exec(char **argv, struct cupti_cb_run_child *c);

/* ---- cupti_cb_run_undo.c: what a merge changed, to take back when a file is refused */
struct cupti_cb_run_undo_entry;
struct cupti_cb_run_undo {
	struct cupti_cb_run_undo_entry *e;
	size_t n, cap;
};
/* obj[key] = v (v's reference is taken), the old value kept. key is not
 * copied: it must live until the commit or the rollback. */
void cupti_cb_run_undo_set(struct cupti_cb_run_undo *u, json_t *obj, const char *key, json_t *v);
void cupti_cb_run_undo_rollback(struct cupti_cb_run_undo *u);	/* every set taken back */
void cupti_cb_run_undo_commit(struct cupti_cb_run_undo *u);	/* every set kept */
void cupti_cb_run_undo_free(struct cupti_cb_run_undo *u);

/* ---- cupti_cb_run_merge.c: process files and reports into one report */
json_t *cupti_cb_run_report_new(void);
/* A report that files are merged into, with its rows indexed by key
 * (function and layer, device, metric and device, note), so that merging
 * is linear in the files' rows. The report must change only through it
 * while it lives (members other than the arrays of rows excepted). */
struct cupti_cb_run_merger;
struct cupti_cb_run_merger *cupti_cb_run_merger_new(json_t *report);
/* Adds a process file or a report; 0, or -1 with a sentence in why (and
 * the report as it was). */
int cupti_cb_run_merger_add(struct cupti_cb_run_merger *m, json_t *doc, char *why, size_t n);
/* How many rows of the report were compared with a row of a file to find
 * the one it adds to: one per row found, whatever the report's size. */
unsigned long long cupti_cb_run_merger_compared(const struct cupti_cb_run_merger *m);
void cupti_cb_run_merger_free(struct cupti_cb_run_merger *m);
/* One file into report: a merger for this file alone. */
int cupti_cb_run_merge(json_t *report, json_t *doc, char *why, size_t n);

/* ---- cupti_cb_run_load.c: reading files */
/* Merges every proc-*.json of dir; returns how many, or -1. Problems with
 * single files are said on err and the file is skipped. */
int cupti_cb_run_merge_dir(json_t *report, const char *dir, FILE *err);
/* A JSON object, or NULL with a sentence in why (a file that cannot be
 * read says why; one that is not JSON says where). */
json_t *cupti_cb_run_load(const char *path, char *why, size_t n);

/* ---- cupti_cb_run_check.c: a file is what the readers expect, or refused */
/* 0, or -1 with a sentence in why that names the row and the field. */
int cupti_cb_run_check(json_t *doc, char *why, size_t n);

/* ---- cupti_cb_run_quant.c: quantities read from a report */
long long cupti_cb_run_int(json_t *obj, const char *key);	/* 0 when absent */
/* a + b, held at LLONG_MAX (LLONG_MIN) instead of wrapping around: sums over
 * devices, functions or directions of a checked report can still exceed 64
 * bits, and a sum held at its limit still compares as "at least that". */
long long cupti_cb_run_add(long long a, long long b);
/* Sum over devices of one event; *present set when any device has it. */
long long cupti_cb_run_event_sum(json_t *report, const char *key, int *present);
long long cupti_cb_run_wall_sum(json_t *report);	/* processes' wall_ns summed */
/* Whether the report has host times: not when "host_time" is false (a run with --no-time,
 * or a process of it); a file without the key (an older library) has them. */
int cupti_cb_run_host_time(json_t *report);
/* Whether key (an event, or a function's field: time_ns, min_ns, max_ns) is a host time. */
int cupti_cb_run_is_host_time(const char *key);
const char *cupti_cb_run_unit(const char *key);
/* How a hardware metric combines over processes (and devices): a .sum adds
 * up, a .max or .min stays the extreme, any other (an average, a ratio, a
 * percentage, a rate, a peak) is a mean. */
enum cupti_cb_run_how { CUPTI_CB_RUN_SUM, CUPTI_CB_RUN_MIN, CUPTI_CB_RUN_MAX, CUPTI_CB_RUN_MEAN };
enum cupti_cb_run_how cupti_cb_run_metric_how(const char *name);
extern const char *const cupti_cb_run_device_events[];	/* NULL-terminated */

/* ---- cupti_cb_run_table.c: aligned text tables */
struct cupti_cb_run_tab;
struct cupti_cb_run_tab *cupti_cb_run_tab_new(int ncols, const char *const *headers, const char *align);
void cupti_cb_run_tab_row(struct cupti_cb_run_tab *t, const char *const *cells);
void cupti_cb_run_tab_print(FILE *f, struct cupti_cb_run_tab *t);
void cupti_cb_run_tab_free(struct cupti_cb_run_tab *t);

/* ---- cupti_cb_run_tables.c, _csv.c: the reports */
void cupti_cb_run_print_tables(FILE *f, json_t *report);
void cupti_cb_run_print_csv(FILE *f, json_t *report);
/* " process PID did not count: ..." (or ended before its file, with the
 * counts it published) for each such process of the report. */
void cupti_cb_run_print_process_status(FILE *f, json_t *report, const char *prefix);
/* A process row that ended before it wrote its file gets a reason that
 * says how: pid and sig are the program's (sig 0: it exited with code). */
void cupti_cb_run_explain_unfinished(json_t *report, long pid, int sig, int code);

/* ---- cupti_cb_run_threads.c: per-thread rows (pid + tid) */
void cupti_cb_run_merge_threads(json_t *report, json_t *doc);
void cupti_cb_run_threads_table(FILE *out, json_t *report);
/* row: the CSV writer's row function (cupti_cb_run_csv.c). */
void cupti_cb_run_threads_csv(FILE *f, json_t *report,
			      void (*row)(FILE *, const char *, const char *, json_t *, json_t *, const char *));

/* ---- cupti_cb_run_compare.c: --compare and --fail-above */
struct cupti_cb_run_rule {
	char kind[16];
	char name[128];
	double pct;
};
/* 0, or -1 with a sentence in why. */
int cupti_cb_run_parse_rules(const char *spec, struct cupti_cb_run_rule **rules, size_t *n, char *why, size_t whyn);
/* Whether the rule compares a host time (time:F, event:sync.time_ns), which a run with
 * --no-time does not measure. */
int cupti_cb_run_rule_host_time(const char *kind, const char *name);
/* One sentence on err for each rule whose function, event or metric
 * neither report has; returns how many. */
int cupti_cb_run_rules_unmatched(FILE *err, const char *base_name, json_t *base, json_t *now,
				 const struct cupti_cb_run_rule *rules, size_t n);
/* Prints the comparison; returns how many quantities regressed. */
int cupti_cb_run_compare(FILE *f, const char *base_name, json_t *base, json_t *now,
			 const struct cupti_cb_run_rule *rules, size_t n);
extern const char cupti_cb_run_default_rules[];

/* ---- cupti_cb_run_ranks.c: MPI ranks, per-rank file names, --report */
int cupti_cb_run_rank(void);	/* -1 outside MPI */
/* %r, %p, %h, %% expanded; .rank<N> inserted when ranked and no %r. malloc'd. */
char *cupti_cb_run_file_name(const char *pattern, int rank);
void cupti_cb_run_print_ranks(FILE *f, json_t **reports, int n);

/* ---- cupti_cb_run_hl.c: PAPI high-level output */
/* DIR made if it is not there, and writable: 0, or -1 with a sentence in
 * why. Before the program runs, so that a wrong --hl-output is said at once. */
int cupti_cb_run_hl_dir(const char *dir, char *why, size_t n);
int cupti_cb_run_write_hl(const char *dir, json_t *report, int rank, char *why, size_t n);

/* ---- cupti_cb_run_timeline.c: --timeline FILE (the processes append; the runner writes the
 * head before the run and the tail after) */
#define CUPTI_CB_RUN_TIMELINE_DEFAULT_BYTES (1ull << 30)
struct cupti_cb_run_timeline {
	char *path;
	unsigned long long t0;	/* the origin: CLOCK_REALTIME ns when the program starts */
	int open;
};
/* A --timeline-limit: bytes ("500M") or milliseconds ("30s"); 0, or -1 when it is neither. */
int cupti_cb_run_timeline_limit(const char *s, unsigned long long *bytes, unsigned long long *ms);
/* The head written and the environment set (or unset, without --timeline); 0, or -1 with a
 * sentence in why. */
int cupti_cb_run_timeline_open(struct cupti_cb_run_timeline *t, const struct cupti_cb_run_opts *o, int rank,
			       char *why, size_t n);
/* The tail written (pid: the program's); 0, or -1 (said on stderr). */
int cupti_cb_run_timeline_close(struct cupti_cb_run_timeline *t, long pid);

#endif
