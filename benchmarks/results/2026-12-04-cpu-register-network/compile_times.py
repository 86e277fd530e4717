"""Build (Python, llvmlite's IR builder) and compile (LLVM) times of the host network's
sort modules, one per key kind, on the heavy tier's pipeline.  Run once per tree:
``PYTHONPATH=<tree> python compile_times.py``."""

import time

from llvmlite import ir

from rocarray.compiler import network_host
from rocarray.targets import target_for
from rocarray.targets.host import host_config

t = target_for("host").configured(host_config(2))
for arg in (False, True):
    parts = []
    for kind in ["i4", "f4", "i8", "f8"]:
        m = ir.Module("n")
        m.triple, m.data_layout = t.triple, t.data_layout
        s = time.perf_counter()
        network_host.build_network_module(m, t, "entry", kind, arg)
        text = str(m)
        built = time.perf_counter() - s
        s = time.perf_counter()
        t.compile(text)
        parts.append(f"{kind}: build {built * 1e3:.0f} ms, compile {(time.perf_counter() - s) * 1e3:.0f} ms, "
                     f"{len(text) // 1000} kB of IR")
    print("argsort" if arg else "sort", "; ".join(parts))
