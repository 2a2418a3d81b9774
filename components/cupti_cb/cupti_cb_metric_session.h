/* cupti_cb_metric_session.h: collection of hardware metrics on one device with
 * CUPTI's Range Profiler.
 *
 * One session per device collects the union of the metrics that the running
 * event sets on that device need, as one user range. The session never
 * creates a context: it is told about the application's contexts
 * (cupti_cb_metric_session_add_context, _drop_context) or finds the ones that
 * exist already (cupti_cb_metric_session_adopt_current), and enables the range
 * profiler on each.
 *
 * One range per device. The device's counters serve one started range at a
 * time: with a range running on one context, cuptiRangeProfilerStart on a
 * second context of the same device fails with CUPTI_ERROR_HARDWARE_BUSY
 * (H100, CUDA 13.0, driver 580). So one context collects (the first of the
 * table, normally the first one known) and the others wait, enabled; when
 * the collecting context is dropped its range is collected and the next
 * context takes over. The collecting range counts the work of its own
 * context only: on an H100, 3 launches in the collecting context and 2 in
 * another context of the device counted 3 (ctests/gpu/gpu_metric_session.cu). So a
 * metric counts the collecting context's work, and cupti_cb-metrics(7) says so.
 *
 * A user range spans arbitrary application work, which cannot be replayed,
 * so only configurations that the hardware collects in one pass are used:
 * a union that needs more passes is refused (CUPTI_CB_METRIC_SESSION_EPASSES).
 *
 * Totals. Every metric has cumulative totals that only grow while it is
 * referenced; a reader keeps two snapshots and takes the difference
 * (cupti_cb_profiler_total_value). A segment is the piece of a range between two
 * collections (a sample, a reconfiguration, a context drop or the stop of
 * collection end one). A configuration with a non-additive metric also holds
 * the hidden weight gpu__time_duration.sum, the GPU time of the segment in ns
 * (only then: beside some counters the weight takes a pass of its own):
 *   - additive metrics (a counter's .sum/.avg/.min/.max) add up:
 *     total += value, per segment (for .min/.max that is the sum of each
 *     segment's extreme: a bound, see cupti_cb_profiler_catalog_is_additive);
 *   - the others (ratios, throughputs, .per_second, .pct) are averaged,
 *     weighted by duration: wsum += value * duration, w += duration, and the
 *     value over several segments is wsum / w.
 * The weighted mean is exact where the metric's denominator is proportional
 * to the segment's duration: .per_second, .pct_of_peak_sustained_elapsed and
 * .per_cycle_elapsed at a fixed clock, since then value * duration is the
 * numerator up to a constant and the sum of numerators over the sum of
 * durations is the value of the joined range. It is an approximation where
 * the denominator is something else (.per_cycle_active,
 * .pct_of_peak_sustained_active, hit rates and other ratios of two counts):
 * exact only when that denominator grows like the duration in every segment.
 * Either way a single segment (no sample, no reconfiguration, no handover
 * between two readings) gives CUPTI's value unchanged.
 *
 * Threads. Nothing here locks: the caller serializes every call on one
 * session with its own lock. Any thread may call, with or without a current
 * context: CUPTI's calls name their context (cupti_cb_metric_range.c says how
 * that was measured), so no context is ever made current here. No global
 * state: everything lives in the struct.
 */
#ifndef CUPTI_CB_METRIC_SESSION_H
#define CUPTI_CB_METRIC_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_metric_range.h"
#include "cupti_cb_profiler_api.h"
#include "cupti_cb_profiler_totals.h"

/* The hidden weight, collected where a non-additive metric needs it. */
#define CUPTI_CB_METRIC_SESSION_WEIGHT "gpu__time_duration.sum"

enum cupti_cb_metric_session_err {
	CUPTI_CB_METRIC_SESSION_OK = 0,
	CUPTI_CB_METRIC_SESSION_EFAIL = -1,	/* CUPTI or the driver refused; why says what and why */
	CUPTI_CB_METRIC_SESSION_EPASSES = -2,	/* the union needs several passes: nothing changed */
	CUPTI_CB_METRIC_SESSION_EINVAL = -3,	/* a bad argument (unknown id, context of another device) */
	CUPTI_CB_METRIC_SESSION_ENOMEM = -4,
};

struct cupti_cb_mentry {
	char *name;		/* full metric name, owned; NULL: a free slot */
	int additive;
	unsigned refs;
	struct cupti_cb_profiler_total total;
};

struct cupti_cb_metric_session {
	struct cupti_cb_api *api;
	const struct cupti_cb_profiler_api *p;
	int ordinal;
	CUdevice device;
	char chip[64];

	uint8_t *avail;			/* counter availability, fetched with the first context */
	size_t avail_size;

	struct cupti_cb_mentry *entries;	/* id = index */
	unsigned n_entries;

	struct cupti_cb_profiler_config cfg;	/* valid when have_cfg */
	int have_cfg;
	int weighted;			/* the configuration holds the weight, at index 0 */
	int *cfg_entry;			/* configuration index -> entry id, -1: weight only */
	double *values;			/* scratch: one value per configuration index */

	struct cupti_cb_mctx *ctxs;	/* ctxs[0] collects, the others wait */
	unsigned n_ctxs;

	int running;			/* some metric is referenced: the first context collects */
	/* Data lost: ranges whose values could not be collected (a failed
	 * stop, decode or evaluation) and times collection could not begin
	 * again (GPU work went uncounted). A reader whose window saw this grow
	 * has values that miss work: lost_why says why. */
	unsigned long long lost;
	char lost_why[512];
	double gpu_ns;			/* GPU time of every segment collected */
	unsigned long long segments;	/* segments collected */
	unsigned long long dropped;	/* ranges CUPTI reported as dropped */
};

/* Checks that the device supports range profiling (cuptiProfilerDeviceSupported:
 * architecture, SLI, vGPU, confidential computing, CMP, WSL; MIG through the
 * error CUPTI gives). The caller has initialized the profiler
 * (cuptiProfilerInitialize) and keeps it so until the session is destroyed. chip is the device's chip
 * name ("GH100"); NULL: asked of cuptiDeviceGetChipName. CUDA must be initialized (cuInit)
 * by the application. Returns 0, or an error with one sentence in why. */
int cupti_cb_metric_session_init(struct cupti_cb_metric_session *s, struct cupti_cb_api *api,
			   const struct cupti_cb_profiler_api *p, int device_ordinal, const char *chip,
			   char *why, size_t len);
/* Stops collection and disables the range profiler on every context. */
void cupti_cb_metric_session_destroy(struct cupti_cb_metric_session *s);

/* Adds one reference to each of names[0..n) (full metric names; additive[i]
 * as cupti_cb_profiler_catalog_is_additive says) and writes their ids. A name not yet
 * collected changes the union: the running range is collected, the
 * configuration rebuilt and collection restarted. Where
 * the union needs more than one pass nothing changes and the result is
 * CUPTI_CB_METRIC_SESSION_EPASSES with a sentence naming the number of passes. */
int cupti_cb_metric_session_want(struct cupti_cb_metric_session *s, const char *const *names,
			   const int *additive, unsigned n, unsigned *ids_out, char *why, size_t len);
/* 1 when no metric is referenced any more: the session can go. */
int cupti_cb_metric_session_idle(const struct cupti_cb_metric_session *s);
/* Drops one reference of each id. Metrics no longer referenced leave the
 * configuration; when none remains, collection stops (the
 * range profiler stays enabled on them). */
int cupti_cb_metric_session_unwant(struct cupti_cb_metric_session *s, const unsigned *ids, unsigned n,
			     char *why, size_t len);

/* Enables the range profiler on an application context of this device; the
 * first context known starts collecting at once if the session runs, a later
 * one waits. A context already known is accepted as is. */
int cupti_cb_metric_session_add_context(struct cupti_cb_metric_session *s, CUcontext ctx, char *why, size_t len);
/* For a context the application is destroying (still valid): collects what
 * it holds, then disables the range profiler on it; if it was collecting,
 * the next context takes over. Unknown contexts are ignored. */
int cupti_cb_metric_session_drop_context(struct cupti_cb_metric_session *s, CUcontext ctx, char *why, size_t len);
/* Adds the contexts of this device that exist already: the calling thread's
 * current context, and the device's primary context if it is active. A
 * primary context that is not active is left alone: nothing is created. */
int cupti_cb_metric_session_adopt_current(struct cupti_cb_metric_session *s, char *why, size_t len);

/* Brings every total up to date in the middle of the range: the range is
 * ended, decoded and evaluated, then begun again. Waits for the GPU to
 * finish the work of the range. */
int cupti_cb_metric_session_sample(struct cupti_cb_metric_session *s, char *why, size_t len);

/* 1 while the session counts the device's work: a range runs on the
 * collecting context, or no context exists (no work can be issued). */
int cupti_cb_metric_session_collecting(const struct cupti_cb_metric_session *s);

/* The totals of a referenced metric. */
int cupti_cb_metric_session_total(const struct cupti_cb_metric_session *s, unsigned id,
			    struct cupti_cb_profiler_total *t);

#endif
