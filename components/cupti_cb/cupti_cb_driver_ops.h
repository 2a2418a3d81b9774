/* cupti_cb_driver_ops.h: what a driver API call does, read from its CUPTI
 * parameter struct: a launch, a copy (bytes by direction), a memset, an
 * allocation, a free, a synchronization.
 *
 * Derived events are counted at the driver layer only. Every runtime call
 * that does work ends in exactly one of these driver calls (facts.md: the
 * runtime nests driver calls), so counting there counts each user-visible
 * operation once, and driver-domain callbacks cost about half of
 * runtime-domain ones at 16 threads. */
#ifndef CUPTI_CB_DRIVER_OPS_H
#define CUPTI_CB_DRIVER_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include <cupti.h>

enum cupti_cb_class {
	CUPTI_CB_CLS_NONE = 0,
	CUPTI_CB_CLS_LAUNCH,
	CUPTI_CB_CLS_GRAPH,
	CUPTI_CB_CLS_MEMCPY,
	CUPTI_CB_CLS_MEMSET,
	CUPTI_CB_CLS_ALLOC,
	CUPTI_CB_CLS_FREE,
	CUPTI_CB_CLS_SYNC,
	CUPTI_CB_N_CLASSES
};

enum cupti_cb_dir {
	CUPTI_CB_HTOD,
	CUPTI_CB_DTOH,
	CUPTI_CB_DTOD,
	CUPTI_CB_HTOH,
	CUPTI_CB_PEER,
	CUPTI_CB_N_DIRS
};

/* Where a pointer lives. */
struct cupti_cb_where {
	int is_device;	/* device or managed memory (arrays too) */
	int device;	/* ordinal, -1 if unknown */
};

/* Resolves what the parameters alone do not say (cudaMemcpyDefault,
 * CU_MEMORYTYPE_UNIFIED, peer contexts). Injected so that tests can run
 * without a driver. */
#define CUPTI_CB_CLS_BIT(c) (1u << (c))

struct cupti_cb_resolver {
	void (*locate)(void *arg, CUdeviceptr ptr, struct cupti_cb_where *w);
	int (*context_device)(void *arg, CUcontext ctx);	/* -1 if unknown */
	void *arg;
};

struct cupti_cb_effect {
	uint64_t count;			/* launches, copies, memsets, allocations, ... */
	uint64_t bytes;			/* memset and allocation bytes; a launch's dynamic shared memory */
	uint64_t threads;		/* a launch's grid size times block size, all dimensions */
	uint64_t legacy;		/* launches onto the legacy default stream (of count) */
	uint64_t dir_bytes[CUPTI_CB_N_DIRS];
	CUdeviceptr ptr;		/* allocation result, or pointer freed: the key of
					   the allocation table (see below) */
};

/* The allocation table is keyed by pointer. Allocations that return a
 * handle instead (CUDA arrays, mipmapped arrays, cuMemCreate's physical
 * memory) are keyed by the handle's value with one of these bits set. No
 * user-space address has bit 62 or 63 set, so a handle key never equals a
 * pointer key, and array and physical-memory keys never equal each other
 * unless the driver's handle values themselves use those bits. */
#define CUPTI_CB_KEY_ARRAY (1ull << 62)	/* CUarray, CUmipmappedArray */
#define CUPTI_CB_KEY_PHYS  (1ull << 63)	/* CUmemGenericAllocationHandle */

typedef void (*cupti_cb_effect_fn)(const void *params, const struct cupti_cb_resolver *r,
				   struct cupti_cb_effect *e);

struct cupti_cb_op {
	CUpti_CallbackId cbid;		/* driver domain */
	enum cupti_cb_class cls;
	cupti_cb_effect_fn effect;	/* NULL: count one */
};

/* The table, and a lookup by CBID (NULL when the call is not an operation). */
extern const struct cupti_cb_op cupti_cb_driver_ops[];
extern const size_t cupti_cb_n_driver_ops;
const struct cupti_cb_op *cupti_cb_op_find(CUpti_CallbackId cbid);

/* Effects are read at API exit and counted only when the call succeeded.
 * The one exception is the size of a free: the engine looks it up at entry,
 * before the driver can hand the same address to another thread. */

#endif
