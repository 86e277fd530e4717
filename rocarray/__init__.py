"""rocarray: NumPy-style arrays on AMD GPUs (ROCm/HIP), NVIDIA GPUs (CUDA) and the CPU.

The namespace follows the Python array API standard and CuPy's habits (``asnumpy``,
``.get()``).  Kernels are generated as LLVM IR and compiled in-process for the device.
"""

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

# -- settings: every ROCARRAY_* variable checked before anything reads one -------------------
from . import _settings

_settings.check_environment()

# -- devices -----------------------------------------------------------------------------
from ._device import Device, available_devices, default_device

from ._info import __array_namespace_info__

# -- the array type ----------------------------------------------------------------------
from ._array_object import Array

ndarray = Array  # CuPy's and NumPy's name for it

# -- data types --------------------------------------------------------------------------
from ._dtypes import (
    bool,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type

# -- creation ----------------------------------------------------------------------------
from ._creation_functions import (
    arange,
    asarray,
    asnumpy,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)

# -- manipulation ------------------------------------------------------------------------
from ._manipulation_functions import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    expand_dims,
    matrix_transpose,
    permute_dims,
    reshape,
    squeeze,
)

# -- joining, reordering, repeating, grids, triangles, differences -------------------------
from ._creation_functions import meshgrid, tril, triu
from ._manipulation_functions import concat, diff, flip, moveaxis, repeat, roll, stack, tile, unstack

# -- constants ---------------------------------------------------------------------------
e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None

# -- elementwise functions (generated from the op catalogue, kernels/elementwise.py) -----
from ._elementwise_functions import (
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    nextafter,
    not_equal,
    positive,
    pow,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)

# -- reductions (kernels/reductions.py) -------------------------------------------------------
from ._statistical_functions import (all, any, argmax, argmin, count_nonzero, cumulative_prod, cumulative_sum, max,
                                     mean, min, prod, std, sum, var)

# -- user-defined kernels and fusion (docs/user_kernels.md) -----------------------------------
from ._user_kernels import ElementwiseKernel, ReductionKernel
from ._fusion import fuse

# -- device-wide primitives (scan: the offsets of compaction and sorting) ----------------------
from ._primitives import exclusive_scan, scan

# -- indexing (x[...] and x[...] = v: installed on Array by rocarray._indexing) and searching -
from . import _indexing  # noqa: F401
from ._indexing_functions import nonzero, searchsorted, take, take_along_axis

# -- linear algebra: products through the device's BLAS (integers: the reduction engine) -------
from ._linear_algebra_functions import matmul, tensordot, vecdot

# -- the linalg and fft extensions (vendor libraries: rocarray.vendor) ---------------------------
from . import fft, linalg

# -- sorting: a stable radix sort (merge sort for short lines), on every device -----------------
from ._sorting_functions import argsort, sort
from ._set_functions import isin, unique_all, unique_counts, unique_inverse, unique_values

# -- rocarray.random: Philox4x32-10 kernels, NumPy's Generator, CuPy's module functions ----------
from . import random  # noqa: E402,F401  (a subpackage, imported after the ops it uses)
from . import lib  # noqa: E402,F401  (numpy.lib's stride_tricks: views)

# -- NumPy's names beside the standard's, and NumPy's protocols (docs/numpy_interop.md) ------------
from ._elementwise_functions import (
    absolute, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, bitwise_not, cbrt, conjugate,
    deg2rad, degrees, exp2, fabs, fmax, fmin, fmod, gcd, heaviside, invert, lcm, left_shift, logaddexp2, mod,
    power, rad2deg, radians, right_shift, rint, sinc, true_divide,
)
from ._numpy_names import (
    append, argwhere, around, array, array_split, ascontiguousarray, atleast_1d, atleast_2d,
    atleast_3d, column_stack, concatenate, diag, diag_indices, diagflat, diagonal, dot, dstack,
    einsum, flatnonzero, fliplr, flipud, hsplit, hstack, indices, inner, kron, outer, pad, ravel,
    ravel_multi_index, row_stack, split, swapaxes, trace, transpose, tril_indices, triu_indices,
    unravel_index, vdot, vsplit, vstack,
)
from ._numpy_more import (
    angle, block, copy, copyto, delete, diag_indices_from, dsplit, fill_diagonal, insert, iscomplex,
    iscomplexobj, isneginf, isposinf, isreal, isrealobj, ix_, may_share_memory, nan_to_num, ndim, resize,
    rollaxis, rot90, select, shape, shares_memory, size, sort_complex, tril_indices_from, trim_zeros,
    triu_indices_from,
)
from ._numpy_numerics import (
    bartlett, blackman, divmod, float_power, geomspace, gradient, hamming, hanning, identity, logspace, modf, polyval,
    trapezoid, tri, unwrap, vander,
)
from ._numpy_numerics import bitwise_count, fix, frexp, i0, kaiser, ldexp, spacing
from ._numpy_poly import poly, poly1d, polyadd, polydiv, polyder, polyfit, polyint, polymul, polysub, roots
from ._numpy_select import (
    argpartition, choose, compress, ediff1d, extract, intersect1d, lexsort, partition, place, put,
    put_along_axis, putmask, setdiff1d, setxor1d, union1d,
)
from ._numpy_stats import (
    allclose, array_equal, array_equiv, average, bincount, convolve, corrcoef, correlate, cov,
    cross, digitize, histogram, histogram_bin_edges, interp, isclose, median, nanargmax, nanargmin,
    nanmax, nanmean, nanmedian, nanmin, nanpercentile, nanprod, nanquantile, nanstd, nansum,
    nanvar, percentile, ptp, quantile,
)
from ._numpy_methods import (
    amax, amin, cumprod, cumsum, nancumprod, nancumsum, unique, where,
)
from ._numpy_utils import (
    apply_along_axis, apply_over_axes, asarray_chkfinite, bool_, common_type, complexfloating, floating,
    fromfunction, generic, histogram2d, histogramdd, inexact, integer, isscalar, issubdtype, iterable,
    mask_indices, matvec, min_scalar_type, mintypecode, number, packbits, piecewise, promote_types,
    real_if_close, require, signedinteger, typename, unpackbits, unsignedinteger, vecmat,
)
from . import _numpy_protocols  # noqa: F401,E402 - installs __array_ufunc__ and __array_function__ on Array


# -- rocarray.cache (the kernel cache, as users see it) -----------------------------------------
def __getattr__(name):
    # ``rocarray.cache`` after a plain ``import rocarray``, imported at its first use, so
    # that a plain import does not load it
    if name == "cache":
        import importlib

        return importlib.import_module(".cache", __name__)
    raise AttributeError(f"module 'rocarray' has no attribute {name!r}")
