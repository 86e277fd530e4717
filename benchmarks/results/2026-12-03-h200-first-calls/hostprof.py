"""Host costs on the device machine: interpreter speed, a warm add, idle sync, a 0-d
read-back, and cProfile of the ranking program's slow steps."""
import time, cProfile, pstats, io, sys
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
S = rng.standard_normal((1000, 256)).astype(np.float32); L = rng.integers(0, 5000, 200000)
s, l = ra.asarray(S, device="cuda:0"), ra.asarray(L, device="cuda:0")
dev = s.device
def best(f, n=50):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return min(ts) * 1e6, sorted(ts)[n // 2] * 1e6
def py():
    for _ in range(1000): pass
print("1000 empty loop turns: %.1f / %.1f us" % best(py))
def calls():
    f = lambda: None
    for _ in range(100): f()
print("100 python calls: %.1f / %.1f us" % best(calls))
a = s + s; dev.synchronize()
print("s + s host: %.1f / %.1f us" % best(lambda: s + s))
dev.synchronize()
print("idle synchronize: %.1f / %.1f us" % best(dev.synchronize))
z = ra.sum(s); dev.synchronize()
print("0-d .get() (idle): %.1f / %.1f us" % best(lambda: z.get()))
print("int(min(l).get()): %.1f / %.1f us" % best(lambda: int(ra.min(l).get())))
print("reshape: %.1f / %.1f us" % best(lambda: ra.reshape(s, (-1,))))
print("empty: %.1f / %.1f us" % best(lambda: ra.empty((1000,), dtype=ra.float32, device=dev)))
cases = {"unique_counts": lambda: ra.unique_counts(l), "sort flat": lambda: ra.sort(ra.reshape(s, (-1,))),
         "argsort rows": lambda: ra.argsort(s, axis=1, descending=True), "sort rows": lambda: ra.sort(s, axis=1)}
for name, f in cases.items():
    for _ in range(3): f()
    drain_background(); dev.synchronize()
    print(f"{name}: host %.1f / %.1f us" % best(f, 30))
    pr = cProfile.Profile(); pr.enable()
    for _ in range(50): f()
    dev.synchronize()
    pr.disable()
    out = io.StringIO(); pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(18)
    print("\n".join(l_ for l_ in out.getvalue().splitlines()[6:] if l_.strip()))
