/* cupti_cb_loader.c: dlopen libcupti and libcuda, resolve the entry points. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym {
	const char *name;
	size_t offset;	/* of the function pointer in struct cupti_cb_api */
	int required;
};

#define SYM(f, req) { #f, offsetof(struct cupti_cb_api, f), req }

static const struct sym cupti_syms[] = {
	SYM(cuptiGetVersion, 1),
	SYM(cuptiGetResultString, 1),
	SYM(cuptiGetCallbackName, 1),
	SYM(cuptiSubscribe, 1),
	SYM(cuptiSubscribe_v2, 0),	/* CUDA 12.x before 12.6 lacks it */
	SYM(cuptiUnsubscribe, 1),
	SYM(cuptiEnableCallback, 1),
	SYM(cuptiGetDeviceId, 1),
};

static const struct sym cuda_syms[] = {
	SYM(cuInit, 1),
	SYM(cuDriverGetVersion, 1),
	SYM(cuDeviceGetCount, 1),
	SYM(cuGetErrorString, 1),
	SYM(cuPointerGetAttributes, 1),
	SYM(cuDeviceGet, 0),
	SYM(cuCtxGetCurrent, 0),
	SYM(cuDevicePrimaryCtxGetState, 0),
	SYM(cuDevicePrimaryCtxRetain, 0),
	SYM(cuDevicePrimaryCtxRelease_v2, 0),
};

/* Returns the name of the first missing required symbol, or NULL. */
static const char *resolve(void *lib, struct cupti_cb_api *api, const struct sym *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(lib, s[i].name);
		if (!f && s[i].required)
			return s[i].name;
		memcpy((char *)api + s[i].offset, &f, sizeof f);
	}
	return NULL;
}

/* Try each candidate in order; the first that loads wins. */
static void *open_first(const char *const *cand, size_t n, char *path, size_t plen,
			char *err, size_t elen)
{
	err[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!cand[i] || !cand[i][0])
			continue;
		void *h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
		if (h) {
			if (path)
				snprintf(path, plen, "%s", cand[i]);
			return h;
		}
		if (!err[0]) {
			const char *e = dlerror();
			snprintf(err, elen, "%s", e ? e : cand[i]);
		}
	}
	return NULL;
}

int cupti_cb_load_cupti(struct cupti_cb_api *api, char *why, size_t len)
{
	const char *env = getenv(CUPTI_CB_ENV_CUPTI_LIB);
	const char *chosen = env && env[0] ? env : CUPTI_CB_CUPTI_LIB_DEFAULT;
	if (chosen[0]) {
		/* An explicit choice must work: never fall back silently. */
		const char *cand[] = { chosen };
		char err[256];
		api->cupti_lib = open_first(cand, 1, api->cupti_path, sizeof api->cupti_path,
					    err, sizeof err);
		if (!api->cupti_lib) {
			snprintf(why, len, "libcupti not found: %s%s cannot be loaded (%s)",
				 chosen == env ? CUPTI_CB_ENV_CUPTI_LIB "=" : "configure --with-cupti-lib=", chosen,
				 err);
			return -1;
		}
	} else {
		const char *cand[] = {
			CUPTI_CB_CUDA_DIR "/lib64/libcupti.so",
			CUPTI_CB_CUDA_DIR "/extras/CUPTI/lib64/libcupti.so",
			CUPTI_CB_CUDA_DIR "/lib/libcupti.so",
			"libcupti.so",
			"libcupti.so.13",
			"libcupti.so.12",
		};
		char err[256];
		api->cupti_lib = open_first(cand, sizeof cand / sizeof cand[0], api->cupti_path,
					    sizeof api->cupti_path, err, sizeof err);
		if (!api->cupti_lib) {
			snprintf(why, len,
				 "libcupti not found: searched %s/{lib64,extras/CUPTI/lib64,lib} and the "
				 "library path; set %s to its full path",
				 CUPTI_CB_CUDA_DIR, CUPTI_CB_ENV_CUPTI_LIB);
			return -1;
		}
	}
	const char *missing = resolve(api->cupti_lib, api, cupti_syms,
				      sizeof cupti_syms / sizeof cupti_syms[0]);
	if (missing) {
		snprintf(why, len, "libcupti not usable: %s lacks %s (CUDA 12 or newer is needed)",
			 api->cupti_path, missing);
		dlclose(api->cupti_lib);
		api->cupti_lib = NULL;
		return -1;
	}
	/* Which CUPTI this is decides whether cupti_cb may share the process
	 * with other subscribers (cupti_cb_multiple_subscribers.h); 0 if it will not say. */
	if (api->cuptiGetVersion(&api->cupti_version) != CUPTI_SUCCESS)
		api->cupti_version = 0;
	return 0;
}

int cupti_cb_load_cuda(struct cupti_cb_api *api, char *why, size_t len)
{
	const char *env = getenv(CUPTI_CB_ENV_CUDA_LIB);
	const char *cand[] = { env && env[0] ? env : "libcuda.so.1" };
	char err[256];
	api->cuda_lib = open_first(cand, 1, NULL, 0, err, sizeof err);
	if (!api->cuda_lib) {
		snprintf(why, len, "No NVIDIA driver: %s cannot be loaded (%s)", cand[0], err);
		return -1;
	}
	const char *missing = resolve(api->cuda_lib, api, cuda_syms,
				      sizeof cuda_syms / sizeof cuda_syms[0]);
	if (missing) {
		snprintf(why, len, "No NVIDIA driver: %s lacks %s", cand[0], missing);
		dlclose(api->cuda_lib);
		api->cuda_lib = NULL;
		return -1;
	}
	return 0;
}

void cupti_cb_unload(struct cupti_cb_api *api)
{
	/* libcupti is never closed: CUPTI keeps threads and hooks in the driver
	 * that outlive an unsubscribe, and unloading it under them crashes. */
	if (api->cuda_lib)
		dlclose(api->cuda_lib);
	api->cuda_lib = NULL;
}

const char *cupti_cb_cupti_error(const struct cupti_cb_api *api, CUptiResult r)
{
	const char *s = NULL;
	if (api->cuptiGetResultString && api->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown CUPTI error";
}

const char *cupti_cb_cuda_error(const struct cupti_cb_api *api, CUresult r)
{
	const char *s = NULL;
	if (api->cuGetErrorString && api->cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
		return s;
	return "unknown CUDA error";
}
