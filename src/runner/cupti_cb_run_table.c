/* cupti_cb_run_table.c: a text table with columns as wide as their widest
 * cell, two spaces between columns, a rule of dashes under the headers (the
 * layout of nsys stats). Cells are copied, so callers may format into one
 * buffer row after row. */
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

struct cupti_cb_run_tab {
	int ncols, nrows, cap;
	char align[16];		/* 'l' or 'r' per column */
	char **cells;		/* (1 + nrows) * ncols: headers first */
};

struct cupti_cb_run_tab *cupti_cb_run_tab_new(int ncols, const char *const *headers, const char *align)
{
	struct cupti_cb_run_tab *t = calloc(1, sizeof *t);
	if (!t || ncols > (int)sizeof t->align - 1)
		abort();
	t->ncols = ncols;
	memcpy(t->align, align, (size_t)ncols);
	cupti_cb_run_tab_row(t, headers);
	t->nrows = 0;
	return t;
}

void cupti_cb_run_tab_row(struct cupti_cb_run_tab *t, const char *const *cells)
{
	int at = (t->cells ? t->nrows + 1 : 0) * t->ncols;
	if (at + t->ncols > t->cap) {
		t->cap = 2 * (at + t->ncols);
		t->cells = realloc(t->cells, sizeof *t->cells * (size_t)t->cap);
		if (!t->cells)
			abort();
	}
	for (int c = 0; c < t->ncols; c++) {
		t->cells[at + c] = strdup(cells[c] ? cells[c] : "");
		if (!t->cells[at + c])
			abort();
	}
	if (at)
		t->nrows++;
}

static void print_row(FILE *f, const struct cupti_cb_run_tab *t, char *const *row, const int *w)
{
	for (int c = 0; c < t->ncols; c++) {
		int last = c == t->ncols - 1;
		if (t->align[c] == 'r')
			fprintf(f, " %*s", w[c], row[c]);
		else if (last)
			fprintf(f, " %s", row[c]);
		else
			fprintf(f, " %-*s", w[c], row[c]);
		if (!last)
			fputc(' ', f);
	}
	fputc('\n', f);
}

void cupti_cb_run_tab_print(FILE *f, struct cupti_cb_run_tab *t)
{
	int w[16] = { 0 };
	char *rule[16];
	for (int r = 0; r <= t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			int l = (int)strlen(t->cells[r * t->ncols + c]);
			w[c] = l > w[c] ? l : w[c];
		}
	for (int c = 0; c < t->ncols; c++) {
		int l = (int)strlen(t->cells[c]);
		rule[c] = malloc((size_t)l + 1);
		if (!rule[c])
			abort();
		memset(rule[c], '-', (size_t)l);
		rule[c][l] = 0;
	}
	print_row(f, t, t->cells, w);
	print_row(f, t, rule, w);
	for (int r = 1; r <= t->nrows; r++)
		print_row(f, t, t->cells + r * t->ncols, w);
	for (int c = 0; c < t->ncols; c++)
		free(rule[c]);
}

void cupti_cb_run_tab_free(struct cupti_cb_run_tab *t)
{
	if (!t)
		return;
	for (int i = 0; i < (t->nrows + 1) * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}
