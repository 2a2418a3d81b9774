/* cupti_cb_signal_context.h: whether the calling thread may be inside a signal
 * handler, where a read must not call CUPTI or take a lock.
 *
 * TAU's and Caliper's samplers call PAPI_read from their SIGPROF handler,
 * and PAPI's software overflow (HPCToolkit's PAPI_overflow) reads from its
 * own. Such a handler may interrupt the thread inside CUPTI, the driver,
 * malloc or cupti_cb itself, holding their locks: a flush or a decode
 * there hangs the program. There is no portable "am I in a handler"; what
 * a handler installed without SA_NODEFER always has is its own signal
 * blocked. So a thread that blocks a signal samplers use is treated as
 * being in a handler. A thread that blocks one of them for another reason
 * only gets the cheaper, less fresh read (cupti_cb(7) says what each
 * source returns there); it never gets a wrong one. */
#ifndef CUPTI_CB_SIGNAL_CONTEXT_H
#define CUPTI_CB_SIGNAL_CONTEXT_H

/* 1 when the calling thread blocks SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1,
 * SIGUSR2, SIGIO or a real-time signal, unless it declared itself a
 * service thread; 0 otherwise. Async-signal-safe (a thread-local load and
 * one rt_sigprocmask system call). */
int cupti_cb_in_signal_context(void);

/* The calling thread blocks signals for its own reasons and never calls
 * PAPI from a signal handler (cupti_cb_run's owner threads, which counter set
 * every signal so that none of the program's lands on them): its reads
 * take the ordinary path. cupti_cb.h exports it. */
void cupti_cb_signal_context_service_thread(void);

#endif
