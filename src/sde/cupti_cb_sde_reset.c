/* cupti_cb_sde_reset.c: which of libsde's calls of a counter's callback is
 * a reset.
 *
 * libsde keeps one base per counter for the whole process: PAPI_start and
 * PAPI_reset store the callback's value in it, and a read gives the
 * callback's value minus that base. A per-thread value would then be
 * measured from whichever thread reset last. So the library takes the
 * reset itself: PAPI's sde component finds libsde's tool interface with
 * dlsym in the process's global scope (components/sde/sde.c,
 * sde_load_sde_ti), where a library loaded before libsde (LD_PRELOAD, or
 * linked ahead of it) is found first. The function below marks the
 * calling thread as resetting and calls libsde's own; the callback then
 * keeps each thread's base itself and hands libsde 0 as the base. The name
 * is libsde's, not cupti_cb_'s: that is the point of it.
 *
 * Loaded after libsde, the wrapper would never be called, and each value
 * would be measured from another thread's reset: the library then
 * registers its counters only for a listing (cupti_cb_sde.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cupti_cb_sde.h"

static __thread int resetting;

int cupti_cb_sde_resetting(void)
{
	return resetting;
}

/* The first sde_ti_reset_counter in the global scope, which PAPI's sde
 * component finds with dlsym, is this library's. (Its own address could be
 * libsde's: a reference to an exported function goes through the scope.) */
int cupti_cb_sde_resets_reach_us(void)
{
	Dl_info first, here;
	void *f = dlsym(RTLD_DEFAULT, "sde_ti_reset_counter");
	return f && dladdr(f, &first) && dladdr((void *)cupti_cb_sde_resetting, &here) &&
	       first.dli_fbase == here.dli_fbase;
}

typedef int (*reset_fn)(uint32_t);

__attribute__((visibility("default"))) int sde_ti_reset_counter(uint32_t counter_id);
int sde_ti_reset_counter(uint32_t counter_id)
{
	static _Atomic(reset_fn) next;
	reset_fn f = atomic_load(&next);
	if (!f) {
		f = (reset_fn)dlsym(RTLD_NEXT, "sde_ti_reset_counter");
		if (!f)
			return -1;	/* SDE_EINVAL: no libsde behind this library */
		atomic_store(&next, f);
	}
	resetting = 1;
	int rc = f(counter_id);
	resetting = 0;
	return rc;
}
