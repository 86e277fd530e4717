"""User-defined kernels: ``ElementwiseKernel`` and ``ReductionKernel`` (CuPy's API).

A kernel-language body plus CuPy's parameter lists; each (kernel, dtype signature, operand
kinds) is one ``KernelSpec`` through the compile cache and launcher of the built-in ops.
Type rules: docs/user_kernels.md.
"""

from __future__ import annotations

import functools
import operator
import re

import numpy as np

from ._array_object import Array
from ._copy import contiguous
from ._device import default_device, mixed_devices
from ._creation_functions import asarray
from ._elementwise import _resolve_overlap, copy_elements, in_place_kernel
from ._launch import ContiguousRunner, KernelSpec, load
from ._layout import broadcast_strides, launch_words, pad_dims, remember
from ._params import SCALAR_CONVERTERS, contiguous_template, scalar_fields
from ._reduction import ReductionDef, reduce
from ._views import broadcast_shapes, broadcast_to
from ._warm import warm_call
from .compiler.abi import Operand
from .compiler.lang import (KernelError, KernelSyntaxError, compile_scalar_function, parse, parse_params,
                            resolve_type_name)
from .compiler.lang.lexer import tokenize
from .targets.base import MAX_DIMS

__all__ = ["ElementwiseKernel", "ReductionKernel"]

_PY_SCALARS = (bool, int, float, complex)


def _type_of_param(p) -> np.dtype | None:
    """The fixed dtype of a parameter, or None for a placeholder."""
    return None if p.is_placeholder else resolve_type_name(p.type_name)


def _check_name(name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"invalid kernel name {name!r}: it must be a C identifier")
    return name


def _parse_signature(in_params: str, out_params: str, name: str):
    for what, text in (("in_params", in_params), ("out_params", out_params)):
        if not isinstance(text, str):
            raise TypeError(f"kernel '{name}': {what} must be a string, not {type(text).__name__}")
    ins = parse_params(in_params, kernel_name=name)
    outs = parse_params(out_params, kernel_name=name)
    for text, params in ((in_params, ins), (out_params, outs)):
        for p in params:
            if p.is_placeholder and len(p.type_name) != 1:
                # CuPy's rule: a one-letter type is a placeholder, a longer one must be a type
                col = text.find(p.type_name) + 1
                raise KernelSyntaxError(
                    f"unknown type '{p.type_name}' of parameter '{p.name}' (type placeholders "
                    "are one letter, as in CuPy)", 1, max(col, 1), source=text, where="params",
                    kernel_name=name)
    in_names = {p.name for p in ins}
    for p in outs:
        if p.name in in_names:
            col = out_params.find(p.name) + 1
            raise KernelSyntaxError(f"parameter '{p.name}' is both an input and an output", 1,
                                    max(col, 1), source=out_params, where="params",
                                    kernel_name=name)
    return ins, outs


def _parse_body(body: str, preamble: str, placeholders: frozenset, name: str, where: str = "body"):
    """Parse now, so a syntax error is raised where the kernel is defined (the parse is cached
    and reused by every compile of the kernel)."""
    if not isinstance(body, str):
        raise TypeError(f"kernel '{name}': the {where} must be a string, not {type(body).__name__}")
    if not isinstance(preamble, str):
        raise TypeError(f"kernel '{name}': preamble must be a string, not {type(preamble).__name__}")
    try:
        parse(body, preamble, placeholders)
    except KernelError as e:
        raise e.attach(body, where, name) from None


def _scalar_value(a):
    """A Python scalar for a Python or NumPy scalar argument; None for anything else."""
    t = type(a)
    if t in _PY_SCALARS:
        return a
    if isinstance(a, np.generic):
        return a.item()
    return None


class _Bindings:
    """Placeholder -> dtype, with who bound it (for the error message)."""

    __slots__ = ("kernel", "types", "who")

    def __init__(self, kernel: str):
        self.kernel = kernel
        self.types: dict = {}
        self.who: dict = {}

    def bind(self, p, dtype: np.dtype, role: str) -> None:
        fixed = _type_of_param(p)
        if fixed is not None:
            if dtype != fixed:
                raise TypeError(
                    f"kernel '{self.kernel}': {role} '{p.name}' is declared {fixed} but the array "
                    f"passed for it is {dtype} (convert it with .astype({fixed.name}) or declare "
                    f"the parameter with a type placeholder)")
            return
        prev = self.types.get(p.type_name)
        if prev is None:
            self.types[p.type_name] = dtype
            self.who[p.type_name] = p.name
        elif prev != dtype:
            raise TypeError(
                f"kernel '{self.kernel}': type placeholder '{p.type_name}' is bound to both "
                f"{prev} (by '{self.who[p.type_name]}') and {dtype} (by '{p.name}')")

    def type_of(self, p, role: str) -> np.dtype:
        fixed = _type_of_param(p)
        if fixed is not None:
            return fixed
        t = self.types.get(p.type_name)
        if t is None:
            if role == "output":
                raise TypeError(
                    f"kernel '{self.kernel}': the type placeholder '{p.type_name}' of output "
                    f"'{p.name}' cannot be determined from the inputs; pass the output array")
            raise TypeError(
                f"kernel '{self.kernel}': the type placeholder '{p.type_name}' of input "
                f"'{p.name}' is bound by no array argument (Python and NumPy scalars do not "
                f"bind placeholders, as in CuPy); pass an array for some '{p.type_name}' "
                f"parameter or declare '{p.name}' with a fixed type")
        return t

    @classmethod
    def of_call(cls, kernel, in_tokens, out_dtypes):
        """The bindings of one call of ``kernel`` (array inputs and passed outputs bind;
        scalars do not), with the resolved input and output dtypes."""
        b = cls(kernel.name)
        for p, dt in zip(kernel.out_params, out_dtypes):
            b.bind(p, dt, "output")
        for p, tok in zip(kernel.in_params, in_tokens):
            if isinstance(tok, np.dtype):
                b.bind(p, tok, "input")
        in_types = tuple(b.type_of(p, "input") for p in kernel.in_params)
        out_types = tuple(b.type_of(p, "output") for p in kernel.out_params)
        return b, in_types, out_types


class _Plan:
    """One (kernel, argument kinds and dtypes, device): the loaded kernel and the resolved
    types.  ``in_kinds`` per input: 'a' array, 's' scalar, 'r' raw; ``out_kinds`` 'a' / 'r'."""

    __slots__ = ("kernel", "in_kinds", "in_types", "out_kinds", "out_types", "scalar_types",
                 "has_raw", "simple", "_template", "positions", "out_positions", "name",
                 "read_back", "single", "warm")

    def __init__(self, kernel, in_kinds, in_types, out_kinds, out_types, name, read_index=()):
        self.kernel = kernel
        self.name = name
        self.in_kinds = in_kinds
        self.in_types = in_types
        self.out_kinds = out_kinds
        self.out_types = out_types
        self.scalar_types = tuple(t.type for t in in_types)
        self.has_raw = "r" in in_kinds or "r" in out_kinds
        # The warm path (no raw operands, outputs allocated here, the array inputs of one
        # shape and C-contiguous): the packed values of one contiguous 1-D run but for the
        # size, the pointers and the scalars, filled in at ``positions``.
        self.simple = not self.has_raw and "a" in in_kinds
        template, positions = contiguous_template(kernel.spec.operands)
        self._template = template
        nin = len(in_kinds)
        nout = len(out_kinds)
        self.positions = tuple(positions[:nin])
        self.out_positions = tuple(positions[nin:nin + nout])
        #: per output read by the body: (output index, position of its hidden input)
        self.read_back = tuple(zip(read_index, positions[nin + nout:]))
        #: the warm path of array and Python scalar inputs and one array output (the body
        #: reads no output)
        self.single = None
        self.warm = None  # (set by the kernel: ``ElementwiseKernel._warm_of``)
        if self.simple and set(in_kinds) <= {"a", "s"} and out_kinds == ("a",) and not self.read_back:
            self.single = ContiguousRunner(kernel, kernel.spec.operands, out_types[0],
                                           self.scalar_types, name).__call__

    def run_contiguous(self, ins, shape, n, device, outs=()):
        """One contiguous 1-D run (``_one_contiguous_run``): allocate the outputs unless
        given, fill the template, launch."""
        if not outs:
            outs = [Array._empty(shape, t, device) for t in self.out_types]
        if n:
            self.launch_flat(n, ins, [o._buf.ptr + o._offset for o in outs])
        return outs

    def launch_flat(self, n: int, ins, out_ptrs) -> None:
        """Launch over ``n`` elements of contiguous 1-D operands: ``ins`` the inputs (arrays
        or scalars, as the plan's kinds say; no raw ones), ``out_ptrs`` the outputs'
        addresses.  For callers that made their outputs themselves (``rocarray.random``
        writes several outputs into one buffer) and so skip the layout checks of a call."""
        values = self._template.copy()
        values[1] = n
        name = self.name
        for pos, a, k, t in zip(self.positions, ins, self.in_kinds, self.scalar_types):
            if k == "a":
                values[pos] = a._buf.ptr + a._offset
            else:
                fields = SCALAR_CONVERTERS[t](a, name)
                values[pos:pos + len(fields)] = fields
        for pos, ptr in zip(self.out_positions, out_ptrs):
            values[pos] = ptr
        for k, pos in self.read_back:
            values[pos] = out_ptrs[k]
        self.kernel.launch(n, values)


def _one_contiguous_run(plan, ins, outs):
    """``(shape, n)`` when a call is one contiguous 1-D run -- every array operand (array
    inputs, given outputs) of one shape and C-contiguous, and no input array sharing memory
    with a given output (NumPy's overlap rule is the general path's) -- else None."""
    shape = None
    buffers = set()  # (of the array inputs)
    for a, k in zip(ins, plan.in_kinds):
        if k == "a":
            if shape is None:
                shape, n = a._shape, a._size
            elif a._shape != shape:
                return None
            if not a.is_c_contiguous():
                return None
            buffers.add(id(a._buf))
    for o in outs:
        if shape is None:
            shape, n = o._shape, o._size
        elif o._shape != shape:
            return None
        if not o.is_c_contiguous() or id(o._buf) in buffers:
            return None
    return None if shape is None else (shape, n)


_specs: dict = {}


def _user_spec(name, body, preamble, names, kinds, dtypes, typedefs, read_outputs=(),
               heavy: bool = False, interpret: bool = True, whole_stores: bool = False) -> KernelSpec:
    """The KernelSpec of a user elementwise body for one signature.  ``kinds`` per operand:
    'in', 'scalar', 'out', 'raw'.

    Each output in ``read_outputs`` is also passed as a hidden input operand (after all the
    others, pointing at the same array) and copied into the output before the body runs, so
    every loop of the skeleton -- the GPU vector path too, which loads inputs and stores
    outputs -- gives the body the element's current value.  The host loop reads it through
    the output's address (``KernelSpec.reads_out``: vectorised, where two equal pointers
    ran LLVM's scalar loop)."""
    tdefs = tuple(sorted((k, str(v)) for k, v in typedefs.items()))
    key = ("user-ew", name, body, preamble, tuple(names), tuple(kinds),
           tuple(str(d) for d in dtypes), tdefs, tuple(read_outputs), heavy, interpret, whole_stores)
    spec = _specs.get(key)
    if spec is not None:
        return spec
    lang_kind = {"in": "in", "scalar": "in", "out": "out", "raw": "raw"}
    params = [(n, d, lang_kind[k]) for n, k, d in zip(names, kinds, dtypes)]
    dtype_of = dict(zip(names, dtypes))
    prefix = "".join(f"{n} = _rk_in_{n}; " for n in read_outputs)
    for n in read_outputs:
        params.append((f"_rk_in_{n}", dtype_of[n], "in"))
    params = tuple(params)

    def build_body(module, target, _p=params, _td=dict(typedefs)):
        try:
            return compile_scalar_function(module, "body", list(_p), prefix + body,
                                           preamble=preamble, typedefs=_td, target=target,
                                           kernel_name=name, whole_stores=whole_stores)
        except KernelError as e:
            if prefix and e.where == "body" and e.source == prefix + body:
                # point at the user's text, not at the copy-in statements before it
                e.source = body
                if e.line == 1 and e.column is not None:
                    e.column = max(1, e.column - len(prefix))
            raise

    operands = [Operand(d, k) for k, d in zip(kinds, dtypes)]
    operands += [Operand(dtype_of[n], "in") for n in read_outputs]
    spec = KernelSpec(key, name, operands, build_body, heavy=heavy, interpret=interpret)
    spec.reads_out = tuple([(len(names) + j, names.index(n)) for j, n in enumerate(read_outputs)])
    spec.recipe = functools.partial(_user_spec, name, body, preamble, tuple(names), tuple(kinds), tuple(dtypes),
                                    dict(typedefs), tuple(read_outputs), heavy, interpret, whole_stores)
    return _specs.setdefault(key, spec)


def _outputs_read(body: str, preamble: str, out_params) -> tuple:
    """Names of the non-raw outputs whose element the body may read (``z += x``, ``z * 2``):
    any use but as the target of a plain ``=``.  They get the element's current value before
    the body runs (see ``_user_spec``); the rest are write-only."""
    names = {p.name for p in out_params if not p.raw}
    if not names:
        return ()
    toks = tokenize(body, "body", {})
    read = set()
    for k, t in enumerate(toks):
        if t.kind == "id" and t.value in names:
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if nxt is None or nxt.kind != "op" or nxt.value != "=":
                read.add(t.value)
    # a preamble macro may name an output (its expansion is not scanned): count it as read
    read |= {n for n in names if n in preamble}
    return tuple(p.name for p in out_params if p.name in read)


def _scan_inputs(who: str, params, ins: list):
    """(device, dtype tokens) of a call's inputs: arrays give their dtype and device (all on
    one device), Python/NumPy scalars are replaced in ``ins`` by their value and give its
    Python type; anything else is a TypeError naming the parameter."""
    device = None
    tokens = []
    for k, a in enumerate(ins):
        if isinstance(a, Array):
            tokens.append(a._dtype)
            d = a._buf.device
            if device is None:
                device = d
            elif d is not device:
                raise mixed_devices(who, device, d)
            continue
        v = _scalar_value(a)
        if v is None:
            raise TypeError(
                f"{who}: input '{params[k].name}' must be a rocarray array or a scalar, not "
                f"{type(a).__name__}"
                + ("; convert NumPy arrays with rocarray.asarray()" if isinstance(a, np.ndarray) else ""))
        ins[k] = v
        tokens.append(type(v))
    return device, tokens


#: (plan, loop shape, each array input's shape and strides, each array output's strides)
#: -> that layout's launch words (``_remember_layout``): a warm call on views, broadcasts
#: or given outputs computes no broadcast or merge
_layouts: dict = {}
#: layouts kept (past this many they are all forgotten)
_MAX_LAYOUTS = 1024


def _remember_layout(key: tuple, reduce_dims: bool, plan, shape: tuple, ins, outs):
    """The launch words of a general call over ``shape`` (not empty), kept in ``_layouts``:
    (the dims' words, each array input's padded strides, each array output's, each
    read-back output's); False where more dims stay than a kernel takes."""
    op_strides = [broadcast_strides(shape, a._shape, a._strides) for a, k in zip(ins, plan.in_kinds) if k == "a"]
    n_in = len(op_strides)
    op_strides += [o._strides for o, k in zip(outs, plan.out_kinds) if k == "a"]
    _, _, head, words = launch_words(shape, op_strides, reduce_dims)
    layout = False
    if head is not None:
        of_output = dict(zip((k for k, kind in enumerate(plan.out_kinds) if kind == "a"), words[n_in:]))
        layout = head, words[:n_in], words[n_in:], [of_output[k] for k, _ in plan.read_back]
    return remember(_layouts, key, layout, _MAX_LAYOUTS)


class _Call:
    """The launch of one general-path call layout of a plan: the packed values but for the
    operands' addresses and the scalars, and where those go (``ptrs``: (position, 0 for an
    input or 1 for an output, its index); ``scalars``: (position, fields, input index,
    type)).  ``run`` repeats the call for arguments of the same layout."""

    __slots__ = ("plan", "n", "template", "ptrs", "scalars", "out_shape", "device", "pairs")

    def __init__(self, plan, n, layout, ins, outs, out_shape, device):
        head, in_words, out_words, back_words = layout
        self.plan, self.n, self.out_shape, self.device = plan, n, out_shape, device
        values = list(head)
        ptrs, scalars = [], []
        words = iter(in_words)
        for j, (a, k, t) in enumerate(zip(ins, plan.in_kinds, plan.scalar_types)):
            if k == "s":
                fields = scalar_fields(a, t, plan.name)
                scalars.append((len(values), len(fields), j, t))
                values.extend(fields)
                continue
            ptrs.append((len(values), 0, j))
            values.extend((0, *next(words)) if k == "a" else _raw_words(a))
        words = iter(out_words)
        for j, (o, k) in enumerate(zip(outs, plan.out_kinds)):
            ptrs.append((len(values), 1, j))
            values.extend((0, *next(words)) if k == "a" else _raw_words(o))
        for (k, _), w in zip(plan.read_back, back_words):
            ptrs.append((len(values), 1, k))
            values.extend((0, *w))
        self.template, self.ptrs, self.scalars = values, ptrs, scalars
        #: (array input, array output) pairs whose sharing a buffer sends a repeat to the
        #: general path (NumPy's overlap rule copies such an input)
        self.pairs = [] if out_shape is not None else [
            (i, o) for i, k in enumerate(plan.in_kinds) if k == "a" for o, ko in enumerate(plan.out_kinds) if ko == "a"]

    def launch(self, ins, outs, work: int = 0, kernel=None) -> None:
        """Launch the call on ``ins`` and ``outs``: ``kernel`` (the plan's by default; its
        ``in_place`` kernel where inputs are outputs)."""
        values = self.template.copy()
        for pos, side, j in self.ptrs:
            a = outs[j] if side else ins[j]
            values[pos] = a._buf.ptr + a._offset
        name = self.plan.name
        for pos, count, j, t in self.scalars:
            values[pos:pos + count] = scalar_fields(ins[j], t, name)
        (kernel or self.plan.kernel).launch(self.n, values, work)

    def run(self, args, nin: int, work: int = 0):
        """The outputs of a call of this layout (``args``: the inputs, then any outputs);
        None, launching nothing, where an input shares a buffer with a given output."""
        ins = args[:nin]
        if self.out_shape is None:
            outs = args[nin:]
            for i, o in self.pairs:
                if ins[i]._buf is outs[o]._buf:
                    return None
        else:
            shape, device = self.out_shape, self.device
            outs = [Array._empty(shape, t, device) for t in self.plan.out_types]
        self.launch(ins, outs, work)
        return outs


def _raw_words(a: Array) -> tuple:
    """A raw operand's launch words: a zero for its address, then its size, dims and strides."""
    if a.ndim > MAX_DIMS:
        raise ValueError(f"a raw argument may have at most {MAX_DIMS} dimensions, got {a.ndim}")
    return (0, a._size, a.ndim, *pad_dims(a._shape, 1), *pad_dims(a._strides, 0))


class ElementwiseKernel:
    """A user-defined elementwise kernel (CuPy's ``cupy.ElementwiseKernel``).

    The body runs once per element, compiled for the device of the arguments, one kernel per
    dtype signature (new shapes compile nothing); the first call of a signature runs on the
    interpreter tier.

    Args:
        in_params: the inputs, a CuPy parameter list: ``"T x, float32 y, raw T table"``. A type
            name binds a dtype; a one-letter placeholder (``T``) takes the dtype of the array
            passed; ``raw`` operands are whole arrays indexed in the body (``table[i]``).
        out_params: the outputs, likewise (``"T z"``); missing outputs are allocated with the
            broadcast shape.
        operation: the loop body in the kernel language (a C subset; ``i`` is the element's
            index).
        name: the kernel's name (an identifier).
        reduce_dims: accepted for CuPy compatibility (dimensions are always merged).
        preamble: functions, macros and constants the body uses.
        no_return: return None instead of the outputs.
        return_tuple: always return a tuple of outputs.
        options: NVRTC flags in CuPy, accepted and ignored.

    Raises:
        TypeError: ``loop_prep``/``after_loop`` and other keyword arguments rocarray has no
            counterpart for.
        ValueError: a bad parameter list, or (``KernelError``) a body that does not compile,
            with its line and column.

    Examples:
        >>> import rocarray as ra
        >>> sqdiff = ra.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "sqdiff")
        >>> sqdiff(ra.asarray([1.0, 4.0]), 2.0)
        array([1., 4.])
    """

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, options=(), **kwargs):
        self.name = _check_name(name)
        self.__name__ = self.name
        # rocarray.fuse's generated bodies are valid and never read their outputs: they are
        # parsed only when a signature is compiled (so a disk-cache hit parses nothing)
        generated = kwargs.pop("_generated", False)
        # rocarray's own gathers and scatters: the full tier is the heavy one (codegen O2),
        # whose tight loop keeps many random reads in flight
        self._heavy = bool(kwargs.pop("_heavy", False))
        # rocarray's own kernels whose items loop over a whole line (the ranks of a GPU's
        # first sorts): never interpreted, whose one thread per item would run the loop
        # slower than the compile it stands in for takes
        self._interpret = bool(kwargs.pop("_interpret", True))
        # rocarray's own scatters, whose threads may write one element at once (repeated
        # indices): their complex raw elements are stored whole on the host too (GPUs store
        # every complex raw element so)
        self._whole_stores = bool(kwargs.pop("_whole_stores", False))
        if kwargs:
            raise TypeError(f"ElementwiseKernel: unsupported keyword argument(s) "
                            f"{', '.join(sorted(kwargs))} (loop_prep/after_loop have no "
                            f"counterpart in rocarray's generic skeleton)")
        self.in_params, self.out_params = _parse_signature(in_params, out_params, self.name)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation = operation
        self.preamble = preamble
        self.reduce_dims = bool(reduce_dims)
        self.no_return = bool(no_return)
        self.return_tuple = bool(return_tuple)
        self._placeholders = frozenset(p.type_name for p in self.in_params + self.out_params
                                       if p.is_placeholder)
        for p in self.in_params + self.out_params:
            if not p.is_placeholder:
                _type_of_param(p)  # an unsupported dtype name fails here
        if not generated:
            _parse_body(operation, preamble, self._placeholders, self.name)
        self._names = tuple(p.name for p in self.in_params + self.out_params)
        self._read_outputs = () if generated else _outputs_read(operation, preamble, self.out_params)
        self._plans: dict = {}
        #: (size, each argument's dtype, shape, strides and device, or scalar type) -> the
        #: launch of that call (``_Call``): a warm call of the general path (raw operands,
        #: views, given outputs) fills in its addresses and scalars and launches
        self._calls: dict = {}
        #: a call returns its one output itself
        self._one_result = self.nout == 1 and not self.no_return and not self.return_tuple
        self._call = warm_call(self._plans, self._general, self.nin)

    def __repr__(self):
        return f"<rocarray.ElementwiseKernel {self.name}>"

    # -- resolution (once per signature) -------------------------------------------------
    def _resolve(self, in_tokens, out_dtypes):
        b, in_types, out_types = _Bindings.of_call(self, in_tokens, out_dtypes)
        for p, tok, t in zip(self.in_params, in_tokens, in_types):
            if tok is complex and t.kind != "c":
                raise TypeError(f"kernel '{self.name}': a complex scalar cannot be passed for "
                                f"input '{p.name}' of type {t}")
        return in_types, out_types, b.types

    def _plan(self, in_tokens, out_dtypes, device, sized: bool) -> _Plan:
        in_kinds = []
        for p, tok in zip(self.in_params, in_tokens):
            if p.raw:
                if not isinstance(tok, np.dtype):
                    raise TypeError(f"kernel '{self.name}': raw input '{p.name}' needs an array, "
                                    f"not a Python scalar")
                in_kinds.append("r")
            else:
                in_kinds.append("a" if isinstance(tok, np.dtype) else "s")
        out_kinds = tuple("r" if p.raw else "a" for p in self.out_params)
        in_types, out_types, typedefs = self._resolve(in_tokens, out_dtypes)
        kmap = {"a": "in", "s": "scalar", "r": "raw"}
        kinds = [kmap[k] for k in in_kinds] + ["raw" if k == "r" else "out" for k in out_kinds]
        spec = _user_spec(self.name, self.operation, self.preamble, self._names, kinds,
                          in_types + out_types, typedefs, self._read_outputs, self._heavy, self._interpret,
                          self._whole_stores)
        read_index = tuple(k for k, p in enumerate(self.out_params) if p.name in self._read_outputs)
        plan = _Plan(load(spec, device), tuple(in_kinds), in_types, out_kinds, out_types,
                     self.name, read_index)
        plan.warm = self._warm_of(plan, device)
        return plan

    def _warm_of(self, plan: _Plan, device):
        """What a warm call of ``plan`` runs (``_warm.warm_call``): its contiguous runner
        when it has one output to return, else the outputs made and returned here, else
        (raw operands) the general path."""
        if plan.single is not None and self._one_result:
            return plan.single
        general = self._general
        if plan.simple:
            run, result = plan.run_contiguous, self._result
            return lambda args, shape, n: result(run(args, shape, n, device))
        return lambda args, shape, n: general(*args)

    def plan_for(self, in_dtypes, out_dtypes, device) -> _Plan:
        """The plan of a call whose inputs are arrays of ``in_dtypes`` (a Python scalar's
        entry: its type, ``int``/``float``/``bool``/``complex``) and whose outputs are
        arrays of ``out_dtypes``, on ``device``: what a call of those arguments would
        resolve, for callers that launch it with ``_Plan.launch_flat``."""
        tokens = tuple(t if t in (int, float, bool, complex) else np.dtype(t) for t in in_dtypes)
        out_dtypes = tuple(np.dtype(t) for t in out_dtypes)
        key = (*tokens, *out_dtypes, device)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(tokens, out_dtypes, device, False)
        return plan

    # -- the call (the warm path: ``_warm.warm_call``) -------------------------------------
    __call__ = property(operator.attrgetter("_call"))  # (straight to the warm path: no frame)

    def _general(self, *args, size=None, stream=None, block_size=None, _work=0):
        # (``_work``: rocarray's own kernels of a few items doing many elements each say how
        # many in all: on the host that decides interpreting and threads, ``LoadedKernel.launch``)
        if stream is None:
            key = [size]
            for a in args:
                t = type(a)
                if t is Array:
                    key.append((a._dtype, a._shape, a._strides, a._buf.device))
                elif t in _PY_SCALARS:
                    key.append(t)
                else:
                    break
            else:
                call = self._calls.get(key := tuple(key))
                if call is not None:
                    outs = call.run(args, self.nin, _work)
                    if outs is not None:
                        return self._result(outs)
                # (the general path below makes the call's entry)
                return self._result(self._checked(args, size, stream, key, _work))
        return self._result(self._checked(args, size, stream, None, _work))

    def _checked(self, args, size, stream, call_key, work=0):
        """The outputs of a call checked and resolved in full (the entry of ``call_key`` made
        where it launches one run of the general path)."""
        n_args = len(args)
        if n_args != self.nin and n_args != self.nargs:
            raise TypeError(
                f"kernel '{self.name}' takes {self.nin} input argument(s)"
                + (f" or {self.nargs} with its {self.nout} output(s)" if self.nout else "")
                + f", got {n_args}")
        if stream is not None:
            raise TypeError(f"kernel '{self.name}': stream= is not supported; kernels run on the "
                            "device's default stream")
        if size is not None:
            size = int(size)
            if size < 0:
                raise ValueError(f"kernel '{self.name}': size must be >= 0, got {size}")
        ins = list(args[:self.nin])
        outs = list(args[self.nin:])
        device, tokens = _scan_inputs(f"kernel '{self.name}'", self.in_params, ins)
        out_dtypes = []
        for p, o in zip(self.out_params, outs):
            if not isinstance(o, Array):
                raise TypeError(f"kernel '{self.name}': output '{p.name}' must be a rocarray "
                                f"array, not {type(o).__name__}")
            d = o._buf.device
            if device is None:
                device = d
            elif d is not device:
                raise TypeError(f"kernel '{self.name}': output '{p.name}' is on {d} but the "
                                f"inputs are on {device}")
            out_dtypes.append(o._dtype)
        if device is None:
            device = default_device()
        key = (*tokens, *out_dtypes, device)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(tuple(tokens), tuple(out_dtypes), device, size is not None)
            self._plans[key] = plan
        contiguous = None if plan.has_raw or size is not None else _one_contiguous_run(plan, ins, outs)
        if contiguous is not None:
            return plan.run_contiguous(ins, *contiguous, device, outs)
        return self._run(plan, ins, outs, size, device, call_key, work)

    def _result(self, outs):
        """What a call returns: None, the one output, or a tuple of them."""
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)

    def _run(self, plan: _Plan, ins, outs, size, device, call_key=None, work=0):
        name = self.name
        given = bool(outs)
        arrays = [a for a, k in zip(ins, plan.in_kinds) if k == "a"]
        arrays += [o for o, k in zip(outs, plan.out_kinds) if k == "a"]
        if size is not None:
            if arrays:
                raise ValueError(f"kernel '{name}': size= can be given only when every array "
                                 "argument is raw")
            shape = (size,)
        elif not arrays:
            raise ValueError(f"kernel '{name}': the loop size is undecided: every argument is raw "
                             "or a scalar; pass size=")
        else:
            shape = arrays[0]._shape
            for a in arrays:
                if a._shape != shape:
                    shape = broadcast_shapes(*(x._shape for x in arrays))
                    break
        kernel = plan.kernel
        if not outs:
            outs = []
            for p, k, t in zip(self.out_params, plan.out_kinds, plan.out_types):
                if k == "r" and size is None:
                    raise ValueError(f"kernel '{name}': the size of raw output '{p.name}' is "
                                     "undecided; pass the output array or size=")
                outs.append(Array._empty(shape, t, device))
        else:
            for p, o, k in zip(self.out_params, outs, plan.out_kinds):
                if k == "a" and o._shape != shape:
                    raise ValueError(f"kernel '{name}': output '{p.name}' has shape {o._shape} but "
                                     f"the arguments broadcast to {shape}")
            # inputs that overlap an output without being it are read from a copy (NumPy's rule)
            kinds = tuple(plan.in_kinds)
            given_ins = list(ins)
            for o, k in zip(outs, plan.out_kinds):
                if k == "a":
                    ins = list(_resolve_overlap(tuple(ins), kinds, o))
            if any(a is not b for a, b in zip(ins, given_ins)):
                call_key = None  # (the launch is the copies' layout, not the arguments')
            kernel = in_place_kernel(kernel, ins, plan.in_kinds, outs, plan.out_kinds)
        n = 1
        for d in shape:
            n *= d
        if n == 0:
            return outs
        key = (plan, shape, *[(a._shape, a._strides) for a, k in zip(ins, plan.in_kinds) if k == "a"],
               *[o._strides for o, k in zip(outs, plan.out_kinds) if k == "a"])
        layout = _layouts.get(key)
        if layout is None:
            layout = _remember_layout(key, self.reduce_dims, plan, shape, ins, outs)
        if not layout:  # (more dims than a kernel takes, after merging)
            return self._run_contiguous_copy(plan, ins, outs, shape, size, device)
        call = _Call(plan, n, layout, ins, outs, None if given else shape, device)
        if call_key is not None:
            remember(self._calls, call_key, call, _MAX_LAYOUTS)
        call.launch(ins, outs, work, kernel)
        return outs

    def _run_contiguous_copy(self, plan, ins, outs, shape, size, device):
        """More than MAX_DIMS dimensions after merging: run on C-contiguous copies (one 1-D
        run, so ``i`` keeps its meaning), then copy into outputs that were not contiguous."""
        ins = [contiguous(broadcast_to(a, shape)) if k == "a" else a
               for a, k in zip(ins, plan.in_kinds)]
        tmp = [o if k == "r" or o.is_c_contiguous() else Array._empty(shape, o._dtype, device)
               for o, k in zip(outs, plan.out_kinds)]
        for t, o in zip(tmp, outs):
            if t is not o:
                copy_elements(o, t)  # the body may read its outputs
        flat = (1,) if not shape else (int(np.prod(shape)),)
        reshaped_in = [a._view(flat, (a._dtype.itemsize,), a._offset) if k == "a" else a
                       for a, k in zip(ins, plan.in_kinds)]
        reshaped_out = [t._view(flat, (t._dtype.itemsize,), t._offset) if k == "a" else t
                        for t, k in zip(tmp, plan.out_kinds)]
        self._run(plan, reshaped_in, reshaped_out, None, device)
        for t, o in zip(tmp, outs):
            if t is not o:
                copy_elements(t, o)
        return outs


# -- ReductionKernel ----------------------------------------------------------------------------

#: "found ')'" (or ';') in a parse error at the token put after a reduction's snippet
_FOUND_WRAPPER = re.compile(r"found '[);]'")


class ReductionKernel:
    """A user-defined reduction kernel (CuPy's ``cupy.ReductionKernel``).

    Runs on rocarray's reduction engine on every device, one compiled kernel per dtype
    signature; calls take ``axis=``, ``keepdims=`` and ``out=``.

    Args:
        in_params: the inputs, a CuPy parameter list (``"T x"``).
        out_params: the outputs (``"T y"``); at least one.
        map_expr: maps the inputs of one element to a value of the reduction type.
        reduce_expr: combines two such values, ``a`` and ``b`` (associative and commutative).
        post_map_expr: writes the outputs from the reduced value ``a``.
        identity: the reduction's identity, as kernel-language text (None: the type's zero).
        name: the kernel's name.
        reduce_type: the type of ``a`` and ``b`` (default: the first output's type, as CuPy).
        reduce_dims: accepted for CuPy compatibility.
        preamble: functions, macros and constants the expressions use.
        options: NVRTC flags in CuPy, accepted and ignored.

    Raises:
        ValueError: no output parameter, ``raw`` parameters (not supported yet), or an
            expression that does not compile (``KernelError``, with its line and column).

    Examples:
        >>> import rocarray as ra
        >>> l2 = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
        >>> l2(ra.asarray([[3.0, 4.0], [6.0, 8.0]]), axis=1)
        array([ 5., 10.])
    """

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="",
                 options=()):
        self.name = _check_name(name)
        self.__name__ = self.name
        self.in_params, self.out_params = _parse_signature(in_params, out_params, self.name)
        if not self.out_params:
            raise ValueError(f"ReductionKernel '{self.name}': at least one output parameter is "
                             "needed")
        for p in self.in_params + self.out_params:
            if p.raw:
                raise TypeError(f"ReductionKernel '{self.name}': raw parameter '{p.name}' is not "
                                "supported (the reduction engine broadcasts its inputs and "
                                "indexes them itself)")
            if not p.is_placeholder:
                _type_of_param(p)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.map_expr = str(map_expr)
        self.reduce_expr = str(reduce_expr)
        self.post_map_expr = str(post_map_expr)
        self.identity = None if identity is None else str(identity)
        self.preamble = preamble
        self.reduce_dims = bool(reduce_dims)
        placeholders = frozenset(p.type_name for p in self.in_params + self.out_params
                                 if p.is_placeholder)
        if reduce_type is None:
            self._reduce_type = self.out_params[0].type_name
        elif isinstance(reduce_type, str):
            self._reduce_type = reduce_type
        else:
            self._reduce_type = np.dtype(reduce_type).name
        if self._reduce_type not in placeholders:
            resolve_type_name(self._reduce_type)  # a type name, or a syntax error
        names = placeholders | {"_type_reduce"}
        self._statements = self._make_statements()
        for what, (prefix, user, full) in self._statements.items():
            try:
                _parse_body(full, preamble, names, self.name, where=what)
            except KernelError as e:
                raise self._locate(e) from None
        self._plans: dict = {}

    def __repr__(self):
        return f"<rocarray.ReductionKernel {self.name}>"

    def _make_statements(self) -> dict:
        """Per snippet: (the text put before it, the user's text, the statement compiled)."""
        ident = "0" if self.identity is None or not self.identity.strip() else self.identity
        out = {}
        for what, text in (("identity", ident), ("map_expr", self.map_expr),
                           ("reduce_expr", self.reduce_expr)):
            prefix = "a = (_type_reduce)("
            out[what] = (prefix, text, f"{prefix}{text});")
        out["post_map_expr"] = ("", self.post_map_expr, self.post_map_expr.rstrip().rstrip(";") + ";")
        return out

    def _locate(self, e: KernelError) -> KernelError:
        """Point an error in a compiled statement at the user's snippet it came from."""
        for what, (prefix, user, full) in self._statements.items():
            if e.source == full:
                e.source = user
                e.where = what
                if e.line == 1 and e.column is not None:
                    e.column = max(1, min(e.column - len(prefix), len(user) + 1))
                lines = user.splitlines() or [""]
                if e.line == len(lines) and e.column is not None and e.column > len(lines[-1]):
                    # the token is the ")" or ";" put after the snippet, not the user's
                    e.message = _FOUND_WRAPPER.sub(f"found the end of {what}", e.message)
                break
        e.kernel_name = self.name
        return e

    def _plan(self, in_tokens, out_dtypes):
        b, in_types, out_types = _Bindings.of_call(self, in_tokens, out_dtypes)
        rt = self._reduce_type
        red_dt = b.types.get(rt)
        if red_dt is None:
            red_dt = resolve_type_name(rt)
            if red_dt is None:
                raise TypeError(f"ReductionKernel '{self.name}': the type placeholder '{rt}' of "
                                "reduce_type is bound by no argument")
        typedefs = dict(b.types)
        typedefs["_type_reduce"] = red_dt
        st = {k: v[2] for k, v in self._statements.items()}
        rdef = ReductionDef(
            self.name,
            tuple((p.name, t) for p, t in zip(self.in_params, in_types)),
            (("a", "b", red_dt),),
            st["identity"], st["map_expr"], st["reduce_expr"],
            tuple((p.name, t) for p, t in zip(self.out_params, out_types)),
            st["post_map_expr"], preamble=self.preamble, typedefs=typedefs)
        return rdef, in_types, out_types

    def __call__(self, *args, axis=None, keepdims=False, out=None, stream=None):
        n_args = len(args)
        if n_args != self.nin and n_args != self.nargs:
            raise TypeError(
                f"reduction kernel '{self.name}' takes {self.nin} input argument(s) or "
                f"{self.nargs} with its {self.nout} output(s), got {n_args}")
        if stream is not None:
            raise TypeError(f"reduction kernel '{self.name}': stream= is not supported")
        outs = list(args[self.nin:])
        if out is not None:
            if outs:
                raise ValueError(f"reduction kernel '{self.name}': out= given as well as "
                                 "positional outputs")
            if self.nout != 1:
                raise ValueError(f"reduction kernel '{self.name}': out= works for one output; "
                                 f"pass the {self.nout} outputs positionally")
            outs = [out]
        ins = list(args[:self.nin])
        device, tokens = _scan_inputs(f"reduction kernel '{self.name}'", self.in_params, ins)
        if device is None:
            raise ValueError(f"reduction kernel '{self.name}': at least one input must be an array")
        for p, o in zip(self.out_params, outs):
            if not isinstance(o, Array):
                raise TypeError(f"reduction kernel '{self.name}': output '{p.name}' must be a "
                                f"rocarray array, not {type(o).__name__}")
            if o._buf.device is not device:
                raise TypeError(f"reduction kernel '{self.name}': output '{p.name}' is on "
                                f"{o.device} but the inputs are on {device}")
        out_dtypes = tuple(o._dtype for o in outs)
        key = (*tokens, *out_dtypes)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(tuple(tokens), out_dtypes)
            self._plans[key] = plan
        rdef, in_types, _ = plan
        arrays = [a if isinstance(a, Array) else _scalar_array(a, t, device, self.name)
                  for a, t in zip(ins, in_types)]
        try:
            res = reduce(rdef, arrays, axis=axis, keepdims=keepdims, outs=outs or None)
        except KernelError as e:
            raise self._locate(e) from None
        return res[0] if self.nout == 1 else tuple(res)


_scalar_arrays: dict = {}


def _scalar_array(value, dtype, device, name):
    """A 0-d array holding a scalar argument converted to its parameter's type (kept for
    reuse: scalars are usually the same few values)."""
    key = (type(value), value, dtype, device)
    a = _scalar_arrays.get(key)
    if a is None:
        v = scalar_fields(value, dtype.type, name)
        a = asarray(np.asarray(complex(*v) if len(v) == 2 else v[0], dtype=dtype), device=device)
        if len(_scalar_arrays) > 256:
            _scalar_arrays.clear()
        _scalar_arrays[key] = a
    return a
