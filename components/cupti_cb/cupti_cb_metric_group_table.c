/* cupti_cb_metric_group_table.c: the metric groups. Names are CUPTI's, as Nsight
 * Compute spells them, valid from Volta's successors on (checked for GH100
 * in the unit tests). */
#include <string.h>

#include "cupti_cb_metric_group_table.h"

/* Speed of light: how busy the SMs' issue slots, the L1, the L2 and DRAM
 * were, in % of their peak over the elapsed time. Nsight Compute's own
 * sm__throughput and gpu__compute_memory_throughput take 8 and 5 passes
 * on GH100 (they are maxima over many sub-throughputs), so the group takes
 * the single-pass pieces that dominate them. */
static const char *const sol[] = {
	"sm__issue_active.avg.pct_of_peak_sustained_elapsed",
	"l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed",
	"lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__cycles_active.avg",
	"gpu__time_duration.sum",
	NULL,
};

/* DRAM traffic and the caches' hit rates (lts__t_sector_hit_rate takes a
 * pass of its own beside DRAM bytes on GH100; the request hit rate fits). */
static const char *const memory[] = {
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_request_hit_rate.pct",
	"l1tex__t_sector_hit_rate.pct",
	NULL,
};

/* Instructions and issue: warp and thread instructions, cycles, IPC. */
static const char *const instructions[] = {
	"smsp__inst_executed.sum",
	"smsp__thread_inst_executed.sum",
	"smsp__inst_executed.avg.per_cycle_active",
	"sm__cycles_active.avg",
	"sm__cycles_elapsed.avg",
	NULL,
};

/* Floating-point thread instructions by precision (FLOPs = add + mul +
 * 2 * fma). The per-operation counters share no pass with warp
 * instruction counts, hence a group apart from instructions. */
static const char *const flops[] = {
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
	NULL,
};

/* Achieved occupancy: active warps against the SM's maximum. */
static const char *const occupancy[] = {
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"sm__warps_active.avg.per_cycle_active",
	"sm__cycles_active.avg",
	"sm__ctas_launched.sum",
	"smsp__warps_launched.sum",
	NULL,
};

const struct cupti_cb_metric_group cupti_cb_metric_group_table[] = {
	{ "sol", "speed of light: SM issue, L1, L2 and DRAM in % of peak; SM active cycles; GPU time", sol },
	{ "memory", "DRAM bytes read and written, L2 request and L1 sector hit rates", memory },
	{ "instructions", "warp and thread instructions, instructions per active cycle, cycles", instructions },
	{ "flops", "FP32 and FP64 add, multiply and FMA thread instructions", flops },
	{ "occupancy", "achieved occupancy: active warps in % of the maximum and per cycle, CTAs, warps", occupancy },
};

const unsigned cupti_cb_n_metric_groups = sizeof cupti_cb_metric_group_table / sizeof cupti_cb_metric_group_table[0];

const struct cupti_cb_metric_group *cupti_cb_metric_group_find(const char *name)
{
	for (unsigned i = 0; name && i < cupti_cb_n_metric_groups; i++)
		if (!strcmp(cupti_cb_metric_group_table[i].name, name))
			return &cupti_cb_metric_group_table[i];
	return NULL;
}
