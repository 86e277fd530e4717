"""The ways from LLVM IR to a loaded GPU kernel, measured side by side.

    python benchmarks/bench_gpu_compile_paths.py [--device cuda:0]

For a few new dtype signatures: LLVM pipeline (light vs O3) x assembler (driver JIT of
PTX, nvJitLink, ptxas), each phase timed: IR build, LLVM optimise+emit, assemble, module
load; and the bandwidth of the resulting ``a + b`` kernel, so the choice of default is made
by measurement.  Also the AMDGPU path on the host (IR -> linked code object) for gfx942,
beside the NVPTX path, as the ROCm issue asks.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

os.environ.setdefault("ROCARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="rocarray-bench-"))
os.environ.setdefault("CUDA_CACHE_DISABLE", "1")  # the driver JIT's cache would hide its cost

import rocarray as ra  # noqa: E402
from rocarray._elementwise import Ufunc, elementwise_spec  # noqa: E402
from rocarray._elementwise_functions import _rows  # noqa: E402

CASES = [("add", "float32"), ("multiply", "int16"), ("exp", "float64"), ("hypot", "float32"), ("sin", "complex64")]


def spec_for(op, dt):
    u = Ufunc(_rows[op])
    dts = (np.dtype(dt),) * u.nin
    loop_in, loop_out, out_storage, body = u.resolve(dts)
    return elementwise_spec(op, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)


def _label(opt) -> str:
    return {"quick": "quick tier (simple loop, light, -O0)", 0: "light", 3: "O3"}[opt]


def time_path(target, spec, runtime=None, index=0):
    t0 = time.perf_counter()
    module = spec.build_module(target)
    text = str(module)
    t1 = time.perf_counter()
    if hasattr(target, "emit_ptx"):
        ptx = target.emit_ptx(text)
        t2 = time.perf_counter()
        image = target.assemble(ptx)
    else:
        image = target.compile(text)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    load = float("nan")
    if runtime is not None:
        mod = runtime.load_module(index, image)
        runtime.get_function(mod, spec.entry)
        load = (time.perf_counter() - t3) * 1e3
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, load, image


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    args = p.parse_args()
    rows = ["## GPU compile paths", "", f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
            "- command: `python benchmarks/bench_gpu_compile_paths.py`"]
    dev = None
    try:
        dev = ra.Device(args.device or "cuda:0").check()
    except ValueError as e:
        rows.append(f"- no CUDA device ({e}): compile phases only, no load")
    from rocarray.targets.nvptx import NVPTXTarget

    arch = dev.runtime.target_name(dev.index) if dev else "sm_90"
    rows += [f"- target {arch}", "", "| LLVM | assembler | signature | IR ms | LLVM opt+emit ms | assemble ms | load ms | total ms |",
             "|---|---|---|---|---|---|---|---|"]
    configs = [("quick", "ptx"), ("quick", "nvjitlink"), (0, "ptx"), (3, "ptx"), (0, "nvjitlink"),
               (3, "nvjitlink"), (0, "ptxas")]
    medians = {}
    # warm up once (libdevice parse, prelude, driver): not part of any row
    try:
        time_path(NVPTXTarget(arch, assembler="ptx"), spec_for("exp", "float64"),
                  dev.runtime if dev else None, dev.index if dev else 0)
        time_path(NVPTXTarget(arch, assembler="ptx"), spec_for("sin", "complex64"),
                  dev.runtime if dev else None, dev.index if dev else 0)
    except Exception as e:
        rows.append(f"- warm-up failed: {e}")
    for opt, asm in configs:
        try:
            target = NVPTXTarget(arch, assembler=asm, opt_level=0 if opt == "quick" else opt)
            if opt == "quick":  # the quick tier's kernel: one simple loop, assembler at -O0
                target.simple_loops = True
                target.assembler_opt = 0
            target.assembler  # noqa: B018 - fails early when the assembler is missing
        except Exception as e:
            rows.append(f"| {opt} | {asm} | unavailable: {e} | | | | | |")
            continue
        totals = []
        for op, dt in CASES:
            spec = spec_for(op, dt)
            # a fresh entry name per config so no loader or driver cache can answer
            spec.entry = f"{spec.entry}_o{opt}{asm}"
            ir_ms, opt_ms, asm_ms, load_ms, _ = time_path(target, spec, dev.runtime if dev else None,
                                                          dev.index if dev else 0)
            total = ir_ms + opt_ms + asm_ms + (0 if load_ms != load_ms else load_ms)
            totals.append(total)
            rows.append(f"| {_label(opt)} | {asm} | {op}({dt}) | {ir_ms:.1f} | {opt_ms:.1f} | "
                        f"{asm_ms:.1f} | {load_ms:.1f} | {total:.1f} |")
        medians[(opt, asm)] = float(np.median(totals))
    rows.append("")
    for (opt, asm), m in medians.items():
        rows.append(f"- {_label(opt)} + {asm}: median {m:.1f} ms per new signature")

    # kernel speed: light vs O3 code for a + b on 2^28 float32
    if dev is not None:
        rows += ["", "| LLVM | a + b on 2^28 float32, TB/s |", "|---|---|"]
        n = 1 << 28
        x = ra.ones(n, dtype=ra.float32, device=dev)
        y = ra.ones(n, dtype=ra.float32, device=dev)
        from rocarray._tiers import LoadedKernel, compiled_code

        for opt in (0, 3):
            target = NVPTXTarget(arch, assembler="ptx", opt_level=opt)
            spec = spec_for("add", "float32")
            spec.entry = f"{spec.entry}_speed{opt}"
            *_, image = time_path(target, spec)
            rt = dev.runtime
            module = rt.load_module(dev.index, image)
            k = LoadedKernel(spec, dev, rt, target, compiled_code(spec, rt, target, module, False))
            out = ra.empty(n, dtype=ra.float32, device=dev)
            from rocarray._layout import pad_dims

            vals = [1, *pad_dims((n,), 1), x.data_ptr, *pad_dims((4,), 0), y.data_ptr, *pad_dims((4,), 0),
                    out.data_ptr, *pad_dims((4,), 0)]
            k.launch(n, vals)
            dev.synchronize()
            best = float("inf")
            for _ in range(10):
                t0 = time.perf_counter()
                k.launch(n, vals)
                dev.synchronize()
                best = min(best, time.perf_counter() - t0)
            rows.append(f"| {'light' if opt == 0 else 'O3'} | {12 * n / best / 1e12:.2f} |")

    # AMDGPU on the host, beside NVPTX
    rows += ["", "### AMDGPU path on the host (IR -> linked code object, no GPU needed)", "",
             "| signature | IR ms | compile+link ms |", "|---|---|---|"]
    try:
        from rocarray.targets.amdgpu import AMDGPUTarget

        t = AMDGPUTarget("gfx942")
        ams = []
        for op, dt in CASES:
            spec = spec_for(op, dt)
            ir_ms, c_ms, _, _, _ = time_path(t, spec)
            ams.append(c_ms + ir_ms)
            rows.append(f"| {op}({dt}) | {ir_ms:.1f} | {c_ms:.1f} |")
        rows.append(f"\nAMDGPU median per new signature: {float(np.median(ams)):.1f} ms")
    except Exception as e:
        rows.append(f"AMDGPU path unavailable here: {e}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
