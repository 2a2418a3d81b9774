/* cupti_cb_run_flame.h: the flame graph of a run (--flame, --flame-svg, --flame-cpu-hz;
 * cupti_cb_run(1), "FLAME GRAPH").  The injected library of each process writes
 * flame-PID.folded into the run directory (src/inject/cupti_cb_inject_flame.h); the runner
 * merges them: identical stacks summed, sorted, under a header that states the unit.
 * Weights are nanoseconds: GPU time for a stack that ends in a [GPU_...] frame, 1e9/Hz per
 * CPU sample for the others. */
#ifndef CUPTI_CB_RUN_FLAME_H
#define CUPTI_CB_RUN_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cupti_cb_run_stack {
	char *frames;		/* "root;...;leaf" */
	uint64_t weight;	/* ns */
};

/* The stacks of every flame-*.folded in dir, merged and sorted; their number, or -1 (out of
 * memory).  *out is malloc'd (cupti_cb_run_flame_free). */
long cupti_cb_run_flame_read(const char *dir, struct cupti_cb_run_stack **out);
void cupti_cb_run_flame_free(struct cupti_cb_run_stack *s, long n);
/* The folded file: the header, then one line per stack. */
void cupti_cb_run_flame_folded(FILE *f, const struct cupti_cb_run_stack *s, long n, long hz);
/* The picture (cupti_cb_run_flame_svg.c): an SVG that a browser shows as it is. */
void cupti_cb_run_flame_svg(FILE *f, const struct cupti_cb_run_stack *s, long n, long hz, const char *title);
/* After the run: writes the files asked for (NULL: not asked; "-": standard output), the
 * picture titled with the program's command line; 0, or -1. */
int cupti_cb_run_flame_write(const char *folded, const char *svg, long hz, const char *dir, char **argv, int argc);

#endif
