/* cupti_cb_run_env.c: the environment that tells the injected library what
 * to count and where to write (the contract in man/cupti_cb_run.1,
 * ENVIRONMENT). Set in the runner before the fork: the runner itself never
 * starts CUDA, so nothing here acts on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* realpath, readlink under -std=c11 */
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_cb_run.h"
#include "cupti_cb_metric_group_table.h"

#ifndef CUPTI_CB_RUN_INJECT_PATH
#error "CUPTI_CB_RUN_INJECT_PATH must name the installed injected library"
#endif

/* The library beside this program as make install lays them out (<prefix>/bin and
 * <prefix>/lib/cupti_cb), so that a prefix copied or moved elsewhere, or a build installed into
 * another prefix than a build before it was compiled for, finds its own library; "" if none. */
static const char *beside_us(void)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return "";
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return "";
	*slash = '\0';
	char guess[PATH_MAX + 64];
	snprintf(guess, sizeof guess, "%s/../lib/cupti_cb/libcupti_cb_inject.so", exe);
	if (access(guess, R_OK) != 0 || !realpath(guess, path))
		return "";
	return path;
}

const char *cupti_cb_run_inject_path(void)
{
	/* Tests point at the library of the build tree. */
	const char *p = getenv("CUPTI_CB_RUN_INJECT");
	if (p && *p)
		return p;
	p = beside_us();
	return *p ? p : CUPTI_CB_RUN_INJECT_PATH;
}

/* Appends name to the comma-separated out unless already there. */
static void add_name(char *out, const char *name, size_t len)
{
	const char *p = out;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && !strncmp(p, name, len))
			return;
		p += l + (e != NULL);
	}
	if (*out)
		strcat(out, ",");
	strncat(out, name, len);
}

char *cupti_cb_run_expand_metrics(const char *list)
{
	size_t cap = 1;
	/* Room for every group at every word: the expansion is never longer. */
	for (unsigned g = 0; g < cupti_cb_n_metric_groups; g++)
		for (unsigned i = 0; cupti_cb_metric_group_table[g].metrics[i]; i++)
			cap += strlen(cupti_cb_metric_group_table[g].metrics[i]) + 1;
	cap += strlen(list) + 1;
	char *out = calloc(1, cap);
	if (!out)
		return NULL;
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char word[256];
		size_t wl = len < sizeof word ? len : sizeof word - 1;
		memcpy(word, p, wl);
		word[wl] = 0;
		const char *w = word;
		if (!strncmp(w, "cupti_cb:::", 11))
			w += 11;
		const struct cupti_cb_metric_group *g = cupti_cb_metric_group_find(w);
		if (g)
			for (unsigned i = 0; g->metrics[i]; i++)
				add_name(out, g->metrics[i], strlen(g->metrics[i]));
		else if (*w)
			add_name(out, w, strlen(w));
		p += len + (e != NULL);
	}
	if (!*out) {
		free(out);
		return NULL;
	}
	return out;
}

int cupti_cb_run_set_env(const struct cupti_cb_run_opts *o, const char *dir)
{
	char num[32];
	int rc = 0;
	rc |= setenv("CUDA_INJECTION64_PATH", cupti_cb_run_inject_path(), 1);
	rc |= setenv("CUPTI_CB_RUN_DIR", dir, 1);
	rc |= setenv("CUPTI_CB_RUN_ACTIVITY", o->no_activity ? "0" : "1", 1);
	rc |= setenv("CUPTI_CB_RUN_TIME", o->no_time ? "0" : "1", 1);
	unsetenv("CUPTI_CB_RUN_METRICS");
	if (o->metrics) {
		char *m = cupti_cb_run_expand_metrics(o->metrics);
		if (m)
			rc |= setenv("CUPTI_CB_RUN_METRICS", m, 1);
		free(m);
	}
	unsetenv("CUPTI_CB_RUN_INTERVAL_MS");
	if (o->interval_ms > 0) {
		snprintf(num, sizeof num, "%ld", o->interval_ms);
		rc |= setenv("CUPTI_CB_RUN_INTERVAL_MS", num, 1);
	}
	unsetenv("CUPTI_CB_RUN_START");
	if (o->start_after_ms > 0) {
		snprintf(num, sizeof num, "defer:%ld", o->start_after_ms);
		rc |= setenv("CUPTI_CB_RUN_START", num, 1);
	}
	unsetenv("CUPTI_CB_RUN_FLAME");
	unsetenv("CUPTI_CB_RUN_FLAME_HZ");
	if (o->flame || o->flame_svg) {
		snprintf(num, sizeof num, "%ld", o->flame_hz);
		rc |= setenv("CUPTI_CB_RUN_FLAME", "1", 1);
		rc |= setenv("CUPTI_CB_RUN_FLAME_HZ", num, 1);
	}
	unsetenv("CUPTI_CB_RUN_TRACE");
	if (o->trace)
		rc |= setenv("CUPTI_CB_RUN_TRACE", "1", 1);
	return rc ? -1 : 0;
}
