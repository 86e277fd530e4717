"""Command line: ``python -m rocarray {demo,info,cache,compile,interpreter}``."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import rocarray as ra
from rocarray import _interpreter as interpreter_tier, _settings, cache
from rocarray._elementwise import Ufunc, elementwise_spec
from rocarray._elementwise_functions import _rows
from rocarray.compiler.cache import default_cache
from rocarray.runtime.hostload import object_file
from rocarray.targets import target_for


def _wave_numpy(n: int, t: float) -> np.ndarray:
    """The demo's program in NumPy, on the host (the figures rocarray is compared with)."""
    x = np.linspace(-10.0, 10.0, n, dtype=np.float32)
    r = np.hypot(x.reshape(n, 1), x.reshape(1, n))
    z = np.exp(np.float32(-0.15) * r) * np.cos(np.float32(3.0) * r - np.float32(t))
    z = np.where(r < 1e-3, np.float32(1.0), z)
    return np.clip(z * np.float32(1.5), -1.0, 1.0)


def _demo(args) -> int:
    dev = ra.default_device() if args.device is None else ra.Device(args.device)
    print(f"rocarray {ra.__version__} on {dev} ({dev.runtime.device_name(dev.index)})")
    print("The program: a damped circular wave on an n x n float32 grid -- hypot, exp, cos, where,")
    print("clip, with broadcasting -- one kernel per operation. NumPy runs the same program on the")
    print("same sizes on the host. Times are wall-clock ms of one whole call (GPU: until the result")
    print("is ready).\n")
    cache.reset_counts()

    def wave(x, y, t):
        r = ra.hypot(x, y)
        z = ra.exp(-0.15 * r) * ra.cos(3.0 * r - t)
        z = ra.where(r < 1e-3, 1.0, z)
        return ra.clip(z * 1.5, -1.0, 1.0)

    def run(n, t):
        x = ra.linspace(-10.0, 10.0, n, device=dev, dtype=ra.float32)
        return wave(ra.reshape(x, (n, 1)), ra.reshape(x, (1, n)), t)

    def timed(fn, *a):
        t0 = time.perf_counter()
        out = fn(*a)
        if isinstance(out, ra.Array):
            out.device.synchronize()
        return out, (time.perf_counter() - t0) * 1e3

    _, cold = timed(run, 512, 0.0)
    c_cold = cache.info()
    z, warm = timed(run, 512, 0.5)
    c_warm = cache.info()
    z2, other = timed(run, 1999, 1.0)
    c_shape = cache.info()
    _, np_first = timed(_wave_numpy, 512, 0.0)
    ref, np_warm = timed(_wave_numpy, 512, 0.5)
    ref2, np_other = timed(_wave_numpy, 1999, 1.0)
    err = max(float(np.max(np.abs(z.get() - ref))), float(np.max(np.abs(z2.get() - ref2))))

    print(f"{'':36}{'rocarray':>10}{'NumPy':>10}")
    print(f"{'1. first call, 512 x 512':36}{cold:10.2f}{np_first:10.2f}  ms")
    print(f"   each new dtype signature needs a kernel: kernels compiled {c_cold['compiled']}, "
          f"loaded from disk cache {c_cold['disk_hits']}")
    if not c_cold["disk_hits"]:
        print("   (a signature not on disk runs on the interpreter kernel while its compiled code is made")
        print("   in the background; on a machine's first run, the interpreter itself is built first)")
    print(f"{'2. warm call, 512 x 512':36}{warm:10.2f}{np_warm:10.2f}  ms")
    print(f"   the same signatures again: new compilations {c_warm['compiled'] - c_cold['compiled']}, "
          "only launches")
    print(f"{'3. new shape, 1999 x 1999':36}{other:10.2f}{np_other:10.2f}  ms")
    print(f"   a new shape of known signatures: new compilations {c_shape['compiled'] - c_warm['compiled']} "
          "(shapes are run-time arguments)")
    print(f"\nmax |rocarray - NumPy| over both sizes = {err:.2e}")
    if c_cold["disk_hits"]:
        print("This run found its kernels in the disk cache (the first call above is a second run's).")
    else:
        print("Run it again: the next process loads every kernel from the disk cache "
              f"({cache.info()['directory']}).")
    return 0 if err < 1e-4 else 1


def _info(args) -> int:
    print(f"rocarray {ra.__version__}")
    for d in ra.available_devices():
        rt = d.runtime
        print(f"device {d}: {rt.device_name(d.index)} (target {rt.target_name(d.index)}); "
              f"first-call interpreter: {interpreter_tier.state(target_for(rt.target_name(d.index)))}")
    for kind in ("cuda", "hip"):
        try:
            ra.Device(kind).check()
        except ValueError as e:
            print(f"{kind}: {e}")
    from llvmlite import binding

    print("LLVM", ".".join(map(str, binding.llvm_version_info)))
    for mod, label in (("nvptx", "NVPTX (CUDA)"), ("amdgpu", "AMDGPU (ROCm)")):
        try:
            m = __import__(f"rocarray.targets.{mod}", fromlist=["toolchain_info"])
            info = m.toolchain_info()
        except Exception as e:  # a broken toolchain is reported, not fatal
            info = {"error": str(e)}
        print(f"{label} toolchain:")
        for k, v in info.items():
            print(f"  {k}: {v}")
    i = cache.info()
    print(f"cache: {i['directory']} ({i['disk_entries']} entries, {i['disk_bytes'] / 1e6:.1f} MB)")
    print("settings (rocarray/_settings.py says what each one does):")
    for name, value, from_env in _settings.in_force():
        print(f"  {name}={value}  ({'set' if from_env else 'default' if value else 'unset'})")
    return 0


def _cache(args) -> int:
    if args.clear:
        cache.clear()
        print("cache cleared")
    for k, v in cache.info().items():
        print(f"{k}: {v}")
    return 0


def _compile(args) -> int:
    if args.op not in _rows:
        print(f"unknown op {args.op!r}; known: {', '.join(sorted(_rows))}", file=sys.stderr)
        return 2
    uf = Ufunc(_rows[args.op])
    dtypes = [ra._dtypes.as_dtype(d) for d in args.dtypes.split(",")]
    if len(dtypes) == 1:
        dtypes = dtypes * uf.nin
    if len(dtypes) != uf.nin:
        print(f"{args.op} takes {uf.nin} inputs; give {uf.nin} dtypes", file=sys.stderr)
        return 2
    loop_in, loop_out, out_storage, body = uf.resolve(tuple(dtypes))
    spec = elementwise_spec(args.op, body, tuple(dtypes), ("a",) * uf.nin, loop_in, out_storage, loop_out)
    target = target_for(args.target)
    module = spec.build_module(target)
    if args.emit == "llvm":
        data = str(module).encode()
    elif args.emit == "ptx":
        if not args.target.startswith("sm_"):
            print("--emit ptx needs an sm_XX target", file=sys.stderr)
            return 2
        data = target.emit_ptx(module).encode()
    elif args.emit == "asm":
        data = target.emit_assembly(module).encode()
    else:
        data = target.compile(module)
        if target.name == "host":  # the object file, not the host image around it
            data = object_file(data)
    with open(args.output, "wb") as f:
        f.write(data)
    print(f"{args.op} {','.join(map(str, dtypes))} -> {target.name}: wrote {len(data)} bytes to {args.output}")
    return 0


def _interpreter(args) -> int:
    target = target_for(args.target)
    if interpreter_tier.image_target(target) is None:
        print(f"no interpreter for target {args.target}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    image = interpreter_tier.build_image(target)
    ms = (time.perf_counter() - t0) * 1e3
    built = default_cache().stats()["interpreter"]
    print(f"interpreter for {target.name}: {len(image)} bytes, "
          f"{'built' if built else 'found in the disk cache'} in {ms:.0f} ms")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m rocarray", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="run a short array program and show first-call vs warm timings")
    d.add_argument("--device", help="cpu, cuda:N or hip:N (default: first GPU, else CPU)")
    d.set_defaults(fn=_demo)
    i = sub.add_parser("info", help="devices, toolchains and the cache")
    i.set_defaults(fn=_info)
    c = sub.add_parser("cache", help="show (or --clear) the compile cache")
    c.add_argument("--clear", action="store_true")
    c.set_defaults(fn=_cache)
    k = sub.add_parser("compile", help="dump the code generated for a catalogue op")
    k.add_argument("op")
    k.add_argument("--dtypes", required=True, help="input dtypes, e.g. float32 or int8,float64")
    k.add_argument("--target", default="host", help="host, sm_XX or gfxXXXX")
    k.add_argument("--emit", choices=("llvm", "ptx", "asm", "obj"), default="obj")
    k.add_argument("-o", "--output", required=True)
    k.set_defaults(fn=_compile)
    t = sub.add_parser("interpreter", help="build the first-call interpreter kernel into the disk cache")
    t.add_argument("--target", default="host", help="host or sm_XX")
    t.set_defaults(fn=_interpreter)
    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
