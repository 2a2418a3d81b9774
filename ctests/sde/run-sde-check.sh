#!/bin/bash
# run-sde-check: libcupti_cb_sde.so on a GPU, read through Debian's packaged PAPI (its binaries
# unmodified), from an installed prefix: <prefix>/libexec/cupti_cb/ctests/run-sde-check.
# Debian's PAPI must be in <prefix>/libexec/cupti_cb/debian-papi (scripts/debian-papi puts it
# there on the build machine; the GPU machine has no PAPI). Checks:
#  - papi_component_avail: the sde component finds no libsde without the library, and is
#    active with it;
#  - papi_native_avail lists sde:::cupti_cb::kernel.launches and gpu.kernels;
#  - papi_command_line reads the exact counts of the CUDA work that libsde_gpu_work.so does
#    after its PAPI_start (SDE_WORK: 10 launches of an empty kernel, one copy of 1 MiB to
#    device 0): kernel.launches, cuLaunchKernel.calls, kernel.launches:process and gpu.kernels
#    10, memcpy.bytes_htod and gpu.memcpy.bytes_htod 1048576, gpu.kernel_time_ns above 0;
#  - sde_gpu_read, a PAPI program run on Debian's libpapi with the library preloaded: two
#    threads launching, reading and resetting in turn each read their own launches and
#    kernels and the process's launches (it SKIPs where the build's PAPI source was not
#    7.0, whose libpapi.so.7.0 Debian's stands in for).
# Prints one PASS or FAIL line a check, then "N passed, N failed"; exit status 1 if any failed,
# 77 if there is no GPU or no Debian PAPI in the prefix.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$here/../../.." && pwd)
debian=$prefix/libexec/cupti_cb/debian-papi
sde=$prefix/lib/libcupti_cb_sde.so
work=$here/libsde_gpu_work.so
passed=0 failed=0
check() { # name, got, want
    if [ "$2" = "$3" ]; then echo "PASS: $1 ($2)"; passed=$((passed + 1))
    else echo "FAIL: $1: got '$2', want '$3'"; failed=$((failed + 1)); fi
}
commit=$(head -n 1 "$prefix/share/cupti_cb/commit" 2>/dev/null || echo unknown)
echo "# cupti_cb commit: $commit"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
[ -f "$debian/lib/libpapi.so.7.0" ] ||
    { echo "SKIP: no Debian PAPI in $debian: run scripts/debian-papi $prefix on the build machine"; exit 77; }
echo "# Debian's PAPI: $(tr '\n' ' ' < "$debian/VERSION")"
nvidia-smi -L > /dev/null 2>&1 || { echo "SKIP: no GPU (nvidia-smi lists none)"; exit 77; }
# Debian's libraries first: the prefix's lib/ holds cupti_cb's own libpapi.so.7.0.
export LD_LIBRARY_PATH=$debian/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$debian/bin
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

"$bin/papi_component_avail" > "$out/ca0.txt" 2>&1
check "papi_component_avail without the library: sde finds no libsde" "$(grep -c 'libsde API not found' "$out/ca0.txt")" 1
LD_PRELOAD=$sde "$bin/papi_component_avail" > "$out/ca1.txt" 2>&1
check "papi_component_avail with the library: sde active" "$(grep -c 'libsde API not found' "$out/ca1.txt")" 0

LD_PRELOAD=$sde "$bin/papi_native_avail" > "$out/na.txt" 2>&1
for e in kernel.launches gpu.kernels; do
    check "papi_native_avail lists sde:::cupti_cb::$e" "$(grep -c "^| sde:::cupti_cb::$e  *|\$" "$out/na.txt")" 1
done

events="kernel.launches cuLaunchKernel.calls kernel.launches:process memcpy.bytes_htod gpu.kernels
        gpu.memcpy.bytes_htod gpu.kernel_time_ns"
# shellcheck disable=SC2086
LD_PRELOAD="$sde $work" SDE_WORK=launches=10,htod=1048576 "$bin/papi_command_line" \
    $(for e in $events; do echo "sde:::cupti_cb::$e"; done) > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line: exit status" "$?" 0
sed 's/^/    /' "$out/cl.txt" "$out/cl.err" | grep -v '^    *$'
value() { sed -n "s/^sde:::cupti_cb::$1 :[[:space:]]*\([-0-9]*\).*/\1/p" "$out/cl.txt"; }
check "kernel.launches" "$(value kernel.launches)" 10
check "cuLaunchKernel.calls" "$(value cuLaunchKernel.calls)" 10
check "kernel.launches:process" "$(value kernel.launches:process)" 10
check "memcpy.bytes_htod" "$(value memcpy.bytes_htod)" 1048576
check "gpu.kernels" "$(value gpu.kernels)" 10
check "gpu.memcpy.bytes_htod" "$(value gpu.memcpy.bytes_htod)" 1048576
t=$(value gpu.kernel_time_ns)
check "gpu.kernel_time_ns above 0" "$([ "${t:-0}" -gt 0 ] && echo yes)" yes

LD_PRELOAD=$sde "$here/sde_gpu_read" > "$out/read.txt" 2>&1
rc=$?
sed 's/^/    /' "$out/read.txt"
if [ "$rc" -eq 77 ]; then echo "SKIP: sde_gpu_read ($(grep -m1 '^SKIP' "$out/read.txt"))"
else check "sde_gpu_read: two threads' own counts through Debian's libpapi (exit status)" "$rc" 0; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
