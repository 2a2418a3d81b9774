/* test_overflow.c: the crossing check of PAPI_overflow (cupti_cb_overflow.c)
 * on a counter block of its own: nothing while unarmed, exact crossings, one
 * signal per update that crosses and one pending crossing per threshold
 * crossed, taken one at a time, the signal on the thread that armed it, and
 * a disarm that takes off only its own overflow. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "cupti_cb_overflow.h"

#define N_CTRS 4

static volatile sig_atomic_t signals;
static volatile pid_t landed_on;

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)info, (void)uc;
	signals++;
	landed_on = (pid_t)syscall(SYS_gettid);
}

static struct cupti_cb_thread_counters *new_block(void)
{
	size_t size = (sizeof(struct cupti_cb_thread_counters) + N_CTRS * sizeof(_Atomic uint64_t) + 63) / 64 * 64;
	struct cupti_cb_thread_counters *b = aligned_alloc(64, size);	/* c is on a line of its own */
	memset(b, 0, size);
	for (int i = 0; i < N_CTRS; i++)
		atomic_init(&b->c[i], 0);
	atomic_init(&b->ovf, NULL);
	return b;
}

/* The event of c[first] + c[first + 1]. */
static struct cupti_cb_probe two_counters(uint32_t first)
{
	struct cupti_cb_probe p = { .off = first, .n = 2, .rows = 1, .stride = 0, .ticks = 0 };
	return p;
}

static int sig;

static void takes(struct cupti_cb_ovf *o, unsigned k, int want, const char *what)
{
	int got = 0;
	while (cupti_cb_ovf_take(o, k))
		got++;
	CHECK_EQ(got, want, what);
}

struct armed_elsewhere {
	struct cupti_cb_thread_counters *b;
	struct cupti_cb_ovf o;
	pid_t tid;
};

static void *arm_and_cross(void *arg)
{
	struct armed_elsewhere *a = arg;
	a->tid = (pid_t)syscall(SYS_gettid);
	cupti_cb_ovf_arm(&a->o, a->b, sig);
	cupti_cb_bump(&a->b->c[0], 5);
	cupti_cb_ovf_check(a->b);
	cupti_cb_ovf_disarm(&a->o, a->b);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sig = SIGRTMIN + CUPTI_CB_OVF_SIGNAL_OFFSET;
	sigaction(sig, &sa, NULL);

	struct cupti_cb_thread_counters *b = new_block();
	struct cupti_cb_ovf o;
	memset(&o, 0, sizeof o);
	o.n = 2;
	o.ix[0] = 0, o.probe[0] = two_counters(0), o.threshold[0] = 10;
	o.ix[1] = 3, o.probe[1] = two_counters(2), o.threshold[1] = 1000;

	cupti_cb_bump(&b->c[0], 100);
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 0, "unarmed: 100 events raise nothing");

	cupti_cb_ovf_arm(&o, b, sig);
	CHECK(atomic_load(&b->ovf) == &o, "armed on the block");
	cupti_cb_bump(&b->c[0], 9);
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 0, "9 events after the arm: below the threshold of 10");
	cupti_cb_bump(&b->c[1], 1);
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 1, "the 10th event (in the event's other counter) raises the signal");
	CHECK_EQ(landed_on, (pid_t)syscall(SYS_gettid), "on the calling thread");
	takes(&o, 0, 1, "one crossing pending");
	takes(&o, 1, 0, "none of the other event");

	cupti_cb_bump(&b->c[0], 35);	/* 45 since the arm: crosses 20, 30, 40 */
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 2, "an update that crosses three thresholds raises one signal");
	takes(&o, 0, 3, "and owes three crossings");
	cupti_cb_bump(&b->c[0], 4);	/* 49 */
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 2, "49: the next threshold is 50");
	cupti_cb_bump(&b->c[0], 1);
	cupti_cb_bump(&b->c[3], 2000);	/* both events cross in one update */
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 3, "both events crossing in one update: one signal");
	takes(&o, 0, 1, "one crossing of the first event");
	takes(&o, 1, 2, "two of the second (2000 at 1000)");

	struct cupti_cb_ovf other;
	memset(&other, 0, sizeof other);
	cupti_cb_ovf_disarm(&other, b);
	CHECK(atomic_load(&b->ovf) == &o, "a disarm of another overflow leaves this one");
	cupti_cb_ovf_disarm(&o, b);
	CHECK(atomic_load(&b->ovf) == NULL, "its own disarm takes it off");
	cupti_cb_bump(&b->c[0], 1000);
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 3, "disarmed: 1000 events raise nothing");
	cupti_cb_ovf_disarm(&o, NULL);	/* never armed anywhere: nothing to do */

	cupti_cb_ovf_arm(&o, b, sig);
	cupti_cb_bump(&b->c[0], 9);
	cupti_cb_ovf_check(b);
	CHECK_EQ(signals, 3, "armed again: thresholds count from the new arm");
	takes(&o, 0, 0, "and nothing left pending from before");
	cupti_cb_ovf_disarm(&o, b);

	/* Armed by another thread on its own block: the signal lands there. */
	struct armed_elsewhere a;
	memset(&a, 0, sizeof a);
	a.b = new_block();
	a.o.n = 1;
	a.o.probe[0] = two_counters(0);
	a.o.threshold[0] = 5;
	pthread_t th;
	pthread_create(&th, NULL, arm_and_cross, &a);
	pthread_join(th, NULL);
	CHECK_EQ(signals, 4, "a crossing on another thread raises one signal");
	CHECK_EQ(landed_on, a.tid, "on that thread");
	CHECK_EQ(atomic_load(&a.o.raised), 1, "and counts it");
	free(a.b);
	free(b);
	return checks_done();
}
