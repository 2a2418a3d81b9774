/* cupti_cb_correlation.h: which thread issued a piece of GPU work, by CUPTI
 * correlation id. The callback hot path writes, at the driver-domain ENTER
 * of each launch, graph launch, copy and memset, the id of the calling
 * thread's counter set under the call's correlation id; the thread that
 * processes activity buffers looks it up from the record's correlation id.
 *
 * A fixed table of one 64-bit word per slot (correlation id << 32 | counter set
 * id), indexed by the correlation id's low bits: one atomic store to
 * write, one atomic load to read, no lock, no allocation. CUPTI hands out
 * correlation ids in increasing order across the process, so the entry a
 * write replaces is always older than the one it writes (overwrite-oldest):
 * a record whose issuing call is more than CUPTI_CB_CORRELATION_SLOTS correlation
 * ids older than the newest recorded call is not found, and counts as
 * unattributed (process scope only). Every CUDA call takes a correlation
 * id, and CUPTI may keep completed buffers until a flush: with 2^17 slots,
 * 16 threads launching 10,200 kernels each between flushes lost up to 3% of
 * a thread's kernels to process scope on an H100 (run-activity-bench); 2^20
 * slots hold about a million calls between flushes. A graph launch's
 * kernels all carry the launch's correlation id, so lookups never consume
 * an entry. */
#ifndef CUPTI_CB_CORRELATIONELATION_H
#define CUPTI_CB_CORRELATIONELATION_H

#include <stdatomic.h>
#include <stdint.h>

#define CUPTI_CB_CORRELATION_BITS  20	/* 8 MiB, made at the first gpu.* start */
/* Set in a slot once the call's first record was processed (or the call
 * failed, so that none will come): counter set ids stay below it. */
#define CUPTI_CB_CORRELATION_SEEN  (1u << 31)
#define CUPTI_CB_CORRELATION_SLOTS (1u << CUPTI_CB_CORRELATION_BITS)

struct cupti_cb_correlation_map {
	_Atomic uint64_t slot[CUPTI_CB_CORRELATION_SLOTS];
};

/* Hot path: block_id is never 0 (counter set ids start at 1). The release pairs
 * with the lookup's acquire: CUPTI delivers the record after the call. */
static inline void cupti_cb_correlation_put(struct cupti_cb_correlation_map *m, uint32_t corr, uint32_t block_id)
{
	atomic_store_explicit(&m->slot[corr & (CUPTI_CB_CORRELATION_SLOTS - 1)], (uint64_t)corr << 32 | block_id,
			      memory_order_release);
}

/* The counter set id recorded for corr, or 0: never recorded, or overwritten. */
static inline uint32_t cupti_cb_correlation_get(const struct cupti_cb_correlation_map *m, uint32_t corr)
{
	uint64_t v = atomic_load_explicit(&m->slot[corr & (CUPTI_CB_CORRELATION_SLOTS - 1)], memory_order_acquire);
	return (uint32_t)(v >> 32) == corr ? (uint32_t)v & ~CUPTI_CB_CORRELATION_SEEN : 0;
}

/* Marks corr seen: 1 the first time (its issuing thread then counts the
 * call as accounted for), 0 after, or when corr is not in the table. A CAS:
 * the hot path may replace the slot meanwhile. Graph launches (one id, many
 * kernels) and staged copies (one id, several records) count once. */
static inline int cupti_cb_correlation_first(struct cupti_cb_correlation_map *m, uint32_t corr)
{
	_Atomic uint64_t *p = &m->slot[corr & (CUPTI_CB_CORRELATION_SLOTS - 1)];
	uint64_t v = atomic_load_explicit(p, memory_order_acquire);
	while ((uint32_t)(v >> 32) == corr && !(v & CUPTI_CB_CORRELATION_SEEN))
		if (atomic_compare_exchange_weak_explicit(p, &v, v | CUPTI_CB_CORRELATION_SEEN, memory_order_acq_rel,
							  memory_order_acquire))
			return 1;
	return 0;
}

#endif
