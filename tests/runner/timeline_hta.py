#!/usr/bin/env python3
"""timeline_hta.py: a --timeline file of cpu_fake_timeline_app read by a real reader of
torch.profiler's traces, HolisticTraceAnalysis (PyPI: holistictraceanalysis, installed by
scripts/setup into .venv-readers), as a user would read it: its parser must find every span,
on its stream or thread, linked to its launch by correlation, and its launch statistics must
pair the kernel with its launch.

    timeline_hta.py DIR "G PID WORKER_TID C1 C2 C3"   (DIR holds the file alone)

HTA puts times in whole microseconds from the trace's first event (and shortens every span by
1 us, its fix for rounding: pytorch/pytorch#122425), so times are compared within 1 us."""
import logging
import sys

logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402

fails = []


def check(what, ok):
    if not ok:
        fails.append(what)
        print("FAIL: " + what)


def main():
    tdir, line = sys.argv[1], sys.argv[2].split()
    pid, wtid, c1, c2, c3 = (int(x) for x in line[2:7])
    a = TraceAnalysis(trace_dir=tdir)
    t = a.t.get_trace(0)
    sym = a.t.symbol_table.get_sym_table()
    rows = {}
    for _, r in t.iterrows():
        rows[sym[int(r["name"])]] = r
    # name: (category, pid, tid or stream, us after the first span, length in us, correlation)
    want = {
        "cudaLaunchKernel": ("cuda_runtime", pid, pid, 0, 10, c1),
        "cuLaunchKernel": ("cuda_driver", pid, pid, 1, 6, c1),
        "cudaMemcpy": ("cuda_runtime", pid, pid, 20, 30, c2),
        "cuMemcpyHtoD": ("cuda_driver", pid, pid, 25, 20, c2),
        "cudaMemset": ("cuda_runtime", pid, wtid, 100, 5, c3),
        "cuMemsetD8": ("cuda_driver", pid, wtid, 101, 3, c3),
        "void scale<float>(float*, int)": ("kernel", 0, 7, 500, 30, c1),
        "Memcpy HtoD": ("gpu_memcpy", 0, 7, 600, 5, c2),
        "Memset": ("gpu_memset", 0, 9, 700, 2.5, c3),
    }
    check("HTA read %d events (got %d: %s)" % (len(want), len(t), sorted(rows)), len(t) == len(want))
    for name, (cat, p, tid, at, dur, corr) in want.items():
        r = rows.get(name)
        if r is None:
            check(name + " is read", False)
            continue
        check("%s: category %s (got %s)" % (name, cat, sym[int(r["cat"])]), sym[int(r["cat"])] == cat)
        check("%s: pid %d, tid %d" % (name, p, tid), int(r["pid"]) == p and int(r["tid"]) == tid)
        check("%s: %s us after the first span (got %s)" % (name, at, r["ts"]), abs(r["ts"] - at) <= 1)
        check("%s: %s us long (got %s)" % (name, dur, r["dur"]), abs(r["dur"] - dur) <= 1.5)
        check("%s: correlation %d (got %s)" % (name, corr, r["correlation"]), int(r["correlation"]) == corr)
        if p == 0:
            check("%s: stream %d (got %s)" % (name, tid, r["stream"]), int(r["stream"]) == tid)
            linked = t[t["index"] == int(r["index_correlation"])]
            check("%s: HTA links it to a call of correlation %d" % (name, corr),
                  len(linked) == 1 and int(linked["correlation"].iloc[0]) == corr and int(linked["pid"].iloc[0]) == pid)
    stats = a.get_cuda_kernel_launch_stats(ranks=[0], visualize=False)[0]
    got = sorted(int(x) for x in stats["correlation"])
    check("launch statistics pair the kernel with its launch (correlation %d; got %s)" % (c1, got), c1 in got)
    print("%d check(s) failed" % len(fails) if fails else "HolisticTraceAnalysis reads the timeline as it was played")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
