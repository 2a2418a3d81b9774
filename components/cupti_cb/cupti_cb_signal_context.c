/* cupti_cb_signal_context.c: see cupti_cb_signal_context.h. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "cupti_cb_thread_counters.h"
#include "cupti_cb_signal_context.h"

static CUPTI_CB_TLS int service_thread;
static CUPTI_CB_TLS int have_reference;
static CUPTI_CB_TLS sigset_t reference;

void cupti_cb_signal_context_service_thread(void)
{
	service_thread = 1;
}

/* Whether a handler is installed for sig (sigaction only reads here).
 * The signals of faults are left out: a thread that blocks them is killed
 * by its next fault, not interrupted, and their handlers (crash reporters,
 * sanitizers) are everywhere. */
static int handled(int sig)
{
	struct sigaction sa;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP || sig == SIGSYS)
		return 0;
	if (sigaction(sig, NULL, &sa) != 0)
		return 0;
	if (sa.sa_flags & SA_SIGINFO)
		return sa.sa_sigaction != NULL;
	return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/* Whether mask blocks a signal the reference does not (with a handler
 * installed, when handled_only: a handler's own signal has one, while a
 * signal blocked only to be waited for or ignored has none). */
static int blocks_more(const sigset_t *mask, int handled_only)
{
	if (!memcmp(mask, &reference, sizeof *mask))
		return 0;	/* the usual case, without a walk */
	for (int s = 1; s < NSIG; s++)
		if (sigismember(mask, s) == 1 && sigismember(&reference, s) != 1 && (!handled_only || handled(s)))
			return 1;
	return 0;
}

void cupti_cb_signal_context_mark(void)
{
	sigset_t mask;
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
		return;
	if (have_reference && blocks_more(&mask, 1))
		return;
	/* A handler that interrupts the copy takes the safe side. */
	have_reference = 0;
	atomic_signal_fence(memory_order_seq_cst);
	reference = mask;
	atomic_signal_fence(memory_order_seq_cst);
	have_reference = 1;
}

/* A thread that never marked (no start yet: a name lookup, a listing):
 * a handler of a sampler's signal blocks that signal while it runs. */
static int blocks_a_sampler(const sigset_t *mask)
{
	static const int samplers[] = { SIGPROF, SIGVTALRM, SIGALRM };
	for (unsigned i = 0; i < sizeof samplers / sizeof samplers[0]; i++)
		if (sigismember(mask, samplers[i]) == 1 && handled(samplers[i]))
			return 1;
	return 0;
}

int cupti_cb_in_signal_context(void)
{
	sigset_t mask;
	if (service_thread)
		return 0;
	/* Reading the mask changes nothing; pthread_sigmask is async-signal-safe. */
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
		return 1;	/* cannot tell: take the safe side */
	return have_reference ? blocks_more(&mask, 1) : blocks_a_sampler(&mask);
}
