"""torch_probe: a PyTorch program with a known shape, run by gpu_run_torch twice: plain (under
cupti_cb_run) and under torch.profiler (which then prints its own counts).  PyTorch's profiler and
cupti_cb each need CUPTI's callbacks, which CUDA 13.0's libcupti gives to one subscriber per
process: hence two runs of the same deterministic program.

    python3 torch_probe.py plain|profile

The work: 20 element-wise steps on a 1 Mi-element tensor made from host data (copies to and from
the device), each step a few kernels; a reduction copied back to the host.  In profile mode it
prints:  profile cudaLaunchKernel=N cudaMemcpyAsync=M kernels=K"""
import sys


def work(torch):
    host = torch.arange(1 << 20, dtype=torch.float32)
    x = host.to("cuda")                     # host to device
    for _ in range(20):
        x = x * 2.0 + 1.0
        x = torch.relu(x - 3.0)
    s = x.sum().item()                      # device to host
    y = x[:4096].cpu()                      # device to host
    torch.cuda.synchronize()
    return s, y


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
    import torch
    if not torch.cuda.is_available():
        print("torch_probe: torch sees no CUDA device", file=sys.stderr)
        return 77
    torch.cuda.init()
    if mode == "plain":
        work(torch)
        print("plain done")
        return 0
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        work(torch)
    counts = {"cudaLaunchKernel": 0, "cudaMemcpyAsync": 0}
    kernels = 0
    for e in prof.events():
        if e.name in counts:
            counts[e.name] += 1
        dt = str(getattr(e, "device_type", ""))
        if dt.endswith("CUDA") and not e.name.startswith("Memcpy") and not e.name.startswith("Memset"):
            kernels += 1
    print("profile cudaLaunchKernel=%d cudaMemcpyAsync=%d kernels=%d"
          % (counts["cudaLaunchKernel"], counts["cudaMemcpyAsync"], kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
