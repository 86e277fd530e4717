"""A user's second run: the first results of a new process whose disk cache is warm.

Each library runs the same program in fresh processes (``--runs`` of them, medians):
import, device set-up (the first allocation and a synchronisation), the first op of the
process (``a + b``, 1,000 float32, synchronised), then ops of new dtype signatures --
``a + b`` on int16, float64 and complex64 and an ``ElementwiseKernel`` -- which the parent
ran once before, so that their code is in the disk cache (rocarray's and CuPy's).
PyTorch, which compiles nothing, is the floor.  ``--profile`` prints where rocarray's
first op and a new signature spend their time (cProfile, in one more process).

    python benchmarks/bench_second_run.py [--device cuda:0|cpu] [--runs 7] [--profile] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from report import write_json

# One program for every library: $IMPORT imports it, $DEVICE picks the device, $SYNC waits for
# it, $EMPTY and $ASARRAY (of the NumPy array ``host``) make arrays there, $KERNEL (none for
# PyTorch) times the ElementwiseKernel.
_PROGRAM = r"""
import time, json, sys
t0 = time.perf_counter()
import numpy as np
$IMPORT
t_import = time.perf_counter() - t0
$DEVICE
t0 = time.perf_counter(); $EMPTY; $SYNC; t_init = time.perf_counter() - t0
def put(host):
    return $ASARRAY
data = {t: put(np.arange(1000).astype(t)) for t in ("float32", "int16", "float64", "complex64")}
$SYNC
def timed(fn):
    t0 = time.perf_counter(); fn(); $SYNC; return (time.perf_counter() - t0) * 1e3
first = timed(lambda: data["float32"] + data["float32"])
new = {t: timed(lambda: data[t] + data[t]) for t in ("int16", "float64", "complex64")}
$KERNEL
print(json.dumps({"import": t_import * 1e3, "init": t_init * 1e3, "first": first, "new": new}))
"""

_KERNEL = """k = {}.ElementwiseKernel("T x, T y", "T z", "z = x * y + x", "second_run_kernel")
new["ElementwiseKernel"] = timed(lambda: k(data["float32"], data["float32"]))"""


def _program(**parts) -> str:
    text = _PROGRAM
    for name, value in parts.items():
        text = text.replace("$" + name, value)
    return text


_ROCARRAY = _program(IMPORT="import rocarray as ra", DEVICE="dev = ra.Device(sys.argv[1])",
                     SYNC="dev.synchronize()", EMPTY="ra.empty(1, device=dev)",
                     ASARRAY="ra.asarray(host, device=dev)", KERNEL=_KERNEL.format("ra"))
_CUPY = _program(IMPORT="import cupy as cp", DEVICE="", SYNC="cp.cuda.Device().synchronize()",
                 EMPTY="cp.empty(1)", ASARRAY="cp.asarray(host)", KERNEL=_KERNEL.format("cp"))
_TORCH = _program(IMPORT="import torch", DEVICE="", SYNC="torch.cuda.synchronize()",
                  EMPTY='torch.empty(1, device="cuda")', ASARRAY='torch.as_tensor(host, device="cuda")',
                  KERNEL="")

_PROFILE = r"""
import cProfile, pstats, sys, time
import numpy as np
import rocarray as ra
dev = ra.Device(sys.argv[1])
ra.empty(1, device=dev); dev.synchronize()
x = ra.asarray(np.arange(1000).astype("float32"), device=dev)
y = ra.asarray(np.arange(1000).astype("int16"), device=dev)
dev.synchronize()
for label, fn in (("first op (float32 a + b)", lambda: x + x), ("new signature (int16 a + b)", lambda: y + y)):
    p = cProfile.Profile()
    p.enable(); fn(); dev.synchronize(); p.disable()
    print(f"--- {label}")
    pstats.Stats(p).sort_stats("cumulative").print_stats(28)
"""


def _runs(code: str, device: str, runs: int, env: dict) -> list:
    out = []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", code, device], capture_output=True, text=True, env=env)
        if r.returncode:
            raise RuntimeError(r.stderr[-3000:])
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out


def _median(results: list, *path) -> float:
    vals = []
    for r in results:
        for p in path:
            r = r[p]
        vals.append(r)
    return float(np.median(vals))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON (benchmarks/report.py)")
    args = p.parse_args()
    import rocarray as ra

    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    device = str(dev)
    env = dict(os.environ)
    cache_dir = env.setdefault("ROCARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="rocarray-second-run-"))
    peers = {"rocarray": _ROCARRAY}
    if dev.kind == "cuda":
        for name, code in (("CuPy", _CUPY), ("PyTorch", _TORCH)):
            try:
                __import__(name.lower() if name != "PyTorch" else "torch")
                peers[name] = code
            except ImportError:
                pass
    versions = [f"numpy {np.__version__}", f"rocarray {ra.__version__}"]
    for mod in ("cupy", "torch"):
        try:
            versions.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            pass
    out = [
        f"## A second run's first results ({device}: {dev.runtime.device_name(dev.index)})", "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
        f"- command: `python {' '.join(sys.argv)}`",
        f"- host: {platform.node()}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        f"- python {platform.python_version()}, " + ", ".join(versions),
        f"- rocarray cache: {cache_dir}; {args.runs} fresh processes each, medians, ms", "",
    ]
    results = {}
    for name, code in peers.items():
        _runs(code, device, 1, env)  # fills the disk caches (the user's first run)
        results[name] = _runs(code, device, args.runs, env)
    cols = ["import", "device set-up", "first op", "int16 a+b", "float64 a+b", "complex64 a+b", "ElementwiseKernel"]
    out.append("| library | " + " | ".join(cols) + " |")
    out.append("|---" * (len(cols) + 1) + "|")
    for name, res in results.items():
        cells = [_median(res, "import"), _median(res, "init"), _median(res, "first")]
        cells += [_median(res, "new", t) if t in res[0]["new"] else float("nan")
                  for t in ("int16", "float64", "complex64", "ElementwiseKernel")]
        out.append(f"| {name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    if "CuPy" in results:
        r, c = results["rocarray"], results["CuPy"]
        out.append("\nrocarray / CuPy: first op "
                   f"{_median(r, 'first') / _median(c, 'first'):.2f}, new signatures "
                   + ", ".join(f"{t} {_median(r, 'new', t) / _median(c, 'new', t):.2f}"
                               for t in ("int16", "float64", "complex64", "ElementwiseKernel")))
    print("\n".join(out))
    if args.json:
        write_json(args.json, out)
    if args.profile:
        r = subprocess.run([sys.executable, "-c", _PROFILE, device], capture_output=True, text=True, env=env)
        print(r.stdout[-12000:], r.stderr[-2000:])


if __name__ == "__main__":
    main()
