#!/bin/sh
# run_timeline: --timeline FILE writes a Chrome trace of the run. Run through the runner,
# the injected library and libpapi with cupti_cb on the CPU: ctests's
# cpu_fake_timeline_app makes known CUDA calls on two threads at known times of its frozen
# clock and plays the GPU records of their work on CUPTI's clock (the fake's, offset from
# CLOCK_MONOTONIC as the real one is): timeline_check.py compares every span, flow, track
# name and order with what it played (the GPU spans to the ns, the host spans' lengths to
# the ns, the two clocks' alignment within 50 us). With --interval the live view's counts
# become counter tracks whose intervals add up to the calls made. Calls that a full ring
# leaves out are counted: with the spans they are every call made. Two processes share the
# file, their flows apart. --timeline-limit stops
# the file at a size or a time and says so; bad values and combinations are refused.
. "$LIB_SH"

if ! test -x "$FAKE_TIMELINE_APP" || ! test -r "$INJ_LIB"; then
	fail "$FAKE_TIMELINE_APP or $INJ_LIB is missing (build ctests and src/inject first)"
	finish
fi
# The component's clock is CLOCK_MONOTONIC, which the application freezes.
CUPTI_CB_CLOCK=monotonic
# The fake CUPTI's clock reads about CLOCK_REALTIME, as the real one: not the component's.
CUPTI_CB_FAKE_CUPTI_CLOCK=realtime
export CUPTI_CB_CLOCK CUPTI_CB_FAKE_CUPTI_CLOCK
PYTHON=${PYTHON:-python3}

rc 0 "$RUNNER" -o t.txt --json r.json --timeline tl.json -- "$FAKE_TIMELINE_APP"
played=$(grep '^G ' out)
"$PYTHON" "$TIMELINE_CHECK" tl.json "$played" > check.txt || { fail "timeline_check.py:"; cat check.txt; }
js r.json /status/counting true
js r.json '/api[function=cudaLaunchKernel]/calls' 1
noline t.txt "note: timeline"

# Counter tracks: the live view's counts per interval, which add up to the run's.
APP_LIVE_MS=120 rc 0 "$RUNNER" --interval 20ms -o t.txt --timeline c.json -- "$FAKE_TIMELINE_APP"
sums=$("$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = {}
for e in ev:
    if e["ph"] == "C":
        s[e["name"]] = s.get(e["name"], 0) + e["args"]["value"]
print(s.get("api.calls per interval"), s.get("kernel.launches per interval"), s.get("memcpy.bytes per interval"),
      "gpu.busy %" in s)' c.json)
test "$sums" = "3 1 1000 True" || fail "counter tracks add up to '$sums', not '3 1 1000 True'"

# 100,000 more launches as fast as the fakes take them, faster than the timeline's thread
# empties a thread's ring: every call is in the file or counted in the note, none is lost.
APP_LAUNCHES=100000 rc 0 "$RUNNER" -o t.txt --timeline b.json -- "$FAKE_TIMELINE_APP"
spans=$("$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(e["ph"] == "X" and e["name"] in ("cudaLaunchKernel", "cuLaunchKernel") for e in ev))' b.json)
left=$(sed -n 's/.*note: timeline: \([0-9]*\) CUDA calls were left out.*/\1/p' t.txt)
test "$((spans + ${left:-0}))" = 200002 ||
	fail "b.json has $spans launch spans and the note $left calls left out: not the 200,002 made"

# Two processes of a run append to one file: each has its spans, and their flows, which have
# the same correlation ids, are told apart by their names.
APP_SPAWN=1 rc 0 "$RUNNER" -o t.txt --timeline p.json -- "$FAKE_TIMELINE_APP"
pids=$(grep '^G ' out | awk '{ printf "%s ", $3 }')
got=$("$PYTHON" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
pids = [int(p) for p in sys.argv[2].split()]
host = [sum(e["ph"] == "X" and e["pid"] == p for e in ev) for p in pids]
gpu = sum(e["ph"] == "X" and e["pid"] == 0 for e in ev)
s = {(e["id"], e["name"]): e["pid"] for e in ev if e["ph"] == "s"}
f = {(e["id"], e["name"]) for e in ev if e["ph"] == "f"}
own = all(name == "ac2g %d" % p for (i, name), p in s.items())
print(host, gpu, len(s), set(s) == f, own)' p.json "$pids")
test "$got" = "[6, 6] 6 6 True True" ||
	fail "two processes ($pids): host spans, GPU spans, flows, flows paired, named by their process: '$got'"

# A size limit: the file stops before it, valid, and the report says so.
rc 0 "$RUNNER" -o t.txt --timeline s.json --timeline-limit 1K -- "$FAKE_TIMELINE_APP"
"$PYTHON" -c 'import json, sys; json.load(open(sys.argv[1]))' s.json || fail "s.json is not JSON"
size=$(wc -c < s.json)
test "$size" -le 1500 || fail "s.json has $size bytes, past its limit of 1024 (and the tail)"
grep -Fq "timeline: stopped when the file reached its limit of 1024 bytes (--timeline-limit)" t.txt ||
	fail "t.txt does not say that the timeline stopped at its size"
# A time limit shorter than the program's start-up: nothing after it.
rc 0 "$RUNNER" -o t.txt --timeline m.json --timeline-limit 1ms -- "$FAKE_TIMELINE_APP"
n=$("$PYTHON" -c 'import json, sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' m.json)
test "$n" = 0 || fail "m.json has $n spans after its time limit"
grep -Fq "timeline: stopped 1 ms after the run's start (--timeline-limit)" t.txt ||
	fail "t.txt does not say that the timeline stopped at its time"

# Refused before the program runs.
rc 2 "$RUNNER" --timeline x.json --timeline-limit 12X -- "$FAKE_TIMELINE_APP"
line err "cupti_cb_run: --timeline-limit '12X': give a size such as 500M or 2G, or a time such as 30s (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --timeline x.json --no-time -- "$FAKE_TIMELINE_APP"
line err "cupti_cb_run: --timeline needs the calls' host times: leave out --no-time (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --timeline-limit 1G -- "$FAKE_TIMELINE_APP"
line err "cupti_cb_run: --timeline-limit needs --timeline FILE (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --timeline /nonexistent/x.json -- "$FAKE_TIMELINE_APP"
line err "cupti_cb_run: --timeline: cannot write /nonexistent/x.json: No such file or directory"
test -e out && grep -q '^G ' out && fail "the program ran although its --timeline file cannot be written"
finish
