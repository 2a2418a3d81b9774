/* cupti_cb_loader.h: the CUPTI and CUDA driver entry points cupti_cb uses,
 * loaded with dlopen at first use so that libpapi has no link-time CUDA
 * dependency. */
#ifndef CUPTI_CB_LOADER_H
#define CUPTI_CB_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include <cupti.h>

/* Overrides, read at load time. */
#define CUPTI_CB_ENV_CUPTI_LIB "CUPTI_CB_CUPTI_LIB"
#define CUPTI_CB_ENV_CUDA_LIB  "CUPTI_CB_CUDA_LIB"

/* The libcupti configure --with-cupti-lib named, loaded when the variable
 * is not set ("": search the CUDA dir and the library path). */
#ifndef CUPTI_CB_CUPTI_LIB_DEFAULT
#define CUPTI_CB_CUPTI_LIB_DEFAULT ""
#endif

/* Where configure found CUDA; Rules.cupti_cb passes it. */
#ifndef CUPTI_CB_CUDA_DIR
#define CUPTI_CB_CUDA_DIR "/usr/local/cuda"
#endif

struct cupti_cb_api {
	void *cupti_lib;
	void *cuda_lib;
	char cupti_path[512];
	uint32_t cupti_version;		/* cuptiGetVersion of the loaded libcupti (CUPTI_API_VERSION) */

	/* libcupti */
	CUptiResult (*cuptiGetVersion)(uint32_t *);
	CUptiResult (*cuptiGetResultString)(CUptiResult, const char **);
	CUptiResult (*cuptiGetCallbackName)(CUpti_CallbackDomain, uint32_t, const char **);
	CUptiResult (*cuptiSubscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*cuptiSubscribe_v2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
					 CUpti_SubscriberParams *);
	CUptiResult (*cuptiUnsubscribe)(CUpti_SubscriberHandle);
	CUptiResult (*cuptiEnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
					   CUpti_CallbackId);
	CUptiResult (*cuptiGetDeviceId)(CUcontext, uint32_t *);

	/* libcuda */
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int *);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUresult (*cuPointerGetAttributes)(unsigned int, CUpointer_attribute *, void **, CUdeviceptr);
	/* Contexts, for hardware metrics (cupti_cb_metric_session). Optional: the
	 * callback events do not need them; the metrics source checks them.
	 * The _v2 name is spelled out: cuda.h maps the plain name to it, and
	 * dlsym must find the same version. */
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuCtxGetCurrent)(CUcontext *);
	CUresult (*cuDevicePrimaryCtxGetState)(CUdevice, unsigned int *, int *);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice);
};

/* Each returns 0, or -1 with one sentence in why. */
int cupti_cb_load_cupti(struct cupti_cb_api *api, char *why, size_t len);
int cupti_cb_load_cuda(struct cupti_cb_api *api, char *why, size_t len);
void cupti_cb_unload(struct cupti_cb_api *api);

const char *cupti_cb_cupti_error(const struct cupti_cb_api *api, CUptiResult r);
const char *cupti_cb_cuda_error(const struct cupti_cb_api *api, CUresult r);

#endif
