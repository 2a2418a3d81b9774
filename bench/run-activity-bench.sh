#!/bin/bash
# run-activity-bench [OUTDIR]: the benchmark of the GPU activity source (the gpu.* events),
# on a GPU machine, in one run: the cost per empty kernel launch bare, under CUPTI's own
# activity floor, with gpu.kernels counting, with the callback source only, and under
# Nsight Systems; and the cost of PAPI_read with and without pending records, and of a
# set without gpu.* events beside a running gpu.* set.
#
# Writes into OUTDIR (default: the current directory)
#   results.txt  raw result lines of every measurement
#   table.md     cost table, ratios, read latency, targets
#   bench.log    stderr of every program, and the progress of the run
# and prints table.md.  The table can be remade from results.txt with
#   <this directory>/bench-activity-table.sh results.txt
# (This file is run-activity-bench.sh in the source tree, installed as run-activity-bench.)
#
# Environment (all optional):
#   NSYS            the nsys to use (default: /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys,
#                   then nsys on PATH; the nsys row is skipped when none is found)
#   BENCH_THREADS   thread counts (default 1,4,16)
#   BENCH_ITERS     launches per thread and repetition (default 2000)
#   BENCH_ROUNDS    rounds of the launch modes (default 5; the mode order is reversed in
#                   even rounds); the table shows the median over rounds
#   BENCH_READS     timed reads per read case (default 2000)
#   BENCH_PENDING   kernels launched and synchronized before each read of gpu_pending (default 100)
#   BENCH_ACTIVITY_BUF_KIB
#                   size of the floor's activity buffers in KiB (default 1024)
#   BENCH_BUDGET    seconds the whole run may take (default 300)
#   BENCH_COMMIT    commit recorded in the table (default: <prefix>/share/cupti_cb/commit)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
threads=${BENCH_THREADS:-1,4,16}
iters=${BENCH_ITERS:-2000}
rounds=${BENCH_ROUNDS:-5}
reads=${BENCH_READS:-2000}
pending=${BENCH_PENDING:-100}
budget=${BENCH_BUDGET:-300}
modes="bare floor floor_cb callback counted"
reversed=$(echo $modes | tr ' ' '\n' | tac | tr '\n' ' ')

. "$here/bench-lib.sh"
bench_begin run-activity-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu

launches() { # launches ROUND MODE...
    local round=$1 m
    shift
    for m in "$@"; do
        step "$m/$round" "$here/bench_activity" --part=launch --mode="$m" --threads="$threads" --iters="$iters"
        keep "$m/$round" $? '^launch ' "s/\$/ round=$round/"
    done
}

{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta cpus $(nproc)"
    echo "meta device $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta command $0 $*"
    echo "meta nsys ${nsys:-not found}"
    echo "meta rounds $rounds"
    echo "meta iters $iters"
    echo "meta buffer_kib ${BENCH_ACTIVITY_BUF_KIB:-1024}"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\) /# \1: /p' "$res"

# Most important first: if the budget runs out, what is skipped is the last.
launches 1 $modes
step read "$here/bench_activity" --part=read --mode=counted --reads="$reads" --pending="$pending"
keep read $? '^read '
step read-floor "$here/bench_activity" --part=read --mode=floor --reads="$reads" --pending="$pending"
keep read-floor $? '^read '
if [ -z "$nsys" ]; then
    echo "note step=nsys skipped: nsys not found (looked for /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys and PATH)" >> "$res"
else
    step nsys "$nsys" profile --trace=cuda -o "$tmp/nsys" --force-overwrite true \
        "$here/bench_activity" --part=launch --mode=bare --threads="$threads" --iters="$iters"
    keep nsys $? '^launch mode=bare ' 's/ mode=bare / mode=nsys /; s/$/ round=1/'
    rm -rf "$tmp"/nsys*
fi
for ((r = 2; r <= rounds; r++)); do
    if ((r % 2 == 0)); then order=$reversed; else order=$modes; fi
    launches $r $order
done

[ -n "$skipped" ] && echo "note the ${budget} s budget was spent; skipped:$skipped" >> "$res"
echo "meta total_s $((SECONDS - start))" >> "$res"
BENCH_THREADS=$threads "$here/bench-activity-table.sh" "$res" > "$out/table.md"
cat "$out/table.md"
say "done in $((SECONDS - start)) s; results in $out"
