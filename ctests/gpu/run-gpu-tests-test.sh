#!/bin/bash
# run-gpu-tests-test.sh: the GPU suite's driver (run-gpu-tests, as built) on
# stand-in tests, no GPU needed: a pass, a skip, a failure, and tests killed
# by SIGSEGV and SIGABRT.  Each result line must say what happened: a crash is
# never reported as a bare exit status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/test-lib.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp run-gpu-tests "$dir/" 2>/dev/null || cp "$here/run-gpu-tests" "$dir/"
mk() { printf '#!/bin/bash\n%s\n' "$2" > "$dir/$1"; chmod +x "$dir/$1"; }
mk cpu_pass 'echo fine; exit 0'
mk cpu_skip 'echo "no GPU"; exit 77'
mk cpu_fail 'echo "kernel.launches 9, want 10"; exit 1'
mk gpu_segv 'echo "before the crash"; kill -SEGV $$'
mk gpu_abrt 'kill -ABRT $$'

out=$("$dir/run-gpu-tests" 2>&1)
rc=$?
line() { printf '%s\n' "$out" | grep -m1 "^[A-Z]*: $1 " ; }

check "exit status with failures" "$rc" 1
check "summary" "$(printf "%s\n" "$out" | tail -n 1)" "1 passed, 3 failed, 1 skipped"
check "a pass" "$(line cpu_pass)" "PASS: cpu_pass (exit 0)"
check "a skip" "$(line cpu_skip)" "SKIP: cpu_skip (exit 77)"
check "a failure" "$(line cpu_fail)" "FAIL: cpu_fail (exit 1)"
case $(line gpu_segv) in
"FAIL: gpu_segv (exit 139): it crashed (SIGSEGV), in the test or in a library it called"*) r=named ;;
*) r="$(line gpu_segv)" ;;
esac
check "a SIGSEGV is named as a crash" "$r" named
case $(line gpu_abrt) in
"FAIL: gpu_abrt (exit 134): it crashed (SIGABRT)"*) r=named ;;
*) r="$(line gpu_abrt)" ;;
esac
check "a SIGABRT is named as a crash" "$r" named
check "the crashed test's output is kept" "$(printf '%s\n' "$out" | grep -c '^    before the crash$')" 1
tap_done
