/* bench_args.h: what the benchmark's plain programs (no PAPI: bench_app_loop, bench_streams,
 * bench_hotpath) share: their --name=value options and their clock; for the CUDA ones, the
 * check of a CUDA call (BENCH_PROG names the program) and libbench_where.so's hooks. */
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The value of --name=value, or def. */
static inline long bench_opt(int argc, char **argv, const char *name, long def)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], name, n) && argv[i][n] == '=')
            return atol(argv[i] + n + 1);
    return def;
}

static inline unsigned long long bench_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

#ifdef __CUDACC__
#include <stdio.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, BENCH_PROG ": %s: %s\n", #call, cudaGetErrorString(e_));    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* libbench_where.so's hooks, when it is preloaded (run-runner-bench's profiles): its samples
 * then cover the timed part only. */
extern "C" void bench_where_begin(void) __attribute__((weak));
extern "C" void bench_where_end(void) __attribute__((weak));
#endif

#endif
