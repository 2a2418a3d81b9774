#!/bin/bash
# run-bench [OUTDIR]: the whole cupti_cb benchmark in one go, on a GPU machine.
#
# Writes into OUTDIR (default: the current directory)
#   results.txt  raw result lines of every measurement
#   table.md     cost tables, ratios, read latency, start-up, memory, targets
#   bench.log    stderr of every program, and the progress of the run
# and prints table.md.  The table can be remade from results.txt with
#   <this directory>/bench-table.sh results.txt
# (This file is run-bench.sh in the source tree, installed as run-bench.)
#
# Environment (all optional):
#   PAPI_BIN        directory holding papi_native_avail
#                   (default: <prefix>/bin, this script being <prefix>/libexec/cupti_cb/bench/run-bench)
#   NSYS            the nsys to use (default: /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys,
#                   then nsys on PATH; the nsys row is skipped when none is found)
#   BENCH_THREADS   thread counts (default 1,4,16,64)
#   BENCH_ITERS_GETDEVICE, BENCH_ITERS_LAUNCH
#                   calls per thread up to 16 threads (default 20000 and 2000; above 16
#                   threads N*16/T, see bench_calls.cu; mutex_map makes N/4)
#   BENCH_ROUNDS    rounds of the bench_calls modes (default 7; the mode order is
#                   reversed in even rounds); the table shows the median over rounds
#   BENCH_BUDGET    seconds the whole run may take (default 200): each program gets at
#                   most what is left, and steps that no longer fit are skipped with a note
#   BENCH_COMMIT    commit recorded in the table (default: the commit the installed build was
#                   made from, <prefix>/share/cupti_cb/commit)
#   BENCH_CBIDS_GETDEVICE, BENCH_CBIDS_LAUNCH
#                   CBIDs of the floor and mutex_map modes (see bench_calls.cu)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
papi_bin=${PAPI_BIN:-$prefix/bin}
threads=${BENCH_THREADS:-1,4,16,64}
budget=${BENCH_BUDGET:-200}
rounds=${BENCH_ROUNDS:-7}
declare -A iters=([getdevice]=${BENCH_ITERS_GETDEVICE:-20000} [launch]=${BENCH_ITERS_LAUNCH:-2000})
modes="bare floor floor_domains counted counted_time other stopped mutex_map"
reversed=$(echo $modes | tr ' ' '\n' | tac | tr '\n' ' ')

. "$here/bench-lib.sh"
bench_begin run-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu

calls() { # calls ROUND API MODE...
    local round=$1 api=$2 m n
    shift 2
    for m in "$@"; do
        # mutex_map is 3 to 25 times slower and only its order of magnitude
        # matters: a quarter of the calls keeps its rounds short.
        n=${iters[$api]}
        [ "$m" = mutex_map ] && n=$((n / 4))
        step "$m/$api/$round" "$here/bench_calls" --mode="$m" --api="$api" --threads="$threads" --iters="$n"
        keep "$m/$api/$round" $? '^mode=' "s/\$/ round=$round/"
    done
}

nsys_calls() { # nsys_calls API: the bare program traced by Nsight Systems
    local api=$1
    if [ -z "$nsys" ]; then
        echo "note step=nsys/$api skipped: nsys not found (looked for /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys and PATH)" >> "$res"
        return
    fi
    step "nsys/$api" "$nsys" profile --trace=cuda -o "$tmp/nsys-$api" --force-overwrite true \
        "$here/bench_calls" --mode=bare --api="$api" --threads="$threads" --iters="${iters[$api]}"
    keep "nsys/$api" $? '^mode=bare ' 's/^mode=bare /mode=nsys /; s/$/ round=1/'
    rm -rf "$tmp"/nsys-"$api"*
}

sde_read() { # the same reads through Debian's PAPI and libcupti_cb_sde.so (scripts/debian-papi carries it)
    local debian=$prefix/libexec/cupti_cb/debian-papi
    if [ ! -f "$debian/lib/libpapi.so.7.0" ]; then
        echo "note step=sde-read skipped: no Debian PAPI in $debian (scripts/debian-papi puts it there)" >> "$res"
        return
    fi
    step cb-read "$here/bench_read" --part=cb-read
    keep cb-read $? '^cb-read '
    step sde-read env LD_LIBRARY_PATH="$debian/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="$prefix/lib/libcupti_cb_sde.so" "$here/bench_read" --part=sde-read
    keep sde-read $? '^sde-read '
}

listing() { # the wall time of a full listing of the component
    local avail=$papi_bin/papi_native_avail rc n
    if [ ! -x "$avail" ]; then
        echo "note step=listing skipped: $avail not found (set PAPI_BIN)" >> "$res"
        return
    fi
    step listing "$avail" -i cupti_cb
    rc=$?
    [ "$rc" -eq 125 ] && return
    n=$(sed -n 's/^Total events reported: *//p' "$tmp/out")
    echo "listing wall_s=$step_s events=${n:-?} rc=$rc" >> "$res"
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
} >> "$res"
# The same stamp at the top of the output.
sed -n 's/^meta \(commit\|date\|host\|device\) /# \1: /p' "$res"

# Most important first: if the budget runs out, what is skipped is the last.
calls 1 getdevice $modes
step read "$here/bench_read" --part=read;                 keep read $? '^read '
sde_read
step startup "$here/bench_read" --part=startup;           keep startup $? '^startup '
step startup-cuda "$here/bench_read" --part=startup --cuda-first; keep startup-cuda $? '^startup '
step cuinit "$here/bench_read" --part=cuinit;             keep cuinit $? '^cuinit '
step memory "$here/bench_read" --part=memory;             keep memory $? '^memory '
listing
calls 1 launch $modes
nsys_calls getdevice
nsys_calls launch
for ((r = 2; r <= rounds; r++)); do
    if ((r % 2 == 0)); then order=$reversed; else order=$modes; fi
    calls $r getdevice $order
    calls $r launch $order
done

[ -n "$skipped" ] && echo "note the ${budget} s budget was spent; skipped:$skipped" >> "$res"
echo "meta total_s $((SECONDS - start))" >> "$res"
BENCH_THREADS=$threads "$here/bench-table.sh" "$res" > "$out/table.md"
cat "$out/table.md"
say "done in $((SECONDS - start)) s; results in $out"
