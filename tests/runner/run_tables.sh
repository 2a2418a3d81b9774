#!/bin/sh
# run_tables: two process files (1001, and 1002 with a second device) merged
# into one report: the text tables, the CSV and the JSON, exact values.
# Merging: counts and times add up, min_ns is the smaller, max_ns and
# alloc.peak_bytes the larger, a .sum metric adds up, an average metric is
# the mean, a note both processes made appears once.
. "$LIB_SH"

rc 0 "$RUNNER" -o t.txt --csv t.csv --json t.json -- "$FAKE_APP" a b
test -s err && fail "standard error is not empty: $(cat err)"

# --- text
line t.txt "cupti_cb_run: $FAKE_APP a b"
line t.txt "CUDA runtime API (3 functions; Time (%) is within the runtime layer)"
line t.txt " Time (%)  Total Time (ns)  Num Calls  Avg (ns)  Min (ns)  Max (ns)  Errors  Name"
line t.txt " --------  ---------------  ---------  --------  --------  --------  ------  ----"
line t.txt "     77.3           700000          5  140000.0     20000    300000       0  cudaMemcpy"
line t.txt "     22.1           200000          4   50000.0     40000     60000       1  cudaLaunchKernel"
line t.txt "      0.6             5000          1    5000.0      5000      5000       0  cudaMalloc"
line t.txt "CUDA driver API (2 functions; Time (%) is within the driver layer)"
line t.txt "     83.3           500000          2  250000.0    200000    300000       0  cuMemcpyHtoD_v2"
line t.txt "     16.7           100000          3   33333.3     30000     40000       0  cuLaunchKernel"
line t.txt " counted in both tables, and are not extra work. Do not add the two up."
line t.txt " Operation                 Unit      Device 0  Device 1"
line t.txt " kernel launches           launches         5         2"
line t.txt "   on the legacy stream    launches         3         -"
line t.txt " threads launched          threads       1024         -"
line t.txt "   bytes host to device    bytes         4196         -"
line t.txt " allocations               calls            3         -"
line t.txt "   bytes allocated         bytes        24576         -"
line t.txt " peak live memory          bytes        16384      4096"
line t.txt "   synchronization time    ns           50000         -"
line t.txt " kernels executed        kernels         4         -"
line t.txt " busy time               ns         600000         -"
line t.txt " utilization             %            20.0         -"
line t.txt " Utilization is busy time over the wall time of the processes, summed (3000000 ns)."
line t.txt " dram__bytes_read.sum                                    0   1500  bytes  sum of 2"
line t.txt " sm__warps_active.avg.pct_of_peak_sustained_active       0   40.5  %      mean of 2 (min 30.5, max 50.5)"
line t.txt " note: gpu.memset events are not offered by this libpapi"
test "$(grep -c 'note:' t.txt)" = 1 || fail "the note shared by both processes is not printed once"
# Events the process files do not have get no row.
noline t.txt "dynamic shared memory"
noline t.txt "memset time"

# --- CSV: a header, then one row per quantity
line t.csv "section,name,device,value,unit"
line t.csv "run,exit_status,,0,"
line t.csv "run,processes,,2,processes"
line t.csv "totals,api.calls,,15,calls"
line t.csv "totals,api.time_ns,,1505000,ns"
line t.csv "runtime_api,cudaMemcpy.min_ns,,20000,ns"
line t.csv "runtime_api,cudaMemcpy.max_ns,,300000,ns"
line t.csv "driver_api,cuLaunchKernel.calls,,3,calls"
line t.csv "device,alloc.peak_bytes,0,16384,bytes"
line t.csv "device,alloc.peak_bytes,1,4096,bytes"
line t.csv "device,memcpy.bytes_htod,0,4196,bytes"
line t.csv "metric,dram__bytes_read.sum,0,1500,bytes"
line t.csv "metric,sm__warps_active.avg.pct_of_peak_sustained_active,0,40.5,%"
# 1 header + 3 run + 3 totals + 5 functions x 5 fields + 27 + 2 device events + 2 metrics
test "$(wc -l < t.csv)" = 63 || fail "t.csv has $(wc -l < t.csv) lines, not 63"

# --- JSON
js t.json /schema cupti_cb_run/1
js t.json /cupti_cb/version 0.3.0
js t.json /run/exit_status 0
js t.json /run/rank null
js t.json /run/argv/1 a
js t.json /processes/# 2
js t.json /processes/0/pid 1001
js t.json /processes/1/argv/1 child
js t.json /processes/1/wall_ns 1000000
js t.json /status/counting true
js t.json /totals/api.calls 15
js t.json /totals/api.time_ns 1505000
js t.json /totals/api.errors 1
js t.json '/api[function=cudaMemcpy]/calls' 5
js t.json '/api[function=cudaMemcpy]/time_ns' 700000
js t.json '/api[function=cudaMemcpy]/min_ns' 20000
js t.json '/api[function=cudaMemcpy]/max_ns' 300000
js t.json '/api[function=cudaMalloc]/layer' runtime
js t.json '/api[function=cuLaunchKernel]/layer' driver
js t.json /api/# 5
js t.json '/devices[device=0]/events/kernel.launches' 5
js t.json '/devices[device=0]/events/alloc.peak_bytes' 16384
js t.json '/devices[device=0]/events/alloc.bytes' 24576
js t.json '/devices[device=0]/events/gpu.busy_ns' 600000
js t.json '/devices[device=1]/events/kernel.launches' 2
js t.json '/devices[device=1]/events/alloc.peak_bytes' 4096
js t.json '/devices[device=1]/events/#' 2
js t.json '/metrics[name=dram__bytes_read.sum]/value' 1500
js t.json '/metrics[name=sm__warps_active.avg.pct_of_peak_sustained_active]/value' 40.5
js t.json '/metrics[name=sm__warps_active.avg.pct_of_peak_sustained_active]/processes' 2
js t.json '/metrics[name=sm__warps_active.avg.pct_of_peak_sustained_active]/min' 30.5
js t.json '/metrics[name=sm__warps_active.avg.pct_of_peak_sustained_active]/max' 50.5
js t.json /notes/# 1

# --- -o - writes the tables to standard output, nothing to standard error.
rc 0 "$RUNNER" -o - -- "$FAKE_APP" a
line out "     75.0           600000          3  200000.0    100000    300000       0  cudaMemcpy"
test -s err && fail "-o -: standard error is not empty"

# --- a process file that is not one is left out, with a sentence.
rc 0 "$RUNNER" -o t2.txt --json t2.json -- sh -c 'printf "{\"schema\": \"other/2\"}" > "$CUPTI_CB_RUN_DIR/proc-7.json"; "$0" a' "$FAKE_APP"
line err "cupti_cb_run: proc-7.json is left out: its schema is 'other/2', not cupti_cb_run/1"
js t2.json /processes/# 1
finish
