/* cupti_cb_profiler_base.c: what the two sources of hardware metrics share
 * as sources (cupti_cb_profiler_base.h). */
#include "cupti_cb_profiler_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_profiler_permission.h"
#include "cupti_cb_thread_counters.h"

#define ENV_CHIP CUPTI_CB_ENV_CHIP
/* The driver's parameters, where it says whether profiling is for
 * administrators only (cupti_cb_profiler_permission.h); tests name another file. */
#define ENV_PARAMS "CUPTI_CB_NVIDIA_PARAMS"

#define TRACE CUPTI_CB_PROFILER_TRACE

void cupti_cb_profiler_base_init(struct cupti_cb_profiler_base *b, struct cupti_cb_services *e, unsigned id,
				 const char *label, CUpti_ProfilerType type, const char *descr_prefix,
				 void (*unlock)(struct cupti_cb_profiler_base *b))
{
	memset(b, 0, sizeof *b);
	b->e = e;
	b->label = label;
	b->type = type;
	b->descr_prefix = descr_prefix;
	b->unlock = unlock;
	pthread_mutex_init(&b->lock, NULL);
	b->need_pm = type == CUPTI_PROFILER_TYPE_PM_SAMPLING;
	b->support_api = b->need_pm ? CUPTI_PROFILER_PM_SAMPLING : CUPTI_PROFILER_RANGE_PROFILING;
	b->support_what = b->need_pm ? "PM sampling" : "range profiling";
	b->events.id = id;
	b->restricted = 2;
	atomic_init(&b->n_devices, -1);
}

void cupti_cb_profiler_base_lock(struct cupti_cb_profiler_base *b)
{
	pthread_mutex_lock(&b->lock);
}

void cupti_cb_profiler_base_unlock(struct cupti_cb_profiler_base *b)
{
	if (b->unlock)
		b->unlock(b);
	else
		pthread_mutex_unlock(&b->lock);
}

void cupti_cb_profiler_base_after_fork_child(struct cupti_cb_profiler_base *b)
{
	pthread_mutex_init(&b->lock, NULL);
	b->holds = 0;
}

int cupti_cb_profiler_base_load(struct cupti_cb_profiler_base *b)
{
	if (b->have_api)
		return 0;
	if (cupti_cb_profiler_api_load(&b->p, b->e->api.cupti_lib, b->why, sizeof b->why) ||
	    (b->need_pm && cupti_cb_pm_sampling_api_load(&b->pm, b->e->api.cupti_lib, b->why, sizeof b->why)))
		return -1;
	b->have_api = 1;
	return 0;
}

/* ---- CUPTI's profiler -------------------------------------------------------------- */

static int profiler_up(void *arg, char *why, size_t len)
{
	struct cupti_cb_profiler_base *b = arg;
	CUpti_Profiler_Initialize_Params ip = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
	CUptiResult r = b->p.cuptiProfilerInitialize(&ip);
	if (r != CUPTI_SUCCESS) {
		/* A failed initialization may leave part of the profiler up: undo it too. */
		CUpti_Profiler_DeInitialize_Params dp = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
		b->p.cuptiProfilerDeInitialize(&dp);
		snprintf(why, len, "cuptiProfilerInitialize failed: %s%s", cupti_cb_profiler_api_error(&b->p, r),
			 r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ?
				 " (another profiler, such as Nsight Compute, holds CUPTI's profiler in this process: "
				 "hardware metrics cannot be listed or counted beside it; the callback events can)" :
				 "");
		return -1;
	}
	TRACE(b, "profiler initialized");
	return 0;
}

static void profiler_down(void *arg)
{
	struct cupti_cb_profiler_base *b = arg;
	CUpti_Profiler_DeInitialize_Params dp = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
	CUptiResult r = b->p.cuptiProfilerDeInitialize(&dp);
	TRACE(b, "profiler de-initialized: %s", cupti_cb_profiler_api_error(&b->p, r));
}

int cupti_cb_profiler_base_hold(struct cupti_cb_profiler_base *b, char *why, size_t len)
{
	if (cupti_cb_services_profiler_hold(b->e, profiler_up, b, why, len))
		return -1;
	b->holds++;
	return 0;
}

void cupti_cb_profiler_base_release(struct cupti_cb_profiler_base *b)
{
	if (!b->holds)
		return;
	b->holds--;
	cupti_cb_services_profiler_release(b->e, profiler_down, b);
}

/* ---- devices and their chips -------------------------------------------------------- */

/* cuInit and the device count, once: the chip of a device needs no more
 * (no subscription, no context). */
int cupti_cb_profiler_base_devices_locked(struct cupti_cb_profiler_base *b)
{
	int n = 0;
	if (atomic_load(&b->n_devices) >= 0)
		return atomic_load(&b->n_devices);
	if (cupti_cb_services_count_devices(b->e, &n, b->why, sizeof b->why))
		n = 0;
	atomic_store(&b->n_devices, n > CUPTI_CB_MAX_DEVICES ? CUPTI_CB_MAX_DEVICES : n);
	return atomic_load(&b->n_devices);
}

int cupti_cb_profiler_base_default_device(struct cupti_cb_profiler_base *b)
{
	CUcontext ctx = NULL;
	int dev = -1;
	/* cupti_cb's own driver call, not the thread's: an add on a thread of
	 * cupti_cb_run counted its cuCtxGetCurrent calls there (gpu_run_metrics,
	 * H100). */
	int own = cupti_cb_own_begin();
	if (b->e->api.cuCtxGetCurrent && b->e->api.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx)
		dev = b->e->resolver.context_device(b->e->resolver.arg, ctx);
	cupti_cb_own_end(own);
	return dev >= 0 ? dev : 0;
}

int cupti_cb_profiler_base_add_devices(struct cupti_cb_profiler_base *b, const uint32_t *codes, unsigned n, int *devs,
				       unsigned *k, char *why, size_t len)
{
	uint8_t seen[CUPTI_CB_MAX_DEVICES] = { 0 };
	*k = 0;
	int rc = cupti_cb_profiler_base_permission(b, why, len);
	if (rc)
		return rc;
	int def = cupti_cb_profiler_base_default_device(b);
	for (unsigned i = 0; i < n; i++) {
		int d = CUPTI_CB_CODE_DEV(codes[i]) >= 0 ? CUPTI_CB_CODE_DEV(codes[i]) : def;
		if (d < 0 || d >= CUPTI_CB_MAX_DEVICES || seen[d])
			continue;
		seen[d] = 1;
		devs[(*k)++] = d;
	}
	return 0;
}

/* Whether CUPTI says the device can be profiled this way; "" in
 * dev_unsupported when it can, or cannot tell (the enable then says). */
static void check_support(struct cupti_cb_profiler_base *b, int d)
{
	CUdevice dev;
	b->dev_unsupported[d][0] = '\0';
	if (!b->e->api.cuDeviceGet || b->e->api.cuDeviceGet(&dev, d) != CUDA_SUCCESS)
		return;
	CUpti_Profiler_DeviceSupported_Params q = { .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE };
	q.cuDevice = dev;
	q.api = b->support_api;
	if (b->p.cuptiProfilerDeviceSupported(&q) != CUPTI_SUCCESS ||
	    (q.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
	     q.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED))
		return;
	cupti_cb_profiler_unsupported(&q, d, b->support_what, b->dev_unsupported[d], sizeof b->dev_unsupported[d]);
}

const char *cupti_cb_profiler_base_chip_locked(struct cupti_cb_profiler_base *b, int dev)
{
	int n = cupti_cb_profiler_base_devices_locked(b);
	if (dev < 0 || dev >= n)
		return NULL;
	if (b->dev_chip[dev][0])
		return b->dev_chip[dev];
	if (cupti_cb_profiler_base_load(b))
		return NULL;
	/* cupti_cb's own driver calls (the profiler's, cuDeviceGet, and the
	 * driver calls CUPTI makes for the device), not the calling thread's:
	 * an add on a thread of cupti_cb_run counted one there (gpu_run_metrics,
	 * H100). */
	int own = cupti_cb_own_begin();
	if (cupti_cb_profiler_base_hold(b, b->why, sizeof b->why)) {
		cupti_cb_own_end(own);
		return NULL;
	}
	for (int d = 0; d < n; d++) {
		if (b->dev_chip[d][0])
			continue;
		CUpti_Device_GetChipName_Params cp = { CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL, (size_t)d,
						       NULL };
		CUptiResult r = b->p.cuptiDeviceGetChipName(&cp);
		check_support(b, d);
		if (r == CUPTI_SUCCESS && cp.pChipName)
			snprintf(b->dev_chip[d], sizeof b->dev_chip[d], "%s", cp.pChipName);
		else if (d == dev)
			snprintf(b->why, sizeof b->why, "cuptiDeviceGetChipName(%d) failed: %s", dev,
				 cupti_cb_profiler_api_error(&b->p, r));
	}
	cupti_cb_own_end(own);
	cupti_cb_profiler_base_release(b);
	return b->dev_chip[dev][0] ? b->dev_chip[dev] : NULL;
}

int cupti_cb_profiler_base_other_chip(const struct cupti_cb_profiler_base *b, int dev, const char *chip, char *why,
				      size_t len)
{
	if (!strcmp(chip, b->chip))
		return 0;
	snprintf(why, len, "device %d is a %s, but the metric catalogue is of %s (" ENV_CHIP "): unset " ENV_CHIP
			   " or name this chip", dev, chip, b->chip);
	return 1;
}

int cupti_cb_profiler_base_check_device_locked(struct cupti_cb_profiler_base *b, int dev, char *why, size_t len)
{
	const char *chip = cupti_cb_profiler_base_chip_locked(b, dev);
	if (!chip)
		return 0;
	if (cupti_cb_profiler_base_other_chip(b, dev, chip, why, len))
		return CUPTI_CB_EUNAVAIL;
	if (b->dev_unsupported[dev][0]) {
		snprintf(why, len, "%s", b->dev_unsupported[dev]);
		return CUPTI_CB_EUNAVAIL;
	}
	return 0;
}

int cupti_cb_profiler_base_permission(struct cupti_cb_profiler_base *b, char *why, size_t len)
{
	if (b->restricted == 2)
		b->restricted = cupti_cb_profiler_permission_restricted_here(getenv(ENV_PARAMS));
	if (b->restricted != 1)
		return 0;
	snprintf(why, len, "access to the GPU performance counters is restricted to admin users "
			   "(RmProfilingAdminOnly: 1 in the driver's parameters) and this process is none: load "
			   "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 (a line \"options nvidia "
			   "NVreg_RestrictProfilingToAdminUsers=0\" in /etc/modprobe.d, then reload the module or "
			   "reboot), or run as root");
	return CUPTI_CB_EPERM;
}

/* ---- the catalogue ----------------------------------------------------------------- */

int cupti_cb_profiler_base_catalog_locked(struct cupti_cb_profiler_base *b)
{
	if (b->have_catalog)
		return 0;
	if (b->tried_catalog)
		return -1;
	const char *env = getenv(ENV_CHIP);
	int named = env && env[0];
	/* Given the device count, cupti_cb is inside the program's own cuInit (an injected tool:
	 * cupti_cb_run), where the profiler must not be asked the chip: there
	 * cuptiProfilerInitialize fails and still leaves every later kernel launch 3.5 times
	 * dearer (H100, CUDA 13.0). The catalogue waits for a later listing or lookup, made once
	 * the count is no longer given, unless the chip is named. */
	const char *given = getenv(CUPTI_CB_ENV_DEVICE_COUNT);
	if (!named && given && given[0]) {
		snprintf(b->why, sizeof b->why, "the metric catalogue is not built while " CUPTI_CB_ENV_DEVICE_COUNT
						" is set (inside cuInit): name the chip with " ENV_CHIP
						" (for example GH100), or list again later");
		return -1;
	}
	b->tried_catalog = 1;
	if (cupti_cb_profiler_base_load(b))
		return -1;
	const char *chip = named ? env : cupti_cb_profiler_base_chip_locked(b, 0);
	if (!chip) {
		if (!b->why[0])
			snprintf(b->why, sizeof b->why, "no CUDA device to take the chip name from: "
							"name one with " ENV_CHIP " (for example GH100)");
		return -1;
	}
	/* CUPTI knows chips in upper case only; a name in another case is
	 * taken as the chip it spells (cupti_cb-environment(7), CUPTI_CB_CHIP). */
	if (named && cupti_cb_profiler_catalog_chip_spelling(&b->p, chip, b->chip, sizeof b->chip))
		TRACE(b, ENV_CHIP "=%s taken as %s", chip, b->chip);
	else
		snprintf(b->chip, sizeof b->chip, "%s", chip);
	uint64_t t0 = cupti_cb_mono_ns();
	if (cupti_cb_profiler_catalog_build_for(&b->cat, &b->p, b->chip, b->type, b->why, sizeof b->why))
		return -1;
	b->events.cat = &b->cat;
	b->have_catalog = 1;
	b->why[0] = '\0';
	TRACE(b, "catalogue of %s%s: %u metrics in %.1f ms", b->chip, named ? " (" ENV_CHIP ")" : "",
	      b->cat.n_metrics, (cupti_cb_mono_ns() - t0) / 1e6);
	return 0;
}
