#!/bin/bash
# run-report-bench [OUTDIR]: how long `cupti_cb_run --report` takes to merge large inputs, on any
# machine (no GPU: the inputs are generated).  Two cases, each merged once and timed in wall
# seconds:
#
#   ranks   BENCH_RANKS report files (default 1024), one per rank, each of BENCH_FUNCTIONS CUDA
#           functions (default 1000): the per-rank reports of a large MPI run
#   rows    one report file of BENCH_ROWS distinct functions (default 200000)
#
# Every merged value is known: function fNNNNNNN has calls NNNNNNN+1 and time_ns 10 times that in
# every file, so the ranks case checks the total of the first and the last function (calls times
# the number of ranks) and the rows case the last function's, in the CSV the runner writes.  A
# check that fails makes the line say check=FAIL.
#
# RUNNER (default: cupti_cb_run next to this script's installed prefix, else on PATH) is the
# runner timed.  Writes OUTDIR/results.txt (default: the current directory) with one line per case:
#   report case=ranks files=1024 rows_per_file=1000 seconds=1.23 cpu_seconds=1.20 status=0 check=ok
# BENCH_CASES (default "ranks rows") picks the cases; BENCH_LIMIT (default 600) is each case's
# limit in seconds (timeout).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
runner=${RUNNER:-}
if test -z "$runner"; then
    if test -x "$here/../../../bin/cupti_cb_run"; then
        runner=$here/../../../bin/cupti_cb_run
    else
        runner=$(command -v cupti_cb_run) || { echo "run-report-bench: no cupti_cb_run: set RUNNER" >&2; exit 1; }
    fi
fi
ranks=${BENCH_RANKS:-1024}
functions=${BENCH_FUNCTIONS:-1000}
rows=${BENCH_ROWS:-200000}
limit=${BENCH_LIMIT:-600}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cupti_cb-report-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
res=$out/results.txt
: > "$res"

# report FILE RANK NFUNCTIONS: a report as `cupti_cb_run --json` writes it, of one process.
report() {
    awk -v rank="$2" -v n="$3" 'BEGIN {
        printf "{\"schema\": \"cupti_cb_run/1\", \"cupti_cb\": {\"version\": \"bench\"},\n"
        printf " \"run\": {\"argv\": [\"./app\"], \"exit_status\": 0, \"wall_ns\": 1000000, \"rank\": %d},\n", rank
        printf " \"processes\": [{\"pid\": %d, \"host\": \"node\", \"rank\": %d, \"argv\": [\"./app\"], \"wall_ns\": 1000000, \"status\": {\"counting\": true, \"reason\": null}}],\n", 1000 + rank, rank
        printf " \"status\": {\"counting\": true, \"reason\": null},\n"
        calls = n * (n + 1) / 2
        printf " \"totals\": {\"api.calls\": %d, \"api.time_ns\": %d, \"api.errors\": 0},\n", calls, 10 * calls
        printf " \"api\": [\n"
        for (i = 0; i < n; i++)
            printf "  {\"function\": \"f%07d\", \"layer\": \"runtime\", \"calls\": %d, \"time_ns\": %d, \"min_ns\": 5, \"max_ns\": 20, \"errors\": 0}%s\n", i, i + 1, 10 * (i + 1), i + 1 < n ? "," : ""
        printf " ],\n \"devices\": [{\"device\": 0, \"events\": {\"kernel.launches\": 7}}], \"metrics\": [], \"notes\": []}\n"
    }' > "$1"
}

# timed CMD...: CMD's wall seconds in $secs, its status in $status (124: past BENCH_LIMIT), and
# its user + system CPU seconds in $cpu ("-" without /usr/bin/time): on a shared machine the
# wall time includes waiting for a core, the CPU time does not.
timed() {
    local t0 t1 gnu_time=
    test -x /usr/bin/time && gnu_time="/usr/bin/time -f %U+%S -o $tmp/cpu"
    : > "$tmp/cpu"
    t0=$(date +%s.%N)
    timeout "$limit" $gnu_time "$@" > "$tmp/out.csv" 2> "$tmp/err"
    status=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    cpu=$(awk -F+ 'NF == 2 { printf "%.2f", $1 + $2; exit } END { if (!NR) print "-" }' "$tmp/cpu")
}

# check NAME FIELD WANT: the CSV row runtime_api,NAME.FIELD has the value WANT.
check() {
    awk -F, -v k="$1.$2" -v want="$3" '$1 == "runtime_api" && $2 == k { found = 1; ok = $4 == want }
        END { exit !(found && ok) }' "$tmp/out.csv"
}

for c in ${BENCH_CASES:-ranks rows}; do
    case $c in
    ranks)
        mkdir -p "$tmp/ranks"
        report "$tmp/ranks/r0.json" 0 "$functions"
        for ((r = 1; r < ranks; r++)); do
            # Identical contents but the rank: copies are faster than awk.
            sed "s/\"rank\": 0/\"rank\": $r/g; s/\"pid\": 1000,/\"pid\": $((1000 + r)),/" \
                "$tmp/ranks/r0.json" > "$tmp/ranks/r$r.json"
        done
        timed "$runner" -o /dev/null --csv - --report "$tmp"/ranks/r*.json
        verdict=ok
        last=$(printf 'f%07d' $((functions - 1)))
        { test "$status" = 0 && check f0000000 calls "$ranks" &&
            check "$last" calls $((functions * ranks)); } || verdict=FAIL
        echo "report case=ranks files=$ranks rows_per_file=$functions seconds=$secs cpu_seconds=$cpu status=$status check=$verdict" | tee -a "$res"
        rm -rf "$tmp/ranks"
        ;;
    rows)
        report "$tmp/rows.json" 0 "$rows"
        timed "$runner" -o /dev/null --csv - --report "$tmp/rows.json"
        verdict=ok
        last=$(printf 'f%07d' $((rows - 1)))
        { test "$status" = 0 && check "$last" calls "$rows" && check "$last" time_ns $((10 * rows)); } || verdict=FAIL
        echo "report case=rows files=1 rows_per_file=$rows seconds=$secs cpu_seconds=$cpu status=$status check=$verdict" | tee -a "$res"
        ;;
    *)
        echo "run-report-bench: unknown case '$c' (ranks, rows)" >&2
        exit 1
        ;;
    esac
    test -s "$tmp/err" && sed "s/^/  $c: /" "$tmp/err" | head -5 >&2
done
exit 0
