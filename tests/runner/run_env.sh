#!/bin/sh
# run_env: the environment the runner gives the program (the contract with
# the injected library): the library's path (installed in $(pkglibdir),
# or CUPTI_CB_RUN_INJECT), a private run directory, metric groups expanded,
# the activity switch, the host-time switch, the live-view interval, the delayed start, the trace switch; --keep
# keeps the run directory, which is otherwise removed.
. "$LIB_SH"

rc 0 "$RUNNER" -- "$FAKE_APP" -e env.txt none
line env.txt "CUDA_INJECTION64_PATH=$INJ_LIB"
line env.txt "CUPTI_CB_RUN_ACTIVITY=1"
line env.txt "CUPTI_CB_RUN_TIME=1"
line env.txt "CUPTI_CB_RUN_METRICS=(unset)"
line env.txt "CUPTI_CB_RUN_INTERVAL_MS=(unset)"
line env.txt "CUPTI_CB_RUN_TRACE=(unset)"
line env.txt "CUPTI_CB_RUN_DIR is a directory"

# Without the override: the installed library.
rc 0 env -u CUPTI_CB_RUN_INJECT "$RUNNER" -- "$FAKE_APP" -e env.txt none
line env.txt "CUDA_INJECTION64_PATH=$PKGLIBDIR/libcupti_cb_inject.so"

# A prefix moved elsewhere: the runner takes the library beside it (<prefix>/lib/cupti_cb)
# before the configured one.
mkdir -p "$work/moved/bin" "$work/moved/lib/cupti_cb"
cp "$RUNNER" "$work/moved/bin/cupti_cb_run"
: > "$work/moved/lib/cupti_cb/libcupti_cb_inject.so"
rc 0 env -u CUPTI_CB_RUN_INJECT "$work/moved/bin/cupti_cb_run" -- "$FAKE_APP" -e env.txt none
line env.txt "CUDA_INJECTION64_PATH=$(cd "$work/moved/lib/cupti_cb" && pwd -P)/libcupti_cb_inject.so"

# Groups expand (cupti_cb_metric_group_table.c); names pass through without their
# cupti_cb::: prefix; a name given twice is passed once.
rc 0 "$RUNNER" --metrics memory,cupti_cb:::sm__cycles_active.avg,dram__bytes_read.sum --no-gpu-activity \
	--interval 1s --trace -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_request_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__cycles_active.avg"
line env.txt "CUPTI_CB_RUN_ACTIVITY=0"
line env.txt "CUPTI_CB_RUN_INTERVAL_MS=1000"
line env.txt "CUPTI_CB_RUN_TRACE=1"
rc 0 "$RUNNER" --metrics sol --interval 500ms -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_METRICS=sm__issue_active.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,gpu__time_duration.sum"
line env.txt "CUPTI_CB_RUN_INTERVAL_MS=500"

# --start-after: the set-up waits that long after the program's first cuInit; without it, a
# CUPTI_CB_RUN_START of the caller's does not reach the program.
rc 0 "$RUNNER" --start-after 300ms -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_START=defer:300"
rc 0 "$RUNNER" --start-after 2s -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_START=defer:2000"
rc 0 env CUPTI_CB_RUN_START=defer:5 "$RUNNER" -- "$FAKE_APP" -e env.txt none
line env.txt "CUPTI_CB_RUN_START=(unset)"
rc 2 "$RUNNER" --start-after soon -- "$FAKE_APP" none
line err "cupti_cb_run: --start-after 'soon': give a duration such as 1s or 300ms (cupti_cb_run --help lists the options)"

# The run directory: private, removed after the run, kept with --keep.
rc 0 env TMPDIR="$work" "$RUNNER" -o t.txt -- sh -c 'ls -ld "$CUPTI_CB_RUN_DIR" > mode.txt; "$0" a' "$FAKE_APP"
grep -q '^drwx------ ' mode.txt || fail "the run directory is not private: $(cat mode.txt)"
test -z "$(ls -d "$work"/cupti_cb_run.* 2>/dev/null)" || fail "the run directory was not removed"
rc 0 env TMPDIR="$work" "$RUNNER" --keep -o t.txt -- "$FAKE_APP" a
kept=$(ls -d "$work"/cupti_cb_run.*)
line err "cupti_cb_run: the process files are kept in $kept"
test -f "$kept/proc-1001.json" || fail "--keep: $kept/proc-1001.json is missing"
finish
