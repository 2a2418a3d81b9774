/* cupti_cb_profiler_base.h: what the two sources of hardware metrics (the
 * Range Profiler's, cupti_cb_metric_source.c, and PM sampling's,
 * cupti_cb_sampling_source.c) share as sources: the Profiler API entry
 * points, holds of CUPTI's profiler, the devices with their chips and
 * whether CUPTI can profile them, the chip's catalogue as events, and the
 * refusals an add can know (permission, another chip). Each source embeds
 * one, with its own profiler type, and serializes every call under its
 * own lock (the *_locked functions); nothing here locks but the services'
 * profiler hold.
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

#include <stdatomic.h>
#include <stddef.h>

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
	/* The source's lock, as cupti_cb_profiler_front.c takes it and lets it
	 * go (the Range Profiler's source adds, as it lets it go, the contexts
	 * created meanwhile), and what comes before each event's description. */
	void (*lock)(struct cupti_cb_profiler_base *b);
	void (*unlock)(struct cupti_cb_profiler_base *b);
	const char *descr_prefix;
};

void cupti_cb_profiler_base_init(struct cupti_cb_profiler_base *b, struct cupti_cb_services *e, unsigned id,
				 const char *label, CUpti_ProfilerType type);
/* The entry points, loaded once. 0, or -1 with b->why. */
int cupti_cb_profiler_base_load(struct cupti_cb_profiler_base *b);
/* A hold of CUPTI's profiler (see the top). 0, or -1 with the sentence. */
int cupti_cb_profiler_base_hold(struct cupti_cb_profiler_base *b, char *why, size_t len);
void cupti_cb_profiler_base_release(struct cupti_cb_profiler_base *b);
/* cuInit and the device count, once (at most CUPTI_CB_MAX_DEVICES). */
int cupti_cb_profiler_base_devices_locked(struct cupti_cb_profiler_base *b);
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
