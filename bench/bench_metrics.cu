/* bench_metrics: what a hardware-metric event costs and what it reads, for
 * one PAPI component in one process.  The same source is built twice: against
 * the PAPI that holds cupti_cb (bench_metrics) and against an installed
 * upstream PAPI whose `cuda` component reads the same CUPTI metrics
 * (bench_metrics_upstream, configure --with-upstream-papi=DIR).
 * run-metrics-bench runs both, one process per measurement, interleaved.
 *
 *   bench_metrics --part=P [--component=cupti_cb|cuda] [--metrics=M1,M2,...]
 *                 [--events=E1,E2,...] [--device=N] [--mib=N] [--iters=N]
 *                 [--max-seconds=S]
 *
 * --metrics are CUPTI metric names with their rollup ("dram__bytes_read.sum");
 * each becomes the component's event name:
 *   cupti_cb   cupti_cb:::dram__bytes_read.sum:device=0
 *   cuda       cuda:::dram__bytes_read:stat=sum:device=0  (the rollup word is
 *              taken out of the name and given as the stat qualifier, as the
 *              cuda component lists its events)
 * --events gives the event names themselves instead (same order as --metrics,
 * which still names the rows).  Default metrics: dram__bytes_read.sum,
 * smsp__inst_executed.sum, gpu__time_duration.sum; default component: the one
 * of the PAPI the program was built against.
 *
 * Parts (each in a fresh process; times from CLOCK_MONOTONIC):
 *   names      the event names only (no PAPI, no GPU)
 *       event comp=C metric=M name=E
 *   listing    the full listing as papi_native_avail does it: PAPI_enum_cmp_event
 *              over the component (PAPI_ENUM_FIRST, PAPI_ENUM_EVENTS), then
 *              PAPI_get_event_info on each event and on each of its qualifiers
 *              (PAPI_NTV_ENUM_UMASKS); nothing printed per event.  CUDA is not
 *              initialized by the program.  --max-seconds stops it early
 *              (complete=0).  native_events: the count the component gives
 *              PAPI (PAPI_get_component_info), for a listing stopped early.
 *       listing comp=C events=N qualifiers=Q info_failed=F first_ms=X total_s=Y complete=0|1
 *               native_events=M
 *   init       PAPI_library_init, then the first PAPI_event_name_to_code of the
 *              first event (the component's delayed initialization), then a
 *              second lookup (the last event); CUDA not initialized before.
 *       init comp=C library_init_ms=X first_lookup_ms=Y next_lookup_ms=Z
 *   add        CUDA initialized first (cudaSetDevice + cudaFree(0), timed as
 *              cuda_init_ms), then
 *              PAPI_library_init, PAPI_create_eventset, and the first
 *              PAPI_add_named_event (of the first event: lookup, delayed
 *              initialization and add), then the other events.
 *       add comp=C cuda_init_ms=W library_init_ms=X first_add_ms=Y next_adds_ms=Z
 *   startstop  all events added, then --iters PAPI_start/PAPI_stop pairs around
 *              an empty range (no GPU work between them); the first pair apart,
 *              the median of the others.
 *       startstop comp=C first_start_ms=.. first_stop_ms=.. start_ms=.. stop_ms=.. iters=N
 *   read       all events added and started; --iters times: the streaming
 *              kernel, cudaDeviceSynchronize, then one PAPI_read (timed); the
 *              first read apart, the median and the lowest of the others.
 *       read comp=C first_read_ms=.. read_ms=.. read_min_ms=.. iters=N
 *   values     all events added; PAPI_start, the streaming kernel, synchronize,
 *              PAPI_read (mid), the kernel again, synchronize, PAPI_stop (end):
 *              for a .sum, end is the sum over both kernels.
 *       value comp=C metric=M mid=X end=Y type=int|fp event=E
 *       kernel comp=C mib=N blocks=B threads=T first_ms=X second_ms=Y
 *
 * The streaming kernel reads --mib MiB (default 256) of float4 with a grid-
 * stride loop over a fixed grid (8 blocks of 256 threads per multiprocessor)
 * and writes nothing (the buffer is zero; a store guarded by a value it never
 * takes keeps the loads).  It runs once before any PAPI_start (module load,
 * first-touch).  Exit 0 on success, 1 on any failure (the message on stderr),
 * 77 without a GPU. */
#include <cuda_runtime.h>

#include "bench_util.h"

#ifndef BENCH_DEFAULT_COMPONENT
#define BENCH_DEFAULT_COMPONENT "cupti_cb"
#endif

#define MAX_METRICS 16
#define NAME_LEN 512
#define DEFAULT_METRICS "dram__bytes_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum"

static const char *g_comp;
static int g_device;
static int g_n;
static char g_metric[MAX_METRICS][NAME_LEN];
static char g_event[MAX_METRICS][NAME_LEN];

static double ms_since(uint64_t t0)
{
    return (double)(now_ns() - t0) / 1e6;
}

/* ---------------------------------------------------------------- event names */

/* The rollups the cuda component takes out of a metric name as :stat=. */
static int is_stat_word(const char *w, size_t n)
{
    static const char *const STATS[] = {"avg", "sum", "min", "max", "max_rate", "pct", "ratio"};
    for (size_t i = 0; i < sizeof STATS / sizeof STATS[0]; i++)
        if (strlen(STATS[i]) == n && strncmp(STATS[i], w, n) == 0)
            return 1;
    return 0;
}

/* "smsp__inst_executed.sum.per_second" -> base "smsp__inst_executed.per_second",
 * stat "sum" (the last dot-separated word that is a stat); stat "" when none. */
static void split_stat(const char *metric, char *base, size_t blen, char *stat, size_t slen)
{
    const char *words[32];
    size_t lens[32];
    int n = 0, s = -1;
    for (const char *p = metric; *p && n < 32;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        words[n] = p;
        lens[n] = len;
        if (is_stat_word(p, len))
            s = n;
        n++;
        p += len + (dot ? 1 : 0);
    }
    size_t b = 0;
    base[0] = '\0';
    stat[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i == s) {
            snprintf(stat, slen, "%.*s", (int)lens[i], words[i]);
            continue;
        }
        b += (size_t)snprintf(base + b, b < blen ? blen - b : 0, "%s%.*s", b ? "." : "",
                              (int)lens[i], words[i]);
    }
}

static void make_event_name(const char *metric, char *out, size_t len)
{
    int n;
    if (strcmp(g_comp, "cuda") == 0) {
        char base[NAME_LEN], stat[64];
        split_stat(metric, base, sizeof base, stat, sizeof stat);
        if (stat[0])
            n = snprintf(out, len, "cuda:::%s:stat=%s:device=%d", base, stat, g_device);
        else
            n = snprintf(out, len, "cuda:::%s:device=%d", base, g_device);
    } else {
        n = snprintf(out, len, "%s:::%s:device=%d", g_comp, metric, g_device);
    }
    if (n < 0 || (size_t)n >= len)
        die("event name for metric %s is too long", metric);
}

/* Splits a comma-separated list into out[0..max), returns the count. */
static int split_list(const char *list, char out[][NAME_LEN], int max)
{
    int n = 0;
    const char *p = list;
    while (*p && n < max) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len > 0)
            snprintf(out[n++], NAME_LEN, "%.*s", (int)len, p);
        p += len + (c ? 1 : 0);
    }
    return n;
}

/* ---------------------------------------------------------------- PAPI helpers */

static double library_init(void)
{
    uint64_t t0 = now_ns();
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    double ms = ms_since(t0);
    if (v != PAPI_VER_CURRENT)
        die("PAPI_library_init: %s", v < 0 ? PAPI_strerror(v) : "version mismatch");
    if (PAPI_get_component_index(g_comp) < 0)
        die("component %s is not in this PAPI", g_comp);
    return ms;
}

/* " (component disabled: why)" when PAPI says the component cannot be used. */
static const char *disabled_reason(void)
{
    static char buf[PAPI_HUGE_STR_LEN + 64];
    int cid = PAPI_get_component_index(g_comp);
    const PAPI_component_info_t *ci = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
    if (!ci || !ci->disabled || ci->disabled == PAPI_EDELAY_INIT)
        return "";
    snprintf(buf, sizeof buf, " (component disabled: %s)", ci->disabled_reason);
    return buf;
}

static void add_event(int es, int i)
{
    int rc = PAPI_add_named_event(es, g_event[i]);
    if (rc != PAPI_OK)
        die("PAPI_add_named_event(%s): %s%s", g_event[i], PAPI_strerror(rc), disabled_reason());
}

static int eventset_all(void)
{
    int es = PAPI_NULL;
    PAPI_CHECK(PAPI_create_eventset(&es));
    for (int i = 0; i < g_n; i++)
        add_event(es, i);
    return es;
}

static void cuda_init(void)
{
    CUDA_CHECK(cudaSetDevice(g_device));
    CUDA_CHECK(cudaFree(0));
}

/* ---------------------------------------------------------------- the kernel */

__global__ void stream_read(const float4 *__restrict__ in, size_t n, float *out)
{
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
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
    int blocks, threads;
    size_t mib;
};

static void stream_setup(struct stream *s, size_t mib)
{
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g_device));
    s->mib = mib;
    s->n = mib * (1u << 20) / sizeof(float4);
    s->threads = 256;
    s->blocks = 8 * sms;
    CUDA_CHECK(cudaMalloc((void **)&s->in, s->n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&s->out, (size_t)s->blocks * sizeof(float)));
    CUDA_CHECK(cudaMemset(s->in, 0, s->n * sizeof(float4)));
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* One run of the kernel, synchronized; returns its wall time in ms. */
static double stream_run(const struct stream *s)
{
    uint64_t t0 = now_ns();
    stream_read<<<s->blocks, s->threads>>>(s->in, s->n, s->out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    return ms_since(t0);
}

static void stream_free(struct stream *s)
{
    CUDA_CHECK(cudaFree(s->in));
    CUDA_CHECK(cudaFree(s->out));
}

/* ---------------------------------------------------------------- parts */

static void part_listing(double max_s)
{
    library_init();
    int cid = PAPI_get_component_index(g_comp);
    PAPI_event_info_t info;
    long events = 0, quals = 0, failed = 0;
    int complete = 1;
    int code = 0 | PAPI_NATIVE_MASK;

    uint64_t t0 = now_ns();
    int rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid);
    double first_ms = ms_since(t0);
    if (rc != PAPI_OK)
        die("PAPI_enum_cmp_event(PAPI_ENUM_FIRST) on %s: %s%s", g_comp, PAPI_strerror(rc),
            disabled_reason());
    do {
        memset(&info, 0, sizeof info);
        if (PAPI_get_event_info(code, &info) != PAPI_OK) {
            failed++;
            continue;
        }
        events++;
        int k = code;
        if (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid) == PAPI_OK) {
            do {
                memset(&info, 0, sizeof info);
                if (PAPI_get_event_info(k, &info) == PAPI_OK)
                    quals++;
                else
                    failed++;
            } while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cid) == PAPI_OK);
        }
        if (max_s > 0 && (double)(now_ns() - t0) / 1e9 > max_s) {
            complete = 0;
            break;
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid) == PAPI_OK);
    double total_s = (double)(now_ns() - t0) / 1e9;
    const PAPI_component_info_t *ci = PAPI_get_component_info(cid);
    printf("listing comp=%s events=%ld qualifiers=%ld info_failed=%ld first_ms=%.3f total_s=%.3f "
           "complete=%d native_events=%d\n",
           g_comp, events, quals, failed, first_ms, total_s, complete, ci ? ci->num_native_events : -1);
}

static void part_init(void)
{
    double lib_ms = library_init();
    int code;
    uint64_t t0 = now_ns();
    int rc = PAPI_event_name_to_code(g_event[0], &code);
    double first_ms = ms_since(t0);
    if (rc != PAPI_OK)
        die("PAPI_event_name_to_code(%s): %s%s", g_event[0], PAPI_strerror(rc), disabled_reason());
    t0 = now_ns();
    rc = PAPI_event_name_to_code(g_event[g_n - 1], &code);
    double next_ms = ms_since(t0);
    if (rc != PAPI_OK)
        die("PAPI_event_name_to_code(%s): %s", g_event[g_n - 1], PAPI_strerror(rc));
    printf("init comp=%s library_init_ms=%.3f first_lookup_ms=%.3f next_lookup_ms=%.3f\n", g_comp,
           lib_ms, first_ms, next_ms);
}

static void part_add(void)
{
    /* cudaSetDevice creates the primary context already (CUDA 12 and later) */
    uint64_t t0 = now_ns();
    CUDA_CHECK(cudaSetDevice(g_device));
    CUDA_CHECK(cudaFree(0));
    double cuda_ms = ms_since(t0);
    double lib_ms = library_init();
    int es = PAPI_NULL;
    PAPI_CHECK(PAPI_create_eventset(&es));
    t0 = now_ns();
    add_event(es, 0);
    double first_ms = ms_since(t0);
    t0 = now_ns();
    for (int i = 1; i < g_n; i++)
        add_event(es, i);
    double next_ms = ms_since(t0);
    printf("add comp=%s cuda_init_ms=%.3f library_init_ms=%.3f first_add_ms=%.3f next_adds_ms=%.3f\n",
           g_comp, cuda_ms, lib_ms, first_ms, next_ms);
}

static void part_startstop(int iters)
{
    long long v[MAX_METRICS];
    double start_ms[1024], stop_ms[1024];
    if (iters < 2)
        iters = 2;
    if (iters > 1024)
        iters = 1024;
    cuda_init();
    library_init();
    int es = eventset_all();
    for (int i = 0; i < iters; i++) {
        uint64_t t0 = now_ns();
        PAPI_CHECK(PAPI_start(es));
        uint64_t t1 = now_ns();
        PAPI_CHECK(PAPI_stop(es, v));
        uint64_t t2 = now_ns();
        start_ms[i] = (double)(t1 - t0) / 1e6;
        stop_ms[i] = (double)(t2 - t1) / 1e6;
    }
    printf("startstop comp=%s first_start_ms=%.3f first_stop_ms=%.3f start_ms=%.3f stop_ms=%.3f "
           "iters=%d\n",
           g_comp, start_ms[0], stop_ms[0], quantile(start_ms + 1, (size_t)iters - 1, 0.5),
           quantile(stop_ms + 1, (size_t)iters - 1, 0.5), iters);
}

static void part_read(int iters, size_t mib)
{
    long long v[MAX_METRICS];
    double read_ms[1024];
    struct stream s;
    if (iters < 2)
        iters = 2;
    if (iters > 1024)
        iters = 1024;
    cuda_init();
    stream_setup(&s, mib);
    stream_run(&s);
    library_init();
    int es = eventset_all();
    PAPI_CHECK(PAPI_start(es));
    for (int i = 0; i < iters; i++) {
        stream_run(&s);
        uint64_t t0 = now_ns();
        PAPI_CHECK(PAPI_read(es, v));
        read_ms[i] = ms_since(t0);
    }
    PAPI_CHECK(PAPI_stop(es, v));
    stream_free(&s);
    double first = read_ms[0];
    double med = quantile(read_ms + 1, (size_t)iters - 1, 0.5);
    double lo = quantile(read_ms + 1, (size_t)iters - 1, 0.0);
    printf("read comp=%s first_read_ms=%.3f read_ms=%.3f read_min_ms=%.3f iters=%d\n", g_comp, first,
           med, lo, iters);
}

static void print_value(char *buf, size_t len, long long v, int fp)
{
    if (fp) {
        double d;
        memcpy(&d, &v, sizeof d);
        snprintf(buf, len, "%.6f", d);
    } else {
        snprintf(buf, len, "%lld", v);
    }
}

static void part_values(size_t mib)
{
    long long mid[MAX_METRICS], end[MAX_METRICS];
    struct stream s;
    cuda_init();
    stream_setup(&s, mib);
    stream_run(&s);
    library_init();
    int es = eventset_all();
    PAPI_CHECK(PAPI_start(es));
    double k1 = stream_run(&s);
    PAPI_CHECK(PAPI_read(es, mid));
    double k2 = stream_run(&s);
    PAPI_CHECK(PAPI_stop(es, end));
    for (int i = 0; i < g_n; i++) {
        PAPI_event_info_t info;
        int code, fp = 0;
        char a[64], b[64];
        memset(&info, 0, sizeof info);
        if (PAPI_event_name_to_code(g_event[i], &code) == PAPI_OK &&
            PAPI_get_event_info(code, &info) == PAPI_OK)
            fp = info.data_type == PAPI_DATATYPE_FP64;
        print_value(a, sizeof a, mid[i], fp);
        print_value(b, sizeof b, end[i], fp);
        printf("value comp=%s metric=%s mid=%s end=%s type=%s event=%s\n", g_comp, g_metric[i], a, b,
               fp ? "fp" : "int", g_event[i]);
    }
    printf("kernel comp=%s mib=%zu blocks=%d threads=%d first_ms=%.3f second_ms=%.3f\n", g_comp, s.mib,
           s.blocks, s.threads, k1, k2);
    stream_free(&s);
}

int main(int argc, char **argv)
{
    const char *part = opt_str(argc, argv, "part", NULL);
    g_comp = opt_str(argc, argv, "component", BENCH_DEFAULT_COMPONENT);
    g_device = atoi(opt_str(argc, argv, "device", "0"));
    int iters = atoi(opt_str(argc, argv, "iters", "10"));
    long mib = atol(opt_str(argc, argv, "mib", "256"));
    double max_s = atof(opt_str(argc, argv, "max-seconds", "0"));
    if (!part)
        die("usage: %s --part=names|listing|init|add|startstop|read|values [--component=cupti_cb|cuda] "
            "[--metrics=M,...] [--events=E,...] [--device=N] [--mib=N] [--iters=N] [--max-seconds=S]",
            argv[0]);
    if (mib < 1)
        die("--mib must be at least 1");

    g_n = split_list(opt_str(argc, argv, "metrics", DEFAULT_METRICS), g_metric, MAX_METRICS);
    if (g_n == 0)
        die("--metrics is empty");
    const char *events = opt_str(argc, argv, "events", NULL);
    if (events) {
        if (split_list(events, g_event, MAX_METRICS) != g_n)
            die("--events must name as many events as --metrics (%d)", g_n);
    } else {
        for (int i = 0; i < g_n; i++)
            make_event_name(g_metric[i], g_event[i], NAME_LEN);
    }

    if (strcmp(part, "names") == 0) { /* no PAPI, no GPU */
        for (int i = 0; i < g_n; i++)
            printf("event comp=%s metric=%s name=%s\n", g_comp, g_metric[i], g_event[i]);
        return 0;
    }
    /* listing and init measure a process that has not touched CUDA:
     * cudaGetDeviceCount (bench_require_gpu) would initialize it. */
    if (strcmp(part, "listing") == 0 || strcmp(part, "init") == 0) {
        char why[768];
        if (!bench_gpu_present(why, sizeof why)) {
            fprintf(stderr, "bench: no NVIDIA GPU on this machine: nothing to measure\n");
            return 77;
        }
    } else {
        bench_require_gpu();
    }
    if (strcmp(part, "listing") == 0)
        part_listing(max_s);
    else if (strcmp(part, "init") == 0)
        part_init();
    else if (strcmp(part, "add") == 0)
        part_add();
    else if (strcmp(part, "startstop") == 0)
        part_startstop(iters);
    else if (strcmp(part, "read") == 0)
        part_read(iters, (size_t)mib);
    else if (strcmp(part, "values") == 0)
        part_values((size_t)mib);
    else
        die("unknown --part=%s", part);
    fflush(stdout);
    PAPI_shutdown();
    return 0;
}
