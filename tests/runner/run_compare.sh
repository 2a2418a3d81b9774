#!/bin/sh
# run_compare: --compare BASELINE.json with --fail-above rules. The same
# run passes (0); one more cudaMemcpy against calls:cudaMemcpy=0% fails
# with 3 and a table (baseline, now, change, threshold); growth under a
# threshold passes; a failing program keeps its own status; the default
# rules; calls:* compares each function; bad rules exit 2 with a sentence,
# and so does a rule whose function, metric or event neither report has.
. "$LIB_SH"

rc 0 "$RUNNER" -o /dev/null --json base.json -- "$FAKE_APP" a

rc 0 "$RUNNER" -o t.txt --compare base.json --fail-above 'calls:cudaMemcpy=0%,time:total=10%' -- "$FAKE_APP" a
line t.txt "Comparison with base.json: 2 quantities, 0 regressed"
row t.txt "calls:cudaMemcpy 3 3 0.0 0 ok"
test -s err && fail "a passing comparison wrote to standard error: $(cat err)"

SPEC='calls:cudaMemcpy=0%,time:total=10%,bytes:htod=5%,kernels:launches=0%'
rc 3 "$RUNNER" -o t.txt --compare base.json --fail-above "$SPEC" -- "$FAKE_APP" more
line t.txt "Comparison with base.json: 4 quantities, 1 regressed"
row t.txt "Quantity Baseline Now Change (%) Threshold (%) Result"
row t.txt "calls:cudaMemcpy 3 4 +33.3 0 REGRESSED"
row t.txt "time:total 1400000 1500000 +7.1 10 ok"
row t.txt "bytes:htod 4096 4196 +2.4 5 ok"
row t.txt "kernels:launches 4 4 0.0 0 ok"
line err "cupti_cb_run: 1 quantity regressed against base.json"
# The tables are still there, before the comparison.
row t.txt "77.8 700000 4 175000.0 100000 300000 0 cudaMemcpy"

# Looser thresholds: the same growth passes.
rc 0 "$RUNNER" -o t.txt --compare base.json --fail-above 'calls:cudaMemcpy=34%,time:total=7.2%' -- "$FAKE_APP" more
row t.txt "calls:cudaMemcpy 3 4 +33.3 34 ok"
row t.txt "time:total 1400000 1500000 +7.1 7.2 ok"

# Less is never a regression.
rc 0 "$RUNNER" -o /dev/null --json more.json -- "$FAKE_APP" more
rc 0 "$RUNNER" -o t.txt --compare more.json --fail-above 'calls:cudaMemcpy=0%' -- "$FAKE_APP" a
row t.txt "calls:cudaMemcpy 4 3 -25.0 0 ok"

# From zero: any growth regresses.
rc 3 "$RUNNER" -o t.txt --compare base.json --fail-above 'calls:cudaMalloc=1000%' -- "$FAKE_APP" a b
row t.txt "calls:cudaMalloc 0 1 +inf 1000 REGRESSED"

# A rule whose function, metric or event neither report has compares
# nothing: refused after the run with exit 2, one sentence per rule, and no
# comparison (a misspelt name must not pass a gate). One report is enough
# (cudaMalloc above, only in this run).
NOSUCH='calls:cudaFoo=0%,metric:nope.sum=0,event:api.calls=0,calls:cudaMemcpy=0%,kernels:graphs=0%'
rc 2 "$RUNNER" -o t.txt --compare base.json --fail-above "$NOSUCH" -- "$FAKE_APP" a
line err "cupti_cb_run: --fail-above 'calls:cudaFoo': neither base.json nor this report has the CUDA function cudaFoo, so the rule compares nothing (is the name misspelt?)"
line err "cupti_cb_run: --fail-above 'metric:nope.sum': neither base.json nor this report has the hardware metric nope.sum, so the rule compares nothing (is the name misspelt?)"
line err "cupti_cb_run: --fail-above 'event:api.calls': neither base.json nor this report has the device event api.calls, so the rule compares nothing (is the name misspelt?)"
test "$(wc -l < err)" = 3 || fail "not one sentence per unmatched rule: $(cat err)"
noline t.txt "Comparison with"
rc 2 "$RUNNER" --report base.json -o /dev/null --compare base.json --fail-above 'time:cudaFoo=5%'
line err "cupti_cb_run: --fail-above 'time:cudaFoo': neither base.json nor this report has the CUDA function cudaFoo, so the rule compares nothing (is the name misspelt?)"
# A failing program keeps its own status, as with a regression.
rc 5 "$RUNNER" -o /dev/null --compare base.json --fail-above 'calls:cudaFoo=0%' -- "$FAKE_APP" -x 5 a
line err "cupti_cb_run: --fail-above 'calls:cudaFoo': neither base.json nor this report has the CUDA function cudaFoo, so the rule compares nothing (is the name misspelt?)"

# The program failed: its status, not 3, with the table all the same.
rc 4 "$RUNNER" -o t.txt --compare base.json --fail-above "$SPEC" -- "$FAKE_APP" -x 4 more
line t.txt "Comparison with base.json: 4 quantities, 1 regressed"

# Default rules: calls:total, errors:total, kernels:launches, bytes:total at 0%.
rc 3 "$RUNNER" -o t.txt --compare base.json -- "$FAKE_APP" more
line t.txt "Comparison with base.json: 4 quantities, 2 regressed"
row t.txt "calls:total 12 13 +8.3 0 REGRESSED"
row t.txt "errors:total 1 1 0.0 0 ok"
row t.txt "bytes:total 6144 6244 +1.6 0 REGRESSED"

# calls:* : each function of either run.
rc 3 "$RUNNER" -o t.txt --compare base.json --fail-above 'calls:*=0%' -- "$FAKE_APP" more
line t.txt "Comparison with base.json: 4 quantities, 1 regressed"
row t.txt "calls:cuLaunchKernel 3 3 0.0 0 ok"
row t.txt "calls:cudaMemcpy 3 4 +33.3 0 REGRESSED"

# event: and kernels: names.
rc 0 "$RUNNER" -o t.txt --compare base.json --fail-above 'event:sync.time_ns=0%,kernels:gpu_time=0%' -- "$FAKE_APP" a
row t.txt "event:sync.time_ns 50000 50000 0.0 0 ok"
row t.txt "kernels:gpu_time 400000 400000 0.0 0 ok"

# Nothing measured: the program's status, and a sentence.
rc 0 "$RUNNER" --compare base.json -- "$FAKE_APP" none
line err "cupti_cb_run: --compare: there is nothing to compare with base.json."

# Bad rules: exit 2, one sentence, the program is not run.
bad() {
	rc 2 "$RUNNER" --compare base.json --fail-above "$1" -- "$FAKE_APP" -e ran.txt a
	line err "cupti_cb_run: --fail-above: '$2': $3 (example: calls:cudaMemcpy=0%,time:total=10%)"
	test -f ran.txt && fail "the program ran despite --fail-above '$1'"
	rm -f ran.txt
}
bad 'time:total=ten%' 'time:total=ten%' 'the threshold must be a number of percent, such as 10% or 0.5%'
bad 'calls:total=5%,speed:x=1%' 'speed:x=1%' 'the kind must be one of calls, time, errors, bytes, kernels, event, metric'
bad 'calls=5%' 'calls=5%' 'a rule is KIND:NAME=PCT%'
bad 'bytes:sideways=1%' 'bytes:sideways=1%' 'bytes takes htod, dtoh, dtod, htoh, peer, total, memset, alloc or free'
bad 'kernels:blocks=1%' 'kernels:blocks=1%' 'kernels takes launches, threads, graphs, gpu or gpu_time'
bad 'calls:cuda Memcpy=1%' 'calls:cuda Memcpy=1%' 'the name must be a CUDA function, total or *'
bad 'time:total=-5%' 'time:total=-5%' 'the threshold must be a number of percent, such as 10% or 0.5%'
bad 'time:total=5%%' 'time:total=5%%' 'the threshold must be a number of percent, such as 10% or 0.5%'
bad 'event:=5%' 'event:=5%' 'the name is empty or has a character no event name has'
rc 2 "$RUNNER" --compare base.json --fail-above '' -- true
line err "cupti_cb_run: --fail-above: the list is empty; the form is KIND:NAME=PCT%[,...]"
rc 2 "$RUNNER" --compare missing.json -- true
line err "cupti_cb_run: --compare missing.json: the file cannot be read: No such file or directory"
echo '{"schema": "cupti_cb_run/1"}' > nothing.json
rc 2 "$RUNNER" --compare nothing.json -- true
line err "cupti_cb_run: --compare nothing.json: it has neither \"process\" nor \"processes\""
finish
