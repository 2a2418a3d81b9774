#!/bin/bash
# run-runner-bench [OUTDIR]: what cupti_cb_run costs the programs it measures, on a GPU machine,
# in one run: each workload bare, under cupti_cb_run (callbacks and GPU activity: its default),
# under cupti_cb_run --start-after 300ms (counting set up after the first CUDA call), under
# cupti_cb_run --no-gpu-activity, and under Nsight Systems (nsys profile --trace=cuda),
# in rounds whose mode order alternates; and CUPTI's floor for an injected tool
# (libbench_inject_floor.so: an empty callback on every CBID, as cupti_cb_run enables them, with
# the activity kinds of its gpu.* events (floor), or without them (floor_cb)).
#
# Workloads:
# Each workload waits 600 ms after its warm-up, so that --start-after 300ms counts its timed part.
#   app     bench_app_loop: empty kernel launches (1 and 4 threads) with a copy every 200;
#           its own measure is ns per launch in the steady loop
#   torch   bench_torch_step.py: training steps of a small MLP with PyTorch (when python3 can
#           import torch and torch sees a GPU); its own measure is ms per step
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
# (timed training steps, default 200), BENCH_BUDGET (seconds for the whole run, default 300),
# BENCH_NSYS_LIMIT (seconds one nsys run may take, default 90), BENCH_COMMIT (commit recorded;
# default: <prefix>/share/cupti_cb/commit).
# (run-runner-bench.sh in the source tree, installed as run-runner-bench.)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
runner=$prefix/bin/cupti_cb_run
rounds=${BENCH_ROUNDS:-3}
iters=${BENCH_ITERS:-20000}
steps=${BENCH_STEPS:-200}
budget=${BENCH_BUDGET:-300}
nsys_limit=${BENCH_NSYS_LIMIT:-90}	# seconds one nsys run may take (its report is written at exit)
python=${PYTHON:-python3}
. "$here/bench-lib.sh"
bench_begin run-runner-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu
[ -x "$runner" ] || { say "no $runner: install cupti_cb first"; exit 1; }

workloads="app1 app4"
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >> "$log" 2>&1; then
    workloads="$workloads torch"
else
    echo "note torch skipped: $python cannot import torch or torch sees no GPU" >> "$res"
fi
modes="bare floor floor_cb runner runner_late runner_cb"
[ -n "$nsys" ] && modes="$modes nsys" || echo "note nsys skipped: not found" >> "$res"

{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta device $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta nsys ${nsys:-not found}"
    echo "meta torch $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo none)"
    echo "meta rounds $rounds iters $iters steps $steps"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\|torch\) /# \1: /p' "$res"

program() { # program WORKLOAD: the command line of a workload
    case $1 in
    app1) echo "$here/bench_app_loop --threads=1 --iters=$iters --copies=100 --pause-ms=600" ;;
    app4) echo "$here/bench_app_loop --threads=4 --iters=$iters --copies=100 --pause-ms=600" ;;
    torch) echo "$python $here/bench_torch_step.py --steps=$steps --pause-ms=600" ;;
    esac
}

# measure ROUND WORKLOAD MODE: one run; appends a result line.
measure() {
    local round=$1 w=$2 m=$3 cmd t0 t1 rc left line report=/dev/null
    left=$((budget - (SECONDS - start)))
    if [ "$left" -lt 10 ]; then
        echo "note skipped round=$round workload=$w mode=$m: budget spent" >> "$res"
        return
    fi
    cmd=$(program "$w")
    [ "$round" = 1 ] && report=$out/report-$w-$m.txt
    echo "---- round $round $w $m: $cmd" >> "$log"
    t0=$(date +%s%N)
    case $m in
    bare) timeout "$left" $cmd > "$tmp/out" 2>> "$log" ;;
    floor) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_act \
          timeout "$left" $cmd > "$tmp/out" 2>> "$log" ;;
    floor_cb) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids \
          timeout "$left" $cmd > "$tmp/out" 2>> "$log" ;;
    runner) timeout "$left" "$runner" -o "$report" -- $cmd > "$tmp/out" 2>> "$log" ;;
    runner_late) timeout "$left" "$runner" --start-after 300ms -o "$report" -- $cmd > "$tmp/out" 2>> "$log" ;;
    runner_cb) timeout "$left" "$runner" --no-gpu-activity -o "$report" -- $cmd > "$tmp/out" 2>> "$log" ;;
    nsys) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
          timeout "$left" "$nsys" profile --trace=cuda -o "$tmp/nsys-$w" --force-overwrite true $cmd > "$tmp/out" 2>> "$log" ;;
    esac
    rc=$?
    t1=$(date +%s%N)
    line=$(grep -E '^(app|torch) ' "$tmp/out" | head -n 1)
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

# The table: per workload and mode, the median of the workload's own measure and of the wall time.
awk "$(cat "$here/bench-lib.awk")"'
/^meta (commit|date|host|device|torch) / { meta = meta "- " $2 ": " substr($0, length($1 $2) + 3) "\n" }
/^run / {
    delete kv
    for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
    key = kv["workload"] SUBSEP kv["mode"]
    own = (kv["ns_per_launch"] != "") ? kv["ns_per_launch"] : kv["ms_per_step"]
    inner[key] = inner[key] " " own
    wall[key] = wall[key] " " kv["wall_ms"]
    seen[kv["workload"]] = 1; modes_seen[kv["mode"]] = 1
}
END {
    printf "# cupti_cb_run overhead\n\n%s\n", meta
    print "| workload | mode | own measure (median) | x bare | x its floor | wall ms (median) | x bare |"
    print "|---|---|---:|---:|---:|---:|---:|"
    split("app1 app4 torch", ws, " "); split("bare floor floor_cb runner runner_late runner_cb nsys", ms, " ")
    # each runner mode against the CUPTI floor of what it enables (callbacks on every CBID, and
    # the activity kinds unless --no-gpu-activity)
    fl["runner"] = "floor"; fl["runner_late"] = "floor"; fl["runner_cb"] = "floor_cb"
    for (i = 1; i <= 3; i++) {
        w = ws[i]; if (!(w in seen)) continue
        unit = (w == "torch") ? "ms/step" : "ns/launch"
        b = median(inner[w SUBSEP "bare"]); bw = median(wall[w SUBSEP "bare"])
        for (j = 1; j <= 7; j++) {
            m = ms[j]; k = w SUBSEP m; if (!(k in inner)) continue
            v = median(inner[k]); vw = median(wall[k])
            f = (m in fl && (w SUBSEP fl[m]) in inner) ? median(inner[w SUBSEP fl[m]]) : 0
            printf "| %s | %s | %.4g %s | %s | %s | %d | %s |\n", w, m, v, unit,
                (b > 0 ? sprintf("%.3f", v / b) : "-"), (f > 0 ? sprintf("%.3f", v / f) : "-"), vw,
                (bw > 0 ? sprintf("%.3f", vw / bw) : "-")
        }
    }
}' "$res" > "$out/table.md"
grep -E '^(error|note) ' "$res" >> "$out/table.md"
cat "$out/table.md"
