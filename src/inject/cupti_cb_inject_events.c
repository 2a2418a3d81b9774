/* cupti_cb_inject_events.c: the derived events that the library counts, in the process file's
 * order (see the header). */
#include <string.h>

#include "cupti_cb_inject_events.h"

const char *const cupti_cb_inj_totals[] = { "api.calls", "api.time_ns", "api.errors" };
const int cupti_cb_inj_n_totals = 3;

const char *const cupti_cb_inj_dev_events[] = {
	"kernel.launches", "graph.launches", "memcpy.calls", "memcpy.bytes_htod", "memcpy.bytes_dtoh",
	"memcpy.bytes_dtod", "memcpy.bytes_htoh", "memcpy.bytes_peer", "memset.calls", "memset.bytes",
	"alloc.calls", "alloc.bytes", "free.calls", "free.bytes", "alloc.peak_bytes", "sync.calls",
	"sync.time_ns", "kernel.threads", "kernel.dyn_smem_bytes", "kernel.launches_legacy_stream",
	"kernel.launches_other_stream",
	/* the activity source's */
	"gpu.kernels", "gpu.kernel_time_ns", "gpu.memcpy.count", "gpu.memcpy.bytes_htod",
	"gpu.memcpy.bytes_dtoh", "gpu.memcpy.bytes_dtod", "gpu.memcpy.bytes_htoh", "gpu.memcpy.bytes_peer",
	"gpu.memcpy.time_ns", "gpu.memset.count", "gpu.memset.bytes", "gpu.memset.time_ns", "gpu.busy_ns",
};
const int cupti_cb_inj_n_dev_events = sizeof cupti_cb_inj_dev_events / sizeof cupti_cb_inj_dev_events[0];
const int cupti_cb_inj_first_gpu_event = 21;

const char *const cupti_cb_inj_func_fields[] = { "calls", "time_ns", "time_ns_min", "time_ns_max", "errors" };
const char *const cupti_cb_inj_func_keys[] = { "calls", "time_ns", "min_ns", "max_ns", "errors" };
const int cupti_cb_inj_n_func_fields = 5;

int cupti_cb_inj_host_time(const char *name)
{
	return strncmp(name, "gpu.", 4) && strstr(name, "time_ns");
}
