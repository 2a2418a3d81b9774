"""timeline_compare.py: cupti_cb_run --timeline against torch.profiler on the same PyTorch work
(run-timeline-check runs both; see there).

    python3 timeline_compare.py TIMELINE.json REPORT.json TORCH.json

TIMELINE.json and REPORT.json come from one run under cupti_cb_run (--timeline, --json) of
bench_torch_step.py; TORCH.json is torch.profiler's Chrome trace of the timed steps of a second
run of the same program (CUPTI 13.0 lets one tool subscribe per process).  The steps are the same
work, so the last kernels of each stream in the timeline are the profiled steps' kernels.

Checks, one line each, then "timeline check: N passed, M failed":
  - the timeline's kernels, copies and memsets add up exactly to the report's gpu.* counts and
    times (the same records, through the tap and through the counters);
  - every kernel has a flow from a driver call of the same correlation id, and starts after that
    call started (a misaligned clock would put some kernels before their launches);
  - per stream, the same kernel names in the same order as torch.profiler's;
  - kernel durations: the total, and each kernel name's median, within 1% of torch.profiler's
    (medians of kernels shorter than 20 us within 0.2 us: two runs' short kernels differ more).
"""
import json
import statistics
import sys
from collections import defaultdict

results = []


def check(name, ok, detail):
    results.append(ok)
    print("check %-28s %s  %s" % (name + ":", "PASS" if ok else "FAIL", detail))


def ns(us):
    return round(us * 1000)


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def kernels_by_stream(events, stream_of):
    by = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            by[stream_of(e)].append(e)
    for k in by:
        by[k].sort(key=lambda e: e["ts"])
    return by


def main():
    tl_path, report_path, torch_path = sys.argv[1:4]
    ours = load(tl_path)
    with open(report_path) as f:
        report = json.load(f)
    theirs = load(torch_path)

    # ---- the timeline against the counters of the same run
    dev = defaultdict(int)
    for d in report.get("devices", []):
        for k, v in d.get("events", {}).items():
            dev[k] += v
    for cat, count, time in (("kernel", "gpu.kernels", "gpu.kernel_time_ns"),
                             ("gpu_memcpy", "gpu.memcpy.count", "gpu.memcpy.time_ns"),
                             ("gpu_memset", "gpu.memset.count", "gpu.memset.time_ns")):
        spans = [e for e in ours if e.get("ph") == "X" and e.get("cat") == cat]
        n, t = len(spans), sum(ns(e["dur"]) for e in spans)
        check(cat + " = report", (n, t) == (dev[count], dev[time]),
              "timeline %d spans, %d ns; report %s=%d, %s=%d" % (n, t, count, dev[count], time, dev[time]))

    # ---- flows and the one clock
    starts = {e["id"]: e for e in ours if e.get("ph") == "s"}
    drivers = {}
    for e in ours:
        if e.get("ph") == "X" and e.get("cat") == "cuda_driver":
            drivers[e["args"]["correlation"]] = e
    ks = [e for e in ours if e.get("ph") == "X" and e.get("cat") == "kernel"]
    unlinked = [e for e in ks if e["args"]["correlation"] not in starts
                or e["args"]["correlation"] not in drivers]
    check("every kernel has its flow", not unlinked and len(ks) > 0,
          "%d kernels, %d without a flow from a driver call" % (len(ks), len(unlinked)))
    delays = sorted(ns(e["ts"]) - ns(drivers[e["args"]["correlation"]]["ts"]) for e in ks if e not in unlinked)
    early = [d for d in delays if d < 0]
    if delays:
        check("kernels start after launch", not early,
              "launch start to kernel start: min %.3f us, median %.3f us; %d kernels before their launch"
              % (delays[0] / 1e3, statistics.median(delays) / 1e3, len(early)))

    # ---- against torch.profiler: names in order per stream, durations
    a = kernels_by_stream(ours, lambda e: e["args"].get("stream", e.get("tid")))
    b = kernels_by_stream(theirs, lambda e: e.get("args", {}).get("stream", e.get("tid")))
    total_a = total_b = 0
    per_name = defaultdict(lambda: ([], []))
    order_ok = bool(b)
    for stream, tk in sorted(b.items(), key=lambda kv: str(kv[0])):
        ok = a.get(stream, [])[-len(tk):]
        same = len(ok) == len(tk) and all(x["name"] == y["name"] for x, y in zip(ok, tk))
        first = next((i for i, (x, y) in enumerate(zip(ok, tk)) if x["name"] != y["name"]), None)
        order_ok &= same
        check("stream %s order" % stream, same,
              "torch.profiler %d kernels, the timeline's last %d%s" % (
                  len(tk), len(ok), "" if same else "; first difference at %s: %r vs %r" % (
                      first, ok[first]["name"][:60] if first is not None else "-",
                      tk[first]["name"][:60] if first is not None else "-")))
        if same:
            for x, y in zip(ok, tk):
                total_a += ns(x["dur"])
                total_b += ns(y["dur"])
                per_name[x["name"]][0].append(ns(x["dur"]))
                per_name[x["name"]][1].append(ns(y["dur"]))
    if order_ok and total_b:
        r = total_a / total_b
        check("total kernel time", abs(r - 1) <= 0.01,
              "timeline %.3f ms, torch.profiler %.3f ms: ratio %.4f" % (total_a / 1e6, total_b / 1e6, r))
        worst, bad = None, []
        for name, (xa, xb) in per_name.items():
            ma, mb = statistics.median(xa), statistics.median(xb)
            dev_ = abs(ma - mb) / mb if mb else 0
            ok = dev_ <= 0.01 or (mb < 20000 and abs(ma - mb) <= 200)
            if not ok:
                bad.append(name)
            if worst is None or dev_ > worst[0]:
                worst = (dev_, name, ma, mb)
        check("kernel medians", not bad,
              "%d kernel names; largest difference %.2f%% (%s: %.3f vs %.3f us); %d beyond 1%%"
              % (len(per_name), 100 * worst[0], worst[1][:50], worst[2] / 1e3, worst[3] / 1e3, len(bad)))
    failed = results.count(False)
    print("timeline check: %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
