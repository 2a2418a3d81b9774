#!/bin/sh
# run_bad_input: a baseline (--compare) or a report (--report) that is not
# what the schema says is refused with exit status 2 and a sentence that
# names the file, the row and the field; nothing crashes. Each case below
# ended in a segmentation fault (exit 139) or in a wrong verdict before
# the files were checked:
#  - an api row without "function", with a calls: rule (--compare);
#  - a metric without "name", with a metric: rule (--compare);
#  - two metrics with the same non-string name (--compare and --report);
#  - two api rows without "function" and equal times (--report);
#  - a negative count (a negative baseline never regressed);
#  - counts whose sum over files does not fit in 64 bits (wrapped around).
. "$LIB_SH"

rc 0 "$RUNNER" -o /dev/null --json base.json -- "$FAKE_APP" a
H='"schema": "cupti_cb_run/1", "processes": [{"pid": 1}], "status": {"counting": true}, "totals": {}'
doc() {
	printf '{%s, "api": [%s], "devices": [%s], "metrics": [%s]}\n' "$H" "$2" "$3" "$4" > "$1"
}
doc nofunc.json '{"layer": "runtime", "calls": 1, "time_ns": 5}' '' ''
doc noname.json '' '' '{"device": 0, "value": 1}'
doc samename.json '' '' '{"name": 5, "device": 0, "value": 1}, {"name": 5, "device": 0, "value": 2}'
doc twonofunc.json '{"layer": "runtime", "calls": 1, "time_ns": 5}, {"layer": "runtime", "calls": 2, "time_ns": 5}' '' ''
doc neg.json '{"function": "cudaMemcpy", "layer": "runtime", "calls": -5, "time_ns": 5}' '' ''
doc negdev.json '' '{"device": 0, "events": {"kernel.launches": -1}}' ''
doc realcount.json '' '{"device": 0, "events": {"kernel.launches": 2.5}}' ''
doc negmetric.json '' '' '{"name": "dram__bytes_read.sum", "device": 0, "value": -4.5}'
doc huge.json '{"function": "cudaMemcpy", "layer": "runtime", "calls": 9223372036854775807, "time_ns": 5}' '' ''
printf '{"schema": "cupti_cb_run/1", "processes": [{"pid": 1, "argv": [1, 2]}]}\n' > argv.json
# Found by fuzz_report: a devices row without "events" crashed the check itself.
doc noevents.json '' '{"device": 0, "avents": {}}' ''

# cmp FILE RULES WHY: --compare FILE refused before the program runs.
cmp() {
	rc 2 "$RUNNER" -o /dev/null --compare "$1" --fail-above "$2" -- "$FAKE_APP" -e ran.txt a
	line err "cupti_cb_run: --compare $1: $3"
	test -f ran.txt && fail "the program ran with the baseline $1"
	rm -f ran.txt
}
cmp nofunc.json 'calls:cudaMemcpy=0%' 'api row 0 has no "function" (a CUDA function'"'"'s name)'
cmp noname.json 'metric:dram__bytes_read.sum=0%' 'metrics row 0 has no "name" (a metric'"'"'s name)'
cmp samename.json 'calls:total=0%' 'metrics row 0 has no "name" (a metric'"'"'s name)'
cmp neg.json 'calls:cudaMemcpy=0%' 'api row 0 (cudaMemcpy): "calls" is negative, not a count (an integer >= 0)'
cmp negdev.json 'kernels:launches=0%' 'devices row 0 (device 0) "events": "kernel.launches" is negative, not a count (an integer >= 0)'
cmp realcount.json 'kernels:launches=0%' 'devices row 0 (device 0) "events": "kernel.launches" is a real number, not a count (an integer >= 0)'
cmp negmetric.json 'metric:dram__bytes_read.sum=0%' 'metrics row 0 (dram__bytes_read.sum): "value" is negative, not a number >= 0'
cmp noevents.json 'kernels:launches=0%' 'devices row 0 (device 0) "events" is missing, not an object'
cmp argv.json 'calls:total=0%' 'processes row 0: "argv" is not an array of strings'

# rep WHY FILE...: --report refused.
rep() {
	sentence=$1
	shift
	rc 2 "$RUNNER" --report "$@"
	line err "cupti_cb_run: $sentence"
}
rep '--report samename.json: metrics row 0 has no "name" (a metric'"'"'s name)' samename.json
rep '--report twonofunc.json: api row 0 has no "function" (a CUDA function'"'"'s name)' twonofunc.json
rep '--report huge.json: api row 0 (cudaMemcpy): "calls": the sum over the files exceeds 9223372036854775807' \
	base.json huge.json huge.json
# One file alone fits: it is taken as it is.
rc 0 "$RUNNER" --report huge.json --json h.json
js h.json '/api[function=cudaMemcpy]/calls' 9223372036854775807

# A process file of the run that is not valid is left out, with the sentence; the others count.
rc 0 "$RUNNER" -o /dev/null --json t.json -- sh -c 'cp neg.json "$CUPTI_CB_RUN_DIR/proc-7.json"; "$0" a' "$FAKE_APP"
line err "cupti_cb_run: proc-7.json is left out: api row 0 (cudaMemcpy): \"calls\" is negative, not a count (an integer >= 0)"
js t.json /processes/# 1
js t.json '/api[function=cudaMemcpy]/calls' 3
finish
