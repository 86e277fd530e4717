"""Copy between two GPUs: rocarray beside PyTorch and CuPy measured in the same run.

    python benchmarks/bench_peer_copy.py [--kind cuda|hip] [--mib 1024] [--repeat 10] [--json PATH]

Copies a float32 array of ``--mib`` MiB (1 GiB by default) from device 0 to device 1 and
prints a Markdown report (machine, versions, the route rocarray took, figures, ratios):
rocarray's ``x.to_device("cuda:1")`` (peer access where the hardware allows it), its staged
copy through pinned host memory (peer access turned off), PyTorch's
``tensor.to("cuda:1")`` and CuPy's peer copy (``MemoryPointer.copy_from_device``), each
timed from the call until both devices are idle, best of ``--repeat``, in GB/s of bytes
copied.  With fewer than two GPUs of the kind it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import _try_import, best_of_each, machine  # noqa: E402  (sets the cache env)

import rocarray as ra  # noqa: E402
from rocarray._device import gpu_count  # noqa: E402


def best_time(fn, sync, repeat: int) -> float:
    """Best seconds of ``fn(); sync()`` over ``repeat`` rounds, after one warm-up round."""
    fn()
    sync()
    return best_of_each([lambda: (fn(), sync())], repeat)[0]


def measure(kind: str, nbytes: int, repeat: int) -> tuple[list, dict]:
    """The report's lines and its figures (seconds per copy, by library)."""
    d0, d1 = ra.Device(kind, 0), ra.Device(kind, 1)
    runtime = d0.runtime
    n = nbytes // 4
    x = ra.arange(n, dtype=ra.float32, device=d0)
    d0.synchronize()

    def sync():
        d1.synchronize()
        d0.synchronize()

    held = []  # the copies live until the next round, as a user's would

    def rocarray_copy():
        held[:] = [x.to_device(d1)]

    seconds = {"rocarray": best_time(rocarray_copy, sync, repeat)}
    y = held.pop()
    ok = bool(np.array_equal(y[:1000].get(), np.arange(1000, dtype=np.float32))
              and np.array_equal(y[n - 1000:].get(), np.arange(n - 1000, n, dtype=np.float32)))
    del y
    route = runtime.peer_route(1, 0)

    # the staged copy: a runtime of its own with peer access off, into a block kept
    staged = type(runtime)()
    staged.peer_access = False
    src, dst = staged.alloc(0, nbytes), staged.alloc(1, nbytes)

    def staged_sync():
        staged.synchronize(1)
        staged.synchronize(0)

    seconds["rocarray, staged through the host"] = best_time(
        lambda: staged.copy_peer(1, dst, 0, src, nbytes), staged_sync, max(2, repeat // 3))
    staged.free(0, src), staged.free(1, dst)

    torch = _try_import("torch") if kind == "cuda" else None
    if torch is not None and torch.cuda.is_available() and torch.cuda.device_count() >= 2:
        t = torch.arange(n, dtype=torch.float32, device="cuda:0")

        def torch_sync():
            torch.cuda.synchronize(1)
            torch.cuda.synchronize(0)

        def torch_copy():
            held[:] = [t.to("cuda:1")]

        seconds["PyTorch tensor.to"] = best_time(torch_copy, torch_sync, repeat)
        held.clear()
        del t
    cp = _try_import("cupy") if kind == "cuda" else None
    if cp is not None and cp.cuda.runtime.getDeviceCount() >= 2:
        with cp.cuda.Device(0):
            c = cp.arange(n, dtype=cp.float32)

        def cupy_sync():
            cp.cuda.Device(1).synchronize()
            cp.cuda.Device(0).synchronize()

        def cupy_copy():
            with cp.cuda.Device(1):
                out = cp.empty(n, dtype=cp.float32)
                out.data.copy_from_device(c.data, nbytes)
            held[:] = [out]

        seconds["CuPy copy_from_device"] = best_time(cupy_copy, cupy_sync, repeat)
        held.clear()
        del c

    rows = [f"### {nbytes / 2**30:.2f} GiB float32, {d0} -> {d1}\n",
            f"rocarray's route: {route}; result checked: {'ok' if ok else 'WRONG'}\n",
            "| copy | ms | GB/s | rocarray's to_device / this (>1: rocarray faster) |",
            "|---|---|---|---|"]
    ours = seconds["rocarray"]
    for label, s in seconds.items():
        rows.append(f"| {label} | {s * 1e3:.2f} | {nbytes / s / 1e9:.1f} | {s / ours:.2f} |")
    return rows, {"route": route, "checked": ok, "seconds": seconds,
                  "GB/s": {k: nbytes / s / 1e9 for k, s in seconds.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kind", choices=("cuda", "hip"), default=None, help="GPU kind (default: CUDA, else HIP)")
    p.add_argument("--mib", type=int, default=1024, help="MiB copied (default 1024)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--json", help="also write the report and its figures to this file")
    args = p.parse_args()
    if args.mib < 1 or args.repeat < 1:
        p.error("--mib and --repeat must be at least 1")
    counts = {kind: gpu_count(kind) for kind in ("cuda", "hip")}
    kind = args.kind or ("cuda" if counts["cuda"] else "hip")
    report: dict = {"kind": kind, "bytes": args.mib << 20}
    if counts[kind] < 2:
        line = (f"bench_peer_copy: needs two GPUs of one kind; found {counts['cuda']} NVIDIA (CUDA) and "
                f"{counts['hip']} AMD (ROCm): nothing measured")
        print(line)
        report["skipped"] = line
    else:
        lines = ["## rocarray copy between two GPUs", ""] + machine(ra.Device(kind, 0)) + [
            f"- second device: {kind}:1 ({ra.Device(kind, 1).runtime.device_name(1)})", ""]
        rows, figures = measure(kind, args.mib << 20, args.repeat)
        lines += rows
        print("\n".join(lines))
        report.update(lines=lines, **figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
