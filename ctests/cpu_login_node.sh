#!/bin/sh
# cpu_login_node: PAPI's utilities over the component on a machine without an NVIDIA driver (a
# login node), as a new user runs them, with the real libcupti; the driver library is named
# where none is (CUPTI_CB_CUDA_LIB), so that a GPU machine runs the same test. Every tool must
# agree, and every refusal say why where the user looks, without CUPTI_CB_TRACE:
#  - CUPTI_CB_CHIP=GH100: the events are listed, and papi_component_avail shows the component
#    disabled, with the reason "No NVIDIA driver ...: events are listed for CUPTI_CB_CHIP=GH100,
#    none can be added here", and as many native events as the listing shows (it showed it
#    active, with 5,130 of 10,059);
#  - papi_command_line: every event refused alike ("Component containing event is disabled"),
#    and under PAPI_VERBOSE=1 the reason once (the first was refused so, the next two were "Event
#    does not exist" with no reason);
#  - papi_native_avail -c checks every event (it stopped after the first) and marks each <NA>;
#  - no :device=N qualifier is listed, since none is accepted (:device=0 to :device=63 were);
#  - a listing says once on stderr that nothing can be added;
#  - a chip libcupti refuses (H100) says so on stderr once, with the chips it supports (it
#    listed the callback events and no metric, silently); gh100 is taken as GH100;
#  - without CUPTI_CB_CHIP, the component is disabled and lists nothing; PAPI_VERBOSE=1 says why.
set -u
fails=0 n=0
check() { # name, got, want
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1"; else echo "not ok $n - $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
bin=${PAPI_BIN:?PAPI_BIN: where the PAPI utilities are}
CUPTI_CB_CUDA_LIB=/nonexistent/libcuda.so.1
export CUPTI_CB_CUDA_LIB
unset CUPTI_CB_CUPTI_LIB CUPTI_CB_TRACE PAPI_VERBOSE CUPTI_CB_CHIP
out=$(mktemp -d "${TMPDIR:-/tmp}/login_node.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
no_driver="No NVIDIA driver: /nonexistent/libcuda.so.1 cannot be loaded"

CUPTI_CB_CHIP=GH100 "$bin/papi_native_avail" -i cupti_cb > "$out/all.txt" 2> "$out/all.err"
check "papi_native_avail -i cupti_cb (GH100, no driver): exit status" "$?" 0
listed=$(sed -n 's/^Total events reported: //p' "$out/all.txt")
check "GH100: callback and metric events listed" "$([ "${listed:-0}" -gt 9000 ] && echo yes)" yes
check "GH100: a metric listed" "$(grep -c '^| cupti_cb:::dram__bytes_read  ' "$out/all.txt")" 1
check "GH100: no :device=N listed (no add accepts one)" "$(grep -c '^|     :device' "$out/all.txt")" 0
check "GH100: the listing says once on stderr that nothing can be added" \
    "$(grep -c "^cupti_cb: $no_driver (.*): events are listed for CUPTI_CB_CHIP=GH100, none can be added here\$" "$out/all.err")" 1
check "GH100: and nothing else on stderr" "$(wc -l < "$out/all.err" | tr -d ' ')" 1

CUPTI_CB_CHIP=GH100 "$bin/papi_component_avail" -d > "$out/avail.txt" 2>&1
check "papi_component_avail: the reason" \
    "$(grep -c "^   \\\\-> Disabled: $no_driver (.*): events are listed for CUPTI_CB_CHIP=GH100, none can be added here\$" "$out/avail.txt")" 1
check "papi_component_avail: not among the active components" \
    "$(sed -n '/^Active components:/,$p' "$out/avail.txt" | grep -c cupti_cb)" 0
check "papi_component_avail: as many native events as listed" \
    "$(sed -n '/^Name:   cupti_cb/,/^Name/s/.*Number of native events:[[:space:]]*//p' "$out/avail.txt")" "$listed"

CUPTI_CB_CHIP=GH100 PAPI_VERBOSE=1 "$bin/papi_command_line" cupti_cb:::kernel.launches \
    cupti_cb:::dram__bytes_read.sum cupti_cb:::gpu.kernels cupti_cb:::memcpy.bytes_htod:device0 > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line: the four events refused alike" \
    "$(grep -A1 '^Failed adding: cupti_cb:::' "$out/cl.txt" | grep -c '^because: Component containing event is disabled$')" 4
check "papi_command_line, PAPI_VERBOSE=1: the reason, once" \
    "$(grep -c "^PAPI Error: cupti_cb: 'kernel.launches' refused: $no_driver (.*): events are listed for CUPTI_CB_CHIP=GH100, none can be added here\$" "$out/cl.err")" 1
# cupti_cb's errors only: other components may print their own (perf_event's, where PAPI's
# libpfm4 knows the CPU).
check "papi_command_line: no other error of cupti_cb printed" "$(grep -c 'PAPI Error: cupti_cb' "$out/cl.err")" 1

CUPTI_CB_CHIP=GH100 "$bin/papi_native_avail" -c -i cupti_cb:::gpu.memcpy > "$out/check.txt" 2>&1
checked=$(grep -c '^| cupti_cb:::gpu\.memcpy.*<NA>|$' "$out/check.txt")
check "papi_native_avail -c: every gpu.memcpy event checked, beyond the first" \
    "$([ "$checked" -gt 1 ] && echo yes)" yes
check "papi_native_avail -c: each marked not available" "$checked" \
    "$(sed -n 's/^Total events reported: //p' "$out/check.txt")"

CUPTI_CB_CHIP=H100 "$bin/papi_native_avail" -i cupti_cb > "$out/h100.txt" 2> "$out/h100.err"
check "CUPTI_CB_CHIP=H100: exit status" "$?" 0
check "H100: the refusal once on stderr, with the chips libcupti supports" \
    "$(grep -c "^cupti_cb: no hardware metric listed: chip 'H100' refused by cuptiProfilerHostInitialize .*; the chips this libcupti supports: .*GH100" "$out/h100.err")" 1
check "H100: no metric listed" "$(grep -c '^| cupti_cb:::dram__' "$out/h100.txt")" 0

CUPTI_CB_CHIP=gh100 "$bin/papi_native_avail" -i cupti_cb:::dram__bytes_read > "$out/lower.txt" 2> "$out/lower.err"
check "CUPTI_CB_CHIP=gh100: taken as GH100" "$(grep -c '^| cupti_cb:::dram__bytes_read  ' "$out/lower.txt")" 1
check "gh100: no refusal" "$(grep -c 'refused' "$out/lower.err")" 0

"$bin/papi_native_avail" -i cupti_cb > "$out/none.txt" 2>&1
check "no CUPTI_CB_CHIP: nothing listed (nothing can be added)" "$(grep -c '^| cupti_cb:::' "$out/none.txt")" 0
PAPI_VERBOSE=1 "$bin/papi_command_line" cupti_cb:::kernel.launches > "$out/none_cl.txt" 2> "$out/none_cl.err"
check "no CUPTI_CB_CHIP, PAPI_VERBOSE=1: the reason" \
    "$(grep -c "^PAPI Error: cupti_cb: $no_driver" "$out/none_cl.err")" 1
echo "1..$n"
[ "$fails" -eq 0 ]
