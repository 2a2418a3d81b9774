#!/bin/bash
# run-sampling-bench [OUTDIR]: the benchmark of the sampled hardware metrics (cupti_cb's
# ':sampled' events, CUPTI's PM sampling), on one GPU, in one run, beside the callback source
# and the Range Profiler:
#   read  PAPI_read cost of a sampled set, a callback set and a Range Profiler set;
#   app   the cost to the application (empty launches, streaming kernels) bare, with a callback
#         set, and with a sampled set at each interval of BENCH_INTERVALS;
#   tau   a TAU-pattern step (3 nested timers, read + reset at each boundary, one kernel) with
#         {kernel.launches}, with {kernel.launches, dram__bytes_read.sum:sampled}, and with the
#         Range Profiler's dram__bytes_read.sum instead (fewer steps).
# Every measurement is a process of its own (the sampling interval is read once per process);
# BENCH_ROUNDS rounds, the order of the modes reversed every other round; the table gives the
# median over rounds with the lowest and highest.
#
# Writes into OUTDIR (default: the current directory)
#   results.txt  raw result lines of every process
#   table.md     the table (remade from results.txt by bench-sampling-table.sh)
#   bench.log    stderr of every process, and the progress of the run
# and prints table.md.  (This file is run-sampling-bench.sh in the source tree, installed as
# run-sampling-bench next to bench_sampling.)
#
# Environment (all optional):
#   BENCH_ROUNDS        rounds (default 3)
#   BENCH_READS         timed reads of the sampled and callback sets (default 10000)
#   BENCH_RANGE_READS   timed reads of the Range Profiler set (default 50)
#   BENCH_INTERVALS     sampling intervals in us for the app part (default "100 250 500 1000 10000")
#   BENCH_LAUNCHES      empty launches per repetition of the app part (default 2000)
#   BENCH_STREAM_ITERS  streaming kernels per repetition of the app part (default 50)
#   BENCH_MIB           MiB each streaming kernel reads (default 512)
#   BENCH_REPS          repetitions inside an app process (default 5)
#   BENCH_TAU_STEPS     steps of the callback and sampled TAU sets (default 10000)
#   BENCH_TAU_RANGE_STEPS steps of the Range Profiler TAU set (default 50)
#   BENCH_DEVICE        CUDA device index (default 0)
#   BENCH_BUDGET        seconds the whole run may take (default 540: one 10-minute job; about
#                       150 s are expected)
#   BENCH_COMMIT        commit recorded in the table (default: <prefix>/share/cupti_cb/commit)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
rounds=${BENCH_ROUNDS:-3}
reads=${BENCH_READS:-10000}
range_reads=${BENCH_RANGE_READS:-50}
intervals=${BENCH_INTERVALS:-100 250 500 1000 10000}
launches=${BENCH_LAUNCHES:-2000}
stream_iters=${BENCH_STREAM_ITERS:-50}
mib=${BENCH_MIB:-512}
reps=${BENCH_REPS:-5}
tau_steps=${BENCH_TAU_STEPS:-10000}
tau_range_steps=${BENCH_TAU_RANGE_STEPS:-50}
device=${BENCH_DEVICE:-0}
budget=${BENCH_BUDGET:-540}
prog=$here/bench_sampling

. "$here/bench-lib.sh"
bench_begin run-sampling-bench "$out"
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu

# The app modes: bare, callback, and sampled@I for each interval.
app_modes="bare callback"
for i in $intervals; do app_modes="$app_modes sampled@$i"; done

ordered() { # ordered ROUND WORD...: the words, reversed in even rounds
    local r=$1
    shift
    if ((r % 2)); then echo "$@"; else echo "$@" | tr ' ' '\n' | tac | tr '\n' ' '; fi
}

read_step() { # read_step ROUND SET
    local n=$reads
    [ "$2" = range ] && n=$range_reads
    step "read/$2/$1" "$prog" --part=read --set="$2" --reads="$n" --device="$device"
    keep "read/$2/$1" $? '^read ' "s/\$/ round=$1/"
}

app_step() { # app_step ROUND MODE (sampled@I: sampled at interval I)
    local mode=${2%@*} iv=
    [ "$mode" != "$2" ] && iv=${2#*@}
    if [ -n "$iv" ]; then
        step "app/$2/$1" env CUPTI_CB_SAMPLING_INTERVAL_US="$iv" "$prog" --part=app --mode="$mode" \
            --launches="$launches" --stream-iters="$stream_iters" --mib="$mib" --reps="$reps" --device="$device"
    else
        step "app/$2/$1" env -u CUPTI_CB_SAMPLING_INTERVAL_US "$prog" --part=app --mode="$mode" \
            --launches="$launches" --stream-iters="$stream_iters" --mib="$mib" --reps="$reps" --device="$device"
    fi
    keep "app/$2/$1" $? '^app ' "s/\$/ round=$1/"
}

tau_step() { # tau_step ROUND SET
    local n=$tau_steps
    [ "$2" = range ] && n=$tau_range_steps
    step "tau/$2/$1" "$prog" --part=tau --set="$2" --steps="$n" --device="$device"
    keep "tau/$2/$1" $? '^tau ' "s/\$/ round=$1/"
}

edges_step() { # edges_step ROUND SET
    step "edges/$2/$1" "$prog" --part=edges --set="$2" --reps="${BENCH_EDGES_REPS:-50}" --mib="$mib" --device="$device"
    keep "edges/$2/$1" $? '^edges ' "s/\$/ round=$1/"
}

{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta cpus $(nproc)"
    echo "meta device $(nvidia-smi -i "$device" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta command $0 $*"
    echo "meta rounds $rounds"
    echo "meta reads $reads (range $range_reads)"
    echo "meta app launches=$launches stream_iters=$stream_iters mib=$mib reps=$reps intervals_us=$intervals"
    echo "meta tau_steps $tau_steps (range $tau_range_steps)"
    echo "meta decode_us ${CUPTI_CB_SAMPLING_DECODE_US:-default}"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\) /# \1: /p' "$res"

for ((r = 1; r <= rounds; r++)); do
    for s in $(ordered $r sampled callback range); do read_step $r $s; done
    for m in $(ordered $r $app_modes); do app_step $r "$m"; done
    for s in $(ordered $r callback sampled range); do tau_step $r $s; done
    for s in $(ordered $r sampled exact range); do edges_step $r $s; done
done

[ -n "$skipped" ] && echo "note the ${budget} s budget was spent; skipped:$skipped" >> "$res"
echo "meta total_s $((SECONDS - start))" >> "$res"
"$here/bench-sampling-table.sh" "$res" > "$out/table.md"
cat "$out/table.md"
say "done in $((SECONDS - start)) s; results in $out"
