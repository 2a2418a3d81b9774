/* sde_gpu_work.c: libsde_gpu_work.so, for run-sde-check on a GPU machine, where PAPI's own
 * utilities (Debian's, carried by scripts/debian-papi) read libcupti_cb_sde.so's counters but
 * make no CUDA call. Preloaded beside the library, it takes PAPI_start (which the utility calls
 * through its PLT) and, once the real one returned, does real CUDA work on that thread
 * through the driver API (libcuda.so.1, opened here; nothing CUDA is linked):
 *   SDE_WORK="launches=N,htod=BYTES"
 * N launches of an empty kernel (JIT-compiled from PTX) and one copy of BYTES to device 0,
 * then cuCtxSynchronize, so that the GPU's records of them are due. A failure is one
 * sentence on stderr and exit status 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult_t;
typedef struct {
	CUresult_t (*init)(unsigned);
	CUresult_t (*device_get)(int *, int);
	CUresult_t (*retain)(void **, int);
	CUresult_t (*set_current)(void *);
	CUresult_t (*mem_alloc)(unsigned long long *, size_t);
	CUresult_t (*mem_free)(unsigned long long);
	CUresult_t (*htod)(unsigned long long, const void *, size_t);
	CUresult_t (*load)(void **, const void *);
	CUresult_t (*function)(void **, void *, const char *);
	CUresult_t (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
			     void **, void **);
	CUresult_t (*sync)(void);
} driver_t;

static const char ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
			  ".visible .entry cupti_cb_empty()\n{\n\tret;\n}\n";

static void fail(const char *what, int rc)
{
	fprintf(stderr, "sde_gpu_work: %s failed (CUresult %d)\n", what, rc);
	exit(1);
}

static void *sym(void *lib, const char *name)
{
	void *f = dlsym(lib, name);
	if (!f) {
		fprintf(stderr, "sde_gpu_work: libcuda.so.1 has no %s\n", name);
		exit(1);
	}
	return f;
}

#define CALL(what, call)                        \
	do {                                    \
		int rc_ = (call);               \
		if (rc_)                        \
			fail(what, rc_);        \
	} while (0)

static void work(long launches, long bytes)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "sde_gpu_work: libcuda.so.1 cannot be loaded: %s\n", dlerror());
		exit(1);
	}
	driver_t d;
	*(void **)&d.init = sym(lib, "cuInit");
	*(void **)&d.device_get = sym(lib, "cuDeviceGet");
	*(void **)&d.retain = sym(lib, "cuDevicePrimaryCtxRetain");
	*(void **)&d.set_current = sym(lib, "cuCtxSetCurrent");
	*(void **)&d.mem_alloc = sym(lib, "cuMemAlloc_v2");
	*(void **)&d.mem_free = sym(lib, "cuMemFree_v2");
	*(void **)&d.htod = sym(lib, "cuMemcpyHtoD_v2");
	*(void **)&d.load = sym(lib, "cuModuleLoadData");
	*(void **)&d.function = sym(lib, "cuModuleGetFunction");
	*(void **)&d.launch = sym(lib, "cuLaunchKernel");
	*(void **)&d.sync = sym(lib, "cuCtxSynchronize");
	int dev;
	void *ctx, *mod, *fn;
	CALL("cuInit", d.init(0));
	CALL("cuDeviceGet", d.device_get(&dev, 0));
	CALL("cuDevicePrimaryCtxRetain", d.retain(&ctx, dev));
	CALL("cuCtxSetCurrent", d.set_current(ctx));
	CALL("cuModuleLoadData", d.load(&mod, ptx));
	CALL("cuModuleGetFunction", d.function(&fn, mod, "cupti_cb_empty"));
	for (long i = 0; i < launches; i++)
		CALL("cuLaunchKernel", d.launch(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
	if (bytes > 0) {
		unsigned long long p;
		char *host = calloc(1, (size_t)bytes);
		if (!host)
			fail("calloc", 0);
		CALL("cuMemAlloc", d.mem_alloc(&p, (size_t)bytes));
		CALL("cuMemcpyHtoD", d.htod(p, host, (size_t)bytes));
		CALL("cuMemFree", d.mem_free(p));
		free(host);
	}
	CALL("cuCtxSynchronize", d.sync());
}

int PAPI_start(int es);
int PAPI_start(int es)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "PAPI_start");
	if (!real) {
		fprintf(stderr, "sde_gpu_work: no PAPI_start after this library\n");
		exit(1);
	}
	int rc = real(es);
	const char *spec = getenv("SDE_WORK");
	long launches = 0, bytes = 0;
	if (rc == 0 && spec) {
		if (sscanf(spec, "launches=%ld,htod=%ld", &launches, &bytes) != 2 || launches < 0 || bytes < 0) {
			fprintf(stderr, "sde_gpu_work: SDE_WORK='%s' is not launches=N,htod=BYTES\n", spec);
			exit(1);
		}
		work(launches, bytes);
	}
	return rc;
}
