"""bench_elementwise's throughput table alone (python tp.py DEVICE)."""
import sys
sys.path.insert(0, "benchmarks")
import bench_elementwise as be
import rocarray as ra
print(ra.__file__)
dev = ra.Device(sys.argv[1] if len(sys.argv) > 1 else "cpu")
rows = be.machine(dev)
be.throughput(dev, rows, False)
print("\n".join(rows))
