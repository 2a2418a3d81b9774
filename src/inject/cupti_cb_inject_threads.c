/*
 * cupti_cb_inject_threads.c: the "threads" array of the process file: what each thread of the
 * program did, read at exit through PAPI_attach (cupti_cb-threads(7), "Threads").
 *
 * cupti_cb keeps a counter block per thread that made a counted CUDA call, with the thread's
 * kernel id and name, and keeps it after the thread exits.  At exit, after the library's sets
 * stopped, cupti_cb_threads() lists them; one event set of thread-scope events is attached to
 * each tid in turn (PAPI_attach, start, stop, PAPI_detach): an attached set of cupti_cb reads
 * the thread's counts since its first counted call, which, for a program measured from its
 * first cuInit, is everything the thread did.
 *
 * cupti_cb_threads is looked up with dlsym: a libpapi built before it existed still runs the
 * library, and the file says that the per-thread counts are missing.  Each event a libpapi
 * does not offer is left out of the rows (gpu.kernels too when the activity source is off, and
 * the host times with CUPTI_CB_RUN_TIME=0: the callbacks then read no clock, and a time of 0
 * would be a value that is not true).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "papi.h"

#include "cupti_cb.h"
#include "cupti_cb_inject_events.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_threads.h"

/* The per-thread events, in the order of the file. */
static const char *const events[] = { "api.calls", "api.time_ns", "kernel.launches", "memcpy.bytes",
				       "sync.time_ns", "gpu.kernels" };
#define N_EVENTS (int)(sizeof events / sizeof events[0])
#define GPU_EVENT 5
/* A bound on the rows (and on the time spent at exit): programs with more threads list the
 * first ones that made CUDA calls, with a note. */
#define MAX_THREADS 4096

struct cupti_cb_inj_thread {
	struct cupti_cb_thread_info info;
	long long v[N_EVENTS];
	int skip;
};

struct cupti_cb_inj_threads {
	int n;
	int have[N_EVENTS];		/* in the attached set */
	int pos[N_EVENTS];		/* its position there */
	struct cupti_cb_inj_thread *t;
};

typedef int (*threads_fn)(struct cupti_cb_thread_info *, int);

/* Whether the main set kept its gpu.* events (the activity source counted). */
static int activity_counted(const struct cupti_cb_inj *s)
{
	for (int i = 0; i < s->n_slots; i++)
		if (s->slots[i].kind == CUPTI_CB_INJ_DEVICE && s->slots[i].field >= cupti_cb_inj_first_gpu_event)
			return 1;
	return 0;
}

/* The attached set's events; how many were added. */
static int add_events(struct cupti_cb_inj *s, int es, struct cupti_cb_inj_threads *th)
{
	int n = 0;
	for (int e = 0; e < N_EVENTS; e++) {
		char name[128];
		th->have[e] = 0;
		if ((e == GPU_EVENT && !activity_counted(s)) || (!s->host_time && cupti_cb_inj_host_time(events[e])))
			continue;
		snprintf(name, sizeof name, "cupti_cb:::%s", events[e]);
		int rc = PAPI_add_named_event(es, name);
		if (rc != PAPI_OK) {
			cupti_cb_inj_trace(s, "per-thread %s left out: %s", events[e], PAPI_strerror(rc));
			continue;
		}
		th->have[e] = 1;
		th->pos[e] = n++;
	}
	return n;
}

/* One thread's values through the set attached to it: the first error, or PAPI_OK. */
static int read_thread(int es, struct cupti_cb_inj_thread *t, const struct cupti_cb_inj_threads *th)
{
	long long v[N_EVENTS] = { 0 };
	int rc = PAPI_attach(es, (unsigned long)t->info.tid);
	if (rc == PAPI_EINVAL) {
		/* Its block was adopted by a thread that came after the listing (past
		 * CUPTI_CB_THREADS_OWN blocks): its counts are in that thread's row. */
		t->skip = 1;
		return PAPI_OK;
	}
	if (rc != PAPI_OK)
		return rc;
	rc = PAPI_start(es);
	if (rc == PAPI_OK)
		rc = PAPI_stop(es, v);
	int rc2 = PAPI_detach(es);
	for (int e = 0; e < N_EVENTS; e++)
		t->v[e] = th->have[e] ? v[th->pos[e]] : 0;
	return rc != PAPI_OK ? rc : rc2;
}

/* The listing, a tid once (the kernel may reuse an exited thread's id: an attached set reads
 * every block of the id, so the row holds both threads and says it is shared). */
static int list_threads(threads_fn list, struct cupti_cb_inj_thread **out)
{
	int n = list(NULL, 0);
	if (n <= 0)
		return n;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	struct cupti_cb_thread_info *info = calloc((size_t)n, sizeof *info);
	struct cupti_cb_inj_thread *t = calloc((size_t)n, sizeof *t);
	if (!info || !t) {
		free(info);
		free(t);
		return -1;
	}
	int got = list(info, n), k = 0;
	if (got > n)
		got = n;
	for (int i = 0; i < got; i++) {
		int j = 0;
		while (j < k && t[j].info.tid != info[i].tid)
			j++;
		if (j < k) {
			t[j].info.shared = 1;
			t[j].info.threads += info[i].threads;
			t[j].info.exited = info[i].exited;	/* the newer block's owner */
			continue;
		}
		t[k++].info = info[i];
	}
	free(info);
	*out = t;
	return k;
}

void cupti_cb_inj_threads_collect(struct cupti_cb_inj *s)
{
	threads_fn list = (threads_fn)dlsym(RTLD_DEFAULT, "cupti_cb_threads");
	if (!list) {
		cupti_cb_inj_note(s, "per-thread counts are missing: the libpapi this process loaded has no "
				  "cupti_cb_threads (an older cupti_cb)");
		return;
	}
	struct cupti_cb_inj_threads *th = calloc(1, sizeof *th);
	if (!th)
		return;
	int n = list_threads(list, &th->t);
	if (n <= 0) {
		free(th);
		return;
	}
	th->n = n;
	if (list(NULL, 0) > MAX_THREADS)
		cupti_cb_inj_note(s, "per-thread counts: the first %d threads that made CUDA calls are listed, "
				  "of %d", MAX_THREADS, list(NULL, 0));
	int es = PAPI_NULL, rc = PAPI_create_eventset(&es);
	if (rc == PAPI_OK)
		rc = PAPI_assign_eventset_component(es, s->cidx);
	if (rc == PAPI_OK && add_events(s, es, th) == 0)
		rc = PAPI_ENOEVNT;
	for (int i = 0; rc == PAPI_OK && i < n; i++)
		rc = read_thread(es, &th->t[i], th);
	if (es != PAPI_NULL) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
	if (rc != PAPI_OK) {
		cupti_cb_inj_note(s, "per-thread counts are missing: an event set attached to the program's "
				  "threads failed (%s)", PAPI_strerror(rc));
		free(th->t);
		free(th);
		return;
	}
	cupti_cb_inj_trace(s, "per-thread counts of %d threads", n);
	s->threads = th;
}

/* A thread name is any bytes the program set; JSON strings are UTF-8: other bytes become '?'. */
static void printable(char *out, const char *name, size_t len)
{
	size_t i = 0;
	for (; i + 1 < len && name[i]; i++)
		out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
}

json_t *cupti_cb_inj_threads_json(const struct cupti_cb_inj *s)
{
	const struct cupti_cb_inj_threads *th = s->threads;
	if (!th)
		return NULL;
	json_t *a = json_array();
	for (int i = 0; i < th->n; i++) {
		const struct cupti_cb_inj_thread *t = &th->t[i];
		if (t->skip)
			continue;
		json_t *ev = json_object();
		for (int e = 0; e < N_EVENTS; e++)
			if (th->have[e])
				json_object_set_new(ev, events[e], json_integer(t->v[e]));
		char name[CUPTI_CB_THREAD_NAME_LEN];
		printable(name, t->info.name, sizeof name);
		json_array_append_new(a, json_pack("{s:I, s:s, s:b, s:b, s:o}", "tid", (json_int_t)t->info.tid,
						   "name", name, "exited", t->info.exited, "shared",
						   t->info.shared, "events", ev));
	}
	return a;
}
