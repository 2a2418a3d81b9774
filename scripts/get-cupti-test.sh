#!/bin/bash
# get-cupti-test: what scripts/get-cupti prints and refuses, on directory trees laid out as
# pip leaves nvidia-cuda-cupti (no network, no pip).  With CUPTI_CB_TEST_WHEEL naming a
# downloaded nvidia_cuda_cupti wheel and pip present, it also installs that wheel into a
# temporary directory and checks the line names the library the wheel holds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gc=$here/get-cupti
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/test-lib.sh"

# A --target install of CUDA 13's package.
mkdir -p "$tmp/t13/nvidia/cu13/lib"
: > "$tmp/t13/nvidia/cu13/lib/libcupti.so.13"
check "--print on a --target tree" "$("$gc" --print "$tmp/t13")" \
    "export CUPTI_CB_CUPTI_LIB=$tmp/t13/nvidia/cu13/lib/libcupti.so.13"

# A venv holding both CUDA 12's and CUDA 13's packages: the newer library.
v=$tmp/venv/lib/python3.11/site-packages/nvidia
mkdir -p "$v/cuda_cupti/lib" "$v/cu13/lib"
: > "$v/cuda_cupti/lib/libcupti.so.12"
: > "$v/cu13/lib/libcupti.so.13"
check "--print on a venv with CUDA 12 and 13 packages: the 13" "$("$gc" --print "$tmp/venv")" \
    "export CUPTI_CB_CUPTI_LIB=$v/cu13/lib/libcupti.so.13"

# Relative paths come out absolute.
check "--print with a relative DIR" "$(cd "$tmp" && "$gc" --print t13)" \
    "export CUPTI_CB_CUPTI_LIB=$tmp/t13/nvidia/cu13/lib/libcupti.so.13"

# Nothing installed: exit 1 and a sentence.
mkdir -p "$tmp/empty"
err=$("$gc" --print "$tmp/empty" 2>&1 >/dev/null)
check "--print on an empty directory: exit status" "$("$gc" --print "$tmp/empty" >/dev/null 2>&1; echo $?)" 1
check "--print on an empty directory: the sentence" "${err%%:*}: ${err#*: }" \
    "get-cupti: no libcupti.so.N under $tmp/empty (nvidia/cu13/lib or nvidia/cuda_cupti/lib): is nvidia-cuda-cupti installed there?"
check "no argument: usage, exit status 2" "$("$gc" >/dev/null 2>&1; echo $?)" 2

wheel=${CUPTI_CB_TEST_WHEEL:-}
if [ -n "$wheel" ] && python3 -m pip --version >/dev/null 2>&1; then
    line=$("$gc" "$tmp/pip" "$wheel" 2>"$tmp/pip.log")
    lib=${line#export CUPTI_CB_CUPTI_LIB=}
    check "installing $wheel: the line names nvidia/cu13/lib/libcupti.so.13 under DIR" "$lib" \
        "$tmp/pip/nvidia/cu13/lib/libcupti.so.13"
    check "installing $wheel: that file is there" "$([ -s "$lib" ] && echo yes)" yes
else
    echo "# not installing a wheel: CUPTI_CB_TEST_WHEEL is not set, or python3 has no pip"
fi
tap_done
