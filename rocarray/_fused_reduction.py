"""The final reduction of a fused function: the traced elementwise body becomes the map of
one ``ReductionDef`` (rocarray/_reduction.py), so ``sum(x * y + z)`` reads its inputs once and
writes only the reduced result.

The accumulator fields, identity, combine step, post step and dtypes are those of the unfused
reduction's own definition (``ReductionOp.definition``, from kernels/reductions.py): only the
map changes, from "read ``in0``" to "compute ``in0`` from the fused inputs".  So a fused
``sum`` accumulates exactly as ``rocarray.sum`` of the unfused expression does.
"""

from __future__ import annotations

from . import _statistical_functions
from ._array_object import _prod
from ._reduction import ReductionDef, reduce
from ._user_kernels import _scalar_array
from ._views import broadcast_shapes, normalize_axes


def build_fused_reduction(fname, trace, body, scalar_slots, reduction):
    """A callable ``(kernel_args, device) -> Array`` running the fused map + reduction."""
    name = reduction["name"]
    op = getattr(_statistical_functions, name)
    dt = reduction["var"].dtype
    try:
        acc, out = op.dtypes(dt, reduction["dtype"])
    except TypeError as e:
        raise TypeError(f"fuse '{fname}': {e}") from None
    base = op.definition(dt, acc, out)
    inputs = [(f"a{k}", trace.in_dtypes[k]) for k in range(trace.n_arrays)]
    inputs += [(f"s{j}", lt) for j, (_, lt) in enumerate(scalar_slots)]
    # the traced body ends with "o0 = <value>;": o0 becomes a local, then the unfused
    # reduction's map reads it as its element in0
    map_src = (f"in0_type o0;\n{{\n{body}\n}}\nin0_type in0 = o0;\n{{\n{base.map}\n}}")
    rdef = ReductionDef(f"{fname}_{name}", tuple(inputs), base.fields, base.identity, map_src,
                        base.reduce, base.outputs, base.post, typedefs=base.typedefs)
    axis, keepdims = reduction["axis"], reduction["keepdims"]
    n_arrays = trace.n_arrays
    empty_error = op.row.empty_error

    def run(kargs, device):
        arrays = list(kargs[:n_arrays])
        if empty_error:
            shape = broadcast_shapes(*(a.shape for a in arrays))
            axes = normalize_axes(axis, len(shape), name)
            kept = [shape[d] for d in range(len(shape)) if d not in axes]
            if _prod([shape[d] for d in axes]) == 0 and _prod(kept) != 0:
                raise ValueError(f"fuse '{fname}': zero-size reduction (axes {axes} of shape "
                                 f"{shape}) has no identity for {name}")
        arrays += [_scalar_array(v, lt, device, fname)
                   for v, (_, lt) in zip(kargs[n_arrays:], scalar_slots)]
        return reduce(rdef, arrays, axis=axis, keepdims=keepdims)[0]

    return run
