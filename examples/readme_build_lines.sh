#!/bin/bash
# readme_build_lines.sh: each example's build line in the README, run as written against a
# prefix laid out as `make install` lays it out (include/papi.h, lib/libpapi.so) made of links
# to this build's PAPI, and the program it builds starts (without a GPU it says why and exits
# 0). The nvcc lines only where nvcc is (HAVE_NVCC_EXAMPLES). hl_regions had no line: the
# obvious one, without the CUDA runtime, does not link.
set -u
readme=${srcdir:-.}/../README.md
papi=${PAPI_BUILD:?PAPI_BUILD: the PAPI build}
cuda=${CUDA_DIR:?CUDA_DIR: the CUDA toolkit}
work=$(mktemp -d "${TMPDIR:-/tmp}/readme_lines.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include" "$work/lib" "$work/examples" || exit 99
# The headers PAPI installs (the development head adds papi_components_config_event_defs.h).
for h in papi.h papiStdEventDefs.h papi_components_config_event_defs.h; do
    [ -f "$papi/$h" ] && { ln -s "$papi/$h" "$work/include/" || exit 99; }
done
ln -s "$papi"/libpapi.so* "$work/lib/" || exit 99
cp "${srcdir:-.}"/*.c "${srcdir:-.}"/*.cu "$work/examples/" || exit 99
# The README's lines call nvcc by name, as a user with the toolkit on PATH does; configure
# may have found it elsewhere (/usr/local/cuda/bin), which is then put on PATH here.
case ${NVCC:-} in */*) PATH=${NVCC%/*}:$PATH; export PATH ;; esac
fails=0 n=0
for ex in count_region mixed_sources hl_regions; do
    line=$(grep -E "^    (nvcc|cc) -o $ex examples/" "$readme")
    n=$((n + 1))
    if [ -z "$line" ]; then echo "not ok $n - $ex: no build line in the README"; fails=$((fails + 1)); continue; fi
    case $line in *nvcc*) [ "${HAVE_NVCC_EXAMPLES:-no}" = yes ] || { echo "ok $n - $ex # SKIP no nvcc"; continue; } ;; esac
    if ! (cd "$work" && P=$work C=$cuda && eval "$line") > "$work/$ex.log" 2>&1; then
        echo "not ok $n - $ex: '$line' failed:"; sed 's/^/    /' "$work/$ex.log"; fails=$((fails + 1)); continue
    fi
    out=$(cd "$work" && LD_LIBRARY_PATH="$papi/libpfm4/lib" PAPI_EVENTS=cupti_cb:::memcpy.calls ./"$ex" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then echo "ok $n - $ex: built by the README's line, and ran"; else
        echo "not ok $n - $ex: built, but exited $rc:"; printf '%s\n' "$out" | sed 's/^/    /'; fails=$((fails + 1)); fi
done
echo "1..$n"
[ "$fails" -eq 0 ]
