/* bench_util.h: helpers shared by the benchmark programs (C11 and CUDA C++).
 *
 * Timing (CLOCK_MONOTONIC in ns), fatal-error checks for PAPI and the CUDA
 * runtime, command-line options of the form --name=value, thread start/join,
 * and order statistics (median, percentile) of a sample array. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <papi.h>

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* PAPI calls that return PAPI_OK on success. */
#define PAPI_CHECK(call)                                                      \
    do {                                                                      \
        int rc_ = (call);                                                     \
        if (rc_ != PAPI_OK)                                                   \
            die("%s:%d: %s: %s", __FILE__, __LINE__, #call,                   \
                PAPI_strerror(rc_));                                          \
    } while (0)

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t rc_ = (call);                                             \
        if (rc_ != cudaSuccess)                                               \
            die("%s:%d: %s: %s", __FILE__, __LINE__, #call,                   \
                cudaGetErrorString(rc_));                                     \
    } while (0)

/* PAPI_library_init + PAPI_thread_init, for programs whose threads use PAPI. */
static inline unsigned long bench_thread_id(void)
{
    return (unsigned long)pthread_self();
}

static inline void bench_papi_init(void)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT)
        die("PAPI_library_init: %s", v < 0 ? PAPI_strerror(v) : "version mismatch");
    PAPI_CHECK(PAPI_thread_init(bench_thread_id));
}

/* Value of option "--name=value" in argv, or dflt when absent. */
static inline const char *opt_str(int argc, char **argv, const char *name, const char *dflt)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, name, n) == 0 &&
            argv[i][2 + n] == '=')
            return argv[i] + 3 + n;
    return dflt;
}

static inline int opt_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, name) == 0)
            return 1;
    return 0;
}

/* Start n threads running fn(args + i * arg_size), then join them all. */
static inline void run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
    pthread_t *tid = (pthread_t *)calloc((size_t)n, sizeof *tid);
    if (!tid)
        die("out of memory");
    for (int i = 0; i < n; i++)
        if (pthread_create(&tid[i], NULL, fn, (char *)args + (size_t)i * arg_size) != 0)
            die("pthread_create failed for thread %d of %d", i, n);
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    free(tid);
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0 <= q <= 1, nearest rank) of v[0..n-1]; sorts v in place. */
static inline double quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return v[k < n ? k : n - 1];
}

/* ---------------------------------------------------------------- is there a GPU?
 * The same test as tests/common/ctest_util.h: a GPU that is there but that CUDA cannot use is a
 * failure (exit 1); only a machine without an NVIDIA GPU gives exit 77 (nothing to measure). */
#include "gpu_present.h"
#define bench_gpu_present gpu_present
/* Exits 77 without a GPU, 1 when a GPU is there but CUDA cannot use it. */
static inline void bench_require_gpu(void)
{
    int n = 0;
    char why[768];
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0)
        return;
    if (bench_gpu_present(why, sizeof why))
        die("a GPU is present (%s) but CUDA cannot use it: cudaGetDeviceCount: %s", why,
            cudaGetErrorString(e));
    fprintf(stderr, "bench: no NVIDIA GPU on this machine: nothing to measure (cudaGetDeviceCount: %s)\n",
            cudaGetErrorString(e));
    exit(77);
}

#endif
