#!/bin/sh
# sde_packaged.sh: libcupti_cb_sde.so through Debian's packaged PAPI (papi-tools,
# libpapi-dev), its binaries unmodified, with CUDA calls played into the fakes:
#  - papi_component_avail: the sde component, disabled without the library ("libsde API
#    not found"), is active with it;
#  - papi_native_avail lists sde:::cupti_cb::kernel.launches and its :process form with
#    their descriptions, the callback and gpu.* events; -e shows one; -sde FILE, without
#    the library preloaded, lists as many;
#  - papi_command_line reads the exact counts that libsde_play.so plays after its PAPI_start:
#    7 launches, 4,096 bytes to the device, 7 cuLaunchKernel calls; where another tool holds
#    CUPTI it reads -1 and the library says why, once;
#  - sde_fake_read.c, built here against the packaged papi.h and libpapi: every case with the
#    library preloaded, the same program linked with the library instead, and the library
#    loaded after libsde (it then registers nothing: -1, never a count from another thread's
#    reset).
set -u
fails=0 n=0
check() { # name, got, want
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1"; else echo "not ok $n - $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
skip() {
    if [ "${CUPTI_CB_REQUIRE_PACKAGED_PAPI:-0}" = 1 ]; then
        echo "not ok 1 - $1 (CUPTI_CB_REQUIRE_PACKAGED_PAPI=1)"; exit 1
    fi
    echo "SKIP: $1"; exit 77
}

root=${PACKAGED_PAPI_ROOT:-/}
bin=$root/usr/bin
lib=$(ls -d "$root"/usr/lib/*/libpapi.so.7.0 "$root"/usr/lib/libpapi.so.7.0 2>/dev/null | head -n 1)
[ -x "$bin/papi_command_line" ] && [ -n "$lib" ] && [ -f "$root/usr/include/papi.h" ] ||
    skip "Debian's packaged PAPI is not installed in ${root%/}/usr (apt-get install papi-tools libpapi-dev; scripts/setup installs them)"
lib=${lib%/*}
version=$(sed -n 's/^#define[ 	]*PAPI_VERSION[ 	]*PAPI_VERSION_NUMBER(\([0-9]*\), *\([0-9]*\), *\([0-9]*\).*/\1.\2.\3/p' \
    "$root/usr/include/papi.h")
case $version in
7.*) [ -f "$lib/libsde.so.1" ] || skip "the packaged PAPI $version has no libsde.so.1 in $lib (Debian: libsde1)" ;;
*) skip "the packaged PAPI is ${version:-of no known version}: its sde component finds libsde from PAPI 7.0 on" ;;
esac
# The packaged files where they are not the system's: their own directory first.
[ "$root" = / ] || { LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH; }
CUPTI_CB_CUPTI_LIB=$FAKES_DIR/libcupti.so CUPTI_CB_CUDA_LIB=$FAKES_DIR/libcuda.so
export CUPTI_CB_CUPTI_LIB CUPTI_CB_CUDA_LIB
out=$(mktemp -d "${TMPDIR:-/tmp}/sde_packaged.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
echo "# packaged PAPI $version: $bin, $lib"

# ---- papi_component_avail
"$bin/papi_component_avail" > "$out/ca0.txt" 2>&1
check "papi_component_avail without the library: the sde component finds no libsde" \
    "$(grep -c 'libsde API not found' "$out/ca0.txt")" 1
LD_PRELOAD=$SDE_LIB "$bin/papi_component_avail" > "$out/ca1.txt" 2>&1
check "papi_component_avail with the library: the sde component is active" \
    "$(grep -c 'libsde API not found' "$out/ca1.txt"):$(grep -c '^Name:   sde ' "$out/ca1.txt")" 0:2

# ---- papi_native_avail
LD_PRELOAD=$SDE_LIB "$bin/papi_native_avail" > "$out/na.txt" 2>&1
check "papi_native_avail: exit status" "$?" 0
listed=$(grep -c '^| sde:::cupti_cb::' "$out/na.txt")
check "papi_native_avail: more than 5,000 sde:::cupti_cb:: events" "$([ "$listed" -gt 5000 ] && echo yes)" yes
for e in kernel.launches kernel.launches:process memcpy.bytes_htod cuLaunchKernel.calls cudaMemcpy.time_ns \
         gpu.kernels gpu.kernels:process api.calls:process; do
    check "papi_native_avail lists sde:::cupti_cb::$e" "$(grep -c "^| sde:::cupti_cb::$e  *|\$" "$out/na.txt")" 1
done
check "papi_native_avail: kernel.launches described, for the reading thread" \
    "$(grep -A4 '^| sde:::cupti_cb::kernel.launches  *|$' "$out/na.txt" | tr -d '|\n' | tr -s ' ' |
       grep -c 'Kernels launched.*the reading thread')" 1
check "papi_native_avail: no hardware metric (the driver names them: cupti_cb-sde(7))" \
    "$(grep -c '^| sde:::cupti_cb::dram__' "$out/na.txt")" 0
LD_PRELOAD=$SDE_LIB "$bin/papi_native_avail" -e sde:::cupti_cb::memcpy.bytes_htod > "$out/e.txt" 2>&1
check "papi_native_avail -e sde:::cupti_cb::memcpy.bytes_htod: the event" \
    "$(grep -c '^Event name: *sde:::cupti_cb::memcpy.bytes_htod$' "$out/e.txt")" 1
"$bin/papi_native_avail" -sde "$SDE_LIB" > "$out/sde.txt" 2>&1
check "papi_native_avail -sde FILE, not preloaded: as many events" \
    "$(grep -c '^| sde:::cupti_cb::' "$out/sde.txt")" "$listed"

# ---- papi_command_line
LD_PRELOAD="$SDE_LIB $SDE_PLAY_LIB" SDE_PLAY=launches=7,htod=4096 "$bin/papi_command_line" \
    sde:::cupti_cb::kernel.launches sde:::cupti_cb::memcpy.bytes_htod sde:::cupti_cb::cuLaunchKernel.calls \
    sde:::cupti_cb::kernel.launches:process sde:::cupti_cb::memset.calls > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line: exit status" "$?" 0
value() { sed -n "s/^sde:::cupti_cb::$1 :[[:space:]]*\([-0-9]*\).*/\1/p" "$out/cl.txt"; }
check "papi_command_line: kernel.launches" "$(value kernel.launches)" 7
check "papi_command_line: memcpy.bytes_htod" "$(value memcpy.bytes_htod)" 4096
check "papi_command_line: cuLaunchKernel.calls" "$(value cuLaunchKernel.calls)" 7
check "papi_command_line: kernel.launches:process" "$(value kernel.launches:process)" 7
check "papi_command_line: memset.calls" "$(value memset.calls)" 0
check "papi_command_line: nothing on stderr" "$(cat "$out/cl.err")" ""
LD_PRELOAD="$SDE_LIB $SDE_PLAY_LIB" SDE_PLAY=launches=7 SDE_PLAY_OTHER="another tool" \
    "$bin/papi_command_line" sde:::cupti_cb::kernel.launches sde:::cupti_cb::memcpy.calls > "$out/cl.txt" 2> "$out/cl.err"
check "another tool holds CUPTI: kernel.launches reads -1 (SDE's value for no value)" "$(value kernel.launches)" -1
check "another tool holds CUPTI: memcpy.calls too" "$(value memcpy.calls)" -1
check "another tool holds CUPTI: one sentence, naming the first counter and the tool" \
    "$(grep -c "^cupti_cb_sde: sde:::cupti_cb::kernel.launches is not counted (its reads give -1): .*'another tool' holds CUPTI" "$out/cl.err"):$(wc -l < "$out/cl.err" | tr -d ' ')" 1:1

# ---- a PAPI program built against the packaged PAPI
prog=$SDE_BUILDDIR/sde_fake_read
# shellcheck disable=SC2086
$SDE_CC $SDE_CFLAGS -I"$root/usr/include" -o "$prog" "$SDE_SRCDIR/sde_fake_read.c" -L"$lib" -lpapi \
    "$FAKES_DIR/libcupti.so" "$FAKES_DIR/libcuda.so" -ldl -lpthread
check "sde_fake_read built against the packaged papi.h and libpapi" "$?" 0
# shellcheck disable=SC2086
$SDE_CC $SDE_CFLAGS -I"$root/usr/include" -o "$prog"_linked "$SDE_SRCDIR/sde_fake_read.c" -L"$lib" -lpapi \
    -L"${SDE_LIB%/*}" -Wl,--no-as-needed -lcupti_cb_sde -Wl,--as-needed -Wl,-rpath,"${SDE_LIB%/*}" \
    "$FAKES_DIR/libcupti.so" "$FAKES_DIR/libcuda.so" -ldl -lpthread
check "sde_fake_read_linked: the same, linked with libcupti_cb_sde.so" "$?" 0
run() { # what, command...
    what=$1; shift
    "$@" > "$out/run.txt" 2>&1; rc=$?
    sed 's/^/    /' "$out/run.txt"
    check "$what" "$rc" 0
}
run "sde_fake_read, the library preloaded: every case" env LD_PRELOAD="$SDE_LIB" "$prog"
check "sde_fake_read_linked: libcupti_cb_sde.so is among its libraries" \
    "$(ldd "$prog"_linked 2>/dev/null | grep -c 'libcupti_cb_sde.so => ')" 1
run "sde_fake_read_linked, nothing preloaded: every case" "$prog"_linked
run "sde_fake_read second, the library loaded after libsde: -1 on both threads, no count" \
    env LD_PRELOAD="$lib/libsde.so.1 $SDE_LIB" SDE_AFTER_LIBSDE=1 "$prog" second

echo "1..$n"
[ "$fails" -eq 0 ]
