#!/bin/sh
# run_notime: --no-time counts without host times, so that cupti_cb's
# callbacks read no clock. The runner passes CUPTI_CB_RUN_TIME=0; the
# injected library then adds no host-time event (api.time_ns,
# sync.time_ns, <f>.time_ns, .time_ns_min, .time_ns_max) and writes
# "host_time": false. Run through the runner, the injected library and
# libpapi with cupti_cb on the CPU (ctests/cpu_fake_inject app-basic,
# the calls run_e2e.sh lists): the counts are the real ones, no host time is
# a number anywhere (JSON, CSV, tables), the GPU's own times stay, and the
# text says once why the times are missing. A rule that compares a host
# time cannot work with --no-time and is refused before the program runs;
# against a baseline without host times it is "not measured", never ok.
. "$LIB_SH"

rc 0 "$RUNNER" --no-time -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_TIME=0"

if ! test -r "$INJ_LIB"; then
	fail "$INJ_LIB is missing (build src/inject/ first)"
	finish
fi

rc 0 "$RUNNER" --no-time -o t.txt --json n.json --csv n.csv -- "$FAKE_INJECT_APP" app-basic
js n.json /run/exit_status 0
js n.json /status/counting true
js n.json /host_time false
js n.json /processes/# 1
js n.json /totals/api.calls 21
js n.json '/api[function=cudaLaunchKernel]/calls' 5
js n.json '/api[function=cudaLaunchKernel]/errors' 0
js n.json '/api[function=cudaMemcpy]/calls' 4
js n.json '/api[function=cuLaunchKernel]/calls' 7
js n.json '/devices[device=0]/events/kernel.launches' 7
js n.json '/devices[device=0]/events/memcpy.bytes_htod' 3000
js n.json '/devices[device=0]/events/alloc.bytes' 2097152
js n.json '/devices[device=0]/events/sync.calls' 1
# The GPU's own times need no host clock: they stay.
js n.json '/devices[device=0]/events/gpu.kernel_time_ns' 350
js n.json '/devices[device=0]/events/gpu.busy_ns' 450
# No host time at all: absent, not 0.
for k in api.time_ns time_ns min_ns max_ns sync.time_ns; do
	grep -q "\"$k\"" n.json && fail "n.json has \"$k\": a host time that was not measured"
done
js n.json '/threads/0/events/api.calls' 21
"$JSON_GET" n.json '/threads/0/events/api.time_ns' > /dev/null 2>&1 && fail "a thread row has api.time_ns"

# The CSV says it, and has no host-time row.
line n.csv "run,host_time,,0,"
line n.csv "totals,api.calls,,21,calls"
line n.csv "runtime_api,cudaLaunchKernel.calls,,5,calls"
line n.csv "device,gpu.kernel_time_ns,0,350,ns"
grep -v '^device,gpu\.' n.csv | grep -E '(time_ns|min_ns|max_ns)' &&
	fail "n.csv has a host-time row"

# The text: said once, under the header; the API tables have calls and
# errors only, by calls; no synchronization time; the GPU's times stay.
line t.txt " host times were not measured (--no-time): no time per CUDA call or synchronization;"
test "$(grep -c -- '--no-time' t.txt)" = 1 || fail "t.txt does not say it once: $(grep -c -- '--no-time' t.txt) times"
line t.txt "CUDA runtime API (7 functions, by calls)"
row t.txt "Num Calls Errors Name"
row t.txt "5 0 cudaLaunchKernel"
row t.txt "7 0 cuLaunchKernel"
noline t.txt "Total Time"
noline t.txt "Time (%)"
noline t.txt "synchronization time"
row t.txt "synchronizations calls 1"
row t.txt "kernel time ns 350"
row t.txt "PID TID Calls Launches Memcpy Bytes GPU Kernels Name"
noline t.txt "API Time"
noline t.txt "Sync Time"

# PAPI's high-level output defines api.time_ns for every rank, with no value.
rc 0 "$RUNNER" --no-time -o /dev/null --hl-output hl -- "$FAKE_INJECT_APP" app-basic
f=$(ls hl/rank_*.json)
js "$f" '/threads/0/regions/0/cupti_cb:::api.calls' 21
js "$f" '/event_definitions/cupti_cb:::api.time_ns/type' delta
"$JSON_GET" "$f" '/threads/0/regions/0/cupti_cb:::api.time_ns' > /dev/null 2>&1 && fail "$f has a value of api.time_ns"
"$JSON_GET" "$f" '/threads/0/regions/0/cupti_cb:::sync.time_ns' > /dev/null 2>&1 && fail "$f has a value of sync.time_ns"

# Without --no-time the same program has its host times, and says so.
rc 0 "$RUNNER" -o e.txt --json e.json --csv e.csv -- "$FAKE_INJECT_APP" app-basic
js e.json /host_time true
js e.json '/api[function=cudaLaunchKernel]/calls' 5
"$JSON_GET" e.json '/api[function=cudaLaunchKernel]/time_ns' > /dev/null || fail "e.json has no time_ns"
"$JSON_GET" e.json /totals/api.time_ns > /dev/null || fail "e.json has no api.time_ns"
"$JSON_GET" e.json '/devices[device=0]/events/sync.time_ns' > /dev/null || fail "e.json has no sync.time_ns"
line e.csv "run,host_time,,1,"
noline e.txt "--no-time"
row e.txt "Time (%) Total Time (ns) Num Calls Avg (ns) Min (ns) Max (ns) Errors Name"

# Merged with a run that has times, the report has none it can trust whole.
rc 0 "$RUNNER" --report e.json n.json --json m.json -o m.txt
js m.json /host_time false
js m.json '/api[function=cudaLaunchKernel]/calls' 10
line m.txt " host times were not measured (--no-time): no time per CUDA call or synchronization;"

# "host_time" is read as "measured" unless false: anything but true or false is refused.
sed 's/"host_time": false/"host_time": "no"/' n.json > bad.json
rc 2 "$RUNNER" --report bad.json
line err "cupti_cb_run: --report bad.json: \"host_time\" is a string, not true or false"

# A host-time rule cannot be compared by a run that measures none: refused
# before the program runs (it would never fail).
rm -f ran.txt
rc 2 "$RUNNER" --no-time --compare e.json --fail-above 'calls:total=0%,time:total=10%' -- sh -c ': > ran.txt'
line err "cupti_cb_run: --fail-above 'time:total': a host time, which --no-time does not measure; leave out the rule or --no-time"
test -f ran.txt && fail "the program ran although the rules were refused"
rc 2 "$RUNNER" --no-time --compare e.json --fail-above 'event:sync.time_ns=0%' -- true
line err "cupti_cb_run: --fail-above 'event:sync.time_ns': a host time, which --no-time does not measure; leave out the rule or --no-time"
# GPU times are not host times: allowed (calls:total: every function of both layers).
rc 0 "$RUNNER" --no-time --compare e.json --fail-above 'calls:total=0%,kernels:gpu_time=0%,event:gpu.busy_ns=0%' \
	-o c.txt -- "$FAKE_INJECT_APP" app-basic
row c.txt "calls:total 37 37 0.0 0 ok"
row c.txt "kernels:gpu_time 350 350 0.0 0 ok"
# --no-time with --report measures nothing: refused.
rc 2 "$RUNNER" --no-time --report e.json
line err "cupti_cb_run: --no-time is for a run: --report shows what its files measured (cupti_cb_run --help lists the options)"

# Against a baseline without host times a time rule is "not measured": an
# absent time is neither 0 nor a regression.
rc 0 "$RUNNER" --compare n.json --fail-above 'calls:total=0%,time:total=0%' -o d.txt -- "$FAKE_INJECT_APP" app-basic
row d.txt "calls:total 37 37 0.0 0 ok"
grep -q '^ *time:total  *-  *[0-9][0-9]*  *-  *0  *not measured (--no-time)$' d.txt ||
	fail "d.txt has no 'not measured' row for time:total"
line d.txt "Comparison with n.json: 1 quantity, 0 regressed"
line d.txt " 1 host time was not compared: the baseline measured no host time (--no-time)."
finish
