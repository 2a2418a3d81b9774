#!/bin/bash
# gpu_utilities: PAPI's own utilities see cupti_cb on a GPU machine.
#
# - papi_component_avail: exits 0, cupti_cb listed under "Active components", no "Disabled" line.
# - papi_native_avail -i cupti_cb: exits 0, lists cupti_cb:::kernel.launches, cupti_cb:::cudaMemcpy.calls
#   and cupti_cb:::cuLaunchKernel.calls, each with a non-empty description line.
# - papi_native_avail -e cupti_cb:::kernel.launches: names the event and describes it.
# - papi_command_line cupti_cb:::kernel.launches cupti_cb:::cudaMemcpy.calls: both added, both 0
#   (the utility does CPU work only), exit 0.
# - papi_native_avail -i dram__bytes_read (metrics first: the utility overran its own buffer on a
#   description of over 1,000 bytes) and papi_event_chooser NATIVE cupti_cb:::kernel.launches
#   (it prints each qualifier's text from a ':' it does not check for): exit 0 with the device's
#   chip.
# Exit 77 without an NVIDIA GPU.  The utilities are taken from $PAPI_BIN, else from <prefix>/bin
# (this script is installed in <prefix>/libexec/cupti_cb/ctests).
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${PAPI_BIN:-$here/../../../bin}
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}
show() { printf '%s\n' "$1" | sed 's/^/#   /'; }

# SKIP only without a GPU: where one is (even one that CUDA cannot use), the checks run, and
# a disabled cupti_cb fails them with its reason.
if ! { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } && ! ls /proc/driver/nvidia/gpus/* >/dev/null 2>&1 &&
   [ ! -e /dev/nvidiactl ] && [ ! -e /dev/nvidia0 ]; then
    echo "SKIP: no NVIDIA GPU (nvidia-smi -L lists none, /proc/driver/nvidia/gpus is empty, no /dev/nvidiactl)" >&2
    exit 77
fi
for tool in papi_component_avail papi_native_avail papi_command_line; do
    if [ ! -x "$bin/$tool" ]; then
        echo "not ok - $tool not found in $bin (set PAPI_BIN to the directory of the PAPI utilities)"
        exit 1
    fi
done
echo "# utilities from $bin"

# papi_component_avail
out=$("$bin/papi_component_avail" 2>&1)
check "papi_component_avail exits 0" [ $? -eq 0 ]
show "$(printf '%s\n' "$out" | grep -A1 -E '^Name: +cupti_cb( |$)')"
active=$(printf '%s\n' "$out" | sed -n '/^Active components:/,$p')
check "cupti_cb is listed under Active components" grep -qE '^Name: +cupti_cb( |$)' <<<"$active"
check "cupti_cb has no Disabled line" \
    bash -c '! grep -A1 -E "^Name: +cupti_cb( |$)" | grep -q "Disabled"' <<<"$out"

# papi_native_avail -i cupti_cb
out=$("$bin/papi_native_avail" -i cupti_cb 2>&1)
check "papi_native_avail -i cupti_cb exits 0" [ $? -eq 0 ]
show "$(printf '%s\n' "$out" | grep 'Total events reported')"
for ev in cupti_cb:::kernel.launches cupti_cb:::cudaMemcpy.calls cupti_cb:::cuLaunchKernel.calls; do
    # the event's line is "| <name> ... <-->|", the next line its description "|   text   |"
    descr=$(printf '%s\n' "$out" | awk -v ev="$ev" '
        found { sub(/^\|[ ]*/, ""); sub(/[ ]*\|$/, ""); print; exit }
        index($0, "| " ev " ") == 1 { found = 1 }')
    check "papi_native_avail lists $ev with a description (\"$descr\")" [ -n "$descr" ]
done

# papi_native_avail -e
out=$("$bin/papi_native_avail" -e cupti_cb:::kernel.launches 2>&1)
check "papi_native_avail -e cupti_cb:::kernel.launches exits 0" [ $? -eq 0 ]
check "papi_native_avail -e names the event" grep -qE '^Event name: +cupti_cb:::kernel\.launches *$' <<<"$out"
check "papi_native_avail -e describes it" grep -qE '^Description: +[^ ]' <<<"$out"

# papi_command_line
out=$("$bin/papi_command_line" cupti_cb:::kernel.launches cupti_cb:::cudaMemcpy.calls 2>&1)
check "papi_command_line exits 0" [ $? -eq 0 ]
show "$(printf '%s\n' "$out" | grep -E 'cupti_cb|Failed')"
for ev in cupti_cb:::kernel.launches cupti_cb:::cudaMemcpy.calls; do
    check "papi_command_line added $ev" grep -qxF "Successfully added: $ev" <<<"$out"
    check "papi_command_line prints $ev : 0" grep -qE "^${ev//./\\.} :[[:space:]]+0([^0-9]|$)" <<<"$out"
done

# The metrics, with the device's chip
out=$("$bin/papi_native_avail" -i dram__bytes_read 2>&1)
check "papi_native_avail -i dram__bytes_read exits 0" [ $? -eq 0 ]
check "papi_native_avail -i dram__bytes_read lists cupti_cb:::dram__bytes_read" \
    grep -qE '^\| cupti_cb:::dram__bytes_read ' <<<"$out"
if [ -x "$bin/papi_event_chooser" ]; then
    out=$("$bin/papi_event_chooser" NATIVE cupti_cb:::kernel.launches 2>&1)
    check "papi_event_chooser NATIVE cupti_cb:::kernel.launches exits 0" [ $? -eq 0 ]
    show "$(printf '%s\n' "$out" | grep 'Total events reported')"
fi

echo "1..$n"
echo "# $n checks, $failed failed"
[ "$failed" -eq 0 ]
