/* cupti_cb_run_flame_svg.c: the flame graph as a picture, an SVG that a browser shows as it is
 * (no script).  Written here rather than by a tool the project would install: Brendan Gregg's
 * flamegraph.pl is in no Debian 12 or Ubuntu 24.04 package, inferno is a Rust crate (cargo and
 * the network at build time), and the picture is a few rectangles, which C writes without a
 * dependency.  The layout is flamegraph.pl's: the root at the bottom, each frame as wide as
 * its weight, children in the order of the sorted stacks; every frame has a <title> (its
 * name, weight and share), which a browser shows when the mouse is over it.
 *
 * Colours say what a frame is: GPU work ([GPU_...]) green, the CUDA call that issued it blue,
 * Python functions (perf map names, py::) yellow, frames without a name grey, the program's
 * other functions in warm colours by a hash of their name (stable from run to run). */
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run_flame.h"

#define WIDTH 1200
#define PAD 10
#define ROW 16
#define TOP 56
#define BOTTOM 10
#define FONT 12
#define CHAR_W 7.2	/* an average character of FONT px Verdana */
#define MIN_W 0.1	/* narrower frames are left out, as flamegraph.pl does */

struct node {
	const char *name;
	size_t len;
	int depth;
	uint64_t start, end;
};

struct layout {
	struct node *n;
	size_t count, cap;
	size_t *open;		/* the open frame at each depth */
	int max_depth;
};

/* The i-th frame of a stack: [*at, *at + *len). */
static int split(const char *s, const char **at, size_t *len, int max)
{
	int k = 0;
	while (k < max) {
		size_t l = strcspn(s, ";");
		at[k] = s;
		len[k++] = l;
		if (!s[l])
			break;
		s += l + 1;
	}
	return k;
}

static int push(struct layout *L, const char *name, size_t len, int depth, uint64_t start)
{
	if (L->count == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 1024;
		struct node *p = realloc(L->n, cap * sizeof *p);
		if (!p)
			return -1;
		L->n = p;
		L->cap = cap;
	}
	L->n[L->count] = (struct node){ name, len, depth, start, start };
	L->open[depth] = L->count++;
	if (depth > L->max_depth)
		L->max_depth = depth;
	return 0;
}

#define MAX_FRAMES 1024

/* flamegraph.pl's flow: between two sorted stacks, the frames past their common prefix close
 * and the new ones open, at the running total of weights. */
static int lay_out(struct layout *L, const struct cupti_cb_run_stack *s, long n, uint64_t *total)
{
	static const char *prev_at[MAX_FRAMES], *at[MAX_FRAMES];
	static size_t prev_len[MAX_FRAMES], len[MAX_FRAMES];
	int prev_n = 0;
	uint64_t t = 0;
	L->open = calloc(MAX_FRAMES + 1, sizeof *L->open);
	if (!L->open || push(L, "all", 3, 0, 0))
		return -1;
	for (long i = 0; i < n; i++) {
		int k = split(s[i].frames, at, len, MAX_FRAMES), same = 0;
		while (same < k && same < prev_n && len[same] == prev_len[same] && !memcmp(at[same], prev_at[same], len[same]))
			same++;
		for (int d = prev_n; d > same; d--)
			L->n[L->open[d]].end = t;
		for (int d = same; d < k; d++)
			if (push(L, at[d], len[d], d + 1, t))
				return -1;
		memcpy(prev_at, at, sizeof at[0] * (size_t)k);
		memcpy(prev_len, len, sizeof len[0] * (size_t)k);
		prev_n = k;
		t += s[i].weight;
	}
	for (int d = prev_n; d > 0; d--)
		L->n[L->open[d]].end = t;
	L->n[0].end = t;
	*total = t;
	return 0;
}

/* Text as XML takes it: markup escaped, control characters (which XML 1.0 forbids) as '?'. */
static void put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
		}
	}
}

static int starts(const struct node *x, const char *p)
{
	size_t n = strlen(p);
	return x->len >= n && !memcmp(x->name, p, n);
}

static void colour(const struct node *x, char *out, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < x->len; i++)
		h = (h ^ (unsigned char)x->name[i]) * 16777619u;
	unsigned v1 = h % 50, v2 = (h >> 8) % 60, v3 = (h >> 16) % 40;
	if (starts(x, "[GPU_"))
		snprintf(out, n, "rgb(%u,%u,%u)", 40 + v3, 170 + v1, 60 + v3);
	else if (starts(x, "cuda") || (x->len > 2 && x->name[0] == 'c' && x->name[1] == 'u' && x->name[2] >= 'A' &&
				       x->name[2] <= 'Z'))
		snprintf(out, n, "rgb(%u,%u,%u)", 70 + v3, 140 + v2, 215 + v3 % 30);
	else if (starts(x, "py::"))
		snprintf(out, n, "rgb(%u,%u,%u)", 215 + v3 % 30, 195 + v3, 60 + v2);
	else if (x->name[0] == '[')
		snprintf(out, n, "rgb(%u,%u,%u)", 170 + v3, 170 + v3, 170 + v3);
	else
		snprintf(out, n, "rgb(%u,%u,%u)", 205 + v1, 60 + 3 * v2, 30 + v3);
}

static void frame(FILE *f, const struct node *x, uint64_t total, double scale, int height)
{
	double w = (double)(x->end - x->start) * scale;
	if (w < MIN_W)
		return;
	double xpos = PAD + (double)x->start * scale;
	int y = height - BOTTOM - (x->depth + 1) * ROW;
	char fill[40];
	colour(x, fill, sizeof fill);
	fputs("<g><title>", f);
	put_escaped(f, x->name, x->len);
	fprintf(f, " (%llu ns, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\" ry=\"2\"/>", (unsigned long long)(x->end - x->start),
		total ? 100.0 * (double)(x->end - x->start) / (double)total : 0.0, xpos, y, w, ROW - 1, fill);
	size_t fit = w > 3 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
	if (fit >= 3) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\">", xpos + 3, y + ROW - 4);
		if (x->len <= fit) {
			put_escaped(f, x->name, x->len);
		} else {
			put_escaped(f, x->name, fit - 2);
			fputs("..", f);
		}
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

void cupti_cb_run_flame_svg(FILE *f, const struct cupti_cb_run_stack *s, long n, long hz, const char *title)
{
	struct layout L = { 0 };
	uint64_t total = 0;
	if (lay_out(&L, s, n, &total)) {
		free(L.n);
		free(L.open);
		fprintf(stderr, "cupti_cb_run: the flame graph's picture could not be made: out of memory\n");
		return;
	}
	int height = TOP + (L.max_depth + 1) * ROW + BOTTOM;
	double scale = total ? (double)(WIDTH - 2 * PAD) / (double)total : 0;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }"
		" .title { font-size: 17px; } .sub { fill: rgb(80,80,80); }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(250,250,245)\"/>\n",
		WIDTH, height, WIDTH, height, FONT, WIDTH, height);
	fputs("<text class=\"title\" x=\"600\" y=\"22\" text-anchor=\"middle\">Flame graph of ", f);
	put_escaped(f, title, strlen(title));
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"sub\" x=\"600\" y=\"42\" text-anchor=\"middle\">width: %s; total %.3f ms",
		hz > 0 ? "GPU time of the work each stack issued and CPU time sampled" : "GPU time of the work each stack issued",
		(double)total / 1e6);
	if (hz > 0)
		fprintf(f, " (CPU samples at %ld Hz)", hz);
	fputs("</text>\n", f);
	for (size_t i = 0; i < L.count; i++)
		frame(f, &L.n[i], total, scale, height);
	fputs("</svg>\n", f);
	free(L.n);
	free(L.open);
}
