"""Run in a subprocess by test_host_symbols.py: make the host objects of the whole library
(every catalogue op over every dtype, casts between every pair, reductions, sorts, set
functions, indexing, user kernels, the interpreter, the native built-ins), check the float16
results against NumPy, and write the undefined symbols each object names as JSON.

    python _symbol_workload.py OUT.json [--no-f16c] [--dtypes float32,float64,...]

``--no-f16c`` compiles for this CPU without F16C and AVX512-FP16, as on CPUs that lack
them: float <-> float16 conversions then become calls of rocarray's runtime helpers, which
the float16 results check.  ``ROCARRAY_TIERED`` chooses the tier; the interpreter kernel
is built here (run with ``ROCARRAY_INTERPRETER=0``, so that no child process builds it),
in an empty cache directory.
"""

from __future__ import annotations

import json
import sys


def _without_f16c() -> None:
    from llvmlite import binding

    real = binding.get_host_cpu_features

    class Features:
        def __init__(self, flat):
            self._flat = flat

        def flatten(self):
            return self._flat

    def features():
        flat = real().flatten().split(",")
        return Features(",".join(f for f in flat if f not in ("+f16c", "+avx512fp16")) + ",-f16c,-avx512fp16")

    binding.get_host_cpu_features = features


def main(out_path: str, no_f16c: bool, only: list | None) -> None:
    if no_f16c:
        _without_f16c()
    import numpy as np

    import rocarray as ra
    from rocarray import _interpreter
    from rocarray._elementwise import Ufunc
    from rocarray._elementwise_functions import _rows
    from rocarray.runtime import native
    from rocarray.runtime import hostload
    from rocarray.targets import host

    objects: dict = {}
    compile_ = host.HostTarget.compile

    def recording(self, module):
        data = compile_(self, module)
        symbols = hostload.elf_symbols(hostload.object_file(data))
        if symbols is not None:
            objects[",".join(sorted(symbols[0]))] = sorted(symbols[1])
        return data

    host.HostTarget.compile = recording
    if no_f16c:
        assert "+f16c" not in host.HostTarget().features.split(",")

    rng = np.random.default_rng(7)
    dtypes = [ra.bool, ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32,
              ra.uint64, ra.float16, ra.float32, ra.float64, ra.complex64, ra.complex128]
    if only:
        dtypes = [dt for dt in dtypes if dt.name in only]
    data = {}
    for dt in dtypes:
        npdt = np.dtype(dt.name if dt is not ra.bool else "bool")
        if npdt.kind == "c":
            values = rng.uniform(-3, 3, 40) + 1j * rng.uniform(-3, 3, 40)
        elif npdt.kind == "b":
            values = rng.random(40) < 0.5
        else:
            values = rng.uniform(1, 20, 40)
        data[dt] = np.asarray(values).astype(npdt)
    arrays = {dt: ra.asarray(v, device="cpu") for dt, v in data.items()}

    def attempt(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError):  # a dtype the function does not take
            return None

    for name, row in _rows.items():
        fn = Ufunc(row)
        for dt in dtypes:
            attempt(fn, *[arrays[dt]] * fn.nin)
    for src in dtypes:
        for dst in dtypes:
            attempt(ra.astype, arrays[src], dst)
    for dt in dtypes:
        x = arrays[dt]
        m = ra.reshape(x, (5, 8))
        for fn in (ra.sum, ra.prod, ra.min, ra.max, ra.mean, ra.var, ra.std, ra.all, ra.any,
                   ra.argmin, ra.argmax, ra.cumulative_sum, ra.cumulative_prod, ra.count_nonzero):
            attempt(fn, x)
            attempt(fn, m, axis=1)
        for fn in (ra.sort, ra.argsort, ra.unique_all, ra.unique_values, ra.nonzero, ra.flip):
            attempt(fn, x)
        attempt(ra.searchsorted, ra.sort(x) if x.dtype != ra.bool else x, x)
        attempt(ra.take, x, ra.asarray([3, 1, 2], device="cpu"))
        attempt(lambda: x[x != x[0]])
        attempt(ra.where, x != x[0], x, x[0])
        attempt(ra.concat, [x, x])
        attempt(ra.matmul, m, ra.permute_dims(m, (1, 0)))
    for t in ("float16", "float32", "float64", "int64", "complex64"):
        if getattr(ra, t) not in arrays:
            continue
        k = ra.ElementwiseKernel("T x, float64 y", "T z", "z = (T)(x * y + 0.5)", f"symbols_{t}")
        attempt(k, arrays[getattr(ra, t)], 1.25)
        r = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", f"symbols_sq_{t}")
        attempt(r, arrays[getattr(ra, t)])
    fused = ra.fuse(lambda a, b: a * b + 1.5)
    for dt in arrays:
        attempt(fused, arrays[dt], arrays[dt])

    # float16 through the helpers (--no-f16c) must still be NumPy's
    for dt in (ra.float16, ra.float32, ra.float64):
        if dt not in arrays:
            data[dt] = rng.uniform(1, 20, 40).astype(dt.name)
            arrays[dt] = ra.asarray(data[dt], device="cpu")
    h, f, d = data[ra.float16], data[ra.float32], data[ra.float64]
    checks = {
        "add": (ra.asnumpy(arrays[ra.float16] + arrays[ra.float16]), h + h),
        "multiply": (ra.asnumpy(arrays[ra.float16] * arrays[ra.float16]), h * h),
        "sqrt": (ra.asnumpy(ra.sqrt(arrays[ra.float16])), np.sqrt(h)),
        "f64->f16": (ra.asnumpy(ra.astype(arrays[ra.float64], ra.float16)), d.astype(np.float16)),
        "f32->f16": (ra.asnumpy(ra.astype(arrays[ra.float32], ra.float16)), f.astype(np.float16)),
        "f16->f64": (ra.asnumpy(ra.astype(arrays[ra.float16], ra.float64)), h.astype(np.float64)),
        "sum": (ra.asnumpy(ra.sum(arrays[ra.float16])), np.sum(h)),
    }
    wrong = [k for k, (got, want) in checks.items()
             if got.dtype != want.dtype or not np.allclose(got.astype(np.float64), want.astype(np.float64),
                                                          rtol=2e-3)]
    exact = ["add", "multiply", "sqrt", "f64->f16", "f32->f16", "f16->f64"]
    wrong += [k for k in exact if k not in wrong and not np.array_equal(checks[k][0], checks[k][1])]

    host_target = ra.Device("cpu").runtime.target_name(0)
    from rocarray.targets import target_for

    _interpreter.build_image(target_for(host_target))
    native_reason = native.unavailable_reason()
    from rocarray.compiler.cache import drain_background

    drain_background()
    with open(out_path, "w") as f:
        json.dump({"objects": objects, "wrong": wrong, "native": native_reason,
                   "features": host.HostTarget().features}, f)


if __name__ == "__main__":
    args = sys.argv[2:]
    main(sys.argv[1], "--no-f16c" in args,
         args[args.index("--dtypes") + 1].split(",") if "--dtypes" in args else None)
