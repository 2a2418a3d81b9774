/* test_counting.c: the engine driven the way CUPTI drives it, with real
 * CUpti_CallbackData and real driver/runtime parameter structs, but with a
 * fake CUPTI subscription and a fake driver for pointer and context
 * lookups. Nothing here needs a GPU. */
#include <pthread.h>
#include <time.h>

#include "check.h"
#include "cupti_cb_callback_state.h"
#include "catalog_code.h"
#include "fake_subscriber.h"

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API
#define DCB(f) CUPTI_DRIVER_TRACE_CBID_##f
#define RCB(f) CUPTI_RUNTIME_TRACE_CBID_##f

static struct cupti_cb_services eng;
static struct cupti_cb_callback cb;

/* ---- fake CUPTI and driver -------------------------------------------- */

static CUcontext const CTX0 = (CUcontext)0x1000, CTX1 = (CUcontext)0x2000;

static CUptiResult fake_device_id(CUcontext ctx, uint32_t *id)
{
	if (ctx != CTX0 && ctx != CTX1)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*id = ctx == CTX1;
	return CUPTI_SUCCESS;
}

/* Device memory: [1<<32, 2<<32) on device 0, [2<<32, 3<<32) on device 1. */
static CUresult fake_pointer_attrs(unsigned n, CUpointer_attribute *a, void **out, CUdeviceptr p);

static unsigned enabled_count(int d)
{
	unsigned n = 0;
	for (unsigned c = 0; c < sizeof enabled[0]; c++)
		n += enabled[d][c];
	return n;
}

/* ---- calling the engine as CUPTI does --------------------------------- */

static uint32_t next_id(void)
{
	static _Atomic uint32_t id = 1000;	/* CUPTI numbers each call */
	return atomic_fetch_add(&id, 1);
}

struct call {
	CUpti_CallbackDomain dom;
	CUpti_CallbackId cbid;
	const void *params;
	CUresult ret;
	CUcontext ctx;
	uint64_t corr;
	uint32_t id;	/* correlationId */
};

/* CUPTI gives the driver calls nested in a runtime call the runtime
 * call's correlation id (facts measured on the GPU). */
static _Thread_local uint32_t rt_in_progress;

static void site(struct call *c, CUpti_ApiCallbackSite where)
{
	if (c->dom == RT)
		rt_in_progress = where == CUPTI_API_ENTER ? c->id : 0;
	if (!enabled[c->dom == DRV][c->cbid])
		return;	/* CUPTI calls back only for enabled CBIDs */
	CUpti_CallbackData cd = { 0 };
	cd.callbackSite = where;
	cd.functionParams = c->params;
	cd.functionReturnValue = &c->ret;
	cd.context = c->ctx;
	cd.correlationData = &c->corr;
	cd.correlationId = c->id;
	cupti_cb_services_callback(&eng, c->dom, c->cbid, &cd);
}

static void driver(CUpti_CallbackId cbid, const void *params, CUresult ret, CUcontext ctx)
{
	struct call c = { DRV, cbid, params, ret, ctx, 0, rt_in_progress ? rt_in_progress : next_id() };
	site(&c, CUPTI_API_ENTER);
	site(&c, CUPTI_API_EXIT);
}

static CUresult fake_pointer_attrs(unsigned n, CUpointer_attribute *a, void **out, CUdeviceptr p)
{
	/* A nested driver call, as the real cuPointerGetAttributes is: the
	 * engine must not count it. */
	cuPointerGetAttributes_params self = { n, a, out, p };
	driver(DCB(cuPointerGetAttributes), &self, CUDA_SUCCESS, CTX0);
	int dev = (int)(p >> 32) - 1;
	if (dev < 0 || dev > 1)
		return CUDA_ERROR_INVALID_VALUE;
	*(unsigned *)out[0] = CU_MEMORYTYPE_DEVICE;
	*(int *)out[1] = dev;
	return CUDA_SUCCESS;
}

static CUdeviceptr on_dev(int dev, uint64_t off)
{
	return ((CUdeviceptr)(dev + 1) << 32) + off;
}

/* ---- reading -------------------------------------------------------------- */

/* Thread-scope value for this thread, or process scope with :process. */
static uint64_t value(const char *name)
{
	uint32_t code = catalog_code(&cb.cat, name);
	struct cupti_cb_probe p = cupti_cb_callback_probe(&cb, code);
	return cupti_cb_callback_raw(&cb, &p, CUPTI_CB_CODE_PROC(code) ? NULL : cupti_cb_services_thread_counters(&eng));
}

/* An event set: its codes, acquired on start, and base values. */
struct set {
	unsigned n;
	uint32_t codes[8];
	const char *names[8];
	uint64_t base[8];
	struct cupti_cb_hold hold;
};

static struct set start(const char *a, const char *b, const char *c)
{
	struct set s = { 0 };
	const char *names[3] = { a, b, c };
	for (int i = 0; i < 3 && names[i]; i++) {
		s.names[s.n] = names[i];
		s.codes[s.n++] = catalog_code(&cb.cat, names[i]);
	}
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &s.hold, s.codes, s.n), 0, "acquire");
	for (unsigned i = 0; i < s.n; i++)
		s.base[i] = value(s.names[i]);
	return s;
}

/* As the adapter reads: a difference of raw counters, then ns for time. */
static uint64_t delta(const struct set *s, unsigned i)
{
	struct cupti_cb_probe p = cupti_cb_callback_probe(&cb, s->codes[i]);
	cupti_cb_clock_calibrate(&eng.clock);
	return cupti_cb_callback_value(&cb, &p, value(s->names[i]) - s->base[i]);
}

/* The set is cleaned up: it lets go of its callbacks. */
static void stop(struct set *s)
{
	cupti_cb_services_unhold(&eng, &s->hold);
}

/* ---- tests ------------------------------------------------------------------ */

static void launches_enable_only_launch_cbids(void)
{
	struct set s = start("kernel.launches", NULL, NULL);
	CHECK_EQ(fake_subscribed, 1, "subscribed at the first start");
	CHECK_EQ(enabled_count(0), 0, "no runtime CBID for kernel.launches");
	unsigned launch_ops = 0;
	for (size_t i = 0; i < cupti_cb_n_driver_ops; i++)
		launch_ops += cupti_cb_driver_ops[i].cls == CUPTI_CB_CLS_LAUNCH;
	CHECK_EQ(enabled_count(1), launch_ops, "exactly the launch CBIDs are enabled");
	CHECK(enabled[1][DCB(cuLaunchKernel)] && !enabled[1][DCB(cuMemcpyHtoD_v2)],
	      "cuLaunchKernel on, cuMemcpyHtoD off");

	/* cudaLaunchKernel -> cuLaunchKernel, twice; one failed launch. */
	cuLaunchKernel_params lk = { 0 };
	for (int i = 0; i < 2; i++) {
		struct call rt = { RT, RCB(cudaLaunchKernel_v7000), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
		site(&rt, CUPTI_API_ENTER);
		driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX0);
		site(&rt, CUPTI_API_EXIT);
	}
	driver(DCB(cuLaunchKernel_ptsz), &lk, CUDA_SUCCESS, CTX1);
	driver(DCB(cuLaunchKernelEx), &lk, CUDA_SUCCESS, CTX0);
	driver(DCB(cuLaunchKernel), &lk, CUDA_ERROR_INVALID_VALUE, CTX0);
	CHECK_EQ(delta(&s, 0), 4, "four successful launches, the failed one not counted");

	/* One call whose enter and exit CUPTI delivers twice each. */
	struct call twice = { DRV, DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX0, 0, 77 };
	site(&twice, CUPTI_API_ENTER);
	site(&twice, CUPTI_API_ENTER);
	site(&twice, CUPTI_API_EXIT);
	site(&twice, CUPTI_API_EXIT);
	CHECK_EQ(delta(&s, 0), 5, "a site delivered twice counts once");
	CHECK_EQ(atomic_load(&cupti_cb_services_thread_counters(&eng)->repeats), 2, "and the repeats are counted");
	CHECK_EQ(value("cuLaunchKernel.calls"), 5, "cuLaunchKernel.calls counts every call, failed too");
	stop(&s);
	CHECK_EQ(enabled_count(0) + enabled_count(1), 0, "all callbacks disabled after stop");
	CHECK_EQ(fake_subscribed, 0, "unsubscribed after the last stop");
}

static void memcpy_directions(void)
{
	struct set own = start("cuPointerGetAttributes.calls", NULL, NULL);
	struct set s = start("memcpy.bytes", "memcpy.calls", "memcpy.bytes_peer");
	uint64_t h0 = value("memcpy.bytes_htod"), d0 = value("memcpy.bytes_dtoh"),
		 dd0 = value("memcpy.bytes_dtod"), hh0 = value("memcpy.bytes_htoh");
	char host[64];

	cuMemcpyHtoD_v2_params htod = { on_dev(0, 0), host, 4096 };
	driver(DCB(cuMemcpyHtoD_v2), &htod, CUDA_SUCCESS, CTX0);
	cuMemcpyDtoHAsync_v2_params dtoh = { host, on_dev(0, 0), 1000, NULL };
	driver(DCB(cuMemcpyDtoHAsync_v2_ptsz), &dtoh, CUDA_SUCCESS, CTX0);
	cuMemcpy_params uni_htod = { on_dev(1, 64), (CUdeviceptr)(uintptr_t)host, 300 };
	driver(DCB(cuMemcpy), &uni_htod, CUDA_SUCCESS, CTX1);
	cuMemcpy_params uni_hh = { (CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)(host + 8), 7 };
	driver(DCB(cuMemcpy), &uni_hh, CUDA_SUCCESS, CTX0);
	cuMemcpyAsync_params uni_peer = { on_dev(1, 0), on_dev(0, 0), 50, NULL };
	driver(DCB(cuMemcpyAsync), &uni_peer, CUDA_SUCCESS, CTX0);
	cuMemcpyAsync_params uni_dd = { on_dev(1, 0), on_dev(1, 9), 11, NULL };
	driver(DCB(cuMemcpyAsync_ptsz), &uni_dd, CUDA_SUCCESS, CTX1);
	cuMemcpyDtoD_v2_params cross = { on_dev(1, 0), on_dev(0, 0), 77 };
	driver(DCB(cuMemcpyDtoD_v2), &cross, CUDA_SUCCESS, CTX0);
	cuMemcpyDtoDAsync_v2_params same = { on_dev(0, 0), on_dev(0, 64), 5, NULL };
	driver(DCB(cuMemcpyDtoDAsync_v2), &same, CUDA_SUCCESS, CTX0);
	cuMemcpyPeer_params peer = { on_dev(1, 0), CTX1, on_dev(0, 0), CTX0, 123 };
	driver(DCB(cuMemcpyPeer), &peer, CUDA_SUCCESS, CTX0);

	CUDA_MEMCPY2D m2 = { 0 };
	m2.srcMemoryType = CU_MEMORYTYPE_HOST;
	m2.srcHost = host;
	m2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	m2.dstDevice = on_dev(0, 0);
	m2.WidthInBytes = 10;
	m2.Height = 20;
	cuMemcpy2DUnaligned_v2_params p2 = { &m2 };
	driver(DCB(cuMemcpy2DUnaligned_v2), &p2, CUDA_SUCCESS, CTX0);

	CUDA_MEMCPY3D m3 = { 0 };
	m3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	m3.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
	m3.dstDevice = (CUdeviceptr)(uintptr_t)host;
	m3.WidthInBytes = 4;
	m3.Height = 5;
	m3.Depth = 6;
	cuMemcpy3D_v2_params p3 = { &m3 };
	driver(DCB(cuMemcpy3D_v2), &p3, CUDA_SUCCESS, CTX0);

	CUdeviceptr dsts[3] = { on_dev(0, 0), (CUdeviceptr)(uintptr_t)host, on_dev(0, 8) };
	CUdeviceptr srcs[3] = { (CUdeviceptr)(uintptr_t)host, on_dev(0, 0), on_dev(0, 16) };
	size_t sizes[3] = { 1, 2, 4 };
	cuMemcpyBatchAsync_v2_params batch = { dsts, srcs, sizes, 3, NULL, NULL, 0, NULL };
	driver(DCB(cuMemcpyBatchAsync_v2), &batch, CUDA_SUCCESS, CTX0);

	cuMemcpyHtoD_v2_params failed = { on_dev(0, 0), host, 1 << 20 };
	driver(DCB(cuMemcpyHtoD_v2), &failed, CUDA_ERROR_INVALID_VALUE, CTX0);

	CHECK_EQ(value("memcpy.bytes_htod") - h0, 4096 + 300 + 200 + 1, "htod: 1D, unified, 2D, batch");
	CHECK_EQ(value("memcpy.bytes_dtoh") - d0, 1000 + 120 + 2, "dtoh: async, 3D from array, batch");
	CHECK_EQ(value("memcpy.bytes_dtod") - dd0, 11 + 5 + 4, "dtod: unified and DtoD on one device, batch");
	CHECK_EQ(value("memcpy.bytes_htoh") - hh0, 7, "htoh: unified host to host");
	CHECK_EQ(delta(&s, 2), 50 + 77 + 123, "peer: unified and DtoD across devices, cuMemcpyPeer");
	CHECK_EQ(delta(&s, 0), 4096 + 1000 + 300 + 7 + 50 + 11 + 77 + 5 + 123 + 200 + 120 + 7,
		 "memcpy.bytes is the sum of the directions");
	CHECK_EQ(delta(&s, 1), 14, "memcpy.calls: 12 calls, the batch counts 3, the failed none");
	CHECK_EQ(delta(&own, 0), 0, "the engine's own pointer lookups are not counted");
	stop(&s);
	stop(&own);
}

static void memset_alloc_free(void)
{
	struct set s = start("memset.bytes", "free.bytes", "alloc.bytes");
	uint64_t fc0 = value("free.calls"), ac0 = value("alloc.calls"), mc0 = value("memset.calls");
	cuMemsetD32_v2_params d32 = { on_dev(0, 0), 7, 100 };
	driver(DCB(cuMemsetD32_v2), &d32, CUDA_SUCCESS, CTX0);
	cuMemsetD2D16Async_params d2 = { on_dev(0, 0), 64, 1, 10, 3, NULL };
	driver(DCB(cuMemsetD2D16Async_ptsz), &d2, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), 400 + 60, "memset bytes: 100 x 4 + 10 x 3 x 2");
	CHECK_EQ(value("memset.calls") - mc0, 2, "memset.calls");

	CUdeviceptr p = 0;
	void *hp = NULL;
	cuMemAlloc_v2_params a = { &p, 1000 };
	p = on_dev(0, 0x100);	/* what the driver returns, visible at exit */
	driver(DCB(cuMemAlloc_v2), &a, CUDA_SUCCESS, CTX0);
	size_t pitch = 512;
	CUdeviceptr pp = on_dev(0, 0x9000);
	cuMemAllocPitch_v2_params ap = { &pp, &pitch, 500, 4, 4 };
	driver(DCB(cuMemAllocPitch_v2), &ap, CUDA_SUCCESS, CTX0);
	hp = (void *)0x7f0000001000;
	cuMemHostAlloc_params ha = { &hp, 333, 0 };
	driver(DCB(cuMemHostAlloc), &ha, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 2), 1000 + 2048 + 333, "alloc.bytes: plain, pitched (pitch x height), host");
	CHECK_EQ(value("alloc.calls") - ac0, 3, "alloc.calls");

	cuMemFree_v2_params f = { on_dev(0, 0x100) };
	driver(DCB(cuMemFree_v2), &f, CUDA_SUCCESS, CTX0);
	cuMemFreeHost_params fh = { hp };
	driver(DCB(cuMemFreeHost), &fh, CUDA_SUCCESS, CTX0);
	cuMemFree_v2_params unknown = { on_dev(0, 0x777000) };
	driver(DCB(cuMemFree_v2), &unknown, CUDA_SUCCESS, CTX0);
	cuMemFree_v2_params again = { on_dev(0, 0x100) };
	driver(DCB(cuMemFree_v2), &again, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 1), 1000 + 333, "free.bytes: only allocations seen, each once");
	CHECK_EQ(value("free.calls") - fc0, 4, "free.calls counts every free");
	stop(&s);
}

static void sync_time(void)
{
	struct set s = start("sync.time_ns", "sync.calls", NULL);
	CHECK_EQ(atomic_load(&eng.timing), 1, "the clock is on for a time event");
	struct call c = { DRV, DCB(cuCtxSynchronize_v2), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
	site(&c, CUPTI_API_ENTER);
	struct timespec ms = { 0, 2000000 };
	nanosleep(&ms, NULL);
	site(&c, CUPTI_API_EXIT);
	driver(DCB(cuStreamSynchronize), NULL, CUDA_SUCCESS, CTX0);
	driver(DCB(cuEventSynchronize), NULL, CUDA_SUCCESS, CTX0);
	CHECK(delta(&s, 0) >= 2000000 && delta(&s, 0) < 2000000000ull, "sync.time_ns %" PRIu64
	      " covers the 2 ms sleep", delta(&s, 0));
	CHECK_EQ(delta(&s, 1), 3, "sync.calls: context, stream, event");
	stop(&s);
	CHECK_EQ(atomic_load(&eng.timing), 0, "the clock is off again");
}

static void devices(void)
{
	struct set s = start("kernel.launches:device=0", "kernel.launches:device1", "kernel.launches");
	cuLaunchKernel_params lk = { 0 };
	for (int i = 0; i < 3; i++)
		driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX0);
	for (int i = 0; i < 5; i++)
		driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX1);
	driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, (CUcontext)0x9999);	/* unknown context */
	CHECK_EQ(delta(&s, 0), 3, "device 0");
	CHECK_EQ(delta(&s, 1), 5, "device 1");
	CHECK_EQ(delta(&s, 2), 9, "all devices, unknown context included");
	stop(&s);
}

static void api_calls(void)
{
	struct set s = start("api.calls", "cudaMemcpy.calls", "cuMemcpyHtoD.calls");
	CHECK(enabled_count(0) > 300 && enabled_count(1) > 500, "api.calls enables every CBID (%u + %u)",
	      enabled_count(0), enabled_count(1));
	char host[8];
	cuMemcpyHtoD_v2_params h = { on_dev(0, 0), host, 8 };
	for (int i = 0; i < 10; i++) {
		struct call rt = { RT, RCB(cudaMemcpy_v3020), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
		site(&rt, CUPTI_API_ENTER);
		driver(DCB(cuCtxGetCurrent), NULL, CUDA_SUCCESS, CTX0);
		driver(DCB(cuMemcpyHtoD_v2), &h, CUDA_SUCCESS, CTX0);
		site(&rt, CUPTI_API_EXIT);
	}
	driver(DCB(cuMemcpyHtoD_v2_ptds), &h, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), 11, "api.calls: 10 runtime calls and 1 direct driver call");
	CHECK_EQ(delta(&s, 1), 10, "cudaMemcpy.calls");
	CHECK_EQ(delta(&s, 2), 11, "cuMemcpyHtoD.calls: nested and direct, _ptds merged");
	stop(&s);
}

/* A set holds its callbacks across stop and start: only its cleanup lets
 * them go. Re-holding with other events toggles only the difference. */
static void holds_outlive_windows(void)
{
	struct set s = start("kernel.launches", NULL, NULL);
	uint32_t other = catalog_code(&cb.cat, "cudaGetDevice.calls");
	unsigned subs = (unsigned)fake_subscribed;
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &s.hold, &other, 1), 0, "the same set, other events");
	CHECK(!enabled[1][DCB(cuLaunchKernel)] && enabled[0][RCB(cudaGetDevice_v3020)],
	      "re-holding drops what is no longer needed and enables the new");
	CHECK_EQ(fake_subscribed, subs, "and keeps the one subscription");
	stop(&s);
	CHECK_EQ(enabled_count(0) + enabled_count(1), 0, "cleanup disables everything");
	CHECK_EQ(fake_subscribed, 0, "and unsubscribes");
}

/* A start that fails at one enable undoes exactly its own work: a set
 * already running keeps every callback it holds. */
static void failed_start_rolls_back_exactly(void)
{
	struct set a = start("cuLaunchKernel.calls", NULL, NULL);
	unsigned before = enabled_count(1);
	struct set b = { 0 };
	uint32_t codes[2] = { catalog_code(&cb.cat, "memcpy.calls"), catalog_code(&cb.cat, "kernel.launches") };
	fake_fail_enable_at = 5;
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &b.hold, codes, 2), CUPTI_CB_ECUPTI, "the 5th enable fails");
	fake_fail_enable_at = 0;
	CHECK(enabled[1][DCB(cuLaunchKernel)], "the running set's cuLaunchKernel stays enabled");
	CHECK_EQ(enabled_count(1), before, "and nothing the failed start enabled is left on");
	cuLaunchKernel_params lk = { 0 };
	for (int i = 0; i < 5; i++)
		driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&a, 0), 5, "the running set counts every launch");
	stop(&b);
	stop(&a);
	CHECK_EQ(enabled_count(0) + enabled_count(1) + fake_subscribed, 0, "all let go");
}

/* An EXIT lost inside a runtime call (stop, a dropped callback) must not
 * leave the thread "inside a runtime call" for ever. */
static void lost_exit_does_not_stick(void)
{
	struct set s = start("api.calls", "cudaGetDevice.calls", NULL);
	struct call sync = { RT, RCB(cudaDeviceSynchronize_v3020), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
	site(&sync, CUPTI_API_ENTER);	/* its EXIT never comes */
	cudaGetDevice_v3020_params gd = { 0 };
	for (int i = 0; i < 10; i++) {
		struct call c = { RT, RCB(cudaGetDevice_v3020), &gd, CUDA_SUCCESS, CTX0, 0, next_id() };
		site(&c, CUPTI_API_ENTER);
		site(&c, CUPTI_API_EXIT);
	}
	CHECK_EQ(delta(&s, 0), 10, "api.calls counts the 10 later calls");
	CHECK_EQ(delta(&s, 1), 10, "cudaGetDevice.calls too");
	stop(&s);
}

/* An EXIT whose ENTER this thread did not see counts the call, no time,
 * whatever CUPTI's per-call slot holds. */
static void exit_without_enter_has_no_time(void)
{
	struct set s = start("cudaGetDevice.calls", "cudaGetDevice.time_ns", "api.time_ns");
	cudaGetDevice_v3020_params gd = { 0 };
	struct call c = { RT, RCB(cudaGetDevice_v3020), &gd, CUDA_SUCCESS, CTX0, 12345, next_id() };
	site(&c, CUPTI_API_EXIT);
	CHECK_EQ(delta(&s, 0), 1, "the call counts");
	CHECK_EQ(delta(&s, 1), 0, "with no time from a slot its ENTER did not write");
	CHECK_EQ(delta(&s, 2), 0, "api.time_ns neither");
	stop(&s);
}

/* cupti_cb_run --no-time counts with every event but the host times (its
 * process file: every derived event whose name has no time_ns, and each
 * function's .calls and .errors): none of them may turn the clock on, so
 * that the callbacks read no clock. The events that need the clock are
 * exactly those whose name says time_ns: the runner leaves out by name. */
static void counting_without_the_clock(void)
{
	uint32_t codes[64];
	unsigned n = 0;
	for (unsigned i = 0; i < cupti_cb_n_derived && n < 60; i++) {
		const struct cupti_cb_derived *d = &cupti_cb_derived_events[i];
		int says_time = strstr(d->name, "time_ns") != NULL;
		char what[160];
		snprintf(what, sizeof what, "%s needs the clock iff its name says time_ns", d->name);
		CHECK_EQ(d->timed, says_time, what);
		if (says_time)
			continue;
		char name[96];
		/* Gauges exist for the process only. */
		snprintf(name, sizeof name, "%s%s", d->name, d->read != CUPTI_CB_READ_COUNT ? ":process" : "");
		codes[n++] = catalog_code(&cb.cat, name);
	}
	static const char *const per_func[] = { "cudaMemcpy.calls", "cudaMemcpy.errors", "cuMemcpyHtoD.calls",
						"cuMemcpyHtoD.errors" };
	for (unsigned i = 0; i < 4; i++)
		codes[n++] = catalog_code(&cb.cat, per_func[i]);
	struct cupti_cb_hold h = { 0 };
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &h, codes, n), 0, "acquire every event but the host times");
	CHECK_EQ(atomic_load(&eng.timing), 0, "the clock stays off");

	uint64_t calls0 = value("api.calls"), memcpy0 = value("cudaMemcpy.calls"), ns0 = value("cudaMemcpy.time_ns");
	struct cupti_cb_thread_counters *b = cupti_cb_services_thread_counters(&eng);
	char host[8];
	cuMemcpyHtoD_v2_params hd = { on_dev(0, 0), host, 8 };
	struct call rt = { RT, RCB(cudaMemcpy_v3020), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
	site(&rt, CUPTI_API_ENTER);
	CHECK_EQ(b->pending[(b->n_pending - 1) % CUPTI_CB_PENDING].t0, 0, "no clock read at the ENTER");
	struct timespec ms = { 0, 1000000 };
	nanosleep(&ms, NULL);
	driver(DCB(cuMemcpyHtoD_v2), &hd, CUDA_SUCCESS, CTX0);
	site(&rt, CUPTI_API_EXIT);
	CHECK_EQ(value("api.calls") - calls0, 1, "the call is counted");
	CHECK_EQ(value("cudaMemcpy.calls") - memcpy0, 1, "and by its function");
	CHECK_EQ(value("cudaMemcpy.time_ns") - ns0, 0, "with no time: no clock read at the EXIT either");
	cupti_cb_services_unhold(&eng, &h);
}

/* nvcc's launch stubs call __cudaPushCallConfiguration and
 * __cudaPopCallConfiguration around cudaLaunchKernel: one <<<>>> is one
 * call of the application. */
static void runtime_internals_not_api_calls(void)
{
	struct set s = start("api.calls", "__cudaPushCallConfiguration.calls", NULL);
	struct call push = { RT, RCB(__cudaPushCallConfiguration_v13000), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
	struct call launch = { RT, RCB(cudaLaunchKernel_v7000), NULL, CUDA_SUCCESS, CTX0, 0, next_id() };
	site(&push, CUPTI_API_ENTER);
	site(&push, CUPTI_API_EXIT);
	site(&launch, CUPTI_API_ENTER);
	site(&launch, CUPTI_API_EXIT);
	driver(DCB(cuKernelGetName), NULL, CUDA_SUCCESS, CTX0);	/* as every <<<>>> does */
	CHECK_EQ(delta(&s, 0), 1, "api.calls: the launch only");
	CHECK_EQ(delta(&s, 1), 1, "__cudaPushCallConfiguration.calls still counts it");
	CHECK_EQ(value("cuKernelGetName.calls"), 1, "cuKernelGetName.calls counts its call");
	stop(&s);
}

/* A free that fails frees nothing: the size stays for the free that works. */
static void failed_free_keeps_size(void)
{
	struct set s = start("free.bytes", "free.calls", "alloc.bytes");
	CUdeviceptr p = on_dev(0, 0x100);
	cuMemAlloc_v2_params al = { &p, 4096 };
	driver(DCB(cuMemAlloc_v2), &al, CUDA_SUCCESS, CTX0);
	cuMemFree_v2_params fr = { p };
	driver(DCB(cuMemFree_v2), &fr, CUDA_ERROR_INVALID_VALUE, CTX0);
	CHECK_EQ(delta(&s, 0), 0, "a failed free counts no bytes");
	driver(DCB(cuMemFree_v2), &fr, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), 4096, "the free that works counts the allocation's size");
	CHECK_EQ(delta(&s, 1), 1, "one successful free");
	stop(&s);
}

static void refcounts_and_conflict(void)
{
	struct set a = start("kernel.launches", NULL, NULL);
	struct set b = start("kernel.launches", "cudaGetDevice.calls", NULL);
	stop(&a);
	CHECK(enabled[1][DCB(cuLaunchKernel)] && enabled[0][RCB(cudaGetDevice_v3020)],
	      "a second running set keeps its CBIDs enabled");
	stop(&b);
	CHECK_EQ(enabled_count(0) + enabled_count(1), 0, "nothing enabled when nothing runs");

	fake_other_tool = 1;
	uint32_t code = catalog_code(&cb.cat, "kernel.launches");
	struct cupti_cb_hold h = { 0 };
	CHECK_EQ(cupti_cb_callback_acquire(&cb, &h, &code, 1), CUPTI_CB_ECONFLICT, "another subscriber: conflict");
	CHECK(strstr(eng.why, "'CUPTI for probe'") != NULL, "the reason names it: %s", eng.why);
	fake_other_tool = 0;
}

/* ---- more allocation forms, and operations that are not counted --------------
 * CUDA arrays, mipmapped arrays and physical memory (cuMemCreate) are
 * allocations keyed by their handle; prefetch, discard, IPC, pool import,
 * address reservation and mapping, and host functions are not operations of
 * any derived event. */

static CUarray array_handle(uintptr_t v)
{
	return (CUarray)v;
}

static void create_3d(CUarray h, size_t w, size_t ht, size_t d, CUarray_format f, unsigned ch, unsigned flags,
		      CUresult ret)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = { w, ht, d, f, ch, flags };
	cuArray3DCreate_v2_params a = { &h, &desc };
	driver(DCB(cuArray3DCreate_v2), &a, ret, CTX0);
}

static void destroy_array(CUarray h)
{
	cuArrayDestroy_params f = { h };
	driver(DCB(cuArrayDestroy), &f, CUDA_SUCCESS, CTX0);
}

static void create_mipmap(CUmipmappedArray h, size_t w, size_t ht, size_t d, CUarray_format f, unsigned flags,
			  unsigned levels)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = { w, ht, d, f, 1, flags };
	cuMipmappedArrayCreate_params a = { &h, &desc, levels };
	driver(DCB(cuMipmappedArrayCreate), &a, CUDA_SUCCESS, CTX0);
}

static void arrays(void)
{
	struct set s = start("alloc.bytes", "free.bytes", "alloc.calls");
	uint64_t fc0 = value("free.calls");
	CHECK(enabled[1][DCB(cuArrayCreate_v2)] && enabled[1][DCB(cuArray3DCreate_v2)] &&
	      enabled[1][DCB(cuMipmappedArrayCreate)] && enabled[1][DCB(cuArrayDestroy)] &&
	      enabled[1][DCB(cuMipmappedArrayDestroy)],
	      "the array create and destroy CBIDs are enabled");

	/* cuArrayCreate: 2D, and 1D (height 0 means 1). */
	CUDA_ARRAY_DESCRIPTOR d2 = { 100, 7, CU_AD_FORMAT_FLOAT, 1 };
	CUarray h = array_handle(0x7f0000010000);
	cuArrayCreate_v2_params a2 = { &h, &d2 };
	driver(DCB(cuArrayCreate_v2), &a2, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), 100 * 7 * 4, "2D float array: width x height x 4");
	CUDA_ARRAY_DESCRIPTOR d1 = { 1000, 0, CU_AD_FORMAT_FLOAT, 2 };
	h = array_handle(0x7f0000020000);
	cuArrayCreate_v2_params a1 = { &h, &d1 };
	driver(DCB(cuArrayCreate_v2), &a1, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), 2800 + 1000 * 8, "1D float2 array: height 0 counts as 1");

	/* cuArray3DCreate: 3D, 1D layered, cubemap, formats with the channel
	 * count in the format, and formats without a byte size. */
	uint64_t b0 = delta(&s, 0);
	create_3d(array_handle(0x7f0000030000), 17, 5, 3, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, CUDA_SUCCESS);
	CHECK_EQ(delta(&s, 0) - b0, 17 * 5 * 3 * 4, "3D uchar4 array");
	create_3d(array_handle(0x7f0000040000), 16, 0, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED, CUDA_SUCCESS);
	CHECK_EQ(delta(&s, 0) - b0, 1020 + 16 * 5 * 4, "1D layered: 5 layers of 16 floats");
	create_3d(array_handle(0x7f0000050000), 8, 8, 6, CU_AD_FORMAT_SIGNED_INT16, 1, CUDA_ARRAY3D_CUBEMAP,
		  CUDA_SUCCESS);
	CHECK_EQ(delta(&s, 0) - b0, 1020 + 320 + 8 * 8 * 6 * 2, "cubemap: 6 faces of 8 x 8 shorts");
	create_3d(array_handle(0x7f0000060000), 10, 10, 0, CU_AD_FORMAT_UNORM_INT8X4, 4, 0, CUDA_SUCCESS);
	create_3d(array_handle(0x7f0000070000), 3, 0, 0, CU_AD_FORMAT_UNORM_INT16X4, 1, 0, CUDA_SUCCESS);
	CHECK_EQ(delta(&s, 0) - b0, 1020 + 320 + 768 + 10 * 10 * 4 + 3 * 8,
		 "UNORM_INT8X4: 4 bytes, UNORM_INT16X4: 8 bytes an element, whatever NumChannels says");
	create_3d(array_handle(0x7f0000080000), 64, 64, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0, CUDA_SUCCESS);
	create_3d(array_handle(0x7f0000090000), 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE, CUDA_SUCCESS);
	create_3d(array_handle(0x7f00000a0000), 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_DEFERRED_MAPPING,
		  CUDA_SUCCESS);
	CHECK_EQ(delta(&s, 0) - b0, 1020 + 320 + 768 + 400 + 24,
		 "block-compressed, sparse and deferred-mapping arrays: 0 bytes");
	create_3d(array_handle(0x7f00000b0000), 1 << 20, 1 << 20, 0, CU_AD_FORMAT_FLOAT, 4, 0,
		  CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_EQ(delta(&s, 2), 10, "alloc.calls: 10 arrays, the failed one not counted");

	/* Mipmapped arrays: every level, each half the one above (rounded
	 * down, at least 1); layers do not shrink. */
	b0 = delta(&s, 0);
	create_mipmap((CUmipmappedArray)0x7f0000100000, 64, 32, 0, CU_AD_FORMAT_FLOAT, 0, 4);
	CHECK_EQ(delta(&s, 0) - b0, (64 * 32 + 32 * 16 + 16 * 8 + 8 * 4) * 4, "2D mipmap, 4 levels");
	create_mipmap((CUmipmappedArray)0x7f0000110000, 16, 8, 4, CU_AD_FORMAT_UNSIGNED_INT8, 0, 3);
	CHECK_EQ(delta(&s, 0) - b0, 10880 + 16 * 8 * 4 + 8 * 4 * 2 + 4 * 2 * 1, "3D mipmap: depth halves too");
	create_mipmap((CUmipmappedArray)0x7f0000120000, 8, 4, 3, CU_AD_FORMAT_HALF, CUDA_ARRAY3D_LAYERED, 3);
	CHECK_EQ(delta(&s, 0) - b0, 10880 + 584 + (8 * 4 + 4 * 2 + 2 * 1) * 3 * 2,
		 "layered mipmap: 3 layers at every level");
	create_mipmap((CUmipmappedArray)0x7f0000130000, 5, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 0, 4);
	CHECK_EQ(delta(&s, 0) - b0, 10880 + 584 + 252 + 5 + 2 + 1 + 1, "1D mipmap of 5: 5, 2, 1, 1");
	uint64_t all = delta(&s, 0);
	CHECK_EQ(all, 2800 + 8000 + 1020 + 320 + 768 + 400 + 24 + 10880 + 584 + 252 + 9, "alloc.bytes in all");
	CHECK_EQ(delta(&s, 2), 14, "alloc.calls: 10 arrays and 4 mipmapped arrays");

	/* Destroys, by handle. */
	for (uintptr_t a = 0x7f0000010000; a <= 0x7f00000a0000; a += 0x10000)
		destroy_array(array_handle(a));
	for (uintptr_t m = 0x7f0000100000; m <= 0x7f0000130000; m += 0x10000) {
		cuMipmappedArrayDestroy_params f = { (CUmipmappedArray)m };
		driver(DCB(cuMipmappedArrayDestroy), &f, CUDA_SUCCESS, CTX0);
	}
	CHECK_EQ(delta(&s, 1), all, "free.bytes: every array and mipmapped array, by handle");
	CHECK_EQ(value("free.calls") - fc0, 14, "free.calls: 10 cuArrayDestroy, 4 cuMipmappedArrayDestroy");

	/* A handle whose value equals a live device pointer: two allocations. */
	CUdeviceptr p = on_dev(0, 0x5000);
	cuMemAlloc_v2_params m = { &p, 64 };
	driver(DCB(cuMemAlloc_v2), &m, CUDA_SUCCESS, CTX0);
	create_3d(array_handle((uintptr_t)on_dev(0, 0x5000)), 100, 7, 0, CU_AD_FORMAT_FLOAT, 1, 0, CUDA_SUCCESS);
	uint64_t f0 = delta(&s, 1);
	destroy_array(array_handle((uintptr_t)on_dev(0, 0x5000)));
	CHECK_EQ(delta(&s, 1) - f0, 2800, "the array's size, not the pointer's");
	cuMemFree_v2_params mf = { p };
	driver(DCB(cuMemFree_v2), &mf, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 1) - f0, 2800 + 64, "and the pointer's size at its own free");
	stop(&s);
}

static void physical_memory(void)
{
	struct set s = start("alloc.bytes", "free.bytes", "alloc.calls");
	uint64_t fc0 = value("free.calls");
	CHECK(enabled[1][DCB(cuMemCreate)] && enabled[1][DCB(cuMemRelease)],
	      "cuMemCreate and cuMemRelease are enabled");
	CUmemAllocationProp prop = { 0 };
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;

	CUmemGenericAllocationHandle h1 = 0x10, h2 = 0x20, h3 = 0x7f0000030000, bad = 0x30;
	cuMemCreate_params c1 = { &h1, 2 << 20, &prop, 0 };
	driver(DCB(cuMemCreate), &c1, CUDA_SUCCESS, CTX0);
	cuMemCreate_params c2 = { &h2, 6 << 20, &prop, 0 };
	driver(DCB(cuMemCreate), &c2, CUDA_SUCCESS, CTX0);
	cuMemCreate_params cbad = { &bad, 1 << 30, &prop, 0 };
	driver(DCB(cuMemCreate), &cbad, CUDA_ERROR_OUT_OF_MEMORY, CTX0);
	/* A physical-memory handle with the value of a live array handle. */
	create_3d(array_handle(0x7f0000030000), 10, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0, CUDA_SUCCESS);
	cuMemCreate_params c3 = { &h3, 2 << 20, &prop, 0 };
	driver(DCB(cuMemCreate), &c3, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 0), (2 << 20) + (6 << 20) + 40 + (2 << 20), "alloc.bytes: the sizes asked for");
	CHECK_EQ(delta(&s, 2), 4, "alloc.calls: 3 cuMemCreate and 1 array, the failed one not counted");

	/* Reserving, mapping and unmapping addresses allocate nothing. */
	CUdeviceptr va = on_dev(0, 0x40000000);
	cuMemAddressReserve_params r = { &va, 8 << 20, 0, 0, 0 };
	driver(DCB(cuMemAddressReserve), &r, CUDA_SUCCESS, CTX0);
	cuMemMap_params mp = { va, 2 << 20, 0, h1, 0 };
	driver(DCB(cuMemMap), &mp, CUDA_SUCCESS, CTX0);
	cuMemUnmap_params um = { va, 2 << 20 };
	driver(DCB(cuMemUnmap), &um, CUDA_SUCCESS, CTX0);
	cuMemAddressFree_params af = { va, 8 << 20 };
	driver(DCB(cuMemAddressFree), &af, CUDA_SUCCESS, CTX0);
	CHECK_EQ(delta(&s, 2), 4, "alloc.calls unchanged by reserve, map, unmap, address free");
	CHECK_EQ(delta(&s, 1), 0, "free.bytes unchanged by them");

	CUmemGenericAllocationHandle order[] = { h2, h1, h3, 0x999 };
	for (int i = 0; i < 4; i++) {
		cuMemRelease_params rel = { order[i] };
		driver(DCB(cuMemRelease), &rel, CUDA_SUCCESS, CTX0);
	}
	CHECK_EQ(delta(&s, 1), (6 << 20) + (2 << 20) + (2 << 20),
		 "free.bytes: each handle's size at its cuMemRelease; an unknown handle adds 0");
	CHECK_EQ(value("free.calls") - fc0, 4, "free.calls: every cuMemRelease");
	destroy_array(array_handle(0x7f0000030000));
	CHECK_EQ(delta(&s, 1), (10 << 20) + 40, "the array with the same handle value keeps its own size");
	stop(&s);
}

static void not_counted(void)
{
	static const char *const derived[] = { "kernel.launches", "graph.launches", "memcpy.calls",
					       "memcpy.bytes", "memset.calls", "memset.bytes",
					       "alloc.calls", "alloc.bytes", "free.calls",
					       "free.bytes", "sync.calls" };
	enum { N_DERIVED = sizeof derived / sizeof derived[0] };
	static const CUpti_CallbackId ids[] = {
		DCB(cuMemPrefetchAsync), DCB(cuMemPrefetchAsync_ptsz), DCB(cuMemPrefetchAsync_v2),
		DCB(cuMemPrefetchAsync_v2_ptsz), DCB(cuMemPrefetchBatchAsync),
		DCB(cuMemPrefetchBatchAsync_ptsz), DCB(cuMemDiscardBatchAsync),
		DCB(cuMemDiscardBatchAsync_ptsz), DCB(cuMemDiscardAndPrefetchBatchAsync),
		DCB(cuMemDiscardAndPrefetchBatchAsync_ptsz), DCB(cuLaunchHostFunc),
		DCB(cuLaunchHostFunc_ptsz), DCB(cuIpcOpenMemHandle), DCB(cuIpcOpenMemHandle_v2),
		DCB(cuIpcCloseMemHandle), DCB(cuMemPoolImportPointer), DCB(cuMemAddressReserve),
		DCB(cuMemAddressFree), DCB(cuMemMap), DCB(cuMemUnmap)
	};
	enum { N_IDS = sizeof ids / sizeof ids[0] };
	for (unsigned i = 0; i < N_IDS; i++)
		CHECK(cupti_cb_op_find(ids[i]) == NULL, "driver CBID %u is not an operation", (unsigned)ids[i]);

	/* api.calls enables every CBID, so the engine sees each call. */
	struct set s = start("api.calls", "cuMemPrefetchAsync.calls", "cuLaunchHostFunc.calls");
	uint64_t before[N_DERIVED];
	for (unsigned i = 0; i < N_DERIVED; i++)
		before[i] = value(derived[i]);

	CUdeviceptr managed = on_dev(0, 0x8000), imported = on_dev(1, 0x123000);
	size_t size = 1 << 20;
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	cuMemPrefetchAsync_v2_params pf = { managed, size, loc, 0, NULL };
	driver(DCB(cuMemPrefetchAsync_v2), &pf, CUDA_SUCCESS, CTX0);
	driver(DCB(cuMemPrefetchAsync_v2_ptsz), &pf, CUDA_SUCCESS, CTX0);
	size_t idx = 0;
	cuMemPrefetchBatchAsync_params pb = { &managed, &size, 1, &loc, &idx, 1, 0, NULL };
	driver(DCB(cuMemPrefetchBatchAsync), &pb, CUDA_SUCCESS, CTX0);
	cuMemDiscardBatchAsync_params db = { &managed, &size, 1, 0, NULL };
	driver(DCB(cuMemDiscardBatchAsync), &db, CUDA_SUCCESS, CTX0);
	cuMemDiscardAndPrefetchBatchAsync_params dp = { &managed, &size, 1, &loc, &idx, 1, 0, NULL };
	driver(DCB(cuMemDiscardAndPrefetchBatchAsync_ptsz), &dp, CUDA_SUCCESS, CTX0);
	cuLaunchHostFunc_params hf = { NULL, NULL, NULL };
	driver(DCB(cuLaunchHostFunc), &hf, CUDA_SUCCESS, CTX0);
	driver(DCB(cuLaunchHostFunc_ptsz), &hf, CUDA_SUCCESS, CTX0);
	CUipcMemHandle ipc = { { 0 } };
	CUdeviceptr opened = on_dev(1, 0x100);
	cuIpcOpenMemHandle_v2_params io = { &opened, ipc, 0 };
	driver(DCB(cuIpcOpenMemHandle_v2), &io, CUDA_SUCCESS, CTX0);
	cuIpcCloseMemHandle_params ic = { opened };
	driver(DCB(cuIpcCloseMemHandle), &ic, CUDA_SUCCESS, CTX0);
	CUmemPoolPtrExportData share = { { 0 } };
	cuMemPoolImportPointer_params imp = { &imported, (CUmemoryPool)0x42, &share };
	driver(DCB(cuMemPoolImportPointer), &imp, CUDA_SUCCESS, CTX0);

	for (unsigned i = 0; i < N_DERIVED; i++) {
		uint64_t d = value(derived[i]) - before[i];
		CHECK(d == 0, "%s: got %" PRIu64 ", want 0 (prefetch, discard, host functions, IPC and "
		      "pool import are none of its operations)", derived[i], d);
	}
	CHECK_EQ(delta(&s, 0), 10, "api.calls: each of the 10 calls");
	CHECK_EQ(delta(&s, 1), 2, "cuMemPrefetchAsync.calls: _v2 and _v2_ptsz");
	CHECK_EQ(delta(&s, 2), 2, "cuLaunchHostFunc.calls: base and _ptsz");

	/* The imported pointer is freed with cuMemFreeAsync: a free of memory
	 * that was never counted as an allocation here. */
	uint64_t fc = value("free.calls"), fb = value("free.bytes");
	cuMemFreeAsync_params fr = { imported, NULL };
	driver(DCB(cuMemFreeAsync), &fr, CUDA_SUCCESS, CTX0);
	CHECK_EQ(value("free.calls") - fc, 1, "the free of an imported pointer is a free.calls");
	CHECK_EQ(value("free.bytes") - fb, 0, "with no bytes");
	stop(&s);
}

/* ---- threads ---------------------------------------------------------------- */

#define THREADS 8
#define PER_THREAD 1000

static pthread_barrier_t barrier;

static void *worker(void *arg)
{
	uint64_t *mine = arg;
	cuLaunchKernel_params lk = { 0 };
	uint64_t before = value("kernel.launches");
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < PER_THREAD; i++)
		driver(DCB(cuLaunchKernel), &lk, CUDA_SUCCESS, CTX0);
	*mine = value("kernel.launches") - before;
	return NULL;
}

static void threads(void)
{
	struct set s = start("kernel.launches:process", NULL, NULL);
	pthread_t t[THREADS];
	uint64_t mine[THREADS];
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, &mine[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	unsigned blocks = atomic_load(&eng.reg.n_counters);
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ(mine[i], PER_THREAD, "thread scope counts its own thread only");
	CHECK_EQ(delta(&s, 0), THREADS * PER_THREAD, "process scope keeps exited threads' counts");

	/* Below the bound, new threads get blocks of their own; past it
	 * (lowered here to the blocks there are) they adopt exited ones. */
	pthread_barrier_destroy(&barrier);
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, &mine[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(atomic_load(&eng.reg.n_counters), blocks + THREADS, "below the bound: a new block per new thread");
	blocks += THREADS;
	unsigned own_max = eng.reg.own_max;
	eng.reg.own_max = blocks;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, &mine[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	eng.reg.own_max = own_max;
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ(mine[i], PER_THREAD, "an adopter's thread scope counts its own calls only");
	CHECK_EQ(atomic_load(&eng.reg.n_counters), blocks, "past the bound: no new block for replacement threads");
	CHECK_EQ(delta(&s, 0), 3 * THREADS * PER_THREAD, "process scope after a third generation");
	pthread_barrier_destroy(&barrier);
	stop(&s);
}

int main(void)
{
	char why[512];
	if (cupti_cb_load_cupti(&eng.api, why, sizeof why)) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	fake_subscriber_install(&eng.api);
	eng.api.cuptiGetDeviceId = fake_device_id;
	eng.api.cuPointerGetAttributes = fake_pointer_attrs;
	CHECK_EQ(cupti_cb_callback_setup(&cb, &eng, 2), 0, "engine set up with 2 devices");

	launches_enable_only_launch_cbids();
	memcpy_directions();
	memset_alloc_free();
	sync_time();
	devices();
	api_calls();
	refcounts_and_conflict();
	holds_outlive_windows();
	failed_start_rolls_back_exactly();
	lost_exit_does_not_stick();
	exit_without_enter_has_no_time();
	counting_without_the_clock();
	runtime_internals_not_api_calls();
	failed_free_keeps_size();
	threads();
	/* more allocation forms, and operations that are not counted */
	arrays();
	physical_memory();
	not_counted();

	cupti_cb_callback_destroy(&cb);
	return checks_done();
}
