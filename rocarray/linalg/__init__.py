"""``rocarray.linalg``: the array API standard's linear algebra extension (2024.12, plus
2025.12's ``eig`` and ``eigvals``), on every device.

This module checks the arguments (types, dtypes, shapes, broadcasting of stacked inputs)
once for every device and hands the work to the device's backend (``rocarray.vendor``):
NumPy's LAPACK on the CPU, cuBLAS/cuSOLVER on CUDA, hipBLAS/hipSOLVER on ROCm.  Functions
that are views or a few elementwise operations (``diagonal``, ``trace``, ``outer``,
``cross``, ``matrix_power``) are written here with rocarray's own ops.

Differences from NumPy: integer and boolean inputs of the factorizations are computed in
float64 (as NumPy does); float16 is refused there (LAPACK has no half precision).  Results
are named tuples as the standard asks (``EighResult``, ``QRResult``, ``SlogdetResult``,
``SVDResult``, ``EigResult``).

NumPy's own ``lstsq``, ``norm``, ``cond``, ``multi_dot``, ``tensorinv`` and ``tensorsolve``
(with NumPy's signatures) are compositions of these, in ``_numpy_linalg``; the standard's are in ``_standard``.
"""

from __future__ import annotations

from ._standard import (
    LinAlgError, EigResult, EighResult, QRResult, SlogdetResult, SVDResult, cholesky, cross, det, diagonal,
    eig, eigh, eigvals, eigvalsh, inv, matmul, matrix_norm, matrix_power, matrix_rank, matrix_transpose,
    outer, pinv, qr, slogdet, solve, svd, svdvals, tensordot, trace, vecdot, vector_norm,
)
from ._numpy_linalg import cond, lstsq, multi_dot, norm, tensorinv, tensorsolve

__all__ = [
    "LinAlgError", "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult",
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
    # NumPy's numpy.linalg functions beyond the standard (_numpy_linalg)
    "cond", "lstsq", "multi_dot", "norm", "tensorinv", "tensorsolve",
]
