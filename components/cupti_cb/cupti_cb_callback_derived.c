/* cupti_cb_callback_derived.c: the table of derived events. The names are the
 * user-visible interface: keep them stable (cupti_cb-callbacks(7) lists them). */
#include "cupti_cb_callback_derived.h"

#define BIT CUPTI_CB_CLS_BIT
#define DEV(n, u, d, first, count, timed, needs) \
	{ n, u, d, 1, first, count, timed, needs, CUPTI_CB_READ_COUNT }
#define THR(n, u, d, first, timed) \
	{ n, u, d, 0, first, 1, timed, CUPTI_CB_ALL_CBIDS, CUPTI_CB_READ_COUNT }
/* Read from the allocation gauges, not from counters (cupti_cb_callback_windows.h). */
#define GAUGE(n, d, read) \
	{ n, "bytes", d, 1, 0, 0, 0, BIT(CUPTI_CB_CLS_ALLOC) | BIT(CUPTI_CB_CLS_FREE), read }

const struct cupti_cb_derived cupti_cb_derived_events[] = {
	DEV("kernel.launches", "",
	    "Kernels launched, by any launch path (<<<>>>, cudaLaunchKernel[ExC], cuLaunchKernel[Ex], "
	    "cooperative launches); kernels run by a graph launch are not included",
	    CUPTI_CB_C_LAUNCHES_LEGACY, 2, 0, BIT(CUPTI_CB_CLS_LAUNCH)),
	DEV("kernel.threads", "",
	    "Threads launched: grid size times block size (x*y*z each), summed over the launches "
	    "kernel.launches counts (cuLaunch and cuLaunchGrid[Async] add none: their block shape is not "
	    "in their parameters)",
	    CUPTI_CB_C_THREADS, 1, 0, BIT(CUPTI_CB_CLS_LAUNCH)),
	DEV("kernel.dyn_smem_bytes", "bytes",
	    "Dynamic shared memory requested by the launches kernel.launches counts, summed",
	    CUPTI_CB_C_DYN_SMEM, 1, 0, BIT(CUPTI_CB_CLS_LAUNCH)),
	DEV("kernel.launches_legacy_stream", "",
	    "Launches onto the legacy default stream: a NULL stream in a call without the _ptsz suffix, "
	    "or CU_STREAM_LEGACY (cudaStreamLegacy)",
	    CUPTI_CB_C_LAUNCHES_LEGACY, 1, 0, BIT(CUPTI_CB_CLS_LAUNCH)),
	DEV("kernel.launches_other_stream", "",
	    "Launches onto any other stream: created streams and the per-thread default stream; "
	    "with kernel.launches_legacy_stream it makes kernel.launches",
	    CUPTI_CB_C_LAUNCHES_OTHER, 1, 0, BIT(CUPTI_CB_CLS_LAUNCH)),
	DEV("graph.launches", "", "Graph launches (cudaGraphLaunch, cuGraphLaunch), one per launch call",
	    CUPTI_CB_C_GRAPH_LAUNCHES, 1, 0, BIT(CUPTI_CB_CLS_GRAPH)),
	DEV("memcpy.calls", "", "Memory copies (sync, async, 2D, 3D, peer, symbol; each copy of a batch)",
	    CUPTI_CB_C_MEMCPY_CALLS, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes", "bytes", "Bytes copied, all directions",
	    CUPTI_CB_C_BYTES_HTOD, CUPTI_CB_N_DIRS, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes_htod", "bytes", "Bytes copied from host to device",
	    CUPTI_CB_C_BYTES_HTOD, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes_dtoh", "bytes", "Bytes copied from device to host",
	    CUPTI_CB_C_BYTES_DTOH, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes_dtod", "bytes", "Bytes copied within one device",
	    CUPTI_CB_C_BYTES_DTOD, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes_htoh", "bytes", "Bytes copied from host to host through CUDA",
	    CUPTI_CB_C_BYTES_HTOH, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memcpy.bytes_peer", "bytes", "Bytes copied between two different devices",
	    CUPTI_CB_C_BYTES_PEER, 1, 0, BIT(CUPTI_CB_CLS_MEMCPY)),
	DEV("memset.calls", "", "Memsets (1D, 2D, sync and async)",
	    CUPTI_CB_C_MEMSET_CALLS, 1, 0, BIT(CUPTI_CB_CLS_MEMSET)),
	DEV("memset.bytes", "bytes", "Bytes set by memsets",
	    CUPTI_CB_C_MEMSET_BYTES, 1, 0, BIT(CUPTI_CB_CLS_MEMSET)),
	DEV("alloc.calls", "", "Allocations of device, pinned host, managed and stream-ordered memory, CUDA arrays, "
	    "mipmapped arrays and physical memory (cuMemCreate)",
	    CUPTI_CB_C_ALLOC_CALLS, 1, 0, BIT(CUPTI_CB_CLS_ALLOC) | BIT(CUPTI_CB_CLS_FREE)),
	DEV("alloc.bytes", "bytes", "Bytes allocated (as requested; pitched: pitch times height; arrays: elements times "
	    "element size, every mipmap level)",
	    CUPTI_CB_C_ALLOC_BYTES, 1, 0, BIT(CUPTI_CB_CLS_ALLOC) | BIT(CUPTI_CB_CLS_FREE)),
	GAUGE("alloc.live_bytes",
	      "Bytes allocated and not freed yet, now, of the allocations cupti_cb saw while it counted "
	      "allocations; the process's; after a PAPI_reset, how much it changed since (may be negative), "
	      "so that read+reset pieces add up",
	      CUPTI_CB_READ_LIVE),
	GAUGE("alloc.peak_bytes",
	      "Highest alloc.live_bytes since PAPI_start (which starts it from the live value of that "
	      "moment); the process's; after a PAPI_reset, how much it rose since, so that read+reset "
	      "pieces add up",
	      CUPTI_CB_READ_PEAK),
	DEV("free.calls", "", "Frees of device, pinned host, managed and stream-ordered memory, CUDA arrays, "
	    "mipmapped arrays and physical memory (cuMemRelease)",
	    CUPTI_CB_C_FREE_CALLS, 1, 0, BIT(CUPTI_CB_CLS_FREE)),
	DEV("free.bytes", "bytes",
	    "Bytes freed, for allocations made while cupti_cb was counting",
	    CUPTI_CB_C_FREE_BYTES, 1, 0, BIT(CUPTI_CB_CLS_FREE) | BIT(CUPTI_CB_CLS_ALLOC)),
	DEV("sync.calls", "", "Synchronizations: device/context, stream and event",
	    CUPTI_CB_C_SYNC_CALLS, 1, 0, BIT(CUPTI_CB_CLS_SYNC)),
	DEV("sync.time_ns", "ns", "Host time blocked in synchronizations",
	    CUPTI_CB_C_SYNC_TIME, 1, 1, BIT(CUPTI_CB_CLS_SYNC)),
	THR("api.calls", "",
	    "CUDA API calls made by the application: runtime calls, and driver calls not made "
	    "from inside a runtime call",
	    CUPTI_CB_C_API_CALLS, 0),
	THR("api.time_ns", "ns", "Host time in the CUDA API calls counted by api.calls",
	    CUPTI_CB_C_API_TIME, 1),
	THR("api.errors", "",
	    "CUDA API calls counted by api.calls that returned an error (not cudaSuccess or CUDA_SUCCESS; "
	    "cudaErrorNotReady from a query counts)",
	    CUPTI_CB_C_API_ERRORS, 0),
};

const unsigned cupti_cb_n_derived = sizeof cupti_cb_derived_events / sizeof cupti_cb_derived_events[0];
