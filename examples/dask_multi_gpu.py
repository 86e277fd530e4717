"""Dask with one worker process per GPU, each worker's rocarray on the device it is given.

Each worker is a ``distributed`` Nanny process started with ``CUDA_VISIBLE_DEVICES=i``
(``HIP_VISIBLE_DEVICES=i`` on ROCm) and ``ROCARRAY_DEVICE=cuda:0``: the driver shows the
worker only its own GPU, so rocarray's default device there is GPU ``i`` of the machine.
Parts of the data are made on the workers and stay on their GPUs between tasks (a task's
result is held in its worker's memory); a task given a part held by another worker gets
it pickled over, and rocarray unpickles it onto the receiving worker's device.

    python examples/dask_multi_gpu.py              # one worker per GPU found, else 2 CPU workers
    python examples/dask_multi_gpu.py --cpu 3      # three CPU workers (no GPU needed)
    python examples/dask_multi_gpu.py --size 50000000

Needs ``dask`` and ``distributed`` (``pip install "dask[distributed]"``).  Exits 1 when a
result differs from NumPy's.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

import numpy as np

import rocarray as ra


# -- what runs on the workers ------------------------------------------------------------


def worker_device() -> str:
    """The device this worker's rocarray computes on, and what the driver calls it."""
    device = ra.asarray([0.0]).device
    name = "CPU" if device.kind == "cpu" else device.runtime.device_name(device.index)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES") or "-"
    return f"{device} ({name}; visible devices: {visible}; pid {os.getpid()})"


def make_part(seed: int, n: int):
    """Part ``seed`` of the data, made on this worker's device (it stays there)."""
    host = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    return ra.asarray(host)


def part_stats(x) -> tuple[float, float, str]:
    """Sum of sin(x)**2 and the maximum of one part, computed on the device it lives on."""
    return float(ra.sum(ra.sin(x) ** 2)), float(ra.max(x)), str(x.device)


def add_parts(x, y):
    """x + 2 y: one of the two parts came from another worker, unpickled onto this one's device."""
    return x + 2 * y


# -- the driver program ------------------------------------------------------------------


def _gpus() -> tuple[str, int]:
    """(kind, count) of the GPUs of this machine, CUDA first; ("cpu", 0) when none."""
    for kind in ("cuda", "hip"):
        count = sum(1 for d in ra.available_devices() if d.kind == kind)
        if count:
            return kind, count
    return "cpu", 0


def start_cluster(kind: str, workers: int):
    """A cluster of ``workers`` single-threaded worker processes, worker ``i`` on GPU ``i``
    (``kind`` "cuda" or "hip") or on the CPU (``kind`` "cpu")."""
    from distributed import Nanny, Scheduler, SpecCluster

    visible = {"cuda": "CUDA_VISIBLE_DEVICES", "hip": "HIP_VISIBLE_DEVICES"}
    spec = {}
    for i in range(workers):
        env = {"ROCARRAY_DEVICE": "cpu" if kind == "cpu" else f"{kind}:0"}
        if kind != "cpu":
            env[visible[kind]] = str(i)
        spec[f"{kind}-{i}"] = {"cls": Nanny, "options": {"nthreads": 1, "env": env, "silence_logs": logging.ERROR}}
    return SpecCluster(workers=spec, scheduler={"cls": Scheduler, "options": {"dashboard": False}},
                       silence_logs=logging.ERROR)


def run(kind: str, workers: int, n: int) -> bool:
    """Run the example on ``workers`` workers of ``kind``; True when every result matches NumPy's."""
    from distributed import Client

    with start_cluster(kind, workers) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        by_name = {info["name"]: address for address, info in client.scheduler_info()["workers"].items()}
        names = sorted(by_name)
        print(f"{workers} {kind} worker(s):")
        for name in names:
            print(f"  {name}: {client.submit(worker_device, workers=[by_name[name]], pure=False).result()}")

        # one part per worker, made there and kept there
        parts = [client.submit(make_part, seed, n, workers=[by_name[name]]) for seed, name in enumerate(names)]
        stats = client.gather([client.submit(part_stats, part, workers=[by_name[name]])
                               for part, name in zip(parts, names)])
        ok = True
        for seed, (name, (total, largest, device)) in enumerate(zip(names, stats)):
            host = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
            want = float(np.sum(np.sin(host.astype(np.float64)) ** 2))
            good = abs(total - want) <= 1e-4 * abs(want) and largest == float(host.max())
            ok &= good
            print(f"  part {seed} on {name} ({device}): sum(sin(x)**2) = {total:.6g} "
                  f"(NumPy {want:.6g}), max = {largest:.6g}  {'ok' if good else 'WRONG'}")

        # a task on the last worker using the first worker's part: dask moves it over
        moved = client.submit(add_parts, parts[-1], parts[0], workers=[by_name[names[-1]]])
        result = client.submit(lambda z: (z.get(), str(z.device)), moved, workers=[by_name[names[-1]]]).result()
        first = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        last = np.random.default_rng(len(names) - 1).standard_normal(n).astype(np.float32)
        good = np.allclose(result[0], last + 2 * first, rtol=1e-6, atol=1e-6)
        ok &= good
        print(f"  part {len(names) - 1} + 2 * part 0 on {names[-1]} ({result[1]}): "
              f"{'ok' if good else 'WRONG'}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=int, metavar="N", help="run N CPU workers instead of one per GPU")
    parser.add_argument("--size", type=int, default=1_000_000, help="elements per part (default 1e6)")
    args = parser.parse_args(argv)
    if args.size < 1:
        parser.error("--size must be at least 1")
    try:
        import distributed  # noqa: F401
    except ImportError:
        print('this example needs dask and distributed: pip install "dask[distributed]"', file=sys.stderr)
        return 2
    if args.cpu is not None:
        if args.cpu < 1:
            parser.error("--cpu must be at least 1")
        kind, workers = "cpu", args.cpu
    else:
        kind, workers = _gpus()
        if kind == "cpu":
            workers = 2
    return 0 if run(kind, workers, args.size) else 1


if __name__ == "__main__":
    sys.exit(main())
