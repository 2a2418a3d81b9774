#!/bin/sh
# run_flame_timeline: --flame and --timeline in one run, through the injected library, libpapi
# and the fakes.  cupti_cb holds one tap at a time; the flame graph needs its issue and work
# functions and the timeline its call and work functions, and the library sets one tap that
# feeds both (src/inject/cupti_cb_inject_tap.c).  Each file must be what the feature alone
# writes: flame_app's folded stacks exactly as run_flame.sh has them, and its timeline with a
# span for every CUDA call and every piece of GPU work, whose durations per kernel, copy and
# memset are the folded stacks' weights, and a flow from each call that issued work to it;
# cpu_fake_timeline_app's timeline passes every check of timeline_check.py (run_timeline.sh)
# while its flame graph's weights are the report's GPU times.
. "$LIB_SH"

if ! test -x "$FAKE_TIMELINE_APP" || ! test -r "$INJ_LIB"; then
	fail "$FAKE_TIMELINE_APP or $INJ_LIB is missing (build ctests and src/inject first)"
	finish
fi
PYTHON=${PYTHON:-python3}

rc 0 "$RUNNER" --flame f.folded --timeline tl.json --json e.json -o t.txt -- "$FLAME_APP"
cat > want <<'EOF2'
main;a;b;cudaLaunchKernel;[GPU_Kernel]k1(int) 20000
main;c;cudaLaunchKernel;[GPU_Kernel]k2() 20000
main;c;cudaMemcpy;[GPU_Memcpy HtoD] 3000
main;cudaMemset;[GPU_Memset] 500
main;e;cuLaunchKernel;[GPU_Kernel]k3() 700
main;e;cudaMemcpyAsync;[GPU_Memcpy HtoD] 300
main;g;cudaGraphLaunch;[GPU_Kernel]k2() 10000
main;g;cudaGraphLaunch;[GPU_Kernel]plain_kernel 1000
worker;a;b;cudaLaunchKernel;[GPU_Kernel]k1(int) 20000
EOF2
grep -v '^#' f.folded > got
if ! cmp -s want got; then
	fail "with --timeline, the folded stacks are not the program's call paths"
	diff want got | sed 's/^/  /'
fi
# The timeline of the same run: host spans by name, GPU time per piece of work (named as the
# folded stacks' leaves), and whether every flow's end has its start.
"$PYTHON" - tl.json > tl.txt <<'EOF2' || fail "tl.json cannot be read: $(cat tl.txt)"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
host, gpu = {}, {}
for e in ev:
    if e["ph"] != "X":
        continue
    if e["cat"] in ("cuda_runtime", "cuda_driver"):
        host[e["name"]] = host.get(e["name"], 0) + 1
    else:
        leaf = {"kernel": "[GPU_Kernel]" + e["name"], "gpu_memset": "[GPU_Memset]"}.get(e["cat"], "[GPU_" + e["name"] + "]")
        gpu[leaf] = gpu.get(leaf, 0) + round(e["dur"] * 1000)
starts = {e["id"] for e in ev if e["ph"] == "s"}
ends = [e["id"] for e in ev if e["ph"] == "f"]
print("host", " ".join("%s=%d" % kv for kv in sorted(host.items())))
for leaf, ns in sorted(gpu.items()):
    print("gpu", leaf, ns)
print("flows", len(starts), len(ends), sum(i in starts for i in ends))
EOF2
line tl.txt "host cuGraphLaunch=1 cuLaunchKernel=6 cuMemcpyHtoD=1 cuMemcpyHtoDAsync_v2_ptsz=1 cuMemsetD8=1 cudaGraphLaunch=1 cudaLaunchKernel=5 cudaMemcpy=1 cudaMemcpyAsync_ptsz=1 cudaMemset=1"
# The folded stacks' weights summed per leaf: the same GPU time as the timeline's spans.
awk '{ w = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); s[f[n]] += w }
     END { for (k in s) print "gpu", k, s[k] }' got | LC_ALL=C sort > leaves
grep '^gpu ' tl.txt | LC_ALL=C sort > tl.leaves
cmp -s leaves tl.leaves || fail "the timeline's GPU spans are not the flame graph's weights: $(diff leaves tl.leaves)"
# Ten calls issued work (five launches in runtime calls, one alone, two copies, a memset, a
# graph of three kernels): ten flows, twelve ends, each bound to its start.
line tl.txt "flows 10 12 12"

# cpu_fake_timeline_app with --flame: its timeline passes every check of run_timeline.sh.
# Its clocks as run_timeline.sh sets them: the component's CLOCK_MONOTONIC, which the
# application freezes, and the fake CUPTI's about CLOCK_REALTIME, as the real one.
rc 0 env CUPTI_CB_CLOCK=monotonic CUPTI_CB_FAKE_CUPTI_CLOCK=realtime "$RUNNER" -o t.txt --json r.json --timeline tl2.json --flame f2.folded -- "$FAKE_TIMELINE_APP"
played=$(grep '^G ' out)
"$PYTHON" "$TIMELINE_CHECK" tl2.json "$played" > check.txt || { fail "timeline_check.py, with --flame:"; cat check.txt; }
# and its flame graph weighs the report's GPU time.
kernels=$(awk '/\[GPU_Kernel\]/ { s += $NF } END { print s + 0 }' f2.folded)
test "$kernels" -gt 0 || fail "f2.folded has no kernel's GPU time"
js r.json '/devices[device=0]/events/gpu.kernel_time_ns' "$kernels"
finish
