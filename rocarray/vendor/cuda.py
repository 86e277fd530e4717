"""The CUDA library table: cuBLAS, cuSOLVER (dense) and cuFFT through nvmath-python's
low-level bindings (``nvmath.bindings.cublas``, ``cusolverDn``, ``cufft``) and NVIDIA's
library wheels -- the ``[cuda]`` extra."""

from __future__ import annotations

import re

from .library import Library, VendorError


def _snake(c_name: str) -> str:
    """nvmath's attribute for a C function: ``cublasSgemmStridedBatched`` ->
    ``sgemm_strided_batched``, ``cusolverDnDgetrf_bufferSize`` -> ``dgetrf_buffer_size``."""
    for prefix in ("cusolverDn", "cublas", "cufft"):
        if c_name.startswith(prefix):
            c_name = c_name[len(prefix):]
            break
    c_name = c_name.replace("_bufferSize", "BufferSize")
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", c_name).lower()


def _unpack(name, fn, args):
    try:
        return fn(*args)
    except Exception as e:  # nvmath raises cuBLASError / cuSOLVERError / cuFFTError
        if type(e).__name__.endswith("Error") and type(e).__module__.startswith("nvmath"):
            raise VendorError(name, getattr(e, "status", None), str(e)) from e
        raise


LIBRARY = Library(
    "cuda",
    {"blas": "nvmath.bindings.cublas", "solver": "nvmath.bindings.cusolverDn",
     "fft": "nvmath.bindings.cufft", "types": "nvmath",
     "cusolver": "nvmath.bindings.cusolver"},
    {
        "blas_create": ("blas", "cublasCreate"), "blas_destroy": ("blas", "cublasDestroy"),
        "blas_set_stream": ("blas", "cublasSetStream"),
        "gemm": ("blas", "cublas{T}gemmStridedBatched"),
        "gemm_ex": ("blas", "cublasGemmStridedBatchedEx"),
        "gemm_one": ("blas", "cublas{T}gemm"), "gemm_ex_one": ("blas", "cublasGemmEx"),
        "solver_create": ("solver", "cusolverDnCreate"),
        "solver_set_stream": ("solver", "cusolverDnSetStream"),
        "getrf_size": ("solver", "cusolverDn{T}getrf_bufferSize"),
        "getrf": ("solver", "cusolverDn{T}getrf"),
        "getrs": ("solver", "cusolverDn{T}getrs"),
        "potrf_size": ("solver", "cusolverDn{T}potrf_bufferSize"),
        "potrf": ("solver", "cusolverDn{T}potrf"),
        "syevd_size": ("solver", "cusolverDn{T}{sy}evd_bufferSize"),
        "syevd": ("solver", "cusolverDn{T}{sy}evd"),
        "gesvd_size": ("solver", "cusolverDn{T}gesvd_bufferSize"),
        "gesvd": ("solver", "cusolverDn{T}gesvd"),
        "geqrf_size": ("solver", "cusolverDn{T}geqrf_bufferSize"),
        "geqrf": ("solver", "cusolverDn{T}geqrf"),
        "orgqr_size": ("solver", "cusolverDn{T}{or_}gqr_bufferSize"),
        "orgqr": ("solver", "cusolverDn{T}{or_}gqr"),
        "fft_create": ("fft", "cufftCreate"), "fft_destroy": ("fft", "cufftDestroy"),
        "fft_plan": ("fft", "cufftMakePlanMany64"),
        "fft_auto_allocation": ("fft", "cufftSetAutoAllocation"),
        "fft_work_area": ("fft", "cufftSetWorkArea"), "fft_set_stream": ("fft", "cufftSetStream"),
        "fft_c2c": ("fft", "cufftExecC2C"), "fft_z2z": ("fft", "cufftExecZ2Z"),
        "fft_r2c": ("fft", "cufftExecR2C"), "fft_d2z": ("fft", "cufftExecD2Z"),
        "fft_c2r": ("fft", "cufftExecC2R"), "fft_z2d": ("fft", "cufftExecZ2D"),
    },
    _snake,
    {
        "OP_N": lambda m: int(m["blas"].Operation.N), "OP_T": lambda m: int(m["blas"].Operation.T),
        "SOLVER_OP_T": lambda m: int(m["blas"].Operation.T),  # cuSOLVER takes cuBLAS's enums
        "SOLVER_FILL_UPPER": lambda m: int(m["blas"].FillMode.UPPER),
        "EIG_NOVECTOR": lambda m: int(m["cusolver"].EigMode.NOVECTOR),
        "EIG_VECTOR": lambda m: int(m["cusolver"].EigMode.VECTOR),
        "R_16F": lambda m: int(m["types"].CudaDataType.CUDA_R_16F),
        "COMPUTE_32F": lambda m: int(m["blas"].ComputeType.COMPUTE_32F),
        "GEMM_DEFAULT": lambda m: -1,  # CUBLAS_GEMM_DEFAULT
        "FFT_C2C": lambda m: int(m["fft"].Type.C2C), "FFT_Z2Z": lambda m: int(m["fft"].Type.Z2Z),
        "FFT_R2C": lambda m: int(m["fft"].Type.R2C), "FFT_D2Z": lambda m: int(m["fft"].Type.D2Z),
        "FFT_C2R": lambda m: int(m["fft"].Type.C2R), "FFT_Z2D": lambda m: int(m["fft"].Type.Z2D),
        "FFT_FORWARD": lambda m: -1, "FFT_INVERSE": lambda m: 1,
        "FFT_LENGTHS": lambda m: list,
        "JOB": lambda m: ord,  # gesvd's job letters are `signed char`: passed as their code
    },
    _unpack,
    "nvmath-python and NVIDIA's cuBLAS/cuSOLVER/cuFFT wheels: pip install 'rocarray[cuda]'",
)
