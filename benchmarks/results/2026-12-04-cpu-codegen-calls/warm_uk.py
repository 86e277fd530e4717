"""bench_user_kernels' warm per-call table alone (python warm_uk.py DEVICE)."""
import sys
sys.path.insert(0, "benchmarks")
import bench_user_kernels as bu
import rocarray as ra
dev = ra.Device(sys.argv[1] if len(sys.argv) > 1 else "cuda:0")
import bench_elementwise as be
rows = be.machine(dev)
bu.warm(dev, rows)
print("\n".join(rows))
