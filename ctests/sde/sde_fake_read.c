/* sde_fake_read.c: a PAPI program that knows nothing of cupti_cb, built
 * against the PAPI the system has (Debian's libpapi-dev), reading
 * libcupti_cb_sde.so's counters as sde:::cupti_cb::NAME while it plays CUDA
 * calls into the fakes (tests/fakes). sde_packaged.sh builds and runs it with
 * the library preloaded, and linked. Cases, one process each:
 *   threads   - two threads, each with its own set of kernel.launches and
 *               kernel.launches:process, launch, read and reset in turn: each
 *               thread reads its own launches since its own start or reset,
 *               and the process's since then (libsde keeps one base per
 *               counter for the whole process; the library keeps one per thread);
 *               a third thread that launched nothing reads 0.
 *   onethread - the same counters on one thread: start, reset, read, stop.
 *   second    - a counter read on one thread, then on another: the second
 *               thread reads its own count. With SDE_AFTER_LIBSDE=1 (the
 *               library loaded after libsde, so that PAPI's resets would not
 *               reach it) the library registers nothing and both read -1,
 *               SDE's value for a name no library registered: never a count
 *               measured from another thread's reset.
 *   copies    - memcpy.bytes_htod, memset.bytes, cudaMemcpy.calls (a runtime
 *               function's counter) and api.calls:process.
 *   gpu       - gpu.kernels and gpu.kernels:process, from activity records.
 *   names     - every sde:::cupti_cb:: name PAPI lists turns into a code that
 *               names it again, and adds to an event set.
 */
#include "ctest_util.h"
#include "fake_play.h"

#define SDE(n) "sde:::cupti_cb::" n

static int set_of(int n, const char *const names[])
{
	int es = PAPI_NULL;
	PAPI_MUST(PAPI_create_eventset(&es));
	for (int i = 0; i < n; i++) {
		int rc = PAPI_add_named_event(es, names[i]);
		if (rc != PAPI_OK)
			ct_fatal("PAPI_add_named_event(%s): %s", names[i], PAPI_strerror(rc));
	}
	return es;
}

static void done_with(int es)
{
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

static void init(int threads)
{
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		ct_fatal("PAPI_library_init");
	if (threads)
		PAPI_MUST(PAPI_thread_init(ct_thread_id));
}

/* ---- threads ---- */

static pthread_barrier_t bar;
static const char *const launch_names[] = { SDE("kernel.launches"), SDE("kernel.launches:process") };

struct turn {
	const char *who;
	int es;
};

static void step(void)
{
	pthread_barrier_wait(&bar);
}

static void check_read(struct turn *t, const char *when, long long want, long long want_process)
{
	long long v[2] = { -2, -2 };
	char name[160];
	PAPI_MUST(PAPI_read(t->es, v));
	snprintf(name, sizeof name, "%s %s: kernel.launches", t->who, when);
	CHECK_EQ(name, v[0], want);
	snprintf(name, sizeof name, "%s %s: kernel.launches:process", t->who, when);
	CHECK_EQ(name, v[1], want_process);
}

static void *thread_a(void *arg)
{
	struct turn t = { "thread A", set_of(2, launch_names) };
	(void)arg;
	PAPI_MUST(PAPI_start(t.es));
	step();				/* 1: both started */
	play_launches(3, FAKE_CTX0);
	step();				/* 2: A launched 3 */
	step();				/* 3: B launched 5 */
	check_read(&t, "after its 3 and B's 5", 3, 8);
	step();				/* 4: both read */
	PAPI_MUST(PAPI_reset(t.es));
	step();				/* 5: A reset */
	step();				/* 6: B launched 2 */
	play_launches(1, FAKE_CTX0);
	step();				/* 7: A launched 1 */
	check_read(&t, "since its reset: its 1, B's 2", 1, 3);
	step();				/* 8 */
	long long v[2];
	PAPI_MUST(PAPI_stop(t.es, v));
	done_with(t.es);
	return NULL;
}

static void *thread_b(void *arg)
{
	struct turn t = { "thread B", set_of(2, launch_names) };
	(void)arg;
	PAPI_MUST(PAPI_start(t.es));
	step();				/* 1 */
	step();				/* 2 */
	play_launches(5, FAKE_CTX0);
	step();				/* 3 */
	check_read(&t, "after A's 3 and its 5", 5, 8);
	step();				/* 4 */
	step();				/* 5: A reset its set */
	play_launches(2, FAKE_CTX0);
	step();				/* 6 */
	step();				/* 7 */
	check_read(&t, "after A's reset: its 7 since its start", 7, 11);
	step();				/* 8 */
	long long v[2];
	PAPI_MUST(PAPI_stop(t.es, v));
	CHECK_EQ("thread B: PAPI_stop's kernel.launches", v[0], 7);
	done_with(t.es);
	return NULL;
}

static void *thread_c(void *arg)
{
	struct turn t = { "thread C", set_of(2, launch_names) };
	(void)arg;
	PAPI_MUST(PAPI_start(t.es));
	check_read(&t, "which launched nothing", 0, 0);
	long long v[2];
	PAPI_MUST(PAPI_stop(t.es, v));
	done_with(t.es);
	return NULL;
}

static int case_threads(void)
{
	pthread_t a, b, c;
	init(1);
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_create(&c, NULL, thread_c, NULL);
	pthread_join(c, NULL);
	return ct_done();
}

/* ---- one thread ---- */

static int case_onethread(void)
{
	long long v[2] = { -2, -2 };
	init(0);
	play_launches(4, FAKE_CTX0);	/* before any set: not counted */
	int es = set_of(2, launch_names);
	PAPI_MUST(PAPI_start(es));
	PAPI_MUST(PAPI_read(es, v));
	CHECK_EQ("right after the start: kernel.launches", v[0], 0);
	play_launches(6, FAKE_CTX0);
	PAPI_MUST(PAPI_read(es, v));
	CHECK_EQ("6 launches: kernel.launches", v[0], 6);
	CHECK_EQ("6 launches: kernel.launches:process", v[1], 6);
	PAPI_MUST(PAPI_reset(es));
	play_launches(2, FAKE_CTX0);
	PAPI_MUST(PAPI_stop(es, v));
	CHECK_EQ("2 launches after the reset: PAPI_stop's kernel.launches", v[0], 2);
	PAPI_MUST(PAPI_start(es));
	play_launches(1, FAKE_CTX0);
	PAPI_MUST(PAPI_stop(es, v));
	CHECK_EQ("a second start, 1 launch: kernel.launches", v[0], 1);
	done_with(es);
	return ct_done();
}

/* ---- second ---- */

static void *second_thread(void *arg)
{
	long long *v = arg;
	int es = set_of(1, launch_names);
	PAPI_MUST(PAPI_start(es));
	play_launches(1, FAKE_CTX0);
	PAPI_MUST(PAPI_stop(es, v));
	done_with(es);
	return NULL;
}

static int case_second(void)
{
	long long v = -2, v2 = -2;
	const char *after = getenv("SDE_AFTER_LIBSDE");
	int after_libsde = after && !strcmp(after, "1");
	pthread_t t;
	init(1);
	int es = set_of(1, launch_names);
	PAPI_MUST(PAPI_start(es));
	play_launches(2, FAKE_CTX0);
	PAPI_MUST(PAPI_stop(es, &v));
	done_with(es);
	CHECK_EQ(after_libsde ? "the first thread, library loaded after libsde: kernel.launches (SDE's -1)"
			      : "the first thread: kernel.launches",
		 v, after_libsde ? -1 : 2);
	pthread_create(&t, NULL, second_thread, &v2);
	pthread_join(t, NULL);
	CHECK_EQ(after_libsde ? "the second thread, library loaded after libsde: kernel.launches (SDE's -1)"
			      : "the second thread: kernel.launches",
		 v2, after_libsde ? -1 : 1);
	return ct_done();
}

/* ---- copies ---- */

static int case_copies(void)
{
	static const char *const names[] = { SDE("memcpy.bytes_htod"), SDE("memset.bytes"), SDE("cudaMemcpy.calls"),
					     SDE("api.calls:process") };
	long long v[4];
	init(0);
	int es = set_of(4, names);
	PAPI_MUST(PAPI_start(es));
	play_htod(1000, 0);
	play_htod(24, 0);
	play_memset(512, 0);
	PAPI_MUST(PAPI_stop(es, v));
	CHECK_EQ("memcpy.bytes_htod", v[0], 1024);
	CHECK_EQ("memset.bytes", v[1], 512);
	CHECK_EQ("cudaMemcpy.calls", v[2], 2);
	CHECK_EQ("api.calls:process: 2 cudaMemcpy and 1 cudaMemset", v[3], 3);
	done_with(es);
	return ct_done();
}

/* ---- gpu ---- */

static uint32_t launch(void)
{
	cuLaunchKernel_params p;
	struct fake_call c;
	memset(&p, 0, sizeof p);
	fake_call_init(&c, FAKE_DRV, DCB(cuLaunchKernel), &p, CUDA_SUCCESS, FAKE_CTX0);
	fake_enter(&c);
	fake_exit(&c);
	return c.correlation_id;
}

static int case_gpu(void)
{
	static const char *const names[] = { SDE("gpu.kernels"), SDE("gpu.kernels:process") };
	long long v[2];
	init(0);
	int es = set_of(2, names);
	PAPI_MUST(PAPI_start(es));
	for (int k = 0; k < 3; k++)
		fake_activity_kernel(launch(), 1000u * (uint64_t)k, 1000u * (uint64_t)k + 100, 0);
	PAPI_MUST(PAPI_stop(es, v));
	CHECK_EQ("gpu.kernels: 3 kernels ran", v[0], 3);
	CHECK_EQ("gpu.kernels:process", v[1], 3);
	done_with(es);
	return ct_done();
}

/* ---- names ---- */

static int case_names(void)
{
	init(0);
	int cid = PAPI_get_component_index("sde"), code = 0 | PAPI_NATIVE_MASK, n = 0, back = 0, added = 0;
	if (cid < 0)
		ct_fatal("this libpapi has no sde component");
	int es = PAPI_NULL;
	PAPI_MUST(PAPI_create_eventset(&es));
	char first_bad[PAPI_MAX_STR_LEN] = "";
	for (int rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid); rc == PAPI_OK;
	     rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid)) {
		char name[PAPI_MAX_STR_LEN], name_again[PAPI_MAX_STR_LEN] = "";
		int again = 0;
		if (PAPI_event_code_to_name(code, name) != PAPI_OK || strncmp(name, SDE(""), strlen(SDE(""))))
			continue;
		n++;
		/* PAPI 7.0 gives a looked-up name a code of its own, which
		 * names the same event. */
		if (PAPI_event_name_to_code(name, &again) == PAPI_OK &&
		    PAPI_event_code_to_name(again, name_again) == PAPI_OK && !strcmp(name, name_again))
			back++;
		else if (!first_bad[0])
			snprintf(first_bad, sizeof first_bad, "%s", name);
		if (PAPI_add_event(es, code) == PAPI_OK && PAPI_remove_event(es, code) == PAPI_OK)
			added++;
	}
	ct_note("%d sde:::cupti_cb:: names listed%s%s", n, first_bad[0] ? "; first that does not turn back: " : "",
		first_bad);
	CHECK_REL("names listed (the CUDA functions' counters, with their :process forms)", n, ">", 5000);
	CHECK_EQ("names that turn into a code and back", back, n);
	CHECK_EQ("names that add to an event set", added, n);
	done_with(es);
	return ct_done();
}

int main(int argc, char **argv)
{
	static const struct fake_case cases[] = {
		{ "threads", case_threads }, { "onethread", case_onethread }, { "second", case_second },
		{ "copies", case_copies },
		{ "gpu", case_gpu },	     { "names", case_names },
	};
	return fake_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
