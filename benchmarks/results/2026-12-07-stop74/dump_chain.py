import os, sys
from llvmlite import ir
from rocarray import _dtypes
from rocarray import _statistical_functions as stats
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
for t in (target_for("sm_90"), AMDGPUTarget("gfx942")):
    for dtype, o, op in ((_dtypes.float32, None, stats.sum), (_dtypes.float64, None, stats.prod), (_dtypes.int8, None, stats.sum),
                         (_dtypes.float16, None, stats.sum), (_dtypes.int64, _dtypes.int8, stats.sum), (_dtypes.bool, None, stats.sum)):
        acc, out_dt = op.dtypes(dtype, o)
        key, make = op.definition(dtype, acc, out_dt).chain_module()
        _, build, packer, entries = make()
        m = ir.Module("chain"); m.triple = t.triple; m.data_layout = t.data_layout
        build(m, t, "rk_chain")
        open(os.path.join(out, f"{t.name}_{dtype}_{out_dt}_{op.__name__ if hasattr(op,'__name__') else id(op)}.ll"), "w").write(str(m))
print(len(os.listdir(out)))
