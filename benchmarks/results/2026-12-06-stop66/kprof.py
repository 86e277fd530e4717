"""One call of each op per library under ncu (profiling window opened after warm-up); a cupy
marker kernel named after the op before each, so the kernels can be told apart."""
import sys, os
sys.path.insert(0, "benchmarks")
import numpy as np
import bench_primitives as bp
import rocarray as ra, cupy, torch
import cupy.cuda.profiler as cuprof
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
libs = sys.argv[2].split(",") if len(sys.argv) > 2 else ["rocarray"]
ops = [o for o in bp.OPS if any(s in o for s in sys.argv[3].split(","))] if len(sys.argv) > 3 else list(bp.OPS)
host = bp.host_data(1 << 24, np.dtype(sys.argv[1]), np.random.default_rng(0))
data = {lib: bp.library_data(lib, host, dev) for lib in libs}
sync = bp.syncs(dev, libs)
marks = {}
for i, op in enumerate(ops):
    marks[op] = cupy.RawKernel('extern "C" __global__ void MARK_%d() {}' % i, "MARK_%d" % i)
for op in ops:
    for lib in libs:
        for _ in range(3):
            bp.OPS[op][1][lib](data[lib])
        sync[lib]()
    drain_background()
    marks[op]((1,), (1,), ())
cupy.cuda.Device().synchronize()
for op in ops:
    for lib in libs:
        bp.OPS[op][1][lib](data[lib])
        sync[lib]()
for i, op in enumerate(ops):
    print(f"MARK_{i} = {op}")
cuprof.start()
for op in ops:
    for lib in libs:
        marks[op]((1,), (1,), ())
        cupy.cuda.Device().synchronize()
        bp.OPS[op][1][lib](data[lib])
        sync[lib]()
cuprof.stop()
