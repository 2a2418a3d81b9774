#!/bin/bash
# ncu-crosscheck: the same kernels measured by cupti_cb and by Nsight Compute (ncu --metrics,
# kernel replay), side by side, in three parts:
#   range     gpu_metrics values (one Range Profiler range per kernel): dram__bytes_read.sum and
#             smsp__inst_executed.sum must agree within 1%; gpu__time_duration.sum is shown (a PAPI
#             range also spans the launch gaps around the kernel, so it is not compared);
#   sampled   gpu_sampling values (one PM-sampling window per part, ':sampled' events, settled
#             L2 before each): stream_read's dram__bytes_read.sum, and the dram__bytes_write.sum of
#             32 stream_writes (16 GiB) and the read after them that writes their dirty L2 lines
#             back (ours less the writes the read's window saw outside any kernel: a few MB, which
#             vary between windows, hence the 16 GiB), against ncu's range replay (each part one
#             range; --cache-control none), must agree within 0.1%.  Kernel by kernel, ncu misses
#             the lines written back between two kernels: 27 MB of the 16 GiB, on an H200;
#   conflict  gpu_sampling under-ncu, run under ncu: a sampled set must be refused with
#             PAPI_ECNFLCT (or PAPI_EPERM), or, if it starts, count right; a crash fails.
# Counters agree also when both lie under 64 KiB (a kernel that reads no memory still shows a few
# stray sectors, which differ between runs).
# Usage: ncu-crosscheck [NCU]   (default: ncu on PATH, else /usr/local/cuda/bin/ncu)
# Exit status: 0 agree, 1 disagree, 77 no GPU or no ncu.  A part whose program SKIPs (no
# profiling permission, no PM sampling) is reported as SKIP and does not fail the run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ncu=${1:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$ncu" ] || { echo "SKIP: no Nsight Compute (ncu) found"; exit 77; }
echo "# $("$ncu" --version | tail -n 1)"

# ncu's CSV: "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Name","Metric Unit","Metric Value"
# ncu_value KERNEL METRIC: the metric of KERNEL's first launch; KERNEL may be "A+B": A's value plus
# that of the first launch of B after A's (a write and the read that writes its L2 lines back), and
# "A*N+B": the N launches of A from its first, plus the first launch of B after them; "...@N": the
# Nth result of ncu's range replay, whatever its name.
ncu_value() { # kernel metric  (from $theirs)
    printf '%s\n' "$theirs" | awk -F'","' -v k="$1" -v m="$2" '
        BEGIN { nth = 0; if (split(k, at, "@") == 2) nth = at[2] }
        nth && index($0, "\"ID\"") == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
        nth { if (col["Metric Name"] && $col["Metric Name"] == m && ++seen == nth) {
                  v = $col["Metric Value"]; gsub(/[",]/, "", v); print v; exit }
              next }
        BEGIN { n = split(k, want, "+"); for (i = 1; i <= n; i++) { times[i] = 1
                    if (split(want[i], kn, "*") == 2) { want[i] = kn[1]; times[i] = kn[2] } }
                part = 1; left = times[1]; sum = 0 }
        index($0, "\"ID\"") == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
        col["Kernel Name"] && index($col["Kernel Name"], want[part]) == 1 && $col["Metric Name"] == m {
            v = $col["Metric Value"]; gsub(/[",]/, "", v); sum += v
            if (--left > 0) next
            if (++part > n) { print sum; exit }
            left = times[part] }'
}

bad=0 skipped=
# compare LABEL PROGRAM METRICS TOLERANCE_PCT [NCU_OPTION...]: PROGRAM values prints "<kernel>
# <metric> <value>" lines; PROGRAM ncu runs the same kernels without PAPI, under ncu.
compare() {
    local label=$1 prog=$2 metrics=$3 tol=$4 ours rc kernel metric value nv diff verdict
    shift 4
    ours=$("$here/$prog" values)
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "SKIP ($label): $prog values skipped"; skipped="$skipped $label"; return
    elif [ "$rc" -ne 0 ]; then
        echo "$prog values failed (exit $rc)"; printf '%s\n' "$ours"; bad=1; return
    fi
    theirs=$("$ncu" "$@" --metrics "$metrics" --csv --print-units base "$here/$prog" ncu 2>&1) || {
        echo "ncu failed on $prog:"; printf '%s\n' "$theirs"; bad=1; return; }
    echo "## $label: $prog, within $tol%"
    printf '%-12s %-26s %16s %16s %9s\n' kernel metric cupti_cb ncu diff
    while read -r kernel metric value; do
        nv=$(ncu_value "$kernel" "$metric")
        [ -n "$nv" ] || { echo "ncu printed no $metric for $kernel"; bad=1; continue; }
        diff=$(awk -v a="$value" -v b="$nv" 'BEGIN { if (b == 0) print (a == 0 ? 0 : 100); else printf "%.3f", (a - b) / b * 100 }')
        verdict=
        if [ "$metric" != gpu__time_duration.sum ]; then
            verdict=$(awk -v d="$diff" -v a="$value" -v b="$nv" -v m="$metric" -v t="$tol" 'BEGIN {
                if (d <= t && d >= -t) print "ok"
                else if (m ~ /^dram__bytes_/ && a < 65536 && b < 65536) print "ok (both under 64 KiB)"
                else print "DIFFERS" }')
            case $verdict in ok*) ;; *) bad=1 ;; esac
        fi
        printf '%-12s %-26s %16s %16s %8s%% %s\n' "$kernel" "$metric" "$value" "$nv" "$diff" "$verdict"
    done <<< "$ours"
}

compare range gpu_metrics dram__bytes_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum 1
# Without ncu's cache control, which writes the L2's dirty lines back between the kernels, outside
# any kernel it measures: the write's lines are then written back by the next kernel, as in the
# sampled window.
compare sampled gpu_sampling dram__bytes_read.sum,dram__bytes_write.sum 0.1 --replay-mode range --cache-control none

# Nsight Compute holds the counters: a sampled set is refused with a clear code, never a crash.
echo "## conflict: gpu_sampling under-ncu, run under ncu"
under=$("$ncu" --metrics dram__bytes_read.sum "$here/gpu_sampling" under-ncu 2>&1)
rc=$?
printf '%s\n' "$under" | grep -E '^(ok|not ok|# under ncu|SKIP)' || true
if printf '%s\n' "$under" | grep -q '^SKIP'; then
    echo "SKIP (conflict): gpu_sampling under-ncu skipped"; skipped="$skipped conflict"
elif printf '%s\n' "$under" | grep -q '^ok [0-9]* - under ncu' && ! printf '%s\n' "$under" | grep -q '^not ok'; then
    echo "conflict: ok (ncu exit $rc)"
else
    echo "conflict: FAIL (ncu exit $rc); its output:"; printf '%s\n' "$under" | tail -n 40; bad=1
fi

[ -n "$skipped" ] && echo "skipped:$skipped"
[ "$bad" -eq 0 ] && echo "cupti_cb and Nsight Compute agree" || echo "cupti_cb and Nsight Compute DIFFER"
exit "$bad"
