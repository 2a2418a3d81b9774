/* cupti_cb_callback_allocations.h: the sizes of live allocations, so that a free can be
 * counted in bytes (cuMemFree takes only a pointer).
 *
 * A fixed-size open-addressing table, lock-free: inserts and removals of
 * different pointers run concurrently from any thread, and the driver never
 * returns a live address twice, so one key is never inserted twice at once.
 * Probing is bounded: a full neighbourhood drops the entry (counted), and
 * that free is then counted in calls but not in bytes. */
#ifndef CUPTI_CB_CALLBACK_ALLOCATIONS_H
#define CUPTI_CB_CALLBACK_ALLOCATIONS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct cupti_cb_allocs {
	size_t mask;
	_Atomic uint64_t *keys;
	uint64_t *sizes;
	_Atomic uint64_t dropped;	/* inserts that found no free slot */
	_Atomic uint64_t unknown;	/* takes of a pointer the table did not hold */
};

int cupti_cb_allocs_init(struct cupti_cb_allocs *t, unsigned log2_slots);
void cupti_cb_allocs_fini(struct cupti_cb_allocs *t);
/* 0 on success, -1 when the neighbourhood is full or ptr is 0. */
int cupti_cb_allocs_insert(struct cupti_cb_allocs *t, uint64_t ptr, uint64_t size);
/* The same; *replaced is the size of an entry of ptr it overwrote (one
 * whose free was not seen), else 0. */
int cupti_cb_allocs_put(struct cupti_cb_allocs *t, uint64_t ptr, uint64_t size, uint64_t *replaced);
/* Removes ptr; returns its size, or 0 when it was not recorded. */
uint64_t cupti_cb_allocs_take(struct cupti_cb_allocs *t, uint64_t ptr);

#endif
