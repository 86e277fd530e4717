"""Device-wide parallel primitives with one Python entry each: scans (inclusive and
exclusive, any associative operation, any axis) for the ops that build on them.

``scan`` is the entry other ops use (compaction offsets, digit counts of a radix sort,
``cumulative_sum``): it runs the reduction engine's scan module (rocarray/_reduction.py,
``scan``), compiled once per (operation, dtypes) and device -- never per size -- so a new
length or axis compiles nothing.  On the host each line is cut into chunks scanned on all
threads (chunk totals in parallel, a short scan of the totals, the chunks again from their
carry, the last-read first); on GPUs the same three passes run with one wave per (line,
chunk) and shuffle scans.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._array_object import Array
from ._reduction import ReductionDef, _reduction, _scan_plans, scan as _engine_scan
from ._user_kernels import ReductionKernel
from ._views import normalize_axes

#: operation names accepted by ``scan`` -> the reduction of the catalogue that folds them
SCAN_OPS = {"sum": "sum", "prod": "prod", "max": "max", "min": "min",
            "logical_and": "all", "logical_or": "any"}
_ops = {name: _reduction(row) for name, row in SCAN_OPS.items()}


def _definition(name: str, op, x: Array, dtype, include_initial: bool) -> ReductionDef:
    """The reduction definition scanning ``x`` with ``op`` (a name of ``SCAN_OPS`` or a
    ``ReductionKernel`` of one input and one output), the identity in front with
    ``include_initial``."""
    if isinstance(op, ReductionKernel):
        if op.nin != 1 or op.nout != 1:
            raise ValueError(f"{name}: a ReductionKernel used as a scan must have one input and one "
                             f"output, '{op.name}' has {op.nin} and {op.nout}")
        out_dtypes = () if dtype is None else (_dtypes.as_dtype(dtype),)
        rdef, _, _ = op._plan((x.dtype,), out_dtypes)
        return rdef
    if not isinstance(op, str) or op not in _ops:
        raise ValueError(f"{name}: op must be one of {', '.join(sorted(SCAN_OPS))} or a "
                         f"ReductionKernel, not {op!r}")
    rop = _ops[op]
    if rop.row.acc in ("bool", "same") and dtype is not None:
        raise TypeError(f"{name}: dtype= is accepted for 'sum' and 'prod' only, not for {op!r}")
    acc_dt, out_dt = rop.dtypes(x.dtype, dtype)
    return rop.scan_definition(x.dtype, acc_dt, out_dt, include_initial)


def scan(x, /, op="sum", *, axis=-1, exclusive=False, dtype=None, include_initial=False):
    """The running fold of ``x`` along ``axis`` with the associative operation ``op``.

    ``op``: ``'sum'``, ``'prod'``, ``'max'``, ``'min'``, ``'logical_and'``, ``'logical_or'``,
    or a ``ReductionKernel`` with one input and one output (its ``map``, ``reduce``,
    ``post_map`` and identity; its reduce must be associative).  Inclusive by default:
    ``out[k]`` folds ``x[0..k]``.  ``exclusive=True`` gives ``out[k]`` folding
    ``x[0..k-1]``, ``out[0]`` being the identity (post-mapped).  ``include_initial=True``
    gives the inclusive scan with the identity in front (one longer along ``axis``, the
    standard's ``cumulative_sum`` argument).  ``dtype`` (sum and prod, or the kernel's
    output type) as in ``cumulative_sum``: integers and bools widen to int64/uint64 unless
    given.  Output dtypes: sum/prod as ``cumulative_sum``/``cumulative_prod``, max/min keep
    ``x``'s dtype, the logical operations give bool.

    Differences from NumPy: the identity of max/min in an exclusive scan is the lowest /
    highest value of the dtype (``-inf`` / ``inf`` for floats); NaN propagates as in
    ``np.maximum.accumulate``; complex max/min are a ``TypeError``.  Float sums are folded
    chunk by chunk in parallel, so the last bits can differ from NumPy's serial loop.

    >>> import rocarray as ra
    >>> ra.scan(ra.asarray([3, 1, 4, 1, 5]), "max")
    array([3, 3, 4, 4, 5])
    >>> ra.scan(ra.asarray([3, 1, 4]), exclusive=True)
    array([0, 3, 4])
    """
    name = "scan"
    # the warm path: a layout seen before goes straight to its launch plan
    try:
        key = (scan, op, axis, exclusive, dtype, include_initial, x._shape, x._strides, x._dtype, x._buf.device)
        plan = _scan_plans.get(key)
    except (AttributeError, TypeError):  # not an array, or an unhashable argument
        plan = key = None
    if plan is not None and plan.code is plan.kernel.code:
        full = plan.run(x)
        return full[plan.exclusive_view] if exclusive else full
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"{name}: expected an array of at least one dimension, got a 0-d array")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}: axis must be an int, not {type(axis).__name__}")
    if exclusive and include_initial:
        raise ValueError(f"{name}: exclusive=True and include_initial=True exclude each other")
    (axis,) = normalize_axes(int(axis), x.ndim, name)
    rdef = _definition(name, op, x, dtype, bool(exclusive or include_initial))
    if not exclusive:
        return _engine_scan(rdef, x, axis, bool(include_initial), plan_alias=key)
    # the inclusive scan with the identity in front, less its last position
    full = _engine_scan(rdef, x, axis, True, plan_alias=key)
    return full[tuple(slice(None, -1) if d == axis else slice(None) for d in range(x.ndim))]


def exclusive_scan(x, /, op="sum", *, axis=-1, dtype=None):
    """``scan(x, op, axis=axis, exclusive=True, dtype=dtype)``: ``out[k]`` folds the
    elements before ``k`` (``out[0]`` is the identity), e.g. the write offsets of a
    compaction or of a radix sort's digit counts.

    >>> import rocarray as ra
    >>> ra.exclusive_scan(ra.asarray([2, 0, 3, 1]))
    array([0, 2, 2, 5])
    """
    return scan(x, op, axis=axis, exclusive=True, dtype=dtype)
