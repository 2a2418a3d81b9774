/* cupti_cb_run_timeline.c: --timeline FILE. The runner makes FILE before the program runs and
 * writes its head; the program's processes (the injected library, src/inject/
 * cupti_cb_inject_timeline.c) append their events to it while they run, one write at a time;
 * after the run the runner writes the tail. So the file is a Chrome trace (JSON object format)
 * once the run is over, and no process, the runner included, holds the trace in memory.
 *
 * The origin of the trace's times is the runner's CLOCK_REALTIME when it starts the program, on
 * which CUPTI's clock lies (cupti_cb_run(1), TIMELINE): every process subtracts the same one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cb_run.h"

/* "500M", "2G", "100K", "1048576" (bytes); "30s", "500ms", "10min" (time). 0, or -1. */
int cupti_cb_run_timeline_limit(const char *s, unsigned long long *bytes, unsigned long long *ms)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || v == 0)
		return -1;
	static const struct {
		const char *suffix;
		unsigned long long scale;
		int time;
	} units[] = { { "", 1, 0 }, { "K", 1ull << 10, 0 }, { "M", 1ull << 20, 0 }, { "G", 1ull << 30, 0 },
		      { "ms", 1, 1 }, { "s", 1000, 1 }, { "min", 60000, 1 } };
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(end, units[i].suffix)) {
			if (v > ULLONG_MAX / units[i].scale)
				return -1;
			*(units[i].time ? ms : bytes) = v * units[i].scale;
			return 0;
		}
	return -1;
}

static unsigned long long realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int cupti_cb_run_timeline_open(struct cupti_cb_run_timeline *t, const struct cupti_cb_run_opts *o, int rank,
			       char *why, size_t n)
{
	char num[32];
	memset(t, 0, sizeof *t);
	unsetenv("CUPTI_CB_RUN_TIMELINE");
	unsetenv("CUPTI_CB_RUN_TIMELINE_T0");
	unsetenv("CUPTI_CB_RUN_TIMELINE_MAX_BYTES");
	unsetenv("CUPTI_CB_RUN_TIMELINE_MAX_MS");
	if (!o->timeline)
		return 0;
	unsigned long long bytes = CUPTI_CB_RUN_TIMELINE_DEFAULT_BYTES, ms = 0;
	if (o->timeline_limit) {
		bytes = 0;
		cupti_cb_run_timeline_limit(o->timeline_limit, &bytes, &ms);	/* checked with the options */
	}
	t->path = cupti_cb_run_file_name(o->timeline, rank);
	char *abs = t->path ? realpath(".", NULL) : NULL;
	FILE *f = t->path ? fopen(t->path, "w") : NULL;
	if (!f) {
		snprintf(why, n, "cannot write %s: %s", t->path ? t->path : o->timeline, strerror(errno));
		free(abs);
		return -1;
	}
	t->t0 = realtime_ns();
	fprintf(f, "{\"traceEvents\":[\n");
	fclose(f);
	/* The processes open it by this name, whatever directory they change to. */
	char *full = NULL;
	if (t->path[0] == '/' || !abs || asprintf(&full, "%s/%s", abs, t->path) < 0)
		full = strdup(t->path);
	free(abs);
	int rc = setenv("CUPTI_CB_RUN_TIMELINE", full ? full : t->path, 1);
	free(full);
	snprintf(num, sizeof num, "%llu", t->t0);
	rc |= setenv("CUPTI_CB_RUN_TIMELINE_T0", num, 1);
	if (bytes) {
		snprintf(num, sizeof num, "%llu", bytes);
		rc |= setenv("CUPTI_CB_RUN_TIMELINE_MAX_BYTES", num, 1);
	}
	if (ms) {
		snprintf(num, sizeof num, "%llu", ms);
		rc |= setenv("CUPTI_CB_RUN_TIMELINE_MAX_MS", num, 1);
	}
	t->open = 1;
	if (rc) {
		snprintf(why, n, "cannot set the environment for %s", t->path);
		return -1;
	}
	return 0;
}

int cupti_cb_run_timeline_close(struct cupti_cb_run_timeline *t, long pid)
{
	if (!t->open)
		return 0;
	t->open = 0;
	FILE *f = fopen(t->path, "a");
	int rc = -1;
	if (f) {
		/* The last element carries no comma: the processes' events each end with one. */
		fprintf(f, "{\"ph\":\"M\",\"name\":\"cupti_cb_run\",\"pid\":%ld,\"args\":{\"origin_ns\":%llu}}\n"
			   "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"cupti_cb_run %s\","
			   "\"origin_ns\":%llu,\"clock\":\"CUPTI timestamps (cuptiGetTimestamp); host calls put on "
			   "them through anchors\"}}\n",
			pid, t->t0, PACKAGE_VERSION, t->t0);
		rc = fclose(f);
	}
	if (rc)
		fprintf(stderr, "cupti_cb_run: --timeline: cannot complete %s: %s\n", t->path, strerror(errno));
	free(t->path);
	t->path = NULL;
	return rc ? -1 : 0;
}
