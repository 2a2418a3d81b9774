/* bench_where.c: libbench_where.so, where a process's CPU time goes, by library and function,
 * with nothing installed on the GPU machine (no perf there).  Preloaded (LD_PRELOAD) into a
 * workload, under any tool; run-runner-bench uses it to show where the runner's cost above
 * CUPTI's floor is spent.
 *
 * Sampling is a SIGPROF timer on the process's CPU time (ITIMER_PROF, every BENCH_WHERE_US us,
 * default 1000: the kernel's tick is the real resolution), or, with BENCH_WHERE_THREAD_US=N, a
 * timer on the monotonic clock every N us whose signal goes to the thread that called
 * bench_where_begin() alone: the launching thread of a single-threaded workload, sampled at up
 * to 10 kHz, so that a share of a few per cent is measured to a few tenths of a per cent in one
 * process (its time waiting counts as the function it waits in).  The handler stores the interrupted
 * instruction pointer and whether the thread is the main one into a preallocated array: no
 * allocation, no lock (the thread's id is one system call).  The timer runs between bench_where_begin() and bench_where_end(), which
 * a workload calls around its timed part (bench_app_loop through a weak reference, the torch
 * step through ctypes), or from the start when BENCH_WHERE_ALL=1.
 *
 * At bench_where_end() (or exit) the samples are resolved with dladdr() and written to
 * $BENCH_WHERE_OUT.<pid>, one line per (library, nearest exported symbol, offset in the
 * library) with its count, all threads and the thread with the most samples (top=); nothing is written without BENCH_WHERE_OUT or
 * without samples.  Offsets in libraries without exported symbols for their static functions
 * (libpapi, where the component lives) can be resolved afterwards with addr2line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES (1u << 20)

struct sample {
	uintptr_t ip;
	pid_t tid;
};

static struct sample *samples;
static atomic_uint n_samples;
static atomic_int running;
static const char *out_prefix;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si;
	if (!atomic_load_explicit(&running, memory_order_relaxed))
		return;
	unsigned i = atomic_fetch_add_explicit(&n_samples, 1, memory_order_relaxed);
	if (i >= MAX_SAMPLES)
		return;
#if defined(__x86_64__)
	samples[i].ip = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	samples[i].ip = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
	samples[i].ip = 0;
	(void)uc;
#endif
	samples[i].tid = (pid_t)syscall(SYS_gettid);
}

static timer_t thread_timer;
static int have_thread_timer;

static void set_timer(long us)
{
	struct itimerval t = { { us / 1000000, us % 1000000 }, { us / 1000000, us % 1000000 } };
	setitimer(ITIMER_PROF, &t, NULL);
}

/* SIGPROF to this thread every us of wall time; 0 when it could not be set. */
static int set_thread_timer(long us)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &thread_timer))
		return 0;
	struct itimerspec t = { { us / 1000000, us % 1000000 * 1000 }, { us / 1000000, us % 1000000 * 1000 } };
	if (timer_settime(thread_timer, 0, &t, NULL)) {
		timer_delete(thread_timer);
		return 0;
	}
	have_thread_timer = 1;
	return 1;
}

__attribute__((visibility("default"))) void bench_where_begin(void)
{
	if (!samples)
		return;
	const char *v = getenv("BENCH_WHERE_US"), *tv = getenv("BENCH_WHERE_THREAD_US");
	long us = v ? atol(v) : 1000, tus = tv ? atol(tv) : 0;
	atomic_store(&running, 1);
	if (tus > 0 && set_thread_timer(tus))
		return;
	set_timer(us > 0 ? us : 1000);
}

struct row {
	char lib[96], sym[96];
	uintptr_t off;
	unsigned n, n_top;
};

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return (x->n < y->n) - (x->n > y->n);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path ? path : "?");
}

/* The samples by library and symbol (cold path: after the timer stopped). */
static void dump(void)
{
	unsigned n = atomic_load(&n_samples);
	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	if (!n || !out_prefix)
		return;
	struct row *rows = calloc(n, sizeof *rows);
	if (!rows)
		return;
	/* the thread with the most samples: the launching thread of a workload */
	pid_t top = 0;
	unsigned n_top = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;
		for (unsigned j = 0; j < n; j++)
			c += samples[j].tid == samples[i].tid;
		if (c > n_top)
			n_top = c, top = samples[i].tid;
		if (n_top > n / 2)
			break;
	}
	unsigned n_rows = 0;
	for (unsigned i = 0; i < n; i++) {
		Dl_info di;
		struct row r = { .off = 0 };
		if (samples[i].ip && dladdr((void *)samples[i].ip, &di) && di.dli_fname) {
			snprintf(r.lib, sizeof r.lib, "%s", base(di.dli_fname));
			snprintf(r.sym, sizeof r.sym, "%s", di.dli_sname ? di.dli_sname : "-");
			r.off = samples[i].ip - (uintptr_t)di.dli_fbase;
		} else {
			snprintf(r.lib, sizeof r.lib, "[unknown]");	/* the kernel's, the vdso's, JIT code */
			snprintf(r.sym, sizeof r.sym, "-");
		}
		/* rows keyed by library and symbol (the offset kept is the first seen), but in libpapi,
		 * whose static functions (the component's) have no exported symbol: by offset */
		int exact = !strncmp(r.lib, "libpapi", 7);
		unsigned k = 0;
		while (k < n_rows && (strcmp(rows[k].lib, r.lib) || strcmp(rows[k].sym, r.sym) ||
				      (exact && rows[k].off != r.off)))
			k++;
		if (k == n_rows)
			rows[n_rows++] = r;
		rows[k].n++;
		rows[k].n_top += samples[i].tid == top;
	}
	qsort(rows, n_rows, sizeof *rows, by_count);
	char path[512];
	snprintf(path, sizeof path, "%s.%d", out_prefix, (int)getpid());
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "where samples=%u top_thread=%u clock=%s\n", n, n_top,
			have_thread_timer ? "thread-wall" : "process-cpu");
		for (unsigned k = 0; k < n_rows; k++)
			fprintf(f, "sym n=%u top=%u lib=%s sym=%s off=0x%lx\n", rows[k].n, rows[k].n_top, rows[k].lib,
				rows[k].sym, (unsigned long)rows[k].off);
		fclose(f);
	}
	free(rows);
	atomic_store(&n_samples, 0);
}

__attribute__((visibility("default"))) void bench_where_end(void)
{
	if (!atomic_exchange(&running, 0))
		return;
	if (have_thread_timer)
		timer_delete(thread_timer);
	else
		set_timer(0);
	dump();
}

static void at_exit(void)
{
	bench_where_end();
}

__attribute__((constructor)) static void setup(void)
{
	out_prefix = getenv("BENCH_WHERE_OUT");
	if (!out_prefix || !*out_prefix)
		return;
	samples = calloc(MAX_SAMPLES, sizeof *samples);
	if (!samples)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	atexit(at_exit);
	const char *all = getenv("BENCH_WHERE_ALL");
	if (all && !strcmp(all, "1"))
		bench_where_begin();
}
