"""Math-function benchmark: every transcendental function of the standard (and NumPy's ``exp2``
and ``cbrt``), float32 and float64.

    python benchmarks/bench_math.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Warm calls on 2^22 elements on the CPU (2^26 on a GPU), each beside NumPy on the CPU and
CuPy and PyTorch on a GPU, measured round by round in one run (``best_of_each``); the
ratio is the fastest peer's time over rocarray's (> 1: rocarray faster).  Arguments lie
where each function is defined (``DOMAINS``), so no peer takes a path for NaN arguments.
"""

from __future__ import annotations

import numpy as np
from bench_elementwise import _try_import, best_of_each, report_main  # (sets the cache env)

import rocarray as ra
from rocarray.compiler.cache import drain_background

#: name -> (NumPy's name, low, high) of the uniformly drawn arguments, or (NumPy's name,
#: (low, high) of the first, (low, high) of the second) for a function of two
DOMAINS = {
    "exp": ("exp", -80.0, 80.0), "expm1": ("expm1", -5.0, 5.0), "log": ("log", 1e-3, 1e3),
    "log1p": ("log1p", -0.9, 10.0), "log2": ("log2", 1e-3, 1e3), "log10": ("log10", 1e-3, 1e3),
    "sin": ("sin", -100.0, 100.0), "cos": ("cos", -100.0, 100.0), "tan": ("tan", -1.5, 1.5),
    "sinh": ("sinh", -20.0, 20.0), "cosh": ("cosh", -20.0, 20.0), "tanh": ("tanh", -5.0, 5.0),
    "asin": ("arcsin", -1.0, 1.0), "acos": ("arccos", -1.0, 1.0), "atan": ("arctan", -50.0, 50.0),
    "asinh": ("arcsinh", -50.0, 50.0), "acosh": ("arccosh", 1.0, 50.0), "atanh": ("arctanh", -0.99, 0.99),
    "sqrt": ("sqrt", 0.0, 100.0),
    # NumPy's and CuPy's beyond the standard
    "exp2": ("exp2", -100.0, 100.0), "cbrt": ("cbrt", -1e3, 1e3),
    "pow": ("power", (0.1, 10.0), (-3.0, 3.0)), "atan2": ("arctan2", (-10.0, 10.0), (-10.0, 10.0)),
}
#: ``x ** e`` of a Python scalar exponent (the operator; x uniform in [0.1, 10)): NumPy's and
#: rocarray's fast paths (2, -1) beside the general power (0.5, 3)
SCALAR_POWERS = (2, -1, 0.5, 3)


def _sections(dev, rows, quick):
    n = (1 << 22) if dev.kind == "cpu" else (1 << 26)
    if quick:
        n >>= 2
    rng = np.random.default_rng(3)
    peers = ["numpy"] if dev.kind == "cpu" else []
    cp = torch = None
    if dev.kind == "cuda":
        cp = _try_import("cupy")
        torch = _try_import("torch")
        if torch is not None and not torch.cuda.is_available():
            torch = None
        peers += [p for p, m in (("cupy", cp), ("torch", torch)) if m is not None]

    def synced(fn):
        if dev.kind == "cpu":
            return fn
        return lambda: (fn(), dev.synchronize())

    rows.append(f"### Warm calls, {n:,} elements (best of 7 rounds, ms)\n")
    rows.append("| function | dtype | rocarray | " + " | ".join(peers) + " | fastest peer / rocarray |")
    rows.append("|---|---|---|" + "---|" * len(peers) + "---|")
    for dt in ("float32", "float64"):
        cases = [(name, npname, ranges) for name, (npname, *ranges) in DOMAINS.items()]
        cases += [(f"x ** {e}", e, [(0.1, 10.0)]) for e in SCALAR_POWERS]
        for name, npname, ranges in cases:
            ranges = ranges if isinstance(ranges[0], tuple) else [ranges]
            h = [(lo + (hi - lo) * rng.random(n)).astype(dt) for lo, hi in ranges]
            x = [ra.asarray(v, device=dev) for v in h]
            if isinstance(npname, str):
                f = getattr(ra, name)
                npf = getattr(np, npname)
                cpf = None if cp is None else getattr(cp, npname)
                tf = None if torch is None else getattr(torch, {"power": "pow"}.get(npname, npname))
            else:  # (a scalar exponent: the ** operator of each library)
                f = npf = cpf = tf = (lambda e: lambda v: v ** e)(npname)
            fns = [synced(lambda: f(*x))]
            if dev.kind == "cpu":
                fns.append(lambda: npf(*h))
            if cp is not None:
                cx = [cp.asarray(v) for v in h]
                fns.append(lambda: (cpf(*cx), cp.cuda.Device().synchronize()))
            if torch is not None:
                tx = [torch.as_tensor(v, device="cuda") for v in h]
                fns.append(lambda: (tf(*tx), torch.cuda.synchronize()))
            for _ in range(3):  # (every tier-up done, every peer's kernel built)
                for fn in fns:
                    for _ in range(4):
                        fn()
                drain_background()
            t = best_of_each(fns)
            rows.append(f"| {name} | {dt} | " + " | ".join(f"{v * 1e3:.2f}" for v in t)
                        + f" | {min(t[1:]) / t[0]:.2f} |")
    rows.append("")


def main():
    report_main("## rocarray math-function benchmark", _sections)


if __name__ == "__main__":
    main()
