"""Vendor libraries behind ``rocarray.linalg``, ``rocarray.fft`` and ``matmul``: one backend
per device kind, picked by ``backend(device)``.

* ``host``: NumPy's LAPACK/BLAS and pocketfft on the host buffers (zero copy);
* ``gpu``: one implementation of every operation for both GPU kinds, over a table of
  library calls per vendor -- ``cuda`` (cuBLAS, cuSOLVER, cuFFT through nvmath-python's
  low-level bindings) and ``hip`` (hipBLAS, hipSOLVER, hipFFT through hip-python).

A backend offers the same functions (``matmul``, ``solve``, ``eigh``, ``fft``, ...), taking
checked rocarray arrays and returning rocarray arrays on the same device.
"""

from __future__ import annotations

from . import cuda, gpu, hip, host

_gpu_backends: dict = {}

#: The library table of each GPU runtime kind.
LIBRARIES = {"cuda": cuda.LIBRARY, "hip": hip.LIBRARY}


def backend(device):
    """The backend of ``device`` (a ``rocarray.Device``): a module or object with the
    operations of ``rocarray.vendor.host``."""
    kind = device.kind
    if kind == "cpu":
        return host
    found = _gpu_backends.get(kind)
    if found is None:
        found = _gpu_backends.setdefault(kind, gpu.GPUBackend(LIBRARIES[kind]))
    return found
