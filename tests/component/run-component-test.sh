#!/bin/sh
# run-component-test.sh PROGRAM: runs one of the component's own tests (components/cupti_cb/tests/,
# built by PAPI's make) as PAPI's run_tests.sh does (with TESTS_QUIET), and turns what PAPI's
# test library prints into an exit status for make check: "PASSED" with exit status 0 is a pass;
# "SKIPPED" is a skip (77), or a failure when CUPTI_CB_COMPONENT_TESTS_MUST_RUN=1; anything
# else (FAILED, PASSED with WARNING, a crash) is a failure.
prog=$1
if [ ! -x "$prog" ]; then
    echo "$prog: not built (PAPI's make builds it: run make at the top of the tree)" >&2
    exit 1
fi
out=$("$prog" TESTS_QUIET 2>&1)
rc=$?
printf '%s\n' "$out"
last=$(printf '%s\n' "$out" | sed -n '$p' | sed 's/\x1b\[[0-9;]*m//g; s/^ *//; s/ *$//')
if [ "$rc" -ne 0 ]; then
    echo "$prog: exit status $rc" >&2
    exit 1
fi
case $last in
PASSED) exit 0 ;;
SKIPPED)
    if [ "${CUPTI_CB_COMPONENT_TESTS_MUST_RUN:-0}" = 1 ]; then
        echo "$prog: SKIPPED, but the component must be enabled here (through the fakes)" >&2
        exit 1
    fi
    exit 77 ;;
*)
    echo "$prog: the last line is \"$last\", not PASSED" >&2
    exit 1 ;;
esac
