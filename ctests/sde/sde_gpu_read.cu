/* sde_gpu_read: a PAPI program that knows nothing of cupti_cb, reading libcupti_cb_sde.so's
 * counters on a GPU through a PAPI built without cupti_cb (run-sde-check runs it with Debian's
 * libpapi.so.7.0 first on LD_LIBRARY_PATH and the library preloaded; it SKIPs where the PAPI
 * it got has cupti_cb in it). Two threads, each with its own set of kernel.launches,
 * kernel.launches:process and gpu.kernels, launch on their own streams, synchronize, read and
 * reset in turn: each reads its own launches and kernels since its own start or reset, and
 * the process's launches since then. */
#include "ctest_util.h"

#include <pthread.h>

#define SDE(n) "sde:::cupti_cb::" n

static pthread_barrier_t bar;

static void step(void)
{
	pthread_barrier_wait(&bar);
}

struct turn {
	const char *who;
	int es;
	cudaStream_t s;
};

static void open_turn(struct turn *t, const char *who)
{
	static const char *const names[] = { SDE("kernel.launches"), SDE("kernel.launches:process"),
					     SDE("gpu.kernels") };
	t->who = who;
	t->es = PAPI_NULL;
	CUDA_MUST(cudaSetDevice(0));
	CUDA_MUST(cudaStreamCreateWithFlags(&t->s, cudaStreamNonBlocking));
	PAPI_MUST(PAPI_create_eventset(&t->es));
	for (const char *n : names) {
		int rc = PAPI_add_named_event(t->es, n);
		if (rc != PAPI_OK)
			ct_fatal("PAPI_add_named_event(%s): %s", n, PAPI_strerror(rc));
	}
	PAPI_MUST(PAPI_start(t->es));
}

static void launch(struct turn *t, int n)
{
	ct_launch(n, t->s);
	CUDA_MUST(cudaStreamSynchronize(t->s));
}

static void check_read(struct turn *t, const char *when, long long launches, long long process)
{
	long long v[3] = { -2, -2, -2 };
	char name[200];
	PAPI_MUST(PAPI_read(t->es, v));
	snprintf(name, sizeof name, "%s %s: kernel.launches", t->who, when);
	CHECK_EQ(name, v[0], launches);
	snprintf(name, sizeof name, "%s %s: kernel.launches:process", t->who, when);
	CHECK_EQ(name, v[1], process);
	snprintf(name, sizeof name, "%s %s: gpu.kernels", t->who, when);
	CHECK_EQ(name, v[2], launches);
}

static void close_turn(struct turn *t)
{
	long long v[3];
	PAPI_MUST(PAPI_stop(t->es, v));
	PAPI_MUST(PAPI_cleanup_eventset(t->es));
	PAPI_MUST(PAPI_destroy_eventset(&t->es));
	CUDA_MUST(cudaStreamDestroy(t->s));
}

static void *thread_a(void *)
{
	struct turn t;
	open_turn(&t, "thread A");
	step();	/* 1: both started */
	launch(&t, 3);
	step();	/* 2 */
	step();	/* 3: B launched 5 */
	check_read(&t, "after its 3 and B's 5", 3, 8);
	step();	/* 4 */
	PAPI_MUST(PAPI_reset(t.es));
	step();	/* 5 */
	step();	/* 6: B launched 2 */
	launch(&t, 1);
	step();	/* 7 */
	check_read(&t, "since its reset: its 1, B's 2", 1, 3);
	step();	/* 8 */
	close_turn(&t);
	return NULL;
}

static void *thread_b(void *)
{
	struct turn t;
	open_turn(&t, "thread B");
	step();	/* 1 */
	step();	/* 2: A launched 3 */
	launch(&t, 5);
	step();	/* 3 */
	check_read(&t, "after A's 3 and its 5", 5, 8);
	step();	/* 4 */
	step();	/* 5: A reset */
	launch(&t, 2);
	step();	/* 6 */
	step();	/* 7: A launched 1 */
	check_read(&t, "after A's reset: its 7 since its start", 7, 11);
	step();	/* 8 */
	close_turn(&t);
	return NULL;
}

int main()
{
	require_gpu(1);
	ct_use_device(0);
	ct_launch(1, 0); /* module loading stays out of the counts */
	CUDA_MUST(cudaDeviceSynchronize());
	ct_library_init();
	if (PAPI_get_component_index("cupti_cb") >= 0)
		ct_skip("this libpapi has cupti_cb in it: run with a PAPI built without it first on "
			"LD_LIBRARY_PATH (run-sde-check puts Debian's there)");
	if (PAPI_get_component_index("sde") < 0)
		ct_skip("this libpapi has no sde component");
	PAPI_MUST(PAPI_thread_init(ct_thread_id));
	pthread_t a, b;
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return ct_done();
}
