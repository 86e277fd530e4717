"""The ROCm library table: hipBLAS, hipSOLVER (its cuSOLVER-compatible ``hipsolverDn``
API) and hipFFT through hip-python's library bindings (``rocm.bindings.hipblas``,
``hipsolver``, ``hipfft``, from ``hip-python[libraries]``) -- the ``[rocm]`` extra.

Written against the bindings' documented API (each call returns its status first, then
its outputs); no AMD GPU was available, so this table has never run: only its imports
and argument handling are tested.
"""

from __future__ import annotations

import ctypes

from .library import Library, VendorError


def _unpack(name, fn, args):
    result = fn(*args)
    if isinstance(result, tuple):
        status, rest = result[0], result[1:]
    else:
        status, rest = result, ()
    if int(status) != 0:  # every *_STATUS_SUCCESS and HIPFFT_SUCCESS is 0
        raise VendorError(name, status)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def _lengths(lengths):
    """hipfftMakePlanMany64's ``n``: a pointer to ``long long`` (a ctypes array)."""
    return (ctypes.c_longlong * len(lengths))(*lengths)


LIBRARY = Library(
    "hip",
    # rocm-bindings 7.x and later (``rocm.bindings``), or hip-python 6.x's own modules
    {"blas": ("rocm.bindings.hipblas", "hip.hipblas"), "solver": ("rocm.bindings.hipsolver", "hip.hipsolver"),
     "fft": ("rocm.bindings.hipfft", "hip.hipfft"), "hip": ("rocm.bindings.hip", "hip.hip")},
    {
        "blas_create": ("blas", "hipblasCreate"), "blas_destroy": ("blas", "hipblasDestroy"),
        "blas_set_stream": ("blas", "hipblasSetStream"),
        "gemm": ("blas", "hipblas{T}gemmStridedBatched"),
        "gemm_ex": ("blas", "hipblasGemmStridedBatchedEx"),
        "gemm_one": ("blas", "hipblas{T}gemm"), "gemm_ex_one": ("blas", "hipblasGemmEx"),
        "solver_create": ("solver", "hipsolverDnCreate"),
        "solver_set_stream": ("solver", "hipsolverDnSetStream"),
        "getrf_size": ("solver", "hipsolverDn{T}getrf_bufferSize"),
        "getrf": ("solver", "hipsolverDn{T}getrf"),
        "getrs": ("solver", "hipsolverDn{T}getrs"),
        "potrf_size": ("solver", "hipsolverDn{T}potrf_bufferSize"),
        "potrf": ("solver", "hipsolverDn{T}potrf"),
        "syevd_size": ("solver", "hipsolverDn{T}{sy}evd_bufferSize"),
        "syevd": ("solver", "hipsolverDn{T}{sy}evd"),
        "gesvd_size": ("solver", "hipsolverDn{T}gesvd_bufferSize"),
        "gesvd": ("solver", "hipsolverDn{T}gesvd"),
        "geqrf_size": ("solver", "hipsolverDn{T}geqrf_bufferSize"),
        "geqrf": ("solver", "hipsolverDn{T}geqrf"),
        "orgqr_size": ("solver", "hipsolverDn{T}{or_}gqr_bufferSize"),
        "orgqr": ("solver", "hipsolverDn{T}{or_}gqr"),
        "fft_create": ("fft", "hipfftCreate"), "fft_destroy": ("fft", "hipfftDestroy"),
        "fft_plan": ("fft", "hipfftMakePlanMany64"),
        "fft_auto_allocation": ("fft", "hipfftSetAutoAllocation"),
        "fft_work_area": ("fft", "hipfftSetWorkArea"), "fft_set_stream": ("fft", "hipfftSetStream"),
        "fft_c2c": ("fft", "hipfftExecC2C"), "fft_z2z": ("fft", "hipfftExecZ2Z"),
        "fft_r2c": ("fft", "hipfftExecR2C"), "fft_d2z": ("fft", "hipfftExecD2Z"),
        "fft_c2r": ("fft", "hipfftExecC2R"), "fft_z2d": ("fft", "hipfftExecZ2D"),
    },
    lambda name: name,
    # hip-python checks enum arguments by type: the table keeps the members themselves
    {
        "OP_N": lambda m: m["blas"].hipblasOperation_t.HIPBLAS_OP_N,
        "OP_T": lambda m: m["blas"].hipblasOperation_t.HIPBLAS_OP_T,
        "SOLVER_OP_T": lambda m: m["blas"].hipblasOperation_t.HIPBLAS_OP_T,  # hipsolverDn takes hipBLAS's
        "SOLVER_FILL_UPPER": lambda m: m["blas"].hipblasFillMode_t.HIPBLAS_FILL_MODE_UPPER,
        "EIG_NOVECTOR": lambda m: m["solver"].hipsolverEigMode_t.HIPSOLVER_EIG_MODE_NOVECTOR,
        "EIG_VECTOR": lambda m: m["solver"].hipsolverEigMode_t.HIPSOLVER_EIG_MODE_VECTOR,
        "R_16F": lambda m: m["hip"].hipDataType.HIP_R_16F,
        "COMPUTE_32F": lambda m: m["blas"].hipblasComputeType_t.HIPBLAS_COMPUTE_32F,
        "GEMM_DEFAULT": lambda m: m["blas"].hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT,
        "FFT_C2C": lambda m: m["fft"].hipfftType_t.HIPFFT_C2C,
        "FFT_Z2Z": lambda m: m["fft"].hipfftType_t.HIPFFT_Z2Z,
        "FFT_R2C": lambda m: m["fft"].hipfftType_t.HIPFFT_R2C,
        "FFT_D2Z": lambda m: m["fft"].hipfftType_t.HIPFFT_D2Z,
        "FFT_C2R": lambda m: m["fft"].hipfftType_t.HIPFFT_C2R,
        "FFT_Z2D": lambda m: m["fft"].hipfftType_t.HIPFFT_Z2D,
        "FFT_FORWARD": lambda m: -1, "FFT_INVERSE": lambda m: 1,  # HIPFFT_FORWARD / BACKWARD
        "FFT_LENGTHS": lambda m: _lengths,
        "JOB": lambda m: ord,  # gesvd's job letters are `signed char`
    },
    _unpack,
    "hip-python with its hipBLAS/hipSOLVER/hipFFT bindings: pip install 'rocarray[rocm]'",
)

__all__ = ["LIBRARY", "VendorError"]
