"""Bad input is a clear exception, never a crash: shapes, axes, dtypes, indices, kernel text.

Each group of cases runs in one child process (``_isolated``): a crash there fails the case
it died on (and names it), not the whole test run.  Every case names the exception it must
raise -- its class, or a class it must derive from -- and a pattern its message must match;
a few controls beside them give NumPy's answer on random data, so the arrays the cases use
are sound.  (Bad settings values, one child process per variable, are in
tests/test_settings.py; damaged cache entries in tests/test_corrupt_cache.py.)
"""

from __future__ import annotations

import json
import re

import pytest

from _isolated import run_python

#: what every group's child process starts with: random arrays (never zeros alone)
_SETUP = r'''
import json, sys
import numpy as np
import rocarray as ra
rng = np.random.default_rng(20261201)
A = rng.standard_normal((3, 4))
V = rng.integers(-50, 50, size=5)
B = rng.standard_normal(5) > 0
d = ra.asarray(A)                      # float64 (3, 4)
f = ra.asarray(A.astype(np.float32))   # float32 (3, 4)
v = ra.asarray(V)                      # int64 (5,)
m = ra.asarray(B)                      # bool (5,)
i2, i3 = ra.asarray(np.array([0, 1])), ra.asarray(np.array([0, 1, 2]))
def setitem(a, key, value):
    a[key] = value
    return a
'''

_RUN = _SETUP + r'''
for cid, code, control in json.loads(sys.argv[1]):
    try:
        got = eval(code)
    except BaseException as e:  # (what the parent checks: class names and message)
        out = {"id": cid, "raised": [c.__name__ for c in type(e).__mro__], "message": str(e)}
    else:
        out = {"id": cid, "raised": None}
        try:  # (reading the result back may fail too: an array that should not exist)
            out["value"] = repr(got)[:200]
            if control is not None:
                want = eval(control)
                have = got.get() if isinstance(got, ra.Array) else got
                out["matches"] = bool(have == want if isinstance(want, (np.dtype, tuple)) else
                                      np.array_equal(np.asarray(have), np.asarray(want), equal_nan=True))
        except Exception as e:
            out["value"] = f"<an object whose value cannot be read: {type(e).__name__}: {e}>"
            out["matches"] = False
    print(json.dumps(out), flush=True)
'''


class Case:
    """``code`` must raise ``error`` (a class name in its MRO) with a message matching
    ``message`` (``re.search``); or, with ``control``, return what that NumPy expression
    gives."""

    def __init__(self, group, code, error=None, message=None, control=None, note=None):
        self.group, self.code, self.error, self.message, self.control = group, code, error, message, control
        #: why a case is here (a worker whose fix it waits for, ...)
        self.note = note
        self.id = f"{group}: {code}"


def _cases(group, *rows):
    return [Case(group, *row) if isinstance(row, tuple) else row for row in rows]


_NUMERICS = "fixed on the numerics branch (memory-unsafe sizes); passes once merged"
_PROPTEST = "fixed on the proptest branch; passes once merged"

SIZES = _cases(
    "sizes",
    Case("sizes", "ra.ones((2**40, 2**40))", "ValueError", "array is too big", note=_NUMERICS),
    Case("sizes", "ra.empty(2**61)", "ValueError", "array is too big", note=_NUMERICS),
    Case("sizes", "ra.zeros((2**63,))", "ValueError", "array is too big", note=_NUMERICS),
    Case("sizes", "ra.empty((2**31,) * 3, dtype=ra.int8)", "ValueError", "array is too big", note=_NUMERICS),
    ("ra.empty((2, 3)).shape", None, None, "(2, 3)"),
)

SHAPES = _cases(
    "shapes",
    ("ra.zeros(-1)", "ValueError", r"negative dimensions are not allowed: shape \(-1,\)"),
    ("ra.empty((2, -3))", "ValueError", r"negative dimensions are not allowed: shape \(2, -3\)"),
    ("ra.full((-2,), 1.0)", "ValueError", "negative dimensions are not allowed"),
    ("ra.zeros((2.5,))", "TypeError", r"shape must be an int or a tuple of ints, got float in \(2.5,\)"),
    ("ra.zeros('3')", "TypeError", "shape must be an int or a tuple of ints, got str"),
    ("ra.zeros(None)", "TypeError", "shape must be an int or a tuple of ints, got NoneType"),
    ("ra.zeros((3, None))", "TypeError", "got NoneType in"),
    ("ra.reshape(d, (-1, -1))", "ValueError", r"reshape: can only specify one unknown dimension"),
    ("ra.reshape(d, (5, 7))", "ValueError", r"cannot reshape array of size 12 into shape \(5, 7\)"),
    ("ra.reshape(d, (-2, 6))", "ValueError", r"reshape: invalid shape \(-2, 6\)"),
    ("ra.reshape(d, (2.0, 6))", "TypeError", "reshape: shape must be a tuple of ints"),
    ("ra.broadcast_to(d, (-1, 4))", "ValueError", r"broadcast_to: cannot broadcast shape \(3, 4\) to \(-1, 4\)"),
    ("ra.broadcast_to(d, (2, 4))", "ValueError", r"broadcast_to: cannot broadcast shape \(3, 4\) to \(2, 4\)"),
    ("ra.broadcast_to(d, (3, 4.0))", "TypeError", r"broadcast_to: shape must be a tuple of integers, got \(3, 4.0\)"),
    ("ra.broadcast_shapes((2, -3))", "ValueError", r"broadcast_shapes: negative dimensions are not allowed: shape \(2, -3\)"),
    ("ra.broadcast_shapes((4,), (-1,))", "ValueError", r"broadcast_shapes: negative dimensions are not allowed: shape \(-1,\)"),
    ("ra.broadcast_shapes((2, 3.5))", "TypeError", r"broadcast_shapes: dimensions must be integers, got \(2, 3.5\)"),
    ("ra.broadcast_shapes((2, 3), (4, 3))", "ValueError", r"shapes \(2, 3\), \(4, 3\) cannot be broadcast together"),
    ("ra.broadcast_shapes((2, 1), (1, 5))", None, None, "np.broadcast_shapes((2, 1), (1, 5))"),
    ("ra.eye(-1)", "ValueError", "eye: n_rows and n_cols must be non-negative"),
    ("ra.eye(3, k=1.5)", "TypeError", "eye: k must be an integer, not float"),
    ("ra.arange(0, 10, 0)", "ValueError", "arange: step must not be zero"),
    ("ra.arange('a')", "TypeError", "arange: start must be a real number, not str"),
    ("ra.linspace(0, 1, -1)", "ValueError", "linspace: num must be a non-negative integer, got -1"),
    ("ra.linspace(0, 1, 2.5)", "TypeError", "linspace: num must be a non-negative integer, not float"),
    ("ra.linspace(0, 1, True)", "TypeError", "linspace: num must be a non-negative integer, not bool"),
    ("ra.full((2,), 'a')", "TypeError", "fill_value must be a bool, int, float or complex, not str"),
    ("ra.tile(d, (-1,))", "ValueError", r"tile: repetitions must be non-negative"),
    ("ra.repeat(d, -1)", "ValueError", "repeat: repeats must be non-negative, got -1"),
    ("ra.repeat(d, 2.5)", "TypeError", "repeat: repeats must be an integer, not float"),
    ("ra.concat([])", "ValueError", "concat: need at least one array"),
    ("ra.stack([d, v])", "ValueError", r"stack: all arrays must have the same shape"),
    ("ra.concat([d, v])", "ValueError", "concat: all arrays must have the same number of dimensions"),
    ("d + v", "ValueError", r"shapes \(3, 4\), \(5,\) cannot be broadcast together"),
    ("ra.matmul(d, d)", "ValueError", r"matmul: the contracted dimensions differ"),
    ("ra.diff(d, n=-1)", "ValueError", "diff: n must be non-negative, got -1"),
    ("ra.asarray([[1, 2], [3]])", "ValueError", "inhomogeneous"),
    ("ra.triu(v)", "ValueError", r"triu: x must have at least two dimensions"),
    ("ra.reshape(d, (4, 3))", None, None, "np.reshape(A, (4, 3))"),
)

AXES = _cases(
    "axes",
    ("ra.sum(d, axis=5)", "IndexError", "sum: axis 5 is out of bounds for an array of dimension 2"),
    ("ra.sum(d, axis=5)", "ValueError", "sum: axis 5 is out of bounds"),  # (NumPy's AxisError is both)
    ("ra.sum(d, axis=-3)", "IndexError", "sum: axis -3 is out of bounds"),
    ("ra.sum(d, axis=(0, 0))", "ValueError", r"sum: repeated axis in \(0, 0\)"),
    ("ra.sum(d, axis=(0, -2))", "ValueError", r"sum: repeated axis in \(0, -2\)"),
    ("ra.sum(d, axis=1.5)", "TypeError", "sum: axis must be an integer, not float"),
    ("ra.sum(d, axis='0')", "TypeError", "sum: axis must be an integer, not str"),
    ("ra.sum(d, axis=(0, 1.0))", "TypeError", "sum: axis must be an integer, not float"),
    ("ra.sum(d, axis=True)", "TypeError", "sum: axis must be an integer, not bool"),
    ("ra.sum(d, axis=-1)", None, None, "np.sum(A, axis=-1)"),
    ("ra.max(d, axis=2)", "IndexError", "max: axis 2 is out of bounds"),
    ("ra.prod(d, axis=3)", "IndexError", "prod: axis 3 is out of bounds"),
    ("ra.any(d, axis=-3)", "IndexError", "any: axis -3 is out of bounds"),
    Case("axes", "ra.mean(d, axis=(1, 1))", "ValueError", r"mean: repeated axis in \(1, 1\)", note=_PROPTEST),
    Case("axes", "ra.std(d, axis=9)", "IndexError", "std: axis 9 is out of bounds", note=_PROPTEST),
    Case("axes", "ra.var(d, axis=9)", "IndexError", "var: axis 9 is out of bounds", note=_PROPTEST),
    Case("axes", "ra.count_nonzero(d, axis=4)", "IndexError", "count_nonzero: axis 4 is out of bounds",
         note=_PROPTEST),
    ("ra.argmax(d, axis=3)", "IndexError", "argmax: axis 3 is out of bounds"),
    ("ra.argmin(d, axis=1.0)", "TypeError", "argmin: axis must be an int or None, not float"),
    ("ra.cumulative_sum(d, axis=2)", "IndexError", "cumulative_sum: axis 2 is out of bounds"),
    ("ra.cumulative_sum(d)", "ValueError", "cumulative_sum: axis must be given for a 2-d array"),
    ("ra.sort(d, axis=2)", "IndexError", "sort: axis 2 is out of bounds"),
    ("ra.argsort(d, axis=-3)", "IndexError", "argsort: axis -3 is out of bounds"),
    ("ra.expand_dims(d, axis=5)", "IndexError", "expand_dims: axis 5 is out of bounds for an array of dimension 3"),
    ("ra.expand_dims(d, axis=1.5)", "TypeError", "expand_dims: axis must be an integer, not float"),
    ("ra.squeeze(d, axis=0)", "ValueError", "squeeze: cannot remove axis 0 of size 3"),
    ("ra.squeeze(d, axis=7)", "IndexError", "squeeze: axis 7 is out of bounds"),
    ("ra.permute_dims(d, (0, 0))", "ValueError", r"permute_dims: axes \(0, 0\) are not a permutation"),
    ("ra.permute_dims(d, (0,))", "ValueError", r"permute_dims: axes \(0,\) are not a permutation"),
    ("ra.permute_dims(d, (0, 2))", "IndexError", "permute_dims: axis 2 is out of bounds"),
    ("ra.permute_dims(d, (0, 1.0))", "TypeError", "permute_dims: axis must be an integer, not float"),
    ("ra.moveaxis(d, 0, 5)", "IndexError", "moveaxis: axis 5 is out of bounds"),
    ("ra.moveaxis(d, (0, 0), (1, 0))", "ValueError", r"moveaxis: repeated axis in source \(0, 0\)"),
    ("ra.concat([d, d], axis=2)", "IndexError", "concat: axis 2 is out of bounds"),
    ("ra.concat([d, d], axis=1.0)", "TypeError", "concat: axis must be an integer, not float"),
    ("ra.stack([d, d], axis=4)", "IndexError", "stack: axis 4 is out of bounds for an array of dimension 3"),
    ("ra.flip(d, axis=(0, 0))", "ValueError", r"flip: repeated axis in \(0, 0\)"),
    ("ra.flip(d, axis=3)", "IndexError", "flip: axis 3 is out of bounds"),
    ("ra.roll(d, 1, axis=5)", "IndexError", "roll: axis 5 is out of bounds"),
    ("ra.roll(d, (1, 2), axis=0)", "ValueError", r"roll: shift \(1, 2\) and axis 0 must have the same length"),
    ("ra.diff(d, axis=3)", "IndexError", "diff: axis 3 is out of bounds"),
    ("ra.unstack(d, axis=-3)", "IndexError", "unstack: axis -3 is out of bounds"),
    ("ra.take(d, i2, axis=4)", "IndexError", "take: axis 4 is out of bounds for an array of dimension 2"),
    ("ra.take(d, i2, axis=4)", "ValueError", "take: axis 4 is out of bounds"),
    ("ra.take(d, i2, axis=True)", "TypeError", "take: axis must be an integer, not bool"),
    ("ra.take_along_axis(d, ra.asarray(np.zeros((3, 4), dtype=np.int64)), axis=2)", "IndexError",
     "take_along_axis: axis 2 is out of bounds"),
    ("ra.vecdot(d, d, axis=3)", "IndexError", "vecdot: axis 3 is out of bounds"),
    ("ra.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'rk_sum5')(d, axis=5)", "IndexError",
     "rk_sum5: axis 5 is out of bounds"),
    ("ra.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'rk_sum6')(d, axis=(0, 0))", "ValueError",
     r"rk_sum6: repeated axis in \(0, 0\)"),
    ("ra.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'rk_sum7')(d, axis=1.5)", "TypeError",
     "rk_sum7: axis must be an integer, not float"),
    ("ra.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'rk_sum8')(d, axis=-1)", None, None,
     "np.sum(A, axis=-1)"),
    ("ra.fuse(lambda a: ra.sum(a, axis=7))(d)", "IndexError", "axis 7 is out of bounds"),
)

DTYPES = _cases(
    "dtypes",
    ("ra.zeros(3, dtype='float128')", "TypeError", r"dtype='float128' \(float128\) is not supported by rocarray; "
                                                   "supported dtypes are bool, int8"),
    ("ra.zeros(3, dtype='banana')", "TypeError", "dtype='banana' is not a data type; use one of bool, int8"),
    ("ra.zeros(3, dtype=np.dtype('U3'))", "TypeError", "is not supported by rocarray"),
    ("ra.zeros(3, dtype=np.dtype('M8[s]'))", "TypeError", r"\(datetime64\[s\]\) is not supported"),
    ("ra.zeros(3, dtype=object)", "TypeError", r"\(object\) is not supported"),
    ("ra.zeros(3, dtype=np.longdouble)", "TypeError", "is not supported by rocarray"),
    ("ra.zeros(3, dtype=np.dtype([('a', 'i4')]))", "TypeError", "is not supported by rocarray"),
    ("ra.zeros(3, dtype=3)", "TypeError", "dtype=3 is not a data type"),
    ("ra.astype(d, None)", "TypeError", "dtype=None is not a data type; use one of bool"),
    ("d.astype(None)", "TypeError", "dtype=None is not a data type"),
    ("ra.astype(d, 'x')", "TypeError", "dtype='x' is not a data type"),
    ("ra.astype(ra.asarray(A + 1j), ra.float64)", "TypeError", "would drop the imaginary part"),
    ("ra.asarray(np.array(['a']))", "TypeError", r"array dtype=dtype\('<U1'\) \(<U1\) is not supported"),
    ("ra.asarray(np.array([1], dtype=np.longdouble))", "TypeError", "is not supported by rocarray"),
    ("ra.asarray(np.array([1], dtype='M8[s]'))", "TypeError", "is not supported by rocarray"),
    ("ra.asarray(np.array([b'x']))", "TypeError", "is not supported by rocarray"),
    ("ra.asarray([object()])", "TypeError", "asarray: cannot make an array from list"),
    ("ra.asarray(['a', 'b'])", "TypeError", "asarray: cannot make an array from list holding strings"),
    ("ra.asarray(None)", "TypeError", "asarray: cannot make an array from NoneType"),
    ("ra.asarray({1: 2})", "TypeError", "asarray: cannot make an array from dict"),
    ("ra.asarray(1j, dtype=ra.float32)", "TypeError", "asarray: cannot convert a complex value to float32"),
    Case("dtypes", "ra.asarray(2**70)", "OverflowError", "out of bounds", note=_NUMERICS),
    ("ra.asarray(-1, dtype=ra.uint8)", "OverflowError", "asarray: Python int -1 out of bounds for uint8"),
    ("ra.asarray(300, dtype=ra.int8)", "OverflowError", "asarray: Python int 300 out of bounds for int8"),
    ("ra.result_type(None)", "TypeError", "dtype=None is not a data type"),
    ("ra.result_type()", "ValueError", "result_type: at least one array or dtype is required"),
    ("ra.can_cast(ra.float32, None)", "TypeError", "to=None is not a data type"),
    ("ra.can_cast(None, ra.float32)", "TypeError", "dtype=None is not a data type"),
    ("ra.result_type(d, ra.int8)", None, None, "np.result_type(A, np.int8)"),
    ("ra.finfo(ra.int32)", "TypeError", "finfo: int32 is not a floating-point dtype"),
    ("ra.iinfo(ra.float32)", "TypeError", "iinfo: float32 is not an integer dtype"),
    ("ra.finfo('nope')", "TypeError", "dtype='nope' is not a data type"),
    ("ra.isdtype(ra.float32, 'nope')", "ValueError", "isdtype: unknown kind 'nope'"),
    ("ra.isdtype(ra.float32, 5)", "TypeError", "isdtype: kind must be a dtype, a kind name or a tuple, not 5"),
    ("ra.isdtype('float32', 'real floating')", "TypeError", "isdtype: expected a rocarray dtype"),
    ("ra.linspace(0, 1, 3, dtype=ra.int32)", "TypeError", "linspace: dtype must be a floating-point dtype, not int32"),
    ("ra.eye(2, dtype=np.dtype('U1'))", "TypeError", "is not supported by rocarray"),
    ("ra.sum(d, dtype='x')", "TypeError", "dtype='x' is not a data type"),
    ("ra.cumulative_sum(v, dtype='nope')", "TypeError", "dtype='nope' is not a data type"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'rk_fixed')(f)", "TypeError",
     "kernel 'rk_fixed': input 'a' is declared float64 but the array passed for it is float32"),
    ("ra.ElementwiseKernel('T a', 'T b', 'b = a;', 'rk_bound')(d, f)", "TypeError",
     "kernel 'rk_bound': type placeholder 'T' is bound to both float32"),
    ("ra.astype(v, ra.float32)", None, None, "V.astype(np.float32)"),
)

INDICES = _cases(
    "indices",
    ("v[10]", "IndexError", "index 10 is out of bounds for axis 0 with size 5"),
    ("v[-6]", "IndexError", "index -6 is out of bounds for axis 0 with size 5"),
    ("v[5]", "IndexError", "index 5 is out of bounds"),
    ("v[2**70]", "IndexError", "index 1180591620717411303424 is out of bounds"),
    ("v[-2**70]", "IndexError", "is out of bounds for axis 0 with size 5"),
    ("v[1.5]", "IndexError", r"only integers, slices \(':'\), ellipsis \('...'\) and None are valid indices; got float"),
    ("v['a']", "IndexError", "are valid indices; got str"),
    ("v[object()]", "IndexError", "are valid indices; got object"),
    ("v[np.float64(1)]", "IndexError", "are valid indices; got float64"),
    ("v[0, 0]", "IndexError", "too many indices for array: array is 1-dimensional, but 2 were indexed"),
    ("d[0, 0, 0]", "IndexError", "too many indices for array: array is 2-dimensional, but 3 were indexed"),
    ("d[..., ...]", "IndexError", r"an index can only have a single ellipsis"),
    ("d[1:2:0]", "ValueError", "slice step cannot be zero"),
    ("v[1:2.5]", "TypeError", "slice indices must be integers"),
    ("v[[0, 1.5]]", "IndexError", "arrays used as indices must be of integer or boolean type, not float64"),
    ("v[[0, 10]]", "IndexError", "index 10 is out of bounds for axis 0 with size 5"),
    ("v[ra.asarray(np.array([10]))]", "IndexError", "index 10 is out of bounds"),
    ("v[ra.asarray(np.array([-6]))]", "IndexError", "index -6 is out of bounds"),
    ("v[ra.asarray(np.array([1.5]))]", "IndexError", "arrays used as indices must be of integer or boolean type"),
    ("v[ra.asarray(np.array([200], dtype=np.uint8))]", "IndexError", "index 200 is out of bounds"),
    ("v[ra.asarray(1.0)]", "IndexError", "are not supported yet"),
    ("v[ra.asarray(np.array([True, False]))]", "IndexError",
     "boolean index did not match indexed array along axis 0; size of axis is 5 but size of corresponding "
     "boolean axis is 2"),
    ("v[ra.asarray(np.ones(6, dtype=bool))]", "IndexError", "size of axis is 5 but size of corresponding boolean axis is 6"),
    ("d[ra.asarray(np.array([True, False]))]", "IndexError", "size of axis is 3 but size of corresponding boolean axis is 2"),
    ("d[ra.asarray(np.zeros((2, 3), dtype=bool))]", "IndexError", "boolean index did not match"),
    ("v[np.array([True, False])]", "IndexError", "boolean index did not match"),
    ("d[:, 5]", "IndexError", "index 5 is out of bounds for axis 1 with size 4"),
    Case("indices", "d[i2, i3]", "IndexError", "shape mismatch: index arrays could not be broadcast together",
         note=_PROPTEST),
    ("setitem(v, 10, 1)", "IndexError", "index 10 is out of bounds"),
    ("setitem(v, slice(0, 2), ra.asarray(np.array([1, 2, 3])))", "ValueError",
     r"could not broadcast value of shape \(3,\) into an index result of shape \(2,\)"),
    ("setitem(v, 0, 'a')", "TypeError", "holding strings"),
    ("setitem(v, ra.asarray(np.array([True])), 1)", "IndexError", "boolean index did not match"),
    ("setitem(v, ra.asarray(np.array([7])), 1)", "IndexError", "index 7 is out of bounds"),
    ("setitem(v, 1.5, 1)", "IndexError", "are valid indices; got float"),
    ("setitem(d, (0, 0, 0), 1.0)", "IndexError", "too many indices"),
    ("ra.take(v, ra.asarray(np.array([1.5])))", "TypeError", "take: indices must have an integer data type, not float64"),
    ("ra.take(v, ra.asarray(np.array([-6])))", "IndexError", "index -6 is out of bounds"),
    ("ra.take(v, [1, 2])", "TypeError", "take: indices must be a rocarray array, not list"),
    ("v[m]", None, None, "V[B]"),
    ("d[:, ::-2]", None, None, "A[:, ::-2]"),
    ("v[ra.asarray(np.array([-1, 0, 4]))]", None, None, "V[[-1, 0, 4]]"),
)

_EK = "ra.ElementwiseKernel('float64 a', 'float64 b', {body!r}, {name!r})(d)"
_RK = "ra.ReductionKernel('T x', 'T y', {map!r}, {reduce!r}, {post!r}, {ident!r}, {name!r})(d)"


def _ek(body, name, error, where):
    return (_EK.format(body=body, name=name), error, re.escape(f"kernel '{name}', {where}"))


def _rk(name, error, where, map="x", reduce="a + b", post="y = a", ident="0"):
    return (_RK.format(map=map, reduce=reduce, post=post, ident=ident, name=name), error,
            re.escape(f"kernel '{name}', {where}"))


KERNELS = _cases(
    "kernels",
    _ek("b = a +;", "k_expr", "KernelSyntaxError", "line 1, column 8: expected an expression, found ';'"),
    _ek("b = a;\nb = zz * 2;", "k_name", "KernelNameError", "line 2, column 5: unknown identifier 'zz'"),
    _ek("b = foo(a);", "k_func", "KernelNameError", "line 1, column 5: unknown function 'foo'"),
    _ek("b = sin(a, a);", "k_args", "KernelTypeError", "line 1, column 5: sin() takes 1 argument, 2 given"),
    _ek("int q = 1; int q = 2; b = a;", "k_redecl", "KernelSyntaxError", "line 1, column 16: redeclaration of 'q'"),
    _ek("b = a @ 2;", "k_char", "KernelSyntaxError", "line 1, column 7: unexpected character '@'"),
    _ek("b = a % 1.5;", "k_mod", "KernelTypeError", "line 1, column 7: operator '%' needs integer operands"),
    _ek("if (a > 0) {\n  b = 1;", "k_brace", "KernelSyntaxError", "line 1, column 12: missing '}'"),
    _ek("a = 1;", "k_const", "KernelTypeError", "line 1, column 1: cannot assign to input parameter 'a'"),
    _ek("b = a;\n\tb = b +* 2;", "k_tab", "KernelSyntaxError", "line 2, column 9: pointers are not supported"),
    _ek("b = ~a;", "k_bitnot", "KernelTypeError", "line 1, column 5"),
    ("ra.ElementwiseKernel('floatx a', 'float64 b', 'b = a;', 'k_ptype')(d)", "KernelSyntaxError",
     re.escape("kernel 'k_ptype', params line 1, column 1: unknown type 'floatx' of parameter 'a'")),
    ("ra.ElementwiseKernel('float64 a,', 'float64 b', 'b = a;', 'k_pempty')(d)", "KernelSyntaxError",
     re.escape("kernel 'k_pempty', params line 1, column 11: empty parameter in parameter list")),
    ("ra.ElementwiseKernel('float64 a', 'float64 a', 'a = a;', 'k_pboth')(d)", "KernelSyntaxError",
     re.escape("kernel 'k_pboth', params line 1, column 4: parameter 'a' is both an input and an output")),
    _rk("r_reduce", "KernelSyntaxError", "reduce_expr line 1, column 5: expected an expression, found the end "
                                         "of reduce_expr", reduce="a + "),
    _rk("r_reduce2", "KernelSyntaxError", "reduce_expr line 2, column 5: expected an expression, found the end "
                                          "of reduce_expr", reduce="a +\n b +"),
    _rk("r_paren", "KernelSyntaxError", "reduce_expr line 1, column 5: expected an expression, found ')'",
        reduce="a + )"),
    _rk("r_map", "KernelNameError", "map_expr line 1, column 1: unknown identifier 'zz'", map="zz"),
    _rk("r_post", "KernelNameError", "post_map_expr line 1, column 5: unknown identifier 'q'", post="y = q"),
    _rk("r_post2", "KernelSyntaxError", "post_map_expr line 1, column 8: expected an expression, found the end "
                                        "of post_map_expr", post="y = a +"),
    _rk("r_ident", "KernelNameError", "identity line 1, column 1: unknown identifier 'nope'", ident="nope"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'bad name')(d)", "ValueError",
     "invalid kernel name 'bad name': it must be a C identifier"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', None, 'k_none')(d)", "TypeError",
     "kernel 'k_none': the body must be a string, not NoneType"),
    ("ra.ElementwiseKernel(None, 'float64 b', 'b = 1;', 'k_nonep')(d)", "TypeError",
     "kernel 'k_nonep': in_params must be a string, not NoneType"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'k_count')()", "TypeError",
     r"kernel 'k_count' takes 1 input argument\(s\) or 2 with its 1 output\(s\), got 0"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'k_size')(1.5)", "ValueError",
     "kernel 'k_size': the loop size is undecided"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'k_str')('s')", "TypeError",
     "kernel 'k_str': input 'a' must be a rocarray array or a scalar, not str"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a;', 'k_shape')(d, ra.zeros((4, 3)))", "ValueError",
     r"\(3, 4\), \(4, 3\) cannot be broadcast together"),
    ("ra.ElementwiseKernel('float64 a', 'float64 b', 'b = a * 2.0 + 1.0;', 'k_good')(d)", None, None, "A * 2.0 + 1.0"),
    ("ra.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = a', '0', 'r_good')(d, axis=0)", None, None,
     "np.sum(A * A, axis=0)"),
)

GROUPS = {"sizes": SIZES, "shapes": SHAPES, "axes": AXES, "dtypes": DTYPES, "indices": INDICES, "kernels": KERNELS}
ALL = [case for cases in GROUPS.values() for case in cases]


@pytest.fixture(scope="module")
def results():
    """{case id: what the child process said of it} for every group, one process each;
    a case a child died on is marked with how it died, the cases after it as not run."""
    out = {}
    for name, cases in GROUPS.items():
        r = run_python(_RUN, args=[json.dumps([[c.id, c.code, c.control] for c in cases])], timeout=120)
        for line in r.stdout.splitlines():
            if line.startswith("{"):
                item = json.loads(line)
                out[item["id"]] = item
        missing = [c.id for c in cases if c.id not in out]
        if missing:
            how = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit status {r.returncode}"
            out[missing[0]] = {"died": f"the child process died on this case ({how}):\n{r.stderr[-3000:]}"}
            for cid in missing[1:]:
                out[cid] = {"died": f"not run: the child process died on {missing[0]!r}"}
    return out


def test_case_ids_are_unique():
    ids = [c.id + (c.error or "") for c in ALL]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", ALL, ids=[c.id + (f" [{c.error}]" if c.error else "") for c in ALL])
def test_bad_input_is_a_clear_error(results, case):
    got = results[(case.id)]
    assert "died" not in got, got["died"]
    if case.error is None:
        assert got["raised"] is None, f"{case.code} raised {got['raised'][0]}: {got['message']}"
        assert got["matches"], f"{case.code} gave {got['value']}, NumPy {case.control}"
        return
    assert got["raised"] is not None, f"{case.code} raised nothing and gave {got['value']}"
    assert case.error in got["raised"], (f"{case.code} raised {got['raised'][0]} (not a {case.error}): "
                                         f"{got['message']}")
    assert re.search(case.message, got["message"]), f"{case.code}: {got['message']!r}"
