#!/bin/bash
# gpu_run_flame [OUTDIR]: cupti_cb_run --flame on the GPU.
#
#   1. inj_flame_paths (known call paths, the CUDA runtime linked statically, <<<>>> launches,
#      three threads): the flame graph holds exactly its stacks, main;a();b();cudaLaunchKernel;
#      [GPU_Kernel]k1(long long) and the rest, and each thread's k2 stack (20 ms kernels) weighs
#      twice its k1 stack (10 ms) within 1%; the kernels' weights add up to gpu.kernel_time_ns.
#   2. A PyTorch training step (bench_torch_step.py) with Python's perf support on
#      (PYTHONPERFSUPPORT=1): the kernels' weights add up to gpu.kernel_time_ns exactly, and
#      the stacks name Python functions (py::...) and PyTorch's C++ (at::, c10::, torch::).
#   3. With OUTDIR: the files of both runs are kept there (folded stacks, SVG, report), with
#      CPU samples too (--flame-cpu-hz 997) for the PyTorch step, and the cost benchmark
#      (run-flame-bench) writes into OUTDIR/bench.
# Exits 77 (SKIP) where there is no GPU; step 2 SKIPs without a PyTorch that sees one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$here/../../.." && pwd)
runner=${CUPTI_CB_RUN:-$prefix/bin/cupti_cb_run}
python=${PYTHON:-python3}
step_py=$here/../bench/bench_torch_step.py
out=${1:-}

if ! { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } && [ ! -e /dev/nvidiactl ]; then
    echo "gpu_run_flame: no NVIDIA GPU on this machine: SKIP" >&2
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_run_flame.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] && { mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1; }
keep() { [ -n "$out" ] && cp "$@" "$out/"; }
fails=0 n=0
check() { # check LABEL GOT WANT
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1: got $2"
    else echo "not ok $n - $1: got $2, want $3  <-- MISMATCH"; fails=$((fails + 1)); fi
}

# ---- 1. known call paths
"$runner" --flame "$tmp/paths.folded" --flame-svg "$tmp/paths.svg" --json "$tmp/paths.json" -o "$tmp/paths.txt" \
    -- "$here/inj_flame_paths" > "$tmp/paths.out" 2> "$tmp/paths.err"
check "inj_flame_paths under cupti_cb_run --flame: exit status" $? 0
check "inj_flame_paths' own checks" "$(cat "$tmp/paths.out")" "flame_paths ok"
"$python" - "$tmp/paths.folded" "$tmp/paths.json" > "$tmp/paths.check" <<'EOF'
import json, sys
stacks = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    s, w = line.rstrip("\n").rsplit(" ", 1)
    stacks[s] = int(w)
want = {r + ";" + p for r in ("main", "worker(void*)") for p in (
    "a();b();cudaLaunchKernel;[GPU_Kernel]k1(long long)", "c();cudaLaunchKernel;[GPU_Kernel]k2(long long)")}
want.add("main;d(void*, void const*, unsigned long);cudaMemcpy;[GPU_Memcpy HtoD]")
print("stacks", "exact" if set(stacks) == want else "differ")
for s in sorted(set(stacks) ^ want):
    print("#  %s %s" % ("extra:  " if s in stacks else "missing:", s))
for root in ("main", "worker(void*)"):
    k1 = stacks.get(root + ";a();b();cudaLaunchKernel;[GPU_Kernel]k1(long long)", 0)
    k2 = stacks.get(root + ";c();cudaLaunchKernel;[GPU_Kernel]k2(long long)", 0)
    r = k2 / k1 if k1 else 0
    print("ratio %s %s" % (root, "within1%" if abs(r - 2) <= 0.02 else "off"))
    print("#  %s: k1 %d ns, k2 %d ns, k2/k1 %.4f (want 2 +- 1%%)" % (root, k1, k2, r))
d = json.load(open(sys.argv[2]))
gpu = sum(x["events"].get("gpu.kernel_time_ns", 0) for x in d.get("devices", []))
kern = sum(w for s, w in stacks.items() if "[GPU_Kernel]" in s)
print("kernels", "equal" if gpu == kern else "differ")
print("#  [GPU_Kernel] stacks %d ns, gpu.kernel_time_ns %d ns" % (kern, gpu))
EOF
sed -n 's/^#/#/p' "$tmp/paths.check"
check "the stacks are the program's call paths" "$(awk '$1 == "stacks" { print $2 }' "$tmp/paths.check")" exact
check "main's k2/k1 weight is 2 within 1%" "$(awk '$1 == "ratio" && $2 == "main" { print $3 }' "$tmp/paths.check")" within1%
check "the workers' k2/k1 weight is 2 within 1%" \
    "$(awk '$1 == "ratio" && $2 == "worker(void*)" { print $3 }' "$tmp/paths.check")" within1%
check "the kernels' weights add up to gpu.kernel_time_ns" "$(awk '$1 == "kernels" { print $2 }' "$tmp/paths.check")" equal
keep "$tmp/paths.folded" "$tmp/paths.svg" "$tmp/paths.json"

# ---- 2. a PyTorch training step, with Python's perf map
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "# $python has no PyTorch that sees a GPU: the PyTorch step is not checked"
else
    hz=()
    [ -n "$out" ] && hz=(--flame-cpu-hz 997)
    PYTHONPERFSUPPORT=1 "$runner" --flame "$tmp/torch.folded" --flame-svg "$tmp/torch.svg" "${hz[@]}" \
        --json "$tmp/torch.json" -o "$tmp/torch.txt" -- "$python" "$step_py" --steps 30 --warmup 5 \
        > "$tmp/torch.out" 2> "$tmp/torch.err"
    check "the PyTorch step under cupti_cb_run --flame: exit status" $? 0
    "$python" - "$tmp/torch.folded" "$tmp/torch.json" > "$tmp/torch.check" <<'EOF'
import json, sys
stacks = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    s, w = line.rstrip("\n").rsplit(" ", 1)
    stacks[s] = int(w)
d = json.load(open(sys.argv[2]))
gpu = sum(x["events"].get("gpu.kernel_time_ns", 0) for x in d.get("devices", []))
kern = {s: w for s, w in stacks.items() if "[GPU_Kernel]" in s}
total = sum(kern.values())
print("kernels", "equal" if gpu == total and total > 0 else "differ")
print("#  [GPU_Kernel] stacks %d ns, gpu.kernel_time_ns %d ns, %d distinct kernel stacks" % (total, gpu, len(kern)))
py = sum(w for s, w in kern.items() if "py::" in s)
cxx = sum(w for s, w in kern.items() if any(k in s for k in ("at::", "c10::", "torch::")))
unknown = sum(w for s, w in kern.items() if s.startswith("[unknown stack]"))
print("python", "named" if py > 0 else "none")
print("pytorch", "named" if cxx > 0 else "none")
print("#  GPU time under a Python function: %.1f%%, under PyTorch's C++: %.1f%%, [unknown stack]: %.1f%%"
      % (100.0 * py / max(total, 1), 100.0 * cxx / max(total, 1), 100.0 * unknown / max(total, 1)))
for s, w in sorted(kern.items(), key=lambda x: -x[1])[:5]:
    print("#  %6.2f%% %s" % (100.0 * w / max(total, 1), s[-400:]))
EOF
    sed -n 's/^#/#/p' "$tmp/torch.check"
    check "the PyTorch step's kernel weights add up to gpu.kernel_time_ns" \
        "$(awk '$1 == "kernels" { print $2 }' "$tmp/torch.check")" equal
    check "the PyTorch step's stacks name Python functions" "$(awk '$1 == "python" { print $2 }' "$tmp/torch.check")" named
    check "the PyTorch step's stacks name PyTorch's C++" "$(awk '$1 == "pytorch" { print $2 }' "$tmp/torch.check")" named
    grep '^torch ' "$tmp/torch.out" | sed 's/^/# /'
    keep "$tmp/torch.folded" "$tmp/torch.svg" "$tmp/torch.json"
fi

# ---- 3. the cost
if [ -n "$out" ]; then
    bench=$here/../bench/run-flame-bench
    if [ -x "$bench" ]; then
        # Within one command of 10 minutes with the checks above (BENCH_* override).
        BENCH_BUDGET=${BENCH_BUDGET:-420} "$bench" "$out/bench" | sed 's/^/# /'
    else
        echo "# no $bench: the cost is not measured"
    fi
fi
echo "# $n checks, $fails failed"
[ "$fails" -eq 0 ]
