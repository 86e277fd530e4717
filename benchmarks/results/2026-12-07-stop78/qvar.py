"""Why the benchmark's queued x[m] varies: per-round queued times (us a call) of rocarray, in the
benchmark's order (libraries in turn) and alone, in one process."""
import sys, time, statistics
sys.path.insert(0, "benchmarks")
import numpy as np
import bench_primitives as bp
import rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
libs = sys.argv[1].split(",")
N = 50
def rounds(fns, sync, k):
    out = {lib: [] for lib in fns}
    for _ in range(k):
        for lib, fn in fns.items():
            sync[lib](); t0 = time.perf_counter()
            for _ in range(N): fn()
            sync[lib](); out[lib].append((time.perf_counter() - t0) / N * 1e6)
    return out
_, cq = bp.copy_bandwidth(dev, 1 << 24)
print(f"queued copy {cq / 1e9:.1f} GB/s", flush=True)
sync = bp.syncs(dev, libs)
for dt in ("float32", "int64"):
    host = bp.host_data(1 << 24, np.dtype(dt), np.random.default_rng(0))
    data = {lib: bp.library_data(lib, host, dev) for lib in libs}
    for op in ("x[m], mask made before", "nonzero"):
        nbytes, impl = bp.OPS[op]
        fns = {lib: (lambda f=impl[lib], d=data[lib]: f(d)) for lib in libs}
        bp.timed_round_robin(fns, sync)
        moved = nbytes(data["rocarray"])
        f = lambda us: moved / (us * 1e-6) / cq
        for label, k, only in (("in turn", 6, False), ("alone", 6, True), ("in turn", 6, False)):
            r = rounds({"rocarray": fns["rocarray"]} if only else fns, sync, k)["rocarray"]
            print(f"{dt} {op[:8]:8s} {label:8s} rocarray us/call: " + " ".join(f"{v:.1f}" for v in r)
                  + f"  fractions {f(min(r)):.2f} best, {f(statistics.median(r)):.2f} median", flush=True)
