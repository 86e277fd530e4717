"""The elementwise engine: ops from catalogue rows (``Ufunc``), and the copy op.

A ``Ufunc`` resolves dtypes once per signature into a ``_Plan`` (the loaded kernel and its
warm runner); its call is ``_warm.warm_call``'s, and everything else -- broadcasting,
strides, ``out=``, dimension merging -- is ``_general``.  Signature-independent code only.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _c_strides, _prod
from ._device import mixed_devices
from ._gather_gpu import on_gpu, transpose_copy
from ._launch import ContiguousRunner, KernelSpec, in_place, load
from ._kernels import catalogue
from ._layout import broadcast_strides, launch_words, merge_dims, pad_dims, remember
from ._params import ScalarOutOfRange, scalar_fields
from ._transfer import numpy_to_device
from ._views import broadcast_array_shapes, broadcast_to
from ._warm import warm_call
from .compiler.abi import Operand
from .compiler.lang import compile_scalar_function
from .targets.base import MAX_DIMS

_ACCEPTS = {
    "any": "biufc", "numeric": "iufc", "real": "biuf", "integer": "iu",
    "integer_or_bool": "biu", "floating": "fc", "real_floating": "f", "bool": "biuf",
}
_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer", "f": "real floating", "c": "complex floating"}
_PY_SCALARS = (bool, int, float, complex)
#: ``compute`` values whose loop dtypes are not the promotion of the inputs
_OWN_LOOP_DTYPES = frozenset(("where", "clip", "copy", "bool"))
_SCALAR_KIND = {bool: "bool", int: "int", float: "float", complex: "complex"}


def _real_of(dt: np.dtype) -> np.dtype:
    return {8: _dtypes.float32, 16: _dtypes.float64}[dt.itemsize] if dt.kind == "c" else dt


def _ctype(dt: np.dtype) -> np.dtype:
    return _dtypes.float32 if dt == _dtypes.float16 else dt


#: the body key of a comparison of a signed with an unsigned 64-bit integer (``compare``)
_MIXED_INTEGERS = "int64,uint64"


def _float_loop(tokens, promoted: np.dtype) -> np.dtype:
    """The float loop dtype of integer and bool inputs whose promotion is ``promoted``
    (NumPy's choice): the smallest float every input array converts to safely, each on its
    own, not the float of their promotion: ``atan2(int8, uint8)`` is float16 (their
    promotion, int16, would be float32).  With a Python scalar, the promotion counts as
    an input too (an int is weak beside an integer array, int64 beside a bool one)."""
    t = _dtypes.float16
    scalars = False
    for x in tokens:
        if isinstance(x, np.dtype):
            t = np.promote_types(t, x)
        else:
            scalars = True
    return np.promote_types(t, promoted) if scalars else t


def _all_integer_arrays(tokens) -> bool:
    return all([isinstance(t, np.dtype) and t.kind in "biu" for t in tokens])


def _body_for(row, dtype: np.dtype) -> str | None:
    """The row's body for a loop dtype: a key naming the dtype wins over kind letters."""
    if isinstance(row.body, str):
        return row.body
    src = row.body.get(_name(dtype))
    if src is not None:
        return src
    kind = dtype.kind
    for kinds, src in row.body.items():
        if kind in kinds and kinds.strip("biufc") == "":
            return src
    return None


#: op name -> ``choose(x, y)``: the op of one operand that serves ``op(x, y)`` for this
#: Python scalar ``y`` (pow's ``x ** 2`` is ``square(x)``), or None.  Consulted by the
#: general path and by the warm path of a plan of an array and a scalar, so that the
#: result never depends on the path the call took (``_elementwise_functions`` fills it).
SCALAR_PATHS: dict = {}


def _with_scalar_paths(run, choose):
    """``run`` (a plan's warm path, array then scalar) taking ``choose``'s op where it has one."""
    def warm(args, shape, n):
        fast = choose(args[0], args[1])
        if fast is not None:
            return fast(args[0])
        return run(args, shape, n)
    return warm


class _Plan:
    """Everything about one (op, operand dtypes, device) that does not depend on shapes."""

    __slots__ = ("kernel", "in_kinds", "scalar_types", "out_dtype", "row", "run_contiguous", "run_packed", "warm")

    def __init__(self, kernel, in_kinds, scalar_types, out_dtype, row):
        self.kernel = kernel
        self.in_kinds = in_kinds          # "a" array / "s" scalar per input
        self.scalar_types = scalar_types  # NumPy scalar type to convert each scalar with
        self.out_dtype = out_dtype
        self.row = row
        #: the warm path: arrays of one shape, all C-contiguous, and Python scalars (the
        #: runner's bound ``__call__``: calling the instance would cost a lookup more)
        runner = ContiguousRunner(kernel, kernel.spec.operands, out_dtype, scalar_types, row.name)
        self.run_contiguous = self.warm = runner.__call__
        if row.category == "comparison" and "s" in in_kinds:
            self.warm = _answer_out_of_range(runner.__call__, row.name)
        choose = SCALAR_PATHS.get(row.name)
        if choose is not None and tuple(in_kinds) == ("a", "s"):
            self.warm = _with_scalar_paths(runner.__call__, choose)
        self.run_packed = runner.packed


class Ufunc:
    """An elementwise op of the catalogue (callable like a NumPy ufunc)."""

    def __init__(self, row):
        self.row = row
        self.__name__ = row.name
        self.nin = row.nin
        self._plans: dict = {}
        self._call = warm_call(self._plans, self._general, row.nin)

    def __repr__(self):
        return f"<rocarray elementwise function {self.row.name}>"

    # -- resolution (once per signature) ------------------------------------------------
    def resolve(self, tokens: tuple, out_dtype=None):
        """Loop dtypes for the inputs and the output dtype, from array dtypes and the
        Python types of scalar arguments."""
        row = self.row
        name = row.name
        arrays = [t for t in tokens if isinstance(t, np.dtype)]
        if not arrays:
            raise TypeError(f"{name}: at least one argument must be an array, got only Python scalars")
        allowed = _ACCEPTS[row.accepts]
        for t in arrays:
            if t.kind not in allowed:
                raise TypeError(
                    f"{name}: {_KIND_NAMES[t.kind]} dtype {t} is not supported; {name} accepts "
                    + ", ".join(_KIND_NAMES[k] for k in allowed) + " dtypes"
                )
        compute = row.compute
        mixed = None
        if compute not in _OWN_LOOP_DTYPES:  # (most ops: the promotion of the inputs)
            t = _promote_mixed(tokens, name)
            if compute == "float" and t.kind in "biu":
                t = _float_loop(tokens, t)
            elif compute == "true_divide" and t.kind in "biu":
                t = _dtypes.default_float
            loop_in = (t,) * len(tokens)
            if compute == "compare" and t.kind == "f" and _all_integer_arrays(tokens):
                # int64 with uint64 (promotion: float64, which rounds): compared exactly,
                # each input as the 64-bit integer of its kind
                loop_in = tuple([_dtypes.uint64 if x.kind == "u" else _dtypes.int64 for x in tokens])
                mixed = _MIXED_INTEGERS
        elif compute == "where":
            if tokens[0] is not _dtypes.bool and tokens[0] is not bool:
                raise TypeError(f"where: condition must be a bool array, not {tokens[0]}")
            t = _promote_mixed(tokens[1:], name)
            loop_in = (_dtypes.bool, t, t)
        elif compute == "clip":
            t = tokens[0]
            loop_in = (t, t, t)
        elif compute == "copy":
            loop_in = (tokens[0],)
            t = tokens[0]
        else:  # "bool"
            loop_in = (_dtypes.bool,) * len(tokens)
            t = _dtypes.bool
        kind = t.kind
        if kind not in allowed:  # a Python scalar made the loop so (``x < 1j``, ``i & 1.5``)
            raise TypeError(
                f"{name}: {_KIND_NAMES[kind]} dtype {t} is not supported; {name} accepts "
                + ", ".join(_KIND_NAMES[k] for k in allowed) + " dtypes"
            )
        if row.out == "bool":
            out = _dtypes.bool
        elif row.out == "real":
            out = _real_of(t)
        else:
            out = t
        body = row.body[mixed] if mixed else _body_for(row, loop_in[-1] if compute == "where" else t)
        if body is None:
            raise TypeError(f"{name}: {_KIND_NAMES[kind]} dtype {t} is not supported")
        if len(arrays) < len(tokens):  # Python scalars among the operands
            for tok, lt in zip(tokens, loop_in):
                if tok is complex and lt.kind != "c":
                    raise TypeError(f"{name}: a complex scalar needs a complex array operand")
        if out_dtype is not None:
            if compute == "copy":
                if t.kind == "c" and out_dtype.kind != "c":
                    raise TypeError(f"cannot cast complex {t} to {out_dtype} (it would drop the imaginary part)")
            elif not np.can_cast(out, out_dtype, casting="same_kind"):
                raise TypeError(
                    f"{name}: cannot cast the result from {out} to the output dtype {out_dtype} "
                    "(only casts within a kind, like float64 to float32, are allowed)"
                )
            out_storage = out_dtype
        else:
            out_storage = out
        return loop_in, out, out_storage, body

    def _plan(self, tokens: tuple, device, out_dtype) -> _Plan:
        loop_in, loop_out, out_storage, body = self.resolve(tokens, out_dtype)
        # (list comprehensions: a generator resumes once per item, each a first-call cost)
        in_kinds = tuple(["a" if isinstance(t, np.dtype) else "s" for t in tokens])
        storage_in = tuple([t if isinstance(t, np.dtype) else lt for t, lt in zip(tokens, loop_in)])
        spec = elementwise_spec(self.row.name, body, storage_in, in_kinds, loop_in, out_storage, loop_out)
        kernel = load(spec, device)
        scalar_types = tuple([lt.type for lt in loop_in])
        return _Plan(kernel, in_kinds, scalar_types, out_storage, self.row)

    # -- the call (the warm path: ``_warm.warm_call``) -------------------------------------
    __call__ = property(operator.attrgetter("_call"))  # (straight to the warm path: no frame)

    def _general(self, *args, out=None):
        try:
            if len(args) != self.nin:
                raise TypeError(f"{self.row.name}() takes {self.nin} positional argument(s), got {len(args)}")
            device = None
            tokens = []
            for a in args:
                if type(a) is Array:
                    tokens.append(a._dtype)
                    d = a._buf.device
                    if device is None:
                        device = d
                    elif d is not device:
                        raise mixed_devices(self.row.name, device, d)
                elif type(a) in _PY_SCALARS:
                    tokens.append(type(a))
                elif isinstance(a, Array):
                    tokens.append(a._dtype)
                    device = device or a.device
                elif isinstance(a, (np.generic,)) and not isinstance(a, np.ndarray):
                    # NumPy scalars behave as Python scalars of their kind (weak)
                    return self(*[_py_scalar(x) if x is a else x for x in args], out=out)
                elif hasattr(type(a), "__rocarray_ufunc__"):
                    # a tracing proxy of rocarray.fuse (rocarray/_fusion.py) records the call
                    return a.__rocarray_ufunc__(self, args, out)
                else:
                    raise TypeError(
                        f"{self.row.name}: expected rocarray arrays or Python scalars, got {type(a).__name__}"
                        + ("; convert NumPy arrays with rocarray.asarray()" if isinstance(a, np.ndarray) else "")
                    )
            choose = SCALAR_PATHS.get(self.row.name)
            if choose is not None:
                fast = choose(*args)
                if fast is not None:
                    return fast(args[0]) if out is None else fast(args[0], out=out)
            if out is not None:
                if not isinstance(out, Array):
                    raise TypeError(f"{self.row.name}: out must be a rocarray array, not {type(out).__name__}")
                if out._buf.device is not device:
                    raise TypeError(f"{self.row.name}: out is on {out.device} but the inputs are on {device}")
                out._check_writable(f"{self.row.name}: out")
                key = (*tokens, device, out._dtype)
            else:
                key = (*tokens, device)
            plan = self._plans.get(key)
            if plan is None:
                plan = self._plan(tuple(tokens), device, None if out is None else out._dtype)
                self._plans[key] = plan
            return _run(plan, args, out)
        except ScalarOutOfRange:
            # a Python int beyond the integer loop dtype: a comparison still has an exact
            # answer (NumPy 2's), the same for every element; other ops raise (NEP 50)
            if self.row.category != "comparison":
                raise
            return _compare_out_of_range(self.row.name, args, out)


#: (comparison, the Python int is above every value of the loop dtype) -> the answer of
#: ``array OP int``; the mirrored pair answers ``int OP array``
_OUT_OF_RANGE_ANSWERS = {
    "equal": (False, False), "not_equal": (True, True),
    "less": (True, False), "less_equal": (True, False),
    "greater": (False, True), "greater_equal": (False, True),
}


def _compare_out_of_range(name: str, args, out):
    """``args[0] OP args[1]`` where one is a Python int that the integer loop dtype cannot
    hold: every element compares alike (all of the loop's values lie on one side)."""
    first, second = args
    scalar_first = not isinstance(first, Array)
    x, v = (second, first) if scalar_first else (first, second)
    above = v > 0  # beyond the top of the range, else below its bottom
    if scalar_first:  # ``v OP x`` is ``x OP' v`` with OP mirrored: above <-> below
        above = not above
    answer = _OUT_OF_RANGE_ANSWERS[name][0 if above else 1]
    value = numpy_to_device(np.full(x._shape if out is None else (), answer, dtype=_dtypes.bool), x._buf.device)
    if out is None:
        return value
    if out._shape != x._shape:
        raise ValueError(f"{name}: out has shape {out._shape} but the result has shape {x._shape}")
    if out._size:
        copy_elements(broadcast_to(value, out._shape), out)
    return out


def _answer_out_of_range(run, name: str):
    """``run`` of a comparison with a Python scalar, answering an int out of the loop
    dtype's range as the general path does."""
    def warm(args, shape, n):
        try:
            return run(args, shape, n)
        except ScalarOutOfRange:
            return _compare_out_of_range(name, args, None)
    return warm


def _py_scalar(x):
    return x.item()


_SCALAR_DEFAULT = {bool: _dtypes.bool, int: _dtypes.default_int, float: _dtypes.default_float,
                   complex: _dtypes.default_complex}
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}


def _promote_mixed(tokens, name: str) -> np.dtype:
    r = None
    scalars = False
    for t in tokens:
        if isinstance(t, np.dtype):
            r = t if r is None or r is t else _dtypes.promote_types(r, t)
        else:
            scalars = True
    if r is None:  # only Python scalars here (where's x1 and x2): their default dtypes
        return _SCALAR_DEFAULT[max(tokens, key=_SCALAR_RANK.__getitem__)]
    if scalars:
        for t in tokens:
            if not isinstance(t, np.dtype):
                r = _dtypes.result_with_scalar(r, _SCALAR_KIND[t])
    return r


def _run(plan: _Plan, args, out):
    kernel = plan.kernel
    kinds = plan.in_kinds
    arrays = [a for a, k in zip(args, kinds) if k == "a"]
    if out is None:
        shape = arrays[0]._shape
        for a in arrays:
            if a._shape != shape or (a._contig is not True and not a.is_c_contiguous()):
                break
        else:  # the common case: one contiguous 1-D run (packed: the warm path's area is
            # made by the first warm call, not by this one, often a first call)
            return plan.run_packed(args, shape, arrays[0]._size)
        key = (plan, False, *[(a._shape, a._strides) for a in arrays])
        layout = _layouts.get(key)
        if layout is None:
            shape = broadcast_array_shapes(*(a._shape for a in arrays))
            if not _prod(shape):
                return _nothing_to_launch(plan, args, Array._empty(shape, plan.out_dtype, kernel.device))
            layout = _remember(key, shape, args, kinds, _k_strides(shape, arrays, plan.out_dtype.itemsize),
                               kernel.device, True)
        if layout[5]:  # (operands of another order than the result's, copied to its order first)
            return _run(plan, [copy_array(a) if i in layout[5] else a for i, a in enumerate(args)], None)
        out = Array._empty(layout[0], plan.out_dtype, kernel.device, layout[4])
    else:
        shape = arrays[0]._shape
        if any(a._shape != shape for a in arrays):
            shape = broadcast_array_shapes(*(a._shape for a in arrays))
        if out._shape != shape:
            raise ValueError(f"{plan.row.name}: out has shape {out._shape} but the result has shape {shape}")
        args = _resolve_overlap(args, kinds, out)
        if not out._size:
            return _nothing_to_launch(plan, args, out)
        key = (plan, shape, out._strides, *[(a._shape, a._strides) for a, k in zip(args, kinds) if k == "a"])
        layout = _layouts.get(key) or _remember(key, shape, args, kinds, out._strides, kernel.device)
        kernel = in_place_kernel(kernel, args, kinds, (out,))
    _, head, words, out_words, _, _ = layout
    if head.__class__ is list:  # (several launches: tiles, or more dims than a kernel takes)
        _launch_parts(plan, kernel, args, kinds, out, head, words, out_words)
        return out
    values = list(head)
    for a, k, w, t in zip(args, kinds, words, plan.scalar_types):
        if k == "a":
            values.append(a._buf.ptr + a._offset)
            values.extend(w)
        else:
            values.extend(scalar_fields(a, t, plan.row.name))
    values.append(out._buf.ptr + out._offset)
    values.extend(out_words)
    kernel.launch(out._size, values)
    return out


def _nothing_to_launch(plan: _Plan, args, out):
    """``out`` of an empty result: nothing to launch, but a Python int out of the loop
    dtype's range is still an OverflowError."""
    for a, k, t in zip(args, plan.in_kinds, plan.scalar_types):
        if k == "s":
            scalar_fields(a, t, plan.row.name)
    return out


#: (plan, False or the output's shape and strides, each array operand's shape and strides)
#: -> the launch words of that layout (``_remember``): a warm call with views, broadcasts or
#: an ``out`` finds its result's shape, merged dimensions and padded strides at once
_layouts: dict = {}
#: layouts kept (past this many they are all forgotten)
_MAX_LAYOUTS = 1024


def _remember(key: tuple, shape: tuple, args, kinds, out_strides: tuple, device, fresh: bool = False) -> tuple:
    """The launch words of an elementwise call over ``shape`` (not empty) on ``device``,
    kept in ``_layouts`` under ``key``: (``shape``, the dims' words, each operand's padded
    strides (None for a scalar), the output's, ``out_strides``) for one launch; for
    several -- a host call that transposes (``_transposes``: tiles), or more merged dims
    than a kernel takes (a launch for each index of the leading ones) -- (``shape``, each
    launch's (elements, dims' words) in a list, each operand's (byte offset, padded
    strides) for each launch, the output's, ``out_strides``), then the positions in
    ``args`` of the operands a GPU call copies into the result's order first (``fresh``:
    a new result; ``_gpu_apart``), else ().  Where the output and every operand not
    broadcast lie in one order of the axes other than C's, the launch walks the axes in
    that order (an elementwise op may take its elements in any order): such operands merge
    into one run, as C-contiguous ones do."""
    arr_strides = [broadcast_strides(shape, a._shape, a._strides) for a, k in zip(args, kinds) if k == "a"]
    walk = _axes_order(shape, out_strides)
    if walk != sorted(walk) and all(_axes_order(shape, st) == walk for st in arr_strides
                                    if all(st[d] for d in walk)):
        walk += [d for d in range(len(shape)) if shape[d] == 1]
        arr_strides = [tuple(st[d] for d in walk) for st in arr_strides]
        out_walked = tuple(out_strides[d] for d in walk)
        mshape, merged, head, words = launch_words(tuple(shape[d] for d in walk), arr_strides + [out_walked])
    else:
        mshape, merged, head, words = launch_words(shape, arr_strides + [out_strides])
    transposes = _transposes(mshape, merged)
    apart = _gpu_apart(mshape, merged, kinds) if fresh and transposes and on_gpu(device) else ()
    parts = device.kind == "cpu" and transposes and \
        _tile_launches(mshape, merged, [a._dtype.itemsize for a, k in zip(args, kinds) if k == "a"])
    if parts or head is None:
        head, words = parts or _leading_launches(mshape, merged)
    it = iter(words)
    return remember(_layouts, key, (shape, head, [next(it) if k == "a" else None for k in kinds], words[-1],
                                    out_strides, apart), _MAX_LAYOUTS)


#: a GPU call over two merged dims of at least this many elements whose operands go two
#: ways copies those that go the other way than the result first (``_gpu_apart``)
GPU_APART_MIN_ELEMENTS = 1 << 16


def _gpu_apart(mshape: tuple, merged: list, kinds) -> tuple:
    """The positions (in the call's arguments) of the operands of a GPU call that
    transposes (``_transposes``: two merged dims; ``merged``: the array operands' strides,
    then the output's) which step along the other dim than the output: each is copied into
    the output's order first, through the tiled transposing copy (``copy_elements``), and
    the call then reads every operand in one run.  Read in place, such an operand costs a
    32-byte sector for each element; copied, it moves its bytes twice, in whole lines
    (docs/elementwise.md).  () for calls of fewer than ``GPU_APART_MIN_ELEMENTS``, where
    the copy's launch costs more than it saves."""
    o0, o1 = (abs(s) for s in merged[-1])
    if mshape[0] * mshape[1] < GPU_APART_MIN_ELEMENTS or o0 < o1:  # (a new result: C order)
        return ()
    positions = [i for i, k in enumerate(kinds) if k == "a"]
    return tuple(i for i, (s0, s1) in zip(positions, merged[:-1]) if s0 and s1 and abs(s0) < abs(s1))


def _axes_order(shape: tuple, strides: tuple) -> list:
    """The axes of more than one element of an operand of ``shape`` stepping by
    ``strides``, the largest step first (ties keep C order)."""
    return sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: -abs(strides[d]))


def _k_strides(shape: tuple, arrays, itemsize: int) -> tuple:
    """The strides of a new elementwise result of ``shape`` (NumPy's ``order="K"``): the
    axes in the memory order of the operands of the result's whole shape that are not
    broadcast (no step of 0), where they all have one order that is not C's; C order
    otherwise.  ``x.T + 1`` is then a transposed array whose elements lie as ``x``'s,
    written in one run as ``x`` is read."""
    order = None
    for a in arrays:
        if a._shape != shape or any(not s and n > 1 for n, s in zip(shape, a._strides)):
            continue  # (broadcast: its order says nothing)
        axes = _axes_order(shape, a._strides)
        if order is None:
            order = axes
        elif axes != order:
            return _c_strides(shape, itemsize)
    if order is None or order == sorted(order):
        return _c_strides(shape, itemsize)
    strides = [itemsize] * len(shape)
    step = itemsize
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def _launch_parts(plan, kernel, args, kinds, out, heads: list, words, out_words) -> None:
    """The launches of ``kernel`` (``plan``'s, or its ``in_place`` one) of a layout of
    several (``_remember``): ``heads`` each launch's
    (elements, dims' words), ``words`` each array operand's (byte offset, padded strides)
    for each launch (None for a scalar), ``out_words`` the output's."""
    for k, (n, head) in enumerate(heads):
        values = list(head)
        for a, kind, w, t in zip(args, kinds, words, plan.scalar_types):
            if kind == "a":
                off, st = w[k]
                values.append(a._buf.ptr + a._offset + off)
                values.extend(st)
            else:
                values.extend(scalar_fields(a, t, plan.row.name))
        off, st = out_words[k]
        values.append(out._buf.ptr + out._offset + off)
        values.extend(st)
        kernel.launch(n, values)


def _leading_launches(mshape: tuple, merged: list) -> tuple:
    """More merged dims than a kernel takes: a launch over the last ``MAX_DIMS`` for each
    index of the leading ones, as ``_remember`` keeps several launches."""
    lead = len(mshape) - MAX_DIMS
    inner = mshape[lead:]
    head = (_prod(inner), (len(inner), *inner))
    heads, per_operand = [], [[] for _ in merged]
    for idx in itertools.product(*(range(d) for d in mshape[:lead])):
        heads.append(head)
        for st, acc in zip(merged, per_operand):
            acc.append((sum(i * s for i, s in zip(idx, st)), st[lead:]))
    return heads, per_operand


#: tiles of a transposing host launch: rows of ``TRANSPOSE_TILE_COLUMNS`` elements (the
#: inner loop, which reads one line per element), as many rows as use those lines whole
#: (64-byte lines, at least 8 rows), so most reads hit the cache
TRANSPOSE_TILE_COLUMNS = 128
#: a host launch of at least this many elements over two merged dims that transposes
#: walks tiles (``_transposes``)
TILE_MIN_ELEMENTS = 64 * TRANSPOSE_TILE_COLUMNS


def _transposes(mshape: tuple, merged: list) -> bool:
    """Whether a host launch over the merged ``mshape`` whose operands step by ``merged``
    goes along one dim in some operand's memory and along the other in another's: two
    dims, enough of each for tiles.  Row by row, such a launch touches one cache line per
    element of the operand that goes the other way, and has evicted it before the next row
    comes back to it; tiles of ``TRANSPOSE_TILE_COLUMNS`` columns keep those lines in cache."""
    if len(mshape) != 2 or mshape[0] < 16 or mshape[1] < 2 * TRANSPOSE_TILE_COLUMNS \
            or mshape[0] * mshape[1] < TILE_MIN_ELEMENTS:
        return False
    rows = cols = False  # (an operand whose inner dim, or outer dim, is its contiguous one)
    for s0, s1 in merged:
        s0, s1 = abs(s0), abs(s1)
        rows |= 0 < s1 < s0
        cols |= 0 < s0 < s1
    return rows and cols


def _tile_launches(mshape: tuple, merged: list, itemsizes: list) -> "tuple | None":
    """The launches of a host call that transposes (``_transposes``), as ``_remember`` keeps
    several: (each launch's (elements, dims' words), each operand's (byte offset, padded
    strides) for each launch, the output last) -- (row tiles, column tiles, rows of a tile,
    ``TRANSPOSE_TILE_COLUMNS`` columns), as many rows to a tile as fill the 64-byte lines
    the reads touch -- then the columns the tiles leave over, then the rows; None where
    there are fewer rows than a tile's."""
    r, c = mshape
    bc = TRANSPOSE_TILE_COLUMNS
    br = builtins.max(8, 64 // builtins.min(itemsizes))
    if r < br:
        return None
    rt, ct = r - r % br, c - c % bc
    parts = [((rt // br, ct // bc, br, bc), lambda s: (br * s[0], bc * s[1], s[0], s[1]), 0, 0)]
    if ct < c:
        parts.append(((rt, c - ct), lambda s: s, 0, ct))
    if rt < r:
        parts.append(((r - rt, c), lambda s: s, rt, 0))
    per_operand = [[] for _ in merged]
    heads = []
    for shape, strides_of, r0, c0 in parts:
        heads.append((_prod(shape), (len(shape), *pad_dims(shape, 1))))
        for st, acc in zip(merged, per_operand):
            acc.append((r0 * st[0] + c0 * st[1], pad_dims(strides_of(st), 0)))
    return heads, per_operand


def _is_out(a: Array, out: Array) -> bool:
    """Whether the array ``a`` is ``out``'s elements, in its layout."""
    return a._buf is out._buf and a._offset == out._offset and a._strides == out._strides and a._shape == out._shape


def in_place_kernel(kernel, ins, in_kinds, outs, out_kinds="a"):
    """The elementwise ``kernel`` a call on ``ins`` into ``outs`` runs: on the host, where
    array inputs ("a" in ``in_kinds`` / ``out_kinds``) are outputs, its ``in_place`` kernel
    for those (input, output) operand positions (the outputs after the inputs); else
    ``kernel``."""
    if kernel.is_gpu:
        return kernel
    nin = len(ins)
    pairs = tuple([(i, nin + j) for i, (a, k) in enumerate(zip(ins, in_kinds)) if k == "a"
                   for j, (o, ko) in enumerate(zip(outs, out_kinds)) if ko == "a" and _is_out(a, o)])
    return in_place(kernel, pairs) if pairs else kernel


def _resolve_overlap(args, kinds, out):
    """Copy inputs that overlap ``out`` without being exactly ``out`` (NumPy's semantics)."""
    new = None
    for i, (a, k) in enumerate(zip(args, kinds)):
        if k != "a" or a._buf is not out._buf or _is_out(a, out):
            continue
        if _may_overlap(a, out):
            new = list(args) if new is None else new
            new[i] = copy_array(a)
    return args if new is None else tuple(new)


def _extent(x: Array):
    lo = hi = x._offset
    for d, s in zip(x._shape, x._strides):
        if d == 0:
            return (0, 0)
        if s > 0:
            hi += s * (d - 1)
        else:
            lo += s * (d - 1)
    return lo, hi + x._dtype.itemsize


def _may_overlap(a: Array, b: Array) -> bool:
    alo, ahi = _extent(a)
    blo, bhi = _extent(b)
    return alo < bhi and blo < ahi


# -- kernel specs --------------------------------------------------------------------------

_specs: dict = {}


class _DtypeNames(dict):
    """dtype -> ``str(dtype)``, memoized (NumPy's ``dtype.__str__`` is slow Python code);
    looked up as ``_dtype_names[d]`` (or through ``map``), with no Python call once
    a dtype is in."""

    def __missing__(self, d: np.dtype) -> str:
        s = self[d] = str(d)
        return s


_dtype_names = _DtypeNames({d: name for name, d in _dtypes._by_name.items()})
_name = _dtype_names.__getitem__

#: (dtype, operand kind) -> Operand
_operands: dict = {}


def _operand(dtype: np.dtype, kind: str) -> Operand:
    op = _operands.get((dtype, kind))
    if op is None:
        op = _operands[(dtype, kind)] = Operand(dtype, kind)
    return op


def elementwise_spec(name, body, storage_in, in_kinds, loop_in, out_storage, loop_out) -> KernelSpec:
    """The KernelSpec of an elementwise op body for one dtype signature."""
    names = _dtype_names
    # a flat tuple of strings (dtype names joined): hashed for every memo on the way and
    # written out once for its digest (``compiler.cache.key_digest``), each cheaper flat
    key = ("ew", name, body, ",".join(map(_name, storage_in)), "".join(in_kinds),
           ",".join(map(_name, loop_in)), names[out_storage], names[loop_out])
    spec = _specs.get(key)
    if spec is not None:
        return spec

    # The body's parameters and source are made only when it is built: a disk-cache hit
    # (a kernel compiled by an earlier process) never builds it.
    def build_body(module, target):
        params, source, typedefs = _body_source(body, storage_in, loop_in, out_storage, loop_out)
        return compile_scalar_function(module, "body", params, source, typedefs=typedefs,
                                       target=target, kernel_name=name)

    operands = [_operand(sd, "in" if k == "a" else "scalar") for sd, k in zip(storage_in, in_kinds)]
    operands.append(_operand(out_storage, "out"))
    spec = KernelSpec(key, name, operands, build_body)
    spec.recipe = functools.partial(elementwise_spec, name, body, storage_in, in_kinds, loop_in, out_storage,
                                    loop_out)
    return _specs.setdefault(key, spec)


def _body_source(body, storage_in, loop_in, out_storage, loop_out):
    """The scalar function of an elementwise body: (parameters, source, typedefs); inputs
    and the output stored in another dtype than the loop's are cast in the source."""
    params = []
    ctype = _ctype(loop_in[-1])
    typedefs = {"ctype": ctype, "rtype": _real_of(ctype)}
    prefix = []
    for k, (sd, ld) in enumerate(zip(storage_in, loop_in)):
        typedefs[f"in{k}_type"] = ld
        if sd == ld:
            params.append((f"in{k}", sd, "in"))
        else:
            params.append((f"_in{k}", sd, "in"))
            prefix.append(f"in{k}_type in{k} = (in{k}_type)_in{k};")
    typedefs["out0_type"] = loop_out
    suffix = ""
    if out_storage == loop_out:
        params.append(("out0", out_storage, "out"))
    else:
        params.append(("_out0", out_storage, "out"))
        typedefs["_out0_type"] = out_storage
        prefix.append("out0_type out0;")
        suffix = "_out0 = (_out0_type)out0;"
    source = "\n".join(prefix) + "\n{\n" + body.strip("\n") + "\n}\n" + suffix
    return params, source, typedefs


# -- the copy op: every strided copy and cast (the engine needs it for overlapping operands) --

copy_op = Ufunc(next(row for row in catalogue().elementwise.OPS if row.name == "copy"))


def copy_elements(src: Array, dst: Array) -> None:
    """dst[...] = src for arrays of one shape on one device, casting like NumPy's 'unsafe'.
    A host copy that transposes walks tiles, as every elementwise call does
    (``_transposes``).  A GPU copy of one dtype whose source and destination have different
    innermost axes goes through shared-memory tiles (``_gather_gpu.transpose_copy``)."""
    if on_gpu(dst._buf.device) and src._dtype == dst._dtype and dst._size > 1 \
            and not (src._buf is dst._buf and _may_overlap(src, dst)):
        if src.is_c_contiguous() and dst.is_c_contiguous():
            # one run of bytes: the driver's device copy (no kernel, little host time:
            # concat's and stack's pieces, copies)
            device = dst._buf.device
            device.runtime.copy_device_to_device(device.index, dst._buf.ptr + dst._offset,
                                                 src._buf.ptr + src._offset, dst._size * dst._dtype.itemsize)
            return
        if transpose_copy(src, dst):
            return
    copy_op(src, out=dst)


# -- ops of Python scalars alone: new arrays made on their device ----------------------------

_scalar_ops: dict = {}


def _scalar_op(name: str, in_dtypes: tuple, dtype: np.dtype, device, body):
    """(the loaded kernel, its warm runner: a ``ContiguousRunner``) of the op ``name`` whose
    inputs are Python scalars of ``in_dtypes`` (``in0``, ``in1``... in its body; ``i`` the
    element's index) and whose output ``out0`` is a ``dtype`` array on ``device``: nothing
    is copied from the host.  ``body()`` gives the body, asked only the first time."""
    key = (name, in_dtypes, dtype, device)
    found = _scalar_ops.get(key)
    if found is None:
        spec = elementwise_spec(name, body(), in_dtypes, ("s",) * len(in_dtypes), in_dtypes, dtype, dtype)
        kernel = load(spec, device)
        found = _scalar_ops[key] = (kernel, ContiguousRunner(kernel, spec.operands, dtype,
                                                             tuple([t.type for t in in_dtypes]), name).__call__)
    return found


def filled(shape: tuple, value, dtype: np.dtype, device) -> Array:
    """A new C-contiguous array of ``shape`` with every element ``value`` (a Python scalar
    of ``dtype``'s kind, already checked to fit): the copy op's body on the value."""
    n = 1
    for d in shape:
        n *= d
    run = _scalar_op("full", (dtype,), dtype, device, lambda: _body_for(copy_op.row, dtype))[1]
    return run((value,), shape, n)


def fill_elements(dst: Array, value) -> bool:
    """``dst[...] = value`` for a Python scalar of ``dst``'s dtype kind (checked to fit), in
    any layout, by ``filled``'s kernel; False (nothing done) for a layout of more than
    ``MAX_DIMS`` dimensions after merging, which the caller copies instead."""
    dtype = dst._dtype
    shape, (strides,) = merge_dims(dst._shape, [dst._strides])
    if len(shape) > MAX_DIMS:
        return False
    if dst._size:
        kernel = _scalar_op("full", (dtype,), dtype, dst._buf.device, lambda: _body_for(copy_op.row, dtype))[0]
        kernel.launch(dst._size, [len(shape), *pad_dims(shape, 1), *scalar_fields(value, dtype.type, "setitem"),
                                  dst._buf.ptr + dst._offset, *pad_dims(strides, 0)])
    return True


#: ``start + i * step`` of integers modulo 2**64 (where the wrapping of a large start or
#: step cancels out; the values, checked to fit the dtype, keep their low bits), and of
#: floats in float64 as NumPy's ``arange`` computes them (a product, then a sum: no FMA)
_RANGE_BODIES = {"i": "out0 = (out0_type)(in0 + (unsigned long long)i * in1);",
                 "f": "out0 = (out0_type)__dadd_rn(in0, __dmul_rn(in1, (double)i));"}


def ranged(n: int, start, step, dtype: np.dtype, device) -> Array:
    """``start + k * step`` for k < n as a new ``dtype`` array on ``device`` (``arange``):
    Python ints into an integer dtype exactly (``_RANGE_BODIES``), anything else in
    float64, then converted."""
    if dtype.kind in "iu" and isinstance(start, int) and isinstance(step, int):
        kind, loop, values = "i", _dtypes.uint64, (start % 2**64, step % 2**64)
    else:
        kind, loop, values = "f", _dtypes.float64, (float(start), float(step))
    return _scalar_op("arange", (loop, loop), dtype, device, lambda: _RANGE_BODIES[kind])[1](values, (n,), n)


def copy_array(x: Array) -> Array:
    """A C-contiguous copy of ``x`` on its device."""
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size:
        copy_elements(x, out)
    return out
