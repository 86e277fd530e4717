"""What NumPy's protocols cost: a call written against NumPy (``np.add(x, y)``, ``np.sum(x,
0)``, ``np.concatenate``) on rocarray arrays, beside the same call written against rocarray
and beside the peers measured in the same run.

    python benchmarks/bench_numpy_protocols.py [--device cpu|cuda:0|hip:0] [--json PATH]

Prints a Markdown report (machine, versions, warm per-call times of small arrays, where the
dispatch is all there is to measure): rocarray called directly, rocarray reached through
``__array_ufunc__`` / ``__array_function__``, NumPy on its own arrays, and on an NVIDIA GPU
CuPy through the same NumPy protocols and PyTorch called directly.  Ratios are the NumPy
call's time over the direct call's (the protocol's overhead) and over the peers'.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import _try_import, best_of_each, machine  # noqa: E402  (sets the cache env)
from report import write_json  # noqa: E402

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402

#: (label, direct call, the same through NumPy's protocol, the NumPy call on ndarrays / CuPy)
CASES = [
    ("add", lambda x, y: ra.add(x, y), lambda x, y: np.add(x, y)),
    ("sin", lambda x, y: ra.sin(x), lambda x, y: np.sin(x)),
    ("add, out=", lambda x, y: ra.add(x, y, out=x), lambda x, y: np.add(x, y, out=x)),
    ("sum, axis 0", lambda x, y: ra.sum(x, axis=0), lambda x, y: np.sum(x, 0)),
    ("add.reduce", lambda x, y: ra.sum(x, axis=0), lambda x, y: np.add.reduce(x)),
    ("mean", lambda x, y: x.mean(), lambda x, y: np.mean(x)),
    ("concatenate", lambda x, y: ra.concat([x, y]), lambda x, y: np.concatenate([x, y])),
    ("where", lambda x, y: ra.where(x > 0, x, y), lambda x, y: np.where(x > 0, x, y)),
]

TORCH = {
    "add": lambda t, x, y: t.add(x, y), "sin": lambda t, x, y: t.sin(x),
    "add, out=": lambda t, x, y: t.add(x, y, out=x), "sum, axis 0": lambda t, x, y: t.sum(x, 0),
    "add.reduce": lambda t, x, y: t.sum(x, 0), "mean": lambda t, x, y: t.mean(x),
    "concatenate": lambda t, x, y: t.cat([x, y]), "where": lambda t, x, y: t.where(x > 0, x, y),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON (benchmarks/report.py)")
    p.add_argument("--n", type=int, default=1000, help="elements per array (small: dispatch dominates)")
    args = p.parse_args()
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    out = ["## rocarray through NumPy's protocols", ""] + machine(dev) + [""]
    a = np.random.default_rng(0).standard_normal(args.n).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(args.n).astype(np.float32)
    x, y = ra.asarray(a, device=dev), ra.asarray(b, device=dev)
    cp = _try_import("cupy") if dev.kind == "cuda" else None
    torch = _try_import("torch") if dev.kind == "cuda" else None
    if torch is not None and not torch.cuda.is_available():
        torch = None
    peers = {}
    if cp is not None:
        peers["CuPy via np.*"] = (cp.asarray(a), cp.asarray(b), None)
    if torch is not None:
        peers["PyTorch direct"] = (torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda"), torch)
    names = list(peers)
    out.append(f"warm per-call time, float32 arrays of {args.n:,} elements, best of 7 rounds of 300 calls "
               "(no synchronisation per call), in microseconds\n")
    head = ["call", "rocarray direct", "rocarray via np.*", "via np.* / direct", "NumPy (ndarray)"] + names
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for label, direct, via in CASES:
        fns = [lambda: direct(x, y), lambda: via(x, y), lambda: via(a, b)]
        for name in names:
            px, py, t = peers[name]
            fns.append((lambda px=px, py=py, t=t: TORCH[label](t, px, py)) if t is not None
                       else (lambda px=px, py=py: via(px, py)))
        for f in fns:  # compile, load, tier up
            f()
            f()
        dev.synchronize()
        drain_background()
        for f in fns:
            f()
        times = best_of_each(fns, 7, 300)
        dev.synchronize()
        us = [t * 1e6 for t in times]
        cells = [label, f"{us[0]:.1f}", f"{us[1]:.1f}", f"{us[1] / us[0]:.2f}"] + [f"{v:.1f}" for v in us[2:]]
        out.append("| " + " | ".join(cells) + " |")
    print("\n".join(out))
    if args.json:
        write_json(args.json, out)


if __name__ == "__main__":
    main()
