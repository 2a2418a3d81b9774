/* cupti_cb_signal_context.c: see cupti_cb_signal_context.h. */
#include <pthread.h>
#include <signal.h>

#include "cupti_cb_thread_counters.h"
#include "cupti_cb_signal_context.h"

static CUPTI_CB_TLS int service_thread;

void cupti_cb_signal_context_service_thread(void)
{
	service_thread = 1;
}

int cupti_cb_in_signal_context(void)
{
	static const int samplers[] = { SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1, SIGUSR2, SIGIO };
	sigset_t mask;
	if (service_thread)
		return 0;
	/* Reading the mask changes nothing; pthread_sigmask is async-signal-safe. */
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
		return 1;	/* cannot tell: take the safe side */
	for (unsigned i = 0; i < sizeof samplers / sizeof samplers[0]; i++)
		if (sigismember(&mask, samplers[i]) == 1)
			return 1;
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (sigismember(&mask, s) == 1)
			return 1;
	return 0;
}
