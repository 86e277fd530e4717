"""The final reduction of a fused function: the traced elementwise body becomes the map of
one ``ReductionDef`` (rocarray/_reduction.py), so ``sum(x * y + z)`` reads its inputs once and
writes only the reduced result.

The accumulator, identity, combine step and result dtype follow the unfused reductions
(kernels/reductions.py): ``sum``/``prod`` widen bools and integers to int64/uint64 and
accumulate float16 in float32; ``max``/``min`` propagate NaN and have no identity (an empty
reduction is a ValueError, as unfused).
"""

from __future__ import annotations

import numpy as np

from ._array_object import _prod
from ._manipulation_functions import normalize_axes

_COMBINE = {
    "sum": ("a = 0;", "a = a + b;"),
    "prod": ("a = 1;", "a = a * b;"),
    "max": (None, {"biu": "if (b > a) a = b;",
                   "f": "if (!isnan(a) && (isnan(b) || b > a)) a = b;"}),
    "min": (None, {"biu": "if (b < a) a = b;",
                   "f": "if (!isnan(a) && (isnan(b) || b < a)) a = b;"}),
}


def _extreme_identity(name: str, dt: np.dtype) -> str:
    """A start value that every element replaces (max: the lowest value, min: the highest)."""
    low = name == "max"
    if dt.kind == "f":
        return "a = -INFINITY;" if low else "a = INFINITY;"
    if dt.kind == "b":
        return "a = false;" if low else "a = true;"
    info = np.iinfo(dt)
    v = int(info.min if low else info.max)
    if dt.kind == "i" and v == int(np.iinfo(np.int64).min):
        return "a = (_type_reduce)(-9223372036854775807LL - 1);"
    return f"a = (_type_reduce){v}{'ULL' if dt.kind == 'u' else 'LL'};"


def _dtypes(name: str, dt: np.dtype, requested, fname: str):
    """(accumulator dtype, output dtype) as the unfused reduction of that name."""
    import rocarray

    op = getattr(rocarray, name)
    try:
        return op.dtypes(dt, requested)
    except TypeError as e:
        raise TypeError(f"fuse '{fname}': {e}") from None


def build_fused_reduction(fname, trace, in_params_text, body, scalar_slots, reduction):
    """A callable ``(kernel_args, device) -> Array`` running the fused map + reduction."""
    from ._reduction import ReductionDef, reduce

    name = reduction["name"]
    var = reduction["var"]
    dt = var.dtype
    acc, out = _dtypes(name, dt, reduction["dtype"], fname)
    identity, combine = _COMBINE[name]
    if isinstance(combine, dict):
        combine = next(src for kinds, src in combine.items() if acc.kind in kinds)
        identity = _extreme_identity(name, acc)
        empty_ok = False
    else:
        empty_ok = True
    inputs = [(f"a{k}", trace.in_dtypes[k]) for k in range(trace.n_arrays)]
    inputs += [(f"s{j}", lt) for j, (_, lt) in enumerate(scalar_slots)]
    # the traced body ends with "o0 = <value>;": o0 becomes a local of the value's dtype
    map_src = f"{dt} o0;\n{{\n{body}\n}}\na = (_type_reduce)o0;"
    rdef = ReductionDef(
        f"{fname}_{name}", tuple(inputs), (("a", "b", acc),), identity, map_src, combine,
        (("y", out),), "y = (out_type)a;", typedefs={"_type_reduce": acc, "out_type": out})
    axis, keepdims = reduction["axis"], reduction["keepdims"]
    n_arrays = trace.n_arrays

    def run(kargs, device):
        from ._manipulation_functions import broadcast_shapes
        from ._user_kernels import _scalar_array

        arrays = list(kargs[:n_arrays])
        shape = broadcast_shapes(*(a.shape for a in arrays))
        if not empty_ok:
            axes = normalize_axes(axis, len(shape), name)
            kept = [shape[d] for d in range(len(shape)) if d not in axes]
            if _prod(shape[d] for d in axes) == 0 and _prod(kept) != 0:
                raise ValueError(f"fuse '{fname}': zero-size reduction (axes {axes} of shape "
                                 f"{shape}) has no identity for {name}")
        arrays += [_scalar_array(v, lt, device, fname)
                   for v, (_, lt) in zip(kargs[n_arrays:], scalar_slots)]
        return reduce(rdef, arrays, axis=axis, keepdims=keepdims)[0]

    return run
