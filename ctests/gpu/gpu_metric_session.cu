/*
 * gpu_metric_session: hardware metrics collected by cupti_cb_metric_session on device 0, without PAPI:
 * the component's loader, profiler entry points, configuration and session are linked in
 * directly and driven as the component drives them.
 *
 *   - dram__bytes_read.sum over a kernel streaming B = 256 MiB lies within 0.5% of B,
 *     for 1, 2 and 3 kernels in one range;
 *   - smsp__inst_executed.sum of a fixed kernel is the same in repeated runs and exactly
 *     linear in launches;
 *   - the sum over mid-range samples equals an unbroken range (exactly, for that counter);
 *     the duration-weighted rate over samples equals bytes / GPU time;
 *   - a context created after collection started is enabled and waits (one range per device:
 *     CUPTI refuses a second start with CUPTI_ERROR_HARDWARE_BUSY); the collecting range counts
 *     its own context's work only (cupti_cb-metrics(7)'s contract: a metric counts the collecting
 *     context); dropping the collecting context collects it and hands collection over;
 *   - a union that needs several passes is refused with a sentence naming the passes,
 *     and collection goes on unchanged;
 *   - collection stops with the last reference and starts again with a new one;
 *   - a second session on the same context is refused with a sentence.
 * Prints the cost of a sample (it waits for the GPU).  Exit 77 only without a GPU.
 */
#include "ctest_util.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

extern "C" {
#include "cupti_cb_loader.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_metric_session.h"
#include "cupti_cb_profiler_api.h"
}

static const size_t B = 256u << 20; /* bytes read by one stream_read */

#include "gpu_kernels.h"

static struct cupti_cb_api api;
static struct cupti_cb_profiler_api prof;
static struct cupti_cb_metric_session S;
static char why[2048];
static float4 *dbuf;
static float *dout;
static unsigned *dwork;
static int stream_blocks;
static std::vector<double> sample_us;

enum { DRAM, INST, RATE, NMET };
static const char *met_names[NMET] = {"dram__bytes_read.sum", "smsp__inst_executed.sum",
                                      "dram__bytes_read.sum.per_second"};
static const int met_additive[NMET] = {1, 1, 0};
static unsigned ids[NMET];

static void must(int rc, const char *what)
{
    if (rc)
        ct_fatal("%s: error %d: %s", what, rc, why);
}

static void launch_stream(int k)
{
    for (int i = 0; i < k; i++)
        stream_read<<<stream_blocks, 256>>>(dbuf, B / sizeof(float4), dout);
    CUDA_MUST(cudaGetLastError());
}

static void launch_fixed(int k)
{
    for (int i = 0; i < k; i++)
        fixed_work<<<64, 128>>>(dwork, 1000);
    CUDA_MUST(cudaGetLastError());
}

static void timed_sample()
{
    auto t0 = std::chrono::steady_clock::now();
    must(cupti_cb_metric_session_sample(&S, why, sizeof why), "cupti_cb_metric_session_sample");
    auto t1 = std::chrono::steady_clock::now();
    sample_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
}

struct snap {
    cupti_cb_profiler_total t[NMET];
    double gpu_ns;
};

static snap read_totals()
{
    snap s;
    for (int i = 0; i < NMET; i++)
        if (cupti_cb_metric_session_total(&S, ids[i], &s.t[i]))
            ct_fatal("cupti_cb_metric_session_total(%s) failed", met_names[i]);
    s.gpu_ns = S.gpu_ns;
    return s;
}

/* Brings the totals up to date, then reads them. */
static snap take()
{
    timed_sample();
    return read_totals();
}

static double value(const snap &a, const snap &b, int m)
{
    return cupti_cb_profiler_total_value(&a.t[m], &b.t[m], met_additive[m]);
}

/* The values of one range holding work() and nothing else. */
template <class F>
static snap region(F work, snap *before = nullptr)
{
    snap a = take();
    work();
    CUDA_MUST(cudaDeviceSynchronize());
    snap b = take();
    if (before)
        *before = a;
    snap d = b;
    for (int m = 0; m < NMET; m++) {
        d.t[m].count = 0; /* the window's value is all in sum */
        d.t[m].sum = value(a, b, m);
        d.t[m].weight = b.t[m].weight - a.t[m].weight;
    }
    d.gpu_ns = b.gpu_ns - a.gpu_ns;
    return d;
}

static long long exact(double v, const char *what)
{
    long long r = llround(v);
    if ((double)r != v)
        ct_result(0, "%s: %.3f is not an integer", what, v);
    return r;
}

static void set_up()
{
    int sms = 0;
    require_gpu(1);
    ct_use_device(0);
    CUDA_MUST(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    stream_blocks = sms * 8;
    CUDA_MUST(cudaMalloc(&dbuf, B));
    CUDA_MUST(cudaMemset(dbuf, 0, B));
    CUDA_MUST(cudaMalloc(&dout, sizeof(float)));
    CUDA_MUST(cudaMalloc(&dwork, 64 * 128 * sizeof(unsigned)));
    launch_stream(1); /* module loading and first-touch stay out of every range */
    launch_fixed(1);
    CUDA_MUST(cudaDeviceSynchronize());

    if (cupti_cb_load_cupti(&api, why, sizeof why) || cupti_cb_load_cuda(&api, why, sizeof why) ||
        cupti_cb_profiler_api_load(&prof, api.cupti_lib, why, sizeof why))
        ct_fatal("loading CUPTI and the driver: %s", why);
    /* The caller keeps the profiler initialized while sessions exist (the metric source does,
     * only then: an initialized profiler makes every launch dearer); the session asks for the
     * chip itself. */
    CUpti_Profiler_Initialize_Params ip = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
    if (prof.cuptiProfilerInitialize(&ip) != CUPTI_SUCCESS)
        ct_fatal("cuptiProfilerInitialize failed");
    must(cupti_cb_metric_session_init(&S, &api, &prof, 0, NULL, why, sizeof why), "cupti_cb_metric_session_init");
    ct_note("device 0: chip %s, %d SMs, libcupti %s", S.chip, sms, api.cupti_path);
}

static void test_adopt_and_want()
{
    must(cupti_cb_metric_session_adopt_current(&S, why, sizeof why), "cupti_cb_metric_session_adopt_current");
    CHECK_EQ("contexts adopted (the primary context, current)", S.n_ctxs, 1);
    must(cupti_cb_metric_session_want(&S, met_names, met_additive, NMET, ids, why, sizeof why), "cupti_cb_metric_session_want");
    CHECK_TRUE("the session runs after want", S.running);
    CHECK_EQ("configured metrics (weight + 3)", S.cfg.n, 4);
    CHECK_EQ("passes", S.cfg.passes, 1);
}

static void test_dram_bytes()
{
    for (int k = 1; k <= 3; k++) {
        snap d = region([&] { launch_stream(k); });
        double want = (double)k * B, got = d.t[DRAM].sum;
        double err = std::fabs(got - want) / want;
        ct_result(err <= 0.005, "dram__bytes_read.sum, %d stream_read kernel%s of %zu bytes in one range: got "
                  "%.0f, want %.0f +- 0.5%% (off by %.4f%%)", k, k > 1 ? "s" : "", B, got, want, 100 * err);
        /* One segment: the weighted rate is CUPTI's rate of that range, bytes / time. */
        double rate = d.t[RATE].sum, expect = got / d.gpu_ns * 1e9;
        ct_result(std::fabs(rate - expect) <= 1e-6 * expect, "dram__bytes_read.sum.per_second, %d kernel%s: "
                  "got %.6g B/s, bytes / gpu__time_duration %.6g B/s (GPU time %.0f ns)", k, k > 1 ? "s" : "",
                  rate, expect, d.gpu_ns);
    }
}

static long long test_inst_linear()
{
    long long one = exact(region([] { launch_fixed(1); }).t[INST].sum, "smsp__inst_executed.sum, 1 launch");
    /* 256 warps; the compiler unrolls the loop, so at least 100 instructions a warp, not 1000. */
    CHECK_REL("smsp__inst_executed.sum of one fixed_work (256 warps, 1000 iterations)", one, ">", 256 * 100);
    for (int run = 2; run <= 4; run++) {
        long long v = exact(region([] { launch_fixed(1); }).t[INST].sum, "run");
        char name[128];
        snprintf(name, sizeof name, "smsp__inst_executed.sum of fixed_work, run %d, equals run 1", run);
        CHECK_EQ(name, v, one);
    }
    for (int k : {2, 5, 10}) {
        long long v = exact(region([&] { launch_fixed(k); }).t[INST].sum, "k launches");
        char name[128];
        snprintf(name, sizeof name, "smsp__inst_executed.sum of %d launches in one range = %d x one", k, k);
        CHECK_EQ(name, v, k * one);
    }
    return one;
}

/* Six launches with a sample after each equal six in one range; so does the weighted rate. */
static void test_samples(long long one)
{
    long long unbroken = exact(region([] { launch_fixed(6); }).t[INST].sum, "unbroken");
    snap a = take();
    for (int i = 0; i < 6; i++) {
        launch_fixed(1);
        CUDA_MUST(cudaDeviceSynchronize());
        if (i == 2) /* from a thread with no current context: CUPTI's calls name their context */
            std::thread([] { timed_sample(); }).join();
        else
            timed_sample();
    }
    snap b = read_totals();
    CHECK_EQ("smsp__inst_executed.sum over 6 samples = unbroken range of 6 launches", exact(value(a, b, INST), "sampled"),
             unbroken);
    CHECK_EQ("unbroken range of 6 launches = 6 x one", unbroken, 6 * one);

    a = take();
    for (int i = 0; i < 3; i++) {
        launch_stream(1);
        CUDA_MUST(cudaDeviceSynchronize());
        timed_sample();
    }
    b = read_totals();
    double bytes = value(a, b, DRAM), rate = value(a, b, RATE), ns = b.gpu_ns - a.gpu_ns;
    ct_result(std::fabs(rate - bytes / ns * 1e9) <= 1e-6 * rate, "dram__bytes_read.sum.per_second over 3 samples "
              "(duration-weighted mean) = bytes / GPU time: got %.6g, want %.6g", rate, bytes / ns * 1e9);
    ct_result(std::fabs(bytes - 3.0 * B) <= 0.005 * 3 * B, "dram__bytes_read.sum over 3 samples: got %.0f, want "
              "%.0f +- 0.5%%", bytes, 3.0 * B);
}

/* Cost of one sample: with the GPU idle, and right after a kernel. */
static void test_sample_cost()
{
    std::vector<double> idle, busy;
    for (int i = 0; i < 20; i++) {
        sample_us.clear();
        timed_sample();
        idle.push_back(sample_us[0]);
    }
    for (int i = 0; i < 20; i++) {
        launch_fixed(1);
        sample_us.clear();
        timed_sample(); /* no cudaDeviceSynchronize: the sample waits for the kernel */
        busy.push_back(sample_us[0]);
    }
    std::sort(idle.begin(), idle.end());
    std::sort(busy.begin(), busy.end());
    ct_note("sample cost, GPU idle, 1 context: min %.1f us, median %.1f us, max %.1f us", idle[0], idle[10], idle[19]);
    ct_note("sample cost right after a fixed_work launch (not synchronized): min %.1f us, median %.1f us, max %.1f us",
            busy[0], busy[10], busy[19]);
    CHECK_TRUE("every sample returned", idle.size() == 20 && busy.size() == 20);
}

/* Launches k fixed_work in context c (made current for them), then m in the primary context. */
static void launch_in(CUcontext c, unsigned *w, int k, int m)
{
    auto ctxPush = CT_DRV(cuCtxPushCurrent);
    auto ctxPop = CT_DRV(cuCtxPopCurrent);
    CUcontext popped = NULL;
    CU_MUST(ctxPush(c));
    for (int i = 0; i < k; i++)
        fixed_work<<<64, 128>>>(w, 1000);
    CUDA_MUST(cudaDeviceSynchronize());
    CU_MUST(ctxPop(&popped));
    launch_fixed(m);
}

/*
 * One range per device: a second context created after start is enabled and waits; the
 * collecting context's range counts its own context's work only (the contract cupti_cb-metrics(7)
 * states; an H100 showed it at 7bfee1e); dropping the collecting context hands collection over.
 */
static void test_second_context(long long one)
{
    auto ctxCreate = CT_DRV(cuCtxCreate);
    auto ctxDestroy = CT_DRV(cuCtxDestroy);
    auto ctxPop = CT_DRV(cuCtxPopCurrent);
    CUcontext prim = S.ctxs[0].ctx, c2 = NULL, popped = NULL;
    CU_MUST(ctxCreate(&c2, NULL, 0, 0)); /* created after collection started; now current */
    unsigned *w2 = NULL;
    CUDA_MUST(cudaMalloc(&w2, 64 * 128 * sizeof(unsigned)));
    fixed_work<<<64, 128>>>(w2, 1000); /* module loading in the new context, before it is known */
    CUDA_MUST(cudaDeviceSynchronize());
    CU_MUST(ctxPop(&popped));
    must(cupti_cb_metric_session_add_context(&S, c2, why, sizeof why), "cupti_cb_metric_session_add_context");
    CHECK_EQ("contexts after add_context", S.n_ctxs, 2);
    CHECK_TRUE("the second context is enabled and waits", S.ctxs[1].rp && !S.ctxs[1].started && S.ctxs[0].started);

    long long a = exact(region([&] { launch_in(c2, w2, 2, 3); }).t[INST].sum, "collector primary");
    ct_note("range on the primary context, 2 launches in a second context + 3 in the primary: %lld = %.2f x one",
            a, (double)a / one);
    CHECK_EQ("the collecting range counts its own context only (3 x one)", a, 3 * one);

    must(cupti_cb_metric_session_drop_context(&S, prim, why, sizeof why), "drop the collecting context");
    CHECK_TRUE("after the drop the second context collects", S.n_ctxs == 1 && S.ctxs[0].ctx == c2 && S.ctxs[0].started);
    long long b = exact(region([&] { launch_in(c2, w2, 2, 3); }).t[INST].sum, "collector c2");
    ct_note("range on the second context, 2 launches there + 3 in the primary: %lld = %.2f x one", b, (double)b / one);
    CHECK_EQ("the second context's range counts its own context only (2 x one)", b, 2 * one);

    must(cupti_cb_metric_session_add_context(&S, prim, why, sizeof why), "add the primary context back");
    snap t0 = take();
    launch_in(c2, w2, 2, 0);
    must(cupti_cb_metric_session_drop_context(&S, c2, why, sizeof why), "cupti_cb_metric_session_drop_context");
    snap t1 = read_totals();
    CHECK_EQ("smsp__inst_executed.sum collected by drop_context: 2 x one", exact(value(t0, t1, INST), "dropped"), 2 * one);
    CHECK_TRUE("the primary context collects again", S.n_ctxs == 1 && S.ctxs[0].ctx == prim && S.ctxs[0].started);
    CHECK_EQ("smsp__inst_executed.sum of one launch after the handovers",
             exact(region([] { launch_fixed(1); }).t[INST].sum, "after handover"), one);
    auto ctxPush = CT_DRV(cuCtxPushCurrent);
    CU_MUST(ctxPush(c2));
    CUDA_MUST(cudaFree(w2));
    CU_MUST(ctxPop(&popped));
    CU_MUST(ctxDestroy(c2));
}

/* Where a sample's time goes: the CUPTI calls of one sample, timed one by one. */
static void test_sample_breakdown()
{
    const char *step[] = {"PopRange", "Stop", "DecodeData", "GetCounterDataInfo", "evaluate", "image init",
                          "Start", "PushRange"};
    std::vector<double> t[8];
    std::vector<double> vals(S.cfg.n);
    cupti_cb_mctx *c = &S.ctxs[0];
    auto ctxPush = CT_DRV(cuCtxPushCurrent);
    auto ctxPop = CT_DRV(cuCtxPopCurrent);
    CUcontext popped = NULL;
    int bad = 0;
    (void)take();
    for (int i = 0; i < 10; i++) {
        launch_fixed(1);
        CUDA_MUST(cudaDeviceSynchronize());
        CUpti_RangeProfiler_PopRange_Params pr = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL, c->rp};
        CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL, c->rp, 0, 0, 0};
        CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL, c->rp, 0};
        CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
                                                            NULL, c->data, c->data_size, 0};
        CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, c->rp};
        CUpti_RangeProfiler_PushRange_Params pu = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, NULL, c->rp,
                                                   CUPTI_CB_METRIC_RANGE_NAME};
        auto now = [] { return std::chrono::steady_clock::now(); };
        auto us = [](std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
            return std::chrono::duration<double, std::micro>(b - a).count();
        };
        CU_MUST(ctxPush(c->ctx));
        auto t0 = now();
        bad |= prof.cuptiRangeProfilerPopRange(&pr);
        auto t1 = now();
        bad |= prof.cuptiRangeProfilerStop(&sp);
        auto t2 = now();
        bad |= prof.cuptiRangeProfilerDecodeData(&dd);
        auto t3 = now();
        bad |= prof.cuptiRangeProfilerGetCounterDataInfo(&gi);
        auto t4 = now();
        bad |= gi.numTotalRanges < 1 || cupti_cb_profiler_config_evaluate(&S.cfg, c->data, c->data_size, 0, vals.data(), why, sizeof why);
        auto t5 = now();
        bad |= cupti_cb_metric_range_reinit(&api, &prof, c, why, sizeof why);
        auto t6 = now();
        bad |= prof.cuptiRangeProfilerStart(&st);
        auto t7 = now();
        bad |= prof.cuptiRangeProfilerPushRange(&pu);
        auto t8 = now();
        CU_MUST(ctxPop(&popped));
        auto p = {t0, t1, t2, t3, t4, t5, t6, t7, t8};
        auto it = p.begin();
        for (int k = 0; k < 8; k++, it++)
            t[k].push_back(us(*it, *(it + 1)));
    }
    CHECK_TRUE("every call of the timed samples succeeded", !bad);
    std::string line;
    for (int k = 0; k < 8; k++) {
        std::sort(t[k].begin(), t[k].end());
        char b[96];
        snprintf(b, sizeof b, "%s%s %.1f", k ? ", " : "", step[k], t[k][5]);
        line += b;
    }
    ct_note("median time of each step of a sample, us: %s", line.c_str());
}

static void test_multipass(long long one)
{
    const char *names[] = {"sm__throughput.avg.pct_of_peak_sustained_elapsed"};
    const int additive[] = {0};
    unsigned id = 0;
    unsigned n_before = S.cfg.n;
    int rc = cupti_cb_metric_session_want(&S, names, additive, 1, &id, why, sizeof why);
    CHECK_EQ("want of a union that needs several passes: CUPTI_CB_METRIC_SESSION_EPASSES", rc, CUPTI_CB_METRIC_SESSION_EPASSES);
    ct_note("its sentence: %s", why);
    CHECK_TRUE("the sentence names the passes", strstr(why, "passes") != NULL);
    CHECK_EQ("configuration unchanged", S.cfg.n, n_before);
    CHECK_EQ("smsp__inst_executed.sum of one launch after the refusal", exact(region([] { launch_fixed(1); }).t[INST].sum,
             "after refusal"), one);
}

static void test_stop_restart(long long one)
{
    must(cupti_cb_metric_session_unwant(&S, ids, NMET, why, sizeof why), "cupti_cb_metric_session_unwant");
    CHECK_TRUE("no metric left: collection stopped", !S.running && !S.ctxs[0].started);
    launch_fixed(3); /* not collected */
    CUDA_MUST(cudaDeviceSynchronize());
    must(cupti_cb_metric_session_want(&S, met_names, met_additive, NMET, ids, why, sizeof why), "cupti_cb_metric_session_want again");
    CHECK_TRUE("want again: collection runs", S.running && S.ctxs[0].started);
    CHECK_EQ("smsp__inst_executed.sum of one launch after a restart", exact(region([] { launch_fixed(1); }).t[INST].sum,
             "restart"), one);
    const char *sub[] = {"smsp__inst_executed.sum"};
    const int sub_add[] = {1};
    unsigned extra = 0;
    must(cupti_cb_metric_session_want(&S, sub, sub_add, 1, &extra, why, sizeof why), "want a metric already collected");
    CHECK_EQ("a metric wanted twice has one id", extra, ids[INST]);
    must(cupti_cb_metric_session_unwant(&S, &ids[DRAM], 1, why, sizeof why), "unwant dram__bytes_read.sum");
    CHECK_EQ("configuration after one metric left (weight + 2)", S.cfg.n, 3);
    must(cupti_cb_metric_session_want(&S, &met_names[DRAM], &met_additive[DRAM], 1, &ids[DRAM], why, sizeof why), "want back");
    must(cupti_cb_metric_session_unwant(&S, &extra, 1, why, sizeof why), "unwant the second reference");
    CHECK_EQ("smsp__inst_executed.sum of one launch across reconfigurations", exact(region([] { launch_fixed(1); }).t[INST].sum,
             "reconfigured"), one);
}

/* Another session on the same context: CUPTI's answer, translated. */
static void test_second_session(long long one)
{
    static struct cupti_cb_metric_session s2;
    char why2[1024] = "";
    const char *names[] = {"smsp__inst_executed.sum"};
    const int additive[] = {1};
    unsigned id = 0;
    must(cupti_cb_metric_session_init(&s2, &api, &prof, 0, S.chip, why, sizeof why), "init of a second session");
    must(cupti_cb_metric_session_want(&s2, names, additive, 1, &id, why, sizeof why), "want in the second session");
    int rc = cupti_cb_metric_session_adopt_current(&s2, why2, sizeof why2);
    ct_note("second session on the same context: error %d: %s", rc, why2);
    CHECK_TRUE("a second session on the same context is refused with a sentence", rc != 0 && why2[0]);
    cupti_cb_metric_session_destroy(&s2);
    CHECK_EQ("smsp__inst_executed.sum of one launch in the first session afterwards",
             exact(region([] { launch_fixed(1); }).t[INST].sum, "after second session"), one);
}

int main()
{
    set_up();
    test_adopt_and_want();
    test_dram_bytes();
    long long one = test_inst_linear();
    test_samples(one);
    test_sample_cost();
    test_sample_breakdown();
    test_multipass(one);
    test_stop_restart(one);
    test_second_context(one);
    test_second_session(one);
    ct_note("segments collected %llu, ranges dropped %llu, GPU time %.0f ns", S.segments, S.dropped, S.gpu_ns);
    CHECK_EQ("ranges CUPTI dropped", S.dropped, 0);
    cupti_cb_metric_session_destroy(&S);
    return ct_done();
}
