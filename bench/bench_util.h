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
 * The same test as ctests/ctest_util.h: a GPU that is there but that CUDA cannot use is a
 * failure (exit 1); only a machine without an NVIDIA GPU gives exit 77 (nothing to measure). */
#include <dirent.h>
#include <unistd.h>

/* Does dir hold an entry other than "." and ".."?  Its first such name goes to name. */
static inline int bench_dir_has_entry(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(name, len, "%s", e->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

/*
 * Is an NVIDIA GPU on this machine, whether or not CUDA can use it?  Looks at what exists
 * without CUDA: the driver's /proc/driver/nvidia/gpus, its /dev/nvidiactl and /dev/nvidia0,
 * `nvidia-smi -L`, and PCI display controllers of vendor 0x10de.  On yes, the evidence goes
 * to why.  Used to tell "no GPU" (SKIP) from "a GPU that CUDA cannot use" (FAIL).
 */
static inline int bench_gpu_present(char *why, size_t len)
{
    char name[256], line[512];
    FILE *f;
    if (bench_dir_has_entry("/proc/driver/nvidia/gpus", name, sizeof name)) {
        snprintf(why, len, "/proc/driver/nvidia/gpus/%s exists", name);
        return 1;
    }
    if (access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0) {
        snprintf(why, len, "%s exists",
                 access("/dev/nvidiactl", F_OK) == 0 ? "/dev/nvidiactl" : "/dev/nvidia0");
        return 1;
    }
    if ((f = popen("nvidia-smi -L 2>/dev/null", "r")) != NULL) {
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            if (strncmp(line, "GPU ", 4) == 0) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(why, len, "nvidia-smi -L lists \"%s\"", line);
                found = 1;
            }
        pclose(f);
        if (found)
            return 1;
    }
    DIR *d = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        char path[512];
        unsigned vendor = 0, cls = 0;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", e->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%x", &vendor) != 1)
                vendor = 0;
            fclose(f);
        }
        if (vendor != 0x10de)
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%x", &cls) != 1)
                cls = 0;
            fclose(f);
        }
        if ((cls >> 16) == 0x03) { /* display controller: VGA or 3D */
            snprintf(why, len, "PCI device %s is an NVIDIA display controller (class 0x%06x)",
                     e->d_name, cls);
            found = 1;
        }
    }
    if (d)
        closedir(d);
    return found;
}

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
