/* cupti_cb_activity_flusher.h: a thread that flushes CUPTI's activity buffers every
 * period while event sets use GPU activity.
 *
 * A read in a signal handler may not flush (cupti_cb_signal_context.h): it returns
 * the totals as of the last flush. Without this thread a set read only
 * from handlers (HPCToolkit through PAPI_overflow, a sampler's reads
 * between two regions) would see the gpu.* values only as fresh as the
 * last ordinary read, which may never come. The thread blocks every
 * signal, makes no CUDA call, and is stopped (joined) when the last set
 * lets GPU activity go. After a fork the child has no such thread: the
 * next start there makes one. */
#ifndef CUPTI_CB_ACTIVITY_FLUSHER_H
#define CUPTI_CB_ACTIVITY_FLUSHER_H

#include <pthread.h>
#include <sys/types.h>

#define CUPTI_CB_ENV_FLUSH_MS "CUPTI_CB_FLUSH_MS"	/* the period; 0: no thread */
#define CUPTI_CB_FLUSH_MS_DEFAULT 20u
#define CUPTI_CB_FLUSH_MS_MAX 60000u

struct cupti_cb_flusher {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	pid_t pid;			/* the process that made the thread */
	int running, stop;
	unsigned period_ms;
	unsigned long rounds;		/* flushes made (tests, traces) */
	void (*flush)(void *);
	void *arg;
};

/* A number of milliseconds from an environment variable's value, up to max;
 * dflt when it is unset or empty, and when it is not such a number (then
 * *bad is set). */
unsigned cupti_cb_env_ms(const char *env, unsigned dflt, unsigned max, int *bad);
/* The period from CUPTI_CB_FLUSH_MS (default CUPTI_CB_FLUSH_MS_DEFAULT);
 * a value that is not a number of milliseconds up to the maximum gives the
 * default, and *bad is set. */
unsigned cupti_cb_flusher_period(const char *env, int *bad);
void cupti_cb_flusher_init(struct cupti_cb_flusher *f, unsigned period_ms, void (*flush)(void *), void *arg);
/* Starts the thread unless it runs (or the period is 0). 0, or an errno. */
int cupti_cb_flusher_start(struct cupti_cb_flusher *f);
/* Stops and joins the thread if it runs in this process. */
void cupti_cb_flusher_stop(struct cupti_cb_flusher *f);

#endif
