/* cupti_cb_inject_stacks.c: see cupti_cb_inject_stacks.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "cupti_cb_inject_stacks.h"

enum { CLAIMED, READY, DEAD };

struct slot {
	_Atomic uint64_t key;		/* the chain's hash (never 0), 0: free */
	_Atomic uint32_t state;		/* CLAIMED while its writer copies the chain */
	uint32_t depth, off;		/* the chain: pool[off .. off + depth - 1] */
	_Atomic uint64_t samples;	/* CPU samples that ended in this stack */
};

/* libunwind's unw_backtrace (libunwind.so.8: the copy installed beside this library, else the
 * system's), found at the start; NULL: libgcc's _Unwind_Backtrace.  Both walk .eh_frame; libunwind
 * keeps what it learnt of each return address (its "fast trace"), so that a walk costs about
 * 7 ns a frame on an AMD EPYC, against 90 ns a frame and 1.3 us more for libgcc's (which decodes
 * each frame's unwind tables again at every walk).  Where the tables end (a Python trampoline)
 * it goes on by frame pointers, as the fallback below does. */
typedef int (*unw_backtrace_fn)(void **, int);
static unw_backtrace_fn fast_walk;
static char walker_name[64] = "libgcc's _Unwind_Backtrace";

static struct slot *slots;
static uintptr_t *pool;
static _Atomic uint32_t pool_used;
static _Atomic uint64_t lost;

/* Per thread, initial-exec: a signal handler may read them (no lazy TLS allocation). */
static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));
static __thread int taking __attribute__((tls_model("initial-exec")));

static void find_libunwind(void)
{
	Dl_info self;
	void *h = NULL;
	char path[4096];
	if (dladdr((void *)find_libunwind, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		if (slash) {
			snprintf(path, sizeof path, "%.*s/libunwind.so.8", (int)(slash - self.dli_fname), self.dli_fname);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (!h)
		h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	const char *w = getenv("CUPTI_CB_RUN_FLAME_WALKER");	/* "libgcc": the fallback, for tests */
	if (!h || (w && !strcmp(w, "libgcc")))
		return;
	/* Its cache per thread: a signal handler's walk never waits for another thread's. */
	int (*policy)(void *, int) = (int (*)(void *, int))dlsym(h, "_ULx86_64_set_caching_policy");
	void **space = dlsym(h, "_ULx86_64_local_addr_space");
	if (policy && space)
		policy(*space, 2 /* UNW_CACHE_PER_THREAD */);
	*(void **)&fast_walk = dlsym(h, "unw_backtrace");
	if (fast_walk)
		snprintf(walker_name, sizeof walker_name, "libunwind's unw_backtrace");
}

const char *cupti_cb_inj_stacks_walker(void)
{
	return walker_name;
}

int cupti_cb_inj_stacks_init(void)
{
	find_libunwind();
	slots = calloc(CUPTI_CB_INJ_STACKS, sizeof *slots);
	pool = malloc((size_t)CUPTI_CB_INJ_STACK_POOL * sizeof *pool);	/* untouched pages cost nothing */
	return slots && pool ? 0 : -1;
}

void cupti_cb_inj_stacks_thread(void)
{
	pthread_attr_t a;
	void *base;
	size_t size;
	if (stack_hi || pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &base, &size) == 0) {
		stack_lo = (uintptr_t)base;
		stack_hi = (uintptr_t)base + size;
	}
	pthread_attr_destroy(&a);
}

struct walk {
	uintptr_t *pcs;
	unsigned n;
	int skip;
	uintptr_t last_ip, last_bp;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);
	if (!ip)
		return _URC_END_OF_STACK;
	w->last_ip = ip;
	w->last_bp = _Unwind_GetGR(ctx, 6);	/* rbp, DWARF register 6 on x86-64 */
	if (w->skip > 0) {
		w->skip--;
		return _URC_NO_REASON;
	}
	if (w->n >= CUPTI_CB_INJ_STACK_DEPTH)
		return _URC_END_OF_STACK;
	w->pcs[w->n++] = ip;
	return _URC_NO_REASON;
}

/* The unwinder stopped at code no loaded object covers (no unwind tables there): frame
 * pointers from that frame on, while they stay inside this thread's stack and go up it.
 * (dladdr takes the loader's lock: this fallback never runs in a signal handler.) */
static void frame_pointer_walk(struct walk *w)
{
	Dl_info o;
	if (!stack_hi || w->n == 0 || w->n >= CUPTI_CB_INJ_STACK_DEPTH || dladdr((void *)(w->last_ip - 1), &o))
		return;
	uintptr_t bp = w->last_bp;
	while (w->n < CUPTI_CB_INJ_STACK_DEPTH && bp >= stack_lo && bp + 16 <= stack_hi && !(bp & 7)) {
		const uintptr_t *f = (const uintptr_t *)bp;
		if (!f[1])
			break;
		w->pcs[w->n++] = f[1];
		if (f[0] <= bp)
			break;
		bp = f[0];
	}
}

static uint64_t chain_hash(const uintptr_t *p, unsigned n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (unsigned i = 0; i < n; i++) {
		h = (h ^ p[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1;
}

/* Claims slot s (its key just set to the chain's hash) for the chain. */
static uint32_t fill(struct slot *s, uint32_t i, const uintptr_t *pcs, unsigned n)
{
	uint32_t off = atomic_fetch_add_explicit(&pool_used, n, memory_order_relaxed);
	if (off + (uint64_t)n > CUPTI_CB_INJ_STACK_POOL) {
		atomic_store_explicit(&s->state, DEAD, memory_order_release);
		atomic_fetch_add(&lost, 1);
		return 0;
	}
	memcpy(pool + off, pcs, n * sizeof *pcs);
	s->off = off;
	s->depth = n;
	atomic_store_explicit(&s->state, READY, memory_order_release);
	return i + 1;
}

/* A writer never waits on its own thread: a handler that interrupted a capture takes none. */
static uint32_t intern(const uintptr_t *pcs, unsigned n)
{
	uint64_t h = chain_hash(pcs, n);
	for (uint32_t probe = 0; probe < 64; probe++) {
		uint32_t i = (uint32_t)(h + probe) & (CUPTI_CB_INJ_STACKS - 1);
		struct slot *s = &slots[i];
		uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (k == 0 && atomic_compare_exchange_strong(&s->key, &k, h))
			return fill(s, i, pcs, n);
		if (k != h)
			continue;
		uint32_t st;
		while ((st = atomic_load_explicit(&s->state, memory_order_acquire)) == CLAIMED)
			;	/* another thread copies at most CUPTI_CB_INJ_STACK_DEPTH words */
		if (st == READY && s->depth == n && !memcmp(pool + s->off, pcs, n * sizeof *pcs))
			return i + 1;
	}
	atomic_fetch_add(&lost, 1);
	return 0;
}

uint32_t cupti_cb_inj_stack_take(int skip)
{
	uintptr_t pcs[CUPTI_CB_INJ_STACK_DEPTH];
	if (!slots || taking) {	/* a CPU sample's handler interrupted a capture of this thread */
		atomic_fetch_add(&lost, 1);
		return 0;
	}
	taking = 1;
	struct walk w = { pcs, 0, skip + 1 /* this function */, 0, 0 };
	if (fast_walk) {
		/* Its first address is in its caller, this function: skip + 1 to leave out. */
		int n = fast_walk((void **)pcs, CUPTI_CB_INJ_STACK_DEPTH), drop = skip + 1;
		w.n = n > drop ? (unsigned)(n - drop) : 0;
		memmove(pcs, pcs + drop, w.n * sizeof *pcs);
	} else {
		_Unwind_Backtrace(step, &w);
		frame_pointer_walk(&w);
	}
	uint32_t id = w.n ? intern(pcs, w.n) : 0;
	taking = 0;
	return id;
}

unsigned cupti_cb_inj_stack_get(uint32_t id, const uintptr_t **pcs)
{
	if (!slots || id == 0 || id > CUPTI_CB_INJ_STACKS)
		return 0;
	const struct slot *s = &slots[id - 1];
	if (atomic_load_explicit(&s->state, memory_order_acquire) != READY)
		return 0;
	*pcs = pool + s->off;
	return s->depth;
}

void cupti_cb_inj_stack_sample(uint32_t id, uint64_t n)
{
	if (slots && id && id <= CUPTI_CB_INJ_STACKS)
		atomic_fetch_add_explicit(&slots[id - 1].samples, n, memory_order_relaxed);
}

uint64_t cupti_cb_inj_stack_samples(uint32_t id)
{
	return slots && id && id <= CUPTI_CB_INJ_STACKS ? atomic_load(&slots[id - 1].samples) : 0;
}

uint64_t cupti_cb_inj_stacks_lost(void)
{
	return atomic_load(&lost);
}
