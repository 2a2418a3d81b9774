/* test_publish: metric values published for readers in signal handlers
 * (cupti_cb_publish.c) and the signal-context test (cupti_cb_signal_context.c).
 *
 * The writer (the main thread) publishes vectors whose every value is the
 * publication's number k, k growing, and every 7th with an error equal to
 * k's low bits; a SIGPROF handler at about 1 kHz (ITIMER_PROF), which
 * interrupts the writer on its own thread, and a reader thread read all the
 * time. Every copy read must be whole (all values equal), carry the error
 * it was published with, and never go back; a handler read never gives up
 * (the copy it takes is never the one being written). Also built with
 * ThreadSanitizer (test_publish_tsan). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "check.h"
#include "cupti_cb_publish.h"
#include "cupti_cb_signal_context.h"

#define N CUPTI_CB_PUBLISH_MAX
#define ROUNDS 3000000LL

static struct cupti_cb_publish pub;
static atomic_long handler_reads, handler_torn, handler_back, handler_not_in_signal_context;
static atomic_long thread_reads, thread_torn, thread_back, thread_busy;
static atomic_int done;

static int err_of(long long k)
{
	return k > 0 && k % 7 == 0 ? (int)(k & 0xff) + 1 : 0;	/* k = 0: the initial copy */
}

/* 1 when the copy is whole and fits its error; *k gets its number. */
static int whole(const long long *v, int err, long long *k)
{
	for (unsigned i = 1; i < N; i++)
		if (v[i] != v[0])
			return 0;
	*k = v[0];
	return err == err_of(v[0]);
}

static long long handler_last;

static void on_prof(int sig)
{
	(void)sig;
	long long v[N], k;
	int err = cupti_cb_publish_read(&pub, v, N);	/* CUPTI_CB_PUBLISH_BUSY counts as torn here */
	atomic_fetch_add(&handler_reads, 1);
	if (!cupti_cb_in_signal_context())
		atomic_fetch_add(&handler_not_in_signal_context, 1);
	if (!whole(v, err, &k))
		atomic_fetch_add(&handler_torn, 1);
	else if (k < handler_last)
		atomic_fetch_add(&handler_back, 1);
	else
		handler_last = k;
}

static void *reader(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* SIGPROF goes to the writer */
	long long last = 0, v[N], k;
	while (!atomic_load(&done)) {
		int err = cupti_cb_publish_read(&pub, v, N);
		atomic_fetch_add(&thread_reads, 1);
		if (err == CUPTI_CB_PUBLISH_BUSY)
			atomic_fetch_add(&thread_busy, 1);	/* overtaken every time: nothing handed out */
		else if (!whole(v, err, &k))
			atomic_fetch_add(&thread_torn, 1);
		else if (k < last)
			atomic_fetch_add(&thread_back, 1);
		else
			last = k;
	}
	return NULL;
}

static void on_other(int sig)
{
	(void)sig;
}

/* The rule of cupti_cb_signal_context.h: a call blocks, beyond the mask the
 * thread had at its last mark, a signal that has a handler installed. */
static void *signal_context(void *arg)
{
	(void)arg;
	sigset_t set, old, all;
	/* Before its first mark (a name lookup, a listing): a handler only where a sampler's
	 * signal with a handler is blocked. */
	CHECK(!cupti_cb_in_signal_context(), "a thread that never marked and blocks nothing is not in a handler");
	struct sigaction prof, prof_was;
	memset(&prof, 0, sizeof prof);
	prof.sa_handler = on_other;
	sigemptyset(&prof.sa_mask);
	sigaction(SIGPROF, &prof, &prof_was);
	sigset_t only_prof, before;
	sigemptyset(&only_prof);
	sigaddset(&only_prof, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &only_prof, &before);
	CHECK(cupti_cb_in_signal_context(), "one that never marked and blocks a handled SIGPROF is in a handler");
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	sigaction(SIGPROF, &prof_was, NULL);
	cupti_cb_signal_context_mark();
	CHECK(!cupti_cb_in_signal_context(), "an ordinary thread after its mark is not in a signal context");
	static const int sigs[] = { SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1, SIGUSR2, SIGIO, SIGCHLD, 0, 0 };
	int some[9];
	memcpy(some, sigs, sizeof sigs);
	some[7] = SIGRTMIN;
	some[8] = SIGRTMAX;
	struct sigaction sa, was[9];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_other;
	for (unsigned i = 0; i < 9; i++) {
		sigemptyset(&set);
		sigaddset(&set, some[i]);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		CHECK(!cupti_cb_in_signal_context(), "blocking signal %d, which has no handler, does not", some[i]);
		sigaction(some[i], &sa, &was[i]);
		CHECK(cupti_cb_in_signal_context(), "blocking signal %d, which has a handler, reads as a signal context",
		      some[i]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		CHECK(!cupti_cb_in_signal_context(), "and unblocking it does not");
	}
	/* A thread that blocks every signal for its own reasons (a sigwait
	 * thread) at its mark: its calls are its own, with handlers installed. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	cupti_cb_signal_context_mark();
	CHECK(cupti_cb_in_signal_context(), "a later mark that blocks handled signals anew keeps the reference");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (unsigned i = 0; i < 9; i++)
		sigaction(some[i], &was[i], NULL);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	cupti_cb_signal_context_mark();
	CHECK(!cupti_cb_in_signal_context(), "every signal blocked at the mark, without handlers: not in a handler");
	for (unsigned i = 0; i < 9; i++)
		sigaction(some[i], &sa, NULL);
	CHECK(!cupti_cb_in_signal_context(), "nor once they have handlers: nothing is blocked anew");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CHECK(!cupti_cb_in_signal_context(), "nor after it unblocks them");
	for (unsigned i = 0; i < 9; i++)
		sigaction(some[i], &was[i], NULL);
	cupti_cb_signal_context_mark();
	cupti_cb_signal_context_service_thread();
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigaction(SIGPROF, &sa, &was[0]);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	CHECK(!cupti_cb_in_signal_context(), "a service thread is never in a signal context");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGPROF, &was[0], NULL);
	return NULL;
}

int main(void)
{
	pthread_t sc;	/* a fresh thread: no mark yet, and its service-thread flag stays its own */
	pthread_create(&sc, NULL, signal_context, NULL);
	pthread_join(sc, NULL);
	cupti_cb_signal_context_mark();	/* the writer's own code: what its handler blocks is new */

	cupti_cb_publish_init(&pub);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;	/* no SA_NODEFER: SIGPROF is blocked in the handler */
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	setitimer(ITIMER_PROF, &it, NULL);

	long long v[N];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long long k = 1; k <= ROUNDS; k++) {
		for (unsigned i = 0; i < N; i++)
			v[i] = k;
		cupti_cb_publish_write(&pub, v, N, err_of(k));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* At least 300 handler reads, at most 20 s. */
		if (atomic_load(&handler_reads) >= 300 && k > 100000)
			break;
		if (t1.tv_sec - t0.tv_sec > 20)
			break;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	signal(SIGPROF, SIG_IGN);

	printf("# %ld reads in the SIGPROF handler, %ld in a reader thread (%ld gave up, overtaken)\n",
	       atomic_load(&handler_reads), atomic_load(&thread_reads), atomic_load(&thread_busy));
	CHECK(atomic_load(&handler_reads) >= 100, "the handler read while the writer wrote: %ld reads",
	      atomic_load(&handler_reads));
	CHECK_EQ(atomic_load(&handler_not_in_signal_context), 0, "handler reads not seen as in a signal context");
	CHECK_EQ(atomic_load(&handler_torn), 0, "copies read in the handler that were torn or had another error");
	CHECK_EQ(atomic_load(&handler_back), 0, "handler reads that went back");
	CHECK(atomic_load(&thread_reads) > atomic_load(&thread_busy), "the reader thread read whole copies");
	CHECK_EQ(atomic_load(&thread_torn), 0, "copies read by the thread that were torn or had another error");
	CHECK_EQ(atomic_load(&thread_back), 0, "thread reads that went back");
	return checks_done();
}
