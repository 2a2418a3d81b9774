/* bench_sampling: what hardware metrics through CUPTI's PM sampling (cupti_cb's
 * ':sampled' events) cost, beside the callback source and the Range Profiler.
 * run-sampling-bench runs every part in processes of their own, rounds
 * interleaved, and makes the table.
 *
 *   bench_sampling --part=read --set=sampled|callback|range [--reads=N] [--device=N]
 *       PAPI_read latency, each read timed alone, minus the median cost of an
 *       empty pair of clock reads (timer_ns).  sampled: {dram__bytes_read.sum:
 *       sampled}, callback: {kernel.launches}: N reads (default 10000) after
 *       1000 warm-up reads, in batches of 1000, each batch begun by launching
 *       (not synchronizing) 4 streaming kernels, so that part of the reads meet
 *       the decode thread at work.  range: {dram__bytes_read.sum}, N reads
 *       (default 50), each after an empty kernel and cudaDeviceSynchronize (a
 *       Range Profiler read with no CUDA call since the last one would skip the
 *       sample).
 *       read set=S reads=N median_us=.. p99_us=.. min_us=.. max_us=.. timer_ns=..
 *   bench_sampling --part=app --mode=bare|callback|sampled [--launches=N]
 *                  [--stream-iters=K] [--mib=M] [--reps=R] [--device=N]
 *       The cost to the application: R repetitions (default 5) of two workloads,
 *       each timed from the first launch to the end of cudaDeviceSynchronize:
 *       N empty kernel launches (default 2000) and K streaming kernels over M
 *       MiB (defaults 50, 512).  bare: no PAPI at all; callback: a started set
 *       {kernel.launches}; sampled: a started set {dram__bytes_read.sum:sampled}
 *       at the interval CUPTI_CB_SAMPLING_INTERVAL_US gives (set by the runner).
 *       The set is checked at PAPI_stop (check=ok): every launch counted, or the
 *       bytes read within 5% of R x K x M MiB.
 *       app mode=M interval_us=I launches=N launch_ms=.. stream_iters=K mib=M stream_ms=.. reps=R check=..
 *   bench_sampling --part=tau --set=callback|sampled|range [--steps=N] [--device=N]
 *       A TAU-pattern step: enter three nested timers, one empty kernel launch
 *       and cudaStreamSynchronize, exit the three; each enter and exit is a
 *       PAPI_read + PAPI_reset whose values are added to the timer's (as TAU's
 *       PapiLayer does).  Sets: callback {kernel.launches}; sampled
 *       {kernel.launches, dram__bytes_read.sum:sampled}; range {kernel.launches,
 *       dram__bytes_read.sum}.  N steps (default 10000; 50 suit range) after
 *       N/10 warm-up steps; check=ok when the reads add up to every launch.
 *       tau set=S steps=N step_us=.. step_us_mean=.. step_us_p90=.. check=..
 *   bench_sampling --part=edges --set=sampled|exact|range [--reps=N] [--mib=M] [--device=N]
 *       What a window's edges cost right after synchronized work, as users call PAPI (no sleep):
 *       N repetitions (default 50) of 2 streaming kernels over M MiB (default 512), the
 *       synchronization, then the call timed alone: PAPI_start, and after 2 more kernels and the
 *       synchronization, in turn PAPI_stop alone, or PAPI_read (exact: CUPTI_CB_SAMPLING_EXACT=1, a
 *       read that cuts at its moment) before the stop.  sampled and exact: {dram__bytes_read.sum:sampled}; range:
 *       {dram__bytes_read.sum}.  check=ok when every stop counts the window's bytes within 2%.
 *       edges set=S reps=N start_ms=.. read_ms=.. stop_ms=.. check=..
 * Exit 0 on success, 1 on any failure (the message on stderr), 77 without a GPU. */
#include <cuda_runtime.h>

#include "bench_util.h"

static int g_device;

__global__ void empty_kernel(void) {}

__global__ void stream_read(const float4 *__restrict__ in, size_t n, float *out)
{
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.0f) /* never: the buffer is zero */
        out[blockIdx.x] = acc;
}

struct stream {
    float4 *in;
    float *out;
    size_t n;
    int blocks;
};

static void stream_setup(struct stream *s, size_t mib)
{
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g_device));
    s->n = mib * (1u << 20) / sizeof(float4);
    s->blocks = 8 * sms;
    CUDA_CHECK(cudaMalloc((void **)&s->in, s->n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&s->out, (size_t)s->blocks * sizeof(float)));
    CUDA_CHECK(cudaMemset(s->in, 0, s->n * sizeof(float4)));
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void stream_launch(const struct stream *s, int k)
{
    for (int i = 0; i < k; i++)
        stream_read<<<s->blocks, 256>>>(s->in, s->n, s->out);
    CUDA_CHECK(cudaGetLastError());
}

static void cuda_init(void)
{
    CUDA_CHECK(cudaSetDevice(g_device));
    CUDA_CHECK(cudaFree(0));
}

static void papi_init(void)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT)
        die("PAPI_library_init: %s", v < 0 ? PAPI_strerror(v) : "version mismatch");
}

/* A started set of the named cupti_cb events (metric names get :device=N). */
static int started(const char *const *names, int n)
{
    int es = PAPI_NULL;
    PAPI_CHECK(PAPI_create_eventset(&es));
    for (int i = 0; i < n; i++) {
        char full[PAPI_HUGE_STR_LEN];
        if (strstr(names[i], "__"))
            snprintf(full, sizeof full, "cupti_cb:::%s:device=%d", names[i], g_device);
        else
            snprintf(full, sizeof full, "cupti_cb:::%s", names[i]);
        int rc = PAPI_add_named_event(es, full);
        if (rc != PAPI_OK)
            die("PAPI_add_named_event(%s): %s (PAPI_VERBOSE=1 prints why)", full, PAPI_strerror(rc));
    }
    int rc = PAPI_start(es);
    if (rc != PAPI_OK)
        die("PAPI_start of %s...: %s (PAPI_VERBOSE=1 prints why)", names[0], PAPI_strerror(rc));
    return es;
}

static double g_timer_ns;
static void calibrate_timer(void)
{
    static double buf[10000];
    for (int i = 0; i < 10000; i++) {
        uint64_t t0 = now_ns();
        buf[i] = (double)(now_ns() - t0);
    }
    g_timer_ns = quantile(buf, 10000, 0.5);
}

/* A timed span in ns less the clock's own cost, in us (never below 0). */
static double net_us(double ns)
{
    return ns > g_timer_ns ? (ns - g_timer_ns) / 1e3 : 0.0;
}

/* A value as a double, for FP64 and integer events alike. */
static double value_of(int es, int i, long long v)
{
    int codes[8], n = 8;
    PAPI_event_info_t info;
    if (PAPI_list_events(es, codes, &n) == PAPI_OK && i < n && PAPI_get_event_info(codes[i], &info) == PAPI_OK &&
        info.data_type == PAPI_DATATYPE_FP64) {
        double d;
        memcpy(&d, &v, sizeof d);
        return d;
    }
    return (double)v;
}

/* ---------------------------------------------------------------- read */

static void part_read(const char *set, int reads)
{
    static const char *const SAMPLED[] = {"dram__bytes_read.sum:sampled"}, *const CALLBACK[] = {"kernel.launches"},
                             *const RANGE[] = {"dram__bytes_read.sum"};
    int range = !strcmp(set, "range");
    const char *const *names = range ? RANGE : !strcmp(set, "sampled") ? SAMPLED : !strcmp(set, "callback") ? CALLBACK : NULL;
    if (!names)
        die("--set must be sampled, callback or range");
    if (reads < 10)
        reads = 10;
    double *t = (double *)calloc((size_t)reads, sizeof *t);
    long long v[1];
    struct stream s;
    if (!t)
        die("out of memory");
    cuda_init();
    stream_setup(&s, 512);
    papi_init();
    calibrate_timer();
    int es = started(names, 1);
    if (range) {
        for (int i = 0; i < reads; i++) {
            empty_kernel<<<1, 1>>>();
            CUDA_CHECK(cudaDeviceSynchronize());
            uint64_t t0 = now_ns();
            PAPI_CHECK(PAPI_read(es, v));
            t[i] = (double)(now_ns() - t0);
        }
    } else {
        for (int i = 0; i < 1000; i++)
            PAPI_CHECK(PAPI_read(es, v));
        for (int i = 0; i < reads; i++) {
            if (i % 1000 == 0) {
                CUDA_CHECK(cudaDeviceSynchronize());
                stream_launch(&s, 4);
            }
            uint64_t t0 = now_ns();
            int rc = PAPI_read(es, v);
            t[i] = (double)(now_ns() - t0);
            if (rc != PAPI_OK)
                die("PAPI_read: %s", PAPI_strerror(rc));
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    PAPI_CHECK(PAPI_stop(es, v));
    printf("read set=%s reads=%d median_us=%.3f p99_us=%.3f min_us=%.3f max_us=%.3f timer_ns=%.0f\n", set, reads,
           net_us(quantile(t, (size_t)reads, 0.5)), net_us(quantile(t, (size_t)reads, 0.99)),
           net_us(quantile(t, (size_t)reads, 0.0)), net_us(quantile(t, (size_t)reads, 1.0)), g_timer_ns);
    free(t);
}

/* ---------------------------------------------------------------- app */

static void part_app(const char *mode, int launches, int iters, size_t mib, int reps)
{
    int bare = !strcmp(mode, "bare"), callback = !strcmp(mode, "callback"), sampled = !strcmp(mode, "sampled");
    if (!bare && !callback && !sampled)
        die("--mode must be bare, callback or sampled");
    if (reps < 1 || reps > 100)
        die("--reps must be 1 to 100");
    double launch_ms[100], stream_ms[100];
    struct stream s;
    cudaStream_t q;
    cuda_init();
    CUDA_CHECK(cudaStreamCreateWithFlags(&q, cudaStreamNonBlocking));
    stream_setup(&s, mib);
    for (int i = 0; i < 100; i++) /* module load and first launches out of the timing */
        empty_kernel<<<1, 1, 0, q>>>();
    stream_launch(&s, 1);
    CUDA_CHECK(cudaDeviceSynchronize());
    static const char *const CB[] = {"kernel.launches"}, *const SAMPLED[] = {"dram__bytes_read.sum:sampled"};
    int es = PAPI_NULL;
    if (!bare) {
        papi_init();
        es = started(sampled ? SAMPLED : CB, 1);
    }
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < launches; i++)
            empty_kernel<<<1, 1, 0, q>>>();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        launch_ms[r] = (double)(now_ns() - t0) / 1e6;
        t0 = now_ns();
        stream_launch(&s, iters);
        CUDA_CHECK(cudaDeviceSynchronize());
        stream_ms[r] = (double)(now_ns() - t0) / 1e6;
    }
    const char *check = "none";
    if (!bare) {
        long long v[1];
        /* No wait: a sampled stop ends its window by the samples' timestamps. */
        PAPI_CHECK(PAPI_stop(es, v));
        double want = callback ? (double)reps * (launches + iters) : (double)reps * iters * (double)(mib << 20);
        double got = value_of(es, 0, v[0]);
        check = callback ? (got == want ? "ok" : "FAIL") : (got >= 0.95 * want && got <= 1.05 * want ? "ok" : "FAIL");
        if (strcmp(check, "ok"))
            fprintf(stderr, "bench_sampling: app mode=%s: the set counted %.0f, want %.0f%s\n", mode, got, want,
                    callback ? "" : " +- 5%");
    }
    const char *iv = getenv("CUPTI_CB_SAMPLING_INTERVAL_US");
    printf("app mode=%s interval_us=%s launches=%d launch_ms=%.3f stream_iters=%d mib=%zu stream_ms=%.3f reps=%d "
           "check=%s\n",
           mode, sampled ? (iv && *iv ? iv : "500") : "-", launches, quantile(launch_ms, (size_t)reps, 0.5), iters, mib,
           quantile(stream_ms, (size_t)reps, 0.5), reps, check);
}

/* ---------------------------------------------------------------- tau */

#define TIMERS 3
static double g_acc[TIMERS][2];

/* A timer boundary as TAU's PapiLayer makes it: read, add to the timer, reset. */
static void boundary(int es, int timer, int n)
{
    long long v[2];
    PAPI_CHECK(PAPI_read(es, v));
    for (int i = 0; i < n; i++)
        g_acc[timer][i] += (double)v[i];
    PAPI_CHECK(PAPI_reset(es));
}

static void tau_step(int es, int n, cudaStream_t q)
{
    for (int t = 0; t < TIMERS; t++)
        boundary(es, t, n);
    empty_kernel<<<1, 1, 0, q>>>();
    CUDA_CHECK(cudaStreamSynchronize(q));
    for (int t = TIMERS - 1; t >= 0; t--)
        boundary(es, t, n);
}

static void part_tau(const char *set, int steps)
{
    static const char *const CB[] = {"kernel.launches"},
                             *const SAMPLED[] = {"kernel.launches", "dram__bytes_read.sum:sampled"},
                             *const RANGE[] = {"kernel.launches", "dram__bytes_read.sum"};
    const char *const *names = !strcmp(set, "callback") ? CB : !strcmp(set, "sampled") ? SAMPLED : !strcmp(set, "range") ? RANGE : NULL;
    if (!names)
        die("--set must be callback, sampled or range");
    int n = names == CB ? 1 : 2;
    if (steps < 10)
        steps = 10;
    double *t = (double *)calloc((size_t)steps, sizeof *t);
    cudaStream_t q;
    long long v[2];
    if (!t)
        die("out of memory");
    cuda_init();
    CUDA_CHECK(cudaStreamCreateWithFlags(&q, cudaStreamNonBlocking));
    empty_kernel<<<1, 1, 0, q>>>();
    CUDA_CHECK(cudaStreamSynchronize(q));
    papi_init();
    int es = started(names, n);
    for (int i = 0; i < steps / 10; i++)
        tau_step(es, n, q);
    PAPI_CHECK(PAPI_reset(es));
    memset(g_acc, 0, sizeof g_acc);
    double total = 0;
    for (int i = 0; i < steps; i++) {
        uint64_t t0 = now_ns();
        tau_step(es, n, q);
        t[i] = (double)(now_ns() - t0) / 1e3;
        total += t[i];
    }
    PAPI_CHECK(PAPI_stop(es, v));
    double launches = g_acc[0][0] + g_acc[1][0] + g_acc[2][0] + (double)v[0];
    const char *check = launches == steps ? "ok" : "FAIL";
    if (launches != steps)
        fprintf(stderr, "bench_sampling: tau set=%s: the reads add up to %.0f launches, want %d\n", set, launches, steps);
    double p90 = quantile(t, (size_t)steps, 0.9);
    printf("tau set=%s steps=%d step_us=%.3f step_us_mean=%.3f step_us_p90=%.3f check=%s\n", set, steps,
           quantile(t, (size_t)steps, 0.5), total / steps, p90, check);
    free(t);
}

/* ---------------------------------------------------------------- edges */

static void part_edges(const char *set, int reps, size_t mib)
{
    int range = !strcmp(set, "range");
    if (!range && strcmp(set, "sampled") && strcmp(set, "exact"))
        die("--set must be sampled, exact or range");
    if (!strcmp(set, "exact"))
        setenv("CUPTI_CB_SAMPLING_EXACT", "1", 1);
    if (reps < 3 || reps > 1000)
        die("--reps must be 3 to 1000");
    static const char *const SAMPLED[] = {"dram__bytes_read.sum:sampled"}, *const RANGE[] = {"dram__bytes_read.sum"};
    double *t_start = (double *)calloc((size_t)reps, sizeof(double)), *t_read = (double *)calloc((size_t)reps, sizeof(double)),
           *t_stop = (double *)calloc((size_t)reps, sizeof(double));
    if (!t_start || !t_read || !t_stop)
        die("out of memory");
    struct stream s;
    cuda_init();
    stream_setup(&s, mib);
    stream_launch(&s, 1);
    CUDA_CHECK(cudaDeviceSynchronize());
    papi_init();
    int es = PAPI_NULL, bad = 0;
    PAPI_CHECK(PAPI_create_eventset(&es));
    PAPI_CHECK(PAPI_add_named_event(es, range ? RANGE[0] : SAMPLED[0]));
    for (int r = 0; r < reps; r++) {
        long long v[1];
        stream_launch(&s, 2);
        CUDA_CHECK(cudaDeviceSynchronize());
        uint64_t t0 = now_ns();
        PAPI_CHECK(PAPI_start(es));
        t_start[r] = (double)(now_ns() - t0) / 1e6;
        stream_launch(&s, 2);
        CUDA_CHECK(cudaDeviceSynchronize());
        t0 = now_ns();
        if (r % 2) { /* odd repetitions time a read (then stop), even ones the stop alone */
            PAPI_CHECK(PAPI_read(es, v));
            t_read[r / 2] = (double)(now_ns() - t0) / 1e6;
            PAPI_CHECK(PAPI_stop(es, v));
        } else {
            PAPI_CHECK(PAPI_stop(es, v));
            t_stop[r / 2] = (double)(now_ns() - t0) / 1e6;
        }
        double got = value_of(es, 0, v[0]), want = 2.0 * (double)(mib << 20);
        if (got < 0.98 * want || got > 1.02 * want) {
            bad++;
            fprintf(stderr, "bench_sampling: edges set=%s: a stop counted %.0f bytes, want %.0f +- 2%%\n", set, got, want);
        }
    }
    printf("edges set=%s reps=%d start_ms=%.3f read_ms=%.4f stop_ms=%.3f check=%s\n", set, reps,
           quantile(t_start, (size_t)reps, 0.5), quantile(t_read, (size_t)(reps / 2), 0.5),
           quantile(t_stop, (size_t)((reps + 1) / 2), 0.5), bad ? "FAIL" : "ok");
    free(t_start), free(t_read), free(t_stop);
}

int main(int argc, char **argv)
{
    const char *part = opt_str(argc, argv, "part", NULL);
    g_device = atoi(opt_str(argc, argv, "device", "0"));
    if (!part)
        die("usage: %s --part=read|app|tau|edges [--set=S] [--mode=M] [--reads=N] [--steps=N] [--launches=N] "
            "[--stream-iters=K] [--mib=M] [--reps=R] [--device=N]",
            argv[0]);
    bench_require_gpu();
    if (!strcmp(part, "read"))
        part_read(opt_str(argc, argv, "set", "sampled"),
                  atoi(opt_str(argc, argv, "reads", !strcmp(opt_str(argc, argv, "set", ""), "range") ? "50" : "10000")));
    else if (!strcmp(part, "app"))
        part_app(opt_str(argc, argv, "mode", "bare"), atoi(opt_str(argc, argv, "launches", "2000")),
                 atoi(opt_str(argc, argv, "stream-iters", "50")), (size_t)atol(opt_str(argc, argv, "mib", "512")),
                 atoi(opt_str(argc, argv, "reps", "5")));
    else if (!strcmp(part, "tau"))
        part_tau(opt_str(argc, argv, "set", "callback"), atoi(opt_str(argc, argv, "steps", "10000")));
    else if (!strcmp(part, "edges"))
        part_edges(opt_str(argc, argv, "set", "sampled"), atoi(opt_str(argc, argv, "reps", "50")),
                   (size_t)atol(opt_str(argc, argv, "mib", "512")));
    else
        die("unknown --part=%s", part);
    fflush(stdout);
    if (strcmp(part, "app") || strcmp(opt_str(argc, argv, "mode", "bare"), "bare"))
        PAPI_shutdown();
    return 0;
}
