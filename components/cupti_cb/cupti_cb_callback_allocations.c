/* cupti_cb_callback_allocations.c: see cupti_cb_callback_allocations.h. */
#include "cupti_cb_callback_allocations.h"

#include <stdlib.h>

enum { EMPTY = 0, TOMB = 1, BUSY = 2, MAX_PROBES = 64 };

static size_t slot_of(const struct cupti_cb_allocs *t, uint64_t ptr)
{
	/* Fibonacci hashing: allocation addresses share their low bits. */
	return (size_t)((ptr * 0x9E3779B97F4A7C15ull) >> 20) & t->mask;
}

int cupti_cb_allocs_init(struct cupti_cb_allocs *t, unsigned log2_slots)
{
	size_t n = (size_t)1 << log2_slots;
	t->mask = n - 1;
	t->keys = calloc(n, sizeof *t->keys);
	t->sizes = calloc(n, sizeof *t->sizes);
	atomic_init(&t->dropped, 0);
	atomic_init(&t->unknown, 0);
	if (!t->keys || !t->sizes) {
		cupti_cb_allocs_fini(t);
		return -1;
	}
	return 0;
}

void cupti_cb_allocs_fini(struct cupti_cb_allocs *t)
{
	free(t->keys);
	free(t->sizes);
	t->keys = NULL;
	t->sizes = NULL;
}

int cupti_cb_allocs_insert(struct cupti_cb_allocs *t, uint64_t ptr, uint64_t size)
{
	uint64_t replaced;
	return cupti_cb_allocs_put(t, ptr, size, &replaced);
}

int cupti_cb_allocs_put(struct cupti_cb_allocs *t, uint64_t ptr, uint64_t size, uint64_t *replaced)
{
	*replaced = 0;
	if (ptr <= BUSY)
		return -1;
	size_t s = slot_of(t, ptr);
	/* An entry left by an allocation freed while nothing counted frees
	 * would shadow this one: overwrite it. Only the thread the driver gave
	 * ptr to can be inserting ptr now. */
	for (int i = 0; i < MAX_PROBES; i++, s = (s + 1) & t->mask) {
		uint64_t k = atomic_load_explicit(&t->keys[s], memory_order_acquire);
		if (k == EMPTY)
			break;
		if (k == ptr) {
			*replaced = t->sizes[s];
			t->sizes[s] = size;
			return 0;
		}
	}
	s = slot_of(t, ptr);
	for (int i = 0; i < MAX_PROBES; i++, s = (s + 1) & t->mask) {
		uint64_t k = atomic_load_explicit(&t->keys[s], memory_order_relaxed);
		if (k != EMPTY && k != TOMB)
			continue;
		/* Claim the slot, fill it, then publish the key. */
		if (!atomic_compare_exchange_strong(&t->keys[s], &k, BUSY))
			continue;
		t->sizes[s] = size;
		atomic_store_explicit(&t->keys[s], ptr, memory_order_release);
		return 0;
	}
	atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
	return -1;
}

uint64_t cupti_cb_allocs_take(struct cupti_cb_allocs *t, uint64_t ptr)
{
	if (ptr <= BUSY)
		return 0;
	size_t s = slot_of(t, ptr);
	for (int i = 0; i < MAX_PROBES; i++, s = (s + 1) & t->mask) {
		uint64_t k = atomic_load_explicit(&t->keys[s], memory_order_acquire);
		if (k == EMPTY)
			break;
		if (k != ptr)
			continue;
		uint64_t size = t->sizes[s];
		if (atomic_compare_exchange_strong(&t->keys[s], &k, TOMB))
			return size;
		break;
	}
	atomic_fetch_add_explicit(&t->unknown, 1, memory_order_relaxed);
	return 0;
}
