/* bench_hotpath: what cupti_cb's callback hot path costs per call, without a GPU: the
 * component's listener (compiled -O2, as in libpapi) driven the way CUPTI drives it, with
 * real CUpti_CallbackData and parameter structs and a fake subscription, against an empty
 * callback called the same way.
 *
 *   bench_hotpath [--iters=N] [--thrash-kib=K] [--call-work=W]
 *
 * Patterns, each as a CUDA call would reach the listener:
 *   getdevice   cudaGetDevice: the runtime domain's ENTER and EXIT (PyTorch makes hundreds
 *               per training step)
 *   launch      cudaLaunchKernel with cuKernelGetName and cuLaunchKernel nested in it, as
 *               nvcc's <<<>>> makes (6 sites)
 * and configurations, each what a running set asks of the hot path:
 *   empty       an empty function instead of the listener (the harness alone)
 *   calls       <f>.calls only: no clock read
 *   time        <f>.time_ns too: the clock read at every site
 *   minmax      <f>.time_ns_min and .time_ns_max too: a window (what cupti_cb_run asks for)
 * --thrash-kib=K touches K KiB between two calls, as an application's own work evicts the
 * caches between its CUDA calls (0: none, the default); --call-work=W spins W loop turns
 * between each ENTER and its EXIT, as the CUDA function itself runs there (0: none).  Prints
 * one line per pattern and
 * configuration:
 *   hotpath pattern=P config=C thrash_kib=K ns_per_call=X ns_over_empty=Y
 * (the median of 7 repetitions of N calls).  Run it on the machine whose numbers matter:
 * the clock read's cost differs between machines and virtual machines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"
#include "cupti_cb_callback_state.h"
#include "catalog_code.h"
#include "fake_subscriber.h"

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API

static struct cupti_cb_services eng;
static struct cupti_cb_callback cb;
static CUcontext const CTX0 = (CUcontext)0x1000;

static CUptiResult fake_device_id(CUcontext ctx, uint32_t *id)
{
	(void)ctx;
	*id = 0;
	return CUPTI_SUCCESS;
}

/* ---- calling as CUPTI does --------------------------------------------------- */

typedef void CUPTIAPI (*callback_fn)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *);

static void CUPTIAPI empty_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId c, const void *data)
{
	(void)u, (void)d, (void)c, (void)data;
	__asm__ volatile("" ::: "memory");
}

static callback_fn volatile target;	/* read at every call: the compiler cannot fold it */
static uint32_t next_corr = 1000;
static int result;			/* CUDA_SUCCESS and cudaSuccess are 0 */

static void site(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *params, uint32_t corr,
		 CUpti_ApiCallbackSite where)
{
	if (!enabled[dom == DRV][cbid] && target != empty_callback)
		return;
	CUpti_CallbackData cd = { 0 };
	cd.callbackSite = where;
	cd.functionParams = params;
	cd.functionReturnValue = &result;
	cd.context = CTX0;
	cd.correlationId = corr;
	target(&eng, dom, cbid, &cd);
}

static unsigned char *thrash_buf;
static size_t thrash_len;
static long call_work;

static void work(void)
{
	for (volatile long i = 0; i < call_work; i++)
		;
}

static void thrash(void)
{
	for (size_t i = 0; i < thrash_len; i += 64)
		thrash_buf[i]++;
}

static void getdevice(void)
{
	static cudaGetDevice_v3020_params gd;
	uint32_t id = next_corr++;
	site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, &gd, id, CUPTI_API_ENTER);
	work();
	site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, &gd, id, CUPTI_API_EXIT);
}

static void launch(void)
{
	static cudaLaunchKernel_v7000_params rl;
	static cuKernelGetName_params kn;
	static cuLaunchKernel_params lk;
	uint32_t id = next_corr++;
	site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &rl, id, CUPTI_API_ENTER);
	site(DRV, CUPTI_DRIVER_TRACE_CBID_cuKernelGetName, &kn, id, CUPTI_API_ENTER);
	site(DRV, CUPTI_DRIVER_TRACE_CBID_cuKernelGetName, &kn, id, CUPTI_API_EXIT);
	site(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &lk, id, CUPTI_API_ENTER);
	work();
	site(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &lk, id, CUPTI_API_EXIT);
	site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &rl, id, CUPTI_API_EXIT);
}


static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ns per call of pattern (median of 7 repetitions), thrash included. */
static double measure(void (*pattern)(void), long iters)
{
	double rep[7];
	for (int r = 0; r < 7; r++) {
		double t0 = (double)bench_now_ns();
		for (long i = 0; i < iters; i++) {
			pattern();
			if (thrash_len)
				thrash();
		}
		rep[r] = ((double)bench_now_ns() - t0) / (double)iters;
	}
	qsort(rep, 7, sizeof rep[0], by_value);
	return rep[3];
}

/* ---- sets --------------------------------------------------------------------- */

/* The events of config for the functions of the patterns, held as a started set holds them;
 * minmax also takes a window timing them, as a started set of .time_ns_min events does. */
static int hold(struct cupti_cb_hold *h, const char *config, int *window)
{
	static const char *const funcs[] = { "cudaGetDevice", "cudaLaunchKernel", "cuKernelGetName", "cuLaunchKernel" };
	static const char *const fields[] = { "calls", "time_ns" };
	uint32_t codes[16];
	unsigned n = 0, n_fields = strcmp(config, "calls") ? 2 : 1;
	uint16_t slots[4];
	for (unsigned f = 0; f < 4; f++) {
		char name[96];
		for (unsigned k = 0; k < n_fields; k++) {
			snprintf(name, sizeof name, "%s.%s", funcs[f], fields[k]);
			codes[n++] = catalog_code(&cb.cat, name);
		}
		snprintf(name, sizeof name, "%s.calls", funcs[f]);
		slots[f] = (uint16_t)cupti_cb_slot_of_index(CUPTI_CB_CODE_IDX(catalog_code(&cb.cat, name)));
	}
	*window = -1;
	if (!strcmp(config, "minmax") && (*window = cupti_cb_windows_take(&cb.win, slots, 4, 0)) < 0) {
		fprintf(stderr, "bench_hotpath: no window\n");
		return -1;
	}
	return cupti_cb_callback_acquire(&cb, h, codes, n);
}


int main(int argc, char **argv)
{
	long iters = bench_opt(argc, argv, "--iters", 2000000);
	thrash_len = (size_t)bench_opt(argc, argv, "--thrash-kib", 0) * 1024;
	call_work = bench_opt(argc, argv, "--call-work", 0);
	if (iters < 1) {
		fprintf(stderr, "usage: bench_hotpath [--iters=N] [--thrash-kib=K] [--call-work=W]\n");
		return 2;
	}
	if (thrash_len && !(thrash_buf = calloc(1, thrash_len)))
		return 1;
	char why[512];
	if (cupti_cb_load_cupti(&eng.api, why, sizeof why)) {
		fprintf(stderr, "bench_hotpath: %s\n", why);
		return 1;
	}
	fake_subscriber_install(&eng.api);
	eng.api.cuptiGetDeviceId = fake_device_id;
	if (cupti_cb_callback_setup(&cb, &eng, 1)) {
		fprintf(stderr, "bench_hotpath: the callback source could not be set up\n");
		return 1;
	}
	static const struct {
		const char *name;
		void (*fn)(void);
		int sites;
	} patterns[] = { { "getdevice", getdevice, 2 }, { "launch", launch, 6 } };
	static const char *const configs[] = { "calls", "time", "minmax" };
	for (unsigned p = 0; p < 2; p++) {
		target = empty_callback;
		measure(patterns[p].fn, iters / 10);
		double base = measure(patterns[p].fn, iters);
		printf("hotpath pattern=%s config=empty thrash_kib=%zu ns_per_call=%.1f ns_over_empty=0.0\n",
		       patterns[p].name, thrash_len / 1024, base);
		for (unsigned c = 0; c < 3; c++) {
			struct cupti_cb_hold h;
			int window;
			if (hold(&h, configs[c], &window))
				return 1;
			target = cupti_cb_services_callback;
			measure(patterns[p].fn, iters / 10);
			double v = measure(patterns[p].fn, iters);
			printf("hotpath pattern=%s config=%s thrash_kib=%zu ns_per_call=%.1f ns_over_empty=%.1f "
			       "ns_per_site=%.1f\n", patterns[p].name, configs[c], thrash_len / 1024, v, v - base,
			       (v - base) / patterns[p].sites);
			cupti_cb_services_unhold(&eng, &h);
			if (window >= 0)
				cupti_cb_windows_give(&cb.win, window);
		}
	}
	cupti_cb_callback_destroy(&cb);
	return 0;
}
