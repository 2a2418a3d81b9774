#!/bin/bash
# run-timeline-check [OUTDIR]: cupti_cb_run --timeline on a GPU machine, checked and costed, in
# one run from the installed prefix (no build there; python3 with PyTorch for the first part):
#
# 1. A PyTorch training step (bench_torch_step.py, BENCH_STEPS timed steps, default 50) under
#    cupti_cb_run --timeline --json --interval, then the same program again with torch.profiler
#    recording its timed steps (CUPTI 13.0 lets one tool subscribe per process, so two runs of the
#    same deterministic work); timeline_compare.py checks: the timeline's kernels, copies and
#    memsets add up exactly to the report's gpu.* counts and times; every kernel has its flow from
#    a driver call and starts after that call started (the one clock); per stream, the same
#    kernel names in the same order as torch.profiler's; the total kernel time and each kernel's
#    median within 1% of torch.profiler's.
# 2. The cost: run-runner-bench with BENCH_MODES="bare runner runner_timeline" on the launch loop
#    (app1) and the PyTorch step (torch), BENCH_ROUNDS rounds (default 3) within BENCH_BUDGET
#    seconds (default 420, so that the whole script takes less than 10 minutes), into OUTDIR/bench.
#
# Writes into OUTDIR (default: ./timeline-check): timeline.json, report.json, torch.json,
# compare.txt, bench/ (run-runner-bench's files), and prints compare.txt and bench/table.md.
# Exit status: 0 when every check passed, 1 when one failed, 77 without a GPU.
# (run-timeline-check.sh in the source tree, installed as run-timeline-check.)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-timeline-check}
prefix=$(cd "$here/../../.." && pwd)
runner=$prefix/bin/cupti_cb_run
python=${PYTHON:-python3}
steps=${BENCH_STEPS:-50}
mkdir -p "$out" || exit 1
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 ||
    { echo "run-timeline-check: no NVIDIA GPU here"; exit 77; }
[ -x "$runner" ] || { echo "run-timeline-check: no $runner: install cupti_cb first"; exit 1; }
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
    { echo "run-timeline-check: $python cannot import torch, or torch sees no GPU"; exit 1; }

echo "run-timeline-check: 1. bench_torch_step.py under cupti_cb_run --timeline, then under torch.profiler"
"$runner" --timeline "$out/timeline.json" --json "$out/report.json" --interval 100ms -o "$out/report.txt" -- \
    "$python" "$here/bench_torch_step.py" --steps="$steps" 2> "$out/timeline-run.err" | tee "$out/timeline-run.out"
"$python" "$here/bench_torch_step.py" --steps="$steps" --profile "$out/torch.json" | tee "$out/torch-run.out"
ls -l "$out/timeline.json" "$out/torch.json"
"$python" "$here/timeline_compare.py" "$out/timeline.json" "$out/report.json" "$out/torch.json" | tee "$out/compare.txt"
rc=${PIPESTATUS[0]}
grep -F 'note:' "$out/report.txt"

echo "run-timeline-check: 2. the cost: bare, runner, runner --timeline"
BENCH_MODES=${BENCH_MODES:-bare runner runner_timeline} BENCH_WORKLOADS=${BENCH_WORKLOADS:-app1 torch} \
    BENCH_ROUNDS=${BENCH_ROUNDS:-3} BENCH_BUDGET=${BENCH_BUDGET:-420} "$here/run-runner-bench" "$out/bench" > /dev/null 2>&1
cat "$out/bench/table.md"
exit "$rc"
