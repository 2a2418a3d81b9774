#!/bin/bash
# gpu_run_torch: cupti_cb_run on a PyTorch program (torch_probe.py), against torch.profiler.
#
# The same deterministic program runs twice: under cupti_cb_run, and under torch.profiler
# (separate runs: CUDA 13.0's libcupti takes one callback subscriber per process, and
# PyTorch's profiler is one).  The runner's counts must equal the profiler's:
#   cudaLaunchKernel calls, cudaMemcpyAsync calls, and kernels executed on the GPU
#   (gpu.kernels against the profiler's kernel events).
# Exits 77 (SKIP) where there is no GPU, or no PyTorch that sees one; a GPU that PyTorch sees
# and the runner cannot measure is a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "$here/../../.." && pwd)
runner=${CUPTI_CB_RUN:-$prefix/bin/cupti_cb_run}
[ -x "$runner" ] || runner=$here/../../src/runner/cupti_cb_run
python=${PYTHON:-python3}
probe=$here/torch_probe.py
[ -r "$probe" ] || probe=$(dirname "$0")/torch_probe.py

if ! { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } && [ ! -e /dev/nvidiactl ]; then
    echo "gpu_run_torch: no NVIDIA GPU on this machine: SKIP" >&2
    exit 77
fi
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "gpu_run_torch: $python has no PyTorch that sees a GPU: SKIP" >&2
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_run_torch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
check() { # check LABEL GOT WANT
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1: got $2, want $3"
    else echo "not ok $n - $1: got $2, want $3  <-- MISMATCH"; fails=$((fails + 1)); fi
}

"$runner" -o "$tmp/report.txt" --json "$tmp/run.json" -- "$python" "$probe" plain > "$tmp/plain.out" 2> "$tmp/plain.err"
check "exit status under cupti_cb_run" $? 0
prof=$("$python" "$probe" profile 2> "$tmp/prof.err" | grep '^profile ')
echo "# torch.profiler: $prof"
[ -n "$prof" ] || { echo "not ok - torch.profiler printed no counts:"; sed 's/^/#   /' "$tmp/prof.err"; exit 1; }
get() { echo "$prof" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
read_json() { # read_json EXPR: a value of the runner's report
    "$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
api = {r["function"]: r for r in d.get("api", [])}
dev = {x["device"]: x["events"] for x in d.get("devices", [])}
print(eval(sys.argv[2]))' "$tmp/run.json" "$1"
}
check "the runner counted" "$(read_json 'd["status"]["counting"]')" True
check "cudaLaunchKernel calls" "$(read_json 'api.get("cudaLaunchKernel", {}).get("calls", 0)')" "$(get cudaLaunchKernel)"
check "cudaMemcpyAsync calls" "$(read_json 'api.get("cudaMemcpyAsync", {}).get("calls", 0)')" "$(get cudaMemcpyAsync)"
check "kernels executed (gpu.kernels)" "$(read_json 'sum(e.get("gpu.kernels", 0) for e in dev.values())')" "$(get kernels)"
check "kernel launches (kernel.launches) = cudaLaunchKernel calls" \
    "$(read_json 'sum(e.get("kernel.launches", 0) for e in dev.values())')" "$(get cudaLaunchKernel)"
echo "# the runner's report:"
sed 's/^/#   /' "$tmp/report.txt" | head -n 60
echo "# $n checks, $fails failed"
[ "$fails" -eq 0 ]
