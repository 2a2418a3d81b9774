"""bench_torch_step: PyTorch training steps on the GPU, timed from inside, for measuring what
a tool attached from outside (cupti_cb_run, nsys) costs a real workload.

    python3 bench_torch_step.py [--steps N] [--warmup W] [--batch B] [--pause-ms P]

A small MLP (4 layers of 2048) with Adam, W warm-up steps (they pay for the first CUDA calls,
cuBLAS and the caching allocator), then N timed steps, synchronized at the end.  Prints one line:
    torch steps=N ms_per_step=X first_step_ms=Y kernels_per_step=K
kernels_per_step comes from torch.profiler when --count is given (not in timed runs)."""
import argparse
import sys
import time


def where_hooks():
    """libbench_where.so's begin and end, when it is preloaded (run-runner-bench's profiles):
    its samples then cover the timed steps only; else two functions that do nothing."""
    import ctypes
    import os
    if not os.environ.get("BENCH_WHERE_OUT"):
        return (lambda: None, lambda: None)
    try:
        lib = ctypes.CDLL(None)
        return (lib.bench_where_begin, lib.bench_where_end)
    except (OSError, AttributeError):
        return (lambda: None, lambda: None)


def profiler(path):
    """torch.profiler recording CPU and CUDA activity from now on (None without --profile)."""
    if not path:
        return None
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    prof.__enter__()
    return prof


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--pause-ms", type=int, default=0,
                   help="wait this long after the warm-up (room for a tool that starts counting later)")
    p.add_argument("--profile", metavar="FILE",
                   help="record the timed steps with torch.profiler and export its Chrome trace to FILE "
                        "(run-timeline-check compares it with cupti_cb_run --timeline)")
    a = p.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("bench_torch_step: torch sees no CUDA device", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    dev = torch.device("cuda")
    width = 2048
    model = torch.nn.Sequential(
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, 10)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(a.batch, width, device=dev)
    y = torch.randint(0, 10, (a.batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()
    time.sleep(a.pause_ms / 1000.0)
    where = where_hooks()
    prof = profiler(a.profile)
    where[0]()
    t1 = time.perf_counter()
    for _ in range(a.steps):
        step()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    where[1]()
    if prof:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(a.profile)
    print("torch steps=%d ms_per_step=%.4f first_step_ms=%.2f" % (a.steps, (t2 - t1) * 1e3 / a.steps, first * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
