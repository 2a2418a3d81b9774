#!/bin/bash
# ncu-crosscheck: the same kernels measured by cupti_cb (gpu_metrics values: one PAPI range per
# kernel) and by Nsight Compute (ncu --metrics, kernel replay), side by side.  The counters
# dram__bytes_read.sum and smsp__inst_executed.sum must agree within 1%, or both lie under 64 KiB
# (a kernel that reads no memory still shows a few stray sectors, which differ between runs);
# gpu__time_duration.sum
# is shown (a PAPI range also spans the launch gaps around the kernel, so it is not compared).
# Usage: ncu-crosscheck [NCU]   (default: ncu on PATH, else /usr/local/cuda/bin/ncu)
# Exit status: 0 agree, 1 disagree, 77 no GPU or no ncu.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ncu=${1:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$ncu" ] || { echo "SKIP: no Nsight Compute (ncu) found"; exit 77; }
metrics=dram__bytes_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum

ours=$("$here/gpu_metrics" values) || { rc=$?; echo "gpu_metrics values failed (exit $rc)"; exit $rc; }
theirs=$("$ncu" --metrics "$metrics" --csv --print-units base "$here/gpu_metrics" ncu 2>&1) || {
    echo "ncu failed:"; printf '%s\n' "$theirs"; exit 1; }
echo "# $("$ncu" --version | tail -n 1)"
# ncu's CSV: "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Name","Metric Unit","Metric Value"
ncu_value() { # kernel metric
    printf '%s\n' "$theirs" | awk -F'","' -v k="$1" -v m="$2" '
        index($0, "\"ID\"") == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
        col["Kernel Name"] && index($col["Kernel Name"], k) == 1 && $col["Metric Name"] == m {
            v = $col["Metric Value"]; gsub(/[",]/, "", v); print v; exit }'
}
bad=0
printf '%-12s %-26s %16s %16s %9s\n' kernel metric cupti_cb ncu diff
while read -r kernel metric value; do
    nv=$(ncu_value "$kernel" "$metric")
    [ -n "$nv" ] || { echo "ncu printed no $metric for $kernel"; bad=1; continue; }
    diff=$(awk -v a="$value" -v b="$nv" 'BEGIN { if (b == 0) print (a == 0 ? 0 : 100); else printf "%.3f", (a - b) / b * 100 }')
    verdict=
    if [ "$metric" != gpu__time_duration.sum ]; then
        verdict=$(awk -v d="$diff" -v a="$value" -v b="$nv" -v m="$metric" 'BEGIN {
            if (d <= 1 && d >= -1) print "ok"
            else if (m == "dram__bytes_read.sum" && a < 65536 && b < 65536) print "ok (both under 64 KiB)"
            else print "DIFFERS" }')
        case $verdict in ok*) ;; *) bad=1 ;; esac
    fi
    printf '%-12s %-26s %16s %16s %8s%% %s\n' "$kernel" "$metric" "$value" "$nv" "$diff" "$verdict"
done <<< "$ours"
[ "$bad" -eq 0 ] && echo "cupti_cb and Nsight Compute agree within 1%" || echo "cupti_cb and Nsight Compute DIFFER"
exit "$bad"
