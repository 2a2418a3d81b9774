/*
 * gpu_run_inject: the injected library (libcupti_cb_inject.so) on a GPU, without the runner:
 * a program is run with CUDA_INJECTION64_PATH and CUPTI_CB_RUN_DIR, and its process file must
 * hold the exact counts of src/demo/cupti_cb_demo.h.  Built four times (INJ_MODE):
 *
 *   gpu_run_demo     cupti_cb_demo, static CUDA runtime (nvcc's default)
 *   gpu_run_shared   the same program linked with the shared CUDA runtime (inj_demo_shared)
 *   gpu_run_driver   a driver-API-only program (inj_driver_app: cuModuleLoadData, cuLaunchKernel)
 *   gpu_run_threads  cupti_cb_demo threads: 4 threads, known launches each; process totals, and
 *                    the file's per-thread rows (each worker found by its copy's size: exactly its
 *                    launches, bytes, GPU kernels and calls, the first launcher's including the
 *                    module's lazy loading; the rows add up to the totals)
 *   gpu_run_metrics  cupti_cb_demo --pause-ms=1000 with CUPTI_CB_RUN_METRICS=dram__bytes_read.sum,
 *                    smsp__inst_executed.sum (what cupti_cb --metrics asks for): the metrics
 *                    start on the library's thread after the program's first GPU work (the
 *                    demo's first cudaMalloc, after which it waits 1 s); both are in "metrics"
 *                    for device 0 and > 0 (the demo's kernels and copies come after the wait),
 *                    and every exact count of gpu_run_demo is unchanged
 *
 * The library and the programs are looked for next to this program: in the build tree
 * (../src/inject/.libs, ../src/demo) or in the installed prefix (<prefix>/lib/cupti_cb,
 * <prefix>/libexec/cupti_cb).  Exits 77 (SKIP) only where there is no GPU.
 *
 * Every CUDA function has its row (the library spreads the per-function events over several
 * event sets), so a missing row is a failure.
 */
#include "ctest_util.h"
#include "inject_check.h"

#include "cupti_cb_demo.h"

#define MODE_DEMO 1
#define MODE_SHARED 2
#define MODE_DRIVER 3
#define MODE_THREADS 4
#define MODE_METRICS 5

static json_t *doc;

static void check_func(const char *func, long long want)
{
    char label[200];
    snprintf(label, sizeof label, "api %s.calls", func);
    CHECK_EQ(label, inj_api(doc, func, "calls"), want);
}

static void check_dev(const char *event, long long want)
{
    char label[200];
    snprintf(label, sizeof label, "device 0 %s", event);
    CHECK_EQ(label, inj_dev(doc, 0, event), want);
}

/* gpu.* events: the activity source works on every GPU these tests run on, so they must be there. */
static void check_gpu(const char *event, long long want)
{
    check_dev(event, want);
}

/* The new per-call events: a function called at least once has a minimum no larger than its
 * maximum, and a maximum no larger than its total time. */
static void check_minmax(const char *func)
{
    char label[200];
    long long lo = inj_api(doc, func, "min_ns"), hi = inj_api(doc, func, "max_ns"),
              total = inj_api(doc, func, "time_ns");
    snprintf(label, sizeof label, "api %s: 0 < min_ns %lld <= max_ns %lld <= time_ns %lld", func, lo, hi, total);
    ct_result(lo > 0 && lo <= hi && hi <= total, "%s", label);
}

static void check_demo(void)
{
    check_func("cudaMalloc", 3);
    check_func("cudaMemcpy", DEMO_MEMCPY_CALLS);
    check_func("cudaMemset", 1);
    check_func("cudaLaunchKernel", DEMO_LAUNCHES);
    check_func("cudaGraphCreate", 1);
    check_func("cudaGraphAddKernelNode", DEMO_GRAPH_NODES);
    check_func("cudaGraphInstantiate", 1);
    check_func("cudaGraphLaunch", DEMO_GRAPH_LAUNCHES);
    check_func("cudaStreamSynchronize", 1);
    check_func("cudaDeviceSynchronize", 1);
    check_func("cudaFree", 3);
    check_dev("kernel.launches", DEMO_LAUNCHES);
    check_dev("graph.launches", DEMO_GRAPH_LAUNCHES);
    check_dev("memcpy.calls", DEMO_MEMCPY_CALLS);
    check_dev("memcpy.bytes_htod", DEMO_HTOD_BYTES);
    check_dev("memcpy.bytes_dtoh", DEMO_BYTES_DTOH);
    check_dev("memcpy.bytes_dtod", 0);
    check_dev("memcpy.bytes_peer", 0);
    check_dev("memset.calls", 1);
    check_dev("memset.bytes", DEMO_BYTES_MEMSET);
    check_dev("alloc.calls", 3);
    check_dev("alloc.bytes", DEMO_ALLOC_BYTES);
    check_dev("free.calls", 3);
    check_dev("free.bytes", DEMO_ALLOC_BYTES);
    check_dev("sync.calls", DEMO_SYNC_CALLS);
    check_dev("kernel.threads", (long long)DEMO_LAUNCHES * DEMO_GRID * DEMO_BLOCK);
    check_dev("kernel.launches_legacy_stream", DEMO_LAUNCHES);
    check_dev("kernel.launches_other_stream", 0);
    check_dev("alloc.peak_bytes", DEMO_ALLOC_BYTES);
    check_minmax("cudaMemcpy");
    check_minmax("cudaMalloc");
#if INJ_MODE == MODE_METRICS
    /* CUPTI's range profiler runs kernels of its own (2 on an H100 at 4734310), which the GPU
     * activity sees like any other: process-scope gpu.kernels counts them too. */
    long long k = inj_dev(doc, 0, "gpu.kernels");
    ct_result(k >= DEMO_GPU_KERNELS, "device 0 gpu.kernels: %lld, the demo's %d and the range profiler's %lld",
              k, DEMO_GPU_KERNELS, k - DEMO_GPU_KERNELS);
#else
    check_gpu("gpu.kernels", DEMO_GPU_KERNELS);
#endif
    check_gpu("gpu.memcpy.count", DEMO_MEMCPY_CALLS);
    check_gpu("gpu.memcpy.bytes_htod", DEMO_HTOD_BYTES);
    check_gpu("gpu.memcpy.bytes_dtoh", DEMO_BYTES_DTOH);
    check_gpu("gpu.memset.count", 1);
    check_gpu("gpu.memset.bytes", DEMO_BYTES_MEMSET);
}

static void check_threads(void)
{
    check_func("cudaLaunchKernel", DEMO_T_THREADS * DEMO_T_LAUNCHES);
    check_func("cudaMemcpy", DEMO_T_THREADS);
    check_func("cudaDeviceSynchronize", DEMO_T_THREADS);
    check_func("cudaMalloc", 1);
    check_func("cudaFree", 1);
    check_dev("kernel.launches", DEMO_T_THREADS * DEMO_T_LAUNCHES);
    check_dev("memcpy.calls", DEMO_T_THREADS);
    check_dev("memcpy.bytes_htod", DEMO_T_HTOD_BYTES);
    check_dev("alloc.calls", 1);
    check_dev("alloc.bytes", DEMO_T_BUF);
    check_dev("free.calls", 1);
    check_dev("sync.calls", DEMO_T_THREADS);
    check_gpu("gpu.kernels", DEMO_T_THREADS * DEMO_T_LAUNCHES);
    check_gpu("gpu.memcpy.bytes_htod", DEMO_T_HTOD_BYTES);
}

/* The "threads" rows: one per worker (found by the bytes it copied), and the main thread's. */
static void check_thread_rows(pid_t pid)
{
    json_t *threads = json_object_get(doc, "threads"), *t;
    size_t i;
    char label[200];
    long long calls = 0;
    int main_seen = 0, seen[DEMO_T_THREADS] = {0}, loaders = 0;
    long long module_loading = inj_api(doc, "cuLibraryLoadData", "calls") + inj_api(doc, "cuLibraryGetKernel", "calls");
    CHECK_EQ("the module is loaded once (cuLibraryLoadData, cuLibraryGetKernel)", module_loading, 2);
    CHECK_EQ("threads: the main thread and the workers", json_array_size(threads), DEMO_T_THREADS + 1);
    json_array_foreach(threads, i, t) {
        json_t *ev = json_object_get(t, "events");
        long long tid = inj_int(json_object_get(t, "tid")), bytes = inj_int(json_object_get(ev, "memcpy.bytes"));
        const char *name = json_string_value(json_object_get(t, "name"));
        ct_note("thread %lld '%s': api.calls %lld, kernel.launches %lld, memcpy.bytes %lld, gpu.kernels %lld", tid,
                name ? name : "?", inj_int(json_object_get(ev, "api.calls")),
                inj_int(json_object_get(ev, "kernel.launches")), bytes, inj_int(json_object_get(ev, "gpu.kernels")));
        calls += inj_int(json_object_get(ev, "api.calls"));
        CHECK_TRUE("a row is not shared", json_is_false(json_object_get(t, "shared")));
        if (tid == pid) {
            main_seen++;
            CHECK_EQ("main thread: kernel.launches", inj_int(json_object_get(ev, "kernel.launches")), 0);
            continue;
        }
        int w = (int)(bytes / DEMO_T_CHUNK) - 1;
        snprintf(label, sizeof label, "thread %lld: memcpy.bytes %lld is a worker's (t + 1) x %d", tid, bytes,
                 DEMO_T_CHUNK);
        CHECK_TRUE(label, w >= 0 && w < DEMO_T_THREADS && bytes == (long long)(w + 1) * DEMO_T_CHUNK);
        if (w < 0 || w >= DEMO_T_THREADS)
            continue;
        seen[w]++;
        snprintf(label, sizeof label, "worker %d: kernel.launches", w);
        CHECK_EQ(label, inj_int(json_object_get(ev, "kernel.launches")), DEMO_T_LAUNCHES);
        snprintf(label, sizeof label, "worker %d: gpu.kernels", w);
        CHECK_EQ(label, inj_int(json_object_get(ev, "gpu.kernels")), DEMO_T_LAUNCHES);
        /* The worker whose launch came first in the process also loaded the module (CUDA's lazy
         * loading: cuLibraryLoadData and cuLibraryGetKernel, driver calls made outside any
         * runtime call, so application calls). */
        long long own = inj_int(json_object_get(ev, "api.calls")) - (1 + DEMO_T_LAUNCHES + 1 + 1);
        snprintf(label, sizeof label, "worker %d: api.calls: cudaSetDevice, the launches, cudaMemcpy, "
                 "cudaDeviceSynchronize (+ the module's loading if first): %lld more", w, own);
        CHECK_TRUE(label, own == 0 || own == module_loading);
        loaders += own != 0;
        snprintf(label, sizeof label, "worker %d: exited", w);
        CHECK_TRUE(label, json_is_true(json_object_get(t, "exited")));
    }
    CHECK_EQ("the main thread has a row (tid = pid)", main_seen, 1);
    CHECK_EQ("one worker loaded the module", loaders, 1);
    for (int w = 0; w < DEMO_T_THREADS; w++) {
        snprintf(label, sizeof label, "worker %d has one row", w);
        CHECK_EQ(label, seen[w], 1);
    }
    CHECK_EQ("the rows' api.calls add up to totals api.calls", calls, inj_total(doc, "api.calls"));
}

static void check_driver(void)
{
    check_func("cuModuleLoadData", 1);
    check_func("cuLaunchKernel", DEMO_D_LAUNCHES);
    check_func("cuMemAlloc", 1);
    check_func("cuMemcpyHtoD", 1);
    check_func("cuMemcpyDtoH", 1);
    check_func("cuCtxSynchronize", 1);
    check_func("cuMemFree", 1);
    CHECK_TRUE("no runtime function has a row",
               inj_api(doc, "cudaLaunchKernel", "calls") < 0 && inj_api(doc, "cudaMemcpy", "calls") < 0);
    check_dev("kernel.launches", DEMO_D_LAUNCHES);
    check_dev("memcpy.calls", 2);
    check_dev("memcpy.bytes_htod", DEMO_D_BYTES);
    check_dev("memcpy.bytes_dtoh", DEMO_D_BYTES);
    check_dev("alloc.calls", 1);
    check_dev("alloc.bytes", DEMO_D_BYTES);
    check_dev("free.calls", 1);
    check_dev("free.bytes", DEMO_D_BYTES);
    check_dev("sync.calls", 1);
    check_dev("kernel.threads", (long long)DEMO_D_LAUNCHES * DEMO_D_GRID * DEMO_D_BLOCK);
    check_gpu("gpu.kernels", DEMO_D_LAUNCHES);
    check_gpu("gpu.memcpy.bytes_htod", DEMO_D_BYTES);
    check_gpu("gpu.memcpy.bytes_dtoh", DEMO_D_BYTES);
}

/* The metrics entry of name on device 0 (its value, or -1 when it is not there). */
static double metric_value(const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "metrics"), i, m) {
        json_t *v = json_object_get(m, "value");
        if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name) &&
            inj_int(json_object_get(m, "device")) == 0)
            return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
    }
    return -1;
}

static void check_metrics(void)
{
    static const char *const names[] = {"dram__bytes_read.sum", "smsp__inst_executed.sum"};
    CHECK_EQ("metrics: two on each device", json_array_size(json_object_get(doc, "metrics")),
             2 * json_array_size(json_object_get(doc, "devices")));
    for (unsigned i = 0; i < 2; i++) {
        double v = metric_value(names[i]);
        ct_result(v > 0, "%s on device 0: %.0f > 0", names[i], v);
    }
    const char *note = inj_note(doc, "hardware metrics counted from the program's first allocation, copy, memset or kernel launch");
    ct_result(note != NULL, "a note says when the metrics started: %s", note ? note : "(none)");
    CHECK_TRUE("no note says the metrics were not collected", !inj_note(doc, "not collected"));
    /* The driver calls cupti_cb makes for the metrics (the session's contexts), on the library's
     * thread, are not the program's: no thread of the library has a row. */
    json_t *t;
    size_t i;
    int library_rows = 0;
    json_array_foreach(json_object_get(doc, "threads"), i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        if (name && !strcmp(name, "cupti_cb_run")) {
            library_rows++;
            char *row = json_dumps(t, JSON_COMPACT);
            ct_note("a thread of the library has a row: %.600s", row ? row : "?");
            free(row);
        }
    }
    CHECK_EQ("threads of the library with counted calls", library_rows, 0);
}

int main(void)
{
    char why[768], here[PATH_MAX], lib_b[PATH_MAX + 64], lib_i[PATH_MAX + 64], prog_b[PATH_MAX + 64],
        prog_i[PATH_MAX + 64];
    if (!gpu_present(why, sizeof why))
        ct_skip("no NVIDIA GPU on this machine (no /proc/driver/nvidia/gpus entry, no /dev/nvidiactl, "
                "nvidia-smi lists none, no NVIDIA PCI display controller)");
    ct_note("GPU: %s", why);
    inj_self_dir(here, sizeof here);
    snprintf(lib_b, sizeof lib_b, "%s/../src/inject/.libs/libcupti_cb_inject.so", here);
    snprintf(lib_i, sizeof lib_i, "%s/../../../lib/cupti_cb/libcupti_cb_inject.so", here);
    const char *const libs[] = {lib_b, lib_i, NULL};
    const char *lib = inj_first_existing(libs);
    if (!lib)
        ct_fatal("libcupti_cb_inject.so is neither at %s nor at %s", lib_b, lib_i);
    char *arg1 = NULL;
#if INJ_MODE == MODE_DEMO || INJ_MODE == MODE_THREADS || INJ_MODE == MODE_METRICS
    snprintf(prog_b, sizeof prog_b, "%s/../src/demo/cupti_cb_demo", here);
    snprintf(prog_i, sizeof prog_i, "%s/../cupti_cb_demo", here);
#if INJ_MODE == MODE_THREADS
    arg1 = (char *)"threads";
#elif INJ_MODE == MODE_METRICS
    arg1 = (char *)"--pause-ms=1000";	/* the metrics start some 200 ms after the first GPU work */
#endif
#elif INJ_MODE == MODE_SHARED
    snprintf(prog_b, sizeof prog_b, "%s/inj_demo_shared", here);
    snprintf(prog_i, sizeof prog_i, "%s/inj_demo_shared", here);
#elif INJ_MODE == MODE_DRIVER
    snprintf(prog_b, sizeof prog_b, "%s/inj_driver_app", here);
    snprintf(prog_i, sizeof prog_i, "%s/inj_driver_app", here);
#else
#error "INJ_MODE"
#endif
    const char *const progs[] = {prog_b, prog_i, NULL};
    const char *prog = inj_first_existing(progs);
    if (!prog)
        ct_fatal("the program is neither at %s nor at %s", prog_b, prog_i);
    ct_note("library %s", lib);
    ct_note("program %s%s%s", prog, arg1 ? " " : "", arg1 ? arg1 : "");
    char *argv[] = {(char *)prog, arg1, NULL};
    struct inj_run r;
    static const char *const env[] = {"CUPTI_CB_RUN_TRACE=1",
#if INJ_MODE == MODE_METRICS
                                      "CUPTI_CB_RUN_METRICS=dram__bytes_read.sum,smsp__inst_executed.sum",
#endif
                                      NULL};
    inj_run(&r, lib, argv, env);
    inj_show_stderr(&r);
    CHECK_EQ("the program's exit status", r.status, 0);
    inj_check_frame(&r, prog);
    doc = r.doc;
    const char *reason = inj_reason(doc);
    ct_result(inj_counting(doc), "status.counting is true (reason: %s)", reason ? reason : "null");
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(doc, "notes"), i, n)
        ct_note("note: %s", json_string_value(n));
    ct_note("totals api.calls %lld (the runtime's own calls at start-up included)", inj_total(doc, "api.calls"));
    if (INJ_MODE == MODE_THREADS) {
        check_threads();
        check_thread_rows(r.pid);
    }
    else if (INJ_MODE == MODE_DRIVER)
        check_driver();
    else
        check_demo();
    if (INJ_MODE == MODE_METRICS)
        check_metrics();
    inj_done(&r);
    return ct_done();
}
