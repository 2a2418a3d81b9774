/* bench_inject_papi.c: libbench_inject_papi.so, the smallest PAPI client injected through
 * CUDA_INJECTION64_PATH: inside the program's first cuInit it initializes PAPI (and its thread
 * support), makes one event set of BENCH_INJECT_EVENTS (default cupti_cb:::api.calls:process)
 * and starts it; at exit it prints what the set counted.  Nothing else of cupti_cb_run's
 * library: no owner threads, no per-function sets, no file.  It tells apart what counting
 * through PAPI costs an injected program from what the runner's library adds to it.
 *   BENCH_INJECT_NOTHREAD=1  skip PAPI_thread_init
 *   BENCH_INJECT_DEFER=MS    do it all on a thread of the library, MS ms after cuInit
 *   BENCH_INJECT_ENUM=1      first enumerate the component's events, as cupti_cb_run's library
 *                            does to list the CUDA functions
 *   BENCH_INJECT_NVML=close|keep  first count the devices through NVML, as cupti_cb_run's
 *                            library did: dlopen, nvmlInit, count, nvmlShutdown, then dlclose
 *                            (close) or not (keep)
 * The device count is given to cupti_cb (CUPTI_CB_DEVICE_COUNT, default 1), so that it calls
 * no driver function inside cuInit. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "papi.h"

static int eventset = PAPI_NULL, n_events;

static unsigned long self(void)
{
	return (unsigned long)pthread_self();
}

static void report(void)
{
	long long v[64] = { 0 };
	if (eventset == PAPI_NULL || PAPI_read(eventset, v) != PAPI_OK)
		return;
	for (int i = 0; i < n_events && i < 64; i++)
		fprintf(stderr, "bench_inject_papi: event %d counted %lld\n", i, v[i]);
}

static void nvml(const char *how)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return (void)fprintf(stderr, "bench_inject_papi: no libnvidia-ml.so.1\n");
	int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
	int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(h, "nvmlDeviceGetCount_v2");
	int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
	unsigned n = 0;
	if (init && count && shutdown && init() == 0) {
		count(&n);
		shutdown();
	}
	fprintf(stderr, "bench_inject_papi: NVML counts %u device(s)\n", n);
	if (!strcmp(how, "close"))
		dlclose(h);
}

static void setup(void)
{
	const char *how = getenv("BENCH_INJECT_NVML");
	if (how && *how)
		nvml(how);
	const char *list = getenv("BENCH_INJECT_EVENTS");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", list && *list ? list : "cupti_cb:::api.calls:process");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return (void)fprintf(stderr, "bench_inject_papi: PAPI_library_init failed\n");
	if (!getenv("BENCH_INJECT_NOTHREAD") && PAPI_thread_init(self) != PAPI_OK)
		return (void)fprintf(stderr, "bench_inject_papi: PAPI_thread_init failed\n");
	if (getenv("BENCH_INJECT_ENUM")) {
		int code = PAPI_NATIVE_MASK, n = 0, cidx = PAPI_get_component_index("cupti_cb");
		if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) == PAPI_OK)
			do
				n++;
			while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
		fprintf(stderr, "bench_inject_papi: %d events listed\n", n);
	}
	if (PAPI_create_eventset(&eventset) != PAPI_OK)
		return (void)fprintf(stderr, "bench_inject_papi: PAPI_create_eventset failed\n");
	for (char *save, *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		int rc = PAPI_add_named_event(eventset, e);
		if (rc != PAPI_OK)
			return (void)fprintf(stderr, "bench_inject_papi: %s: %s\n", e, PAPI_strerror(rc));
		n_events++;
	}
	int rc = PAPI_start(eventset);
	if (rc != PAPI_OK)
		fprintf(stderr, "bench_inject_papi: PAPI_start: %s\n", PAPI_strerror(rc));
	atexit(report);
}

static void *deferred(void *arg)
{
	long ms = (long)(size_t)arg;
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
	setup();
	return NULL;
}

int InitializeInjection(void) __attribute__((visibility("default")));
int InitializeInjection(void)
{
	setenv("CUPTI_CB_DEVICE_COUNT", getenv("CUPTI_CB_DEVICE_COUNT") ? getenv("CUPTI_CB_DEVICE_COUNT") : "1", 1);
	const char *defer = getenv("BENCH_INJECT_DEFER");
	if (defer && *defer) {
		pthread_t t;
		if (pthread_create(&t, NULL, deferred, (void *)(size_t)strtol(defer, NULL, 10)) == 0)
			pthread_detach(t);
		return 1;
	}
	setup();
	return 1;
}
