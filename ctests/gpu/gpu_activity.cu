/*
 * gpu_activity: the gpu.* events (GPU activity records) with values that can be checked.
 *
 * Every measured region ends with cudaDeviceSynchronize before PAPI_stop, so that what the
 * GPU ran in it has finished and the stop (which flushes CUPTI's activity buffers) sees it all;
 * work done before PAPI_start (warm-ups, set-up copies) was synchronized before the start and
 * must not count.
 *
 *   paths      N = 10 kernels by <<<>>>, by cudaLaunchKernel and by cuLaunchKernel (driver
 *              entry), each in a set {gpu.kernels, kernel.launches}: both N (the activity
 *              source and the callback source in one set); then 10 of each in one region: 30.
 *   graph      a graph of K = 4 kernel nodes, captured and instantiated outside the region,
 *              launched L = 5 times: gpu.kernels = gpu.kernels:process = K x L = 20,
 *              kernel.launches = 0 (kernels run by a graph are not launches),
 *              graph.launches = L.
 *   time       one spin kernel of 1, 5 and 10 ms (it reads %globaltimer until that much time
 *              has passed), CUDA events recorded around it: gpu.kernel_time_ns within 10% of
 *              the events' interval, gpu.kernels = 1; then the three in one region: the sum.
 *   copies     pinned host memory; one copy per direction with distinct sizes (HtoD, DtoH,
 *              DtoD, HtoH): exact bytes in each direction event, 0 in gpu.memcpy.bytes_peer,
 *              gpu.memcpy.count = 4, gpu.memcpy.bytes = the sum and the callback source's
 *              memcpy.bytes in the same set agrees; gpu.memcpy.time_ns > 0; gpu.kernels = 0.
 *              Then each direction alone, count 1.
 *   memset     two memsets of distinct sizes: gpu.memset.count = 2, gpu.memset.bytes = the
 *              sum, gpu.memset.time_ns > 0, no copy and no kernel counted.
 *   busy       spin kernels of 10 ms and 5 ms on two non-blocking streams, overlapping:
 *              gpu.busy_ns < gpu.kernel_time_ns (the sum of their durations) and >= 10 ms
 *              (the longer one); two spin kernels one after the other on one stream:
 *              gpu.busy_ns = gpu.kernel_time_ns (disjoint intervals: the union is the sum).
 *   threads    8 threads, thread i launches i + 1 kernels on its own stream between its
 *              PAPI_start and PAPI_stop: its gpu.kernels = i + 1 exactly (thread scope,
 *              attributed through the correlation ids); the main thread's set, started
 *              before the threads exist and read after they exited: gpu.kernels:process =
 *              36 and gpu.kernels = 0 (the main thread launched nothing).
 *   flush      4 spin kernels of 50 ms, then at once PAPI_read: fewer than 4 kernels (work
 *              still running is not counted); after cudaDeviceSynchronize PAPI_read sees 4,
 *              and PAPI_stop too.
 *   devices    (needs two GPUs, else SKIP of that case only) 2 kernels and a 7000-byte HtoD
 *              copy on device 0, 3 kernels and a 5000-byte HtoD copy on device 1: :device=0,
 *              :device1 and unqualified values exact; gpu.busy_ns:device=1 > 0; with peer
 *              access, a 9001-byte cudaMemcpyPeer from device 0 to 1 is
 *              gpu.memcpy.bytes_peer = 9001 and gpu.memcpy.count = 1.
 */
#include "ctest_util.h"

static const long long MS = 1000000; /* ns */

__device__ __forceinline__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Runs for at least ns nanoseconds of the GPU's global timer (the clock of CUPTI's timestamps). */
__global__ void spin(long long ns)
{
    unsigned long long t0 = global_ns();
    while ((long long)(global_ns() - t0) < ns) {
    }
}

__global__ void work(int *out, int v)
{
    if (out)
        out[threadIdx.x] = v;
}


static void stop(int *es, long long *v)
{
    PAPI_MUST(PAPI_stop(*es, v));
    ct_destroy(es);
}

/* ---------------------------------------------------------------- paths */

static const int N = 10;
static int *g_out = nullptr; /* work() writes nothing when out is null */
static int g_arg = 7;
static void *g_args[] = {&g_out, &g_arg};
static CUfunction g_func;
static decltype(&cuLaunchKernel) p_cuLaunchKernel;

static void l_chevron() { work<<<1, 32>>>(nullptr, 1); }
static void l_cudaLaunchKernel()
{
    CUDA_MUST(cudaLaunchKernel((const void *)work, dim3(1), dim3(32), g_args, 0, 0));
}
static void l_cuLaunchKernel()
{
    CU_MUST(p_cuLaunchKernel(g_func, 1, 1, 1, 32, 1, 1, 0, nullptr, g_args, nullptr));
}

static void paths_case(void)
{
    CUDA_MUST(cudaGetFuncBySymbol(&g_func, (const void *)work)); /* cudaFunction_t is CUfunction */
    p_cuLaunchKernel = CT_DRV(cuLaunchKernel);
    struct {
        const char *label;
        void (*launch)(void);
    } paths[] = {{"<<<>>>", l_chevron}, {"cudaLaunchKernel", l_cudaLaunchKernel}, {"cuLaunchKernel", l_cuLaunchKernel}};
    for (auto &p : paths) {
        p.launch(); /* warm-up, before the region */
        CUDA_MUST(cudaDeviceSynchronize());
        std::string l = std::string(p.label) + ", " + std::to_string(N) + " kernels";
        ct_region(l.c_str(), {{"gpu.kernels", N}, {"kernel.launches", N}}, [&] {
            for (int i = 0; i < N; i++)
                p.launch();
            CUDA_MUST(cudaDeviceSynchronize());
        });
    }
    ct_region("all three paths, 10 kernels each", {{"kernel.launches", 3 * N}, {"gpu.kernels", 3 * N}}, [&] {
        for (auto &p : paths)
            for (int i = 0; i < N; i++)
                p.launch();
        CUDA_MUST(cudaDeviceSynchronize());
    });
}

/* ---------------------------------------------------------------- graph */

static void graph_case(void)
{
    const int K = 4, L = 5;
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    /* Captured before the region: a launch into a capturing stream counts in kernel.launches. */
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_MUST(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < K; i++)
        work<<<1, 32, 0, s>>>(nullptr, i);
    CUDA_MUST(cudaStreamEndCapture(s, &graph));
    size_t nodes = 0;
    CUDA_MUST(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK_EQ("graph: captured graph has K = 4 nodes", nodes, K);
    CUDA_MUST(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_MUST(cudaGraphLaunch(exec, s)); /* warm-up (uploads the graph) */
    CUDA_MUST(cudaStreamSynchronize(s));

    ct_region("graph of 4 kernel nodes launched 5 times",
              {{"gpu.kernels", K * L}, {"gpu.kernels:process", K * L}, {"kernel.launches", 0},
               {"graph.launches", L}},
              [&] {
                  for (int i = 0; i < L; i++)
                      CUDA_MUST(cudaGraphLaunch(exec, s));
                  CUDA_MUST(cudaStreamSynchronize(s));
              });

    CUDA_MUST(cudaGraphExecDestroy(exec));
    CUDA_MUST(cudaGraphDestroy(graph));
    CUDA_MUST(cudaStreamDestroy(s));
}

/* ---------------------------------------------------------------- time */

static int within(const char *what, double got, double want, double rel)
{
    double off = want ? (got - want) / want : got;
    if (off < 0)
        off = -off;
    return ct_result(off <= rel, "%s: got %.0f, want %.0f +- %.0f%% (off by %.2f%%)", what, got, want, rel * 100,
                     off * 100);
}

static void time_case(void)
{
    const int spins_ms[] = {1, 5, 10};
    cudaEvent_t e0, e1;
    CUDA_MUST(cudaEventCreate(&e0));
    CUDA_MUST(cudaEventCreate(&e1));
    spin<<<1, 1>>>(MS / 10); /* warm-up */
    CUDA_MUST(cudaDeviceSynchronize());
    double sum_ns = 0;
    for (int ms : spins_ms) {
        long long v[2];
        float ev_ms = 0;
        int es = ct_started({"gpu.kernel_time_ns", "gpu.kernels"});
        CUDA_MUST(cudaEventRecord(e0));
        spin<<<1, 1>>>(ms * MS);
        CUDA_MUST(cudaEventRecord(e1));
        CUDA_MUST(cudaDeviceSynchronize());
        stop(&es, v);
        CUDA_MUST(cudaEventElapsedTime(&ev_ms, e0, e1));
        char what[128];
        snprintf(what, sizeof what, "time: gpu.kernel_time_ns of a %d ms spin kernel against CUDA events", ms);
        within(what, (double)v[0], ev_ms * 1e6, 0.10);
        snprintf(what, sizeof what, "time: gpu.kernel_time_ns of a %d ms spin kernel is at least %d ms", ms, ms);
        CHECK_REL(what, v[0], ">=", ms * MS);
        snprintf(what, sizeof what, "time: gpu.kernels of the %d ms spin", ms);
        CHECK_EQ(what, v[1], 1);
        sum_ns += ev_ms * 1e6;
    }
    long long v[2];
    float ev_ms = 0;
    int es = ct_started({"gpu.kernel_time_ns", "gpu.kernels"});
    CUDA_MUST(cudaEventRecord(e0));
    for (int ms : spins_ms)
        spin<<<1, 1>>>(ms * MS);
    CUDA_MUST(cudaEventRecord(e1));
    CUDA_MUST(cudaDeviceSynchronize());
    stop(&es, v);
    CUDA_MUST(cudaEventElapsedTime(&ev_ms, e0, e1));
    ct_note("time: the three spins one by one %.0f ns by CUDA events, together %.0f ns", sum_ns, ev_ms * 1e6);
    within("time: gpu.kernel_time_ns of the 1 + 5 + 10 ms spins in one region against CUDA events", (double)v[0],
           ev_ms * 1e6, 0.10);
    CHECK_EQ("time: gpu.kernels of the three spins", v[1], 3);
    CUDA_MUST(cudaEventDestroy(e0));
    CUDA_MUST(cudaEventDestroy(e1));
}

/* ---------------------------------------------------------------- copies and memsets */

enum Dir { HTOD, DTOH, DTOD, HTOH, NDIR };
static const char *const dir_event[NDIR] = {"gpu.memcpy.bytes_htod", "gpu.memcpy.bytes_dtoh",
                                            "gpu.memcpy.bytes_dtod", "gpu.memcpy.bytes_htoh"};
static const size_t dir_bytes[NDIR] = {1048583, 524309, 262147, 131101}; /* distinct, odd */

struct bufs {
    char *d_a, *d_b, *h_a, *h_b;
};

static void copy(const bufs &b, Dir d)
{
    switch (d) {
    case HTOD: CUDA_MUST(cudaMemcpy(b.d_a, b.h_a, dir_bytes[d], cudaMemcpyHostToDevice)); break;
    case DTOH: CUDA_MUST(cudaMemcpy(b.h_b, b.d_a, dir_bytes[d], cudaMemcpyDeviceToHost)); break;
    case DTOD: CUDA_MUST(cudaMemcpy(b.d_b, b.d_a, dir_bytes[d], cudaMemcpyDeviceToDevice)); break;
    case HTOH: CUDA_MUST(cudaMemcpy(b.h_b, b.h_a, dir_bytes[d], cudaMemcpyHostToHost)); break;
    default: break;
    }
}

static void copies_case(void)
{
    const size_t BUF = 2 << 20;
    bufs b;
    CUDA_MUST(cudaMalloc(&b.d_a, BUF));
    CUDA_MUST(cudaMalloc(&b.d_b, BUF));
    CUDA_MUST(cudaMallocHost(&b.h_a, BUF));
    CUDA_MUST(cudaMallocHost(&b.h_b, BUF));
    memset(b.h_a, 1, BUF);
    for (int d = 0; d < NDIR; d++) /* warm-up: every direction once before any region */
        copy(b, (Dir)d);
    CUDA_MUST(cudaMemset(b.d_b, 0, 4096));
    CUDA_MUST(cudaDeviceSynchronize());

    /* All four directions in one region. */
    long long v[12];
    int es = ct_started({"gpu.memcpy.count", "gpu.memcpy.bytes", "gpu.memcpy.bytes_htod", "gpu.memcpy.bytes_dtoh",
                      "gpu.memcpy.bytes_dtod", "gpu.memcpy.bytes_htoh", "gpu.memcpy.bytes_peer",
                      "gpu.memcpy.time_ns", "memcpy.bytes", "gpu.kernels", "gpu.memset.count"});
    long long total = 0;
    for (int d = 0; d < NDIR; d++) {
        copy(b, (Dir)d);
        total += (long long)dir_bytes[d];
    }
    CUDA_MUST(cudaDeviceSynchronize());
    stop(&es, v);
    CHECK_EQ("copies, 4 directions: gpu.memcpy.count", v[0], NDIR);
    CHECK_EQ("copies, 4 directions: gpu.memcpy.bytes", v[1], total);
    for (int d = 0; d < NDIR; d++)
        CHECK_EQ((std::string("copies, 4 directions: ") + dir_event[d]).c_str(), v[2 + d], dir_bytes[d]);
    CHECK_EQ("copies, 4 directions: gpu.memcpy.bytes_peer", v[6], 0);
    CHECK_REL("copies, 4 directions: gpu.memcpy.time_ns", v[7], ">", 0);
    CHECK_EQ("copies, 4 directions: the callback source's memcpy.bytes in the same set", v[8], total);
    CHECK_EQ("copies, 4 directions: gpu.kernels", v[9], 0);
    CHECK_EQ("copies, 4 directions: gpu.memset.count", v[10], 0);

    /* Each direction alone: its bytes there, nothing elsewhere, one copy. */
    for (int d = 0; d < NDIR; d++) {
        std::vector<ct_expect> ex = {{"gpu.memcpy.count", 1}, {"gpu.memcpy.bytes", (long long)dir_bytes[d]}};
        for (int o = 0; o < NDIR; o++)
            ex.push_back({dir_event[o], o == d ? (long long)dir_bytes[d] : 0});
        ex.push_back({"gpu.memcpy.bytes_peer", 0});
        std::string l = std::string("copy alone, ") + dir_event[d] + " " + std::to_string(dir_bytes[d]) + " B";
        ct_region(l.c_str(), ex, [&] {
            copy(b, (Dir)d);
            CUDA_MUST(cudaDeviceSynchronize());
        });
    }

    /* Memsets: two of distinct sizes. */
    const size_t m1 = 70001, m2 = 3333;
    es = ct_started({"gpu.memset.count", "gpu.memset.bytes", "gpu.memset.time_ns", "gpu.memcpy.count", "gpu.kernels",
                  "memset.bytes"});
    CUDA_MUST(cudaMemset(b.d_a, 0, m1));
    CUDA_MUST(cudaMemsetAsync(b.d_b, 1, m2, 0));
    CUDA_MUST(cudaDeviceSynchronize());
    stop(&es, v);
    CHECK_EQ("memsets of 70001 and 3333 B: gpu.memset.count", v[0], 2);
    CHECK_EQ("memsets of 70001 and 3333 B: gpu.memset.bytes", v[1], m1 + m2);
    CHECK_REL("memsets: gpu.memset.time_ns", v[2], ">", 0);
    CHECK_EQ("memsets: gpu.memcpy.count", v[3], 0);
    CHECK_EQ("memsets: gpu.kernels", v[4], 0);
    CHECK_EQ("memsets: the callback source's memset.bytes in the same set", v[5], m1 + m2);

    CUDA_MUST(cudaFree(b.d_a));
    CUDA_MUST(cudaFree(b.d_b));
    CUDA_MUST(cudaFreeHost(b.h_a));
    CUDA_MUST(cudaFreeHost(b.h_b));
}

/* ---------------------------------------------------------------- busy */

static void busy_case(void)
{
    cudaStream_t s[2];
    long long v[3];
    for (int i = 0; i < 2; i++)
        CUDA_MUST(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));

    /* Overlapping: 10 ms on one stream, 5 ms on the other, launched together. */
    int es = ct_started({"gpu.busy_ns", "gpu.kernel_time_ns", "gpu.kernels"});
    spin<<<1, 1, 0, s[0]>>>(10 * MS);
    spin<<<1, 1, 0, s[1]>>>(5 * MS);
    CUDA_MUST(cudaGetLastError());
    CUDA_MUST(cudaDeviceSynchronize());
    stop(&es, v);
    ct_note("busy, overlapping 10 + 5 ms spins on two streams: gpu.busy_ns %lld, gpu.kernel_time_ns %lld", v[0],
            v[1]);
    CHECK_EQ("busy, overlapping: gpu.kernels", v[2], 2);
    CHECK_REL("busy, overlapping: gpu.kernel_time_ns >= 15 ms (the sum)", v[1], ">=", 15 * MS);
    CHECK_REL("busy, overlapping: gpu.busy_ns < gpu.kernel_time_ns (the union, not the sum)", v[0], "<", v[1]);
    CHECK_REL("busy, overlapping: gpu.busy_ns >= 10 ms (the longer kernel)", v[0], ">=", 10 * MS);

    /* One after the other on one stream: disjoint intervals, the union is the sum. */
    es = ct_started({"gpu.busy_ns", "gpu.kernel_time_ns", "gpu.kernels"});
    spin<<<1, 1, 0, s[0]>>>(3 * MS);
    spin<<<1, 1, 0, s[0]>>>(2 * MS);
    CUDA_MUST(cudaGetLastError());
    CUDA_MUST(cudaDeviceSynchronize());
    stop(&es, v);
    CHECK_EQ("busy, 3 + 2 ms spins in sequence on one stream: gpu.kernels", v[2], 2);
    CHECK_EQ("busy, in sequence: gpu.busy_ns = gpu.kernel_time_ns", v[0], v[1]);
    CHECK_REL("busy, in sequence: gpu.busy_ns >= 5 ms", v[0], ">=", 5 * MS);

    for (int i = 0; i < 2; i++)
        CUDA_MUST(cudaStreamDestroy(s[i]));
}

/* ---------------------------------------------------------------- threads */

static const int THREADS = 8;
static pthread_barrier_t g_started;

static void *worker(void *arg)
{
    long id = (long)arg;
    int n = (int)id + 1;
    long long v[2];
    cudaStream_t s;
    PAPI_MUST(PAPI_register_thread());
    CUDA_MUST(cudaSetDevice(0));
    CUDA_MUST(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int es = ct_started({"gpu.kernels", "kernel.launches"});
    pthread_barrier_wait(&g_started); /* every thread's set runs while any thread launches */
    ct_launch(n, s);
    CUDA_MUST(cudaStreamSynchronize(s));
    pthread_barrier_wait(&g_started); /* and still runs while the others' kernels complete */
    stop(&es, v);
    char what[96];
    snprintf(what, sizeof what, "thread %ld: gpu.kernels, its own %d kernels", id, n);
    CHECK_EQ(what, v[0], n);
    snprintf(what, sizeof what, "thread %ld: kernel.launches", id);
    CHECK_EQ(what, v[1], n);
    CUDA_MUST(cudaStreamDestroy(s));
    PAPI_MUST(PAPI_unregister_thread());
    return nullptr;
}

static void threads_case(void)
{
    const long long total = THREADS * (THREADS + 1) / 2;
    long long v[3];
    int es = ct_started({"gpu.kernels:process", "gpu.kernels", "kernel.launches:process"});
    pthread_t t[THREADS];
    pthread_barrier_init(&g_started, nullptr, THREADS);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], nullptr, worker, (void *)i))
            ct_fatal("pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], nullptr);
    pthread_barrier_destroy(&g_started);
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("main, read after the 8 threads exited: gpu.kernels:process = 1 + 2 + ... + 8", v[0], total);
    CHECK_EQ("main, read after the 8 threads exited: gpu.kernels (main thread only)", v[1], 0);
    CHECK_EQ("main, read after the 8 threads exited: kernel.launches:process", v[2], total);
    stop(&es, v);
    CHECK_EQ("main, at stop: gpu.kernels:process", v[0], total);
}

/* ---------------------------------------------------------------- flush */

static void flush_case(void)
{
    const int K = 4;
    long long v[2];
    int es = ct_started({"gpu.kernels", "kernel.launches"});
    for (int i = 0; i < K; i++)
        spin<<<1, 1>>>(50 * MS);
    CUDA_MUST(cudaGetLastError());
    PAPI_MUST(PAPI_read(es, v)); /* the first kernel has run for microseconds at most */
    ct_note("flush: PAPI_read right after launching 4 spin kernels of 50 ms: gpu.kernels %lld", v[0]);
    CHECK_EQ("flush: kernel.launches at once (host side)", v[1], K);
    CHECK_REL("flush: gpu.kernels read without synchronize, work still running is not counted", v[0], "<", K);
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_read(es, v));
    CHECK_EQ("flush: gpu.kernels read after cudaDeviceSynchronize", v[0], K);
    stop(&es, v);
    CHECK_EQ("flush: gpu.kernels at PAPI_stop", v[0], K);
}

/* ---------------------------------------------------------------- devices */

static void devices_case(int n_devices)
{
    if (n_devices < 2) {
        ct_note("devices: SKIP, needs 2 GPUs, found %d", n_devices);
        return;
    }
    const int launches[2] = {2, 3};
    const size_t bytes[2] = {7000, 5000};
    char *h, *d[2];
    CUDA_MUST(cudaMallocHost(&h, 16384));
    for (int dev = 1; dev >= 0; dev--) {
        ct_use_device(dev);
        CUDA_MUST(cudaMalloc(&d[dev], 16384));
        ct_launch(1, 0); /* warm-up: module load in this device's context */
        CUDA_MUST(cudaMemcpy(d[dev], h, 16384, cudaMemcpyHostToDevice));
        CUDA_MUST(cudaDeviceSynchronize());
    }
    long long v[8];
    int es = ct_started({"gpu.kernels:device=0", "gpu.kernels:device1", "gpu.kernels", "gpu.memcpy.bytes_htod:device=0",
                      "gpu.memcpy.bytes_htod:device=1", "gpu.memcpy.bytes", "gpu.busy_ns:device=1",
                      "gpu.memcpy.count:device1"});
    for (int dev = 0; dev < 2; dev++) {
        CUDA_MUST(cudaSetDevice(dev));
        ct_launch(launches[dev], 0);
        CUDA_MUST(cudaMemcpy(d[dev], h, bytes[dev], cudaMemcpyHostToDevice));
        CUDA_MUST(cudaDeviceSynchronize());
    }
    stop(&es, v);
    CHECK_EQ("devices: gpu.kernels:device=0", v[0], 2);
    CHECK_EQ("devices: gpu.kernels:device1", v[1], 3);
    CHECK_EQ("devices: gpu.kernels (both devices)", v[2], 5);
    CHECK_EQ("devices: gpu.memcpy.bytes_htod:device=0", v[3], 7000);
    CHECK_EQ("devices: gpu.memcpy.bytes_htod:device=1", v[4], 5000);
    CHECK_EQ("devices: gpu.memcpy.bytes (both devices)", v[5], 12000);
    CHECK_REL("devices: gpu.busy_ns:device=1", v[6], ">", 0);
    CHECK_EQ("devices: gpu.memcpy.count:device1", v[7], 1);

    int can = 0;
    CUDA_MUST(cudaDeviceCanAccessPeer(&can, 1, 0));
    if (!can) {
        ct_note("devices: peer copy SKIP, device 1 cannot access device 0");
    } else {
        CUDA_MUST(cudaSetDevice(1));
        cudaError_t e = cudaDeviceEnablePeerAccess(0, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
            CUDA_MUST(e);
        (void)cudaGetLastError();
        CUDA_MUST(cudaMemcpyPeer(d[1], 1, d[0], 0, 4096)); /* warm-up */
        CUDA_MUST(cudaDeviceSynchronize());
        ct_region("devices: a 9001-byte cudaMemcpyPeer from device 0 to device 1",
                  {{"gpu.memcpy.bytes_peer", 9001}, {"gpu.memcpy.bytes", 9001}, {"gpu.memcpy.count", 1},
                   {"gpu.memcpy.bytes_dtod", 0}},
                  [&] {
                      CUDA_MUST(cudaMemcpyPeer(d[1], 1, d[0], 0, 9001));
                      CUDA_MUST(cudaDeviceSynchronize());
                  });
    }
    for (int dev = 0; dev < 2; dev++) {
        CUDA_MUST(cudaSetDevice(dev));
        CUDA_MUST(cudaFree(d[dev]));
    }
    CUDA_MUST(cudaSetDevice(0));
    CUDA_MUST(cudaFreeHost(h));
}

int main()
{
    int n = require_gpu(1);
    ct_gpu_ready(1);
    paths_case();
    graph_case();
    time_case();
    copies_case();
    busy_case();
    threads_case();
    flush_case();
    devices_case(n);
    PAPI_shutdown();
    return ct_done();
}
