#!/bin/sh
# run_threads: per-thread rows. Two process files with "threads" (1011: its
# main thread and an exited "loader"; 1012: one shared thread, no
# gpu.kernels) merged into one report: one row per pid + tid in the text
# table (by API time), the CSV and the JSON, exact values; a process file
# without "threads" gives no table and no key. Then the runner, the
# injected library and libpapi together on the CPU (ctests/cpu_fake_inject
# app-threads): four threads with known calls, found by name, exact values.
. "$LIB_SH"

rc 0 "$RUNNER" -o t.txt --csv t.csv --json t.json -- "$FAKE_APP" ta tb
test -s err && fail "standard error is not empty: $(cat err)"

# --- text: by API time (90000, 20000, 5000); "-" where a process has no gpu.kernels
line t.txt "Per thread (3 threads, by API time; [exited]: the thread had ended, [shared]: the counts of several threads)"
row t.txt "PID TID Calls API Time (ns) Launches Memcpy Bytes Sync Time (ns) GPU Kernels Name"
row t.txt "1011 1015 3 90000 0 65536 0 0 loader [exited]"
row t.txt "1012 1012 7 20000 2 0 700 - app, main [shared]"
row t.txt "1011 1011 10 5000 4 2048 1000 4 app"
test "$(grep -n '1015 ' t.txt | cut -d: -f1)" -lt "$(grep -n ' 1012  ' t.txt | cut -d: -f1)" ||
	fail "the loader (90000 ns) is not listed before 1012 (20000 ns)"
test "$(grep -n ' 1012  ' t.txt | cut -d: -f1)" -lt "$(grep -n '1011  *1011 ' t.txt | cut -d: -f1)" ||
	fail "1012 (20000 ns) is not listed before 1011's main thread (5000 ns)"

# --- CSV
line t.csv "thread,1011:1015:name,,,loader"
line t.csv "thread,1011:1015:api.time_ns,,90000,ns"
line t.csv "thread,1011:1015:memcpy.bytes,,65536,bytes"
line t.csv "thread,1011:1015:exited,,1,"
line t.csv "thread,1011:1015:shared,,0,"
line t.csv 'thread,1012:1012:name,,,"app, main"'
line t.csv "thread,1012:1012:shared,,1,"
line t.csv "thread,1011:1011:gpu.kernels,,4,count"
noline t.csv "thread,1012:1012:gpu.kernels"
test "$(grep -c '^thread,' t.csv)" = 26 || fail "t.csv has $(grep -c '^thread,' t.csv) thread rows, not 26 (3 x (name, exited, shared) + 6 + 6 + 5 events)"

# --- JSON: rows keep their process
js t.json /threads/# 3
js t.json '/threads[tid=1015]/pid' 1011
js t.json '/threads[tid=1015]/host' nodeA
js t.json '/threads[tid=1015]/rank' null
js t.json '/threads[tid=1015]/name' loader
js t.json '/threads[tid=1015]/exited' true
js t.json '/threads[tid=1015]/events/api.calls' 3
js t.json '/threads[tid=1012]/pid' 1012
js t.json '/threads[tid=1012]/host' nodeB
js t.json '/threads[tid=1012]/shared' true
js t.json '/threads[tid=1012]/events/sync.time_ns' 700
js t.json '/threads[tid=1011]/events/gpu.kernels' 4
# The report read back (--report) keeps the rows as they are.
rc 0 "$RUNNER" --report t.json --json r.json -o r.txt
js r.json /threads/# 3
js r.json '/threads[tid=1015]/pid' 1011
row r.txt "1011 1015 3 90000 0 65536 0 0 loader [exited]"

# --- no "threads" in the files: no key, no table
rc 0 "$RUNNER" -o n.txt --json n.json -- "$FAKE_APP" a
noline n.txt "Per thread"
grep -q '"threads"' n.json && fail "n.json has a \"threads\" key"

# --- end to end, through the fake CUDA libraries
if ! test -r "$INJ_LIB"; then
	fail "$INJ_LIB is missing (build src/inject/ first)"
	finish
fi
CUPTI_CB_RUN_INJECT=$INJ_LIB
export CUPTI_CB_RUN_INJECT
rc 0 "$RUNNER" -o e.txt --csv e.csv --json e.json -- "$FAKE_INJECT_APP" app-threads
pid=$("$JSON_GET" e.json /processes/0/pid)
js e.json /threads/# 4
js e.json "/threads[tid=$pid]/events/api.calls" 4
js e.json '/threads[name=inj-a]/events/api.calls' 4
js e.json '/threads[name=inj-a]/events/kernel.launches' 2
js e.json '/threads[name=inj-a]/events/memcpy.bytes' 1000
js e.json '/threads[name=inj-a]/exited' true
js e.json '/threads[name=inj-b]/events/kernel.launches' 3
js e.json '/threads[name=inj-b]/events/gpu.kernels' 3
js e.json '/threads[name=inj-c?]/events/api.calls' 7
js e.json '/threads[name=inj-c?]/exited' false
js e.json '/threads[name=inj-c?]/pid' "$pid"
tid_a=$("$JSON_GET" e.json '/threads[name=inj-a]/tid')
line e.csv "thread,$pid:$tid_a:kernel.launches,,2,launches"
# Column 3 (Calls) and 5 (Launches) of inj-b's row in the table.
test "$(awk '$NF == "[exited]" && $(NF-1) == "inj-b" { print $3, $5, $8 }' e.txt)" = "3 3 3" ||
	fail "e.txt has no row of inj-b with 3 calls, 3 launches, 3 GPU kernels"
finish
