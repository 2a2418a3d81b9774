/* bench_inject_floor.c: libbench_inject_floor.so, CUPTI's floor for a tool injected through
 * CUDA_INJECTION64_PATH, the way cupti_cb_run's library is.
 *
 * The driver loads it inside the program's first cuInit and calls InitializeInjection.  What it
 * does there is chosen by BENCH_INJECT_FLOOR:
 *   none          nothing (the cost of being an injection at all)
 *   domains       (default) subscribe an empty callback and enable the runtime and driver
 *                 domains, on the thread inside cuInit
 *   cbids         the same, enabling each runtime and driver CBID one by one, as cupti_cb does
 *                 for api.calls
 *   cbids_res     cbids, plus the resource callbacks cupti_cb takes (context creation and
 *                 destruction)
 *   cbids_act     cbids, plus the activity kinds cupti_cb's gpu.* events take (concurrent
 *                 kernels, copies, peer copies, memsets) into 1 MiB buffers whose records are
 *                 walked when CUPTI hands them over, and a flush at exit: the floor of
 *                 cupti_cb_run's default
 *   cbids_clock   cbids with a callback that reads the clock cupti_cb reads (the TSC) at every
 *                 call site: the floor of any tool that times every call
 *   cbids_clock_act  both: the floor of a tool that times every call and takes the activity kinds
 *   api_act       no callback: CUPTI's activity records of runtime and driver calls (the way
 *                 Nsight Systems traces the CUDA API), walked when CUPTI hands them over
 *   api_act_gpu   api_act with the activity kinds of cbids_act: what a tool that takes the
 *                 calls' counts and times from records, and the GPU's work, costs at least
 *   api_act_ops   api_act, plus an empty callback on the driver's launches, copies, memsets,
 *                 allocations, frees and synchronizations only (cupti_cb's table of
 *                 operations, cupti_cb_driver_ops.c): the floor of a tool
 *                 that takes the calls from records and reads the operations' parameters in
 *                 callbacks; api_act_ops_gpu the same with the activity kinds of cbids_act
 *   api_act*_tsc  any api_act mode with CUPTI's timestamps taken from the TSC, through
 *                 cuptiActivityRegisterTimestampCallback, instead of clock_gettime (which CUPTI
 *                 calls twice for each API record): the records at the price of the clock a
 *                 callback tool reads
 *   defer:MS      the same from a thread of the library, MS ms later
 * BENCH_INJECT_PROFILER=init|init_deinit|host (with defer:MS) also calls cuptiProfilerInitialize
 * there, and cuptiProfilerDeInitialize right after it (init_deinit), or makes a Profiler Host
 * API object for the chip BENCH_INJECT_CHIP (default GH100) and keeps it (host): what an
 * initialized CUPTI profiler, or a live host object, costs the launches that follow.
 * libcupti is a dependency of this library, so it is loaded by the driver's dlopen, late, as it
 * is for cupti_cb_run (unless the program preloads it).  run-runner-bench and the overhead
 * experiments compare cupti_cb_run's cost with this floor. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cupti.h>
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>

#include "cupti_cb_driver_ops.h"

static CUpti_SubscriberHandle subscriber;

static void CUPTIAPI empty_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				    const void *data)
{
	(void)userdata;
	(void)domain;
	(void)cbid;
	(void)data;
}

static const char *mode;

/* The clock cupti_cb reads (the TSC on x86-64): at every call site under cbids_clock, and as
 * CUPTI's clock for its records under api_act*_tsc. */
static uint64_t CUPTIAPI tool_clock(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

/* cbids_clock: the clock read that timing every call costs.  The value goes unused; the read
 * stays (the compiler keeps every rdtsc, and every call of clock_gettime). */
static void CUPTIAPI clock_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				    const void *data)
{
	(void)userdata, (void)domain, (void)cbid, (void)data;
	(void)tool_clock();
}

/* ---- cbids_act: the activity kinds, with the least a client can do ------ */

#define ACT_BUF (1u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, ACT_BUF);
	*size = *buffer ? ACT_BUF : 0;
	*max_records = 0;
}

static volatile unsigned long records;

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	CUpti_Activity *r = NULL;
	while (valid && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
		records++;
	free(buffer);
}

static void flush_at_exit(void)
{
	cuptiActivityFlushAll(1);
}

#define ACT_GPU 1	/* the activity kinds of cupti_cb's gpu.* events */
#define ACT_API 2	/* the runtime's and the driver's calls */

static CUptiResult enable_activity(int which)
{
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
						    CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
						    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER };
	CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	for (unsigned i = 0; r == CUPTI_SUCCESS && i < sizeof kinds / sizeof kinds[0]; i++)
		if (which & (i < 4 ? ACT_GPU : ACT_API))
			r = cuptiActivityEnable(kinds[i]);
	if (r == CUPTI_SUCCESS)
		atexit(flush_at_exit);
	return r;
}

/* Every CBID of a domain, one by one; the unused numbers of the range are refused, as they
 * are for cupti_cb, which never asks for them. */
static void enable_each(CUpti_CallbackDomain d, unsigned n)
{
	for (unsigned id = 1; id < n; id++)
		cuptiEnableCallback(1, subscriber, d, id);
}

static CUptiResult enable(void)
{
	if (!strncmp(mode, "cbids", 5)) {
		enable_each(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
		enable_each(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
		if (!strcmp(mode, "cbids_act") || !strcmp(mode, "cbids_clock_act"))
			return enable_activity(ACT_GPU);
		if (!strcmp(mode, "cbids_res")) {
			cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
			cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
					    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
		}
		return CUPTI_SUCCESS;
	}
	CUptiResult r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	return r;
}

/* api_act_ops: the driver functions whose parameters cupti_cb reads (its table of operations:
 * launches, copies, memsets, allocations, frees, synchronizations). */
static CUptiResult enable_operations(void)
{
	CUptiResult r = cuptiSubscribe(&subscriber, empty_callback, NULL);
	for (size_t i = 0; r == CUPTI_SUCCESS && i < cupti_cb_n_driver_ops; i++)
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cupti_cb_driver_ops[i].cbid);
	return r;
}

static void subscribe(void)
{
	if (!strncmp(mode, "api_act", 7)) {
		size_t n = strlen(mode);
		int tsc = n > 4 && !strcmp(mode + n - 4, "_tsc");
		int gpu = strstr(mode, "_gpu") != NULL;
		/* Before any record is made: records made earlier keep CUPTI's own clock. */
		CUptiResult r = tsc ? cuptiActivityRegisterTimestampCallback(tool_clock) : CUPTI_SUCCESS;
		if (r == CUPTI_SUCCESS)
			r = enable_activity(ACT_API | (gpu ? ACT_GPU : 0));
		if (r == CUPTI_SUCCESS && !strncmp(mode, "api_act_ops", 11))
			r = enable_operations();
		if (r != CUPTI_SUCCESS) {
			const char *s = "?";
			cuptiGetResultString(r, &s);
			fprintf(stderr, "bench_inject_floor: %s\n", s);
		}
		return;
	}
	CUptiResult r = cuptiSubscribe(&subscriber, strncmp(mode, "cbids_clock", 11) ? empty_callback : clock_callback, NULL);
	if (r == CUPTI_SUCCESS)
		r = enable();
	if (r != CUPTI_SUCCESS) {
		const char *s = "?";
		cuptiGetResultString(r, &s);
		fprintf(stderr, "bench_inject_floor: %s\n", s);
	}
}

static void profiler(const char *how)
{
	if (!strcmp(how, "host")) {
		const char *chip = getenv("BENCH_INJECT_CHIP");
		CUpti_Profiler_Host_Initialize_Params hp = { .structSize =
								     CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
		hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
		hp.pChipName = chip && *chip ? chip : "GH100";
		CUptiResult r = cuptiProfilerHostInitialize(&hp);
		const char *s = "?";
		cuptiGetResultString(r, &s);
		fprintf(stderr, "bench_inject_floor: profiler host object for %s: %s\n", hp.pChipName, s);
		return;
	}
	CUpti_Profiler_Initialize_Params ip = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
	CUptiResult r = cuptiProfilerInitialize(&ip);
	if (r == CUPTI_SUCCESS && !strcmp(how, "init_deinit")) {
		CUpti_Profiler_DeInitialize_Params dp = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
		r = cuptiProfilerDeInitialize(&dp);
	}
	const char *s = "?";
	cuptiGetResultString(r, &s);
	fprintf(stderr, "bench_inject_floor: profiler %s: %s\n", how, s);
}

static void *deferred(void *arg)
{
	long ms = (long)(size_t)arg;
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
	subscribe();
	const char *how = getenv("BENCH_INJECT_PROFILER");
	if (how && *how)
		profiler(how);
	return NULL;
}

int InitializeInjection(void) __attribute__((visibility("default")));
int InitializeInjection(void)
{
	mode = getenv("BENCH_INJECT_FLOOR");
	if (!mode || !*mode)
		mode = "domains";
	if (!strcmp(mode, "none"))
		return 1;
	if (!strncmp(mode, "defer:", 6)) {
		pthread_t t;
		long ms = strtol(mode + 6, NULL, 10);
		mode = "domains";
		if (pthread_create(&t, NULL, deferred, (void *)(size_t)ms) == 0)
			pthread_detach(t);
		return 1;
	}
	subscribe();
	return 1;
}
