/* cupti_cb_run_flame.c: see cupti_cb_run_flame.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run_flame.h"

struct table {
	struct cupti_cb_run_stack *s;	/* open addressing by the frames' hash */
	size_t cap, n;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int grow(struct table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct cupti_cb_run_stack *s = calloc(cap, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].frames) {
			size_t j = hash(t->s[i].frames) & (cap - 1);
			while (s[j].frames)
				j = (j + 1) & (cap - 1);
			s[j] = t->s[i];
		}
	free(t->s);
	t->s = s;
	t->cap = cap;
	return 0;
}

static int add(struct table *t, const char *frames, uint64_t w)
{
	if (2 * (t->n + 1) > t->cap && grow(t))
		return -1;
	size_t j = hash(frames) & (t->cap - 1);
	while (t->s[j].frames && strcmp(t->s[j].frames, frames))
		j = (j + 1) & (t->cap - 1);
	if (!t->s[j].frames) {
		if (!(t->s[j].frames = strdup(frames)))
			return -1;
		t->n++;
	}
	t->s[j].weight += w;
	return 0;
}

/* "frames WEIGHT": the weight after the last space; lines that are not so are skipped. */
static int add_line(struct table *t, char *line)
{
	line[strcspn(line, "\n")] = '\0';
	char *sp = strrchr(line, ' '), *end;
	if (line[0] == '#' || !sp || sp == line)
		return 0;
	errno = 0;
	unsigned long long w = strtoull(sp + 1, &end, 10);
	if (errno || *end || end == sp + 1)
		return 0;
	*sp = '\0';
	return add(t, line, w);
}

static int is_flame_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return !strncmp(d->d_name, "flame-", 6) && n > 13 && !strcmp(d->d_name + n - 7, ".folded");
}

static int by_frames(const void *a, const void *b)
{
	return strcmp(((const struct cupti_cb_run_stack *)a)->frames, ((const struct cupti_cb_run_stack *)b)->frames);
}

long cupti_cb_run_flame_read(const char *dir, struct cupti_cb_run_stack **out)
{
	struct table t = { 0 };
	struct dirent **names;
	int n = scandir(dir, &names, is_flame_file, alphasort), bad = 0;
	char path[4096], *line = NULL;
	size_t cap = 0;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		FILE *f = fopen(path, "r");
		while (f && !bad && getline(&line, &cap, f) > 0)
			bad = add_line(&t, line);
		if (f)
			fclose(f);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	free(line);
	size_t k = 0;	/* packed to the front, then sorted: the order readers want */
	for (size_t i = 0; i < t.cap; i++)
		if (t.s[i].frames)
			t.s[k++] = t.s[i];
	if (k)
		qsort(t.s, k, sizeof *t.s, by_frames);
	*out = t.s;
	if (bad) {
		cupti_cb_run_flame_free(t.s, (long)k);
		*out = NULL;
		return -1;
	}
	return (long)k;
}

void cupti_cb_run_flame_free(struct cupti_cb_run_stack *s, long n)
{
	for (long i = 0; i < n; i++)
		free(s[i].frames);
	free(s);
}

/* Header lines start with '#' and never end in a number: flamegraph.pl, inferno and
 * speedscope skip them (the first two say they ignored them). */
void cupti_cb_run_flame_folded(FILE *f, const struct cupti_cb_run_stack *s, long n, long hz)
{
	fprintf(f, "# cupti_cb_run flame graph, folded stacks (flamegraph.pl, inferno, speedscope): weights in ns\n");
	fprintf(f, "# a stack ending in [GPU_Kernel], [GPU_Memcpy ...] or [GPU_Memset] weighs the GPU time of that work\n");
	if (hz > 0)
		fprintf(f, "# every other stack is CPU samples: each weighs 1e9/%ld ns (%ld Hz of the thread's CPU time)\n",
			hz, hz);
	for (long i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", s[i].frames, (unsigned long long)s[i].weight);
}

static FILE *open_named(const char *name)
{
	if (!strcmp(name, "-"))
		return stdout;
	FILE *f = fopen(name, "w");
	if (!f)
		fprintf(stderr, "cupti_cb_run: cannot write %s: %s\n", name, strerror(errno));
	return f;
}

static int close_named(FILE *f, const char *name)
{
	int bad = !f;
	if (f && f != stdout) {
		bad = ferror(f) | fclose(f);
		if (bad)
			fprintf(stderr, "cupti_cb_run: writing %s failed\n", name);
	} else if (f) {
		fflush(f);
	}
	return bad;
}

int cupti_cb_run_flame_write(const char *folded, const char *svg, long hz, const char *dir, char **argv, int argc)
{
	char title[256] = "";
	for (int i = 0; i < argc; i++) {	/* the command line, cut at the title's size */
		size_t at = strlen(title);
		snprintf(title + at, sizeof title - at, "%s%s", i ? " " : "", argv[i]);
	}
	struct cupti_cb_run_stack *s;
	long n = cupti_cb_run_flame_read(dir, &s);
	int bad = 0;
	if (n < 0) {
		fprintf(stderr, "cupti_cb_run: the flame graph could not be merged: out of memory\n");
		return -1;
	}
	if (n == 0)
		fprintf(stderr, "cupti_cb_run: the flame graph is empty: no process recorded a stack\n");
	if (folded) {
		FILE *f = open_named(folded);
		if (f)
			cupti_cb_run_flame_folded(f, s, n, hz);
		bad |= close_named(f, folded);
	}
	if (svg) {
		FILE *f = open_named(svg);
		if (f)
			cupti_cb_run_flame_svg(f, s, n, hz, title);
		bad |= close_named(f, svg);
	}
	cupti_cb_run_flame_free(s, n);
	return bad ? -1 : 0;
}
