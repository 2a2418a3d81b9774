/* cupti_cb_mgroups.c: the metric groups. Names are CUPTI's, as Nsight
 * Compute spells them, valid from Volta's successors on (checked for GH100
 * in the unit tests). */
#include <string.h>

#include "cupti_cb_mgroups.h"

/* Speed of light: how close the SMs and the memory came to their peak,
 * as Nsight Compute's "GPU Speed Of Light Throughput" section shows. */
static const char *const sol[] = {
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__time_duration.sum",
	NULL,
};

/* Memory traffic and the caches' hit rates. */
static const char *const memory[] = {
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_sector_hit_rate.pct",
	"l1tex__t_sector_hit_rate.pct",
	NULL,
};

/* Instructions, and floating-point operations by precision (an FMA is two
 * operations: FLOPs = add + mul + 2 * fma). */
static const char *const instructions[] = {
	"smsp__inst_executed.sum",
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
	NULL,
};

const struct cupti_cb_mgroup cupti_cb_mgroups[] = {
	{ "sol", "speed of light: SM, memory and DRAM throughput in % of peak, GPU time", sol },
	{ "memory", "DRAM bytes read and written, L2 and L1 hit rates", memory },
	{ "instructions", "warp instructions executed, FP32 and FP64 add/mul/fma thread instructions", instructions },
	{ "occupancy", "achieved occupancy: active warps in % of the maximum, per active cycle", occupancy },
};

const unsigned cupti_cb_n_mgroups = sizeof cupti_cb_mgroups / sizeof cupti_cb_mgroups[0];

const struct cupti_cb_mgroup *cupti_cb_mgroup_find(const char *name)
{
	for (unsigned i = 0; name && i < cupti_cb_n_mgroups; i++)
		if (!strcmp(cupti_cb_mgroups[i].name, name))
			return &cupti_cb_mgroups[i];
	return NULL;
}
