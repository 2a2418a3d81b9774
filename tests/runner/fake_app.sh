#!/bin/sh
# fake_app.sh: stands in for a CUDA program under cupti_cb_run. It writes
# the process files the injected library would write into $CUPTI_CB_RUN_DIR
# (known values, so that the runner's merging and reports can be checked
# exactly), then ends as asked:
#
#   fake_app.sh [-x STATUS] [-k SIGNAL] [-e FILE] VARIANT...
#
#   a, b       processes 1001 and 1002 (b adds a second device)
#   more       process 1001 with one more cudaMemcpy and 100 more bytes
#   nocount    process 1003, which did not count (a reason sentence)
#   rank       this process, with values that depend on the MPI rank r:
#              api.calls 10(r+1), kernel.launches 2+r, memcpy.bytes_htod
#              1000(r+1), api.time_ns 1000(r+1)^2, wall_ns 5000
#   ta, tb     processes 1011 and 1012 with per-thread rows ("threads"): 1011
#              has its main thread and an exited "loader", 1012 one shared
#              thread and no gpu.kernels (its activity source did not count)
#   none       writes nothing
#   -e FILE    writes the cupti_cb_run environment variables to FILE
set -e
status=0 sig= envfile=
while getopts x:k:e: o; do
	case $o in
	x) status=$OPTARG ;;
	k) sig=$OPTARG ;;
	e) envfile=$OPTARG ;;
	*) exit 99 ;;
	esac
done
shift $((OPTIND - 1))
dir=${CUPTI_CB_RUN_DIR:?CUPTI_CB_RUN_DIR is not set}

if test -n "$envfile"; then
	for v in CUDA_INJECTION64_PATH CUPTI_CB_RUN_ACTIVITY CUPTI_CB_RUN_TIME CUPTI_CB_RUN_METRICS \
		CUPTI_CB_RUN_INTERVAL_MS CUPTI_CB_RUN_START CUPTI_CB_RUN_TRACE; do
		eval "printf '%s=%s\n' $v \"\${$v-(unset)}\""
	done > "$envfile"
	case $dir in /*) test -d "$dir" && echo "CUPTI_CB_RUN_DIR is a directory" >> "$envfile" ;; esac
fi

# put NAME CONTENT: written under a temporary name, then renamed, as the
# injected library does.
put() {
	printf '%s\n' "$2" > "$dir/.tmp-$1"
	mv "$dir/.tmp-$1" "$dir/$1"
}

for v in "$@"; do
	case $v in
	a|more)
		m=3 b=4096 t=600000
		if test $v = more; then m=4 b=4196 t=700000; fi
		put proc-1001.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": 1001, "host": "nodeA", "rank": null, "argv": ["./app", "x"], "wall_ns": 2000000},
 "status": {"counting": true, "reason": null},
 "totals": {"api.calls": '$((9 + m))', "api.time_ns": '$((t + 800000))', "api.errors": 1},
 "api": [
  {"function": "cudaMemcpy", "layer": "runtime", "calls": '$m', "time_ns": '$t', "min_ns": 100000, "max_ns": 300000, "errors": 0},
  {"function": "cudaLaunchKernel", "layer": "runtime", "calls": 4, "time_ns": 200000, "min_ns": 40000, "max_ns": 60000, "errors": 1},
  {"function": "cuMemcpyHtoD_v2", "layer": "driver", "calls": 2, "time_ns": 500000, "min_ns": 200000, "max_ns": 300000, "errors": 0},
  {"function": "cuLaunchKernel", "layer": "driver", "calls": 3, "time_ns": 100000, "min_ns": 30000, "max_ns": 40000, "errors": 0}],
 "devices": [{"device": 0, "events": {"kernel.launches": 4, "graph.launches": 0, "memcpy.calls": '$m',
   "memcpy.bytes_htod": '$b', "memcpy.bytes_dtoh": 2048, "memcpy.bytes_dtod": 0, "memcpy.bytes_htoh": 0,
   "memcpy.bytes_peer": 0, "memset.calls": 1, "memset.bytes": 1024, "alloc.calls": 2, "alloc.bytes": 8192,
   "free.calls": 2, "free.bytes": 8192, "alloc.peak_bytes": 8192, "sync.calls": 1, "sync.time_ns": 50000,
   "kernel.threads": 1024, "kernel.launches_legacy_stream": 3, "kernel.launches_other_stream": 1,
   "gpu.kernels": 4, "gpu.kernel_time_ns": 400000, "gpu.memcpy.count": 3, "gpu.memcpy.bytes_htod": 4096,
   "gpu.memcpy.bytes_dtoh": 2048, "gpu.memcpy.time_ns": 30000, "gpu.busy_ns": 500000}}],
 "metrics": [{"name": "dram__bytes_read.sum", "device": 0, "value": 1000, "units": "bytes"},
   {"name": "sm__warps_active.avg.pct_of_peak_sustained_active", "device": 0, "value": 50.5, "units": "%"}],
 "notes": ["gpu.memset events are not offered by this libpapi"]}'
		;;
	b)
		put proc-1002.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": 1002, "host": "nodeA", "rank": null, "argv": ["./app", "child"], "wall_ns": 1000000},
 "status": {"counting": true, "reason": null},
 "totals": {"api.calls": 3, "api.time_ns": 105000, "api.errors": 0},
 "api": [
  {"function": "cudaMemcpy", "layer": "runtime", "calls": 2, "time_ns": 100000, "min_ns": 20000, "max_ns": 80000, "errors": 0},
  {"function": "cudaMalloc", "layer": "runtime", "calls": 1, "time_ns": 5000, "min_ns": 5000, "max_ns": 5000, "errors": 0}],
 "devices": [{"device": 0, "events": {"kernel.launches": 1, "memcpy.calls": 2, "memcpy.bytes_htod": 100,
   "alloc.calls": 1, "alloc.bytes": 16384, "alloc.peak_bytes": 16384, "gpu.busy_ns": 100000}},
  {"device": 1, "events": {"kernel.launches": 2, "alloc.peak_bytes": 4096}}],
 "metrics": [{"name": "dram__bytes_read.sum", "device": 0, "value": 500, "units": "bytes"},
   {"name": "sm__warps_active.avg.pct_of_peak_sustained_active", "device": 0, "value": 30.5, "units": "%"}],
 "notes": ["gpu.memset events are not offered by this libpapi"]}'
		;;
	nocount)
		put proc-1003.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": 1003, "host": "nodeA", "rank": null, "argv": ["./app"], "wall_ns": 10},
 "status": {"counting": false, "reason": "No NVIDIA driver: libcuda.so.1 cannot be loaded"},
 "totals": {}, "api": [], "devices": [], "metrics": [], "notes": []}'
		;;
	rank)
		r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
		put proc-$$.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": '$$', "host": "nodeA", "rank": '$r', "argv": ["./app"], "wall_ns": 5000},
 "status": {"counting": true, "reason": null},
 "totals": {"api.calls": '$((10 * (r + 1)))', "api.time_ns": '$((1000 * (r + 1) * (r + 1)))', "api.errors": 0},
 "api": [{"function": "cudaLaunchKernel", "layer": "runtime", "calls": '$((10 * (r + 1)))',
   "time_ns": '$((1000 * (r + 1) * (r + 1)))', "min_ns": '$((50 + r))', "max_ns": '$((200 * (r + 1)))', "errors": 0}],
 "devices": [{"device": 0, "events": {"kernel.launches": '$((2 + r))', "memcpy.bytes_htod": '$((1000 * (r + 1)))',
   "alloc.peak_bytes": '$((100 * (r + 1)))'}}],
 "metrics": [], "notes": []}'
		;;
	ta)
		put proc-1011.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": 1011, "host": "nodeA", "rank": null, "argv": ["./app"], "wall_ns": 1000000},
 "status": {"counting": true, "reason": null},
 "totals": {"api.calls": 13, "api.time_ns": 95000, "api.errors": 0},
 "api": [{"function": "cudaMemcpy", "layer": "runtime", "calls": 13, "time_ns": 95000, "min_ns": 10, "max_ns": 90000, "errors": 0}],
 "devices": [{"device": 0, "events": {"kernel.launches": 4, "memcpy.bytes_htod": 67584, "gpu.kernels": 4}}],
 "metrics": [], "notes": [],
 "threads": [
  {"tid": 1011, "name": "app", "exited": false, "shared": false, "events": {"api.calls": 10,
    "api.time_ns": 5000, "kernel.launches": 4, "memcpy.bytes": 2048, "sync.time_ns": 1000, "gpu.kernels": 4}},
  {"tid": 1015, "name": "loader", "exited": true, "shared": false, "events": {"api.calls": 3,
    "api.time_ns": 90000, "kernel.launches": 0, "memcpy.bytes": 65536, "sync.time_ns": 0, "gpu.kernels": 0}}]}'
		;;
	tb)
		put proc-1012.json '{"schema": "cupti_cb_run/1", "cupti_cb": {"version": "0.3.0"},
 "process": {"pid": 1012, "host": "nodeB", "rank": null, "argv": ["./app"], "wall_ns": 1000000},
 "status": {"counting": true, "reason": null},
 "totals": {"api.calls": 7, "api.time_ns": 20000, "api.errors": 0},
 "api": [{"function": "cudaLaunchKernel", "layer": "runtime", "calls": 7, "time_ns": 20000, "min_ns": 10, "max_ns": 9000, "errors": 0}],
 "devices": [{"device": 0, "events": {"kernel.launches": 2}}],
 "metrics": [], "notes": [],
 "threads": [
  {"tid": 1012, "name": "app, main", "exited": false, "shared": true, "events": {"api.calls": 7,
    "api.time_ns": 20000, "kernel.launches": 2, "memcpy.bytes": 0, "sync.time_ns": 700}}]}'
		;;
	none) ;;
	*) echo "fake_app.sh: no variant $v" >&2; exit 99 ;;
	esac
done
if test -n "$sig"; then
	kill -s "$sig" $$
	sleep 5
fi
exit "$status"
