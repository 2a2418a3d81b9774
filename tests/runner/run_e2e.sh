#!/bin/sh
# run_e2e: the runner, the injected library and libpapi with cupti_cb
# together, on the CPU. The application is ctests/cpu_fake_inject in its
# app-basic role: it links the fake libcuda, which loads
# CUDA_INJECTION64_PATH at the first cuInit as the driver does, then plays
# known CUDA calls (5 cudaLaunchKernel and 2 cuLaunchKernel, 3 copies of
# 1000 bytes host to device and one of 500 back, a memset of 256 bytes, 2
# allocations of 1 MiB, a synchronization) and GPU activity records (2
# kernels, 350 ns; a copy of 1000 bytes; busy 450 ns); a fork() child of it
# writes no file. app-disabled finds CUPTI taken by another subscriber and
# exits with 7: the runner prints the component's reason and returns 7.
# --metrics: app-metrics makes the same calls with a working (fake) range
# profiler; once the metrics started (on the library's thread, after the
# first GPU work) its GPU reads 4096 bytes of DRAM at 87.5%
# L2 hits: the report has those values, an unknown metric is left out with a
# note, and the callback counts are those of app-basic. Without profiling
# permission (APP_NOPERM) the metrics are left out, with the note, and the
# run counts the rest. app-crash and app-exit make the calls of app-basic
# and end without their exit handlers (SIGSEGV, _exit(3)).
. "$LIB_SH"

if ! test -r "$INJ_LIB"; then
	fail "$INJ_LIB is missing (build src/inject/ first)"
	finish
fi
CUPTI_CB_RUN_INJECT=$INJ_LIB
export CUPTI_CB_RUN_INJECT

rc 0 "$RUNNER" -o t.txt --json e.json -- "$FAKE_INJECT_APP" app-basic
js e.json /run/exit_status 0
js e.json /processes/# 1
js e.json /status/counting true
js e.json '/api[function=cudaLaunchKernel]/calls' 5
js e.json '/api[function=cudaLaunchKernel]/layer' runtime
js e.json '/api[function=cudaMemcpy]/calls' 4
js e.json '/api[function=cuLaunchKernel]/calls' 7
js e.json '/api[function=cuLaunchKernel]/layer' driver
js e.json '/devices[device=0]/events/kernel.launches' 7
js e.json '/devices[device=0]/events/memcpy.calls' 4
js e.json '/devices[device=0]/events/memcpy.bytes_htod' 3000
js e.json '/devices[device=0]/events/memcpy.bytes_dtoh' 500
js e.json '/devices[device=0]/events/memset.bytes' 256
js e.json '/devices[device=0]/events/alloc.bytes' 2097152
js e.json '/devices[device=0]/events/sync.calls' 1
js e.json '/devices[device=0]/events/gpu.kernels' 2
js e.json '/devices[device=0]/events/gpu.kernel_time_ns' 350
js e.json '/devices[device=0]/events/gpu.busy_ns' 450
row t.txt "kernel launches launches 7"
row t.txt "bytes host to device bytes 3000"
row t.txt "kernels executed kernels 2"
row t.txt "busy time ns 450"
# Num Calls (column 3) of the cudaLaunchKernel row.
test "$(awk '$8 == "cudaLaunchKernel" { print $3 }' t.txt)" = 5 || fail "t.txt has no cudaLaunchKernel row of 5 calls"

rc 0 "$RUNNER" --metrics dram__bytes_read.sum,no_such__metric.sum,lts__t_request_hit_rate.pct \
	-o m.txt --json m.json --csv m.csv -- "$FAKE_INJECT_APP" app-metrics
js m.json /status/counting true
js m.json /metrics/# 2
js m.json '/metrics[name=dram__bytes_read.sum]/device' 0
js m.json '/metrics[name=dram__bytes_read.sum]/value' 4096
js m.json '/metrics[name=dram__bytes_read.sum]/units' byte
js m.json '/metrics[name=lts__t_request_hit_rate.pct]/value' 87.5
js m.json '/metrics[name=lts__t_request_hit_rate.pct]/units' %
js m.json '/devices[device=0]/events/kernel.launches' 7
js m.json '/api[function=cudaLaunchKernel]/calls' 5
js m.json /totals/api.calls 21
row m.txt "Metric Device Value Units Across processes"
row m.txt "dram__bytes_read.sum 0 4096 byte 1 process"
row m.txt "lts__t_request_hit_rate.pct 0 87.5 % 1 process"
line m.csv "metric,dram__bytes_read.sum,0,4096,byte"
line m.csv "metric,lts__t_request_hit_rate.pct,0,87.5,%"
grep -Fq "note: hardware metric no_such__metric.sum (device 0) was left out: cupti_cb knows no such metric" m.txt ||
	fail "m.txt has no note on no_such__metric.sum"
grep -Fq "note: hardware metrics counted from the program's first allocation, copy, memset or kernel launch" m.txt ||
	fail "m.txt does not say when the metrics started"
noline m.txt "not collected by cupti_cb_run yet"

APP_NOPERM=1 rc 0 "$RUNNER" --metrics dram__bytes_read.sum -o p.txt --json p.json -- "$FAKE_INJECT_APP" app-metrics
js p.json /status/counting true
js p.json /metrics/# 0
js p.json '/devices[device=0]/events/kernel.launches' 7
js p.json /totals/api.calls 21
noline p.txt "Hardware metrics"
grep -Fq "note: hardware metrics were not collected: profiling is restricted to administrators" p.txt ||
	fail "p.txt does not say that profiling is restricted"

# A program that made CUDA calls and then crashed, or called _exit: before,
# it was reported as having made no CUDA call. With --interval the counts
# of the last tick are kept; the runner says how its program ended.
rc 139 "$RUNNER" --interval 20ms -o c.txt --json c.json -- "$FAKE_INJECT_APP" app-crash
pid=$("$JSON_GET" c.json /processes/0/pid)
js c.json /processes/# 1
js c.json /status/counting false
js c.json /processes/0/status/final false
js c.json /processes/0/status/reason "it was killed by signal 11 (Segmentation fault)"
js c.json /status/reason "it was killed by signal 11 (Segmentation fault)"
js c.json /processes/0/partial/events/api.calls 21
js c.json /processes/0/partial/events/kernel.launches 7
js c.json /processes/0/partial/events/memcpy.bytes 3500
line c.txt " process $pid made CUDA calls but ended before it wrote its counts: it was killed by signal 11 (Segmentation fault)"
grep -q "^ process $pid: its last published counts ([0-9.]* s after its first CUDA call): api.calls=21 kernel.launches=7 memcpy.bytes=3500 gpu.busy_ns=0\$" c.txt ||
	fail "c.txt does not give the last published counts"
noline err "nothing was measured"
rc 3 "$RUNNER" -o x.txt --json x.json -- "$FAKE_INJECT_APP" app-exit
pid=$("$JSON_GET" x.json /processes/0/pid)
js x.json /processes/0/status/reason "it ended with _exit or quick_exit (exit status 3), which run no exit handler"
"$JSON_GET" x.json /processes/0/partial > /dev/null 2>&1 && fail "x.json has counts that were never published"
line x.txt " process $pid made CUDA calls but ended before it wrote its counts: it ended with _exit or quick_exit (exit status 3), which run no exit handler"
line x.txt " process $pid: what it did is unknown (--interval T publishes the counts every T, and the last ones are kept)"
# A process that exits normally replaces the early file with its counts.
js e.json /processes/0/status/counting true
"$JSON_GET" e.json /processes/0/partial > /dev/null 2>&1 && fail "e.json still has the early file's partial counts"

rc 7 "$RUNNER" -o t.txt --json d.json -- "$FAKE_INJECT_APP" app-disabled
js d.json /status/counting false
reason=$("$JSON_GET" d.json /status/reason)
test -n "$reason" && test "$reason" != null || fail "no reason in d.json"
line err "cupti_cb_run: process $("$JSON_GET" d.json /processes/0/pid) did not count: $reason"
finish
