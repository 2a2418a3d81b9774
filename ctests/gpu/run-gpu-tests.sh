#!/bin/bash
# run-gpu-tests: runs the installed cupti_cb PAPI-level tests (cpu_*, gpu_* in this directory),
# or only the ones named on the command line, and prints PASS/FAIL/SKIP with each test's output.
# Exit status 77 is SKIP.  Each test may run CTEST_TIMEOUT seconds (default 600).
# CUPTI_CB_TEST_CUPTI, if set, names a libcupti of CUDA 13.2 or newer (scripts/get-cupti):
# gpu_multiple_subscribers runs cupti_cb beside another CUPTI subscriber with it, and SKIPs without it.
# The last line is "N passed, N failed, N skipped"; the exit status is 1 if any test failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
timeout_s=${CTEST_TIMEOUT:-600}

# What the results belong to: the commit the installed build was made from
# (<prefix>/share/cupti_cb/commit, written by make install), when and where.
commit=unknown commit_file=
for f in "$here/../../../share/cupti_cb/commit" "@pkgdatadir@/commit"; do
    if [ -r "$f" ]; then commit=$(head -n 1 "$f"); commit_file=$(cd "$(dirname "$f")" && pwd)/commit; break; fi
done
echo "# cupti_cb commit: $commit${commit_file:+ ($commit_file)}"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# host: $(hostname)"
devices=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/, / driver /')
if [ -n "$devices" ]; then
    printf '%s\n' "$devices" | sed 's/^/# device: /'
else
    echo "# device: none (nvidia-smi lists no GPU)"
fi
if [ -n "${CUPTI_CB_TEST_CUPTI:-}" ]; then
    if [ -r "$CUPTI_CB_TEST_CUPTI" ]; then
        export CUPTI_CB_TEST_CUPTI
        echo "# libcupti for gpu_multiple_subscribers: $CUPTI_CB_TEST_CUPTI"
    else
        echo "# CUPTI_CB_TEST_CUPTI=$CUPTI_CB_TEST_CUPTI is not there: gpu_multiple_subscribers will SKIP"
        unset CUPTI_CB_TEST_CUPTI
    fi
fi
# A status above 128 is the shell's report of a signal that killed the test:
# say which and what it means, so that a crash is never only a number.
crash_sentence() {
    local rc=$1 sig
    [ "$rc" -gt 128 ] || return 0
    sig=$(kill -l "$((rc - 128))" 2>/dev/null) || return 0
    case $sig in
    SEGV|BUS|ILL|FPE|ABRT)
        echo ": it crashed (SIG$sig), in the test or in a library it called (libpapi, libcupti, the driver); its output up to the crash is below, and running it alone under gdb or with a core dump shows where" ;;
    KILL) echo ": it was killed (SIGKILL), by the kernel's out-of-memory killer or by someone else" ;;
    *) echo ": it was killed by SIG$sig" ;;
    esac
}
run_limited() {
    if command -v timeout >/dev/null 2>&1; then timeout "$timeout_s" "$@"; else "$@"; fi
}

if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=()
    for t in "$here"/cpu_* "$here"/gpu_*; do
        [ -f "$t" ] && [ -x "$t" ] && tests+=("$(basename "$t")")
    done
fi

pass=0 fail=0 skip=0
for name in "${tests[@]}"; do
    out=$(cd "$here" && run_limited "./$name" 2>&1)
    rc=$?
    case $rc in
    0) result=PASS; pass=$((pass + 1)) ;;
    77) result=SKIP; skip=$((skip + 1)) ;;
    124) result=FAIL; fail=$((fail + 1)); out+=$'\n'"(timed out after ${timeout_s} s)" ;;
    *) result=FAIL; fail=$((fail + 1)) ;;
    esac
    echo "$result: $name (exit $rc)$(crash_sentence "$rc")"
    printf '%s\n' "$out" | sed 's/^/    /'
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
