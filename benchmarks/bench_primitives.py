"""Parallel-primitive benchmarks: scan, compaction, gather, copies, sorting and searching,
rocarray beside its peers measured in the same run.

    python benchmarks/bench_primitives.py [--device cpu|cuda:0|hip:0] [--n N] [--json PATH]

One table of ops keyed by name (``OPS``; a row is a name, the bytes it must move, and one
callable per library), each run on float32 and int64 data of ``N`` elements (default 2^24
on a GPU, 2^22 on the CPU; transposes are of 4096x4096, ``take`` and ``x[idx] = v`` read
2^22 indices): on the CPU beside NumPy (time ratios), on a GPU beside CuPy and PyTorch, and everywhere as a
fraction of the copy bandwidth measured in the same run (bytes an op must read and write,
per second, over a plain copy's); on a GPU also with ``QUEUED_CALLS`` calls queued before one
wait, against the copy's so queued (the device's time of an op, without the host's time and
the wait that a lone call adds).  Libraries are timed round by round, so a change of the
machine's pace falls on all of them alike.  Also the first call of each op on a dtype not
seen before (an empty disk cache).  Sorting and searching are not bound by memory: their
"bytes" are one read and one write of the data (a sort's least), so their fraction of the
copy bandwidth says how far they are from a single pass.  "sort, half one value" sorts the
data with half of its elements set to its smallest value.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import _try_import, machine  # noqa: E402  (sets the cache env)

# CuPy's compiled kernels: an empty disk cache too, for its first calls (set before it is imported)
os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="cupy-bench-"))

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402

TAKE_N = 1 << 22
SIDE = 4096
ROW = 1024
QUERIES = 1 << 20
ISIN_VALUES = 1 << 16
#: calls queued before one wait (``timed_queued``)
QUEUED_CALLS = 50


def _positive(x, like=None):
    """The mask of the mask rows: ``x > 0``, or ``x.real > 0`` where the NumPy array ``like``
    (``x`` itself by default) is complex (the array API orders no complex numbers)."""
    return x.real > 0 if (x if like is None else like).dtype.kind == "c" else x > 0


def _mask_bytes(d):
    return d["x_np"].nbytes + int(_positive(d["x_np"]).sum()) * d["x_np"].itemsize


def _nonzero_bytes(d):
    return d["x_np"].nbytes + int(_positive(d["x_np"]).sum()) * 8


def _put(d):
    """``s[idx] = w`` (``s`` a target of its own: the mask rows' ``z`` keeps its mask)."""
    d["s"][d["idx"]] = d["w"]


def _mask_set(d):
    """``z[z > 0] = v``: ``v`` is positive, so every call sets the same elements."""
    z = d["z"]
    z[_positive(z, d["x_np"])] = d["v"]


#: name -> (bytes moved (a function of the data), {library: callable on that library's data})
OPS = {
    "cumulative_sum": (
        lambda d: d["x_np"].nbytes + d["x_np"].size * np.cumsum(d["x_np"][:1]).itemsize,
        {"rocarray": lambda d: ra.cumulative_sum(d["x"]), "numpy": lambda d: np.cumsum(d["x"]),
         "cupy": lambda d: d["x"].cumsum(), "torch": lambda d: d["x"].cumsum(0)}),
    "x[x > 0]": (
        _mask_bytes,
        {lib: lambda d: d["x"][_positive(d["x"], d["x_np"])] for lib in ("rocarray", "numpy", "cupy", "torch")}),
    "x[m], mask made before": (
        lambda d: d["m_np"].nbytes + _mask_bytes(d),
        {lib: lambda d: d["x"][d["m"]] for lib in ("rocarray", "numpy", "cupy", "torch")}),
    "x[x > 0] = v": (
        lambda d: _mask_bytes(d) + int(_positive(d["x_np"]).sum()) * d["x_np"].itemsize,
        {lib: _mask_set for lib in ("rocarray", "numpy", "cupy", "torch")}),
    "nonzero": (
        _nonzero_bytes,
        {"rocarray": lambda d: ra.nonzero(_positive(d["x"], d["x_np"])),
         "numpy": lambda d: np.nonzero(_positive(d["x"])),
         "cupy": lambda d: _positive(d["x"], d["x_np"]).nonzero(),
         "torch": lambda d: _positive(d["x"], d["x_np"]).nonzero()}),
    f"take, {TAKE_N:,} indices": (
        lambda d: d["idx_np"].nbytes + 2 * d["idx_np"].size * d["x_np"].itemsize,
        {"rocarray": lambda d: ra.take(d["x"], d["idx"]), "numpy": lambda d: np.take(d["x"], d["idx"]),
         "cupy": lambda d: d["x"].take(d["idx"]), "torch": lambda d: d["x"].take(d["idx"])}),
    f"x[idx] = v, {TAKE_N:,} indices": (
        lambda d: d["idx_np"].nbytes + 2 * d["idx_np"].size * d["x_np"].itemsize,
        {lib: _put for lib in ("rocarray", "numpy", "cupy", "torch")}),
    f"take_along_axis, rows of {ROW}": (
        lambda d: d["rows_idx_np"].nbytes + 2 * d["rows_idx_np"].size * d["x_np"].itemsize,
        {"rocarray": lambda d: ra.take_along_axis(d["rows"], d["rows_idx"], axis=1),
         "numpy": lambda d: np.take_along_axis(d["rows"], d["rows_idx"], axis=1),
         "cupy": lambda d: _cupy().take_along_axis(d["rows"], d["rows_idx"], axis=1),
         "torch": lambda d: _torch().gather(d["rows"], 1, d["rows_idx"])}),
    "concat of two": (
        lambda d: 4 * d["x_np"].nbytes,
        {"rocarray": lambda d: ra.concat([d["x"], d["y"]]), "numpy": lambda d: np.concatenate([d["x"], d["y"]]),
         "cupy": lambda d: _cupy().concatenate([d["x"], d["y"]]), "torch": lambda d: _torch().cat([d["x"], d["y"]])}),
    "stack of two": (
        lambda d: 4 * d["x_np"].nbytes,
        {"rocarray": lambda d: ra.stack([d["x"], d["y"]]), "numpy": lambda d: np.stack([d["x"], d["y"]]),
         "cupy": lambda d: _cupy().stack([d["x"], d["y"]]), "torch": lambda d: _torch().stack([d["x"], d["y"]])}),
    "sort": (
        lambda d: 2 * d["x_np"].nbytes,
        {"rocarray": lambda d: ra.sort(d["x"]), "numpy": lambda d: np.sort(d["x"]),
         "cupy": lambda d: _cupy().sort(d["x"]), "torch": lambda d: _torch().sort(d["x"], stable=True)}),
    "sort, half one value": (
        lambda d: 2 * d["heavy_np"].nbytes,
        {"rocarray": lambda d: ra.sort(d["heavy"]), "numpy": lambda d: np.sort(d["heavy"]),
         "cupy": lambda d: _cupy().sort(d["heavy"]), "torch": lambda d: _torch().sort(d["heavy"], stable=True)}),
    "argsort (stable)": (
        lambda d: d["x_np"].nbytes + 8 * d["x_np"].size,
        {"rocarray": lambda d: ra.argsort(d["x"]), "numpy": lambda d: np.argsort(d["x"], kind="stable"),
         "cupy": lambda d: _cupy().argsort(d["x"]), "torch": lambda d: _torch().argsort(d["x"], stable=True)}),
    "unique_counts": (
        lambda d: 2 * d["x_np"].nbytes,
        {"rocarray": lambda d: ra.unique_counts(d["x"]),
         "numpy": lambda d: np.unique(d["x"], return_counts=True, equal_nan=False),
         "cupy": lambda d: _cupy().unique(d["x"], return_counts=True),
         "torch": lambda d: _torch().unique(d["x"], sorted=True, return_counts=True)}),
    f"searchsorted, {QUERIES:,} queries": (
        lambda d: d["q_np"].nbytes + 8 * d["q_np"].size,
        {"rocarray": lambda d: ra.searchsorted(d["sorted"], d["q"]),
         "numpy": lambda d: np.searchsorted(d["sorted"], d["q"]),
         "cupy": lambda d: _cupy().searchsorted(d["sorted"], d["q"]),
         "torch": lambda d: _torch().searchsorted(d["sorted"], d["q"])}),
    f"sort of rows of {ROW}": (
        lambda d: 2 * d["rows_np"].nbytes,
        {"rocarray": lambda d: ra.sort(d["rows"], axis=1), "numpy": lambda d: np.sort(d["rows"], axis=1),
         "cupy": lambda d: _cupy().sort(d["rows"], axis=1),
         "torch": lambda d: _torch().sort(d["rows"], dim=1, stable=True)}),
    f"isin, {ISIN_VALUES:,} values": (
        lambda d: d["x_np"].nbytes + d["x_np"].size,
        {"rocarray": lambda d: ra.isin(d["x"], d["values"]), "numpy": lambda d: np.isin(d["x"], d["values"]),
         "cupy": lambda d: _cupy().isin(d["x"], d["values"]), "torch": lambda d: _torch().isin(d["x"], d["values"])}),
    f"transpose copy {SIDE}x{SIDE}": (
        lambda d: 2 * d["sq_np"].nbytes,
        {"rocarray": lambda d: d["sq"].T.copy(), "numpy": lambda d: np.ascontiguousarray(d["sq"].T),
         "cupy": lambda d: _cupy().ascontiguousarray(d["sq"].T), "torch": lambda d: d["sq"].T.contiguous()}),
}


def _cupy():
    return sys.modules["cupy"]


def _torch():
    return sys.modules["torch"]


def host_data(n: int, dtype, rng, wide: bool = False) -> dict:
    """The NumPy inputs of every op for one dtype (random; about half of them positive, or
    of positive real part: ``_positive``; integers from -1000 to 1000, or of the dtype's
    whole range where ``wide``)."""
    dt = np.dtype(dtype)

    def draw(shape):
        if dt.kind == "b":
            return rng.random(shape) < 0.5
        if dt.kind in "iu" and wide:
            return rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, shape, dtype=dt, endpoint=True)
        if dt.kind in "iu":
            hi = min(np.iinfo(dt).max, 1000)
            a = rng.integers(-hi, hi + 1, shape)
            return (np.maximum(a, 0) if dt.kind == "u" else a).astype(dt)
        if dt.kind == "c":
            return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        return rng.standard_normal(shape).astype(dt)

    x, y, sq = draw(n), draw(n), draw((SIDE, SIDE))
    # the values of ``_mask_set`` are positive, so that its mask stays the same at every call
    count = int(_positive(x).sum())
    if dt.kind == "b":
        v = np.ones(count, dt)
    elif dt.kind in "iu":
        hi = min(np.iinfo(dt).max, 1000)
        v = (np.minimum(np.abs(y[:count].astype(np.int64)), hi - 1) + 1).astype(dt)
    else:
        v = (np.abs(y[:count]) + 1).astype(dt)
    q = y[:QUERIES] if n >= QUERIES else np.resize(y, QUERIES)
    return {"x": x, "y": y, "z": x.copy(), "v": v, "m": _positive(x), "idx": rng.integers(0, n, TAKE_N),
            "sq": sq, "s": x.copy(), "w": np.resize(y, TAKE_N),
            "rows": x.reshape(-1, ROW), "rows_idx": rng.integers(0, ROW, (n // ROW, ROW)),
            "sorted": np.sort(x), "q": q, "values": y[:ISIN_VALUES].copy(), "heavy": _heavy(x)}


def _heavy(x):
    """``x`` with half of its elements (random places) its smallest value: a line of one
    heavy value (as zeros fill a sparse one), the hardest for a sort that splits by rank."""
    heavy = x.copy()
    heavy[np.random.default_rng(x.size).random(x.size) < 0.5] = x.min()
    return heavy


def library_data(lib: str, host: dict, dev):
    """``host`` moved to ``lib``'s device (with the NumPy originals kept under ``*_np``)."""
    if lib == "rocarray":
        d = {k: ra.asarray(v, device=dev) for k, v in host.items()}
    elif lib == "cupy":
        d = {k: _cupy().asarray(v) for k, v in host.items()}
    elif lib == "torch":
        d = {k: _torch().as_tensor(v, device="cuda") for k, v in host.items()}
    else:
        d = dict(host)
    d.update({k + "_np": v for k, v in host.items()})
    return d


def libraries(dev) -> list:
    """rocarray and its peers on ``dev``: NumPy on the CPU; CuPy and PyTorch on a CUDA
    device, where they are installed."""
    libs = ["rocarray"]
    if dev.kind == "cpu":
        libs.append("numpy")
    elif dev.kind == "cuda":
        if _try_import("cupy") is not None:
            libs.append("cupy")
        torch = _try_import("torch")
        if torch is not None and torch.cuda.is_available():
            libs.append("torch")
    return libs


def syncs(dev, libs) -> dict:
    out = {}
    for lib in libs:
        if lib == "rocarray":
            out[lib] = dev.synchronize
        elif lib == "cupy":
            out[lib] = _cupy().cuda.Device().synchronize
        elif lib == "torch":
            out[lib] = _torch().cuda.synchronize
        else:
            out[lib] = lambda: None
    return out


def timed_round_robin(fns: dict, sync: dict, rounds: int = 7) -> dict:
    """Best time (s) of each library's call, timed in turn round by round after a warm-up
    (which also lets rocarray's tier-up compile finish)."""
    for lib, fn in fns.items():
        for _ in range(3):
            fn()
        sync[lib]()
    drain_background()
    best = {lib: float("inf") for lib in fns}
    for _ in range(rounds):
        for lib, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            sync[lib]()
            best[lib] = min(best[lib], time.perf_counter() - t0)
    return best


def timed_queued(fns: dict, sync: dict, calls: int = QUEUED_CALLS, rounds: int = 3) -> dict:
    """Each library's time (s) a call with ``calls`` calls queued before one wait (the
    best of ``rounds``, in turn): the device's time of the op, without the host's time
    and the wait of a lone call (an op that reads back a size waits at each call anyway)."""
    best = {lib: float("inf") for lib in fns}
    for _ in range(rounds):
        for lib, fn in fns.items():
            sync[lib]()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync[lib]()
            best[lib] = min(best[lib], (time.perf_counter() - t0) / calls)
    return best


def copy_bandwidth(dev, n: int) -> tuple:
    """Bytes read plus written per second by a plain copy of ``n`` float32 (the device's
    copy on a GPU, NumPy's ``copyto`` on the CPU): a lone call's, and with calls queued
    (``timed_queued``; the lone call's on the CPU)."""
    if dev.kind == "cpu":
        a, b = np.ones(n, np.float32), np.empty(n, np.float32)
        fn, sync = (lambda: np.copyto(b, a)), (lambda: None)
    else:
        src, dst = ra.ones(n, dtype=ra.float32, device=dev), ra.empty(n, dtype=ra.float32, device=dev)
        rt = dev.runtime
        fn = lambda: rt.copy_device_to_device(dev.index, dst.data_ptr, src.data_ptr, 4 * n)  # noqa: E731
        sync = dev.synchronize
    t = timed_round_robin({"copy": fn}, {"copy": sync}, 10)["copy"]
    queued = timed_queued({"copy": fn}, {"copy": sync})["copy"] if dev.kind != "cpu" else t
    return 8 * n / t, 8 * n / queued


def first_calls(dev, rows: list, libs: list) -> None:
    """The first call of each op on a dtype no op has run on yet (int16 data), rocarray's
    and CuPy's (each with an empty disk cache of compiled kernels: CuPy compiles its
    kernels at the first call too), after each library's first op of the process."""
    host = np.arange(-500, 500, dtype=np.int16)
    host_idx = np.arange(0, 1000, 3)
    x = ra.asarray(host, device=dev)
    idx = ra.asarray(host_idx, device=dev)
    sq = ra.reshape(x, (20, 50))
    warm = ra.asarray(np.ones(1000), device=dev)
    calls = {"rocarray": [
        # (the process's one-time set-up -- the compiler's, the launcher's -- lands on its
        # first op: a float64 add, so that it is not counted as the first primitive's)
        ("first op of the process (float64 add)", lambda: warm + warm),
        ("cumulative_sum", lambda: ra.cumulative_sum(x)), ("x[x > 0]", lambda: x[x > 0]),
        ("nonzero", lambda: ra.nonzero(x)), ("take", lambda: ra.take(x, idx)),
        ("x[idx] = v", lambda: x.__setitem__(idx, 7)),
        ("concat", lambda: ra.concat([x, x])), ("transpose copy", lambda: sq.T.copy()),
        ("sort", lambda: ra.sort(x)), ("argsort", lambda: ra.argsort(x)),
        ("searchsorted", lambda: ra.searchsorted(ra.sort(x), idx)), ("isin", lambda: ra.isin(x, idx))]}
    syncs_ = {"rocarray": dev.synchronize}
    if "cupy" in libs:
        import cupy as cp

        cx, cidx = cp.asarray(host), cp.asarray(host_idx)
        csq = cx.reshape(20, 50)
        cwarm = cp.ones(1000)
        calls["cupy"] = [
            ("first op of the process (float64 add)", lambda: cwarm + cwarm),
            ("cumulative_sum", lambda: cp.cumsum(cx)), ("x[x > 0]", lambda: cx[cx > 0]),
            ("nonzero", lambda: cp.nonzero(cx)), ("take", lambda: cp.take(cx, cidx)),
            ("x[idx] = v", lambda: cx.__setitem__(cidx, 7)),
            ("concat", lambda: cp.concatenate([cx, cx])), ("transpose copy", lambda: csq.T.copy()),
            ("sort", lambda: cp.sort(cx)), ("argsort", lambda: cp.argsort(cx)),
            ("searchsorted", lambda: cp.searchsorted(cp.sort(cx), cidx)), ("isin", lambda: cp.isin(cx, cidx))]
        syncs_["cupy"] = cp.cuda.runtime.deviceSynchronize
    times = {}
    for lib, ops in calls.items():
        for name, fn in ops:
            drain_background()
            t0 = time.perf_counter()
            fn()
            syncs_[lib]()
            times[lib, name] = (time.perf_counter() - t0) * 1e3
    names = [name for name, _ in calls["rocarray"]]
    rows.append("### First call on a new dtype (int16; empty disk caches)\n")
    rows.append("| op | " + " | ".join(f"{lib} first call ms" for lib in calls) + " |")
    rows.append("|---|" + "---|" * len(calls))
    for name in names:
        rows.append(f"| {name} | " + " | ".join(f"{times[lib, name]:.1f}" for lib in calls) + " |")
    rows.append("")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--n", type=int, default=None, help="elements per array (default 2^24 GPU, 2^22 CPU)")
    p.add_argument("--dtypes", default="float32,int64")
    p.add_argument("--json", help="also write the report and the figures to this file")
    p.add_argument("--ops", default=None, help="only the ops whose names contain one of these (comma-separated)")
    p.add_argument("--wide", action="store_true", help="integers of the dtype's whole range (default -1000..1000)")
    args = p.parse_args()
    ops = {name: op for name, op in OPS.items()
           if args.ops is None or any(w in name for w in args.ops.split(","))}
    dev = ra.default_device() if args.device is None else ra.Device(args.device).check()
    gpu = dev.kind != "cpu"
    n = args.n or (1 << 24 if gpu else 1 << 22)
    n -= n % ROW
    libs = libraries(dev)
    rows = ["## rocarray parallel-primitive benchmark", ""] + machine(dev) + [""]
    first_calls(dev, rows, libs)
    copy_bw, copy_queued = copy_bandwidth(dev, n)
    rows.append(f"### Throughput ({n:,} elements per array; take: {TAKE_N:,} indices; "
                f"transposes {SIDE}x{SIDE})\n")
    rows.append(f"copy bandwidth (read + write, {'device copy' if gpu else 'NumPy copyto'}): "
                f"**{copy_bw / 1e9:.1f} GB/s**; an op's bandwidth is the bytes it must read and "
                "write per second; ratio: the fastest peer's time over rocarray's (>= 1: rocarray "
                "as fast or faster)" + (
                    f"; on a GPU also each library's time a call with {QUEUED_CALLS} calls queued "
                    f"before one wait, as a fraction of the copy's so queued ({copy_queued / 1e9:.1f} "
                    "GB/s): the device's time, without the host's and the wait of a lone call "
                    "(an op whose result's size is read back waits at every call)" if gpu else "") + "\n")
    peers = [lib for lib in libs if lib != "rocarray"]
    head = "| op | dtype | rocarray ms | " + " | ".join(f"{p_} ms" for p_ in peers) + \
        " | ratio | fraction of copy |" + ("".join(f" {lib} queued, fraction |" for lib in libs) if gpu else "")
    rows.append(head)
    rows.append("|" + "---|" * (head.count("|") - 1))
    figures = []
    sync = syncs(dev, libs)
    rng = np.random.default_rng(0)
    for dt in args.dtypes.split(","):
        host = host_data(n, dt, rng, args.wide)
        data = {lib: library_data(lib, host, dev) for lib in libs}
        for name, (nbytes, impl) in ops.items():
            fns = {lib: (lambda f=impl[lib], d=data[lib]: f(d)) for lib in libs}
            t = timed_round_robin(fns, sync)
            moved = nbytes(data["rocarray"])
            best_peer = min((t[p_] for p_ in peers), default=float("nan"))
            frac = moved / t["rocarray"] / copy_bw
            queued = timed_queued(fns, sync) if gpu else {}
            rows.append(f"| {name} | {dt} | {t['rocarray'] * 1e3:.3f} | "
                        + " | ".join(f"{t[p_] * 1e3:.3f}" for p_ in peers)
                        + f" | {best_peer / t['rocarray']:.2f} | {frac:.2f} |"
                        + "".join(f" {moved / queued[lib] / copy_queued:.2f} |" for lib in queued))
            figures.append({"op": name, "dtype": dt, "n": n, "bytes": moved, "fraction_of_copy": frac,
                            **{f"{lib}_ms": t[lib] * 1e3 for lib in libs},
                            **{f"{lib}_queued_ms": queued[lib] * 1e3 for lib in queued},
                            **({"fraction_of_copy_queued": moved / queued["rocarray"] / copy_queued}
                               if queued else {})})
        del data
    report(rows, args.json, figures, copy_bw, copy_queued)


def report(rows: list, path, figures: list, copy_bw: float, copy_queued: float) -> None:
    """Print the report's rows; with ``path``, also write them, the copy's bandwidth (lone
    and queued) and the figures to that JSON file."""
    print("\n".join(rows))
    if path:
        with open(path, "w") as f:
            json.dump({"report": rows, "copy_bandwidth": copy_bw, "copy_bandwidth_queued": copy_queued,
                       "figures": figures}, f, indent=1)


if __name__ == "__main__":
    main()
