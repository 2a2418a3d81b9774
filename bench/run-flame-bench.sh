#!/bin/bash
# run-flame-bench [OUTDIR]: what cupti_cb_run --flame costs, on a GPU machine, against the
# runner's default and Nsight Systems' CUDA backtraces, which give the same stacks.
#
# Modes, in rounds whose order alternates:
#   bare        the program alone
#   runner      cupti_cb_run (callbacks and GPU activity: its default)
#   flame       cupti_cb_run --flame (a stack at every call that issues GPU work)
#   flame_cpu   cupti_cb_run --flame --flame-cpu-hz 997 (and CPU samples of every thread)
#   nsys        nsys profile --trace=cuda
#   nsys_bt     nsys profile --trace=cuda --cudabacktrace=kernel (a CPU backtrace at each kernel
#               launch)
# Workloads (each measures itself, after its warm-up):
#   torch  bench_torch_step.py: training steps of a small MLP (ms per step), with Python's perf
#          support on (PYTHONPERFSUPPORT=1) in every mode, so that every mode runs the same Python
#   app1   bench_app_loop: empty kernel launches from one thread (ns per launch)
#
# Writes into OUTDIR (default: the current directory) results.txt (one line per run, and meta
# lines), table.md (medians over rounds; what --flame adds over the runner against what nsys's
# backtraces add over nsys, and --flame over the runner as a ratio) and bench.log; prints
# table.md.  The issue's targets: --flame adds at most half of what the backtraces add, and
# costs at most 1.2 times the runner's default.
#
# Environment (all optional): NSYS, PYTHON (default python3), BENCH_ROUNDS (default 3),
# BENCH_NSYS_ROUNDS (the rounds, from the first, that run the nsys modes; default 2: nsys takes
# a while to write a PyTorch program's report), BENCH_NSYS_LIMIT (seconds one nsys run may
# take, default 150), BENCH_STEPS (default 200), BENCH_ITERS (default 20000), BENCH_BUDGET
# (seconds for the whole run, default 900), BENCH_MODES, BENCH_WORKLOADS.
# (run-flame-bench.sh in the source tree, installed as run-flame-bench.)
set -u
export PYTHONPERFSUPPORT=1	# every mode runs the same Python (perf trampolines on)

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
runner=$prefix/bin/cupti_cb_run
rounds=${BENCH_ROUNDS:-3}
iters=${BENCH_ITERS:-20000}
steps=${BENCH_STEPS:-200}
budget=${BENCH_BUDGET:-900}
nsys_rounds=${BENCH_NSYS_ROUNDS:-2}
nsys_limit=${BENCH_NSYS_LIMIT:-150}
python=${PYTHON:-python3}
. "$here/bench-lib.sh"
bench_begin run-flame-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu
[ -x "$runner" ] || { say "no $runner: install cupti_cb first"; exit 1; }

workloads=${BENCH_WORKLOADS:-torch app1}
case " $workloads " in *" torch "*)
    "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >> "$log" 2>&1 || {
        workloads=$(echo " $workloads " | sed 's/ torch / /')
        echo "note torch skipped: $python cannot import torch or torch sees no GPU" >> "$res"; } ;;
esac
modes=${BENCH_MODES:-bare runner flame flame_cpu nsys nsys_bt}
if [ -z "$nsys" ]; then
    echo "note nsys skipped: not found" >> "$res"
    modes=$(echo " $modes " | sed 's/ nsys / /; s/ nsys_bt / /')
fi
{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta device $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta nsys ${nsys:-not found}"
    echo "meta torch $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo none)"
    echo "meta rounds $rounds nsys_rounds $nsys_rounds iters $iters steps $steps"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\|torch\) /# \1: /p' "$res"

program() {
    case $1 in
    torch) echo "$python $here/bench_torch_step.py --steps=$steps" ;;
    app1) echo "$here/bench_app_loop --threads=1 --iters=$iters --copies=100" ;;
    esac
}

launch() { # launch MODE WORKLOAD CMD...: stdout into $tmp/out
    local m=$1 w=$2 left=$((budget - (SECONDS - start)))
    shift 2
    case $m in
    bare) timeout "$left" "$@" ;;
    runner) timeout "$left" "$runner" -o /dev/null -- "$@" ;;
    flame) timeout "$left" "$runner" --flame "$tmp/$w.folded" -o /dev/null -- "$@" ;;
    flame_cpu) timeout "$left" "$runner" --flame "$tmp/$w-cpu.folded" --flame-cpu-hz 997 -o /dev/null -- "$@" ;;
    nsys) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
        timeout "$left" "$nsys" profile --trace=cuda -o "$tmp/nsys-$w" --force-overwrite true "$@" ;;
    nsys_bt) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
        timeout "$left" "$nsys" profile --trace=cuda --cudabacktrace=kernel -o "$tmp/nsysbt-$w" \
        --force-overwrite true "$@" ;;
    *) echo "unknown mode $m" >&2; return 2 ;;
    esac > "$tmp/out" 2>> "$log"
}

for r in $(seq 1 "$rounds"); do
    order=$modes
    [ $((r % 2)) -eq 0 ] && order=$(echo $modes | tr ' ' '\n' | tac | tr '\n' ' ')
    for w in $workloads; do
        for m in $order; do
            case $m in nsys*) [ "$r" -gt "$nsys_rounds" ] && continue ;; esac
            if [ $((budget - (SECONDS - start))) -lt 20 ]; then
                echo "note skipped round=$r workload=$w mode=$m: budget spent" >> "$res"
                continue
            fi
            echo "---- round $r $w $m" >> "$log"
            # shellcheck disable=SC2046  # the command line is words
            launch "$m" "$w" $(program "$w")
            rc=$?
            line=$(grep -E '^(app|torch) ' "$tmp/out" | head -n 1)
            if [ $rc -ne 0 ] || [ -z "$line" ]; then
                echo "error round=$r workload=$w mode=$m exit=$rc: no result (bench.log has its messages)" >> "$res"
            else
                echo "run round=$r workload=$w mode=$m $line" >> "$res"
            fi
            say "round $r $w $m: exit $rc"
        done
    done
done
for f in "$tmp"/*.folded; do [ -f "$f" ] && cp "$f" "$out/"; done

# table.md: the median of each workload's own measure per mode.
awk '
$1 == "run" {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    w = f["workload"]; m = f["mode"]
    v = (w == "torch") ? f["ms_per_step"] : f["ns_per_launch"]
    n[w, m]++; val[w, m, n[w, m]] = v + 0; ws[w] = 1; ms[m] = 1
}
function median(w, m,   k, i, j, t, a) {
    k = n[w, m]; if (!k) return ""
    for (i = 1; i <= k; i++) a[i] = val[w, m, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
    split("bare runner flame flame_cpu nsys nsys_bt", order, " ")
    print "| workload | unit | " "bare | runner | flame | flame_cpu | nsys | nsys_bt | flame added / nsys backtraces added | flame / runner |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (w in ws) {
        line = "| " w " | " ((w == "torch") ? "ms per step" : "ns per launch") " |"
        for (i = 1; i <= 6; i++) { md[order[i]] = median(w, order[i]); line = line " " md[order[i]] " |" }
        added = (md["flame"] != "" && md["runner"] != "") ? md["flame"] - md["runner"] : ""
        bt = (md["nsys_bt"] != "" && md["nsys"] != "") ? md["nsys_bt"] - md["nsys"] : ""
        line = line " " ((added != "" && bt != "" && bt > 0) ? sprintf("%.2f (%.4g / %.4g)", added / bt, added, bt) : "-") " |"
        line = line " " ((md["flame"] != "" && md["runner"] > 0) ? sprintf("%.3f", md["flame"] / md["runner"]) : "-") " |"
        print line
    }
}' "$res" > "$out/table.md"
grep -E '^(note|error)' "$res" | sed 's/^/# /' >> "$out/table.md"
cat "$out/table.md"
