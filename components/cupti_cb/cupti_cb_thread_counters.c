/* cupti_cb_thread_counters.c: see cupti_cb_thread_counters.h. */
#include "cupti_cb_thread_counters.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

CUPTI_CB_TLS struct cupti_cb_thread_counters *cupti_cb_tls_counters;
CUPTI_CB_TLS int cupti_cb_tls_own;
CUPTI_CB_TLS unsigned cupti_cb_tls_generation;
CUPTI_CB_TLS unsigned cupti_cb_tls_registry;

static atomic_uint generations = 1;

void cupti_cb_layout_init(struct cupti_cb_layout *lay, int n_devices)
{
	memset(lay, 0, sizeof *lay);
	lay->n_devrows = (unsigned)n_devices + 1;
}

size_t cupti_cb_layout_add(struct cupti_cb_layout *lay, size_t words)
{
	size_t off = lay->total;
	lay->total += words;
	return off;
}

/* The calling thread's name, as the kernel knows it (prctl: no file to
 * open, unlike pthread_getname_np for another thread). */
static void set_name(struct cupti_cb_thread_counters *b)
{
	char name[CUPTI_CB_THREAD_NAME] = "";
	uint64_t w[CUPTI_CB_THREAD_NAME / 8];
	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		name[0] = '\0';
	name[CUPTI_CB_THREAD_NAME - 1] = '\0';
	memcpy(w, name, sizeof w);
	for (unsigned i = 0; i < CUPTI_CB_THREAD_NAME / 8; i++)
		atomic_store_explicit(&b->name[i], w[i], memory_order_relaxed);
}

/* The calling thread becomes b's owner. */
static void set_owner(struct cupti_cb_thread_counters *b)
{
	atomic_store_explicit(&b->tid, (long)syscall(SYS_gettid), memory_order_relaxed);
	set_name(b);
}

void cupti_cb_thread_owner(const struct cupti_cb_thread_counters *b, struct cupti_cb_thread_owner *o)
{
	uint64_t w[CUPTI_CB_THREAD_NAME / 8];
	for (unsigned i = 0; i < CUPTI_CB_THREAD_NAME / 8; i++)
		w[i] = atomic_load_explicit(&b->name[i], memory_order_relaxed);
	memcpy(o->name, w, sizeof o->name);
	o->name[CUPTI_CB_THREAD_NAME - 1] = '\0';
	o->tid = atomic_load_explicit(&b->tid, memory_order_relaxed);
	o->exited = atomic_load_explicit(&b->free, memory_order_acquire);
	o->owners = atomic_load_explicit(&b->owners, memory_order_relaxed);
	o->id = b->id;
}

static void thread_exit(void *arg)
{
	struct cupti_cb_thread_counters *b = arg;
	set_name(b);	/* a thread named after its first CUDA call */
	/* A CUDA call from a later destructor of this thread takes a new
	 * counter set rather than writing into one another thread may adopt. */
	cupti_cb_tls_counters = NULL;
	/* A set left running with overflow armed must not signal the thread
	 * that adopts the counter set (nor a thread that reuses the id). */
	atomic_store_explicit(&b->ovf, NULL, memory_order_relaxed);
	atomic_store_explicit(&b->free, 1, memory_order_release);
}

int cupti_cb_thread_registry_init(struct cupti_cb_thread_registry *r, const struct cupti_cb_layout *lay)
{
	r->lay = *lay;
	atomic_init(&r->head, NULL);
	atomic_init(&r->n_counters, 0);
	r->key_live = 0;
	r->id = atomic_fetch_add(&generations, 1);
	r->own_max = CUPTI_CB_THREAD_COUNTERS_OWN;
	return cupti_cb_thread_registry_attach(r);
}

int cupti_cb_thread_registry_attach(struct cupti_cb_thread_registry *r)
{
	if (r->key_live)
		return 0;
	if (pthread_key_create(&r->exit_key, thread_exit))
		return -1;
	r->key_live = 1;
	r->generation = atomic_fetch_add(&generations, 1);
	return 0;
}

void cupti_cb_thread_registry_detach(struct cupti_cb_thread_registry *r)
{
	if (!r->key_live)
		return;
	pthread_key_delete(r->exit_key);
	r->key_live = 0;
	/* Threads alive now keep their counter sets marked in use; their counts stay
	 * readable in process scope, and each takes a counter set again (through the
	 * new key) at its next counted call after attach. */
	r->generation = atomic_fetch_add(&generations, 1);
}

void cupti_cb_thread_registry_fini(struct cupti_cb_thread_registry *r)
{
	struct cupti_cb_thread_counters *b = atomic_load(&r->head);
	cupti_cb_thread_registry_detach(r);
	while (b) {
		struct cupti_cb_thread_counters *next = b->next;
		free(b);
		b = next;
	}
	atomic_store(&r->head, NULL);
	if (cupti_cb_tls_generation == r->generation)
		cupti_cb_tls_counters = NULL;
}

static struct cupti_cb_thread_counters *adopt(struct cupti_cb_thread_registry *r)
{
	for (struct cupti_cb_thread_counters *b = atomic_load(&r->head); b; b = b->next) {
		int one = 1;
		if (atomic_load_explicit(&b->free, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&b->free, &one, 0)) {
			set_owner(b);
			atomic_fetch_add_explicit(&b->owners, 1, memory_order_relaxed);
			return b;
		}
	}
	return NULL;
}

static struct cupti_cb_thread_counters *create(struct cupti_cb_thread_registry *r)
{
	size_t size = sizeof(struct cupti_cb_thread_counters) + r->lay.total * sizeof(_Atomic uint64_t);
	struct cupti_cb_thread_counters *b = aligned_alloc(64, (size + 63) / 64 * 64);
	if (!b)
		return NULL;
	memset(b, 0, size);
	for (size_t i = 0; i < r->lay.total; i++)
		atomic_init(&b->c[i], 0);
	atomic_init(&b->free, 0);
	atomic_init(&b->repeats, 0);
	atomic_init(&b->unmatched, 0);
	atomic_init(&b->ovf, NULL);
	atomic_init(&b->tid, 0);
	for (unsigned i = 0; i < CUPTI_CB_THREAD_NAME / 8; i++)
		atomic_init(&b->name[i], 0);
	atomic_init(&b->owners, 1);
	set_owner(b);
	b->id = atomic_fetch_add(&r->n_counters, 1) + 1;
	b->next = atomic_load(&r->head);
	while (!atomic_compare_exchange_weak(&r->head, &b->next, b))
		;
	return b;
}

/* Runs once per thread: the first counted call of a thread pays for it. */
struct cupti_cb_thread_counters *cupti_cb_thread_counters_slow(struct cupti_cb_thread_registry *r)
{
	/* After a detach/attach (PAPI_shutdown, PAPI_library_init) a thread
	 * keeps the counter set it had: only the thread-exit key is new. */
	if (cupti_cb_tls_counters && cupti_cb_tls_registry == r->id) {
		struct cupti_cb_thread_counters *own = cupti_cb_tls_counters;
		if (r->key_live)
			pthread_setspecific(r->exit_key, own);
		cupti_cb_tls_generation = r->generation;
		return own;
	}
	/* A thread that never made a counted call gets no counter set for cupti_cb's own driver
	 * calls (cupti_cb_own_begin): its callbacks are not counted. */
	if (cupti_cb_tls_own)
		return NULL;
	/* Below the bound every thread has a counter set of its own: its counts stay
	 * its own after it exits (attached reads, listings). The count is read
	 * without a lock: threads racing past the bound make a few more. */
	struct cupti_cb_thread_counters *b = NULL;
	if (atomic_load_explicit(&r->n_counters, memory_order_relaxed) >= r->own_max)
		b = adopt(r);
	if (!b)
		b = create(r);
	if (!b)
		return NULL;
	b->rt_corr = 0;
	b->in_lookup = 0;
	b->last_ctx = NULL;
	b->last_dev = -1;
	b->pending_free = 0;
	b->last_site = 0;
	b->n_pending = 0;
	atomic_store_explicit(&b->ovf, NULL, memory_order_relaxed);
	if (r->key_live)
		pthread_setspecific(r->exit_key, b);
	cupti_cb_tls_counters = b;
	cupti_cb_tls_generation = r->generation;
	cupti_cb_tls_registry = r->id;
	return b;
}

uint64_t cupti_cb_probe_process(const struct cupti_cb_probe *p, const struct cupti_cb_thread_registry *r)
{
	uint64_t v = 0;
	for (const struct cupti_cb_thread_counters *b = atomic_load_explicit(&r->head, memory_order_acquire); b;
	     b = b->next)
		v += cupti_cb_probe_thread(p, b);
	return v;
}

void cupti_cb_probe_process_many(const struct cupti_cb_probe *p, const uint8_t *which, unsigned n,
				 const struct cupti_cb_thread_registry *r, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		if (which[i])
			out[i] = 0;
	/* Counter sets outside, events inside: one walk of the list, and each
	 * counter set's lines are read together. */
	for (const struct cupti_cb_thread_counters *b = atomic_load_explicit(&r->head, memory_order_acquire); b;
	     b = b->next)
		for (unsigned i = 0; i < n; i++)
			if (which[i])
				out[i] += cupti_cb_probe_thread(&p[i], b);
}

unsigned cupti_cb_thread_registry_list(const struct cupti_cb_thread_registry *r, struct cupti_cb_thread_owner *out, unsigned max)
{
	unsigned n = 0;
	for (const struct cupti_cb_thread_counters *b = atomic_load_explicit(&r->head, memory_order_acquire); b;
	     b = b->next, n++)
		if (n < max)
			cupti_cb_thread_owner(b, &out[n]);
	return n;
}

unsigned cupti_cb_thread_registry_find(const struct cupti_cb_thread_registry *r, long tid, const struct cupti_cb_thread_counters **out,
				unsigned max)
{
	unsigned n = 0;
	for (const struct cupti_cb_thread_counters *b = atomic_load_explicit(&r->head, memory_order_acquire); b; b = b->next)
		if (atomic_load_explicit(&b->tid, memory_order_relaxed) == tid) {
			if (n < max)
				out[n] = b;
			n++;
		}
	return n;
}
