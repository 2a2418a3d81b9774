#!/bin/bash
# check-papi-test: scripts/check-papi's command line (what it refuses, before copying or building
# anything) and its counts of a make -k check log (--count), on a made-up log of two test
# directories, one of which failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cp=$here/check-papi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/test-lib.sh"

status() { "$@" >/dev/null 2>&1; echo $?; }
stderr() { "$@" 2>&1 >/dev/null; }

check "--help: exit status 0" "$(status "$cp" --help)" 0
check "--help: the usage on stdout" "$("$cp" --help | grep -c '^Usage: scripts/check-papi')" 1
check "no argument: exit status 2" "$(status "$cp")" 2
check "no argument: the usage on stderr" "$(stderr "$cp" | grep -c '^Usage: scripts/check-papi')" 1
check "an unknown option: exit status 2" "$(status "$cp" --bogus "$tmp")" 2
check "an unknown option: the sentence" "$(stderr "$cp" --bogus "$tmp")" \
    "check-papi: unknown option '--bogus' (check-papi --help lists the options)"
check "two trees: exit status 2" "$(status "$cp" "$tmp" "$tmp")" 2
check "--dir without its value: exit status 2" "$(status "$cp" --dir)" 2
check "a tree that does not exist: exit status 1" "$(status "$cp" "$tmp/none")" 1
check "a tree that does not exist: the sentence" "$(stderr "$cp" "$tmp/none")" \
    "check-papi: $tmp/none is not a directory"
mkdir -p "$tmp/notpapi/src"
check "a directory that is not a PAPI tree: the sentence" "$(stderr "$cp" "$tmp/notpapi")" \
    "check-papi: $tmp/notpapi is not a PAPI source tree: it has no src/configure and src/papi.h"
: > "$tmp/notpapi/src/configure"
echo '#define PAPI_VER_CURRENT 7' > "$tmp/notpapi/src/papi.h"
check "a papi.h without PAPI_VERSION: the sentence" "$(stderr "$cp" "$tmp/notpapi")" \
    "check-papi: $tmp/notpapi/src/papi.h defines no PAPI_VERSION"
mkdir -p "$tmp/papi/src" "$tmp/taken"
: > "$tmp/papi/src/configure"
printf '#define PAPI_VERSION  \t\t\tPAPI_VERSION_NUMBER(7,2,0,0)\n' > "$tmp/papi/src/papi.h"
# The rest of the refusals come after the commit to copy is known: only in a git work tree.
top=$(cd "$here/.." && pwd)
if git -C "$top" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    check "--commit that is not one: exit status 1" "$(status "$cp" --commit no-such-rev "$tmp/papi")" 1
    check "--commit that is not one: the sentence" "$(stderr "$cp" --commit no-such-rev "$tmp/papi")" \
        "check-papi: no-such-rev is not a commit of $top"
    check "--dir that exists: exit status 1" "$(status "$cp" --dir "$tmp/taken" "$tmp/papi")" 1
    check "--dir that exists: the sentence, nothing copied" \
        "$(stderr "$cp" --dir "$tmp/taken" "$tmp/papi"; ls -A "$tmp/taken")" \
        "check-papi: $tmp/taken exists: --dir takes a directory to create"
else
    check "outside a git work tree: the sentence" "$(stderr "$cp" "$tmp/papi")" \
        "check-papi: $top is not a git checkout: the copy under test is made with git clone"
fi

# A log as make -k check writes it: the top, then two test directories with automake's
# summaries (the second with a failure and an error, after a sub-make in another directory that
# has ended), and a summary-like line that is not one.
cat > "$tmp/check.log" <<'LOG'
make[1]: Entering directory '/b/cupti_cb'
make[2]: Entering directory '/b/cupti_cb/tests/runner'
PASS: run_hl.sh
SKIP: run_mpi.sh
# TOTAL: 3
# PASS:  2
# SKIP:  1
# XFAIL: 0
# FAIL:  0
# XPASS: 0
# ERROR: 0
make[2]: Leaving directory '/b/cupti_cb/tests/runner'
make[2]: Entering directory '/b/cupti_cb/tests/component'
PASS: cupti_cb_listed
make[3]: Entering directory '/b/cupti_cb/tests/fakes'
make[3]: Nothing to be done for 'fakes'.
make[3]: Leaving directory '/b/cupti_cb/tests/fakes'
FAIL: cupti_cb_read_zero
ERROR: cupti_cb_bad_name
# TOTAL: 3
# PASS:  1
# SKIP:  0
# XFAIL: 0
# FAIL:  1
# XPASS: 0
# ERROR: 1
# PASS: 7 is not a summary line
make[2]: Leaving directory '/b/cupti_cb/tests/component'
LOG
check "--count: the totals" "$("$cp" --count "$tmp/check.log" | sed -n 1p)" \
    "3 passed, 1 failed, 1 skipped, 1 errors, 0 xfail, 0 xpass (6 in all)"
check "--count: the tests that failed, with their directories" "$("$cp" --count "$tmp/check.log" | sed -n 2p)" \
    "failed: tests/component/cupti_cb_read_zero tests/component/cupti_cb_bad_name"
check "--count of a file that cannot be read: exit status 1" "$(status "$cp" --count "$tmp/none.log")" 1
tap_done
