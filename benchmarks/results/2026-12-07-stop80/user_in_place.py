"""User ElementwiseKernels that read an output or write an input in place, on the host,
2^22 elements, beside NumPy's same ops in the same run.

    python user_in_place.py        (the tree on sys.path: PYTHONPATH picks an older one)

Median of 200 timed calls each, after 300 untimed ones and ``drain_background`` (the
compiled tier in place)."""

import platform
import time

import numpy as np

import rocarray as ra
from rocarray.compiler import cache

N = 1 << 22


def median_ms(fn, reps=200):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e3


def main():
    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}; "
          f"NumPy {np.__version__}; rocarray from {ra.__file__}\n")
    print("| dtype | call | rocarray ms | NumPy ms | NumPy / rocarray |")
    print("|---|---|---|---|---|")
    acc = ra.ElementwiseKernel("T x", "T y", "y += x", "acc")
    sub = ra.ElementwiseKernel("T x, T y", "T z", "z = y - x", "sub")
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64", "int32"):
        h, g = (rng.random(N) + 1).astype(dt), (rng.random(N) + 1).astype(dt)
        x, y, z = ra.asarray(h.copy()), ra.asarray(g.copy()), ra.asarray(g.copy())
        hx, hy, hz = h.copy(), g.copy(), g.copy()
        rows = {"acc(x, y): y += x (reads its output)": (lambda: acc(x, y), lambda: np.add(hy, hx, out=hy)),
                "sub(z, x, z): z = x - z (an input the output)":
                    (lambda: sub(z, x, z), lambda: np.subtract(hx, hz, out=hz))}
        for fn, _ in rows.values():
            for _ in range(300):
                fn()
        cache.drain_background()
        for name, (fn, np_fn) in rows.items():
            t, tn = median_ms(fn), median_ms(np_fn)
            print(f"| {dt} | {name} | {t:.3f} | {tn:.3f} | {tn / t:.2f} |")


if __name__ == "__main__":
    main()
