/* cupti_cb_inject_flame.c: see cupti_cb_inject_flame.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti_activity.h>

#include "cupti_cb.h"
#include "cupti_cb_inject_cpu_samples.h"
#include "cupti_cb_inject_flame.h"
#include "cupti_cb_inject_tap.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_stacks.h"
#include "cupti_cb_inject_symbols.h"

/* The issuing calls, by correlation id (as cupti_cb's own table, cupti_cb_correlation.h):
 * corr << 32 | stack << 12 | call, one store each; a graph launch's kernels all find it. */
#define LAUNCH_BITS 20
#define LAUNCHES (1u << LAUNCH_BITS)
#define CALLS 4096	/* CUDA functions that issue work (ids fit 12 bits) */
#define AGGS (1u << 16)	/* distinct (stack, call, work) */
#define LEAVES 8192	/* distinct pieces of GPU work: kernel names, copy kinds */

struct agg {
	uint32_t stack, call, leaf;	/* leaf: index + 1 in leaves */
	uint64_t ns;
};

static struct {
	int on;
	long hz;
	_Atomic uint64_t *launches;
	_Atomic(const char *) calls[CALLS];
	/* written by the work callback only (one at a time), read after the stop */
	struct agg *aggs;
	char *leaves[LEAVES];
	uint64_t lost_ns, unknown_records;
} fl;

static __thread int thread_known __attribute__((tls_model("initial-exec")));

/* ---- while the program runs ---------------------------------------------- */

static uint32_t call_id(const char *name)
{
	if (!name)
		return 0;
	uint32_t h = (uint32_t)(((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 40);
	for (uint32_t k = 0; k < CALLS; k++) {
		uint32_t i = (h + k) % (CALLS - 1);	/* ids 1 .. CALLS - 1 */
		const char *v = atomic_load_explicit(&fl.calls[i], memory_order_acquire);
		if (!v && atomic_compare_exchange_strong(&fl.calls[i], &v, name))
			return i + 1;
		if (v == name)
			return i + 1;
	}
	return 0;
}

static void on_issue(void *arg, uint32_t corr, const char *call)
{
	(void)arg;
	if (!thread_known) {	/* once per thread: its stack bounds */
		thread_known = 1;
		cupti_cb_inj_stacks_thread();
	}
	uint64_t stack = cupti_cb_inj_stack_take(1);
	uint64_t v = (uint64_t)corr << 32 | stack << 12 | call_id(call);
	atomic_store_explicit(&fl.launches[corr & (LAUNCHES - 1)], v, memory_order_release);
}

static const char *copy_name(int kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[GPU_Memcpy HtoD]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[GPU_Memcpy DtoH]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "[GPU_Memcpy HtoA]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "[GPU_Memcpy AtoH]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "[GPU_Memcpy AtoA]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "[GPU_Memcpy AtoD]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "[GPU_Memcpy DtoA]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[GPU_Memcpy DtoD]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "[GPU_Memcpy HtoH]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "[GPU_Memcpy PtoP]";
	default: return "[GPU_Memcpy]";
	}
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The leaf's index + 1: "K" and a kernel's mangled name (demangled at the end), or the text of
 * a copy's or memset's leaf; 0 when the table is full. */
static uint32_t leaf_id(const struct cupti_cb_tap_work *w)
{
	char kname[1024];
	const char *text;
	if (w->kind == CUPTI_CB_TAP_KERNEL) {
		snprintf(kname, sizeof kname, "K%s", w->name ? w->name : "");
		text = kname;
	} else {
		text = w->kind == CUPTI_CB_TAP_MEMSET ? "[GPU_Memset]" : copy_name(w->copy_kind);
	}
	uint64_t h = str_hash(text);
	for (uint32_t k = 0; k < LEAVES; k++) {
		uint32_t i = (uint32_t)(h + k) % LEAVES;
		if (!fl.leaves[i]) {
			fl.leaves[i] = strdup(text);
			return fl.leaves[i] ? i + 1 : 0;
		}
		if (!strcmp(fl.leaves[i], text))
			return i + 1;
	}
	return 0;
}

static void on_work(void *arg, const struct cupti_cb_tap_work *w)
{
	(void)arg;
	uint64_t ns = w->end > w->start ? w->end - w->start : 0;
	uint64_t v = atomic_load_explicit(&fl.launches[w->correlation & (LAUNCHES - 1)], memory_order_acquire);
	uint32_t stack = 0, call = 0;
	if ((uint32_t)(v >> 32) == w->correlation) {
		stack = (uint32_t)(v >> 12) & 0xfffff;
		call = (uint32_t)v & 0xfff;
	} else {
		fl.unknown_records++;
	}
	uint32_t leaf = leaf_id(w);
	uint64_t h = ((uint64_t)stack * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)call << 20) ^ ((uint64_t)leaf * 0xff51afd7ed558ccdull);
	for (uint32_t k = 0; leaf && k < 256; k++) {
		struct agg *a = &fl.aggs[(h + k) & (AGGS - 1)];
		if (!a->leaf)
			*a = (struct agg){ stack, call, leaf, 0 };
		if (a->stack == stack && a->call == call && a->leaf == leaf) {
			a->ns += ns;
			return;
		}
	}
	fl.lost_ns += ns;
}

static const struct cupti_cb_tap hooks = { .issue = on_issue, .work = on_work };

void cupti_cb_inj_flame_start(struct cupti_cb_inj *s)
{
	const char *on = getenv("CUPTI_CB_RUN_FLAME"), *hz = getenv("CUPTI_CB_RUN_FLAME_HZ");
	if (!on || strcmp(on, "1"))
		return;
	fl.hz = hz ? strtol(hz, NULL, 10) : 0;
	if (fl.hz < 0 || fl.hz > 100000)
		fl.hz = 0;
	fl.launches = calloc(LAUNCHES, sizeof *fl.launches);
	fl.aggs = calloc(AGGS, sizeof *fl.aggs);
	if (!fl.launches || !fl.aggs || cupti_cb_inj_stacks_init() != 0) {
		cupti_cb_inj_note(s, "the flame graph was not made: out of memory");
		return;
	}
	fl.on = 1;
	if (!strstr(cupti_cb_inj_stacks_walker(), "libunwind"))
		cupti_cb_inj_note(s, "the flame graph's stacks were taken with %s: libunwind.so.8 was not found "
				  "(beside the injected library, or on the system), whose walks cost less",
				  cupti_cb_inj_stacks_walker());
	cupti_cb_inj_tap_join(CUPTI_CB_INJ_TAP_FLAME, &hooks);
	if (fl.hz > 0)
		cupti_cb_inj_cpu_samples_start(s, fl.hz);
}

/* ---- the file --------------------------------------------------------------- */

/* A frame name as the folded format needs it: no ';' (the separator), no newline. */
static void put_name(FILE *f, const char *n)
{
	for (; *n; n++)
		fputc(*n == ';' ? ':' : *n == '\n' ? ' ' : *n, f);
}

/* The frames of stack id, root first, from the program's first own frame (the C library's
 * start-up and _start left out) to its last before CUDA (or CUPTI, PAPI, this library).
 * Returns how many; *cut: the first CUDA frame, when there is one. */
static unsigned program_frames(struct cupti_cb_inj_symbols *y, uint32_t id, struct cupti_cb_inj_frame *out,
			       struct cupti_cb_inj_frame *cut, int *has_cut)
{
	const uintptr_t *pcs;
	unsigned n = cupti_cb_inj_stack_get(id, &pcs), k = 0;
	int root = 1;
	*has_cut = 0;
	for (unsigned i = n; i-- > 0;) {
		struct cupti_cb_inj_frame fr;
		cupti_cb_inj_symbols_frame(y, pcs[i], &fr);
		if (root && ((fr.object && (!strncmp(fr.object, "libc.so", 7) || !strncmp(fr.object, "ld-linux", 8))) ||
			     !strcmp(fr.name, "_start")))
			continue;
		root = 0;
		if (fr.cuda) {
			*cut = fr;
			*has_cut = 1;
			break;
		}
		if (k && fr.name[0] == '[' && !strcmp(out[k - 1].name, fr.name))
			continue;	/* one [object] frame for a run of unnamed ones */
		out[k++] = fr;
	}
	return k;
}

static void put_frames(FILE *f, const struct cupti_cb_inj_frame *fr, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputc(';', f);
		put_name(f, fr[i].name);
	}
}

/* A CUDA function's name without its version and per-thread-stream suffixes
 * (cudaLaunchKernel_v7000 -> cudaLaunchKernel, cuMemcpyHtoD_v2 -> cuMemcpyHtoD,
 * cudaMemcpyAsync_ptsz_v7000 -> cudaMemcpyAsync), as cupti_cb's events name it. */
static size_t without_suffix(const char *call, size_t n)
{
	if (n > 5 && (!strncmp(call + n - 5, "_ptsz", 5) || !strncmp(call + n - 5, "_ptds", 5)))
		return n - 5;
	size_t d = n;
	while (d > 0 && call[d - 1] >= '0' && call[d - 1] <= '9')
		d--;
	return d < n && d >= 3 && call[d - 1] == 'v' && call[d - 2] == '_' ? d - 2 : n;
}

static void put_call(FILE *f, const char *call)
{
	size_t n = strlen(call), m;
	while ((m = without_suffix(call, n)) != n)	/* _v2_ptsz, _ptsz_v7000 */
		n = m;
	fprintf(f, "%.*s", (int)n, call);
}

static void write_gpu(FILE *f, struct cupti_cb_inj_symbols *y, const struct agg *a,
		      struct cupti_cb_inj_frame *fr)
{
	struct cupti_cb_inj_frame cut;
	int has_cut;
	const char *leaf = fl.leaves[a->leaf - 1];
	unsigned n = a->stack ? program_frames(y, a->stack, fr, &cut, &has_cut) : 0;
	int kernel = leaf[0] == 'K';
	/* nvcc's host function of a kernel has the kernel's own (mangled) name: part of the launch */
	if (kernel && n && fr[n - 1].raw && !strcmp(fr[n - 1].raw, leaf + 1))
		n--;
	if (!a->stack)
		fputs("[unknown stack]", f);
	put_frames(f, fr, n);
	const char *call = a->call ? atomic_load(&fl.calls[a->call - 1]) : NULL;
	if (call) {
		if (n || !a->stack)
			fputc(';', f);
		put_call(f, call);
	}
	fputc(';', f);
	if (kernel) {
		fputs("[GPU_Kernel]", f);
		put_name(f, leaf[1] ? cupti_cb_inj_symbols_demangle(y, leaf + 1) : "unknown");
	} else {
		fputs(leaf, f);
	}
	fprintf(f, " %llu\n", (unsigned long long)a->ns);
}

/* A CPU sample's stack: the program's frames, and the CUDA function it is in, if any. */
static void write_cpu(FILE *f, struct cupti_cb_inj_symbols *y, uint32_t id, uint64_t weight,
		      struct cupti_cb_inj_frame *fr)
{
	struct cupti_cb_inj_frame cut;
	int has_cut;
	unsigned n = program_frames(y, id, fr, &cut, &has_cut);
	if (!n && !has_cut)
		return;
	put_frames(f, fr, n);
	if (has_cut) {
		if (n)
			fputc(';', f);
		put_name(f, cut.name);
	}
	fprintf(f, " %llu\n", (unsigned long long)weight);
}

static int write_file(struct cupti_cb_inj *s)
{
	char tmp[4096], final[4096];
	snprintf(final, sizeof final, "%s/flame-%d.folded", s->run_dir, (int)getpid());
	snprintf(tmp, sizeof tmp, "%s/.tmp-flame-%d", s->run_dir, (int)getpid());
	FILE *f = fopen(tmp, "w");
	struct cupti_cb_inj_symbols *y = cupti_cb_inj_symbols_open();
	struct cupti_cb_inj_frame *fr = malloc(CUPTI_CB_INJ_STACK_DEPTH * sizeof *fr);
	if (!f || !y || !fr) {
		if (f)
			fclose(f);
		unlink(tmp);
		cupti_cb_inj_symbols_close(y);
		free(fr);
		return -1;
	}
	for (uint32_t i = 0; i < AGGS; i++)
		if (fl.aggs[i].leaf)
			write_gpu(f, y, &fl.aggs[i], fr);
	uint64_t period = fl.hz > 0 ? 1000000000ull / (uint64_t)fl.hz : 0;
	for (uint32_t id = 1; period && id <= CUPTI_CB_INJ_STACKS; id++) {
		uint64_t n = cupti_cb_inj_stack_samples(id);
		if (n)
			write_cpu(f, y, id, n * period, fr);
	}
	cupti_cb_inj_symbols_close(y);
	free(fr);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, final) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

void cupti_cb_inj_flame_finish(struct cupti_cb_inj *s)
{
	if (!fl.on)
		return;
	cupti_cb_inj_cpu_samples_stop();
	cupti_cb_inj_tap_leave(CUPTI_CB_INJ_TAP_FLAME);
	if (fl.lost_ns)
		cupti_cb_inj_note(s, "the flame graph left out %llu ns of GPU time: more than %u distinct stacks "
				  "and pieces of GPU work", (unsigned long long)fl.lost_ns, AGGS);
	if (cupti_cb_inj_stacks_lost())
		cupti_cb_inj_note(s, "the flame graph lost %llu stacks (the stack table was full, or a CPU sample "
				  "came while the thread was taking a stack)", (unsigned long long)cupti_cb_inj_stacks_lost());
	if (fl.unknown_records)
		cupti_cb_inj_note(s, "the flame graph has %llu pieces of GPU work under [unknown stack]: their "
				  "calls were made before it started, or too long before their records came",
				  (unsigned long long)fl.unknown_records);
	if (write_file(s) != 0)
		cupti_cb_inj_note(s, "the flame graph could not be written in %s: %s", s->run_dir, strerror(errno));
}
