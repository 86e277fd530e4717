"""bench_elementwise's warm per-call tables alone, on cuda:0 (python warm_tables.py)."""
import sys
sys.path.insert(0, "benchmarks")
import bench_elementwise as be
import rocarray as ra
dev = ra.Device(sys.argv[1] if len(sys.argv) > 1 else "cuda:0")
rows = be.machine(dev)
be.warm_calls(dev, rows)
print("\n".join(rows))
