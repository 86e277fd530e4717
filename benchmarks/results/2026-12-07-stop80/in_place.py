"""In-place elementwise ops on the host, 2^22 elements, beside NumPy in the same run.

    python in_place.py            (the tree on sys.path: PYTHONPATH picks an older one)

Median of 200 timed calls each (after 5 not timed, and after the kernels' compiled tier
is in place: a first round of 300 calls, then ``drain_background``)."""

import platform
import time

import numpy as np

import rocarray as ra
from rocarray.compiler import cache

N = 1 << 22


def median_ms(fn, reps=200):
    for _ in range(5):
        fn()
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
    print("| dtype | op | rocarray ms | NumPy ms | NumPy / rocarray |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64", "int32"):
        h = (rng.random(N) + 1).astype(dt)  # (from 1: squares reach inf, never subnormals)
        g = (rng.random(N) + 1).astype(dt)
        a, b, x, y = ra.asarray(h.copy()), ra.asarray(g), h.copy(), g
        rows = {"a += 1": (lambda: ra.add(a, 1, out=a), lambda: np.add(x, 1, out=x)),
                "a += b": (lambda: ra.add(a, b, out=a), lambda: np.add(x, y, out=x)),
                "a *= a": (lambda: ra.multiply(a, a, out=a), lambda: np.multiply(x, x, out=x)),
                "a + 1 (not in place)": (lambda: a + 1, lambda: x + 1)}
        for fn, _ in rows.values():
            for _ in range(300):
                fn()
        cache.drain_background()
        for name, (fn, np_fn) in rows.items():
            t, tn = median_ms(fn), median_ms(np_fn)
            print(f"| {dt} | {name} | {t:.3f} | {tn:.3f} | {tn / t:.2f} |")


if __name__ == "__main__":
    main()
