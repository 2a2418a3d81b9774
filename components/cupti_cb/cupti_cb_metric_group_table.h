/* cupti_cb_metric_group_table.h: named groups of hardware metrics that users think in
 * (Nsight Compute's sections, nvbench's metrics, LIKWID's groups), each
 * checked to fit one pass. A group is a list of metric event names; the
 * cupti_cb_metric_groups command prints it in the form PAPI_EVENTS,
 * TAU_METRICS and papi_command_line take, and the tests check on the CPU
 * (for GH100) and on the GPU that every group is collected in one pass. */
#ifndef CUPTI_CB_METRIC_GROUP_TABLE_H
#define CUPTI_CB_METRIC_GROUP_TABLE_H

struct cupti_cb_metric_group {
	const char *name;
	const char *descr;
	const char *const *metrics;	/* NULL-terminated full metric names */
};

extern const struct cupti_cb_metric_group cupti_cb_metric_group_table[];
extern const unsigned cupti_cb_n_metric_groups;

const struct cupti_cb_metric_group *cupti_cb_metric_group_find(const char *name);

#endif
