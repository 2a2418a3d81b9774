/*
 * cupti_cb_inject_timeline.c: see cupti_cb_inject_timeline.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cb.h"
#include "cupti_cb_inject_notes.h"
#include "cupti_cb_inject_owner.h"
#include "cupti_cb_inject_tap.h"
#include "cupti_cb_inject_timeline.h"
#include "cupti_cb_inject_tlclock.h"
#include "cupti_cb_inject_tlevents.h"

#define RING 16384u		/* calls per thread between two wake-ups (10 ms): 1.6 million a second */
#define PERIOD_MS 10
#define WRITE_AT (1u << 20)	/* GPU records are written once this much is formatted */
#define NAMES 4096		/* kernel names kept demangled */

enum { LIVE, DEAD };

struct ring {
	_Atomic uint32_t head;		/* the thread's: calls written */
	_Atomic uint32_t tail;		/* the timeline thread's: calls taken */
	_Atomic uint64_t dropped;	/* the thread's: calls that found the ring full */
	atomic_int state;
	atomic_uint gen;		/* bumped when a new thread takes the ring */
	unsigned named;			/* the gen whose thread name was written */
	_Atomic long tid;
	char name[16];			/* the thread's name at its first call, and at its exit */
	struct ring *next;
	struct cupti_cb_tap_call rec[RING];
};

static struct {
	int on;
	int fd;
	long pid;
	uint64_t t0;			/* the run's origin on CUPTI's clock */
	unsigned long long max_bytes;
	unsigned long long max_ms;
	pthread_t thread;
	int started;

	pthread_mutex_t mu;		/* all below */
	pthread_cond_t cv;
	int quit;
	const char *stopped;		/* why the timeline stopped early, or NULL */
	struct cupti_cb_inj_tlclock clock;
	struct cupti_cb_inj_tlbuf buf;	/* GPU work, counters, names (under mu) */
	struct cupti_cb_inj_tlbuf calls;	/* the calls of a wake-up (the timeline thread's) */
	unsigned long long written;
	int write_errno;
	uint8_t device_named[64];
	uint32_t streams[1024];		/* device << 24 | stream + 1, named already */
	struct { const char *key; char *mangled, *shown; } names[NAMES];
	char *call_names[2][1024];
	long long prev[8];
	uint64_t prev_ts;		/* the previous tick's (the start's, before the first) */
} tl = { .fd = -1, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static _Atomic(struct ring *) rings;
static __thread struct ring *mine;
static pthread_key_t ring_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* ---- the application's side: the tap's call, no lock, no system call --------------------- */

/* The calling thread's name (a system call: at its first call and at its exit only). */
static void take_name(struct ring *r)
{
	char name[16] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	memcpy(r->name, name, sizeof r->name);
	atomic_fetch_add_explicit(&r->gen, 1, memory_order_release);
}

static void thread_gone(void *p)
{
	struct ring *r = p;
	mine = NULL;
	take_name(r);	/* a thread often names itself after its first CUDA call */
	atomic_store_explicit(&r->state, DEAD, memory_order_release);
}

static void make_key(void)
{
	pthread_key_create(&ring_key, thread_gone);
}

/* A thread's first call: an exited thread's drained ring, or a new one. */
static struct ring *ring_for_thread(void)
{
	struct ring *r;
	for (r = atomic_load(&rings); r; r = r->next) {
		int dead = DEAD;
		if (atomic_load(&r->head) == atomic_load(&r->tail) &&
		    atomic_compare_exchange_strong(&r->state, &dead, LIVE))
			break;
	}
	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r)
			return NULL;
		r->next = atomic_load(&rings);
		while (!atomic_compare_exchange_weak(&rings, &r->next, r))
			;
	}
	atomic_store(&r->tid, (long)syscall(SYS_gettid));
	take_name(r);
	pthread_once(&key_once, make_key);
	pthread_setspecific(ring_key, r);
	mine = r;
	return r;
}

static void on_call(void *arg, const struct cupti_cb_tap_call *c)
{
	(void)arg;
	if (!c->end)
		return;	/* not timed: no set needs host time */
	struct ring *r = mine;
	if (!r && !(r = ring_for_thread()))
		return;
	uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&r->tail, memory_order_acquire) >= RING) {
		atomic_store_explicit(&r->dropped, atomic_load_explicit(&r->dropped, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		return;
	}
	r->rec[h % RING] = *c;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

/* ---- writing (under tl.mu) ----------------------------------------------------------------- */

static void stop_here(const char *why)
{
	if (!tl.stopped) {
		tl.stopped = why;
		cupti_cb_inj_tap_leave(CUPTI_CB_INJ_TAP_TIMELINE);
	}
}

/* b written to the file (under tl.mu), and emptied. */
static void write_out(struct cupti_cb_inj_tlbuf *b)
{
	if (tl.stopped || !b->len) {
		b->len = 0;
		return;
	}
	struct stat st;
	if (tl.max_bytes && fstat(tl.fd, &st) == 0 && (unsigned long long)st.st_size + b->len > tl.max_bytes) {
		stop_here("size");
		b->len = 0;
		return;
	}
	/* One write: appends of the run's processes do not interleave inside it. */
	size_t done = 0;
	while (done < b->len) {
		ssize_t n = write(tl.fd, b->p + done, b->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			tl.write_errno = n < 0 ? errno : EIO;
			stop_here("error");
			break;
		}
		done += (size_t)n;
	}
	tl.written += done;
	b->len = 0;
}

static int64_t since_origin(uint64_t gpu_ns)
{
	return (int64_t)(gpu_ns - tl.t0);
}

/* Past the time limit (CUPTI_CB_RUN_TIMELINE_MAX_MS after the origin): left out. */
static int too_late(uint64_t gpu_ns)
{
	return tl.max_ms && gpu_ns > tl.t0 && (gpu_ns - tl.t0) / 1000000u >= tl.max_ms;
}

/* A function's name as the user wrote it: CUPTI's without its version suffix
 * (cudaLaunchKernel_v7000, cuMemcpyHtoD_v2), as cupti_cb's event names and torch.profiler
 * show it. NULL when CUPTI has none. */
static char *plain_name(int driver, unsigned cbid)
{
	const char *n = cupti_cb_tap_call_name(driver, cbid);
	if (!n)
		return NULL;
	size_t len = strlen(n);
	const char *v = strrchr(n, '_');
	if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
		len = (size_t)(v - n);
	return strndup(n, len);
}

static const char *call_name(int driver, unsigned cbid)
{
	if (cbid >= 1024)
		return NULL;
	if (!tl.call_names[driver][cbid])
		tl.call_names[driver][cbid] = plain_name(driver, cbid);
	return tl.call_names[driver][cbid];
}

static void name_thread(struct ring *r)
{
	unsigned gen = atomic_load_explicit(&r->gen, memory_order_acquire);
	if (gen == r->named)
		return;
	r->named = gen;
	char name[sizeof r->name + 1], shown[64];
	memcpy(name, r->name, sizeof r->name);
	name[sizeof r->name] = '\0';
	long tid = atomic_load(&r->tid);
	snprintf(shown, sizeof shown, "%s (%ld)", *name ? name : "thread", tid);
	cupti_cb_inj_tl_thread_name(&tl.calls, tl.pid, tid, shown);
}

static void drain(struct ring *r)
{
	name_thread(r);
	long tid = atomic_load(&r->tid);
	uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	for (; t != h; t++) {
		const struct cupti_cb_tap_call *c = &r->rec[t % RING];
		uint64_t start = cupti_cb_inj_tlclock_gpu(&tl.clock, c->start);
		if (!too_late(start))
			cupti_cb_inj_tl_call(&tl.calls, tl.pid, tid, call_name(c->driver, c->cbid), c, since_origin(start),
					     cupti_cb_inj_tlclock_span(&tl.clock, c->start, c->end));
	}
	atomic_store_explicit(&r->tail, t, memory_order_release);
}

static unsigned long long dropped_calls(void)
{
	unsigned long long n = 0;
	for (struct ring *r = atomic_load(&rings); r; r = r->next)
		n += atomic_load(&r->dropped);
	return n;
}

/* One wake-up of the timeline's thread. The anchor and the calls' formatting need no lock (the
 * clock, the rings' reading side and tl.calls are this thread's): CUPTI is called there
 * (cuptiGetTimestamp, cuptiGetCallbackName) while the thread that processes CUPTI's buffers
 * may wait for tl.mu inside CUPTI's callback. tl.mu is held for the writes only. */
static void cycle(void)
{
	pthread_mutex_lock(&tl.mu);
	int stopped = tl.stopped != NULL;
	pthread_mutex_unlock(&tl.mu);
	cupti_cb_inj_tlclock_anchor(&tl.clock);
	if (stopped)
		return;
	for (struct ring *r = atomic_load(&rings); r; r = r->next)
		drain(r);
	int late = too_late(cupti_cb_inj_tlclock_gpu_now(&tl.clock));
	pthread_mutex_lock(&tl.mu);
	write_out(&tl.buf);
	write_out(&tl.calls);
	if (late)
		stop_here("time");
	pthread_mutex_unlock(&tl.mu);
}

static void *timeline_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PERIOD_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&tl.mu);
		int rc = 0;
		while (!tl.quit && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&tl.cv, &tl.mu, &until);
		int quit = tl.quit;
		pthread_mutex_unlock(&tl.mu);
		cycle();
		if (quit)
			return NULL;
	}
}

/* ---- GPU work: on the thread that processes CUPTI's buffers -------------------------------- */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangle;

/* At the start, not in CUPTI's callback (a dlopen there could wait for the loader's lock
 * while a thread inside dlopen waits for CUPTI). */
static void find_demangler(void)
{
	void *p = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!p) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		p = lib ? dlsym(lib, "__cxa_demangle") : NULL;
	}
	memcpy(&demangle, &p, sizeof demangle);
}

/* A kernel's name demangled (C++ names; others as they are), kept by CUPTI's pointer, which
 * every record of one kernel shares. NULL: show the record's. */
static const char *kernel_name(const char *name)
{
	if (!name)
		return NULL;
	size_t h = ((uintptr_t)name >> 4) % NAMES;
	for (size_t i = 0; i < NAMES; i++) {
		size_t at = (h + i) % NAMES;
		if (tl.names[at].key == name && !strcmp(tl.names[at].mangled, name))
			return tl.names[at].shown;
		if (tl.names[at].key && tl.names[at].key != name)
			continue;
		demangle_fn d = demangle;
		int status = -1;
		char *shown = d && name[0] == '_' && name[1] == 'Z' ? d(name, NULL, NULL, &status) : NULL;
		char *mangled = strdup(name);
		if (!shown)
			shown = strdup(name);
		if (!shown || !mangled) {
			free(shown);
			free(mangled);
			return NULL;
		}
		free(tl.names[at].mangled);
		free(tl.names[at].shown);
		tl.names[at].key = name;
		tl.names[at].mangled = mangled;
		tl.names[at].shown = shown;
		return shown;
	}
	return NULL;	/* every slot taken: the mangled name */
}

static void name_device_stream(uint32_t device, uint32_t stream)
{
	if (device < sizeof tl.device_named && !tl.device_named[device]) {
		tl.device_named[device] = 1;
		cupti_cb_inj_tl_device_name(&tl.buf, device);
	}
	uint32_t key = (device << 24 | (stream & 0xffffffu)) + 1;
	size_t n = sizeof tl.streams / sizeof tl.streams[0];
	for (size_t i = 0, h = (size_t)(key * 2654435761u) % n; i < n; i++) {
		uint32_t *slot = &tl.streams[(h + i) % n];
		if (*slot == key)
			return;
		if (!*slot) {
			*slot = key;
			cupti_cb_inj_tl_stream_name(&tl.buf, device, stream);
			return;
		}
	}
}

static void on_work(void *arg, const struct cupti_cb_tap_work *w)
{
	(void)arg;
	pthread_mutex_lock(&tl.mu);
	if (!tl.stopped && !too_late(w->start)) {
		name_device_stream(w->device, w->stream);
		const char *name = w->kind == CUPTI_CB_TAP_KERNEL ? kernel_name(w->name) : NULL;
		cupti_cb_inj_tl_work(&tl.buf, tl.pid, w, name, since_origin(w->start));
		if (tl.buf.len >= WRITE_AT)
			write_out(&tl.buf);
	}
	pthread_mutex_unlock(&tl.mu);
}

static const struct cupti_cb_tap hooks = { .call = on_call, .work = on_work };

/* ---- the live view's counts ------------------------------------------------------------- */

void cupti_cb_inj_timeline_counters(const char *const *names, const long long *v, int n, int n_devices)
{
	if (!tl.started || n > (int)(sizeof tl.prev / sizeof tl.prev[0]))
		return;
	pthread_mutex_lock(&tl.mu);
	uint64_t now = cupti_cb_inj_tlclock_gpu_now(&tl.clock);
	if (!tl.stopped && !too_late(now) && now > tl.prev_ts) {
		for (int i = 0; i < n; i++) {
			double d = (double)(v[i] - tl.prev[i]);
			if (!strcmp(names[i], "gpu.busy_ns")) {
				if (n_devices > 0)
					cupti_cb_inj_tl_counter(&tl.buf, tl.pid, "gpu.busy %", since_origin(now),
								100.0 * d / (double)(now - tl.prev_ts) / n_devices);
			} else {
				char track[64];
				snprintf(track, sizeof track, "%s per interval", names[i]);
				cupti_cb_inj_tl_counter(&tl.buf, tl.pid, track, since_origin(now), d);
			}
		}
	}
	memcpy(tl.prev, v, sizeof v[0] * (size_t)n);
	tl.prev_ts = now;
	pthread_mutex_unlock(&tl.mu);
}

/* ---- start and stop ------------------------------------------------------------------------ */

static unsigned long long env_ull(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : 0;
}

static void name_process(void)
{
	char cmd[256] = "", shown[320];
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (f) {
		size_t n = fread(cmd, 1, sizeof cmd - 1, f);
		fclose(f);
		for (size_t i = 0; i + 1 < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = '\0';
	}
	snprintf(shown, sizeof shown, "%s (pid %ld)", *cmd ? cmd : "process", tl.pid);
	cupti_cb_inj_tl_process_name(&tl.buf, tl.pid, shown);
}

void cupti_cb_inj_timeline_start(struct cupti_cb_inj *s)
{
	const char *path = getenv("CUPTI_CB_RUN_TIMELINE");
	if (!path || !*path)
		return;
	tl.fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (tl.fd < 0) {
		cupti_cb_inj_note(s, "no timeline: cannot open %s: %s", path, strerror(errno));
		return;
	}
	tl.pid = (long)getpid();
	tl.t0 = env_ull("CUPTI_CB_RUN_TIMELINE_T0");
	tl.max_bytes = env_ull("CUPTI_CB_RUN_TIMELINE_MAX_BYTES");
	tl.max_ms = env_ull("CUPTI_CB_RUN_TIMELINE_MAX_MS");
	cupti_cb_inj_tlclock_init(&tl.clock, NULL, NULL);
	cupti_cb_inj_tlclock_anchor(&tl.clock);
	if (!tl.t0)
		tl.t0 = cupti_cb_inj_tlclock_gpu_now(&tl.clock);
	if (!tl.clock.gpu_clock)
		cupti_cb_inj_note(s, "timeline: this libcupti has no cuptiGetTimestamp: host times are put on "
				  "CLOCK_REALTIME, which CUPTI's clock follows within a microsecond where measured");
	tl.prev_ts = cupti_cb_inj_tlclock_gpu_now(&tl.clock);	/* the live view's counts start at 0 here */
	name_process();
	find_demangler();
	if (cupti_cb_inj_spawn(&tl.thread, timeline_main, NULL) != 0) {
		cupti_cb_inj_note(s, "no timeline: its thread cannot be started");
		close(tl.fd);
		tl.fd = -1;
		return;
	}
	tl.started = 1;
	cupti_cb_inj_tap_join(CUPTI_CB_INJ_TAP_TIMELINE, &hooks);
	cupti_cb_inj_trace(s, "timeline to %s (origin %llu ns on CUPTI's clock)", path, (unsigned long long)tl.t0);
}

void cupti_cb_inj_timeline_stop(struct cupti_cb_inj *s)
{
	if (!tl.started)
		return;
	cupti_cb_inj_tap_leave(CUPTI_CB_INJ_TAP_TIMELINE);
	pthread_mutex_lock(&tl.mu);
	tl.quit = 1;
	pthread_cond_broadcast(&tl.cv);
	pthread_mutex_unlock(&tl.mu);
	pthread_join(tl.thread, NULL);
	tl.started = 0;
	unsigned long long dropped = dropped_calls();
	if (dropped)
		cupti_cb_inj_note(s, "timeline: %llu CUDA calls were left out: a thread made more than %u calls "
				  "between two wake-ups (%d ms) of the timeline's thread", dropped, RING, PERIOD_MS);
	if (tl.stopped && !strcmp(tl.stopped, "size"))
		cupti_cb_inj_note(s, "timeline: stopped when the file reached its limit of %llu bytes "
				  "(--timeline-limit): what followed is not in it", tl.max_bytes);
	else if (tl.stopped && !strcmp(tl.stopped, "time"))
		cupti_cb_inj_note(s, "timeline: stopped %llu ms after the run's start (--timeline-limit): what "
				  "followed is not in it", tl.max_ms);
	else if (tl.stopped)
		cupti_cb_inj_note(s, "timeline: stopped: writing the file failed: %s", strerror(tl.write_errno));
	if (tl.buf.failed || tl.calls.failed)
		cupti_cb_inj_note(s, "timeline: out of memory while formatting: events are missing");
	close(tl.fd);
	tl.fd = -1;
}
