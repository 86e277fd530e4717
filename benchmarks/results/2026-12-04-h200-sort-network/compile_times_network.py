"""Build, LLVM and nvJitLink time of the sorting network's modules for sm_90 (no GPU needed:
nvJitLink is a host library).  CUDA_CACHE_DISABLE=1 python compile_times_network.py"""
import time

from llvmlite import ir

from rocarray.compiler.network_gpu import build_network_module
from rocarray.targets.nvptx import NVPTXTarget

t = NVPTXTarget("sm_90")
t.assemble(".version 7.8\n.target sm_90\n.address_size 64\n")  # (nvJitLink's first load, not counted)
for bits in (32, 64):
    m = ir.Module(name="m")
    m.triple, m.data_layout = t.triple, t.data_layout
    t0 = time.perf_counter()
    build_network_module(m, t, "rk_net", bits)
    t1 = time.perf_counter()
    ptx = t.emit_ptx(m)
    t2 = time.perf_counter()
    t.assemble(ptx)
    t3 = time.perf_counter()
    print(f"network u{bits}: build {1e3 * (t1 - t0):.1f} ms, llvm->ptx {1e3 * (t2 - t1):.1f} ms "
          f"({len(ptx.splitlines())} lines), nvjitlink {1e3 * (t3 - t2):.1f} ms")
