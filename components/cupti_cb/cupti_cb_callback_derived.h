/* cupti_cb_callback_derived.h: the derived events (launches, bytes, syncs, ...) as a
 * table: which counters each one sums and which CBID classes it needs. */
#ifndef CUPTI_CB_CALLBACK_DERIVED_H
#define CUPTI_CB_CALLBACK_DERIVED_H

#include <stdint.h>
#include "cupti_cb_driver_ops.h"

/* Counters kept per device in every thread's counter set. */
enum cupti_cb_dev_ctr {
	/* kernel.launches is the sum of the two: legacy + other. */
	CUPTI_CB_C_LAUNCHES_LEGACY,
	CUPTI_CB_C_LAUNCHES_OTHER,
	CUPTI_CB_C_THREADS,
	CUPTI_CB_C_DYN_SMEM,
	CUPTI_CB_C_GRAPH_LAUNCHES,
	CUPTI_CB_C_MEMCPY_CALLS,
	CUPTI_CB_C_BYTES_HTOD,	/* the five directions, in enum cupti_cb_dir order */
	CUPTI_CB_C_BYTES_DTOH,
	CUPTI_CB_C_BYTES_DTOD,
	CUPTI_CB_C_BYTES_HTOH,
	CUPTI_CB_C_BYTES_PEER,
	CUPTI_CB_C_MEMSET_CALLS,
	CUPTI_CB_C_MEMSET_BYTES,
	CUPTI_CB_C_ALLOC_CALLS,
	CUPTI_CB_C_ALLOC_BYTES,
	CUPTI_CB_C_FREE_CALLS,
	CUPTI_CB_C_FREE_BYTES,
	CUPTI_CB_C_SYNC_CALLS,
	CUPTI_CB_C_SYNC_TIME,
	CUPTI_CB_N_DEV_CTRS,
	CUPTI_CB_C_LAUNCHES = CUPTI_CB_C_LAUNCHES_LEGACY	/* the first of the launch counters */
};

/* Counters kept once per thread, whatever the device. */
enum cupti_cb_thr_ctr {
	CUPTI_CB_C_API_CALLS,
	CUPTI_CB_C_API_TIME,
	CUPTI_CB_C_API_ERRORS,
	CUPTI_CB_N_THR_CTRS
};

#define CUPTI_CB_ALL_CBIDS  (1u << 31)	/* every runtime and driver CBID */

/* How an event is read. Counters are differences since start or reset;
 * the live bytes are a gauge read as they are now; the peak is kept by a
 * window (cupti_cb_callback_windows.h). Gauges and peaks exist for the process
 * only: :thread is refused. */
enum cupti_cb_read {
	CUPTI_CB_READ_COUNT = 0,
	CUPTI_CB_READ_LIVE,
	CUPTI_CB_READ_PEAK,
};

struct cupti_cb_derived {
	const char *name;
	const char *units;
	const char *descr;
	uint8_t per_device;	/* 1: device counters, device qualifier allowed */
	uint8_t first;		/* first counter summed */
	uint8_t count;		/* number of consecutive counters summed */
	uint8_t timed;		/* needs the clock */
	uint32_t needs;		/* CUPTI_CB_CLS_BIT()s, or CUPTI_CB_ALL_CBIDS */
	uint8_t read;		/* enum cupti_cb_read */
};

extern const struct cupti_cb_derived cupti_cb_derived_events[];
extern const unsigned cupti_cb_n_derived;

#endif
