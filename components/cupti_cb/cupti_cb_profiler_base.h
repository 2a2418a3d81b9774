/* cupti_cb_profiler_base.h: what the two sources of hardware metrics (the
 * Range Profiler's, cupti_cb_metric_source.c, and PM sampling's,
 * cupti_cb_sampling_source.c) share as sources: the Profiler API entry
 * points, holds of CUPTI's profiler, the devices with their chips and
 * whether CUPTI can profile them, the chip's catalogue as events, and the
 * refusals an add can know (permission, another chip), and the source's
 * lock. Each source embeds one, with its own profiler type, and serializes
 * every call under that lock (the *_locked functions); nothing here takes
 * it but cupti_cb_profiler_base_lock, which the catalogue's entries
 * (cupti_cb_profiler_front.c) call. The sources take it on their own paths
 * with pthread_mutex_lock(&b->lock) and let it go as the base does.
 *
 * CUPTI's profiler is initialized only while cupti_cb needs it: to ask the
 * chips' names, and while a device's session exists. An initialized
 * profiler costs every kernel launch of the process, whether or not
 * anything is profiled: on an H100 (CUDA 13.0, driver 580) four threads
 * launching at once paid 3.5 times a bare launch while it was up, and
 * nothing once cuptiProfilerDeInitialize had run (results/bench/RESULTS.md).
 * So cuptiProfilerInitialize runs when the process's first hold is taken
 * and cuptiProfilerDeInitialize when the last one goes, never twice in a
 * row (the holds are counted by the services, across both sources). */
#ifndef CUPTI_CB_PROFILER_BASE_H
#define CUPTI_CB_PROFILER_BASE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "cupti_cb_profiler_api.h"
#include "cupti_cb_profiler_catalog.h"
#include "cupti_cb_profiler_events.h"
#include "cupti_cb_services.h"

struct cupti_cb_profiler_base {
	struct cupti_cb_services *e;
	const char *label;			/* "metrics", "sampling": the trace's word */
	CUpti_ProfilerType type;		/* the catalogue's profiler */
	CUpti_Profiler_API support_api;		/* what cuptiProfilerDeviceSupported is asked about */
	const char *support_what;		/* "range profiling", "PM sampling": the sentence's words */
	int need_pm;				/* also load PM sampling's entry points */

	atomic_int n_devices;			/* -1 until counted (cupti_cb_services_count_devices) */
	int tried_catalog;
	int have_catalog;
	int have_api;
	unsigned holds;				/* this source's holds of CUPTI's profiler */
	struct cupti_cb_profiler_api p;
	struct cupti_cb_pm_sampling_api pm;
	struct cupti_cb_profiler_catalog cat;
	struct cupti_cb_profiler_events events;	/* cat as events; events.cat set once built */
	char chip[64];				/* the catalogue's */
	char why[CUPTI_CB_WHY_LEN];		/* why there is no catalogue, or the last failure */
	char dev_chip[CUPTI_CB_MAX_DEVICES][64];	/* "" until asked */
	char dev_unsupported[CUPTI_CB_MAX_DEVICES][256];	/* why CUPTI cannot profile it; "": it can */
	int restricted;				/* cupti_cb_profiler_permission_restricted_here, once; 2: not asked */
	/* The source's lock. One source lets it go its own way (unlock, or
	 * NULL for a plain unlock): the Range Profiler's adds the contexts
	 * created while it was held (cupti_cb_metric_source.c, on_context). */
	pthread_mutex_t lock;
	void (*unlock)(struct cupti_cb_profiler_base *b);
	const char *descr_prefix;		/* what comes before each event's description */
};

/* What the source says under CUPTI_CB_TRACE, after "cupti_cb: <label>: ". */
#define CUPTI_CB_PROFILER_TRACE(b, ...)                                        \
	do {                                                                   \
		if ((b)->e->trace) {                                           \
			fprintf(stderr, "cupti_cb: %s: ", (b)->label);         \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

/* All a source's open needs of its base: the services, the source bits of
 * its codes, its word in the trace, its profiler, what comes before each
 * description, and how it lets its lock go (NULL: a plain unlock). */
void cupti_cb_profiler_base_init(struct cupti_cb_profiler_base *b, struct cupti_cb_services *e, unsigned id,
				 const char *label, CUpti_ProfilerType type, const char *descr_prefix,
				 void (*unlock)(struct cupti_cb_profiler_base *b));
/* The source's lock, taken and let go (as the source lets it go). */
void cupti_cb_profiler_base_lock(struct cupti_cb_profiler_base *b);
void cupti_cb_profiler_base_unlock(struct cupti_cb_profiler_base *b);
/* In a fork() child: the lock anew (another thread of the parent may have
 * held it at the fork, and no thread of the child will let it go) and no
 * hold of the profiler (the holds were the parent's). */
void cupti_cb_profiler_base_after_fork_child(struct cupti_cb_profiler_base *b);
/* The entry points, loaded once. 0, or -1 with b->why. */
int cupti_cb_profiler_base_load(struct cupti_cb_profiler_base *b);
/* A hold of CUPTI's profiler (see the top). 0, or -1 with the sentence. */
int cupti_cb_profiler_base_hold(struct cupti_cb_profiler_base *b, char *why, size_t len);
void cupti_cb_profiler_base_release(struct cupti_cb_profiler_base *b);
/* cuInit and the device count, once (at most CUPTI_CB_MAX_DEVICES). */
int cupti_cb_profiler_base_devices_locked(struct cupti_cb_profiler_base *b);
/* The device an event without a device qualifier measures: that of the
 * calling thread's current context, else 0. That is the GPU a rank or
 * thread that called cudaSetDevice works on. */
int cupti_cb_profiler_base_default_device(struct cupti_cb_profiler_base *b);
/* What an add asks first: the permission (cupti_cb_profiler_base_permission),
 * then the devices a set's codes name (the default device for a code
 * without a device qualifier), each once and in the order named, leaving
 * out any beyond CUPTI_CB_MAX_DEVICES: *k of them in devs. 0, or
 * CUPTI_CB_EPERM with the sentence. The source checks each device under
 * its own locking. */
int cupti_cb_profiler_base_add_devices(struct cupti_cb_profiler_base *b, const uint32_t *codes, unsigned n, int *devs,
				       unsigned *k, char *why, size_t len);
/* Device dev's chip, every device's asked once under one short hold of
 * the profiler, with whether CUPTI can profile it (dev_unsupported).
 * NULL: no such device, or CUPTI could not tell (b->why). */
const char *cupti_cb_profiler_base_chip_locked(struct cupti_cb_profiler_base *b, int dev);
/* The catalogue: of CUPTI_CB_CHIP's chip, else of device 0's; tried once.
 * 0, or -1 with b->why. */
int cupti_cb_profiler_base_catalog_locked(struct cupti_cb_profiler_base *b);
/* A device of another chip than the catalogue's: 1 with a sentence. */
int cupti_cb_profiler_base_other_chip(const struct cupti_cb_profiler_base *b, int dev, const char *chip, char *why,
				      size_t len);
/* Counters restricted to administrators and the process none (the
 * driver's parameters, asked once): CUPTI_CB_EPERM with what to change,
 * else 0. */
int cupti_cb_profiler_base_permission(struct cupti_cb_profiler_base *b, char *why, size_t len);
/* What an add can know of device dev: another chip, or a device CUPTI
 * cannot profile (CUPTI_CB_EUNAVAIL with a sentence); 0 otherwise, also
 * where there is no such device (the start says why). */
int cupti_cb_profiler_base_check_device_locked(struct cupti_cb_profiler_base *b, int dev, char *why, size_t len);

#endif
