#!/bin/bash
# debian-papi-test: scripts/debian-papi on a stand-in of Debian's unpacked packages and of an
# installed prefix (no packages, no network): the files land under their sonames with their
# contents, the versions come from the packages' changelogs, and each missing piece is one
# sentence and exit status 1, leaving a previous copy in place.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dp=$here/debian-papi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/test-lib.sh"

root=$tmp/root lib=$tmp/root/usr/lib/x86_64-linux-gnu
mkdir -p "$root/usr/bin" "$lib" "$tmp/prefix/lib"
for b in papi_command_line papi_native_avail papi_component_avail papi_avail; do
    echo "$b" > "$root/usr/bin/$b"; chmod +x "$root/usr/bin/$b"
done
echo papi > "$lib/libpapi.so.7.0.0.0"; ln -s libpapi.so.7.0.0.0 "$lib/libpapi.so.7.0"
echo sde > "$lib/libsde.so.1.0"; ln -s libsde.so.1.0 "$lib/libsde.so.1"
echo pfm > "$lib/libpfm.so.4.13.0"; ln -s libpfm.so.4.13.0 "$lib/libpfm.so.4"
mkdir -p "$root/usr/include"
echo papi.h > "$root/usr/include/papi.h"; echo defs > "$root/usr/include/papiStdEventDefs.h"
for p in libpapi7.0:7.0.0-2 papi-tools:7.0.0-2 libsde1:7.0.0-2 libpfm4:4.13.0-1 libpapi-dev:7.0.0-2; do
    mkdir -p "$root/usr/share/doc/${p%%:*}"
    echo "papi (${p#*:}) unstable; urgency=medium" | gzip > "$root/usr/share/doc/${p%%:*}/changelog.Debian.gz"
done
: > "$tmp/prefix/lib/libcupti_cb_sde.so"
d=$tmp/prefix/libexec/cupti_cb/debian-papi

out=$("$dp" --root "$root/" "$tmp/prefix" 2>&1)
check "a complete root: exit status" "$?" 0
check "the line it prints" "$out" \
    "debian-papi: Debian's PAPI is in $d (libpapi7.0 7.0.0-2 papi-tools 7.0.0-2 libsde1 7.0.0-2 libpfm4 4.13.0-1 libpapi-dev 7.0.0-2)"
check "the three utilities, nothing else" "$(ls "$d/bin" | tr '\n' ' ')" \
    "papi_command_line papi_component_avail papi_native_avail "
check "the libraries under their sonames, real files; libpapi.so a link" \
    "$(cd "$d/lib" && for f in *; do [ -L "$f" ] && echo "$f:$(readlink "$f")" || echo "$f:$(cat "$f")"; done | tr '\n' ' ')" \
    "libpapi.so:libpapi.so.7.0 libpapi.so.7.0:papi libpfm.so.4:pfm libsde.so.1:sde "
check "the headers a PAPI prefix has" "$(cat "$d/include/papi.h" "$d/include/papiStdEventDefs.h" | tr '\n' ' ')" "papi.h defs "
check "the utilities stay executable" "$([ -x "$d/bin/papi_command_line" ] && echo yes)" yes

rm "$lib/libsde.so.1"
err=$("$dp" --root "$root" "$tmp/prefix" 2>&1 >/dev/null); rc=$?
check "libsde1 missing: exit status" "$rc" 1
check "libsde1 missing: the sentence" "$err" \
    "debian-papi: libsde.so.1 is not under $root/usr/lib: install libpapi7.0 papi-tools libsde1 libpfm4 libpapi-dev (or give --root or --download)"
check "libsde1 missing: the previous copy stays whole" "$(cat "$d/lib/libsde.so.1" 2>&1)" sde

rm -rf "$tmp/prefix/lib/libcupti_cb_sde.so"
err=$("$dp" --root "$root" "$tmp/prefix" 2>&1 >/dev/null); rc=$?
check "a prefix without libcupti_cb_sde.so: exit status and sentence" "$rc: $err" \
    "1: debian-papi: $tmp/prefix/lib/libcupti_cb_sde.so is missing: install a cupti_cb that builds it ('make install')"
check "no PREFIX: usage, exit status 2" "$("$dp" --root "$root" >/dev/null 2>&1; echo $?)" 2
tap_done
