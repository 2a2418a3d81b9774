/*
 * cupti_cb_inject_metrics.h: the hardware metrics of CUPTI_CB_RUN_METRICS, collected by a part
 * of their own that starts once the program's cuInit has returned (cupti_cb_inject_metrics.c).
 */
#ifndef CUPTI_CB_INJECT_METRICS_H
#define CUPTI_CB_INJECT_METRICS_H

#include "cupti_cb_inject_state.h"

/* One metric event of one device, and its value after the stop. */
struct cupti_cb_inj_metric {
	char name[128];		/* CUPTI's metric name, e.g. dram__bytes_read.sum */
	int device;
	int fp64;		/* value holds a double's bits */
	char units[64];
	long long value;
};

/* Starts the metric part's thread and its wait for the program's first CUDA call after cuInit
 * (on the calling thread: the one inside cuInit, like the main set).  Needs s->counting and
 * s->metrics; every failure becomes a note. */
void cupti_cb_inj_metrics_start(struct cupti_cb_inj *s);
/* At exit: the part's thread stops its set; the values are then those of
 * cupti_cb_inj_metrics_results.  0, or -1 when the thread did not stop within timeout_s. */
int cupti_cb_inj_metrics_stop(struct cupti_cb_inj *s, int timeout_s);
/* The metrics counted (none before the stop, or when they were not collected). */
int cupti_cb_inj_metrics_results(const struct cupti_cb_inj_metric **out);

#endif /* CUPTI_CB_INJECT_METRICS_H */
