/*
 * gpu_metrics: cupti_cb's hardware metrics through PAPI, with values that can be checked.
 *
 *   bytes      dram__bytes_read.sum over 1, 2 and 3 kernels that each stream B = 256 MiB from
 *              device memory: within 0.5% of k x B.
 *   inst       smsp__inst_executed.sum of a fixed kernel: the same in every run, and exactly
 *              n x one for n launches in one range.
 *   time       gpu__time_duration.sum against CUDA events recorded around the same work.
 *   reads      PAPI_read after each of 3 kernels: each read is the total so far, and the last
 *              equals an unbroken range of the same 3 kernels within 0.5%; PAPI_reset and
 *              PAPI_accum behave as for every event.
 *   mixed      one set of a callback event and metrics: kernel.launches exact, bytes right.
 *   threads    two threads, each with its own set on device 0 (different metrics), both count
 *              the work of the device in their window, exactly: no PAPI_ECNFLCT.
 *   churn      20 start/stop pairs of one set: each window exact (the set holds its metrics
 *              from its first start, so a pair costs two samples, not a reconfiguration).
 *   passes     a set needing two passes is refused at PAPI_add_event with PAPI_ECNFLCT.
 *   groups     every metric group of cupti_cb_metric_groups is added (one pass) and read.
 *   late       (own process) the set starts before the application has any context; the
 *              context created afterwards is profiled.
 *   device1    dram__bytes_read.sum:device=1 on the second GPU counts its kernels and not
 *              device 0's (needs two GPUs, else SKIP of that case only).
 *   ncu        (own process, no PAPI) runs the stream and fixed kernels once each, for Nsight
 *              Compute to measure the same metrics (ctests/gpu/ncu-crosscheck.sh);
 *   values     (own process) prints our values of the same metrics for the same kernels.
 */
#include "ctest_util.h"

#include <cmath>

/* The groups' table itself, as cupti_cb_metric_groups prints it. */
#include "cupti_cb_metric_group_table.c"

#define B_BYTES (256ull << 20)

#include "gpu_kernels.h"

struct gpu_bufs {
    float4 *src;
    float *sink;
    unsigned *out;
};

static gpu_bufs alloc_bufs(void)
{
    gpu_bufs b;
    CUDA_MUST(cudaMalloc(&b.src, B_BYTES));
    CUDA_MUST(cudaMemset(b.src, 0, B_BYTES));
    CUDA_MUST(cudaMalloc(&b.sink, sizeof(float)));
    CUDA_MUST(cudaMalloc(&b.out, 64 * 128 * sizeof(unsigned)));
    /* One read of the whole buffer first: the memset leaves dirty lines in the L2 that a first
     * measured kernel would read from the L2 instead of DRAM (0.46% less on an H100). */
    stream_read<<<1024, 256>>>(b.src, B_BYTES / sizeof(float4), b.sink);
    CUDA_MUST(cudaDeviceSynchronize());
    return b;
}

static void stream(const gpu_bufs &b, int k)
{
    for (int i = 0; i < k; i++)
        stream_read<<<1024, 256>>>(b.src, B_BYTES / sizeof(float4), b.sink);
    CUDA_MUST(cudaGetLastError());
}

static void fixed(const gpu_bufs &b, int n)
{
    for (int i = 0; i < n; i++)
        fixed_work<<<64, 128>>>(b.out, 1000);
    CUDA_MUST(cudaGetLastError());
}

static double as_double(long long v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static int within(const char *what, double got, double want, double rel)
{
    double off = want ? fabs(got - want) / want : fabs(got);
    return ct_result(off <= rel, "%s: got %.0f, want %.0f +- %.2f%% (off by %.4f%%)", what, got, want, rel * 100,
                     off * 100);
}


static void bytes_case(const gpu_bufs &b)
{
    for (int k = 1; k <= 3; k++) {
        long long v[1];
        int es = ct_started({"dram__bytes_read.sum"});
        stream(b, k);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_stop(es, v));
        ct_destroy(&es);
        char what[128];
        snprintf(what, sizeof what, "dram__bytes_read.sum, %d kernel%s streaming 256 MiB", k, k > 1 ? "s" : "");
        within(what, (double)v[0], (double)(k * B_BYTES), 0.005);
    }
}

static long long inst_of(const gpu_bufs &b, int n)
{
    long long v[1];
    int es = ct_started({"smsp__inst_executed.sum"});
    fixed(b, n);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    return v[0];
}

static void inst_case(const gpu_bufs &b)
{
    long long one = inst_of(b, 1);
    ct_note("smsp__inst_executed.sum of one fixed_work: %lld", one);
    CHECK_REL("smsp__inst_executed.sum of one fixed_work", one, ">", 0);
    for (int run = 2; run <= 3; run++)
        CHECK_EQ("smsp__inst_executed.sum of fixed_work, again", inst_of(b, 1), one);
    for (int n : {2, 5, 10}) {
        char what[96];
        snprintf(what, sizeof what, "smsp__inst_executed.sum of %d launches = %d x one", n, n);
        CHECK_EQ(what, inst_of(b, n), n * one);
    }
}

static double host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void time_case(const gpu_bufs &b)
{
    cudaEvent_t e0, e1;
    long long v[1];
    float ms = 0;
    CUDA_MUST(cudaEventCreate(&e0));
    CUDA_MUST(cudaEventCreate(&e1));
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "gpu__time_duration.sum"));
    double t_start = host_ns();
    PAPI_MUST(PAPI_start(es));
    double t0 = host_ns();
    CUDA_MUST(cudaEventRecord(e0));
    stream(b, 3);
    CUDA_MUST(cudaEventRecord(e1));
    double t1 = host_ns();
    CUDA_MUST(cudaDeviceSynchronize());
    double t2 = host_ns();
    PAPI_MUST(PAPI_stop(es, v));
    double t3 = host_ns();
    ct_destroy(&es);
    CUDA_MUST(cudaEventElapsedTime(&ms, e0, e1));
    double ev_ns = ms * 1e6;
    /* The range begins in the start, before the first event, and ends in the stop, after the
     * last: its duration is the events' interval plus at most the host's time from the call
     * of the start to the first event's record and from the synchronization's return to the
     * stop's (the GPU idles meanwhile), plus 50 us. Those host times vary from run to run
     * (the range was 36 to 51 us longer than the events on one H100), so they are measured. */
    double lead = t0 - t_start, tail = t3 - t2;
    ct_note("gpu__time_duration.sum %lld ns, CUDA events %.0f ns; host: start to first event %.0f ns, "
            "synchronized to stopped %.0f ns, the launches %.0f ns", v[0], ev_ns, lead, tail, t1 - t0);
    ct_result(v[0] >= ev_ns * 0.98 && v[0] <= ev_ns + lead + tail + 50000,
              "gpu__time_duration.sum agrees with CUDA events: %lld ns against %.0f ns (-2%% .. + host's "
              "start and stop + 50 us)", v[0], ev_ns);
    CUDA_MUST(cudaEventDestroy(e0));
    CUDA_MUST(cudaEventDestroy(e1));
}

static void reads_case(const gpu_bufs &b)
{
    long long v[2], prev = 0, acc[2] = {0, 0};
    int es = ct_started({"dram__bytes_read.sum", "dram__bytes_read.sum.per_second"});
    for (int k = 1; k <= 3; k++) {
        stream(b, 1);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_read(es, v));
        char what[96];
        snprintf(what, sizeof what, "PAPI_read after %d kernel%s: the total so far", k, k > 1 ? "s" : "");
        within(what, (double)v[0], (double)(k * B_BYTES), 0.005);
        CHECK_REL("reads never go down", v[0], ">=", prev);
        prev = v[0];
    }
    /* Reads with no CUDA call since the last one: nothing can have changed, and the read
     * skips the profiler's sample (a stop and start of the range, about 13 ms). */
    struct timespec t0, t1;
    long long idle[2];
    clock_gettime(CLOCK_MONOTONIC, &t0);
    PAPI_MUST(PAPI_read(es, idle));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double idle_us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    CHECK_EQ("a read with no CUDA call since the last: the same total", idle[0], prev);
    ct_note("a read with no CUDA call since the last took %.1f us", idle_us);
    CHECK_REL("and it skips the sample (us)", (long long)idle_us, "<", 2000);
    stream(b, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_read(es, v));
    within("the next kernel after the idle read is counted", (double)(v[0] - prev), (double)B_BYTES, 0.005);
    PAPI_MUST(PAPI_stop(es, v));
    ct_note("rate over the 4 reads: %.4g B/s", as_double(v[1]));
    long long pieces = v[0] - (long long)B_BYTES; /* the 4th kernel, after the idle read */
    es = (ct_destroy(&es), ct_started({"dram__bytes_read.sum"}));
    stream(b, 3);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    within("3 kernels read in 3 pieces = one unbroken range", (double)pieces, (double)v[0], 0.005);

    /* PAPI_reset: counting starts again from the reset. */
    es = ct_started({"dram__bytes_read.sum"});
    stream(b, 2);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_reset(es));
    stream(b, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_read(es, v));
    within("after PAPI_reset, only the kernel that followed", (double)v[0], (double)B_BYTES, 0.005);
    /* PAPI_accum adds the values so far and resets. */
    PAPI_MUST(PAPI_accum(es, acc));
    stream(b, 2);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_accum(es, acc));
    within("PAPI_accum over 1 + 2 kernels", (double)acc[0], (double)(3 * B_BYTES), 0.005);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
}

static long long stream_inst;
static long long inst_of_stream(const gpu_bufs &b)
{
    if (!stream_inst) {
        long long v[1];
        int es = ct_started({"smsp__inst_executed.sum"});
        stream(b, 2);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_stop(es, v));
        ct_destroy(&es);
        stream_inst = v[0];
    }
    return stream_inst;
}

static void mixed_case(const gpu_bufs &b)
{
    long long v[3];
    int es = ct_started({"kernel.launches", "dram__bytes_read.sum", "smsp__inst_executed.sum"});
    stream(b, 2);
    fixed(b, 3);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    CHECK_EQ("mixed set: kernel.launches", v[0], 5);
    within("mixed set: dram__bytes_read.sum of 2 stream kernels", (double)v[1], 2.0 * B_BYTES, 0.01);
    CHECK_EQ("mixed set: smsp__inst_executed.sum = 3 fixed + 2 stream kernels",
             v[2], 3 * inst_of(b, 1) + inst_of_stream(b));
}

static pthread_barrier_t bar;
struct thread_arg {
    const gpu_bufs *b;
    const char *metric;
    int runs_work;
    long long value;
};

/* Both threads start their set, wait for each other, thread 1 runs 2 stream kernels, and both
 * stop once the work is done: each set counts the device's work in its window, whichever
 * thread issued it. */
static void *thread_main(void *p)
{
    thread_arg *a = (thread_arg *)p;
    long long v[1];
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_started({a->metric});
    pthread_barrier_wait(&bar);
    if (a->runs_work) {
        stream(*a->b, 2);
        CUDA_MUST(cudaDeviceSynchronize());
    }
    pthread_barrier_wait(&bar);
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    a->value = v[0];
    return NULL;
}

static void threads_case(const gpu_bufs &b)
{
    pthread_t t[2];
    long long want_inst = inst_of_stream(b);
    thread_arg a[2] = {{&b, "dram__bytes_read.sum", 1, 0}, {&b, "smsp__inst_executed.sum", 0, 0}};
    pthread_barrier_init(&bar, NULL, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, &a[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    within("thread 1's set: dram__bytes_read.sum of its 2 kernels", (double)a[0].value, 2.0 * B_BYTES, 0.005);
    CHECK_EQ("thread 2's set on the same GPU: smsp__inst_executed.sum of thread 1's 2 kernels", a[1].value,
             want_inst);
}

static void churn_case(const gpu_bufs &b)
{
    long long one = inst_of(b, 1), v[1];
    int es = PAPI_NULL, bad = 0;
    PAPI_MUST(PAPI_create_eventset(&es));
    PAPI_MUST(ct_add(es, "smsp__inst_executed.sum"));
    for (int i = 0; i < 20; i++) {
        PAPI_MUST(PAPI_start(es));
        fixed(b, 1 + i % 3);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_stop(es, v));
        bad += v[0] != (1 + i % 3) * one;
        fixed(b, 1); /* between windows: never counted */
        CUDA_MUST(cudaDeviceSynchronize());
    }
    ct_destroy(&es);
    CHECK_EQ("20 start/stop windows of one set, each exact", bad, 0);
}

static void passes_case(void)
{
    int es = PAPI_NULL;
    PAPI_MUST(PAPI_create_eventset(&es));
    CHECK_PAPI(ct_add(es, "dram__bytes_read.sum"));
    int rc = ct_add(es, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    CHECK_EQ("a metric that makes the set need several passes: PAPI_ECNFLCT at add", rc, PAPI_ECNFLCT);
    CHECK_EQ("the set keeps its event", PAPI_num_events(es), 1);
    ct_destroy(&es);
}

static void groups_case(const gpu_bufs &b)
{
    for (unsigned g = 0; g < cupti_cb_n_metric_groups; g++) {
        int es = PAPI_NULL, n = 0, bad = 0;
        long long v[CT_MAX_EVENTS];
        PAPI_MUST(PAPI_create_eventset(&es));
        for (const char *const *m = cupti_cb_metric_group_table[g].metrics; *m; m++, n++)
            bad |= ct_add(es, *m) != PAPI_OK;
        char what[128];
        snprintf(what, sizeof what, "group %s: its %d metrics are added (one pass)", cupti_cb_metric_group_table[g].name, n);
        CHECK_TRUE(what, !bad);
        if (bad || PAPI_start(es) != PAPI_OK) {
            ct_result(0, "group %s starts", cupti_cb_metric_group_table[g].name);
            ct_destroy(&es);
            continue;
        }
        stream(b, 1);
        fixed(b, 1);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_stop(es, v));
        for (int i = 0; i < n; i++) {
            PAPI_event_info_t info;
            int code;
            char full[256];
            PAPI_event_name_to_code(ct_full_name(cupti_cb_metric_group_table[g].metrics[i], full, sizeof full), &code);
            PAPI_get_event_info(code, &info);
            double x = info.data_type == PAPI_DATATYPE_FP64 ? as_double(v[i]) : (double)v[i];
            ct_note("  %s = %.6g %s", cupti_cb_metric_group_table[g].metrics[i], x, info.units);
            snprintf(what, sizeof what, "group %s: %s is a finite value >= 0", cupti_cb_metric_group_table[g].name,
                     cupti_cb_metric_group_table[g].metrics[i]);
            CHECK_TRUE(what, std::isfinite(x) && x >= 0);
        }
        if (!strcmp(cupti_cb_metric_group_table[g].name, "memory"))
            within("group memory: dram__bytes_read.sum of one stream kernel", (double)v[0], (double)B_BYTES, 0.01);
        ct_destroy(&es);
    }
}

/* No context before PAPI_start: the one the runtime creates afterwards is profiled. */
static int late_case(void)
{
    require_gpu(1);
    ct_library_init();
    long long v[1];
    int es = ct_started({"dram__bytes_read.sum:device=0"});
    gpu_bufs b = alloc_bufs(); /* creates the primary context, after the start; reads B once */
    stream(b, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    within("a context created after PAPI_start is profiled: dram__bytes_read.sum of alloc_bufs' read and "
           "one kernel", (double)v[0], 2.0 * B_BYTES, 0.01);
    ct_destroy(&es);
    return ct_done();
}

static void device1_case(int n_devices)
{
    if (n_devices < 2) {
        ct_note("device1: SKIP, needs 2 GPUs, found %d", n_devices);
        return;
    }
    long long v[2];
    ct_use_device(1);
    gpu_bufs b1 = alloc_bufs();
    ct_use_device(0);
    gpu_bufs b0 = alloc_bufs();
    int es = ct_started({"dram__bytes_read.sum:device=1", "dram__bytes_read.sum:device0"});
    CUDA_MUST(cudaSetDevice(1));
    stream(b1, 2);
    CUDA_MUST(cudaDeviceSynchronize());
    CUDA_MUST(cudaSetDevice(0));
    stream(b0, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    ct_destroy(&es);
    within(":device=1 counts device 1's 2 kernels", (double)v[0], 2.0 * B_BYTES, 0.005);
    within(":device0 counts device 0's kernel", (double)v[1], (double)B_BYTES, 0.005);
}

/* Our values of the cross-checked metrics for one stream kernel and one fixed kernel, each in
 * a range of its own: "<kernel> <metric> <value>" lines for ncu-crosscheck. */
static int values_case(void)
{
    static const char *const metrics[] = {"dram__bytes_read.sum", "smsp__inst_executed.sum", "gpu__time_duration.sum"};
    ct_gpu_ready(0);
    gpu_bufs b = alloc_bufs();
    for (int kernel = 0; kernel < 2; kernel++) {
        long long v[3];
        int es = ct_started({metrics[0], metrics[1], metrics[2]});
        if (kernel == 0)
            stream(b, 1);
        else
            fixed(b, 1);
        CUDA_MUST(cudaDeviceSynchronize());
        PAPI_MUST(PAPI_stop(es, v));
        ct_destroy(&es);
        for (int i = 0; i < 3; i++)
            printf("%s %s %lld\n", kernel ? "fixed_work" : "stream_read", metrics[i], v[i]);
    }
    return 0;
}

/* The same kernels as above, once each, without PAPI: for ncu --metrics. */
static int ncu_case(void)
{
    require_gpu(1);
    ct_use_device(0);
    gpu_bufs b = alloc_bufs();
    stream(b, 1);
    fixed(b, 1);
    CUDA_MUST(cudaDeviceSynchronize());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "late"))
        return late_case();
    if (argc > 1 && !strcmp(argv[1], "ncu"))
        return ncu_case();
    if (argc > 1 && !strcmp(argv[1], "values"))
        return values_case();
    int n = require_gpu(1);
    CHECK_EQ("a context created after the start is profiled (own process)", ct_run_self(argv[0], "late", NULL, NULL),
             0);
    ct_gpu_ready(1);
    gpu_bufs b = alloc_bufs();
    bytes_case(b);
    inst_case(b);
    time_case(b);
    reads_case(b);
    mixed_case(b);
    threads_case(b);
    churn_case(b);
    passes_case();
    groups_case(b);
    device1_case(n);
    return ct_done();
}
