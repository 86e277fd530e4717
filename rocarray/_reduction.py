"""Reductions from catalogue rows (kernels/reductions.py): axes, keepdims, dtypes, launch.

Each (reduction, input dtype, accumulator dtype) compiles one kernel on each device; axes,
shapes and strides are run-time arguments (kept and reduced dimensions are merged
separately), so a new axis or shape compiles nothing.

Note: this is the first strategy of the reduction issue -- one loop iteration (host) or one
GPU thread per output element, folding its run serially.  It is exact for integers, bools,
min and max, and fast when the output is large; the block/wave tree reductions for small
outputs and pairwise float sums are still to come (docs/status.md).
"""

from __future__ import annotations

import struct

import numpy as np

from . import _dtypes
from ._array_object import Array, _prod
from ._kernels import catalogue
from ._launch import KernelSpec, load
from ._layout import merge_dims, pad_dims
from ._manipulation_functions import normalize_axes
from .compiler.skeletons import build_reduction
from .targets.base import MAX_DIMS

_ACCEPTS = {"numeric": "biufc", "real": "biuf", "any": "biufc"}
_PACKER = struct.Struct(f"<qq{MAX_DIMS}qq{MAX_DIMS}qqQ{MAX_DIMS}q{MAX_DIMS}qQ{MAX_DIMS}q")


def _step_for(row, dtype: np.dtype) -> str:
    if isinstance(row.step, str):
        return row.step
    for kinds, src in row.step.items():
        if dtype.kind in kinds:
            return src
    raise TypeError(f"{row.name}: dtype {dtype} is not supported")


class ReductionOp:
    """A reduction of the catalogue, callable as ``op(x, axis=None, keepdims=False)``."""

    def __init__(self, row):
        self.row = row
        self.__name__ = row.name
        self._specs: dict = {}

    def __repr__(self):
        return f"<rocarray reduction {self.row.name}>"

    def dtypes(self, dtype: np.dtype, requested=None):
        """(accumulator dtype, output dtype) for input ``dtype``."""
        row = self.row
        if dtype.kind not in _ACCEPTS[row.accepts]:
            raise TypeError(f"{row.name}: dtype {dtype} is not supported (complex numbers have no order)")
        if row.acc == "bool":
            return _dtypes.bool, _dtypes.bool
        if requested is not None:
            out = _dtypes.as_dtype(requested)
            if dtype.kind == "c" and out.kind != "c":
                raise TypeError(f"{row.name}: cannot reduce complex {dtype} into {out}")
        elif row.acc == "sum":
            if dtype.kind in "bi":
                out = _dtypes.int64
            elif dtype.kind == "u":
                out = _dtypes.uint64
            else:
                out = dtype
        else:
            out = dtype
        acc = _dtypes.float32 if out == _dtypes.float16 else out
        return acc, out

    def _spec(self, in_dt, acc_dt, out_dt) -> KernelSpec:
        row = self.row
        step = _step_for(row, in_dt)
        key = ("red", row.name, row.init or "", step, str(in_dt), str(acc_dt), str(out_dt))
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        typedefs = {"acc_type": acc_dt, "in0_type": in_dt, "out0_type": out_dt}
        name = row.name

        def build_kernel(module, target, entry):
            from .compiler.lang import compile_scalar_function

            def fn(suffix, params, body):
                return compile_scalar_function(module, f"{name}_{suffix}", params, body,
                                               typedefs=typedefs, target=target, kernel_name=name)

            init = first = None
            if row.init is not None:
                init = fn("init", [("acc", acc_dt, "out")], row.init)
            else:
                first = fn("first", [("in0", in_dt, "in"), ("acc", acc_dt, "out")], "acc = in0;")
            step_fn = fn("step", [("in0", in_dt, "in"), ("acc", acc_dt, "inout")], step)
            post = fn("post", [("acc", acc_dt, "in"), ("out0", out_dt, "out")], "out0 = acc;")
            build_reduction(target, entry, in_dt, acc_dt, out_dt, first, init, step_fn, post, module)

        spec = KernelSpec(key, name, (), None, build_kernel=build_kernel, packer=_PACKER)
        return self._specs.setdefault(key, spec)

    def __call__(self, x, /, *, axis=None, keepdims=False, dtype=None):
        row = self.row
        if not isinstance(x, Array):
            raise TypeError(f"{row.name}: expected a rocarray array, got {type(x).__name__}")
        axes = normalize_axes(axis, x.ndim, row.name)
        acc_dt, out_dt = self.dtypes(x.dtype, dtype)
        kept = [d for d in range(x.ndim) if d not in axes]
        kept_shape = tuple(x.shape[d] for d in kept)
        red_shape = tuple(x.shape[d] for d in axes)
        n_red = _prod(red_shape)
        out_shape = tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)) if keepdims else kept_shape
        if n_red == 0 and row.init is None and _prod(kept_shape) != 0:
            raise ValueError(
                f"{row.name}: zero-size reduction (axes {axes} of shape {x.shape}) has no identity"
            )
        out = Array._empty(out_shape, out_dt, x.device)
        n_out = out.size
        if n_out == 0:
            return out
        out_strides = out._strides if not keepdims else tuple(
            s for d, s in enumerate(out._strides) if d not in axes)
        in_k = tuple(x.strides[d] for d in kept)
        in_r = tuple(x.strides[d] for d in axes)
        shape_k, (sk_in, sk_out) = merge_dims(kept_shape, [in_k, out_strides])
        shape_r, (sr_in,) = merge_dims(red_shape, [in_r]) if n_red else ((0,), [(0,)])
        if len(shape_k) > MAX_DIMS or len(shape_r) > MAX_DIMS:
            # lay the input out as (kept..., reduced...) contiguously: two merged dims
            from ._manipulation_functions import permute_dims
            from ._transfer import contiguous

            y = contiguous(permute_dims(x, tuple(kept) + tuple(axes)))
            shape_k, (sk_in, sk_out) = merge_dims(kept_shape, [y.strides[:len(kept)], out_strides])
            shape_r, (sr_in,) = merge_dims(red_shape, [y.strides[len(kept):]])
            x = y
        kernel = load(self._spec(x.dtype, acc_dt, out_dt), x.device)
        values = [len(shape_k), *pad_dims(shape_k, 1), len(shape_r), *pad_dims(shape_r, 1), n_red,
                  x._buf.ptr + x._offset, *pad_dims(sk_in, 0), *pad_dims(sr_in, 0),
                  out._buf.ptr, *pad_dims(sk_out, 0)]
        kernel.launch(n_out, values)
        return out


_rows = {row.name: row for row in catalogue().reductions.REDUCTIONS}


def _reduction(name: str) -> ReductionOp:
    return ReductionOp(_rows[name])
