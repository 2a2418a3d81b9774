/*
 * flame_app: a CUDA program with known call paths, for tests/runner/run_flame.sh.  It links the
 * fake libcupti and libcuda (tests/fakes): its cuInit loads the injected library as the driver
 * does, its CUDA calls are played into CUPTI's callbacks from the functions below (as a program's
 * calls into libcudart are), and the GPU work's activity records are played at the end with known
 * durations:
 *
 *   main > a > b > cudaLaunchKernel   k1(int), 10,000 ns, twice
 *   main > c > cudaLaunchKernel       k2(), 20,000 ns
 *   main > c > cudaMemcpy             a copy host to device, 3,000 ns
 *   main > cudaMemset                 500 ns
 *   main > g > cudaGraphLaunch        two k2() of 5,000 ns and one plain_kernel of 1,000 ns (one
 *                                     correlation id: a graph's kernels all carry the launch's)
 *   main > e > cuLaunchKernel         k3(), 700 ns: the driver API, outside any runtime call
 *   main > e > cudaMemcpyAsync        (per-thread default stream: cudaMemcpyAsync_ptsz_v7000 >
 *                                     cuMemcpyHtoDAsync_v2_ptsz) a copy host to device, 300 ns
 *   worker > a > b > cudaLaunchKernel k1(int), 10,000 ns, on each of two threads
 *
 *   flame_app spin   first burns 100 ms of the main thread's CPU time in spin() (CPU samples)
 *   flame_app pyperf instead calls a() through a copy of Python 3.12's perf trampoline (in
 *                    memory of its own, with no unwind tables) listed in /tmp/perf-PID.map as
 *                    py::forward:model.py, as python3 -X perf runs each Python function:
 *                    main > run_python > [trampoline] > py_eval > a > b > cudaLaunchKernel, k1
 *
 * Every function of a path is kept out of line and ends with a compiler barrier, so that none
 * is inlined or left by a tail call: the stacks are the ones written above.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* dladdr, for fake_cuda.h */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_cuda.h"

#define PATH_FN __attribute__((noinline))
#define STAY() __asm__ volatile("" ::: "memory")

/* A runtime call enclosing the driver call it ends in, made by the caller of this (inlined)
 * function, as a program's call into libcudart; returns the call's correlation id. */
static inline __attribute__((always_inline)) uint32_t cuda_call(CUpti_CallbackId rt, CUpti_CallbackId drv,
								 const void *params)
{
	struct fake_call c;
	fake_call_init(&c, FAKE_RT, rt, NULL, 0, FAKE_CTX0);
	fake_enter(&c);
	fake_driver(drv, params, CUDA_SUCCESS, FAKE_CTX0);
	fake_exit(&c);
	return c.correlation_id;
}

static uint32_t corr_k1[4], corr_k2, corr_copy, corr_set, corr_graph, corr_k3, corr_async;

static inline __attribute__((always_inline)) uint32_t launch(void)
{
	cuLaunchKernel_params p;
	memset(&p, 0, sizeof p);
	return cuda_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
}

PATH_FN static void b(uint32_t *corr)
{
	*corr = launch();
	STAY();
}

PATH_FN static void a(uint32_t *corr)
{
	b(corr);
	STAY();
}

PATH_FN static void c(void)
{
	static char host[64];
	cuMemcpyHtoD_v2_params cp = { fake_dev_ptr(0, 0), host, sizeof host };
	corr_k2 = launch();
	corr_copy = cuda_call(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, &cp);
	STAY();
}

PATH_FN static void g(void)
{
	cuGraphLaunch_params p;
	memset(&p, 0, sizeof p);
	corr_graph = cuda_call(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &p);
	STAY();
}

PATH_FN static void e(void)
{
	static char host[64];
	cuLaunchKernel_params p;
	memset(&p, 0, sizeof p);
	struct fake_call drv;	/* a driver call of its own: a correlation id of its own */
	fake_call_init(&drv, FAKE_DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, CUDA_SUCCESS, FAKE_CTX0);
	fake_enter(&drv);
	fake_exit(&drv);
	corr_k3 = drv.correlation_id;
	cuMemcpyHtoDAsync_v2_params cp = { fake_dev_ptr(0, 0), host, sizeof host, NULL };
	corr_async = cuda_call(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
			       CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, &cp);
	STAY();
}

PATH_FN static void *worker(void *corr)
{
	a(corr);
	STAY();
	return NULL;
}

/* Python 3.12's x86-64 trampoline (Python/asm_trampoline.S): sub $8,%rsp; call *%rcx;
 * add $8,%rsp; ret.  Called as trampoline(ts, frame, throwflag, evaluator). */
static const unsigned char trampoline_code[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
typedef void *(*evaluator)(void *, void *, int);
typedef void *(*trampoline)(void *, void *, int, evaluator);

PATH_FN static void *py_eval(void *ts, void *frame, int throwflag)
{
	(void)ts, (void)throwflag;
	a(frame);
	STAY();
	return NULL;
}

/* The interpreter's call of a Python function: through its trampoline. */
PATH_FN static int run_python(uint32_t *corr)
{
	char path[64];
	void *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return -1;
	memcpy(code, trampoline_code, sizeof trampoline_code);
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %zx py::forward:model.py\n", (unsigned long)(uintptr_t)code, sizeof trampoline_code);
	fclose(f);
	((trampoline)code)(NULL, corr, 0, py_eval);
	STAY();
	return 0;
}

/* After the injected library's exit handler, which reads the map (registered before cuInit, so
 * that it runs after the library's). */
static void remove_perf_map(void)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
}

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

PATH_FN static void spin(double seconds)
{
	double end = cpu_s() + seconds;
	while (cpu_s() < end)
		STAY();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "pyperf"))
		atexit(remove_perf_map);
	if (fake_point_component_here(0) != 0 || cuInit(0) != CUDA_SUCCESS)
		return 10;
	if (argc > 1 && !strcmp(argv[1], "spin"))
		spin(0.1);
	if (argc > 1 && !strcmp(argv[1], "pyperf")) {
		if (run_python(&corr_k1[0]) != 0)
			return 12;
		fake_activity_kernel_named(corr_k1[0], "_Z2k1i", 1000000, 1010000, 0);
		return 0;
	}
	a(&corr_k1[0]);
	a(&corr_k1[1]);
	c();
	g();
	e();
	cuMemsetD8_v2_params ms = { fake_dev_ptr(0, 0), 0, 256 };
	corr_set = cuda_call(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, &ms);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &corr_k1[2 + i]) != 0)
			return 11;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);

	uint64_t at = 1000000;
	for (int i = 0; i < 4; i++, at += 100000)
		fake_activity_kernel_named(corr_k1[i], "_Z2k1i", at, at + 10000, 0);
	fake_activity_kernel_named(corr_k2, "_Z2k2v", at, at + 20000, 0);
	fake_activity_memcpy(corr_copy, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64, at + 30000, at + 33000, 0);
	fake_activity_memset(corr_set, 256, at + 40000, at + 40500, 0);
	fake_activity_kernel_named(corr_graph, "_Z2k2v", at + 50000, at + 55000, 0);
	fake_activity_kernel_named(corr_graph, "_Z2k2v", at + 55000, at + 60000, 0);
	fake_activity_kernel_named(corr_graph, "plain_kernel", at + 60000, at + 61000, 0);
	fake_activity_kernel_named(corr_k3, "_Z2k3v", at + 70000, at + 70700, 0);
	fake_activity_memcpy(corr_async, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64, at + 71000, at + 71300, 0);
	return 0;
}
