"""Dump the LLVM IR text of every hand-built GPU module (and a reduction / chain scan) for
sm_90 and gfx942 to a directory, so two trees can be compared."""
import os, sys, hashlib
from llvmlite import ir
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget
from rocarray.compiler import compact_gpu, extremes_gpu, radix_gpu, gather_gpu
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
def mod(t, name, fn):
    m = ir.Module(name); m.triple = t.triple; m.data_layout = t.data_layout
    fn(m); return str(m)
for t in (target_for("sm_90"), AMDGPUTarget("gfx942")):
    items = []
    for s in compact_gpu.SIZES:
        items.append((f"compact{s}", lambda m, s=s: compact_gpu.build_compact_module(m, t, "e", s)))
    for k in compact_gpu.RUN_KINDS:
        items.append((f"runs{k}", lambda m, k=k: compact_gpu.build_runs_module(m, t, "e", k)))
    for s in extremes_gpu.SIZES:
        items.append((f"ext{s}", lambda m, s=s: extremes_gpu.build_extremes_module(m, t, "e", s)))
    for kk in radix_gpu.KEY_KINDS:
        for pb in (0, 32, 64):
            items.append((f"radix{kk}_{pb}", lambda m, kk=kk, pb=pb: radix_gpu.build_radix_module(m, t, "e", kk, pb)))
    for size in (1, 2, 4, 8, 16):
        items.append((f"transpose{size}", lambda m, size=size: gather_gpu.build_transpose(m, t, "e", size)))
    for name, fn in items:
        open(os.path.join(out, f"{t.name}_{name}.ll"), "w").write(mod(t, name, fn))
print(len(os.listdir(out)), "modules")
