/*
 * cupti_cb_inject_state.h: what the parts of libcupti_cb_inject.so share: the state of the
 * process (struct cupti_cb_inj, one per process, in cupti_cb_inject.c) and its event sets.
 * Data only: every function is declared by the header of the file that defines it.
 *
 * libcupti_cb_inject.so is the library that the CUDA driver loads into a program measured by
 * cupti_cb_run (CUDA_INJECTION64_PATH).  The contract with the runner (environment, process
 * file) is src/runner/cupti_cb_run-contract.md.  Its files, each calling only the files above
 * it in this list (scripts/check-src-cycles checks that no two call each other):
 *
 *   base, calling no other file of the library:
 *     cupti_cb_inject_clock.h   the clock (CLOCK_MONOTONIC, in ns)
 *     cupti_cb_inject_owner.c   the threads that own the event sets
 *     cupti_cb_inject_devices.c the device count, without the driver
 *     cupti_cb_inject_events.c  the events the process file reports, in its order
 *     cupti_cb_inject_notes.c   the notes of the process file, and the trace on stderr
 *     cupti_cb_inject_tap.c     the one tap of cupti_cb, which the flame graph and the timeline share
 *     cupti_cb_inject_tlclock.c the timeline's one clock: host ticks put on CUPTI's clock
 *     cupti_cb_inject_tlevents.c the timeline's events, as Chrome trace event JSON
 *     cupti_cb_inject_stacks.c  the flame graph's call stacks, taken and kept
 *     cupti_cb_inject_symbols.c names for their return addresses, at the end
 *   parts:
 *     cupti_cb_inject_set.c     which events go into the sets, and what to drop when PAPI refuses
 *     cupti_cb_inject_metrics.c the hardware metrics (CUPTI_CB_RUN_METRICS), once cuInit returned
 *     cupti_cb_inject_threads.c the per-thread counts ("threads"), read at exit
 *     cupti_cb_inject_json.c    the process file (with the results of metrics and threads)
 *     cupti_cb_inject_timeline.c the timeline (CUPTI_CB_RUN_TIMELINE): calls and GPU work, streamed
 *     cupti_cb_inject_live.c    the live view (CUPTI_CB_RUN_INTERVAL_MS), which rewrites the
 *                               file at each tick
 *     cupti_cb_inject_cpu_samples.c the flame graph's CPU samples (CUPTI_CB_RUN_FLAME_HZ)
 *     cupti_cb_inject_flame.c   the flame graph (CUPTI_CB_RUN_FLAME): stacks weighted by GPU time
 *   top, which no file calls:
 *     cupti_cb_inject.c         InitializeInjection, set-up, exit
 */
#ifndef CUPTI_CB_INJECT_STATE_H
#define CUPTI_CB_INJECT_STATE_H

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
	int host_time;			/* CUPTI_CB_RUN_TIME (default 1; 0: --no-time, no host-time event,
					   so that cupti_cb's callbacks read no clock) */
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

#endif /* CUPTI_CB_INJECT_STATE_H */
