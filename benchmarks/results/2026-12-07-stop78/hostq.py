"""Host time to issue N queued calls of an op (no wait) against the time until the device is done."""
import sys, time, statistics
sys.path.insert(0, "benchmarks")
import numpy as np
import bench_primitives as bp
import rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device(sys.argv[1] if len(sys.argv) > 1 else "cuda:0")
N = 50
for dt in ("float32", "int64"):
    host = bp.host_data(1 << 24, np.dtype(dt), np.random.default_rng(0))
    data = bp.library_data("rocarray", host, dev)
    sync = bp.syncs(dev, ["rocarray"])["rocarray"]
    for op in ("x[m], mask made before", "nonzero", "x[x > 0]", "x[x > 0] = v", "cumulative_sum"):
        fn = bp.OPS[op][1]["rocarray"]
        for _ in range(5): fn(data)
        sync(); drain_background()
        issue, total = [], []
        for _ in range(7):
            sync(); t0 = time.perf_counter()
            for _ in range(N): fn(data)
            t1 = time.perf_counter(); sync(); t2 = time.perf_counter()
            issue.append((t1 - t0) / N * 1e6); total.append((t2 - t0) / N * 1e6)
        print(f"{dt:8s} {op:24s} host issue {statistics.median(issue):6.1f} us/call, until done {statistics.median(total):6.1f} us/call", flush=True)
