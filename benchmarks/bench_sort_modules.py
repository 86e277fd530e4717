"""The GPU sort's modules from IR to a loaded kernel, phase by phase and assembler by
assembler, and the warm sort with each onesweep module, beside CuPy's and PyTorch's sort.

    python benchmarks/bench_sort_modules.py [--device cuda:0] [--n 16777216]

A GPU sort's first call waits for its modules (``_radix_gpu``: rows of at most ``TILE``
keys the block sort's; longer rows the histogram's, then the onesweep passes', compiled
side by side); this says where that time goes -- building the
IR (Python), writing its text, LLVM to PTX, the assembler (nvJitLink or ptxas at -O3 and
-O1, or the driver's JIT of the PTX at -O0 to -O4), the load -- and what each assembler
level costs the warm sort, so that the level a first call uses is chosen by measurement.
Without a GPU only the phases before the load run (on this machine's assemblers).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("ROCARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="rocarray-bench-"))
os.environ.setdefault("CUDA_CACHE_DISABLE", "1")  # the driver JIT's cache would hide its cost

import rocarray as ra  # noqa: E402
from rocarray import _launch, _radix_gpu  # noqa: E402
from rocarray._tiers import LoadedKernel, compiled_code  # noqa: E402
from rocarray.targets.nvptx import NVPTXTarget  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import median_time  # noqa: E402

#: (key kind, payload bits) of the modules timed: int32 / float32 sorts, an argsort's
#: payload, 64-bit keys
KINDS = [("u32", 0), ("u32", 32), ("f32", 0), ("u64", 0)]
#: (assembler, level): the assemblers that make cubins, then the driver's JIT of the PTX
ASSEMBLERS = [("nvjitlink", 3), ("nvjitlink", 1), ("ptxas", 3), ("ptxas", 1)] + [("ptx", k) for k in range(5)]


def _target(arch: str, assembler: str, level: int) -> NVPTXTarget:
    t = NVPTXTarget(arch, assembler=assembler)
    t.assembler_opt = level
    t.assembler  # noqa: B018 - fails here when the assembler is missing
    return t


def _spec(kind: str, payload: int, part: str):
    return _launch._full_spec(*_radix_gpu._module(kind, payload, part))


def phases(arch: str, kind: str, payload: int, part: str, dev) -> tuple[list, dict]:
    """The row of the module's phases before the assembler (ms) and, per assembler, the
    (assemble ms, load ms, image) -- the load NaN without a device."""
    spec = _spec(kind, payload, part)
    base = NVPTXTarget(arch, assembler="ptx")
    t0 = time.perf_counter()
    module = spec.build_module(base)
    t1 = time.perf_counter()
    text = str(module)
    t2 = time.perf_counter()
    ptx = base.emit_ptx(text)
    t3 = time.perf_counter()
    head = [(t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, len(ptx) // 1024]
    out = {}
    for asm, level in ASSEMBLERS:
        try:
            target = _target(arch, asm, level)
        except Exception as e:  # (an assembler this machine lacks)
            out[asm, level] = str(e).splitlines()[0][:60]
            continue
        t4 = time.perf_counter()
        try:
            image = target.assemble(ptx)
        except Exception as e:  # (a level this assembler does not take)
            out[asm, level] = str(e).splitlines()[0][:60]
            continue
        t5 = time.perf_counter()
        load = float("nan")
        if dev is not None:
            rt = dev.runtime
            handle = rt.load_module(dev.index, bytes(image), target.jit_opt)
            load = (time.perf_counter() - t5) * 1e3
            image = (target, handle)
        out[asm, level] = ((t5 - t4) * 1e3, load, image)
    return head, out


def warm_sort(dev, x, passes_kernel, key) -> tuple[float, np.ndarray]:
    """The median time of ``ra.sort(x)`` with ``passes_kernel`` standing in for the
    onesweep module of ``key`` (key kind, payload bits); its result."""
    real = _radix_gpu._kernel, _radix_gpu._kernel_when_ready

    def kernel(device, key_kind, payload_bits, part, _real=real[0]):
        if part == "passes" and (key_kind, payload_bits) == key:
            return passes_kernel
        return _real(device, key_kind, payload_bits, part)

    _radix_gpu._kernel, _radix_gpu._kernel_when_ready = kernel, kernel
    try:
        return median_time(lambda: ra.sort(x), dev.synchronize) * 1e3, ra.sort(x).get()
    finally:
        _radix_gpu._kernel, _radix_gpu._kernel_when_ready = real


def peers(host: np.ndarray) -> list:
    """CuPy's and PyTorch's warm sorts of ``host`` (ms), where they are installed."""
    rows = []
    try:
        import cupy as cp

        cx = cp.asarray(host)
        t = median_time(lambda: cp.sort(cx), cp.cuda.runtime.deviceSynchronize)
        rows.append(f"cupy {cp.__version__} {t * 1e3:.3f}")
    except Exception as e:  # (not installed, no GPU for it)
        rows.append(f"cupy unavailable ({type(e).__name__})")
    try:
        import torch

        tx = torch.as_tensor(host, device="cuda")
        t = median_time(lambda: torch.sort(tx), torch.cuda.synchronize)
        rows.append(f"torch {torch.__version__} {t * 1e3:.3f}")
    except Exception as e:
        rows.append(f"torch unavailable ({type(e).__name__})")
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--n", type=int, default=1 << 24)
    args = p.parse_args()
    rows = ["## The GPU sort's modules: compile phases and assembler levels", "",
            f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
            "- command: `python benchmarks/bench_sort_modules.py`",
            f"- host: {platform.machine()}, {os.cpu_count()} cores; python {platform.python_version()}, "
            f"numpy {np.__version__}, rocarray {ra.__version__}"]
    dev = None
    try:
        dev = ra.Device(args.device or "cuda:0").check()
    except ValueError as e:
        rows.append(f"- no CUDA device ({e}): the phases before the load only")
    arch = dev.runtime.target_name(dev.index) if dev else "sm_90"
    rows += [f"- target {arch}", ""]
    _spec("u32", 0, "hist").build_module(NVPTXTarget(arch, assembler="ptx"))  # (imports, libdevice: no row's)
    rows += ["| module | build ms | text ms | LLVM ms | PTX KiB | " + " | ".join(
        f"{a} -O{k}" for a, k in ASSEMBLERS) + " |", "|---|---|---|---|---|" + "---|" * len(ASSEMBLERS)]
    loaded = {}
    for kind, payload in KINDS:
        for part in ("hist", "passes", "block"):
            head, out = phases(arch, kind, payload, part, dev)
            cells = []
            for key in ASSEMBLERS:
                got = out[key]
                if isinstance(got, str):
                    cells.append("n/a")
                    continue
                asm_ms, load_ms, image = got
                cells.append(f"{asm_ms:.0f}" + ("" if load_ms != load_ms else f" + {load_ms:.0f}"))
                if part == "passes" and dev is not None:
                    loaded[kind, payload, key] = image
            rows.append(f"| {kind} p{payload} {part} | {head[0]:.0f} | {head[1]:.0f} | {head[2]:.0f} | {head[3]} | "
                        + " | ".join(cells) + " |")
    rows += ["", "(assembler cells: assemble ms + load ms; the driver JIT's work is in its load)"]
    if dev is not None:
        rows += ["", f"### Warm `sort` of {args.n:,} elements with each onesweep module (median of 7, ms)", ""]
        rng = np.random.default_rng(0)
        for kind, dtype in (("u32", np.int32), ("f32", np.float32)):
            host = (rng.integers(-2**31, 2**31, args.n) if dtype == np.int32 else rng.standard_normal(args.n)).astype(dtype)
            x = ra.asarray(host, device=dev)
            want = np.sort(host)
            spec = _spec(kind, 0, "passes")
            cells = []
            for key in ASSEMBLERS:
                if (kind, 0, key) not in loaded:
                    cells.append(f"{key[0]} -O{key[1]}: n/a")
                    continue
                target, handle = loaded[kind, 0, key]
                rt = dev.runtime
                k = LoadedKernel(spec, dev, rt, target, compiled_code(spec, rt, target, handle, False))
                ms, got = warm_sort(dev, x, k, (kind, 0))
                ok = "" if np.array_equal(got, want) else " WRONG"
                cells.append(f"{key[0]} -O{key[1]}: {ms:.3f}{ok}")
            rows.append(f"- {np.dtype(dtype).name}: " + "; ".join(cells))
            rows.append(f"  - peers: {'; '.join(peers(host))}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
