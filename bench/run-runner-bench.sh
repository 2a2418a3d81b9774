#!/bin/bash
# run-runner-bench [OUTDIR]: what cupti_cb_run costs the programs it measures, on a GPU machine,
# in one run: each workload bare, under cupti_cb_run (callbacks and GPU activity: its default),
# with --no-gpu-activity, with --no-time, and under Nsight Systems (nsys profile --trace=cuda),
# in rounds whose mode order alternates; and CUPTI's floors for an injected tool
# (libbench_inject_floor.so: an empty callback on every CBID, as cupti_cb_run enables them, with
# the activity kinds of its gpu.* events (floor) or without them (floor_cb); with the clock read
# at every call site that timing every call needs (floor_clock_act, floor_clock)).
#
# Workloads:
# Each workload waits 600 ms after its warm-up, so that --start-after 300ms counts its timed part.
#   app1, app4  bench_app_loop: empty kernel launches (1 and 4 threads) with a copy every 200;
#           its own measure is ns per launch in the steady loop
#   streams bench_streams: simpleStreams' pattern (4 streams, a kernel and a copy back to pinned
#           memory on each, an event waited for); its own measure is us per iteration
#   torch   bench_torch_step.py: training steps of a small MLP with PyTorch (when python3 can
#           import torch and torch sees a GPU); its own measure is ms per step
#
# Modes that take parts of the runner away, to find where its cost goes (BENCH_MODES):
#   runner_noflush   the default with CUPTI_CB_FLUSH_MS=60000 (no periodic activity flush)
#   runner_timeline  the default with --timeline (every call and every GPU record written to a
#                    Chrome trace while the program runs)
#   runner_cb_totals --no-gpu-activity with CUPTI_CB_RUN_MAX_EVENTS=3 (the totals only: calls and
#                    their time are counted, no per-function event set, no minimum or maximum)
#   runner_cb_calls  --no-gpu-activity with CUPTI_CB_RUN_MAX_EVENTS=1 (api.calls only: no clock)
#   floor_res        CUPTI's floor with the resource callbacks (cbids_res)
#   floor_clock      CUPTI's floor with a clock read at every call site (cbids_clock): what timing
#                    every call costs at the least; floor_clock_act the same with the activity kinds
#   floor_apiact     CUPTI's activity records of runtime and driver calls, no callback (api_act):
#                    the mechanism Nsight Systems uses; floor_apiact_act the same with the activity kinds
#                    (api_act_gpu)
#   floor_apiops     floor_apiact with an empty callback on the driver's operations only (launches,
#                    copies, memsets, allocations, frees, synchronizations: api_act_ops), the floor
#                    of a tool that takes calls from records and operations from callbacks;
#                    floor_apiops_act the same with the activity kinds (api_act_ops_gpu)
#   floor_apiact_tsc, floor_apiops_tsc, floor_apiops_act_tsc  the same with CUPTI's timestamps
#                    from the TSC (cuptiActivityRegisterTimestampCallback) instead of clock_gettime
#   nsys_all         nsys profile --trace=cuda --cuda-trace-all-apis=true: by default nsys skips
#                    the CUDA functions it deems not critical (cudaGetDevice, cudaGetLastError,
#                    cuCtxGetCurrent, ...); with this it records every call the application makes,
#                    as the runner's tables do (the driver calls made inside runtime calls, which
#                    the runner counts too, it leaves out either way)
# Profiles (BENCH_WHERE=1): after the rounds, BENCH_WHERE_REPEAT more runs (default 1) of each
# workload in each of BENCH_WHERE_MODES (default: floor_cb floor runner_cb runner), the modes'
# order alternating from one repeat to the next, with libbench_where.so preloaded,
# which samples the process's CPU time during the timed part (or, with BENCH_WHERE_THREAD_US=N,
# the launching thread's time every N us): where/WORKLOAD-MODE.PID has the samples by library
# and function, where.md the samples by library side by side, the share of cupti_cb and of the
# tools in the launching thread with a 95% interval and their spread over processes, and each
# mode against its floor by the tools' share of the thread (a verdict from 3 processes each).
# For both, the wall time of the whole process (start to exit, where tools load and write their
# reports) is measured too.
#
# Writes into OUTDIR (default: the current directory)
#   results.txt   one line per measurement, and meta lines (commit, date, host, device)
#   table.md      medians over rounds, ratios to bare and to nsys
#   report-*.txt  the report cupti_cb_run printed for each workload in round 1
#   bench.log     stderr of every program, and the progress
# and prints table.md.
#
# Environment (all optional): NSYS (the nsys to use), PYTHON (default python3),
# BENCH_ROUNDS (default 3), BENCH_ITERS (launches per thread, default 20000), BENCH_STEPS
# (timed training steps, default 200), BENCH_BUDGET (seconds for the whole run, default 900),
# BENCH_NSYS_LIMIT (seconds one nsys run may take, default 200), BENCH_NSYS_ROUNDS (the rounds
# that run nsys, from the first; default 1: nsys takes minutes to write a PyTorch program's
# report), BENCH_COMMIT (commit recorded;
# default: <prefix>/share/cupti_cb/commit), BENCH_WORKLOADS and BENCH_MODES (space-separated
# lists; default: every workload, and bare, the floors with and without a clock read, the
# runner with and without GPU activity and host times, and nsys),
# BENCH_STREAM_ITERS (iterations of bench_streams, default 5000), BENCH_PIN (a CPU list for
# taskset: every run of every mode pinned to it, the tool's threads too).
# (run-runner-bench.sh in the source tree, installed as run-runner-bench.)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
runner=$prefix/bin/cupti_cb_run
rounds=${BENCH_ROUNDS:-3}
iters=${BENCH_ITERS:-20000}
steps=${BENCH_STEPS:-200}
budget=${BENCH_BUDGET:-900}
nsys_limit=${BENCH_NSYS_LIMIT:-200}	# seconds one nsys run may take (its report is written at exit)
python=${PYTHON:-python3}
. "$here/bench-lib.sh"
bench_begin run-runner-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu
[ -x "$runner" ] || { say "no $runner: install cupti_cb first"; exit 1; }

workloads=${BENCH_WORKLOADS:-app1 app4 streams torch}
case " $workloads " in *" torch "*)
    "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >> "$log" 2>&1 || {
        workloads=$(echo " $workloads " | sed 's/ torch / /')
        echo "note torch skipped: $python cannot import torch or torch sees no GPU" >> "$res"; } ;;
esac
modes=${BENCH_MODES:-bare floor_cb floor floor_clock floor_clock_act runner_cb runner runner_notime runner_cb_notime nsys}
if [ -z "$nsys" ]; then
    case " $modes " in *" nsys "* | *" nsys_all "*) echo "note nsys skipped: not found" >> "$res" ;; esac
    modes=$(echo " $modes " | sed 's/ nsys / /; s/ nsys_all / /')
fi
stream_iters=${BENCH_STREAM_ITERS:-5000}

{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta device $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta nsys ${nsys:-not found}"
    echo "meta torch $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo none)"
    echo "meta rounds $rounds iters $iters steps $steps stream_iters $stream_iters pin ${BENCH_PIN:-none}"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\|torch\) /# \1: /p' "$res"

program() { # program WORKLOAD: the command line of a workload
    case $1 in
    app1) echo "$here/bench_app_loop --threads=1 --iters=$iters --copies=100 --pause-ms=600" ;;
    app4) echo "$here/bench_app_loop --threads=4 --iters=$iters --copies=100 --pause-ms=600" ;;
    streams) echo "$here/bench_streams --streams=4 --iters=$stream_iters --pause-ms=600" ;;
    torch) echo "$python $here/bench_torch_step.py --steps=$steps --pause-ms=600" ;;
    esac
}

# launch MODE REPORT CMD...: runs CMD in MODE (bounded by $left seconds), stdout into $tmp/out.
launch() {
    local m=$1 report=$2
    shift 2
    [ -n "${BENCH_PIN:-}" ] && set -- taskset -c "$BENCH_PIN" "$@"
    case $m in
    bare) timeout "$left" "$@" ;;
    floor) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_act timeout "$left" "$@" ;;
    floor_cb) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids timeout "$left" "$@" ;;
    floor_res) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_res timeout "$left" "$@" ;;
    floor_clock) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_clock timeout "$left" "$@" ;;
    floor_clock_act) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_clock_act timeout "$left" "$@" ;;
    floor_apiact) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act timeout "$left" "$@" ;;
    floor_apiact_act) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_gpu timeout "$left" "$@" ;;
    floor_apiops) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_ops timeout "$left" "$@" ;;
    floor_apiops_act) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_ops_gpu timeout "$left" "$@" ;;
    floor_apiact_tsc) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_tsc timeout "$left" "$@" ;;
    floor_apiops_tsc) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_ops_tsc timeout "$left" "$@" ;;
    floor_apiops_act_tsc) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act_ops_gpu_tsc timeout "$left" "$@" ;;
    runner) timeout "$left" "$runner" -o "$report" -- "$@" ;;
    runner_late) timeout "$left" "$runner" --start-after 300ms -o "$report" -- "$@" ;;
    runner_cb) timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    runner_notime) timeout "$left" "$runner" --no-time -o "$report" -- "$@" ;;
    runner_cb_notime) timeout "$left" "$runner" --no-time --no-gpu-activity -o "$report" -- "$@" ;;
    runner_noflush) CUPTI_CB_FLUSH_MS=60000 timeout "$left" "$runner" -o "$report" -- "$@" ;;
    runner_timeline) timeout "$left" "$runner" --timeline "$tmp/timeline-$w.json" -o "$report" -- "$@" ;;
    runner_cb_totals) CUPTI_CB_RUN_MAX_EVENTS=3 timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    runner_cb_calls) CUPTI_CB_RUN_MAX_EVENTS=1 timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    nsys) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
          timeout "$left" "$nsys" profile --trace=cuda -o "$tmp/nsys-$w" --force-overwrite true "$@" ;;
    nsys_all) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
          timeout "$left" "$nsys" profile --trace=cuda --cuda-trace-all-apis=true -o "$tmp/nsys-$w" \
              --force-overwrite true "$@" ;;
    *) echo "unknown mode $m" >&2; return 2 ;;
    esac > "$tmp/out" 2>> "$log"
}

# measure ROUND WORKLOAD MODE: one run; appends a result line.
measure() {
    local round=$1 w=$2 m=$3 cmd t0 t1 rc left line report=/dev/null
    case $m in nsys*) [ "$round" -gt "${BENCH_NSYS_ROUNDS:-1}" ] && return ;; esac
    left=$((budget - (SECONDS - start)))
    if [ "$left" -lt 10 ]; then
        echo "note skipped round=$round workload=$w mode=$m: budget spent" >> "$res"
        return
    fi
    cmd=$(program "$w")
    [ "$round" = 1 ] && report=$out/report-$w-$m.txt
    echo "---- round $round $w $m: $cmd" >> "$log"
    t0=$(date +%s%N)
    # shellcheck disable=SC2086  # the command line is words
    launch "$m" "$report" $cmd
    rc=$?
    t1=$(date +%s%N)
    line=$(grep -E '^(app|streams|torch) ' "$tmp/out" | head -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        echo "error round=$round workload=$w mode=$m exit=$rc: no result (bench.log has its messages)" >> "$res"
    else
        echo "run round=$round workload=$w mode=$m wall_ms=$(( (t1 - t0) / 1000000 )) $line" >> "$res"
    fi
    say "round $round $w $m: exit $rc, $(( (t1 - t0) / 1000000 )) ms"
}

for r in $(seq 1 "$rounds"); do
    order=$modes
    [ $((r % 2)) -eq 0 ] && order=$(echo $modes | tr ' ' '\n' | tac | tr '\n' ' ')
    for w in $workloads; do
        for m in $order; do
            measure "$r" "$w" "$m"
        done
    done
done

# The profiles: BENCH_WHERE_REPEAT runs (default 1) per workload and mode with libbench_where.so
# preloaded, the modes in alternating order.
if [ "${BENCH_WHERE:-0}" = 1 ]; then
    mkdir -p "$out/where"
    wmodes=${BENCH_WHERE_MODES:-floor_cb floor runner_cb runner}
    for rep in $(seq 1 "${BENCH_WHERE_REPEAT:-1}"); do
        order=$wmodes
        [ $((rep % 2)) -eq 0 ] && order=$(echo $wmodes | tr ' ' '\n' | tac | tr '\n' ' ')
        for w in $workloads; do
            for m in $order; do
                left=$((budget - (SECONDS - start)))
                [ "$left" -lt 10 ] && { echo "note profile skipped workload=$w mode=$m: budget spent" >> "$res"; continue; }
                echo "---- profile $w $m ($rep)" >> "$log"
                # shellcheck disable=SC2046
                LD_PRELOAD=$here/libbench_where.so BENCH_WHERE_OUT=$out/where/$w-$m launch "$m" /dev/null $(program "$w")
                say "profile $w $m ($rep): exit $?"
                echo "profile repeat=$rep workload=$w mode=$m $(grep -E '^(app|streams|torch) ' "$tmp/out" | head -n 1)" >> "$res"
            done
        done
    done
    "$here/bench-runner-table.sh" --where "$out"
fi

"$here/bench-runner-table.sh" "$out"
cat "$out/table.md"
