/* cupti_cb_metric_range.h: the Range Profiler calls on one application context,
 * from any thread (none needs the context current), and the sentences that
 * say why CUPTI refused one.
 *
 * The life of a context: enable, then for each configuration configure
 * (from the second on, a disable + enable); then any number of start ...
 * stop (+ evaluation of the decoded image by the caller) + reinit; finally
 * disable. One user range per start, one nesting level, one range per
 * pass. */
#ifndef CUPTI_CB_METRIC_RANGE_H
#define CUPTI_CB_METRIC_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_profiler_api.h"

/* The name of the one user range pushed on the collecting context. */
#define CUPTI_CB_METRIC_RANGE_NAME "cupti_cb"

/* One application context the range profiler collects from. */
struct cupti_cb_mctx {
	CUcontext ctx;
	CUpti_RangeProfiler_Object *rp;	/* the range profiler enabled on ctx */
	uint8_t *data;			/* counter-data image given to SetConfig */
	size_t data_size;
	uint8_t *config;		/* copy of the config image given to SetConfig */
	size_t config_size;
	int set;			/* SetConfig was called: CUPTI holds data and config */
	int configured;			/* set with the session's current configuration */
	int started;			/* Start + PushRange done, PopRange + Stop not yet */
};

/* Each returns 0, or -1 with one sentence in why. */

/* The counter availability image of ctx's device; must run before the range
 * profiler is enabled on the device (CUPTI refuses it during a session).
 * *image is malloc'ed. */
int cupti_cb_metric_range_availability(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
				 CUcontext ctx, uint8_t **image, size_t *size, char *why, size_t len);
int cupti_cb_metric_range_enable(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			   struct cupti_cb_mctx *c, char *why, size_t len);
/* A counter-data image for cfg, and SetConfig (user range, user replay).
 * CUPTI keeps the images given to SetConfig until Disable: where a
 * configuration was set before, the range profiler is disabled (freeing the
 * old images) and enabled again first. The context owns copies of both
 * images, so the caller may free cfg. */
int cupti_cb_metric_range_configure(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			      struct cupti_cb_mctx *c, const struct cupti_cb_profiler_config *cfg, char *why,
			      size_t len);
/* Start + PushRange. */
int cupti_cb_metric_range_start(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			  struct cupti_cb_mctx *c, char *why, size_t len);
/* PopRange + Stop + DecodeData (waits for the GPU) + the number of ranges
 * in the image; *dropped gets the ranges CUPTI could not store. */
int cupti_cb_metric_range_stop(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			 struct cupti_cb_mctx *c, size_t *ranges, size_t *dropped, char *why, size_t len);
/* Empties the counter-data image for the next start. */
int cupti_cb_metric_range_reinit(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			   struct cupti_cb_mctx *c, char *why, size_t len);
/* Disables the range profiler on the context and frees the images; errors
 * are ignored (the context may be on its way out). */
void cupti_cb_metric_range_disable(const struct cupti_cb_api *api, const struct cupti_cb_profiler_api *p,
			     struct cupti_cb_mctx *c);

/* "CUPTI_ERROR_X: <CUPTI's text>" followed, where the code has a known
 * cause, by what to do about it. */
void cupti_cb_metric_range_error(const struct cupti_cb_api *api, const char *call, CUptiResult r, char *why,
			   size_t len);

#endif
