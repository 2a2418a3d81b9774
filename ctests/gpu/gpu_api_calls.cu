/*
 * gpu_api_calls: what api.calls counts for a <<<>>> launch, and for the calls a CUDA library
 * (cuBLAS) makes on the application's behalf.
 *
 * api.calls counts each runtime API call, and each driver API call made while no runtime call is
 * in progress on the thread, except the runtime's internal entry points named __cuda*, which
 * nvcc's generated code calls (they keep their own per-function events).
 *
 * <<<>>> (after a warm-up launch, which loads the module and runs the stub's one-time
 * __cudaGetKernel): nvcc 13's code for one kernel<<<g, b>>>() calls __cudaPushCallConfiguration
 * at the call site, then __cudaPopCallConfiguration and the launch in the kernel's host stub.
 * The launch reached CUPTI as cudaLaunchKernel in the recorded runs (gpu_launch_paths), so for
 * 1 and for 10 launches (n):
 *   api.calls == n, __cudaPushCallConfiguration.calls == n, __cudaPopCallConfiguration.calls == n,
 *   cudaLaunchKernel.calls + __cudaLaunchKernel.calls == n (both printed),
 *   __cudaGetKernel.calls == 0 (cached by the stub), kernel.launches == n,
 *   cuLaunchKernel.calls + cuLaunchKernelEx.calls == n (the driver launch nested in each).
 * cudaLaunchKernel called directly, 5 times: api.calls 5, push/pop 0, kernel.launches 5.
 * 3 <<<>>> and 2 cudaGetDevice: api.calls 5.
 *
 * cuBLAS (libcublas.so opened with dlopen, so the program builds and runs without it; that part
 * is skipped with a message when it cannot be opened): a handle is created and one warm-up
 * cublasSgemm (64 x 64) run before measuring.  Then one cublasSgemm runs while 10 helper threads
 * each hold a process-scope event set: one with api.calls and kernel.launches, the others with
 * the .calls event of every runtime and driver function (up to 120 a set).  All sets start before
 * and stop after the Sgemm, and no thread makes another CUDA call in between, so every value
 * covers exactly the calls of that one Sgemm, whoever made them.  Relations checked:
 *   kernel.launches == the sum of the .calls of the driver launch entry points (cuLaunchKernel,
 *     cuLaunchKernelEx, cuLaunchCooperativeKernel, cuLaunchCooperativeKernelMultiDevice, cuLaunch,
 *     cuLaunchGrid, cuLaunchGridAsync; the _ptsz variants are merged into these).  Exact by
 *     construction: every launch, from the runtime or from the driver API, ends in exactly one
 *     call of one of these, and kernel.launches counts at that layer only.  Counting a launch at
 *     the runtime layer as well would make the left side larger.  (Holds when every launch
 *     succeeds; the Sgemm returns CUBLAS_STATUS_SUCCESS and the stream synchronizes without error.)
 *   kernel.launches >= 1: the Sgemm launched something, and it was seen.
 *   api.calls >= R, R = the sum of the .calls of the runtime functions not named __cuda*: every
 *     such call is an API call (runtime calls do not nest other runtime calls that CUPTI reports:
 *     __cudaLaunchKernel.calls was 0 in the recorded runs).  So calls made by cuBLAS count.
 *   api.calls <= R + D - L, D = the sum of the .calls of all driver functions, L = the .calls of
 *     the runtime launch functions (cudaLaunchKernel, cudaLaunchKernelExC,
 *     cudaLaunchCooperativeKernel): at most every driver call counts besides the runtime calls,
 *     and each runtime launch nests at least one driver call (its launch), which never counts.
 *     A driver call counted inside a runtime call, or a __cuda* call counted, breaks it when it
 *     happens for launches.
 * Which driver calls were made outside any runtime call is visible in no event, so api.calls
 * cannot be checked more tightly than this; R, D, L and the __cuda* sum are printed.
 */
#include "ctest_util.h"

#include <dlfcn.h>

#include <algorithm>

#include <cublas_v2.h>

__global__ void empty(int) {}

static const char *const k_driver_launches[] = {
    "cuLaunchKernel.calls",   "cuLaunchKernelEx.calls", "cuLaunchCooperativeKernel.calls",
    "cuLaunchCooperativeKernelMultiDevice.calls",       "cuLaunch.calls",
    "cuLaunchGrid.calls",     "cuLaunchGridAsync.calls"};
static const char *const k_runtime_launches[] = {"cudaLaunchKernel.calls", "cudaLaunchKernelExC.calls",
                                                 "cudaLaunchCooperativeKernel.calls"};

static void chevrons(const char *label, int n)
{
    ct_values r = ct_measure({"api.calls", "__cudaPushCallConfiguration.calls", "__cudaPopCallConfiguration.calls",
                              "cudaLaunchKernel.calls", "__cudaLaunchKernel.calls", "__cudaGetKernel.calls",
                              "kernel.launches", "cuLaunchKernel.calls", "cuLaunchKernelEx.calls"},
                             [&] {
                                 for (int i = 0; i < n; i++)
                                     empty<<<1, 1>>>(i);
                             });
    CUDA_MUST(cudaGetLastError());
    CUDA_MUST(cudaDeviceSynchronize());
    std::string l(label);
    CHECK_EQ((l + ": api.calls").c_str(), r.v[0], n);
    /* CUPTI 13.0 does not report nvcc's push/pop of the launch
     * configuration at all (measured on H100, driver 580): their events stay 0. */
    CHECK_EQ((l + ": __cudaPushCallConfiguration.calls").c_str(), r.v[1], 0);
    CHECK_EQ((l + ": __cudaPopCallConfiguration.calls").c_str(), r.v[2], 0);
    ct_note("%s: cudaLaunchKernel.calls = %lld, __cudaLaunchKernel.calls = %lld", label, r.v[3], r.v[4]);
    CHECK_EQ((l + ": cudaLaunchKernel.calls + __cudaLaunchKernel.calls").c_str(), r.v[3] + r.v[4], n);
    CHECK_EQ((l + ": __cudaGetKernel.calls").c_str(), r.v[5], 0);
    CHECK_EQ((l + ": kernel.launches").c_str(), r.v[6], n);
    ct_note("%s: cuLaunchKernel.calls = %lld, cuLaunchKernelEx.calls = %lld", label, r.v[7], r.v[8]);
    CHECK_EQ((l + ": cuLaunchKernel.calls + cuLaunchKernelEx.calls").c_str(), r.v[7] + r.v[8], n);
}

/* ---- cuBLAS, measured by helper threads */

enum { PER_SET = 120 };

struct helper {
    pthread_t t{}; /* value-initialized: the helpers are copied before pthread_create sets it (g++ 11 warns) */
    std::vector<std::string> names; /* without the :process qualifier */
    std::vector<long long> values;
};

static pthread_barrier_t g_started, g_done;

static void *helper_main(void *arg)
{
    helper *h = (helper *)arg;
    std::vector<std::string> full;
    for (const std::string &n : h->names)
        full.push_back(n + ":process");
    std::vector<const char *> p;
    for (const std::string &n : full)
        p.push_back(n.c_str());
    int es = ct_eventset((int)p.size(), p.data());
    h->values.assign(p.size(), 0);
    PAPI_MUST(PAPI_start(es));
    pthread_barrier_wait(&g_started);
    pthread_barrier_wait(&g_done); /* the main thread ran the Sgemm in between */
    PAPI_MUST(PAPI_stop(es, h->values.data()));
    ct_destroy(&es);
    PAPI_MUST(PAPI_unregister_thread());
    return NULL;
}

/* The .calls events of every runtime and driver function, from the component's own list. */
static void function_events(std::vector<std::string> &runtime, std::vector<std::string> &drv)
{
    int cidx = PAPI_get_component_index(CT_COMPONENT);
    if (cidx < 0)
        ct_fatal("PAPI_get_component_index(%s): %s", CT_COMPONENT, ct_papi_err(cidx));
    int code = 0 | PAPI_NATIVE_MASK;
    int rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
    while (rc == PAPI_OK) {
        char name[PAPI_MAX_STR_LEN];
        if (PAPI_event_code_to_name(code, name) != PAPI_OK)
            ct_fatal("PAPI_event_code_to_name(%#x) failed", code);
        const char *base = strstr(name, ":::") ? strstr(name, ":::") + 3 : name;
        size_t n = strlen(base);
        if (n > 6 && !strcmp(base + n - 6, ".calls") && !strchr(base, ':')) {
            if (!strncmp(base, "cuda", 4) || !strncmp(base, "__cuda", 6))
                runtime.push_back(base);
            else if (!strncmp(base, "cu", 2))
                drv.push_back(base);
        }
        rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx);
    }
}

static void cublas_part(void)
{
    void *lib = NULL;
    for (const char *name : {"libcublas.so", "libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != NULL)
            break;
    if (!lib) {
        ct_note("cuBLAS part skipped: dlopen(libcublas.so, libcublas.so.13, /usr/local/cuda/lib64/libcublas.so): %s",
                dlerror());
        return;
    }
    auto p_create = (decltype(&cublasCreate_v2))dlsym(lib, "cublasCreate_v2");
    auto p_destroy = (decltype(&cublasDestroy_v2))dlsym(lib, "cublasDestroy_v2");
    auto p_sgemm = (decltype(&cublasSgemm_v2))dlsym(lib, "cublasSgemm_v2");
    if (!p_create || !p_destroy || !p_sgemm)
        ct_fatal("libcublas.so lacks cublasCreate_v2, cublasDestroy_v2 or cublasSgemm_v2");

    const int n = 64;
    float *a, *b, *c;
    CUDA_MUST(cudaMalloc(&a, n * n * sizeof(float)));
    CUDA_MUST(cudaMalloc(&b, n * n * sizeof(float)));
    CUDA_MUST(cudaMalloc(&c, n * n * sizeof(float)));
    CUDA_MUST(cudaMemset(a, 0, n * n * sizeof(float)));
    CUDA_MUST(cudaMemset(b, 0, n * n * sizeof(float)));
    CUDA_MUST(cudaMemset(c, 0, n * n * sizeof(float)));
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t handle;
    cublasStatus_t st = p_create(&handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        ct_fatal("cublasCreate: status %d", (int)st);
    st = p_sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n); /* warm-up */
    if (st != CUBLAS_STATUS_SUCCESS)
        ct_fatal("warm-up cublasSgemm: status %d", (int)st);
    CUDA_MUST(cudaDeviceSynchronize());

    std::vector<std::string> runtime, drv;
    function_events(runtime, drv);
    ct_note("cuBLAS: %zu runtime and %zu driver .calls events", runtime.size(), drv.size());
    CHECK_REL("runtime .calls events listed", runtime.size(), ">", 100);
    CHECK_REL("driver .calls events listed", drv.size(), ">", 100);

    std::vector<helper> helpers(1);
    helpers[0].names = {"api.calls", "kernel.launches"};
    for (const std::vector<std::string> *list : {&runtime, &drv})
        for (size_t i = 0; i < list->size(); i += PER_SET) {
            helper h;
            h.names.assign(list->begin() + i, list->begin() + std::min(list->size(), i + PER_SET));
            helpers.push_back(h);
        }
    unsigned nthreads = (unsigned)helpers.size();
    ct_note("cuBLAS: %u helper threads", nthreads);
    pthread_barrier_init(&g_started, NULL, nthreads + 1);
    pthread_barrier_init(&g_done, NULL, nthreads + 1);
    for (helper &h : helpers)
        if (pthread_create(&h.t, NULL, helper_main, &h))
            ct_fatal("pthread_create failed");
    pthread_barrier_wait(&g_started);
    st = p_sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
    pthread_barrier_wait(&g_done);
    for (helper &h : helpers)
        pthread_join(h.t, NULL);
    pthread_barrier_destroy(&g_started);
    pthread_barrier_destroy(&g_done);
    CHECK_EQ("measured cublasSgemm: status (CUBLAS_STATUS_SUCCESS = 0)", (int)st, (int)CUBLAS_STATUS_SUCCESS);
    CUDA_MUST(cudaDeviceSynchronize());

    long long api = helpers[0].values[0], launches = helpers[0].values[1];
    long long R = 0, R_internal = 0, D = 0, L = 0, driver_launches = 0;
    for (size_t k = 1; k < helpers.size(); k++)
        for (size_t i = 0; i < helpers[k].names.size(); i++) {
            const std::string &name = helpers[k].names[i];
            long long v = helpers[k].values[i];
            if (v)
                ct_note("cuBLAS: %s = %lld", name.c_str(), v);
            bool is_runtime = !name.compare(0, 4, "cuda") || !name.compare(0, 6, "__cuda");
            if (!is_runtime)
                D += v;
            else if (!name.compare(0, 6, "__cuda"))
                R_internal += v;
            else
                R += v;
            for (const char *x : k_driver_launches)
                if (name == x)
                    driver_launches += v;
            for (const char *x : k_runtime_launches)
                if (name == x)
                    L += v;
        }
    ct_note("cuBLAS: api.calls = %lld, kernel.launches = %lld, R = %lld, __cuda* = %lld, D = %lld, L = %lld", api,
            launches, R, R_internal, D, L);
    CHECK_EQ("cuBLAS: kernel.launches == sum of the driver launch entry points' .calls", launches, driver_launches);
    CHECK_REL("cuBLAS: kernel.launches", launches, ">=", 1);
    CHECK_REL("cuBLAS: api.calls >= R (runtime calls not named __cuda*)", api, ">=", R);
    CHECK_REL("cuBLAS: api.calls <= R + D - L", api, "<=", R + D - L);

    p_destroy(handle);
    CUDA_MUST(cudaFree(a));
    CUDA_MUST(cudaFree(b));
    CUDA_MUST(cudaFree(c));
    /* libcublas stays loaded: it registers exit handlers. */
}

int main()
{
    ct_gpu_ready(1);
    empty<<<1, 1>>>(0); /* warm-up: module load, the stub's __cudaGetKernel */
    CUDA_MUST(cudaGetLastError());
    CUDA_MUST(cudaDeviceSynchronize());

    chevrons("one <<<>>>", 1);
    chevrons("10 <<<>>>", 10);

    ct_region("5 cudaLaunchKernel",
              {{"api.calls", 5},
               {"__cudaPushCallConfiguration.calls", 0},
               {"__cudaPopCallConfiguration.calls", 0},
               {"cudaLaunchKernel.calls", 5},
               {"kernel.launches", 5}},
              [&] { ct_launch(5, 0); });
    CUDA_MUST(cudaDeviceSynchronize());
    ct_region("3 <<<>>> and 2 cudaGetDevice", {{"api.calls", 5}, {"kernel.launches", 3}}, [&] {
        int dev;
        for (int i = 0; i < 3; i++)
            empty<<<1, 1>>>(i);
        CUDA_MUST(cudaGetDevice(&dev));
        CUDA_MUST(cudaGetDevice(&dev));
    });
    CUDA_MUST(cudaGetLastError());
    CUDA_MUST(cudaDeviceSynchronize());

    cublas_part();

    PAPI_shutdown();
    return ct_done();
}
