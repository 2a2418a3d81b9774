/*
 * cupti_cb_inject_events.h: the derived events of cupti_cb that the library counts, and their
 * names in the process file, in the file's order.  The set adds them (cupti_cb_inject_set.c),
 * the file names its values by them (cupti_cb_inject_json.c), and the per-thread rows take the
 * gpu.* ones (cupti_cb_inject_threads.c).
 */
#ifndef CUPTI_CB_INJECT_EVENTS_H
#define CUPTI_CB_INJECT_EVENTS_H

/* Process totals: "totals" of the file. */
extern const char *const cupti_cb_inj_totals[];
extern const int cupti_cb_inj_n_totals;
/* Per device: devices[].events of the file. */
extern const char *const cupti_cb_inj_dev_events[];
extern const int cupti_cb_inj_n_dev_events;
extern const int cupti_cb_inj_first_gpu_event;	/* the activity source's gpu.* events start here */
/* Per CUDA function: api[] of the file. */
extern const char *const cupti_cb_inj_func_fields[];	/* event suffixes: "calls", "time_ns", ... */
extern const char *const cupti_cb_inj_func_keys[];	/* their keys in the file: "calls", "min_ns", ... */
extern const int cupti_cb_inj_n_func_fields;

/* Whether an event (or a function's field: "time_ns_min") is a host time: cupti_cb reads the
 * clock in every callback while one runs.  Those are the names with time_ns, but the gpu.*
 * ones (GPU times from CUPTI's activity records). */
int cupti_cb_inj_host_time(const char *name);

#endif /* CUPTI_CB_INJECT_EVENTS_H */
