/* cupti_cb_metric_session.c: one Range Profiler session per device: the union of
 * the wanted metrics, one user range on the device, totals. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strdup under -std=c11 */
#endif
#include "cupti_cb_metric_session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ set up */

static int need_driver(const struct cupti_cb_api *api, char *why, size_t len)
{
	const char *missing = !api->cuDeviceGet			   ? "cuDeviceGet"
			      : !api->cuCtxGetCurrent		   ? "cuCtxGetCurrent"
			      : !api->cuDevicePrimaryCtxGetState   ? "cuDevicePrimaryCtxGetState"
			      : !api->cuDevicePrimaryCtxRetain	   ? "cuDevicePrimaryCtxRetain"
			      : !api->cuDevicePrimaryCtxRelease_v2 ? "cuDevicePrimaryCtxRelease_v2"
			      : !api->cuptiGetDeviceId		   ? "cuptiGetDeviceId"
								   : NULL;
	if (!missing)
		return 0;
	snprintf(why, len, "hardware metrics need %s, which the loaded driver or libcupti lacks",
		 missing);
	return -1;
}

static int chip_name(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	CUpti_Device_GetChipName_Params g = { CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
					      (size_t)s->ordinal, NULL };
	CUptiResult r = s->p->cuptiDeviceGetChipName(&g);
	if (r != CUPTI_SUCCESS || !g.pChipName) {
		cupti_cb_metric_range_error(s->api, "cuptiDeviceGetChipName", r, why, len);
		return -1;
	}
	snprintf(s->chip, sizeof s->chip, "%s", g.pChipName);
	return 0;
}

static int device_supported(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	if (!s->chip[0] && chip_name(s, why, len))
		return -1;
	CUpti_Profiler_DeviceSupported_Params d = {
		.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE };
	d.cuDevice = s->device;
	d.api = CUPTI_PROFILER_RANGE_PROFILING;
	/* Where the question itself fails (device 0 reads as "the current
	 * context", and there may be none), the answer is left to
	 * cuptiRangeProfilerEnable, which reports the same causes as errors. */
	if (s->p->cuptiProfilerDeviceSupported(&d) != CUPTI_SUCCESS ||
	    (d.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
	     d.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED))
		return 0;
	cupti_cb_profiler_unsupported(&d, s->ordinal, "range profiling", why, len);
	return -1;
}

int cupti_cb_metric_session_init(struct cupti_cb_metric_session *s, struct cupti_cb_api *api,
			   const struct cupti_cb_profiler_api *p, int device_ordinal, const char *chip,
			   char *why, size_t len)
{
	memset(s, 0, sizeof *s);
	s->api = api;
	s->p = p;
	s->ordinal = device_ordinal;
	snprintf(s->chip, sizeof s->chip, "%s", chip ? chip : "");
	if (need_driver(api, why, len))
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	CUresult r = api->cuDeviceGet(&s->device, device_ordinal);
	if (r != CUDA_SUCCESS) {
		snprintf(why, len, "cuDeviceGet(%d) failed: %s%s", device_ordinal,
			 cupti_cb_cuda_error(api, r),
			 r == CUDA_ERROR_NOT_INITIALIZED
				 ? " (the application has not initialized CUDA: there is no context "
				   "to collect from)"
				 : "");
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	}
	return device_supported(s, why, len) ? CUPTI_CB_METRIC_SESSION_EFAIL : CUPTI_CB_METRIC_SESSION_OK;
}

/* ------------------------------------------------------------ entries */

static int find_entry(const struct cupti_cb_metric_session *s, const char *name)
{
	for (unsigned i = 0; i < s->n_entries; i++)
		if (s->entries[i].name && strcmp(s->entries[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* A new entry with no reference; returns its id, or -1. */
static int new_entry(struct cupti_cb_metric_session *s, const char *name, int additive)
{
	unsigned id = 0;
	while (id < s->n_entries && s->entries[id].name)
		id++;
	if (id == s->n_entries) {
		struct cupti_cb_mentry *e = realloc(s->entries, (s->n_entries + 1) * sizeof *e);
		if (!e)
			return -1;
		s->entries = e;
		s->n_entries++;
	}
	struct cupti_cb_mentry *e = &s->entries[id];
	memset(e, 0, sizeof *e);
	e->name = strdup(name);
	e->additive = additive != 0;
	return e->name ? (int)id : -1;
}

/* Frees the entries nothing references any more. */
static void release_dead(struct cupti_cb_metric_session *s)
{
	for (unsigned i = 0; i < s->n_entries; i++)
		if (s->entries[i].name && s->entries[i].refs == 0) {
			free(s->entries[i].name);
			memset(&s->entries[i], 0, sizeof s->entries[i]);
		}
}

static unsigned live_entries(const struct cupti_cb_metric_session *s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->n_entries; i++)
		n += s->entries[i].name && s->entries[i].refs > 0;
	return n;
}

/* ------------------------------------------------------------ configuration */

struct newcfg {
	struct cupti_cb_profiler_config cfg;
	int *map;
	double *values;
	int weighted;		/* index 0 is the weight */
};

static void newcfg_free(struct newcfg *c)
{
	cupti_cb_profiler_config_free(&c->cfg);
	free(c->map);
	free(c->values);
	memset(c, 0, sizeof *c);
}

/* Whether the union needs the weight: only the duration-weighted means of
 * non-additive metrics use it, and on GH100 it takes a pass of its own
 * beside some counters (the smsp__sass_thread_inst_executed_op_* family):
 * a union of additive metrics goes without it. */
static int needs_weight(const struct cupti_cb_metric_session *s)
{
	for (unsigned i = 0; i < s->n_entries; i++) {
		const struct cupti_cb_mentry *e = &s->entries[i];
		if (e->name && e->refs && !e->additive)
			return 1;
	}
	return 0;
}

/* The names of the referenced entries, after the weight at index 0 when
 * the union needs it (map[0] then names its entry, or -1). */
static unsigned union_names(const struct cupti_cb_metric_session *s, const char **names, int *map)
{
	unsigned n = 0;
	int weighted = needs_weight(s);
	if (weighted) {
		names[n] = CUPTI_CB_METRIC_SESSION_WEIGHT;
		map[n++] = -1;
	}
	for (unsigned i = 0; i < s->n_entries; i++) {
		const struct cupti_cb_mentry *e = &s->entries[i];
		if (!e->name || e->refs == 0)
			continue;
		if (weighted && strcmp(e->name, CUPTI_CB_METRIC_SESSION_WEIGHT) == 0) {
			map[0] = (int)i;
			continue;
		}
		names[n] = e->name;
		map[n++] = (int)i;
	}
	return n;
}

/* The configuration of the referenced entries, refused if it needs more
 * than one pass. */
static int build(const struct cupti_cb_metric_session *s, struct newcfg *out, char *why, size_t len)
{
	unsigned max = live_entries(s) + 1;
	const char **names = malloc(max * sizeof *names);
	memset(out, 0, sizeof *out);
	out->map = malloc(max * sizeof *out->map);
	out->values = calloc(max, sizeof *out->values);
	if (!names || !out->map || !out->values) {
		free(names);
		newcfg_free(out);
		snprintf(why, len, "out of memory for a metric configuration");
		return CUPTI_CB_METRIC_SESSION_ENOMEM;
	}
	unsigned n = union_names(s, names, out->map);
	out->weighted = needs_weight(s);
	int rc = cupti_cb_profiler_config_build(&out->cfg, s->p, s->chip, s->avail, names, n, why, len);
	free(names);
	if (rc != 0) {
		free(out->map);
		free(out->values);
		memset(out, 0, sizeof *out);
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	}
	if (out->cfg.passes > 1) {
		snprintf(why, len,
			 "the metrics wanted together on device %d need %zu passes, and a range over "
			 "application work can only be collected in one: measure fewer metrics at once",
			 s->ordinal, out->cfg.passes);
		newcfg_free(out);
		return CUPTI_CB_METRIC_SESSION_EPASSES;
	}
	return CUPTI_CB_METRIC_SESSION_OK;
}

static void drop_config(struct cupti_cb_metric_session *s)
{
	if (s->have_cfg)
		cupti_cb_profiler_config_free(&s->cfg);
	free(s->cfg_entry);
	free(s->values);
	s->cfg_entry = NULL;
	s->values = NULL;
	s->have_cfg = 0;
	for (unsigned i = 0; i < s->n_ctxs; i++)
		s->ctxs[i].configured = 0;
}

static void install(struct cupti_cb_metric_session *s, struct newcfg *c)
{
	drop_config(s);
	s->cfg = c->cfg;
	s->cfg_entry = c->map;
	s->values = c->values;
	s->weighted = c->weighted;
	s->have_cfg = 1;
	memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ collection */

/* Collection failed: what the range held, or the work until collection
 * begins again, is lost (see struct cupti_cb_metric_session). */
static void note_loss(struct cupti_cb_metric_session *s, const char *why)
{
	s->lost++;
	snprintf(s->lost_why, sizeof s->lost_why, "%s", why);
}

/* Adds the values of one segment of one context to the totals. */
static void accumulate(struct cupti_cb_metric_session *s, const double *v)
{
	double dur = s->weighted ? v[0] : 0;
	if (isnan(dur) || dur < 0)
		dur = 0;
	s->gpu_ns += dur;
	s->segments++;
	for (unsigned i = 0; i < s->cfg.n; i++) {
		if (s->cfg_entry[i] < 0)
			continue;
		struct cupti_cb_mentry *e = &s->entries[s->cfg_entry[i]];
		cupti_cb_profiler_total_add(&e->total, e->additive, v[i], dur);
	}
}

/* Ends the range on one context and adds what it holds; begins it again
 * when restart. */
static int collect(struct cupti_cb_metric_session *s, struct cupti_cb_mctx *c, int restart, char *why,
		   size_t len)
{
	size_t ranges = 0, dropped = 0;
	if (!c->started)
		return 0;
	int bad = cupti_cb_metric_range_stop(s->api, s->p, c, &ranges, &dropped, why, len);
	s->dropped += dropped;
	/* One range per pass (maxRangesPerPass = 1): its values count whole or not at all. */
	for (size_t r = 0; r < ranges && !bad; r++) {
		bad = cupti_cb_profiler_config_evaluate(&s->cfg, c->data, c->data_size, r, s->values, why, len);
		if (!bad)
			accumulate(s, s->values);
	}
	if (bad)
		note_loss(s, why);
	/* Emptied even when the stop or evaluation failed: the next range starts clean. */
	char scratch[256];
	if (cupti_cb_metric_range_reinit(s->api, s->p, c, bad ? scratch : why, bad ? sizeof scratch : len) || bad)
		return -1;
	return restart ? cupti_cb_metric_range_start(s->api, s->p, c, why, len) : 0;
}

/* Runs op on every context; every context is tried, the first failure is
 * the one reported. */
static int each_context(struct cupti_cb_metric_session *s, int restart,
			int (*op)(struct cupti_cb_metric_session *, struct cupti_cb_mctx *, int, char *,
				  size_t),
			char *why, size_t len)
{
	int rc = 0;
	char err[512];
	for (unsigned i = 0; i < s->n_ctxs; i++)
		if (op(s, &s->ctxs[i], restart, err, sizeof err) && rc == 0) {
			snprintf(why, len, "%s", err);
			rc = -1;
		}
	return rc;
}

/* Configures a context for the current configuration if needed, starts it. */
static int try_begin(struct cupti_cb_metric_session *s, struct cupti_cb_mctx *c, char *why, size_t len)
{
	if (!c->configured && cupti_cb_metric_range_configure(s->api, s->p, c, &s->cfg, why, len))
		return -1;
	return c->started ? 0 : cupti_cb_metric_range_start(s->api, s->p, c, why, len);
}

/* Configurations are built for the whole chip, every counter assumed
 * available: asking CUPTI which counters the device offers
 * (cuptiProfilerGetCounterAvailability) was measured at 537 ms on an H100,
 * more than everything else of a first start. Only when CUPTI refuses such
 * a configuration is the device asked (which CUPTI answers only while no
 * range profiler is enabled on it), and the configuration built again. */
static int begin(struct cupti_cb_metric_session *s, struct cupti_cb_mctx *c, char *why, size_t len)
{
	char err[512];
	if (try_begin(s, c, why, len) == 0)
		return 0;
	if (s->avail || !s->have_cfg)
		return -1;	/* asked already, or nothing to build */
	cupti_cb_metric_range_disable(s->api, s->p, c);
	struct newcfg nc;
	if (cupti_cb_metric_range_availability(s->api, s->p, c->ctx, &s->avail, &s->avail_size, err, sizeof err) ||
	    build(s, &nc, err, sizeof err)) {
		(void)cupti_cb_metric_range_enable(s->api, s->p, c, err, sizeof err);
		return -1;	/* why keeps the first refusal */
	}
	install(s, &nc);
	if (cupti_cb_metric_range_enable(s->api, s->p, c, why, len))
		return -1;
	return try_begin(s, c, why, len);
}

/* One context collects: the device's counters serve one range at a time
 * (a second start is refused with CUPTI_ERROR_HARDWARE_BUSY), so the first
 * context of the table collects and the others wait, enabled. */
static int begin_collector(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	if (!s->running || s->n_ctxs == 0)
		return 0;
	if (begin(s, &s->ctxs[0], why, len) == 0)
		return 0;
	note_loss(s, why);
	return -1;
}

int cupti_cb_metric_session_collecting(const struct cupti_cb_metric_session *s)
{
	return !s->running || s->n_ctxs == 0 || s->ctxs[0].started;
}

static int collect_all(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	return each_context(s, 0, collect, why, len);
}

/* Collects the running range, then collects the new configuration. */
static int switch_config(struct cupti_cb_metric_session *s, struct newcfg *c, char *why, size_t len)
{
	int rc = collect_all(s, why, len);
	char err[512];
	install(s, c);
	s->running = 1;
	if (begin_collector(s, err, sizeof err) && rc == 0) {
		snprintf(why, len, "%s", err);
		rc = -1;
	}
	return rc ? CUPTI_CB_METRIC_SESSION_EFAIL : CUPTI_CB_METRIC_SESSION_OK;
}

/* No metric referenced: collect what runs and stop. */
static int stop_all(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	int rc = s->running ? collect_all(s, why, len) : 0;
	s->running = 0;
	drop_config(s);
	return rc ? CUPTI_CB_METRIC_SESSION_EFAIL : CUPTI_CB_METRIC_SESSION_OK;
}

int cupti_cb_metric_session_sample(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	if (!s->running)
		return CUPTI_CB_METRIC_SESSION_OK;
	int rc = each_context(s, 1, collect, why, len);
	char err[512];
	/* A collector that an earlier failure left stopped is started again. */
	if (begin_collector(s, err, sizeof err) && rc == 0) {
		snprintf(why, len, "%s", err);
		rc = -1;
	}
	return rc ? CUPTI_CB_METRIC_SESSION_EFAIL : CUPTI_CB_METRIC_SESSION_OK;
}

/* ------------------------------------------------------------ references */

/* Takes a reference on names[i], creating its entry; sets *created. */
static int reference(struct cupti_cb_metric_session *s, const char *name, int additive, unsigned *id,
		     int *created, char *why, size_t len)
{
	int e = find_entry(s, name);
	*created = 0;
	if (e >= 0 && s->entries[e].additive != (additive != 0)) {
		snprintf(why, len, "metric %s is wanted both as additive and as not additive", name);
		return CUPTI_CB_METRIC_SESSION_EINVAL;
	}
	if (e < 0) {
		e = new_entry(s, name, additive);
		if (e < 0) {
			snprintf(why, len, "out of memory for metric %s", name);
			return CUPTI_CB_METRIC_SESSION_ENOMEM;
		}
		*created = 1;
	}
	s->entries[e].refs++;
	*id = (unsigned)e;
	return CUPTI_CB_METRIC_SESSION_OK;
}

static void unreference(struct cupti_cb_metric_session *s, const unsigned *ids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		s->entries[ids[i]].refs--;
}

int cupti_cb_metric_session_want(struct cupti_cb_metric_session *s, const char *const *names,
			   const int *additive, unsigned n, unsigned *ids_out, char *why, size_t len)
{
	int changed = 0, rc = CUPTI_CB_METRIC_SESSION_OK;
	unsigned done = 0;
	for (; done < n; done++) {
		int created;
		rc = reference(s, names[done], additive[done], &ids_out[done], &created, why, len);
		if (rc)
			break;
		changed |= created;
	}
	if (rc == CUPTI_CB_METRIC_SESSION_OK && (changed || !s->running)) {
		struct newcfg c;
		rc = build(s, &c, why, len);
		if (rc == CUPTI_CB_METRIC_SESSION_OK)
			return switch_config(s, &c, why, len);
	}
	if (rc != CUPTI_CB_METRIC_SESSION_OK) {
		/* Nothing changes: the references taken are given back. */
		unreference(s, ids_out, done);
		release_dead(s);
	}
	return rc;
}

int cupti_cb_metric_session_idle(const struct cupti_cb_metric_session *s)
{
	return live_entries(s) == 0;
}

int cupti_cb_metric_session_unwant(struct cupti_cb_metric_session *s, const unsigned *ids, unsigned n, char *why,
			     size_t len)
{
	int gone = 0;
	for (unsigned i = 0; i < n; i++)
		if (ids[i] >= s->n_entries || !s->entries[ids[i]].name ||
		    s->entries[ids[i]].refs == 0) {
			snprintf(why, len, "metric id %u is not referenced", ids[i]);
			return CUPTI_CB_METRIC_SESSION_EINVAL;
		}
	for (unsigned i = 0; i < n; i++)
		gone |= --s->entries[ids[i]].refs == 0;
	if (!gone)
		return CUPTI_CB_METRIC_SESSION_OK;
	if (live_entries(s) == 0) {
		int rc = stop_all(s, why, len);
		release_dead(s);
		return rc;
	}
	/* The dead entries still receive the running range, then leave. */
	struct newcfg c;
	int rc = build(s, &c, why, len);
	rc = rc ? (stop_all(s, why, len), rc) : switch_config(s, &c, why, len);
	release_dead(s);
	return rc;
}

/* ------------------------------------------------------------ contexts */

static int find_context(const struct cupti_cb_metric_session *s, CUcontext ctx)
{
	for (unsigned i = 0; i < s->n_ctxs; i++)
		if (s->ctxs[i].ctx == ctx)
			return (int)i;
	return -1;
}

static int on_device(const struct cupti_cb_metric_session *s, CUcontext ctx, char *why, size_t len)
{
	uint32_t dev = 0;
	CUptiResult r = s->api->cuptiGetDeviceId(ctx, &dev);
	if (r != CUPTI_SUCCESS) {
		cupti_cb_metric_range_error(s->api, "cuptiGetDeviceId", r, why, len);
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	}
	if ((int)dev != s->ordinal) {
		snprintf(why, len, "context %p is on device %u, not on device %d", (void *)ctx, dev,
			 s->ordinal);
		return CUPTI_CB_METRIC_SESSION_EINVAL;
	}
	return CUPTI_CB_METRIC_SESSION_OK;
}

int cupti_cb_metric_session_add_context(struct cupti_cb_metric_session *s, CUcontext ctx, char *why, size_t len)
{
	if (!ctx) {
		snprintf(why, len, "no context");
		return CUPTI_CB_METRIC_SESSION_EINVAL;
	}
	if (find_context(s, ctx) >= 0)
		return CUPTI_CB_METRIC_SESSION_OK;
	int rc = on_device(s, ctx, why, len);
	if (rc)
		return rc;
	struct cupti_cb_mctx *a = realloc(s->ctxs, (s->n_ctxs + 1) * sizeof *a);
	if (!a) {
		snprintf(why, len, "out of memory for a context");
		return CUPTI_CB_METRIC_SESSION_ENOMEM;
	}
	s->ctxs = a;
	struct cupti_cb_mctx *c = &s->ctxs[s->n_ctxs];
	memset(c, 0, sizeof *c);
	c->ctx = ctx;
	if (cupti_cb_metric_range_enable(s->api, s->p, c, why, len))
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	s->n_ctxs++;
	/* The first context collects; a later one waits (see begin_collector). */
	if (s->n_ctxs == 1 && begin_collector(s, why, len))
		return CUPTI_CB_METRIC_SESSION_EFAIL;	/* enabled and known: retried at the next change */
	return CUPTI_CB_METRIC_SESSION_OK;
}

int cupti_cb_metric_session_drop_context(struct cupti_cb_metric_session *s, CUcontext ctx, char *why, size_t len)
{
	int i = find_context(s, ctx);
	if (i < 0)
		return CUPTI_CB_METRIC_SESSION_OK;
	int rc = collect(s, &s->ctxs[i], 0, why, len);
	char err[512];
	cupti_cb_metric_range_disable(s->api, s->p, &s->ctxs[i]);
	/* Keep the order: the next context in the table takes over collection. */
	memmove(&s->ctxs[i], &s->ctxs[i + 1], (s->n_ctxs - (unsigned)i - 1) * sizeof s->ctxs[0]);
	s->n_ctxs--;
	if (begin_collector(s, err, sizeof err) && rc == 0) {
		snprintf(why, len, "%s", err);
		rc = -1;
	}
	return rc ? CUPTI_CB_METRIC_SESSION_EFAIL : CUPTI_CB_METRIC_SESSION_OK;
}

/* The device's primary context, when it is active (nothing is created). */
static int adopt_primary(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	unsigned flags = 0;
	int active = 0;
	CUcontext ctx = NULL;
	if (s->api->cuDevicePrimaryCtxGetState(s->device, &flags, &active) != CUDA_SUCCESS || !active)
		return CUPTI_CB_METRIC_SESSION_OK;
	/* Retaining an active primary context only counts one more user of it:
	 * the only way to learn its handle. Released at once. */
	CUresult r = s->api->cuDevicePrimaryCtxRetain(&ctx, s->device);
	if (r != CUDA_SUCCESS) {
		snprintf(why, len, "cuDevicePrimaryCtxRetain(%d) failed: %s", s->ordinal,
			 cupti_cb_cuda_error(s->api, r));
		return CUPTI_CB_METRIC_SESSION_EFAIL;
	}
	int rc = cupti_cb_metric_session_add_context(s, ctx, why, len);
	(void)s->api->cuDevicePrimaryCtxRelease_v2(s->device);
	return rc;
}

int cupti_cb_metric_session_adopt_current(struct cupti_cb_metric_session *s, char *why, size_t len)
{
	CUcontext cur = NULL;
	char err[512];
	if (s->api->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur &&
	    on_device(s, cur, err, sizeof err) == CUPTI_CB_METRIC_SESSION_OK) {
		int rc = cupti_cb_metric_session_add_context(s, cur, why, len);
		if (rc)
			return rc;
	}
	return adopt_primary(s, why, len);
}

/* ------------------------------------------------------------ totals, end */

int cupti_cb_metric_session_total(const struct cupti_cb_metric_session *s, unsigned id,
			    struct cupti_cb_profiler_total *t)
{
	if (id >= s->n_entries || !s->entries[id].name)
		return CUPTI_CB_METRIC_SESSION_EINVAL;
	*t = s->entries[id].total;
	return CUPTI_CB_METRIC_SESSION_OK;
}

void cupti_cb_metric_session_destroy(struct cupti_cb_metric_session *s)
{
	char why[512];	/* nobody to tell: the session ends either way */
	(void)stop_all(s, why, sizeof why);
	for (unsigned i = 0; i < s->n_ctxs; i++)
		cupti_cb_metric_range_disable(s->api, s->p, &s->ctxs[i]);
	free(s->ctxs);
	for (unsigned i = 0; i < s->n_entries; i++)
		free(s->entries[i].name);
	free(s->entries);
	free(s->avail);
	memset(s, 0, sizeof *s);
}
