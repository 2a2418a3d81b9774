/*
 * cpu_component_listed: cupti_cb is built into libpapi, initializes lazily, and tells the truth
 * about the driver.
 *
 * - PAPI_get_component_index("cupti_cb") finds it; right after PAPI_library_init it is still
 *   PAPI_EDELAY_INIT and neither libcupti nor libcuda is mapped into the process.
 * - Without a loadable libcuda.so.1 (checked here with dlopen, after the component's own init):
 *   forcing the lazy init disables it with a reason beginning "No NVIDIA driver:", and
 *   PAPI_add_named_event("cupti_cb:::kernel.launches") returns PAPI_ENOEVNT: in PAPI 7.0.0,
 *   _papi_hwi_native_name_to_code() skips a disabled component, and with the "cupti_cb:::" prefix
 *   no other component is asked, so its initial PAPI_ENOEVNT is what comes back (PAPI_ECMP_DISABLED
 *   is only returned for an event code that is already known).
 * - With libcuda loadable and at least one device (a GPU machine), the component is enabled,
 *   lists events, and kernel.launches can be added.  With libcuda but no device, the reason
 *   begins "No CUDA device:".
 */
#include "ctest_util.h"

#include <dlfcn.h>

static int mapped(const char *libname)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, libname) != NULL;
    fclose(f);
    return found;
}

/* Number of CUDA devices through a libcuda we load ourselves; -1 when it cannot be loaded. */
static int driver_devices(const char *path, char *why, size_t len)
{
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, len, "%s", dlerror());
        return -1;
    }
    init_fn cu_init;
    count_fn cu_count;
    *(void **)&cu_init = dlsym(h, "cuInit"); /* the POSIX idiom for function pointers */
    *(void **)&cu_count = dlsym(h, "cuDeviceGetCount");
    int n = 0;
    if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&n) != 0)
        n = 0;
    snprintf(why, len, "%s loaded, %d device(s)", path, n);
    return n;
}

int main(void)
{
    ct_library_init();

    int cidx = PAPI_get_component_index(CT_COMPONENT);
    if (!CHECK_REL("PAPI_get_component_index(\"cupti_cb\")", cidx, ">=", 0))
        return ct_done();
    CHECK_REL("PAPI_num_components", PAPI_num_components(), ">", cidx);

    const PAPI_component_info_t *info = PAPI_get_component_info(cidx);
    if (!CHECK_TRUE("PAPI_get_component_info(cidx) != NULL", info != NULL))
        return ct_done();
    CHECK_EQ("component name is cupti_cb", strcmp(info->name, CT_COMPONENT), 0);
    ct_check_rc("disabled right after PAPI_library_init (lazy init)", info->disabled,
                PAPI_EDELAY_INIT);
    CHECK_EQ("libcupti not mapped after PAPI_library_init", mapped("libcupti"), 0);
    CHECK_EQ("libcuda not mapped after PAPI_library_init", mapped("libcuda.so"), 0);

    info = ct_component_after_init(cidx);
    ct_note("after forced init: disabled=%d reason=\"%s\" native events=%d", info->disabled,
            info->disabled_reason, info->num_native_events);

    const char *cuda_lib = getenv("CUPTI_CB_CUDA_LIB") ? getenv("CUPTI_CB_CUDA_LIB") : "libcuda.so.1";
    char why[512];
    int ndev = driver_devices(cuda_lib, why, sizeof why);
    ct_note("driver probe by the test: %s", why);

    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    int rc = ct_add(es, "kernel.launches");

    if (ndev < 0) {
        CHECK_TRUE("no driver: component disabled after its init",
                   info->disabled != 0 && info->disabled != PAPI_EDELAY_INIT);
        CHECK_EQ("no driver: disabled_reason begins with \"No NVIDIA driver:\"",
                 strncmp(info->disabled_reason, "No NVIDIA driver:", 17), 0);
        CHECK_REL("no driver: disabled_reason says more than the prefix",
                  strlen(info->disabled_reason), ">", 18);
        ct_check_rc("no driver: PAPI_add_named_event(cupti_cb:::kernel.launches)", rc, PAPI_ENOEVNT);
    } else if (ndev == 0) {
        CHECK_TRUE("no device: component disabled after its init",
                   info->disabled != 0 && info->disabled != PAPI_EDELAY_INIT);
        CHECK_EQ("no device: disabled_reason begins with \"No CUDA device:\"",
                 strncmp(info->disabled_reason, "No CUDA device:", 15), 0);
        ct_check_rc("no device: PAPI_add_named_event(cupti_cb:::kernel.launches)", rc, PAPI_ENOEVNT);
    } else {
        ct_check_rc("GPU: component enabled after its init", info->disabled, PAPI_OK);
        CHECK_REL("GPU: native events listed", info->num_native_events, ">", 0);
        ct_check_rc("GPU: PAPI_add_named_event(cupti_cb:::kernel.launches)", rc, PAPI_OK);
    }
    ct_destroy(&es);
    PAPI_shutdown();
    return ct_done();
}
