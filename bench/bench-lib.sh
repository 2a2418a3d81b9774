# bench-lib.sh: what the benchmark runners (run-bench, run-metrics-bench, run-activity-bench,
# run-runner-bench) share; sourced, never run.  Each runner sets `here` and `prefix` first.
#
#   bench_begin NAME OUTDIR   results.txt and bench.log in OUTDIR (made empty), a private
#                             temporary directory $tmp (removed at exit), the budget clock;
#                             say() then prefixes messages with NAME
#   bench_commit PKGDATADIR   the commit the installed cupti_cb was built from (make install
#                             writes it), never the git repository of the current directory;
#                             BENCH_COMMIT overrides it
#   bench_find_nsys           the nsys to use: NSYS, else Nsight's own copies, else PATH ("" if none)
#   bench_require_gpu         exits 77 (as the tests do) when the machine has no NVIDIA GPU; a GPU
#                             that CUDA cannot use is not caught here: the programs fail and say why
#   step LABEL CMD...         runs CMD in what is left of $budget: stdout to $tmp/out, stderr to
#                             bench.log, wall seconds in $step_s; returns CMD's status (124: timed
#                             out) or 125 when the budget is spent (LABEL joins $skipped)
#   keep LABEL RC PATTERN [SED]
#                             appends the last step's lines matching PATTERN (edited by SED) to
#                             results.txt, and a line saying so when there were none or RC != 0

bench_begin() {
    bench_name=$1
    out=$2
    mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
    res=$out/results.txt
    log=$out/bench.log
    : > "$res"
    : > "$log"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cupti_cb-$bench_name.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    start=$SECONDS
    skipped=
    step_s=
}

say() { echo "$bench_name: $*" | tee -a "$log" >&2; }

bench_commit() {
    local c=unknown f
    for f in "$prefix/share/cupti_cb/commit" "$1/commit"; do
        if [ -r "$f" ]; then c=$(head -n 1 "$f"); break; fi
    done
    echo "${BENCH_COMMIT:-$c}"
}

bench_find_nsys() {
    local n=${NSYS:-} f
    if [ -z "$n" ]; then
        for f in /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys /opt/nvidia/nsight-systems/*/bin/nsys; do
            [ -x "$f" ] && n=$f
        done
        [ -z "$n" ] && n=$(command -v nsys 2>/dev/null)
    fi
    echo "$n"
}

bench_require_gpu() {
    if ! { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } && ! ls /proc/driver/nvidia/gpus/* >/dev/null 2>&1 &&
       [ ! -e /dev/nvidiactl ]; then
        say "no NVIDIA GPU on this machine (nvidia-smi lists none, no /proc/driver/nvidia/gpus entry, no /dev/nvidiactl): nothing to measure"
        exit 77
    fi
}

step() {
    local label=$1 left=$((budget - (SECONDS - start))) t0 t1 rc
    shift
    if [ "$left" -lt 5 ]; then
        skipped="$skipped $label"
        say "$label: skipped (budget spent)"
        return 125
    fi
    echo "---- $label: $*" >> "$log"
    t0=$(date +%s%N)
    timeout "$left" "$@" > "$tmp/out" 2>> "$log"
    rc=$?
    t1=$(date +%s%N)
    step_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    say "$label: exit $rc, $step_s s"
    return $rc
}

keep() {
    local label=$1 rc=$2 n
    n=$(grep -E "$3" "$tmp/out" | sed -e "${4:-}" | tee -a "$res" | wc -l)
    if [ "$rc" -eq 125 ]; then
        return
    elif [ "$n" -eq 0 ]; then
        echo "error step=$label exit=$rc: no result (bench.log has its messages)" >> "$res"
    elif [ "$rc" -ne 0 ]; then
        echo "note step=$label exit=$rc: $n result lines kept" >> "$res"
    fi
}
