"""Stop 76: host time of a 64 MiB block's malloc / free, with and without a shrink to half
between them (MemoryPool over the fake hooks; run from the repository root)."""
import sys
import time

sys.path.insert(0, "tests/runtime")
from _fake_hooks import FakeHooks  # noqa: E402
from rocarray.runtime.pool import MemoryPool  # noqa: E402

pool = MemoryPool(FakeHooks())


def cycle(cut):
    p = pool.malloc(64 << 20)
    if cut:
        pool.shrink(p, 32 << 20)
    pool.free(p)


for cut in (False, True, False, True):
    for _ in range(1000):
        cycle(cut)
    t = time.perf_counter()
    for _ in range(20000):
        cycle(cut)
    print("with shrink" if cut else "no shrink  ", f"{(time.perf_counter() - t) / 20000 * 1e6:.2f} us a cycle")
