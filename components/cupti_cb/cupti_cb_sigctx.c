/* cupti_cb_sigctx.c: whether the calling code may be a signal handler
 * (see cupti_cb_sigctx.h). */
#include "cupti_cb_sigctx.h"

#include <pthread.h>
#include <signal.h>

int cupti_cb_in_signal_context(void)
{
	static const int samplers[] = { SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1, SIGUSR2, SIGIO };
	sigset_t set;
	/* A query only (SIG_BLOCK with no set changes nothing); pthread_sigmask
	 * is async-signal-safe. Should it fail, the answer is the cautious one. */
	if (pthread_sigmask(SIG_BLOCK, NULL, &set) != 0)
		return 1;
	for (unsigned i = 0; i < sizeof samplers / sizeof samplers[0]; i++)
		if (sigismember(&set, samplers[i]) == 1)
			return 1;
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (sigismember(&set, s) == 1)
			return 1;
	return 0;
}
