#!/bin/bash
# run_examples.sh: runs the README's three examples as `make check` builds them.
# Without a usable GPU each must exit 0 after its one sentence saying why (the behaviour the
# README promises: no crash, no silent success).  With a GPU each must print the counts of the
# work it did: count_region 10 launches, 4 MiB to the device, 2 cudaMemcpy calls; mixed_sources
# 5 launches issued and 1 to 5 kernels run by the GPU; hl_regions a report with 2 copies in
# "upload".
set -u
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME [ARGS...]: runs ./NAME, prints its output; sets OUT and RC.
run() {
    OUT=$("./$@" 2>&1); RC=$?
    printf '%s\n' "$OUT" | sed "s/^/  $1: /"
}
# value EVENT: the count that a low-level example printed for EVENT.
value() { printf '%s\n' "$OUT" | awk -v e="$1" '$1 == e { print $2 }'; }
no_gpu() { printf '%s\n' "$OUT" | grep -q "^$1: no CUDA device to run on (.*): nothing to do$"; }
expect() { # expect NAME EVENT WANT
    local got; got=$(value "$2")
    [ "$got" = "$3" ] || fail "$1: $2 = '${got}', want $3"
}

examples=(hl_regions)
[ "${HAVE_NVCC_EXAMPLES:-no}" = yes ] && examples+=(count_region mixed_sources)
gpu=0
for ex in "${examples[@]}"; do
    case $ex in
    hl_regions)
        rm -rf hl-run && mkdir hl-run || exit 99
        (cd hl-run && PAPI_EVENTS="cupti_cb:::memcpy.calls,cupti_cb:::memcpy.bytes_htod" \
            ../hl_regions) > hl-run/out 2>&1
        RC=$?; OUT=$(cat hl-run/out); sed 's/^/  hl_regions: /' hl-run/out ;;
    *) run "$ex" ;;
    esac
    [ "$RC" -eq 0 ] || { fail "$ex: exit status $RC"; continue; }
    if no_gpu "$ex"; then
        echo "ok: $ex said why it had nothing to do, and exited 0"
        continue
    fi
    gpu=1
    case $ex in
    count_region)
        expect "$ex" cupti_cb:::kernel.launches 10
        expect "$ex" cupti_cb:::memcpy.bytes_htod $((4 << 20))
        expect "$ex" cupti_cb:::cudaMemcpy.calls 2
        expect "$ex" cupti_cb:::kernel.launches:process 10 ;;
    mixed_sources)
        expect "$ex" cupti_cb:::kernel.launches 5
        # A read right after a synchronization may still miss the records CUPTI has not marked
        # complete (cupti_cb-activity(7), GPU ACTIVITY, Reading): between 1 and the 5 kernels launched.
        k=$(value cupti_cb:::gpu.kernels)
        [[ "$k" =~ ^[1-5]$ ]] || fail "$ex: cupti_cb:::gpu.kernels = '$k', want 1 to 5" ;;
    hl_regions)
        # The report holds "event":"N" (or "event":{"region_value":"N",...}) per region.
        report=$(cat hl-run/papi_hl_output/*.json 2>/dev/null | tr -d ' \n')
        printf '%s' "$report" | grep -Eq '"upload".*"cupti_cb:::memcpy.calls":("2"|\{"region_value":"2")' ||
            fail "hl_regions: no region 'upload' with 2 copies in hl-run/papi_hl_output: $report" ;;
    esac
done
[ "$fails" -eq 0 ] || exit 1
[ "$gpu" -eq 1 ] && echo "the examples counted exactly on the GPU"
exit 0
