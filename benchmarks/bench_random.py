"""Random-number benchmark: rocarray.random beside its peers measured in the same run.

    python benchmarks/bench_random.py [--device cpu|cuda:0|hip:0] [--quick] [--json PATH]

Prints a Markdown report (machine, versions, figures, ratios): ``random`` float32 and
float64, ``standard_normal`` float32 and float64 and ``integers`` (int64 in [0, 1000)) of
2^24 values, as milliseconds and GB/s written; on the CPU beside NumPy's default generator
(PCG64), on a GPU beside CuPy (``cupy.random``: cuRAND) and PyTorch (Philox).  Ratios are
peer time / rocarray time (above 1: rocarray faster).  ``--json`` also writes the report as
JSON (``benchmarks/report.py``).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import _try_import, best_of_each, report_main  # noqa: E402  (sets the cache env)

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402


def cases(n):
    """(label, bytes written, rocarray fn(rng), NumPy fn(rng), CuPy fn(cp), torch fn(torch))."""
    return [
        ("random float32", 4 * n, lambda r: r.random(n, dtype=np.float32),
         lambda g: g.random(n, dtype=np.float32), lambda cp: cp.random.random(n, dtype=np.float32),
         lambda t: t.rand(n, device="cuda", dtype=t.float32)),
        ("random float64", 8 * n, lambda r: r.random(n), lambda g: g.random(n),
         lambda cp: cp.random.random(n, dtype=np.float64),
         lambda t: t.rand(n, device="cuda", dtype=t.float64)),
        ("standard_normal float32", 4 * n, lambda r: r.standard_normal(n, dtype=np.float32),
         lambda g: g.standard_normal(n, dtype=np.float32),
         lambda cp: cp.random.standard_normal(n, dtype=np.float32),
         lambda t: t.randn(n, device="cuda", dtype=t.float32)),
        ("standard_normal float64", 8 * n, lambda r: r.standard_normal(n), lambda g: g.standard_normal(n),
         lambda cp: cp.random.standard_normal(n, dtype=np.float64),
         lambda t: t.randn(n, device="cuda", dtype=t.float64)),
        ("integers int64 [0, 1000)", 8 * n, lambda r: r.integers(0, 1000, n), lambda g: g.integers(0, 1000, n),
         lambda cp: cp.random.randint(0, 1000, n, dtype=np.int64),
         lambda t: t.randint(0, 1000, (n,), device="cuda", dtype=t.int64)),
    ]


def throughput(dev, rows, quick) -> None:
    """The table: each call timed beside its peers, round by round."""
    n = 1 << (22 if quick else 24)
    rng = ra.random.default_rng(0, device=dev)
    gen = np.random.default_rng(0)
    gpu = dev.kind != "cpu"
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    torch = _try_import("torch") if dev.kind == "cuda" else None
    if torch is not None and not torch.cuda.is_available():
        torch = None
    peers = ["CuPy", "PyTorch"] if gpu else ["NumPy"]

    def sync():
        dev.synchronize()

    rows.append(f"### {n:,} values (2^{n.bit_length() - 1}), best of 7, synchronised")
    rows.append("")
    rows.append("| call | rocarray ms | rocarray GB/s |" + "".join(f" {q} ms | {q} / rocarray |" for q in peers))
    rows.append("|---" * (3 + 2 * len(peers)) + "|")
    for label, nbytes, f, fnp, fcp, ft in cases(n):
        for _ in range(20):  # past the first tiers: the compiled kernel runs
            f(rng)
        sync()
        drain_background()
        fns = [lambda: (f(rng), sync())]
        names = []
        if gpu:
            if cp is not None:
                fns.append(lambda: (fcp(cp), cp.cuda.Device().synchronize()))
                names.append("CuPy")
            if torch is not None:
                fns.append(lambda: (ft(torch), torch.cuda.synchronize()))
                names.append("PyTorch")
        else:
            fns.append(lambda: fnp(gen))
            names.append("NumPy")
        for g in fns[1:]:
            g()
        times = best_of_each(fns, repeat=7)
        mine = times[0]
        line = f"| {label} | {mine * 1e3:.3f} | {nbytes / mine / 1e9:.1f} |"
        theirs = dict(zip(names, times[1:]))
        for q in peers:
            t = theirs.get(q)
            line += " n/a | n/a |" if t is None else f" {t * 1e3:.3f} | {t / mine:.2f} |"
        rows.append(line)
    rows.append("")
    rows.append("GB/s: bytes of the result written per second.")


def main():
    report_main("## rocarray.random benchmark", throughput)


if __name__ == "__main__":
    main()
