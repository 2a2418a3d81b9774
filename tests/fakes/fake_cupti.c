/*
 * fake_cupti.c: a test-only libcupti (tests/fakes/libcupti.so) that the PAPI-level tests drive
 * through the control API of fake_cuda.h.  The names CUPTI gives (callback names, result strings,
 * version) come from the real libcupti, opened with dlopen from FAKE_REAL_CUPTI; the subscription,
 * the enabled callback IDs and the delivery of callbacks are faked, with fault injection.
 *
 * Subscribers: up to FAKE_MAX_SUBS at once, each with its own enabled callback IDs, as CUPTI 13.2
 * and newer: a second subscriber is accepted only when the version this fake reports
 * (fake_cupti_version) is 13.2 or newer and no subscriber, the new one included, refused to
 * share.  A subscriber refuses with allowMultipleSubscribers = 0 in a CUpti_SubscriberParams
 * large enough to hold it, or by calling cuptiSubscribe; one that passes 13.0's smaller
 * structure leaves it open, and shares (as libcupti 13.5 was measured to do).  Otherwise the
 * newcomer gets CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and the first subscriber's name.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_cuda.h"

void fake_pm_reset(void); /* fake_pmsampling.c */

#ifndef FAKE_REAL_CUPTI
#define FAKE_REAL_CUPTI "/usr/local/cuda/lib64/libcupti.so"
#endif

#define N_RT CUPTI_RUNTIME_TRACE_CBID_SIZE
#define N_DRV CUPTI_DRIVER_TRACE_CBID_SIZE

/* Cold state under lock; what a callback site reads is atomic. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

struct fake_sub {
	atomic_int used;
	_Atomic(CUpti_CallbackFunc) fn;
	_Atomic(void *) data;
	atomic_uchar rt[N_RT], drv[N_DRV], res[CUPTI_CBID_RESOURCE_SIZE];
	CUpti_SubscriberHandle handle;
	char name[128];		/* "CUPTI for <subscriberName>" */
	size_t struct_size;	/* of the CUpti_SubscriberParams it passed; 0: none */
	int allow;		/* 1 asked to share, 0 refused, 2 did not say (13.0's structure) */
};
static struct fake_sub subs[FAKE_MAX_SUBS];
static atomic_uint version_override;	/* what cuptiGetVersion says; 0: the real libcupti's */
static char *refuse_share_name;		/* sharing refused to all, naming this */
static size_t last_struct_size;		/* of the last subscribe, failed or not */
static int last_allow = -1;

static int n_subscribe, n_unsubscribe, n_enable;
static int fail_enable_in;	/* enables (enable=1) to go before the failing one; 0: off */
static CUptiResult fail_enable_err;
static int block_enable_in, enable_blocked, enable_released;
static char *other_name;	/* another tool holds CUPTI */
static CUptiResult subscribe_err;

static atomic_int drop_exits, repeat_sites;
static atomic_long delivered, cupti_calls;
static _Atomic uint32_t next_id = 1000;

static _Thread_local struct fake_call *open_rt;	/* innermost open runtime call of this thread */

/* ---- the real libcupti, for names ------------------------------------------------------- */

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static void *real_lib;
static const char *real_path = FAKE_REAL_CUPTI;
static CUptiResult (*real_get_version)(uint32_t *);
static CUptiResult (*real_result_string)(CUptiResult, const char **);
static CUptiResult (*real_callback_name)(CUpti_CallbackDomain, uint32_t, const char **);

static void open_real(void)
{
	const char *env = getenv("FAKE_REAL_CUPTI");
	if (env && env[0])
		real_path = env;
	real_lib = dlopen(real_path, RTLD_NOW | RTLD_LOCAL);
	if (!real_lib) {
		fprintf(stderr, "fake libcupti: cannot load the real libcupti %s: %s\n", real_path, dlerror());
		return;
	}
	*(void **)&real_get_version = dlsym(real_lib, "cuptiGetVersion");
	*(void **)&real_result_string = dlsym(real_lib, "cuptiGetResultString");
	*(void **)&real_callback_name = dlsym(real_lib, "cuptiGetCallbackName");
}

static void need_real(void)
{
	pthread_once(&real_once, open_real);
}

const char *fake_real_cupti(void)
{
	need_real();
	return real_path;
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	atomic_fetch_add(&cupti_calls, 1);
	unsigned v = atomic_load(&version_override);
	if (v && version) {
		*version = v;
		return CUPTI_SUCCESS;
	}
	need_real();
	return real_get_version ? real_get_version(version) : CUPTI_ERROR_UNKNOWN;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	atomic_fetch_add(&cupti_calls, 1);
	need_real();
	return real_result_string ? real_result_string(result, str) : CUPTI_ERROR_UNKNOWN;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	atomic_fetch_add(&cupti_calls, 1);
	need_real();
	return real_callback_name ? real_callback_name(domain, cbid, name) : CUPTI_ERROR_UNKNOWN;
}

/* ---- the subscription -------------------------------------------------------------------- */

/* The allowMultipleSubscribers field of CUPTI 13.2's CUpti_SubscriberParams, which follows the
 * four fields of 13.0's (read by offset: the 13.0 headers lack it). */
#define ALLOW_OFFSET (offsetof(CUpti_SubscriberParams, oldSubscriberSize) + sizeof(size_t))

static struct fake_sub *sub_of(CUpti_SubscriberHandle h)
{
	for (int i = 0; h && i < FAKE_MAX_SUBS; i++)
		if (atomic_load(&subs[i].used) && subs[i].handle == h)
			return &subs[i];
	return NULL;
}

int fake_cupti_handle_valid(CUpti_SubscriberHandle h)
{
	pthread_mutex_lock(&lock);
	int ok = sub_of(h) != NULL;
	pthread_mutex_unlock(&lock);
	return ok;
}

/* The first subscriber still there (in the order of subscription), or NULL. */
static struct fake_sub *first_sub(void)
{
	struct fake_sub *f = NULL;
	for (int i = 0; i < FAKE_MAX_SUBS; i++)
		if (atomic_load(&subs[i].used) && (!f || (uintptr_t)subs[i].handle < (uintptr_t)f->handle))
			f = &subs[i];
	return f;
}

/* Whether one more subscriber may join those there are (called with one there at least). */
static int may_share(int allow)
{
	if (allow == 0 || atomic_load(&version_override) < 130200u)
		return 0;
	for (int i = 0; i < FAKE_MAX_SUBS; i++)
		if (atomic_load(&subs[i].used) && subs[i].allow == 0)
			return 0;
	return 1;
}

static CUptiResult subscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *data,
			     CUpti_SubscriberParams *p)
{
	CUptiResult r = CUPTI_SUCCESS;
	atomic_fetch_add(&cupti_calls, 1);
	if (!sub)
		return CUPTI_ERROR_INVALID_PARAMETER;
	size_t size = p ? p->structSize : 0;
	int allow = !p ? 0 : size > ALLOW_OFFSET ? *((const uint8_t *)p + ALLOW_OFFSET) != 0 : 2;
	pthread_mutex_lock(&lock);
	last_struct_size = size;
	last_allow = allow;
	struct fake_sub *first = first_sub(), *free_slot = NULL;
	for (int i = 0; i < FAKE_MAX_SUBS && !free_slot; i++)
		if (!atomic_load(&subs[i].used))
			free_slot = &subs[i];
	if (other_name || (first && !may_share(allow)) || (refuse_share_name && allow == 1)) {
		/* Another tool holds CUPTI and does not share it (or this one did not ask), or a
		 * subscriber that has left chose for the process not to share. */
		const char *holder = other_name ? other_name : first ? first->name : refuse_share_name;
		if (p && p->oldSubscriberName && p->oldSubscriberSize > 0)
			snprintf(p->oldSubscriberName, p->oldSubscriberSize, "%s", holder);
		r = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	} else if (subscribe_err != CUPTI_SUCCESS) {
		r = subscribe_err;
	} else if (!free_slot) {
		r = CUPTI_ERROR_MAX_LIMIT_REACHED;
	} else {
		struct fake_sub *f = free_slot;
		for (int i = 0; i < N_RT; i++)
			atomic_store(&f->rt[i], 0);
		for (int i = 0; i < N_DRV; i++)
			atomic_store(&f->drv[i], 0);
		for (int i = 0; i < CUPTI_CBID_RESOURCE_SIZE; i++)
			atomic_store(&f->res[i], 0);
		n_subscribe++;
		snprintf(f->name, sizeof f->name, "CUPTI for %s", p && p->subscriberName ? p->subscriberName : "unnamed");
		f->handle = (CUpti_SubscriberHandle)(uintptr_t)(0x5000 + n_subscribe);
		f->struct_size = size;
		f->allow = allow;
		atomic_store(&f->fn, fn);
		atomic_store(&f->data, data);
		atomic_store(&f->used, 1);
		*sub = f->handle;
		/* With several subscribers allowed, CUPTI names the first one. */
		if (p && p->oldSubscriberName && p->oldSubscriberSize > 0 && first)
			snprintf(p->oldSubscriberName, p->oldSubscriberSize, "%s", first->name);
	}
	pthread_mutex_unlock(&lock);
	return r;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *data)
{
	return subscribe(sub, fn, data, NULL);
}

/* The 13.0 structure at least; a larger one (13.2's) is read up to what the fake knows. */
CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *data,
				       CUpti_SubscriberParams *p)
{
	if (p && p->structSize < ALLOW_OFFSET)
		return CUPTI_ERROR_INVALID_PARAMETER;
	return subscribe(sub, fn, data, p);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle sub)
{
	CUptiResult r = CUPTI_SUCCESS;
	atomic_fetch_add(&cupti_calls, 1);
	pthread_mutex_lock(&lock);
	struct fake_sub *f = sub_of(sub);
	if (!f) {
		r = CUPTI_ERROR_INVALID_PARAMETER;
	} else {
		/* Unsubscribing drops the subscriber's enabled callbacks. */
		atomic_store(&f->used, 0);
		for (int i = 0; i < N_RT; i++)
			atomic_store(&f->rt[i], 0);
		for (int i = 0; i < N_DRV; i++)
			atomic_store(&f->drv[i], 0);
		for (int i = 0; i < CUPTI_CBID_RESOURCE_SIZE; i++)
			atomic_store(&f->res[i], 0);
		atomic_store(&f->fn, NULL);
		atomic_store(&f->data, NULL);
		f->handle = NULL;
		n_unsubscribe++;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

static atomic_uchar *slot(struct fake_sub *f, CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < N_RT)
		return &f->rt[cbid];
	if (d == CUPTI_CB_DOMAIN_DRIVER_API && cbid < N_DRV)
		return &f->drv[cbid];
	if (d == CUPTI_CB_DOMAIN_RESOURCE && cbid < CUPTI_CBID_RESOURCE_SIZE)
		return &f->res[cbid];	/* context creation and destruction */
	return NULL;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain d,
					 CUpti_CallbackId cbid)
{
	CUptiResult r = CUPTI_SUCCESS;
	atomic_fetch_add(&cupti_calls, 1);
	pthread_mutex_lock(&lock);
	if (enable) {
		n_enable++;
		if (block_enable_in > 0 && --block_enable_in == 0) {
			enable_blocked = 1;
			enable_released = 0;
			pthread_cond_broadcast(&cond);
			while (!enable_released)
				pthread_cond_wait(&cond, &lock);
			enable_blocked = 0;
		}
	}
	struct fake_sub *f = sub_of(sub);
	atomic_uchar *s = f ? slot(f, d, cbid) : NULL;
	if (!s)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else if (enable && fail_enable_in > 0 && --fail_enable_in == 0)
		r = fail_enable_err;
	else
		atomic_store(s, (unsigned char)(enable != 0));
	pthread_mutex_unlock(&lock);
	return r;
}

/* The device of a context of the fake driver, or -1 for a context it does not know (also for
 * the fake's other files, which must not count as calls of libcupti). */
int fake_ctx_device(CUcontext ctx)
{
	return ctx == FAKE_CTX0 || ctx == FAKE_CTX0B ? 0 : ctx == FAKE_CTX1 ? 1 : -1;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext ctx, uint32_t *id)
{
	atomic_fetch_add(&cupti_calls, 1);
	if (!id)
		return CUPTI_ERROR_INVALID_PARAMETER;
	int dev = fake_ctx_device(ctx);
	if (dev < 0)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*id = (uint32_t)dev;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiFinalize(void)
{
	atomic_fetch_add(&cupti_calls, 1);
	return CUPTI_SUCCESS;
}

/* ---- playing calls ----------------------------------------------------------------------- */

void fake_call_init(struct fake_call *c, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		    const void *params, int ret, CUcontext ctx)
{
	memset(c, 0, sizeof *c);
	c->domain = domain;
	c->cbid = cbid;
	c->params = params;
	c->ret = ret;
	c->ctx = ctx;
	/* The runtime nests driver calls on the same thread with the same correlationId. */
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && open_rt)
		c->correlation_id = open_rt->correlation_id;
	else
		c->correlation_id = atomic_fetch_add(&next_id, 1);
	need_real();
	if (real_callback_name)
		real_callback_name(domain, cbid, &c->name);
}

static void deliver_to(struct fake_sub *f, struct fake_call *c, CUpti_ApiCallbackSite site)
{
	atomic_uchar *s = slot(f, c->domain, c->cbid);
	if (!s || !atomic_load(&f->used) || !atomic_load(s))
		return;	/* CUPTI calls back only for enabled CBIDs */
	CUpti_CallbackFunc fn = atomic_load(&f->fn);
	void *data = atomic_load(&f->data);
	if (!fn)
		return;
	if (site == CUPTI_API_EXIT) {
		int n = atomic_load(&drop_exits);
		while (n > 0 && !atomic_compare_exchange_weak(&drop_exits, &n, n - 1))
			;
		if (n > 0)
			return;
	}
	int times = 1, n = atomic_load(&repeat_sites);
	while (n > 0 && !atomic_compare_exchange_weak(&repeat_sites, &n, n - 1))
		;
	if (n > 0)
		times = 2;
	CUpti_CallbackData cd;
	memset(&cd, 0, sizeof cd);
	cd.callbackSite = site;
	cd.functionName = c->name;
	cd.functionParams = c->params;
	cd.functionReturnValue = &c->ret;
	cd.context = c->ctx;
	cd.contextUid = (uint32_t)(uintptr_t)c->ctx;
	cd.correlationData = &c->correlation_data;
	cd.correlationId = c->correlation_id;
	for (int i = 0; i < times; i++) {
		atomic_fetch_add(&delivered, 1);
		fn(data, c->domain, c->cbid, &cd);
	}
}

/* Every subscriber that enabled the CBID gets the site, in slot order. */
static void deliver(struct fake_call *c, CUpti_ApiCallbackSite site)
{
	for (int i = 0; i < FAKE_MAX_SUBS; i++)
		deliver_to(&subs[i], c, site);
}

void fake_enter(struct fake_call *c)
{
	c->state = 1;
	if (c->domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		c->outer = open_rt;
		open_rt = c;
	}
	deliver(c, CUPTI_API_ENTER);
}

void fake_exit(struct fake_call *c)
{
	deliver(c, CUPTI_API_EXIT);
	c->state = 2;
	if (c->domain == CUPTI_CB_DOMAIN_RUNTIME_API && open_rt == c)
		open_rt = c->outer;
}

void fake_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *params, int ret, CUcontext ctx)
{
	struct fake_call c;
	fake_call_init(&c, domain, cbid, params, ret, ctx);
	fake_enter(&c);
	fake_exit(&c);
}

/* ---- time -------------------------------------------------------------------------------- */

/* While frozen_ns is not 0, CLOCK_MONOTONIC reads frozen_ns, for every caller in the process: this
 * library comes before libc in the search order of the programs that link it, so the
 * component's clock (CUPTI_CB_CLOCK=monotonic) reads it here.  Other clocks, and every clock
 * while not frozen, are the real ones.
 *
 * The real clock_gettime is looked up when this library is loaded, never inside a call: the
 * callers include the sanitizers' allocators, which read the clock with their lock held, and a
 * dlsym there that allocates or frees (glibc 2.39's frees) waits for that lock for ever (the
 * test command hung so on Ubuntu 24.04).  A call that comes before the lookup asks the kernel
 * (fake_clock_check). */
static _Atomic uint64_t frozen_ns;
typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static _Atomic(clock_gettime_fn) real_clock_gettime;

__attribute__((constructor)) static void find_real_clock(void)
{
	void *p = dlsym(RTLD_NEXT, "clock_gettime");
	clock_gettime_fn f;
	memcpy(&f, &p, sizeof f);
	atomic_store(&real_clock_gettime, f);
}

/* Frozen for one thread only (fake_time_freeze_thread): the other threads' clocks run. */
static __thread uint64_t thread_frozen_ns;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t t = thread_frozen_ns ? thread_frozen_ns : atomic_load(&frozen_ns);
	if (t && id == CLOCK_MONOTONIC) {
		ts->tv_sec = (time_t)(t / 1000000000u);
		ts->tv_nsec = (long)(t % 1000000000u);
		return 0;
	}
	clock_gettime_fn real = atomic_load(&real_clock_gettime);
	if (real)
		return real(id, ts);
	return (int)syscall(SYS_clock_gettime, id, ts);
}

void fake_time_freeze(uint64_t ns)
{
	atomic_store(&frozen_ns, ns);
}

void fake_time_advance(uint64_t ns)
{
	atomic_fetch_add(&frozen_ns, ns);
}

void fake_time_freeze_thread(uint64_t ns)
{
	thread_frozen_ns = ns;
}

void fake_time_advance_thread(uint64_t ns)
{
	thread_frozen_ns += ns;
}

/* How far CUPTI's clock (cuptiGetTimestamp, fake_pmsampling.c) is ahead of CLOCK_MONOTONIC:
 * 0, unless CUPTI_CB_FAKE_CUPTI_CLOCK=realtime, which makes it read about as the real one
 * (CLOCK_REALTIME), fixed at the first call (CLOCK_REALTIME - CLOCK_MONOTONIC then, plus
 * 123457 ns): a clock that differs from the component's by an amount a wrong alignment would
 * show (the timeline's tests). */
static _Atomic uint64_t gpu_offset;
static atomic_int gpu_offset_known;

uint64_t fake_gpu_clock_offset(void)
{
	if (atomic_load(&gpu_offset_known))
		return atomic_load(&gpu_offset);
	const char *how = getenv("CUPTI_CB_FAKE_CUPTI_CLOCK");
	clock_gettime_fn real = atomic_load(&real_clock_gettime);
	uint64_t want = 0;
	if (how && !strcmp(how, "realtime") && real) {
		struct timespec r, m;
		real(CLOCK_REALTIME, &r);
		real(CLOCK_MONOTONIC, &m);
		want = ((uint64_t)r.tv_sec - (uint64_t)m.tv_sec) * 1000000000u + 123457u;
	}
	uint64_t none = 0;
	atomic_compare_exchange_strong(&gpu_offset, &none, want);
	atomic_store(&gpu_offset_known, 1);
	return atomic_load(&gpu_offset);
}

void fake_call_timed(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *params, int ret,
		     CUcontext ctx, uint64_t ns)
{
	struct fake_call c;
	fake_call_init(&c, domain, cbid, params, ret, ctx);
	fake_enter(&c);
	fake_time_advance(ns);
	fake_exit(&c);
}

/* ---- faults ------------------------------------------------------------------------------ */

void fake_fail_enable(int n, CUptiResult err)
{
	pthread_mutex_lock(&lock);
	fail_enable_in = n;
	fail_enable_err = err;
	pthread_mutex_unlock(&lock);
}

void fake_block_enable(int n)
{
	pthread_mutex_lock(&lock);
	block_enable_in = n;
	pthread_mutex_unlock(&lock);
}

void fake_wait_enable_blocked(void)
{
	pthread_mutex_lock(&lock);
	while (!enable_blocked)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

void fake_release_enable(void)
{
	pthread_mutex_lock(&lock);
	enable_released = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

void fake_drop_exits(int n)
{
	atomic_store(&drop_exits, n);
}

void fake_repeat_sites(int n)
{
	atomic_store(&repeat_sites, n);
}

void fake_other_subscriber(const char *name)
{
	pthread_mutex_lock(&lock);
	free(other_name);
	other_name = name ? strdup(name) : NULL;
	pthread_mutex_unlock(&lock);
}

void fake_refuse_sharing(const char *name)
{
	pthread_mutex_lock(&lock);
	free(refuse_share_name);
	refuse_share_name = name ? strdup(name) : NULL;
	pthread_mutex_unlock(&lock);
}

void fake_subscribe_error(CUptiResult err)
{
	pthread_mutex_lock(&lock);
	subscribe_err = err;
	pthread_mutex_unlock(&lock);
}

/* The libcupti half of fake_reset_faults (fake_cuda.c). */
void fake_cupti_reset_faults(void)
{
	pthread_mutex_lock(&lock);
	fail_enable_in = 0;
	block_enable_in = 0;
	enable_released = 1;
	pthread_cond_broadcast(&cond);
	free(other_name);
	other_name = NULL;
	free(refuse_share_name);
	refuse_share_name = NULL;
	subscribe_err = CUPTI_SUCCESS;
	pthread_mutex_unlock(&lock);
	atomic_store(&version_override, 0);
	atomic_store(&drop_exits, 0);
	atomic_store(&repeat_sites, 0);
	fake_activity_hold(0);
	fake_pm_reset();
}

/* ---- queries ----------------------------------------------------------------------------- */

#define LOCKED_INT(expr)                   \
	do {                               \
		pthread_mutex_lock(&lock); \
		int v_ = (expr);           \
		pthread_mutex_unlock(&lock); \
		return v_;                 \
	} while (0)

int fake_subscribed(void)
{
	int n = 0;
	for (int i = 0; i < FAKE_MAX_SUBS; i++)
		n += atomic_load(&subs[i].used);
	return n;
}

void fake_cupti_version(unsigned version)
{
	atomic_store(&version_override, version);
}

int fake_last_subscribe(size_t *struct_size)
{
	pthread_mutex_lock(&lock);
	int allow = last_allow;
	if (struct_size)
		*struct_size = last_struct_size;
	pthread_mutex_unlock(&lock);
	return allow;
}

int fake_subscriber(const char *name, size_t *struct_size)
{
	char full[160];
	int allow = -1;
	snprintf(full, sizeof full, "CUPTI for %s", name);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < FAKE_MAX_SUBS; i++) {
		if (atomic_load(&subs[i].used) && strcmp(subs[i].name, full) == 0) {
			allow = subs[i].allow;
			if (struct_size)
				*struct_size = subs[i].struct_size;
		}
	}
	pthread_mutex_unlock(&lock);
	return allow;
}

int fake_subscribe_calls(void)
{
	LOCKED_INT(n_subscribe);
}

int fake_unsubscribe_calls(void)
{
	LOCKED_INT(n_unsubscribe);
}

int fake_enable_calls(void)
{
	LOCKED_INT(n_enable);
}

int fake_enabled_count(CUpti_CallbackDomain d)
{
	int n = 0;
	for (int k = 0; k < FAKE_MAX_SUBS; k++) {
		if (d == CUPTI_CB_DOMAIN_RUNTIME_API)
			for (int i = 0; i < N_RT; i++)
				n += atomic_load(&subs[k].rt[i]);
		else if (d == CUPTI_CB_DOMAIN_DRIVER_API)
			for (int i = 0; i < N_DRV; i++)
				n += atomic_load(&subs[k].drv[i]);
	}
	return n;
}

int fake_is_enabled(CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
	int on = 0;
	for (int k = 0; k < FAKE_MAX_SUBS; k++) {
		atomic_uchar *s = slot(&subs[k], d, cbid);
		on |= s ? atomic_load(s) : 0;
	}
	return on;
}

long fake_delivered(void)
{
	return atomic_load(&delivered);
}

long fake_cupti_calls(void)
{
	return atomic_load(&cupti_calls);
}
