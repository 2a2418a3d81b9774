/*
 * gpu_overflow: PAPI_overflow on callback events with the real CUPTI (cupti_cb-threads(7), "Sampling
 * with PAPI_overflow").  The handler must run on the thread whose CUDA call crossed the
 * threshold, while that call runs (a thread-local marker set around each call says which), once
 * per threshold crossed.
 *
 *   main thread   {cudaMemcpy.calls@10, memcpy.bytes_htod@1MiB, kernel.launches@100}: 1,000
 *                 cudaMemcpy of 4 KiB host to device give 100 call overflows, each in call 10k,
 *                 and 3 byte overflows (4,000,000 bytes); one copy of 10 MiB then 10 byte
 *                 overflows, all in it; 1,000 launches 10 launch overflows; a PAPI_read in the
 *                 handler already counts the call it interrupts; the counts are exact.
 *   threads       two threads, each with its own set {cudaMemcpy.calls@10}, 200 and 300 copies at
 *                 once: 20 and 30 samples, each on its own thread, inside its own call.
 *   refusal       gpu.kernels: PAPI_ENOSUPP at PAPI_overflow.
 */
#include "ctest_util.h"

#include <sys/syscall.h>

#define MIB (1024 * 1024)

static __thread int inside;     /* the call being made on this thread: 1, 2, ... (0: none) */
static __thread long long calls_read[128];
static __thread int samples, bytes_samples, launch_samples, outside, wrong_call, wrong_tid;
static __thread pid_t tid;

enum { CALLS, BYTES, LAUNCHES };

static void handler(int es, void *, long long vector, void *)
{
    int idx[4], n = 4;
    if ((pid_t)syscall(SYS_gettid) != tid)
        wrong_tid++;
    if (!inside)
        outside++;
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) != PAPI_OK)
        return;
    for (int i = 0; i < n; i++) {
        if (idx[i] == CALLS) {
            if (samples < 128) {
                long long v[3] = {-1, -1, -1};
                PAPI_read(es, v);
                calls_read[samples] = v[CALLS];
            }
            samples++;
            if (inside % 10 != 0)
                wrong_call++;
        } else if (idx[i] == BYTES) {
            bytes_samples++;
        } else if (idx[i] == LAUNCHES) {
            launch_samples++;
        }
    }
}

static int code_of(const char *name)
{
    char buf[PAPI_MAX_STR_LEN];
    int code;
    PAPI_MUST(PAPI_event_name_to_code(ct_full_name(name, buf, sizeof buf), &code));
    return code;
}

static char *dbuf;
static char *hbuf;

static void copies(int n, size_t bytes)
{
    for (int i = 1; i <= n; i++) {
        inside = i;
        CUDA_MUST(cudaMemcpy(dbuf, hbuf, bytes, cudaMemcpyHostToDevice));
        inside = 0;
    }
}

static void main_thread(void)
{
    static const char *const names[] = {"cudaMemcpy.calls", "memcpy.bytes_htod", "kernel.launches"};
    long long v[3];
    tid = (pid_t)syscall(SYS_gettid);
    int es = ct_eventset(3, names);
    CHECK_PAPI(PAPI_overflow(es, code_of(names[CALLS]), 10, 0, handler));
    CHECK_PAPI(PAPI_overflow(es, code_of(names[BYTES]), MIB, 0, handler));
    CHECK_PAPI(PAPI_overflow(es, code_of(names[LAUNCHES]), 100, 0, handler));
    PAPI_MUST(PAPI_start(es));
    copies(1000, 4000);
    int bytes_before = bytes_samples;
    inside = 1;                 /* one call of 10 MiB: its samples come in it */
    CUDA_MUST(cudaMemcpy(dbuf, hbuf, 10 * MIB, cudaMemcpyHostToDevice));
    inside = 0;
    int big = bytes_samples - bytes_before;
    inside = 10;
    ct_launch(1000, 0);
    inside = 0;
    CUDA_MUST(cudaDeviceSynchronize());
    PAPI_MUST(PAPI_stop(es, v));
    CHECK_EQ("cudaMemcpy.calls", v[CALLS], 1001);
    CHECK_EQ("memcpy.bytes_htod", v[BYTES], 4000000LL + 10 * MIB);
    CHECK_EQ("kernel.launches", v[LAUNCHES], 1000);
    CHECK_EQ("cudaMemcpy.calls@10: 1001 calls give 100 samples", samples, 100);
    CHECK_EQ("each in call 10k", wrong_call, 0);
    int wrong_read = 0;
    for (int k = 0; k < samples && k < 128; k++)
        wrong_read += calls_read[k] != 10 * (k + 1);
    CHECK_EQ("a read in the handler counts the call it interrupts", wrong_read, 0);
    CHECK_EQ("memcpy.bytes_htod@1MiB: 13 samples in 14,485,760 bytes", bytes_samples, 13);
    CHECK_EQ("the 10 MiB copy gives 10, during it", big, 10);
    CHECK_EQ("kernel.launches@100: 10 samples", launch_samples, 10);
    CHECK_EQ("no sample outside a call", outside, 0);
    CHECK_EQ("every sample on this thread", wrong_tid, 0);
    ct_destroy(&es);
}

struct worker {
    int n;
    int samples, outside, wrong_call, wrong_tid;
    long long calls;
};

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    static const char *const names[] = {"cudaMemcpy.calls"};
    tid = (pid_t)syscall(SYS_gettid);
    PAPI_MUST(PAPI_register_thread());
    CUDA_MUST(cudaSetDevice(0));
    int es = ct_eventset(1, names);
    CHECK_PAPI(PAPI_overflow(es, code_of(names[0]), 10, 0, handler));
    PAPI_MUST(PAPI_start(es));
    copies(w->n, 4096);
    PAPI_MUST(PAPI_stop(es, &w->calls));
    w->samples = samples;
    w->outside = outside;
    w->wrong_call = wrong_call;
    w->wrong_tid = wrong_tid;
    ct_destroy(&es);
    PAPI_unregister_thread();
    return nullptr;
}

static void threads(void)
{
    struct worker w[2] = {{200, 0, 0, 0, 0, 0}, {300, 0, 0, 0, 0, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], nullptr, worker_main, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], nullptr);
    for (int i = 0; i < 2; i++) {
        char what[128];
        snprintf(what, sizeof what, "thread %d: %d calls counted", i, w[i].n);
        CHECK_EQ(what, w[i].calls, w[i].n);
        snprintf(what, sizeof what, "thread %d: %d samples", i, w[i].n / 10);
        CHECK_EQ(what, w[i].samples, w[i].n / 10);
        CHECK_EQ("each on its own thread", w[i].wrong_tid, 0);
        CHECK_EQ("each inside its own call 10k", w[i].outside + w[i].wrong_call, 0);
    }
}

static void refusal(void)
{
    static const char *const names[] = {"gpu.kernels"};
    int es = ct_eventset(1, names);
    ct_check_rc("PAPI_overflow on gpu.kernels", PAPI_overflow(es, code_of(names[0]), 10, 0, handler),
                PAPI_ENOSUPP);
    ct_destroy(&es);
}

int main()
{
    ct_gpu_ready(1);
    CUDA_MUST(cudaMalloc(&dbuf, 10 * MIB));
    hbuf = (char *)calloc(10 * MIB, 1);
    CUDA_MUST(cudaMemcpy(dbuf, hbuf, 4096, cudaMemcpyHostToDevice)); /* warm-up */
    main_thread();
    threads();
    refusal();
    CUDA_MUST(cudaFree(dbuf));
    free(hbuf);
    PAPI_shutdown();
    return ct_done();
}
