"""LLVM-side cost of a GPU sort's first call on this machine: the histogram's and the
onesweep's modules for sm_90, built and compiled one after the other in this process, or
the onesweep's by the compile process beside the histogram's here."""
import sys, threading, time, statistics
from rocarray import _launch, _radix_gpu
from rocarray.compiler import compile_process
from rocarray.targets import target_for
t = target_for("sm_90").heavy_tier

def spec(kind, pb, part):
    return _launch._full_spec(*_radix_gpu._module(kind, pb, part))

def here(s):
    m = s.build_module(t)
    return bytes(t.compile(m if isinstance(m, str) else str(m)))

compile_process.compile(t, None, spec("u64", 0, "hist").recipe)  # child started and warm
serial, overlap = [], []
for kind in ("u32", "f32", "u64", "f64") * 2:
    for pb in (0, 32):
        h, p = spec(kind, pb, "hist"), spec(kind, pb, "passes")
        t0 = time.perf_counter(); here(h); here(p); serial.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = []
        th = threading.Thread(target=lambda: out.append(compile_process.compile(t, None, p.recipe)))
        th.start(); here(h); th.join(); overlap.append(time.perf_counter() - t0)
        assert out[0] is not None
print(f"serial  median {1e3*statistics.median(serial):.0f} ms  {[round(1e3*x) for x in serial]}")
print(f"overlap median {1e3*statistics.median(overlap):.0f} ms  {[round(1e3*x) for x in overlap]}")
