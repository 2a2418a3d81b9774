/*
 * gpu_launch_paths: every kernel launch path counts once in kernel.launches.
 *
 * For each path, one warm-up launch outside the measured region, then a fresh event set around
 * N = 10 launches:  kernel.launches == 10 and the path's own API counter == 10.
 * <<<>>>: nvcc 13's host stub (crt/host_runtime.h, unless __NV_LEGACY_LAUNCH) calls
 * __cudaPopCallConfiguration and __cudaLaunchKernel (CBID 505), while a run on the GPU machine
 * saw it as cudaLaunchKernel (CBID 211): the test takes cudaLaunchKernel.calls +
 * __cudaLaunchKernel.calls == 10 (one API launch per kernel, whichever name it carries) and
 * prints both.
 * Graph: 3 kernel nodes captured from a stream, instantiated outside the region, launched 5 times
 * with cudaGraphLaunch and 5 times with cuGraphLaunch: graph.launches == 5, kernel.launches == 0
 * (kernels inside a graph are not kernel launches), the API counter == 5.
 */
#include "ctest_util.h"

static const int N = 10;

__global__ void work(int *out, int v)
{
    if (out)
        out[threadIdx.x] = v;
}

/* api_events: the API counters of this path; their sum must be N. */
static void path(const char *label, std::vector<std::string> api_events, void (*launch_once)(void))
{
    launch_once(); /* warm-up: module load, first-use driver calls */
    CUDA_MUST(cudaDeviceSynchronize());
    std::vector<std::string> names = api_events;
    names.insert(names.begin(), "kernel.launches");
    ct_values r = ct_measure(names, [&] {
        for (int i = 0; i < N; i++)
            launch_once();
    });
    CUDA_MUST(cudaDeviceSynchronize());
    std::string l(label), sum_name;
    long long sum = 0;
    CHECK_EQ((l + ": kernel.launches").c_str(), r.v[0], N);
    for (size_t i = 0; i < api_events.size(); i++) {
        sum += r.v[i + 1];
        sum_name += (i ? " + " : "") + api_events[i];
        if (api_events.size() > 1)
            ct_note("%s: %s = %lld", label, api_events[i].c_str(), r.v[i + 1]);
    }
    CHECK_EQ((l + ": " + sum_name).c_str(), sum, N);
}

/* Launch arguments shared by the launch functions below (no captures: plain function pointers). */
static int *g_out = nullptr; /* work() writes nothing when out is null */
static int g_arg = 7;
static void *g_args[] = {&g_out, &g_arg};
static CUfunction g_func;
static decltype(&cuLaunchKernel) p_cuLaunchKernel;
static decltype(&cuLaunchKernelEx) p_cuLaunchKernelEx;
static decltype(&cuLaunchCooperativeKernel) p_cuLaunchCooperativeKernel;

static void l_chevron() { work<<<1, 32>>>(nullptr, 1); }
static void l_cudaLaunchKernel()
{
    CUDA_MUST(cudaLaunchKernel((const void *)work, dim3(1), dim3(32), g_args, 0, 0));
}
static void l_cudaLaunchKernelExC()
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    CUDA_MUST(cudaLaunchKernelExC(&cfg, (const void *)work, g_args));
}
static void l_cuLaunchKernel()
{
    CU_MUST(p_cuLaunchKernel(g_func, 1, 1, 1, 32, 1, 1, 0, nullptr, g_args, nullptr));
}
static void l_cuLaunchKernelEx()
{
    CUlaunchConfig cfg = {};
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    CU_MUST(p_cuLaunchKernelEx(&cfg, g_func, g_args, nullptr));
}
static void l_cudaLaunchCooperativeKernel()
{
    CUDA_MUST(cudaLaunchCooperativeKernel((const void *)work, dim3(1), dim3(32), g_args, 0, 0));
}
static void l_cuLaunchCooperativeKernel()
{
    CU_MUST(p_cuLaunchCooperativeKernel(g_func, 1, 1, 1, 32, 1, 1, 0, nullptr, g_args));
}

int main()
{
    require_gpu(1);
    ct_use_device(0);
    ct_library_init();

    int coop = 0;
    CUDA_MUST(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    CUDA_MUST(cudaGetFuncBySymbol(&g_func, (const void *)work)); /* cudaFunction_t is CUfunction */
    p_cuLaunchKernel = CT_DRV(cuLaunchKernel);
    p_cuLaunchKernelEx = CT_DRV(cuLaunchKernelEx);
    p_cuLaunchCooperativeKernel = CT_DRV(cuLaunchCooperativeKernel);

    path("<<<>>>", {"cudaLaunchKernel.calls", "__cudaLaunchKernel.calls"}, l_chevron);
    path("cudaLaunchKernel", {"cudaLaunchKernel.calls"}, l_cudaLaunchKernel);
    path("cudaLaunchKernelExC", {"cudaLaunchKernelExC.calls"}, l_cudaLaunchKernelExC);
    path("cuLaunchKernel", {"cuLaunchKernel.calls"}, l_cuLaunchKernel);
    path("cuLaunchKernelEx", {"cuLaunchKernelEx.calls"}, l_cuLaunchKernelEx);
    if (coop) {
        path("cudaLaunchCooperativeKernel", {"cudaLaunchCooperativeKernel.calls"},
             l_cudaLaunchCooperativeKernel);
        path("cuLaunchCooperativeKernel", {"cuLaunchCooperativeKernel.calls"},
             l_cuLaunchCooperativeKernel);
    } else {
        CHECK_TRUE("device 0 supports cooperative launch (cudaDevAttrCooperativeLaunch)", coop);
    }

    /* Graph of 3 kernel nodes, captured and instantiated before the measured regions. */
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_MUST(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < 3; i++)
        work<<<1, 32, 0, s>>>(nullptr, i);
    CUDA_MUST(cudaStreamEndCapture(s, &graph));
    size_t nodes = 0;
    CUDA_MUST(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK_EQ("captured graph has 3 nodes", nodes, 3);
    CUDA_MUST(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_MUST(cudaGraphLaunch(exec, s)); /* warm-up (uploads the graph) */
    CUDA_MUST(cudaStreamSynchronize(s));
    auto p_cuGraphLaunch = CT_DRV(cuGraphLaunch);

    ct_region("cudaGraphLaunch", {{"graph.launches", 5}, {"kernel.launches", 0}, {"cudaGraphLaunch.calls", 5}},
              [&] {
                  for (int i = 0; i < 5; i++)
                      CUDA_MUST(cudaGraphLaunch(exec, s));
              });
    CUDA_MUST(cudaStreamSynchronize(s));
    ct_region("cuGraphLaunch", {{"graph.launches", 5}, {"kernel.launches", 0}, {"cuGraphLaunch.calls", 5}},
              [&] {
                  for (int i = 0; i < 5; i++)
                      CU_MUST(p_cuGraphLaunch((CUgraphExec)exec, (CUstream)s));
              });
    CUDA_MUST(cudaStreamSynchronize(s));

    CUDA_MUST(cudaGraphExecDestroy(exec));
    CUDA_MUST(cudaGraphDestroy(graph));
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_shutdown();
    return ct_done();
}
