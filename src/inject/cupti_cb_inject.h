/*
 * cupti_cb_inject.h: the pieces of libcupti_cb_inject.so, the library that the CUDA driver
 * loads into a program measured by cupti_cb_run (CUDA_INJECTION64_PATH).  The contract with
 * the runner (environment, process file) is src/runner/cupti_cb_run-contract.md.
 *
 *   cupti_cb_inject.c       InitializeInjection, set-up, exit
 *   cupti_cb_inject_owner.c the threads that own the event sets
 *   cupti_cb_inject_set.c   which events go into the set, and what to drop when PAPI refuses
 *   cupti_cb_inject_devices.c the device count, without the driver
 *   cupti_cb_inject_json.c  the process file
 *   cupti_cb_inject_live.c  the live view (CUPTI_CB_RUN_INTERVAL_MS)
 *   cupti_cb_inject_metrics.c the hardware metrics (CUPTI_CB_RUN_METRICS), once cuInit returned
 *   cupti_cb_inject_threads.c the per-thread counts ("threads"), read at exit
 */
#ifndef CUPTI_CB_INJECT_H
#define CUPTI_CB_INJECT_H

#include <stddef.h>

#include <jansson.h>

#include "cupti_cb_inject_owner.h"

#define CUPTI_CB_INJ_PREFIX "cupti_cb_run: "
#define CUPTI_CB_INJ_MAX_NOTES 64

/* The events are spread over several event sets ("parts"), each owned by a thread of the
 * library (PAPI runs one set per component and thread).  Part 0 holds the totals and the
 * per-device events; the per-function events fill the others:
 *   - PAPI 7 maps every event of a set again at each add, so adding n events to one set costs
 *     time in n^3: parts of at most CUPTI_CB_INJ_PART_EVENTS keep the set-up, which runs inside
 *     the program's first cuInit, short;
 *   - a set that holds minimum or maximum events takes one of cupti_cb's few windows, which
 *     time up to CUPTI_CB_INJ_WINDOW_FUNCS functions each (cupti_cb_callback_windows.h): the .time_ns_min
 *     and .time_ns_max events go in parts of their own, so that four windows time every
 *     function and the others stay free. */
#define CUPTI_CB_INJ_MAX_PARTS 32
#define CUPTI_CB_INJ_PART_EVENTS 512
#define CUPTI_CB_INJ_WINDOW_FUNCS 255

struct cupti_cb_inj_part {
	struct cupti_cb_inj_owner owner;	/* its thread; owner.eventset is the set */
	int windowed;			/* holds .time_ns_min/.time_ns_max events */
	int n_funcs;			/* functions with events in it */
	int n_events;
	int started;
};

/* What a slot of the main event set counts. */
enum cupti_cb_inj_kind {
	CUPTI_CB_INJ_TOTAL,	/* totals: api.calls, ... (field: index in cupti_cb_inj_totals) */
	CUPTI_CB_INJ_DEVICE,	/* devices[].events (field: index in cupti_cb_inj_dev_events) */
	CUPTI_CB_INJ_FUNC,	/* api[] (field: index in cupti_cb_inj_func_fields) */
};

/* One event of the main set, in the order added. */
struct cupti_cb_inj_slot {
	char *name;		/* the full PAPI name added */
	int kind;		/* enum cupti_cb_inj_kind */
	int field;
	int func;		/* CUPTI_CB_INJ_FUNC: index in the function list */
	int device;		/* CUPTI_CB_INJ_DEVICE */
	int group;		/* what the start fallback removes together (enum below) */
	int part;		/* the event set it is in (index in cupti_cb_inj.parts) */
};

/* Groups of events, in the order the start fallback gives them up. */
enum { CUPTI_CB_INJ_G_CORE, CUPTI_CB_INJ_G_FUNCS, CUPTI_CB_INJ_G_ACTIVITY };

struct cupti_cb_inj {
	/* configuration, from the environment */
	char *run_dir;			/* CUPTI_CB_RUN_DIR */
	char *metrics;			/* CUPTI_CB_RUN_METRICS (comma list) or NULL */
	int activity;			/* CUPTI_CB_RUN_ACTIVITY (default 1) */
	long interval_ms;		/* CUPTI_CB_RUN_INTERVAL_MS (0: no live view) */
	int trace;			/* CUPTI_CB_RUN_TRACE */
	long max_events;		/* CUPTI_CB_RUN_MAX_EVENTS (0: no cap of our own) */

	/* state */
	long long t0_ns;		/* CLOCK_MONOTONIC at InitializeInjection */
	int cidx;			/* cupti_cb's component index, or -1 */
	int n_devices;
	struct cupti_cb_inj_part parts[CUPTI_CB_INJ_MAX_PARTS];	/* [0]: the main set */
	int n_parts;
	int counting;			/* the main set was started */
	char reason[1024];		/* why not counting ("" while counting) */

	struct cupti_cb_inj_slot *slots;
	int n_slots, cap_slots;
	long long *values;		/* n_slots values after the stop, in slot order */

	char **funcs;			/* function names, catalogue order (priority ones first) */
	int n_funcs;
	int funcs_in_set;		/* how many of them have their events in the set */

	char *notes[CUPTI_CB_INJ_MAX_NOTES];
	int n_notes;

	struct cupti_cb_inj_threads *threads;	/* per-thread counts, read at exit (or NULL) */
};

/* Derived events, in the order of the process file. */
extern const char *const cupti_cb_inj_totals[];
extern const int cupti_cb_inj_n_totals;
extern const char *const cupti_cb_inj_dev_events[];
extern const int cupti_cb_inj_n_dev_events;
extern const int cupti_cb_inj_first_gpu_event;	/* gpu.* events start here */
extern const char *const cupti_cb_inj_func_fields[];	/* event suffixes: "calls", "time_ns", ... */
extern const char *const cupti_cb_inj_func_keys[];	/* their keys in the file: "calls", "min_ns", ... */
extern const int cupti_cb_inj_n_func_fields;

/* cupti_cb_inject.c */
void cupti_cb_inj_note(struct cupti_cb_inj *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cupti_cb_inj_trace(const struct cupti_cb_inj *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
long long cupti_cb_inj_now_ns(void);

/* cupti_cb_inject_devices.c: the CUDA devices the process will see, from NVML or /proc and
 * CUDA_VISIBLE_DEVICES, without calling the CUDA driver; -1 when unknown. */
int cupti_cb_inj_device_count(void);

/* cupti_cb_inject_set.c: fills the main set (part 0: created, empty) and the per-function parts
 * (it starts their threads), and starts them all.  Sets s->counting, or s->reason.  Never fails
 * the program. */
void cupti_cb_inj_build_and_start(struct cupti_cb_inj *s);
/* Starts a part's thread, which creates its (empty) set: PAPI_OK, or the error. */
int cupti_cb_inj_open_part(struct cupti_cb_inj *s, int windowed);
/* Asks every part's thread to stop its set; 0, or -1 when one did not within timeout_s. */
int cupti_cb_inj_finish_parts(struct cupti_cb_inj *s, int timeout_s);

/* cupti_cb_inject_json.c: writes <run_dir>/proc-<pid>.json (temp name, then rename).
 * Returns 0, or -1 with errno. */
int cupti_cb_inj_write(const struct cupti_cb_inj *s);

/* The file a process leaves when it ends without running its exit handlers (a killing signal,
 * _exit, quick_exit), which then writes no file of its own: written at InitializeInjection
 * (names NULL: nothing is known), and at every tick of the live view with its process-scope
 * counts (names[i] = values[i]) at_ns after InitializeInjection ("partial" in the file).  The
 * exit handler's file replaces it.  0, or -1 with errno. */
int cupti_cb_inj_write_partial(const struct cupti_cb_inj *s, const char *const *names, const long long *values,
			       int n, long long at_ns);

/* cupti_cb_inject_live.c: the live view's set is added and started on the calling thread (the
 * one inside cuInit, like the main set); its owner thread prints a line every interval.  */
void cupti_cb_inj_live_start(struct cupti_cb_inj *s);
void cupti_cb_inj_live_stop(void);

/* cupti_cb_inject_threads.c: at exit, after the sets stopped, reads each thread's counts
 * through an event set attached to it (s->threads; notes on failure); the "threads" array of
 * the process file, or NULL when there are none. */
void cupti_cb_inj_threads_collect(struct cupti_cb_inj *s);
json_t *cupti_cb_inj_threads_json(const struct cupti_cb_inj *s);

#endif /* CUPTI_CB_INJECT_H */
