#!/bin/bash
# run-metrics-bench [OUTDIR]: hardware-metric events of cupti_cb side by side
# with the cuda component of an upstream PAPI, on the same GPU, in one run.
#
# Every measurement runs in its own process, one side after the other (the
# order alternates from one repetition to the next), BENCH_REPS times; the
# table gives the median and the lowest value of each side and the ratio
# upstream/cupti_cb of the medians.  Writes into OUTDIR (default: .)
#   results.txt  raw result lines of every process
#   table.md     the table (remade from results.txt by bench-metrics-table.sh)
#   bench.log    stderr of every process, and the progress of the run
# and prints table.md.  (This file is run-metrics-bench.sh in the source tree,
# installed as run-metrics-bench next to bench_metrics.)
#
# Environment (all optional):
#   UPSTREAM_PAPI       prefix of the upstream PAPI (default: the one given at build
#                       time, @UPSTREAM_PAPI@); its lib/ goes on LD_LIBRARY_PATH of the
#                       upstream processes, its file 'commit' (if any) names its commit
#   BENCH_OURS          cupti_cb's program (default: bench_metrics next to this script)
#   BENCH_UPSTREAM      upstream's program (default: bench_metrics_upstream next to it)
#   BENCH_OURS_LIB      directory of cupti_cb's libpapi (default: <prefix>/lib, this
#                       script being <prefix>/libexec/cupti_cb/bench/run-metrics-bench)
#   BENCH_SIDES         "cupti_cb cuda" (default), or one of the two
#   BENCH_METRICS       metrics, comma-separated (default dram__bytes_read.sum,
#                       smsp__inst_executed.sum,gpu__time_duration.sum)
#   BENCH_OURS_EVENTS, BENCH_UPSTREAM_EVENTS
#                       the event names of each side instead of the ones made from
#                       the metrics (see bench_metrics.cu)
#   BENCH_DEVICE        CUDA device index (default 0)
#   BENCH_REPS          processes per measurement and side (default 5)
#   BENCH_PARTS         measurements, in order (default "init add startstop read values")
#   BENCH_LISTING_REPS  full listings per side, after the other parts (default BENCH_REPS)
#   BENCH_LISTING_LIMIT seconds a listing may take before it stops and reports what
#                       it saw with complete=0 (default 300)
#   BENCH_ITERS         start/stop pairs and reads per process (default 10)
#   BENCH_MIB           MiB the streaming kernel reads (default 256)
#   BENCH_STEP_LIMIT    seconds any other process may take (default 120)
#   BENCH_BUDGET        seconds the whole run may take (default 1800): each process gets
#                       at most what is left; steps that no longer fit are skipped
#   BENCH_COMMIT, BENCH_UPSTREAM_COMMIT
#                       commits recorded in the table
#   PAPI_CUDA_ROOT      the CUDA toolkit the upstream component loads (default /usr/local/cuda)
#   PAPI_NVML_MAIN      libnvidia-ml for the upstream component (default: the first one
#                       found by ldconfig or in the driver's usual directories)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)

upstream_papi=${UPSTREAM_PAPI:-@UPSTREAM_PAPI@}
case $upstream_papi in @*@) upstream_papi= ;; esac
ours=${BENCH_OURS:-$here/bench_metrics}
theirs=${BENCH_UPSTREAM:-$here/bench_metrics_upstream}
ours_lib=${BENCH_OURS_LIB:-$prefix/lib}
sides=${BENCH_SIDES:-cupti_cb cuda}
metrics=${BENCH_METRICS:-dram__bytes_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum}
device=${BENCH_DEVICE:-0}
reps=${BENCH_REPS:-5}
parts=${BENCH_PARTS:-init add startstop read values}
listing_reps=${BENCH_LISTING_REPS:-$reps}
listing_limit=${BENCH_LISTING_LIMIT:-300}
iters=${BENCH_ITERS:-10}
mib=${BENCH_MIB:-256}
step_limit=${BENCH_STEP_LIMIT:-120}
budget=${BENCH_BUDGET:-1800}
export PAPI_CUDA_ROOT=${PAPI_CUDA_ROOT:-/usr/local/cuda}

. "$here/bench-lib.sh"
bench_begin run-metrics-bench "$out"

# libnvidia-ml for the upstream cuda component, which looks only where dlopen does.
if [ -z "${PAPI_NVML_MAIN:-}" ]; then
    nvml=$(ldconfig -p 2>/dev/null | sed -n 's/.*libnvidia-ml\.so\.1 .*=> //p' | head -n 1)
    for f in /usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 \
             /usr/lib64/libnvidia-ml.so.1 /usr/lib/libnvidia-ml.so.1; do
        [ -z "$nvml" ] && [ -e "$f" ] && nvml=$f
    done
    [ -n "$nvml" ] && export PAPI_NVML_MAIN=$nvml
fi

# The commits: the one the installed cupti_cb was built from (never the git
# repository of the current directory), and the upstream one.
commit=$(bench_commit "@pkgdatadir@")
upstream_commit=unknown
[ -n "$upstream_papi" ] && [ -r "$upstream_papi/commit" ] && upstream_commit=$(head -n 1 "$upstream_papi/commit")
upstream_commit=${BENCH_UPSTREAM_COMMIT:-$upstream_commit}
upstream_version=$(sed -n 's/^#define[ \t]*PAPI_VERSION[ \t]*PAPI_VERSION_NUMBER(\([0-9]*\),[ ]*\([0-9]*\),[ ]*\([0-9]*\),[ ]*\([0-9]*\)).*/\1.\2.\3.\4/p' \
    "$upstream_papi/include/papi.h" 2>/dev/null)

bench_require_gpu

# side_prog SIDE / side_lib SIDE / side_events SIDE
side_prog() { if [ "$1" = cuda ]; then echo "$theirs"; else echo "$ours"; fi; }
side_lib() { if [ "$1" = cuda ]; then echo "$upstream_papi/lib"; else echo "$ours_lib"; fi; }
side_events() { if [ "$1" = cuda ]; then echo "${BENCH_UPSTREAM_EVENTS:-}"; else echo "${BENCH_OURS_EVENTS:-}"; fi; }

# run SIDE PART REP LIMIT: one process; its result lines (with rep=REP) go to
# results.txt, its stderr to bench.log; a failure leaves an error line.
run() {
    local side=$1 part=$2 rep=$3 limit=$4 left prog ev rc t0 t1 n why max_s
    left=$((budget - (SECONDS - start)))
    if [ "$left" -lt 5 ]; then
        skipped="$skipped $part/$side/$rep"
        say "$part/$side/$rep: skipped (budget spent)"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    prog=$(side_prog "$side")
    ev=$(side_events "$side")
    if [ ! -x "$prog" ]; then
        echo "error part=$part comp=$side rep=$rep: $prog not found (build it, or set BENCH_OURS / BENCH_UPSTREAM)" >> "$res"
        return
    fi
    set -- "$prog" --part="$part" --component="$side" --metrics="$metrics" --device="$device" \
        --iters="$iters" --mib="$mib"
    [ -n "$ev" ] && set -- "$@" --events="$ev"
    if [ "$part" = listing ]; then
        # Stop the listing in time to report what it saw: within the limit
        # and what is left of the budget.
        max_s=$listing_limit
        [ "$max_s" -gt $((left - 15)) ] && max_s=$((left - 15))
        [ "$max_s" -lt 5 ] && max_s=5
        set -- "$@" --max-seconds="$max_s"
    fi
    echo "---- $part/$side/$rep: $*" >> "$log"
    t0=$(date +%s%N)
    LD_LIBRARY_PATH="$(side_lib "$side"):$PAPI_CUDA_ROOT/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout "$limit" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    t1=$(date +%s%N)
    cat "$tmp/err" >> "$log"
    n=$(grep -E '^(listing|init|add|startstop|read|value|kernel) ' "$tmp/out" | sed "s/\$/ rep=$rep/" | tee -a "$res" | wc -l)
    say "$part/$side/$rep: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s"
    if [ "$rc" -ne 0 ] || [ "$n" -eq 0 ]; then
        why=$(grep -v '^$' "$tmp/err" | tail -n 1 | tr -s ' \t' ' ' | cut -c1-300)
        [ "$rc" -eq 124 ] && why="stopped after $limit s"
        echo "error part=$part comp=$side rep=$rep exit=$rc: ${why:-no result}" >> "$res"
    fi
}

order_of() { # order_of REP: the sides, reversed in even repetitions
    if (($1 % 2)); then echo $sides; else echo $sides | tr ' ' '\n' | tac | tr '\n' ' '; fi
}

{
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta cpus $(nproc)"
    echo "meta device $(nvidia-smi -i "$device" --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "meta driver $(nvidia-smi -i "$device" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "meta cuda $(sed -n 's/^#define[ \t]*CUDA_VERSION[ \t]*\([0-9]*\).*/\1/p' "$PAPI_CUDA_ROOT/include/cuda.h" 2>/dev/null | head -n 1) ($PAPI_CUDA_ROOT)"
    echo "meta commit $commit"
    echo "meta upstream_commit $upstream_commit"
    echo "meta upstream_version ${upstream_version:-unknown} (${upstream_papi:-not given})"
    echo "meta command $0 $*"
    echo "meta sides $sides"
    echo "meta metrics $metrics"
    echo "meta reps $reps"
    echo "meta listing_reps $listing_reps"
    echo "meta listing_limit $listing_limit"
    echo "meta iters $iters"
    echo "meta mib $mib"
    echo "meta nvml ${PAPI_NVML_MAIN:-not found}"
    for side in $sides; do
        prog=$(side_prog "$side")
        ev=$(side_events "$side")
        [ -x "$prog" ] && "$prog" --part=names --component="$side" --metrics="$metrics" --device="$device" \
            ${ev:+--events="$ev"} 2>/dev/null | sed 's/^event /meta event /'
    done
} >> "$res"
sed -n 's/^meta \(date\|device\|driver\|commit\|upstream_commit\) /# \1: /p' "$res"

for ((r = 1; r <= reps; r++)); do
    for part in $parts; do
        for side in $(order_of $r); do
            run "$side" "$part" "$r" "$step_limit"
        done
    done
done
for ((r = 1; r <= listing_reps; r++)); do
    for side in $(order_of $r); do
        run "$side" listing "$r" $((listing_limit + 60))
    done
done

[ -n "$skipped" ] && echo "note the ${budget} s budget was spent; skipped:$skipped" >> "$res"
echo "meta total_s $((SECONDS - start))" >> "$res"
"$here/bench-metrics-table.sh" "$res" > "$out/table.md"
cat "$out/table.md"
say "done in $((SECONDS - start)) s; results in $out"
