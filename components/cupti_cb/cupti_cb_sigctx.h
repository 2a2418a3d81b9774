/* cupti_cb_sigctx.h: whether the calling code may be a signal handler.
 *
 * Samplers (TAU's and Caliper's SIGPROF handlers, PAPI's software overflow
 * under HPCToolkit) call PAPI_read from a signal handler, which may have
 * interrupted the same thread anywhere: inside cupti_cb with a lock held,
 * or inside CUPTI or the driver. A read there must not lock, wait, or call
 * CUPTI. A handler installed without SA_NODEFER runs with its own signal
 * blocked, so a thread that blocks one of the signals samplers use is
 * taken to be inside such a handler. */
#ifndef CUPTI_CB_SIGCTX_H
#define CUPTI_CB_SIGCTX_H

/* 1 when the calling thread blocks SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1,
 * SIGUSR2, SIGIO or a real-time signal (SIGRTMIN..SIGRTMAX); else 0.
 * Async-signal-safe: one pthread_sigmask query. */
int cupti_cb_in_signal_context(void);

#endif
