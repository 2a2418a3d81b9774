/* cupti_cb_services.c: set-up, the CUPTI subscription and which CBIDs are
 * enabled, the dispatch of callbacks to the listeners. Everything but the
 * dispatch is the cold path and runs under e->lock. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_services.h"
#include "cupti_cb_overflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBSCRIBER_NAME "cupti_cb (PAPI component)"

/* The cold path's decisions, for CUPTI_CB_TRACE=1. Never in callbacks. */
#define TRACE(e, ...)                                                   \
	do {                                                            \
		if ((e)->trace) {                                       \
			fprintf(stderr, "cupti_cb: " __VA_ARGS__);      \
			fputc('\n', stderr);                            \
		}                                                       \
	} while (0)

/* ---- the real resolver: pointer and context lookups through the driver -- */

static void real_locate(void *arg, CUdeviceptr ptr, struct cupti_cb_where *w)
{
	struct cupti_cb_services *e = arg;
	CUpointer_attribute attrs[2] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
	unsigned int type = 0;
	int ordinal = -1;
	void *out[2] = { &type, &ordinal };
	struct cupti_cb_thread_counters *b = cupti_cb_tls_counters;

	/* Our own driver call must not be counted as the application's. */
	if (b)
		b->in_lookup = 1;
	CUresult r = e->api.cuPointerGetAttributes(2, attrs, out, ptr);
	if (b)
		b->in_lookup = 0;
	/* Memory CUDA does not know (pageable host memory) is host memory. */
	if (r != CUDA_SUCCESS || type == 0 || type == CU_MEMORYTYPE_HOST)
		return;
	w->is_device = 1;
	w->device = ordinal;
}

static int real_context_device(void *arg, CUcontext ctx)
{
	struct cupti_cb_services *e = arg;
	uint32_t id;
	if (!ctx || e->api.cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS)
		return -1;
	return (int)id;
}

/* ---- opening ------------------------------------------------------------ */

int cupti_cb_services_count_devices(struct cupti_cb_services *e, int *n, char *why, size_t len)
{
	int known = atomic_load(&e->counted);
	if (known > 0) {
		*n = known;	/* cuInit once, whoever asks first */
		return 0;
	}
	if (!e->api.cuda_lib) {
		snprintf(why, len, "No NVIDIA driver: libcuda was not loaded");
		return -1;
	}
	/* Inside the driver's own cuInit (an injected library), a nested cuInit was seen to make
	 * the program's cuInit fail (CUDA 13.0, driver 580): the caller gives the count instead. */
	const char *given = getenv(CUPTI_CB_ENV_DEVICE_COUNT);
	if (given && given[0] >= '1' && given[0] <= '9') {
		*n = atoi(given);
		atomic_store(&e->counted, *n);
		return 0;
	}
	CUresult r = e->api.cuInit(0);
	if (r == CUDA_SUCCESS)
		r = e->api.cuDeviceGetCount(n);
	if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && *n == 0)) {
		snprintf(why, len, "No CUDA device: the driver found none (%s)",
			 r == CUDA_SUCCESS ? "device count 0" : cupti_cb_cuda_error(&e->api, r));
		return -1;
	}
	if (r != CUDA_SUCCESS) {
		snprintf(why, len, "No CUDA device: cuInit failed: %s", cupti_cb_cuda_error(&e->api, r));
		return -1;
	}
	atomic_store(&e->counted, *n);
	return 0;
}

static int count_devices(struct cupti_cb_services *e, int *n)
{
	return cupti_cb_services_count_devices(e, n, e->why, sizeof e->why);
}

static void quiet_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId c, const void *p)
{
	(void)u, (void)d, (void)c, (void)p;
}

/* cupti_cb asks to share the process with other CUPTI subscribers where
 * the loaded libcupti can (CUPTI 13.2 and newer, cupti_cb_multiple_subscribers.h). */
int cupti_cb_services_can_share(const struct cupti_cb_services *e)
{
	return e->api.cuptiSubscribe_v2 && e->api.cupti_version >= CUPTI_CB_MULTIPLE_SUBSCRIBERS_VERSION;
}

void cupti_cb_services_cupti_summary(const struct cupti_cb_services *e, char *buf, size_t len)
{
	char v[32];
	cupti_cb_cupti_version_str(e->api.cupti_version, v, sizeof v);
	snprintf(buf, len, "libcupti %s (CUPTI %s, API %u): %s", e->api.cupti_path[0] ? e->api.cupti_path : "?", v,
		 (unsigned)e->api.cupti_version,
		 cupti_cb_services_can_share(e) ? "shares CUPTI with other subscribers that allow it"
		 : e->api.cupti_version	      ? "one CUPTI subscriber per process (sharing needs CUPTI 13.2 or newer)"
					      : "version not known before the driver stage, which decides whether to share");
}

/* The sentence when another subscriber holds CUPTI and will not share it;
 * written whole, then cut to why's size (a long path loses its end). */
static void say_conflict(struct cupti_cb_services *e, const char *holder, int shared)
{
	char v[32], s[CUPTI_CB_WHY_LEN + 512];
	cupti_cb_cupti_version_str(e->api.cupti_version, v, sizeof v);
	if (shared)
		snprintf(s, sizeof s,
			 "Another CUPTI subscriber is active: '%s' holds CUPTI in this process and does not share "
			 "it (cupti_cb asked to share; libcupti %s is CUPTI %s, which allows several subscribers "
			 "only if each asks for it)",
			 holder, e->api.cupti_path, v);
	else
		snprintf(s, sizeof s,
			 "Another CUPTI subscriber is active: '%s' holds CUPTI in this process (libcupti %s is "
			 "CUPTI %s, which allows one subscriber; with CUPTI 13.2 or newer, set by %s, cupti_cb "
			 "shares it with tools that allow it)",
			 holder, e->api.cupti_path, v, CUPTI_CB_ENV_CUPTI_LIB);
	size_t n = strnlen(s, sizeof e->why - 1);
	memcpy(e->why, s, n);
	e->why[n] = '\0';
}

/* One cuptiSubscribe_v2 (cuptiSubscribe where it is missing), asking to
 * share or not; old receives the holder's name. */
static CUptiResult try_subscribe(struct cupti_cb_services *e, CUpti_CallbackFunc fn, CUpti_SubscriberHandle *sub,
				 int share, char *old, size_t old_len)
{
	if (!e->api.cuptiSubscribe_v2)
		return e->api.cuptiSubscribe(sub, fn, e);
	/* Our own copy of the structure: 13.0 headers lack the field. */
	struct cupti_cb_subscriber_params p = { 0 };
	p.structSize = share ? CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V132 : CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V130;
	p.subscriberName = SUBSCRIBER_NAME;
	p.oldSubscriberName = old;
	p.oldSubscriberSize = old_len;
	p.allowMultipleSubscribers = (uint8_t)share;
	old[0] = '\0';
	return e->api.cuptiSubscribe_v2(sub, fn, e, (CUpti_SubscriberParams *)(void *)&p);
}

/* Subscribe; on success the handle is in *sub and e->shared says whether
 * CUPTI lets others subscribe beside it. Fills why on failure. */
static int subscribe(struct cupti_cb_services *e, CUpti_CallbackFunc fn, CUpti_SubscriberHandle *sub)
{
	char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2], alone[sizeof old];
	int share = cupti_cb_services_can_share(e);
	CUptiResult r = try_subscribe(e, fn, sub, share, old, sizeof old);
	int refused_sharing = 0;
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && share) {
		/* CUPTI may keep the sharing choice of a subscriber that has
		 * left: alone in the process, asking not to share works. If
		 * another subscriber is there, this fails too. */
		refused_sharing = try_subscribe(e, fn, sub, 0, alone, sizeof alone) == CUPTI_SUCCESS;
		if (refused_sharing)
			r = CUPTI_SUCCESS;
	}
	if (r == CUPTI_SUCCESS) {
		e->shared = share && !refused_sharing;
		if (e->shared) {
			/* CUPTI names the first subscriber: another tool, or us. */
			int other = old[0] && strcmp(old, "CUPTI for " SUBSCRIBER_NAME) != 0;
			TRACE(e, "subscribe: %s: cupti_cb holds the CUPTI subscription in shared mode "
				 "(allowMultipleSubscribers=1; %s%s%s)",
			      cupti_cb_cupti_error(&e->api, r), other ? "the first subscriber is '" : "no other subscriber yet",
			      other ? old : "", other ? "'" : "");
		} else if (refused_sharing) {
			TRACE(e, "subscribe: %s: cupti_cb holds the CUPTI subscription in exclusive mode (CUPTI "
				 "refused to share, naming '%s': a subscriber that did not allow several came first)",
			      cupti_cb_cupti_error(&e->api, r), old[0] ? old : "unnamed");
		} else {
			char v[32];
			cupti_cb_cupti_version_str(e->api.cupti_version, v, sizeof v);
			TRACE(e, "subscribe: %s: cupti_cb holds the CUPTI subscription in exclusive mode "
				 "(CUPTI %s allows one subscriber)",
			      cupti_cb_cupti_error(&e->api, r), v);
		}
		return 0;
	}
	TRACE(e, "subscribe: %s%s%s%s", cupti_cb_cupti_error(&e->api, r), old[0] ? " (held by '" : "", old,
	      old[0] ? "')" : "");
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		say_conflict(e, old[0] ? old : "unnamed", share);
		return CUPTI_CB_ECONFLICT;
	}
	snprintf(e->why, sizeof e->why, "CUPTI refused the subscription: %s",
		 cupti_cb_cupti_error(&e->api, r));
	return CUPTI_CB_ECUPTI;
}

int cupti_cb_services_subscriber(struct cupti_cb_services *e, CUpti_SubscriberHandle *sub)
{
	pthread_mutex_lock(&e->lock);
	int shared = e->subscribed ? e->shared : -1;
	*sub = e->subscribed ? e->sub : NULL;
	pthread_mutex_unlock(&e->lock);
	return shared;
}

/* A subscribe/unsubscribe round trip with nothing enabled: tells whether
 * another tool already holds CUPTI, without keeping it ourselves. */
static int probe_subscriber(struct cupti_cb_services *e)
{
	CUpti_SubscriberHandle sub;
	int rc = subscribe(e, quiet_callback, &sub);
	if (rc == 0)
		e->api.cuptiUnsubscribe(sub);
	return rc;
}

static void read_environment(struct cupti_cb_services *e)
{
	const char *trace = getenv(CUPTI_CB_ENV_TRACE);
	const char *clock = getenv(CUPTI_CB_ENV_CLOCK);
	e->trace = trace && trace[0] >= '1' && trace[0] <= '9' ? trace[0] - '0' : 0;	/* 2 and more: every decode too */
	e->monotonic = clock && !strcmp(clock, "monotonic");
}

int cupti_cb_services_open_catalog(struct cupti_cb_services *e)
{
	if (e->state != CUPTI_CB_UNINIT)
		return e->state == CUPTI_CB_DISABLED ? -1 : 0;
	read_environment(e);
	pthread_mutex_init(&e->counters_lock, NULL);
	e->state = CUPTI_CB_DISABLED;
	uint64_t t0 = cupti_cb_mono_ns();
	if (cupti_cb_load_cupti(&e->api, e->why, sizeof e->why))
		return -1;
	/* Loading libcuda (no cuInit) tells whether a driver is there at all,
	 * so that listings can say "No NVIDIA driver" without starting CUDA.
	 * With a chip named in CUPTI_CB_CHIP the user plans event sets for
	 * another machine (a login node): the catalogues are listed all the
	 * same, and the first add says there is no driver. */
	int cuda = e->api.cuda_lib || !cupti_cb_load_cuda(&e->api, e->why, sizeof e->why);
	/* libcupti 13.5's cuptiGetVersion fails where it cannot load the
	 * driver: with libcuda loaded, ask again. */
	if (cuda && !e->api.cupti_version && e->api.cuptiGetVersion(&e->api.cupti_version) != CUPTI_SUCCESS)
		e->api.cupti_version = 0;
	if (!cuda) {
		const char *chip = getenv(CUPTI_CB_ENV_CHIP);
		if (!chip || !chip[0])
			return -1;
		TRACE(e, "%s; listing for %s=%s", e->why, CUPTI_CB_ENV_CHIP, chip);
		snprintf(e->listing_only, sizeof e->listing_only,
			 "%.300s: events are listed for " CUPTI_CB_ENV_CHIP "=%.40s, none can be added here",
			 e->why, chip);
		e->why[0] = '\0';
	}
	e->n_cbids[0] = CUPTI_RUNTIME_TRACE_CBID_SIZE;
	e->n_cbids[1] = CUPTI_DRIVER_TRACE_CBID_SIZE;
	if (e->trace) {
		char summary[CUPTI_CB_WHY_LEN];
		cupti_cb_services_cupti_summary(e, summary, sizeof summary);
		TRACE(e, "%s", summary);
	}
	TRACE(e, "libraries: %.2f ms, no driver touched", (cupti_cb_mono_ns() - t0) / 1e6);
	e->state = CUPTI_CB_CATALOG;
	return 0;
}

int cupti_cb_services_open(struct cupti_cb_services *e)
{
	int n = 0;
	if (cupti_cb_services_open_catalog(e))
		return -1;
	if (e->state == CUPTI_CB_READY)
		return 0;
	if (e->listing_only[0])
		return -1;	/* no driver: known since the catalogue stage, and said there */
	e->state = CUPTI_CB_DISABLED;
	uint64_t t1 = cupti_cb_mono_ns();
	if (!e->api.cuda_lib && cupti_cb_load_cuda(&e->api, e->why, sizeof e->why))
		return -1;
	if (count_devices(e, &n))
		return -1;
	/* libcupti 13.5's cuptiGetVersion fails (CUPTI_ERROR_UNKNOWN) where it
	 * cannot load the driver: with the driver there, ask again. */
	if (!e->api.cupti_version) {
		if (e->api.cuptiGetVersion(&e->api.cupti_version) != CUPTI_SUCCESS)
			e->api.cupti_version = 0;
		if (e->trace) {
			char summary[CUPTI_CB_WHY_LEN];
			cupti_cb_services_cupti_summary(e, summary, sizeof summary);
			TRACE(e, "%s", summary);
		}
	}
	uint64_t t2 = cupti_cb_mono_ns();
	if (probe_subscriber(e))
		return -1;
	uint64_t t3 = cupti_cb_mono_ns();
	if (cupti_cb_services_setup_driver(e, n)) {
		snprintf(e->why, sizeof e->why, "cupti_cb could not set up: out of memory");
		return -1;
	}
	TRACE(e, "driver: %.2f ms loading libcuda, cuInit and device count (%d devices), "
		 "%.2f ms subscriber probe",
	      (t2 - t1) / 1e6, n, (t3 - t2) / 1e6);
	e->why[0] = '\0';
	return 0;
}

/* ---- set-up ------------------------------------------------------------- */

int cupti_cb_services_reserve(struct cupti_cb_services *e, size_t fixed, size_t per_row, size_t *offset)
{
	if (e->n_reserved == CUPTI_CB_MAX_RESERVATIONS || e->state == CUPTI_CB_READY)
		return -1;
	e->reserved[e->n_reserved++] = (struct cupti_cb_reservation){ fixed, per_row, offset };
	return 0;
}

int cupti_cb_services_setup_driver(struct cupti_cb_services *e, int n_devices)
{
	struct cupti_cb_layout lay;
	e->n_devices = n_devices;
	if (!e->n_cbids[0]) {	/* set up without the catalogue stage (unit tests) */
		e->n_cbids[0] = CUPTI_RUNTIME_TRACE_CBID_SIZE;
		e->n_cbids[1] = CUPTI_DRIVER_TRACE_CBID_SIZE;
	}
	cupti_cb_layout_init(&lay, n_devices < 0 ? 0 : n_devices > CUPTI_CB_MAX_DEVICES ? CUPTI_CB_MAX_DEVICES : n_devices);
	for (unsigned i = 0; i < e->n_reserved; i++)
		*e->reserved[i].offset = cupti_cb_layout_add(&lay, e->reserved[i].fixed +
								   (size_t)lay.n_devrows * e->reserved[i].per_row);
	e->op_of = calloc(e->n_cbids[1], sizeof *e->op_of);
	e->refs[0] = calloc(e->n_cbids[0], sizeof *e->refs[0]);
	e->refs[1] = calloc(e->n_cbids[1], sizeof *e->refs[1]);
	e->on[0] = calloc(e->n_cbids[0], sizeof *e->on[0]);
	e->on[1] = calloc(e->n_cbids[1], sizeof *e->on[1]);
	if (!e->op_of || !e->refs[0] || !e->refs[1] || !e->on[0] || !e->on[1] ||
	    cupti_cb_thread_registry_init(&e->reg, &lay))
		return -1;
	for (size_t i = 0; i < cupti_cb_n_driver_ops; i++)
		if (cupti_cb_driver_ops[i].cbid < e->n_cbids[1])
			e->op_of[cupti_cb_driver_ops[i].cbid] = &cupti_cb_driver_ops[i];
	e->resolver = (struct cupti_cb_resolver){ real_locate, real_context_device, e };
	cupti_cb_clock_init(&e->clock, e->monotonic ? 0 : -1);
	pthread_mutex_init(&e->lock, NULL);
	atomic_init(&e->timing, 0);
	e->epoch++;
	e->state = CUPTI_CB_READY;
	return 0;
}

void cupti_cb_services_listen(struct cupti_cb_services *e, CUpti_CallbackDomain domain, cupti_cb_listener_fn fn,
			      void *arg)
{
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	e->listener[d].arg = arg;
	e->listener[d].fn = fn;
}

static int set_callback(struct cupti_cb_services *e, int d, uint32_t c, int on)
{
	CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	CUptiResult r = e->api.cuptiEnableCallback((uint32_t)on, e->sub, dom, c);
	if (r != CUPTI_SUCCESS && on) {
		snprintf(e->why, sizeof e->why, "cuptiEnableCallback failed: %s", cupti_cb_cupti_error(&e->api, r));
		return CUPTI_CB_ECUPTI;
	}
	e->on[d][c] = (uint8_t)on;
	return 0;
}

static void disable_all(struct cupti_cb_services *e)
{
	for (int d = 0; d < 2; d++) {
		for (uint32_t c = 0; c < e->n_cbids[d]; c++) {
			if (e->on[d][c] && e->subscribed)
				set_callback(e, d, c, 0);
			e->on[d][c] = 0;
			e->refs[d][c] = 0;
		}
	}
}

/* Disable before unsubscribing: facts.md measured that unsubscribing with
 * callbacks enabled leaves every later call of those APIs 6x slower. */
static void unsubscribe(struct cupti_cb_services *e)
{
	if (!e->subscribed)
		return;
	disable_all(e);
	CUptiResult r = e->api.cuptiUnsubscribe(e->sub);
	TRACE(e, "unsubscribe: %s", cupti_cb_cupti_error(&e->api, r));
	e->subscribed = 0;
}

/* Every hold taken before is void after this (the epoch changes). */
static int set_resource(struct cupti_cb_services *e, int on);

static void let_go(struct cupti_cb_services *e)
{
	if (e->watching && e->subscribed)
		set_resource(e, 0);
	unsubscribe(e);
	e->watching = 0;
	e->on_context = NULL;
	e->holders = 0;
	e->timing_refs = 0;
	e->epoch++;
	atomic_store(&e->timing, 0);
}

void cupti_cb_services_close(struct cupti_cb_services *e)
{
	if (e->state != CUPTI_CB_READY)
		return;
	pthread_mutex_lock(&e->lock);
	let_go(e);
	cupti_cb_thread_registry_detach(&e->reg);
	pthread_mutex_unlock(&e->lock);
}

static void after_fork_child(struct cupti_cb_services *e)
{
	/* Only the forking thread exists: the lock may be held by a thread
	 * that is gone. Never call CUPTI here: its state is the parent's. */
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->counters_lock, NULL);
	e->profiler_holds = 0;
	memset(e->counters_holder, 0, sizeof e->counters_holder);
	e->subscribed = 0;
	e->holders = 0;
	e->watching = 0;
	e->on_context = NULL;
	e->timing_refs = 0;
	e->epoch++;
	atomic_store(&e->timing, 0);
	e->state = CUPTI_CB_DISABLED;
	snprintf(e->why, sizeof e->why,
		 "This process is a fork() child of a process that had initialized CUDA: CUDA and CUPTI "
		 "cannot be used here, so cupti_cb is disabled in this process");
}

int cupti_cb_services_fork_child(struct cupti_cb_services *e, int busy)
{
	/* cuInit ran (for the driver stage, or for the metric catalogue's chip). */
	int cuda_up = e->state == CUPTI_CB_READY || atomic_load(&e->counted) > 0;
	if (e->state == CUPTI_CB_READY)
		cupti_cb_ovf_forget_all(&e->reg);
	if (!cuda_up && !(busy && e->state != CUPTI_CB_UNINIT))
		return 0;
	after_fork_child(e);
	return 1;
}

void cupti_cb_services_reattach(struct cupti_cb_services *e)
{
	cupti_cb_thread_registry_attach(&e->reg);
}

int cupti_cb_services_describe(const struct cupti_cb_services *e, char *buf, size_t len)
{
	char v[32];
	if (!e->api.cupti_lib)
		return -1;
	cupti_cb_cupti_version_str(e->api.cupti_version, v, sizeof v);
	snprintf(buf, len, "CUDA calls, GPU work, metrics; CUPTI %s, %s: %s", v,
		 cupti_cb_services_can_share(e) ? "shared"
		 : e->api.cupti_version	      ? "exclusive"
					      : "mode set at first use",
		 e->api.cupti_path);
	return 0;
}

int cupti_cb_services_thread_known(struct cupti_cb_services *e, long tid)
{
	return cupti_cb_thread_registry_find(&e->reg, tid, NULL, 0) > 0;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct cupti_cb_thread_owner *)a)->id, y = ((const struct cupti_cb_thread_owner *)b)->id;
	return x < y ? -1 : x > y;
}

int cupti_cb_services_threads(struct cupti_cb_services *e, struct cupti_cb_thread_owner **out)
{
	unsigned room = cupti_cb_thread_registry_list(&e->reg, NULL, 0) + 64;	/* and threads arriving */
	struct cupti_cb_thread_owner *o = malloc(room * sizeof *o);
	if (!o)
		return -1;
	unsigned n = cupti_cb_thread_registry_list(&e->reg, o, room);
	if (n > room)
		n = room;
	qsort(o, n, sizeof *o, by_id);
	*out = o;
	return (int)n;
}

void cupti_cb_services_destroy(struct cupti_cb_services *e)
{
	int ready = e->state == CUPTI_CB_READY;
	cupti_cb_services_close(e);
	if (ready) {
		cupti_cb_thread_registry_fini(&e->reg);
		pthread_mutex_destroy(&e->lock);
	}
	free(e->op_of);
	free(e->refs[0]);
	free(e->refs[1]);
	free(e->on[0]);
	free(e->on[1]);
	e->on[0] = e->on[1] = NULL;
	atomic_store(&e->counted, 0);
	e->op_of = NULL;
	e->refs[0] = e->refs[1] = NULL;
	e->state = CUPTI_CB_UNINIT;
}

#define HAS(bits, c) ((bits)[(c) / 8] >> ((c) % 8) & 1)
#define SET(bits, c) ((bits)[(c) / 8] |= (uint8_t)(1u << ((c) % 8)))

static void drop_ref(struct cupti_cb_services *e, int d, uint32_t c)
{
	if (e->refs[d][c] > 0 && --e->refs[d][c] == 0 && e->on[d][c])
		set_callback(e, d, c, 0);
}

/* What CUPTI delivered oddly and what the allocation table could not
 * follow, so far (CUPTI_CB_TRACE=1). */
static void trace_anomalies(struct cupti_cb_services *e)
{
	unsigned long repeats = 0, unmatched = 0;
	for (struct cupti_cb_thread_counters *b = atomic_load(&e->reg.head); b; b = b->next) {
		repeats += atomic_load_explicit(&b->repeats, memory_order_relaxed);
		unmatched += atomic_load_explicit(&b->unmatched, memory_order_relaxed);
	}
	TRACE(e, "so far: %lu repeated callbacks dropped, %lu EXITs without their ENTER (counted, not timed)",
	      repeats, unmatched);
}

static void unhold_locked(struct cupti_cb_services *e, struct cupti_cb_hold *h)
{
	if (!h->active || h->epoch != e->epoch) {
		h->active = 0;
		return;
	}
	for (int d = 0; d < 2; d++)
		for (uint32_t c = 1; c < e->n_cbids[d]; c++)
			if (HAS(h->cbids[d], c))
				drop_ref(e, d, c);
	if (h->timed && e->timing_refs > 0 && --e->timing_refs == 0)
		atomic_store(&e->timing, 0);
	h->active = 0;
	if (e->trace)
		trace_anomalies(e);
	if (e->holders > 0 && --e->holders == 0)
		let_go(e);
	TRACE(e, "released a set: %u sets hold callbacks", e->holders);
}

/* Raise the refs of the CBIDs in want that h does not hold yet, in order;
 * on a failed enable, undo exactly those. Then drop what h held and want
 * does not need. CBIDs both need never toggle. */
static int take_refs(struct cupti_cb_services *e, struct cupti_cb_hold *h, const struct cupti_cb_hold *want)
{
	unsigned changed = 0;
	for (int d = 0; d < 2; d++) {
		for (uint32_t c = 1; c < e->n_cbids[d]; c++) {
			if (!HAS(want->cbids[d], c) || HAS(h->cbids[d], c))
				continue;
			if (e->refs[d][c]++ == 0 && !e->on[d][c]) {
				changed++;
				if (set_callback(e, d, c, 1) == 0)
					continue;
				/* Undo this call's work, and only it. */
				e->refs[d][c]--;
				for (int d2 = 0; d2 <= d; d2++)
					for (uint32_t c2 = 1; c2 < (d2 < d ? e->n_cbids[d2] : c); c2++)
						if (HAS(want->cbids[d2], c2) && !HAS(h->cbids[d2], c2))
							drop_ref(e, d2, c2);
				return CUPTI_CB_ECUPTI;
			}
		}
	}
	for (int d = 0; d < 2; d++)
		for (uint32_t c = 1; c < e->n_cbids[d]; c++)
			if (HAS(h->cbids[d], c) && !HAS(want->cbids[d], c))
				drop_ref(e, d, c);
	TRACE(e, "enabled %u CBIDs for a set", changed);
	return 0;
}

void cupti_cb_services_work_cbids(const struct cupti_cb_services *e, struct cupti_cb_hold *want)
{
	/* And the host synchronizations: a read after one waits for the
	 * records of the work issued before it (cupti_cb_activity_source.c). */
	const uint32_t work = CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_LAUNCH) | CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_GRAPH) |
			      CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_MEMCPY) | CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_MEMSET) |
			      CUPTI_CB_CLS_BIT(CUPTI_CB_CLS_SYNC);
	memset(want, 0, sizeof *want);
	for (uint32_t c = 1; c < e->n_cbids[1]; c++)
		if (e->op_of[c] && (work & CUPTI_CB_CLS_BIT(e->op_of[c]->cls)))
			SET(want->cbids[1], c);
}

void cupti_cb_services_driver_cbids(const struct cupti_cb_services *e, struct cupti_cb_hold *want)
{
	memset(want, 0, sizeof *want);
	const char *name;
	for (uint32_t c = 1; c < e->n_cbids[1]; c++)
		if (e->api.cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, c, &name) == CUPTI_SUCCESS && name)
			SET(want->cbids[1], c);
}

int cupti_cb_services_hold_cbids(struct cupti_cb_services *e, struct cupti_cb_hold *h, const struct cupti_cb_hold *wanted,
			       char *why, size_t why_len)
{
	struct cupti_cb_hold want = *wanted;
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	if (h->active && h->epoch != e->epoch)
		h->active = 0;
	if (!h->active)
		memset(h, 0, sizeof *h);
	if (!e->subscribed) {
		rc = subscribe(e, cupti_cb_services_callback, &e->sub);
		e->subscribed = rc == 0;
	}
	if (rc == 0) {
		/* The clock goes on before any callback can see an enter. */
		if (want.timed && !h->timed && e->timing_refs++ == 0)
			atomic_store(&e->timing, 1);
		rc = take_refs(e, h, &want);
		if (rc == 0) {
			if (h->timed && !want.timed && --e->timing_refs == 0)
				atomic_store(&e->timing, 0);
			if (!h->active)
				e->holders++;
			memcpy(h->cbids, want.cbids, sizeof h->cbids);
			h->timed = want.timed;
			h->active = 1;
			h->epoch = e->epoch;
		} else if (want.timed && !h->timed && --e->timing_refs == 0) {
			atomic_store(&e->timing, 0);
		}
		if (rc && !h->active && e->holders == 0)
			let_go(e);	/* nothing else holds the subscription */
	}
	if (rc && why)
		snprintf(why, why_len, "%s", e->why);
	TRACE(e, "start: %s, %u sets hold callbacks", rc ? e->why : "ok", e->holders);
	pthread_mutex_unlock(&e->lock);
	return rc;
}

void cupti_cb_services_unhold(struct cupti_cb_services *e, struct cupti_cb_hold *h)
{
	if (e->state != CUPTI_CB_READY)
		return;
	pthread_mutex_lock(&e->lock);
	unhold_locked(e, h);
	pthread_mutex_unlock(&e->lock);
}

/* ---- context watch ------------------------------------------------------- */

static int set_resource(struct cupti_cb_services *e, int on)
{
	static const CUpti_CallbackId ids[] = { CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
						CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING };
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		CUptiResult r = e->api.cuptiEnableCallback((uint32_t)on, e->sub, CUPTI_CB_DOMAIN_RESOURCE, ids[i]);
		if (r != CUPTI_SUCCESS && on) {
			snprintf(e->why, sizeof e->why, "cuptiEnableCallback (context creation) failed: %s",
				 cupti_cb_cupti_error(&e->api, r));
			if (i)
				e->api.cuptiEnableCallback(0, e->sub, CUPTI_CB_DOMAIN_RESOURCE, ids[0]);
			return CUPTI_CB_ECUPTI;
		}
	}
	return 0;
}

int cupti_cb_services_watch_contexts(struct cupti_cb_services *e, cupti_cb_context_fn fn, void *arg, char *why,
				   size_t why_len)
{
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	if (e->watching) {
		e->on_context = fn;
		e->on_context_arg = arg;
		pthread_mutex_unlock(&e->lock);
		return 0;
	}
	if (!e->subscribed) {
		rc = subscribe(e, cupti_cb_services_callback, &e->sub);
		e->subscribed = rc == 0;
	}
	if (rc == 0) {
		e->on_context_arg = arg;
		e->on_context = fn;
		rc = set_resource(e, 1);
	}
	if (rc == 0) {
		e->watching = 1;
		e->holders++;	/* the watch holds the subscription like an event set */
	} else {
		e->on_context = NULL;
		if (e->holders == 0)
			let_go(e);
		if (why)
			snprintf(why, why_len, "%s", e->why);
	}
	TRACE(e, "context watch: %s", rc ? e->why : "on");
	pthread_mutex_unlock(&e->lock);
	return rc;
}

void cupti_cb_services_unwatch_contexts(struct cupti_cb_services *e)
{
	if (e->state != CUPTI_CB_READY)
		return;
	pthread_mutex_lock(&e->lock);
	if (e->watching) {
		set_resource(e, 0);
		e->watching = 0;
		e->on_context = NULL;
		if (e->holders > 0 && --e->holders == 0)
			let_go(e);
	}
	e->watching = 0;
	pthread_mutex_unlock(&e->lock);
}

void cupti_cb_services_resource(struct cupti_cb_services *e, CUpti_CallbackId cbid, const void *cbdata)
{
	const CUpti_ResourceData *rd = cbdata;
	cupti_cb_context_fn fn = e->on_context;
	if (!fn || !rd)
		return;
	if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
		fn(e->on_context_arg, rd->context, 1);
	else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
		fn(e->on_context_arg, rd->context, 0);
}

uint64_t cupti_cb_services_driver_calls(const struct cupti_cb_services *e)
{
	uint64_t n = 0;
	for (const struct cupti_cb_thread_counters *b = atomic_load(&e->reg.head); b; b = b->next)
		n += atomic_load_explicit(&b->driver_calls, memory_order_relaxed);
	return n;
}

/* ---- the callback -------------------------------------------------------- */

void CUPTIAPI cupti_cb_services_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
					 const void *cbdata)
{
	struct cupti_cb_services *e = userdata;
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if (!d && domain != CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (domain == CUPTI_CB_DOMAIN_RESOURCE)
			cupti_cb_services_resource(e, cbid, cbdata);
		return;
	}
	cupti_cb_listener_fn fn = e->listener[d].fn;
	if (fn)
		fn(e->listener[d].arg, domain, cbid, cbdata);
}

/* ---- the GPU's performance counters ---------------------------------------- */

int cupti_cb_services_profiler_hold(struct cupti_cb_services *e, cupti_cb_profiler_up_fn up, void *arg, char *why,
				    size_t len)
{
	int rc = 0;
	pthread_mutex_lock(&e->counters_lock);
	if (e->profiler_holds == 0)
		rc = up(arg, why, len);
	if (rc == 0)
		e->profiler_holds++;
	pthread_mutex_unlock(&e->counters_lock);
	return rc ? -1 : 0;
}

void cupti_cb_services_profiler_release(struct cupti_cb_services *e, cupti_cb_profiler_down_fn down, void *arg)
{
	pthread_mutex_lock(&e->counters_lock);
	if (e->profiler_holds && --e->profiler_holds == 0)
		down(arg);
	pthread_mutex_unlock(&e->counters_lock);
}

static int counters_busy(int dev, const char *holder, char *why, size_t len)
{
	snprintf(why, len,
		 "the performance counters of device %d are in use by cupti_cb's %s events (an event set that holds "
		 "them, started or not): a device's counters serve the Range Profiler or PM sampling, not both at "
		 "once; clean up that event set (PAPI_cleanup_eventset) or count another device",
		 dev, holder);
	return CUPTI_CB_ECONFLICT;
}

static int claim(struct cupti_cb_services *e, int dev, const char *who, int take, char *why, size_t len)
{
	if (dev < 0 || dev >= CUPTI_CB_MAX_DEVICES)
		return CUPTI_CB_EINVAL;
	pthread_mutex_lock(&e->counters_lock);
	const char *holder = e->counters_holder[dev];
	if (!holder && take)
		e->counters_holder[dev] = who;
	pthread_mutex_unlock(&e->counters_lock);
	if (!holder || !strcmp(holder, who))
		return CUPTI_CB_OK;
	return counters_busy(dev, holder, why, len);
}

int cupti_cb_services_claim_counters(struct cupti_cb_services *e, int dev, const char *who, char *why, size_t len)
{
	return claim(e, dev, who, 1, why, len);
}

int cupti_cb_services_check_counters(struct cupti_cb_services *e, int dev, const char *who, char *why, size_t len)
{
	return claim(e, dev, who, 0, why, len);
}

void cupti_cb_services_release_counters(struct cupti_cb_services *e, int dev, const char *who)
{
	if (dev < 0 || dev >= CUPTI_CB_MAX_DEVICES)
		return;
	pthread_mutex_lock(&e->counters_lock);
	if (e->counters_holder[dev] && !strcmp(e->counters_holder[dev], who))
		e->counters_holder[dev] = NULL;
	pthread_mutex_unlock(&e->counters_lock);
}
