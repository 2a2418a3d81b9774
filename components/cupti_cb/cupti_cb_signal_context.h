/* cupti_cb_signal_context.h: whether the calling thread may be inside a signal
 * handler, where a read must not call CUPTI or take a lock.
 *
 * TAU's and Caliper's samplers call PAPI_read from their SIGPROF handler,
 * and PAPI's software overflow (HPCToolkit's PAPI_overflow) reads from its
 * own. Such a handler may interrupt the thread inside CUPTI, the driver,
 * malloc or cupti_cb itself, holding their locks: a flush or a decode
 * there hangs the program. There is no portable "am I in a handler".
 *
 * What a handler installed without SA_NODEFER always has is its own
 * signal blocked, a signal that was not blocked where it interrupted the
 * thread (the kernel delivers only unblocked signals, and adds the
 * handled one and the handler's sa_mask while it runs). Which signals a
 * program blocks for its own reasons (a sigwait thread blocks them all; a
 * mask set in main is inherited by every thread) says nothing. So each
 * thread keeps a reference: its signal mask where it used cupti_cb in its
 * own code (each PAPI_start of a cupti_cb set, each change of a set's
 * events). A call is taken to be in a handler when it blocks a signal the
 * reference did not block and that has a handler installed (the handled
 * signal has one; a signal blocked to be waited for or ignored has none;
 * the signals of faults, SIGSEGV and the like, never count).
 *
 * Where the rule cannot tell:
 * - a handler installed with SA_NODEFER and an empty sa_mask blocks
 *   nothing new: its calls are taken for the thread's own (a gpu.* read
 *   there flushes, which can hang if the signal interrupted CUPTI);
 * - a thread that blocks a new signal after its last start and reads then
 *   is taken for a handler: it gets the cheaper, less fresh values (never
 *   wrong ones) until its next start;
 * - a reference taken in a handler (a thread's first use of cupti_cb made
 *   there) holds the handler's signal: later handlers on that thread are
 *   taken for its own code. A later start moves the reference only when
 *   what it blocks anew has no handler installed (a start inside a
 *   handler keeps the old one). */
#ifndef CUPTI_CB_SIGNAL_CONTEXT_H
#define CUPTI_CB_SIGNAL_CONTEXT_H

/* The calling thread is in its own code (PAPI_start, an event set's
 * change): its signal mask now becomes its reference, unless it blocks,
 * beyond the last reference, a signal that has a handler installed (then
 * the call is likely made in that handler, and the reference stays).
 * The first mark of a thread always takes its mask. */
void cupti_cb_signal_context_mark(void);

/* 1 when the calling thread blocks a signal its reference did not block
 * and that has a handler installed, unless it declared itself a service
 * thread; 0 otherwise. A thread with no reference yet (no start: a name
 * lookup, a listing) is in a handler when it blocks SIGPROF, SIGVTALRM or
 * SIGALRM with a handler installed, as a sampler's handler does.
 * Async-signal-safe (thread-local loads, one rt_sigprocmask system call,
 * and one sigaction, to read a handler, per signal blocked anew). */
int cupti_cb_in_signal_context(void);

/* The calling thread never calls PAPI from a signal handler
 * (cupti_cb_run's owner threads, which block every signal so that none of
 * the program's lands on them): its calls always take the ordinary path.
 * cupti_cb.h exports it; threads that block signals need it no longer. */
void cupti_cb_signal_context_service_thread(void);

#endif
