"""``rocarray.fuse``: trace a Python function of arrays and scalars into one kernel.

The function runs once per signature on tracing proxies; each operation records a node
resolved like the unfused call (``Ufunc.resolve``) with the catalogue's body; the nodes
become one ``ElementwiseKernel`` body (a final reduction: ``_fused_reduction``).  What is
traced and how: docs/architecture.md ("fuse") and docs/user_kernels.md.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from . import _elementwise_functions as ef
from ._array_object import Array
from ._device import mixed_devices
from ._dtypes import as_dtype
from ._elementwise import Ufunc, _ctype, _real_of
from ._fused_reduction import build_fused_reduction
from ._reduction import ReductionOp
from ._user_kernels import ElementwiseKernel
from ._warm import warm_call

__all__ = ["fuse"]

_PY_SCALARS = (bool, int, float, complex)


class FuseError(TypeError):
    """Something in a fused function cannot be traced."""


def _ufuncs():
    return ef


# -- the trace ------------------------------------------------------------------------------

class _Trace:
    def __init__(self, name):
        self.name = name
        self.nodes = []        # (ufunc, refs, loop_in, loop_out, body)
        self.n_arrays = 0
        self.scalar_exprs = []  # host-side scalar values: ('arg', k) / ('const', v) / (fn, refs)
        self.reduction = None


class _Value:
    """Base of the tracing proxies."""

    __slots__ = ("trace",)
    __array_priority__ = 200

    def __bool__(self):
        raise FuseError(
            f"fuse '{self.trace.name}': the truth value of a traced value is not known while "
            "tracing (Python `if`/`and`/`or`/`while` on arrays cannot be fused); use "
            "rocarray.where")

    def __index__(self):
        raise FuseError(f"fuse '{self.trace.name}': a traced value cannot be used as an index "
                        "or a size")

    __int__ = __float__ = __complex__ = __index__

    def __iter__(self):
        raise FuseError(f"fuse '{self.trace.name}': a traced value cannot be iterated")

    def __getitem__(self, key):
        raise FuseError(f"fuse '{self.trace.name}': indexing (x[...]) is not supported in a "
                        "fused function")

    def __setitem__(self, key, value):
        raise FuseError(f"fuse '{self.trace.name}': assignment into arrays (x[...] = v) is not "
                        "supported in a fused function")

    def __getattr__(self, name):
        raise FuseError(f"fuse '{self.trace.name}': the attribute or method '{name}' is not "
                        "supported in a fused function")


class _ArrayVar(_Value):
    """A traced array: a kernel input (ref ('in', k)) or a node's result (ref ('v', m))."""

    __slots__ = ("ref", "dtype")

    def __init__(self, trace, ref, dtype):
        self.trace = trace
        self.ref = ref
        self.dtype = dtype

    def astype(self, dtype, copy=True):
        dt = as_dtype(dtype)
        if dt == self.dtype:
            return self
        return _record_cast(self, dt)

    def sum(self, axis=None, keepdims=False, dtype=None):
        return _record_reduction(self, "sum", axis, keepdims, dtype)

    def prod(self, axis=None, keepdims=False, dtype=None):
        return _record_reduction(self, "prod", axis, keepdims, dtype)

    def max(self, axis=None, keepdims=False):
        return _record_reduction(self, "max", axis, keepdims, None)

    def min(self, axis=None, keepdims=False):
        return _record_reduction(self, "min", axis, keepdims, None)

    def __rocarray_ufunc__(self, ufunc, args, out):
        if out is not None:
            raise FuseError(f"fuse '{self.trace.name}': out= is not supported in a fused function")
        return _record(self.trace, ufunc, args)


class _ScalarVar(_Value):
    """A Python scalar known only at call time: an argument, or arithmetic on arguments
    (computed in Python on each call, as the unfused code would)."""

    __slots__ = ("index", "pytype")

    def __init__(self, trace, index, pytype):
        self.trace = trace
        self.index = index
        self.pytype = pytype

    def __rocarray_ufunc__(self, ufunc, args, out):
        if out is not None:
            raise FuseError(f"fuse '{self.trace.name}': out= is not supported in a fused function")
        return _record(self.trace, ufunc, args)


class _ReducedVar(_Value):
    """The result of the final reduction."""

    __slots__ = ()

    def __init__(self, trace):
        self.trace = trace

    def _after(self, *a, **k):
        raise FuseError(f"fuse '{self.trace.name}': only a final reduction is fused; operations "
                        "on the result of sum/prod/max/min are not supported inside the fused "
                        "function (apply them to its result)")

    def __rocarray_ufunc__(self, ufunc, args, out):
        self._after()


def _scalar_value_of(trace, x):
    """A Python/NumPy scalar appearing in the function: recorded as a per-call constant."""
    if isinstance(x, np.generic):
        x = x.item()
    trace.scalar_exprs.append(("const", x))
    return _ScalarVar(trace, len(trace.scalar_exprs) - 1, type(x))


def _token(x):
    if isinstance(x, _ArrayVar):
        return x.dtype
    if isinstance(x, _ScalarVar):
        return x.pytype
    raise AssertionError(x)


def _record(trace, ufunc: Ufunc, args, from_operator=False):
    """One op applied to traced values and scalars."""
    name = ufunc.row.name
    if len(args) != ufunc.nin:
        raise TypeError(f"{name}() takes {ufunc.nin} positional argument(s), got {len(args)}")
    vals = []
    for a in args:
        if isinstance(a, _ReducedVar):
            a._after()
        if isinstance(a, _Value):
            if a.trace is not trace:
                raise FuseError(f"fuse '{trace.name}': a value traced by another fused function "
                                "was used")
            vals.append(a)
        elif type(a) in _PY_SCALARS or (isinstance(a, np.generic) and not isinstance(a, np.ndarray)):
            vals.append(_scalar_value_of(trace, a))
        elif isinstance(a, Array):
            raise FuseError(f"fuse '{trace.name}': the array used in {name}() is not an argument "
                            "of the fused function (arrays from closures or globals are not "
                            "traced); pass it as an argument")
        else:
            raise FuseError(f"fuse '{trace.name}': {name}() got a {type(a).__name__}, which "
                            "cannot be fused")
    if not any(isinstance(v, _ArrayVar) for v in vals):
        return _record_scalar_op(trace, ufunc, vals, from_operator)
    tokens = tuple(_token(v) for v in vals)
    loop_in, loop_out, _out_storage, body = ufunc.resolve(tokens)
    trace.nodes.append((ufunc, tuple(v for v in vals), loop_in, loop_out, body))
    return _ArrayVar(trace, ("v", len(trace.nodes) - 1), loop_out)


def _record_cast(x: _ArrayVar, dt):
    trace = x.trace
    trace.nodes.append((None, (x,), (x.dtype,), dt, "out0 = (out0_type)in0;"))
    return _ArrayVar(trace, ("v", len(trace.nodes) - 1), dt)


# Python's own operators for arithmetic on scalars alone (what unfused code computes)
_PY_OPS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "pow": operator.pow, "negative": operator.neg, "positive": operator.pos, "abs": operator.abs,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
    "bitwise_invert": operator.invert, "equal": operator.eq, "not_equal": operator.ne,
    "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
    "greater_equal": operator.ge,
}


def _record_scalar_op(trace, ufunc, vals, from_operator):
    name = ufunc.row.name
    fn = _PY_OPS.get(name)
    if fn is None or not from_operator:
        raise FuseError(f"fuse '{trace.name}': {name}() of Python scalars alone is not fused; "
                        "compute it outside the fused function or pass an array")
    sample = fn(*(_sample(trace, v) for v in vals))
    trace.scalar_exprs.append((fn, tuple(v.index for v in vals), type(sample)))
    return _ScalarVar(trace, len(trace.scalar_exprs) - 1, type(sample))


def _sample(trace, v):
    return trace.sample_values[v.index]


def _install_operators():
    ef = _ufuncs()
    binary = {
        "__add__": "add", "__sub__": "subtract", "__mul__": "multiply", "__truediv__": "divide",
        "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
        "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
        "__lshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift",
    }
    compare = {"__eq__": "equal", "__ne__": "not_equal", "__lt__": "less", "__le__": "less_equal",
               "__gt__": "greater", "__ge__": "greater_equal"}
    unary = {"__neg__": "negative", "__pos__": "positive", "__abs__": "abs",
             "__invert__": "bitwise_invert"}

    def binop(uf, reflected=False):
        def op(self, other):
            if isinstance(self, _ReducedVar):
                self._after()
            if not _operand(other):
                return NotImplemented
            return _record(self.trace, uf, (other, self) if reflected else (self, other), True)
        return op

    def un(uf):
        def op(self):
            if isinstance(self, _ReducedVar):
                self._after()
            return _record(self.trace, uf, (self,), True)
        return op

    for cls in (_ArrayVar, _ScalarVar, _ReducedVar):
        for dunder, name in binary.items():
            uf = getattr(ef, name)
            setattr(cls, dunder, binop(uf))
            setattr(cls, "__r" + dunder[2:], binop(uf, reflected=True))
        for dunder, name in compare.items():
            setattr(cls, dunder, binop(getattr(ef, name)))
        for dunder, name in unary.items():
            setattr(cls, dunder, un(getattr(ef, name)))
        cls.__hash__ = object.__hash__


def _operand(x) -> bool:
    return isinstance(x, (_Value, Array, np.generic) + _PY_SCALARS)


# -- code generation --------------------------------------------------------------------------

def _ref_expr(v, scalar_params) -> str:
    if isinstance(v, _ArrayVar):
        kind, k = v.ref
        return f"a{k}" if kind == "in" else f"v{k}"
    return scalar_params[v.index]


def _generate(trace, outputs):
    """The kernel-language body, the parameter lists and how to assemble arguments.

    Returns (in_params, out_params, body, scalar_slots): ``scalar_slots`` lists, per scalar
    kernel parameter, (scalar expression index, dtype)."""
    # nodes reachable from the outputs
    live = set()
    stack = [o.ref[1] for o in outputs if o.ref[0] == "v"]
    while stack:
        m = stack.pop()
        if m in live:
            continue
        live.add(m)
        for v in trace.nodes[m][1]:
            if isinstance(v, _ArrayVar) and v.ref[0] == "v":
                stack.append(v.ref[1])
    scalar_slots = []
    slot_of = {}
    lines = []
    for m in sorted(live):
        ufunc, vals, loop_in, loop_out, body = trace.nodes[m]
        args = []
        for v, lt in zip(vals, loop_in):
            if isinstance(v, _ScalarVar):
                key = (v.index, str(lt))
                if key not in slot_of:
                    slot_of[key] = f"s{len(scalar_slots)}"
                    scalar_slots.append((v.index, lt))
                args.append(slot_of[key])
            else:
                args.append(_ref_expr(v, None))
        ctype = _ctype(loop_in[-1])
        tdefs = [f"typedef {ctype} ctype;", f"typedef {_real_of(ctype)} rtype;"]
        tdefs += [f"typedef {lt} in{k}_type;" for k, lt in enumerate(loop_in)]
        tdefs.append(f"typedef {loop_out} out0_type;")
        conv = [f"in{k}_type in{k} = (in{k}_type){a};" for k, a in enumerate(args)]
        lines.append(f"{loop_out} v{m};")
        lines.append("{")
        lines.extend("  " + t for t in tdefs + conv)
        lines.append("  out0_type out0;")
        lines.append("  {")
        lines.extend("    " + ln for ln in body.strip("\n").splitlines())
        lines.append("  }")
        lines.append(f"  v{m} = __rk_op_boundary(out0);")
        lines.append("}")
    for j, o in enumerate(outputs):
        lines.append(f"o{j} = {_ref_expr(o, None)};")
    in_params = [f"{trace.in_dtypes[k]} a{k}" for k in range(trace.n_arrays)]
    in_params += [f"{lt} s{j}" for j, (_, lt) in enumerate(scalar_slots)]
    out_params = [f"{o.dtype} o{j}" for j, o in enumerate(outputs)]
    return ", ".join(in_params), ", ".join(out_params), "\n".join(lines), scalar_slots


# -- the fused function -----------------------------------------------------------------------

class _FusedPlan:
    __slots__ = ("kernel", "array_args", "scalar_slots", "scalar_exprs", "n_out", "single",
                 "reduction")

    def __init__(self, kernel, array_args, scalar_slots, scalar_exprs, n_out, single,
                 reduction=None):
        self.kernel = kernel
        self.array_args = array_args      # argument positions of the array inputs
        self.scalar_slots = scalar_slots  # (scalar expression index, dtype) per scalar param
        self.scalar_exprs = scalar_exprs
        self.n_out = n_out
        self.single = single
        self.reduction = reduction


def _scalar_values(plan, args):
    """The host-side scalar expressions, evaluated for this call."""
    vals = []
    for e in plan.scalar_exprs:
        kind = e[0]
        if kind == "arg":
            a = args[e[1]]
            vals.append(a.item() if isinstance(a, np.generic) else a)
        elif kind == "const":
            vals.append(e[1])
        else:
            fn, refs, pytype = e
            r = fn(*(vals[k] for k in refs))
            if type(r) is not pytype:
                raise TypeError(f"fuse: Python scalar arithmetic gave a {type(r).__name__} on this "
                                f"call but a {pytype.__name__} when the function was traced")
            vals.append(r)
    return vals


class Fusion:
    """A fused function (made by ``rocarray.fuse``)."""

    def __init__(self, func, kernel_name=None):
        self.func = func
        self.name = kernel_name or getattr(func, "__name__", "fused")
        if not self.name.isidentifier():
            self.name = "fused"
        self._plans: dict = {}
        #: (argument dtypes..., device) -> the kernel's contiguous runner, for signatures
        #: whose arguments are all arrays, passed straight to one elementwise kernel with one
        #: output (the warm path of ``__call__``)
        self._direct: dict = {}
        self._call = warm_call(self._direct, self._general, None)
        functools.update_wrapper(self, func)

    def __repr__(self):
        return f"<rocarray.fuse {self.name}>"

    # -- the call (the warm path: ``_warm.warm_call``) -------------------------------------
    __call__ = property(operator.attrgetter("_call"))  # (straight to the warm path: no frame)

    def _general(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"fuse '{self.name}': keyword arguments are not supported by fused "
                            "functions; pass them positionally")
        tokens = []
        has_array = has_numpy = False
        device = None
        for a in args:
            t = type(a)
            if t is Array or isinstance(a, Array):
                tokens.append(a._dtype)
                has_array = True
                d = a._buf.device
                if device is None:
                    device = d
                elif d is not device:
                    raise mixed_devices(f"fuse '{self.name}'", device, d)
            elif t in _PY_SCALARS:
                tokens.append(t)
            elif isinstance(a, np.ndarray):
                has_numpy = True
                tokens.append(None)
            elif isinstance(a, np.generic):
                tokens.append(type(a.item()))
            else:
                try:
                    hash(a)
                except TypeError:
                    raise TypeError(f"fuse '{self.name}': argument of type {t.__name__} is neither "
                                    "an array, a scalar nor a hashable constant") from None
                tokens.append(("const", t, a))
        if not has_array:
            # CuPy's rule: without a device array the function runs as plain Python (NumPy
            # arrays and scalars go through NumPy's and Python's own operators)
            return self.func(*args)
        if has_numpy:
            raise TypeError(f"fuse '{self.name}': NumPy arrays cannot be mixed with rocarray "
                            "arrays; convert them with rocarray.asarray()")
        key = (*tokens, device)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._trace(args, tokens)
            self._plans[key] = plan
        out = self._run(plan, args, device)
        if key not in self._direct and plan.reduction is None and plan.single and not plan.scalar_slots \
                and plan.array_args == tuple(range(len(args))):
            # every argument an array, passed straight to the kernel: its plan serves the
            # warm path (the kernel's plan key is this one)
            kplan = plan.kernel._plans.get(key)
            if kplan is not None and kplan.single is not None:
                self._direct[key] = kplan
        return out

    def _trace(self, args, tokens):
        trace = _Trace(self.name)
        trace.in_dtypes = []
        proxies = []
        array_args = []
        for k, (a, tok) in enumerate(zip(args, tokens)):
            if isinstance(tok, np.dtype):
                proxies.append(_ArrayVar(trace, ("in", trace.n_arrays), tok))
                trace.in_dtypes.append(tok)
                trace.n_arrays += 1
                array_args.append(k)
            elif isinstance(tok, type):
                trace.scalar_exprs.append(("arg", k))
                proxies.append(_ScalarVar(trace, len(trace.scalar_exprs) - 1, tok))
            else:
                proxies.append(a)
        # sample values for host-side scalar arithmetic while tracing
        trace.sample_values = _LazySamples(trace, args)
        result = self.func(*proxies)
        single = not isinstance(result, tuple)
        results = (result,) if single else result
        if not results:
            raise FuseError(f"fuse '{self.name}': the function returned an empty tuple")
        reduction = None
        outs = []
        for r in results:
            if isinstance(r, _ReducedVar):
                if len(results) != 1:
                    raise FuseError(f"fuse '{self.name}': a fused reduction must be the only "
                                    "result of the function")
                reduction = trace.reduction
                outs.append(reduction["var"])
            elif isinstance(r, _ArrayVar):
                if r.trace is not trace:
                    raise FuseError(f"fuse '{self.name}': the function returned a value traced "
                                    "elsewhere")
                outs.append(r)
            elif isinstance(r, _ScalarVar) or type(r) in _PY_SCALARS:
                raise FuseError(f"fuse '{self.name}': the function returned a Python scalar; a "
                                "fused function must return arrays computed from its array "
                                "arguments")
            else:
                raise FuseError(f"fuse '{self.name}': the function returned a "
                                f"{type(r).__name__}; a fused function returns traced arrays "
                                "(or a tuple of them)")
        in_params, out_params, body, scalar_slots = _generate(trace, outs)
        if reduction is not None:
            red = build_fused_reduction(self.name, trace, body, scalar_slots, reduction)
            return _FusedPlan(None, tuple(array_args), tuple(scalar_slots),
                              tuple(trace.scalar_exprs), 1, True, red)
        # (one output of a function returning one array: the kernel returns it itself)
        kernel = ElementwiseKernel(in_params, out_params, body, name=self.name,
                                   return_tuple=not single, _generated=True)
        return _FusedPlan(kernel, tuple(array_args), tuple(scalar_slots),
                          tuple(trace.scalar_exprs), len(outs), single)

    def _run(self, plan, args, device):
        vals = _scalar_values(plan, args) if plan.scalar_exprs else ()
        kargs = [args[k] for k in plan.array_args]
        kargs += [vals[idx] for idx, _ in plan.scalar_slots]
        if plan.reduction is not None:
            return plan.reduction(kargs, device)
        return plan.kernel(*kargs)


class _LazySamples:
    """Values of the host-side scalar expressions for the call being traced."""

    def __init__(self, trace, args):
        self.trace = trace
        self.args = args

    def __getitem__(self, k):
        e = self.trace.scalar_exprs[k]
        if e[0] == "arg":
            a = self.args[e[1]]
            return a.item() if isinstance(a, np.generic) else a
        if e[0] == "const":
            return e[1]
        fn, refs, _ = e
        return fn(*(self[j] for j in refs))


def _record_reduction(x: _ArrayVar, name, axis, keepdims, dtype):
    trace = x.trace
    if trace.reduction is not None:
        raise FuseError(f"fuse '{trace.name}': only one reduction can be fused")
    if isinstance(axis, _Value) or isinstance(keepdims, _Value):
        raise FuseError(f"fuse '{trace.name}': axis and keepdims of a fused reduction must be "
                        "Python constants, not traced values")
    trace.reduction = {"name": name, "axis": axis, "keepdims": bool(keepdims), "dtype": dtype,
                       "var": x}
    return _ReducedVar(trace)


def fuse(*args, kernel_name=None):
    """Fuse a function of arrays and scalars into one kernel per dtype signature (CuPy's ``cupy.fuse``).

    Use as ``@rocarray.fuse`` or ``@rocarray.fuse(kernel_name="name")``. The function is traced
    once per dtype signature: its elementwise operations become one kernel (no temporaries in
    memory), and a final reduction (``sum``, ``max``...) becomes the map of one reduction
    kernel. Python control flow sees the tracer, not the data: branch with ``where``.

    Args:
        kernel_name: a name for the generated kernels.

    Raises:
        TypeError: positional arguments other than the function.

    Examples:
        >>> import rocarray as ra
        >>> @ra.fuse
        ... def fma(x, y, z):
        ...     return x * y + z
        >>> fma(ra.asarray([1.0, 2.0]), 3.0, 1.0)
        array([4., 7.])
    """
    if len(args) == 1 and callable(args[0]) and not isinstance(args[0], Fusion):
        return Fusion(args[0], kernel_name)
    if args:
        raise TypeError("fuse: use @rocarray.fuse or @rocarray.fuse(kernel_name=...)")
    return lambda f: Fusion(f, kernel_name)


_install_operators()


def _install_reduction_hook():
    """``rocarray.sum(v)`` (and prod/max/min) on a traced value records the fused reduction.

    The hook wraps ``ReductionOp.__call__`` (rocarray/_reduction.py) from here: a traced value
    is not an Array, so it is looked for before the op's own argument check."""
    call = ReductionOp.__call__
    if getattr(call, "_rocarray_fuse_hook", False):
        return
    fusable = ("sum", "prod", "max", "min")

    def __call__(self, x, /, *, axis=None, keepdims=False, dtype=None):
        if type(x) is not Array and isinstance(x, _Value):
            name = self.row.name
            if isinstance(x, _ReducedVar):
                x._after()
            if name not in fusable or not isinstance(x, _ArrayVar):
                raise FuseError(f"fuse '{x.trace.name}': {name}() is not fused (sum, prod, max "
                                "and min of a traced array are)")
            return _record_reduction(x, name, axis, keepdims, dtype)
        return call(self, x, axis=axis, keepdims=keepdims, dtype=dtype)

    __call__._rocarray_fuse_hook = True
    __call__.__doc__ = call.__doc__
    ReductionOp.__call__ = __call__


_install_reduction_hook()
