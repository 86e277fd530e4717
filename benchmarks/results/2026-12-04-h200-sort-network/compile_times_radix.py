import sys, time
sys.path.insert(0, ".")
from llvmlite import ir
from rocarray.targets.nvptx import NVPTXTarget
from rocarray.compiler.radix_gpu import build_radix_module, PARTS
t = NVPTXTarget("sm_90")
print("assembler", t.assembler)
cases = [(k, p, part) for k, p, part in [("u32",0,"block"),("u32",32,"block"),("f32",0,"block"),("u32",0,"hist"),("u32",0,"passes"),("u32",32,"passes"),("u64",64,"passes")]]
for kk, pb, part in cases:
    (suffix,) = PARTS[part]
    m = ir.Module(name="m"); m.triple = t.triple if hasattr(t, "triple") else m.triple
    t0 = time.perf_counter()
    build_radix_module(m, t, "k", kk, pb, (suffix,))
    t1 = time.perf_counter()
    ptx = t.emit_ptx(m)
    t2 = time.perf_counter()
    cub = t.assemble(ptx)
    t3 = time.perf_counter()
    print(f"{kk} p{pb} {part}: build {1e3*(t1-t0):.1f} ms, llvm->ptx {1e3*(t2-t1):.1f} ms ({len(ptx.splitlines())} lines), nvjitlink {1e3*(t3-t2):.1f} ms")
