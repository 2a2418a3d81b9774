#!/usr/bin/env python3
"""timeline_check.py: the exact checks of run_timeline.sh on a --timeline file of
cpu_fake_timeline_app (ctests/cpu_fake_timeline_app.c says what it plays).

    timeline_check.py FILE "G PID WORKER_TID C1 C2 C3"   (the application's line)

Every span, flow, name and order is compared with what the application played: the GPU spans
exactly (their times pass through), the host spans' durations and their offsets on their
thread exactly (to the ns, give or take one of rounding), and the host spans against the GPU
spans within ALIGN_NS, which is the error of the clocks' alignment (anchors read by another
thread while this one's clock is frozen). Prints one line per failed check; exits 1 if any."""
import json
import sys

ALIGN_NS = 50000  # the GPU work starts 490 us or more after its launch ends: far above it

fails = []


def check(what, ok):
    if not ok:
        fails.append(what)
        print("FAIL: " + what)


def ns(us):
    """A time of the file (us, three decimals) in ns, exactly."""
    return round(us * 1000)


def main():
    path, line = sys.argv[1], sys.argv[2].split()
    G, pid, wtid, c1, c2, c3 = (int(x) for x in line[1:7])
    with open(path) as f:
        doc = json.load(f)
    check("the file is an object with traceEvents", isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list))
    check("displayTimeUnit is ns", doc.get("displayTimeUnit") == "ns")
    t0 = doc.get("otherData", {}).get("origin_ns")
    check("otherData.origin_ns is an integer", isinstance(t0, int))
    ev = doc["traceEvents"]
    for e in ev:
        check("every event has ph and pid: %r" % e, "ph" in e and "pid" in e)
    g = G - t0  # the application's start on the trace's time line, ns

    # ---- spans: host (pid, tid) and GPU (device, stream), exactly these, in this order
    host_main = [("cuda_runtime", "cudaLaunchKernel", 0, 10000, c1),
                 ("cuda_driver", "cuLaunchKernel", 1000, 6000, c1),
                 ("cuda_runtime", "cudaMemcpy", 20000, 30000, c2),
                 ("cuda_driver", "cuMemcpyHtoD", 25000, 20000, c2)]
    host_worker = [("cuda_runtime", "cudaMemset", 100000, 5000, c3),
                   ("cuda_driver", "cuMemsetD8", 101000, 3000, c3)]
    gpu7 = [("kernel", "void scale<float>(float*, int)", 500000, 30000, c1),
            ("gpu_memcpy", "Memcpy HtoD", 600000, 5000, c2)]
    gpu9 = [("gpu_memset", "Memset", 700000, 2500, c3)]
    want = {(pid, pid): host_main, (pid, wtid): host_worker, (0, 7): gpu7, (0, 9): gpu9}
    spans = {}
    for e in ev:
        if e["ph"] == "X":
            spans.setdefault((e["pid"], e.get("tid")), []).append(e)
    check("spans on exactly the tracks %s (got %s)" % (sorted(want), sorted(spans)), set(spans) == set(want))
    first = {}
    for track, rows in want.items():
        got = sorted(spans.get(track, []), key=lambda e: e["ts"])
        check("track %s: %d spans (got %d)" % (track, len(rows), len(got)), len(got) == len(rows))
        for (cat, name, off, dur, corr), e in zip(rows, got):
            at = "track %s, %s" % (track, name)
            check(at + ": name, in order (got %s)" % e["name"], e["name"] == name)
            check(at + ": cat %s (got %s)" % (cat, e.get("cat")), e.get("cat") == cat)
            check(at + ": dur %d ns (got %s us)" % (dur, e["dur"]), ns(e["dur"]) == dur)
            check(at + ": correlation %d (got %s)" % (corr, e["args"].get("correlation")),
                  e["args"].get("correlation") == corr)
            if track[0] == 0:
                check(at + ": ts exactly the record's (%d ns, got %s us)" % (g + off, e["ts"]),
                      ns(e["ts"]) == g + off)
                check(at + ": args device 0, stream %d" % track[1],
                      e["args"].get("device") == 0 and e["args"].get("stream") == track[1])
            else:
                first.setdefault(track, (off, ns(e["ts"])))
                off0, ts0 = first[track]
                check(at + ": %d ns after the first span of its thread (got %d)" % (off - off0, ns(e["ts"]) - ts0),
                      abs(ns(e["ts"]) - ts0 - (off - off0)) <= 1)
                check(at + ": on CUPTI's clock within %d ns of where it was played (%d ns off)"
                      % (ALIGN_NS, ns(e["ts"]) - (g + off)), abs(ns(e["ts"]) - (g + off)) <= ALIGN_NS)
    kernel = next((e for e in spans.get((0, 7), []) if e["cat"] == "kernel"), {})
    check("the kernel's grid and block", kernel.get("args", {}).get("grid") == [1, 1, 1]
          and kernel.get("args", {}).get("block") == [128, 1, 1])
    copy = next((e for e in spans.get((0, 7), []) if e["cat"] == "gpu_memcpy"), {})
    check("the copy's bytes", copy.get("args", {}).get("bytes") == 1000)

    # ---- flows: from each driver call that issued work to its GPU span, id = correlation id
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    ends = {e["id"]: e for e in ev if e["ph"] == "f"}
    check("flow starts: exactly %s (got %s)" % ([c1, c2, c3], sorted(starts)), sorted(starts) == [c1, c2, c3])
    check("flow ends: exactly %s (got %s)" % ([c1, c2, c3], sorted(ends)), sorted(ends) == [c1, c2, c3])
    drivers = {e["args"]["correlation"]: e for e in ev if e["ph"] == "X" and e.get("cat") == "cuda_driver"}
    gpus = {e["args"]["correlation"]: e for e in ev if e["ph"] == "X" and e["pid"] == 0}
    for c in (c1, c2, c3):
        s, f, d, w = starts.get(c, {}), ends.get(c, {}), drivers.get(c, {}), gpus.get(c, {})
        check("flow %d starts at its driver call (thread and time)" % c,
              (s.get("pid"), s.get("tid"), s.get("ts")) == (d.get("pid"), d.get("tid"), d.get("ts")))
        check("flow %d ends at its GPU work, bound to it (bp e)" % c,
              (f.get("pid"), f.get("tid"), f.get("ts"), f.get("bp")) == (w.get("pid"), w.get("tid"), w.get("ts"), "e"))
        check("flow %d: category ac2g, as torch.profiler's, name ac2g %d (its process)" % (c, pid),
              s.get("cat") == f.get("cat") == "ac2g" and s.get("name") == f.get("name") == "ac2g %d" % pid)

    # ---- names of the tracks
    meta = {(e["name"], e["pid"], e.get("tid")): e["args"] for e in ev if e["ph"] == "M"}
    check("process %d named after its command" % pid,
          "cpu_fake_timeline_app" in meta.get(("process_name", pid, None), {}).get("name", ""))
    check("the worker thread is named tl-worker (%d)" % wtid,
          meta.get(("thread_name", pid, wtid), {}).get("name") == "tl-worker (%d)" % wtid)
    check("the main thread is named", ("thread_name", pid, pid) in meta)
    check("device 0 is named GPU 0", meta.get(("process_name", 0, None), {}).get("name") == "GPU 0")
    check("streams 7 and 9 are named", meta.get(("thread_name", 0, 7), {}).get("name") == "stream 7"
          and meta.get(("thread_name", 0, 9), {}).get("name") == "stream 9")
    print("%d check(s) failed" % len(fails) if fails else "the timeline is what was played")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
