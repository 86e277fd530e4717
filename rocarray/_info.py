"""The array API inspection namespace: ``rocarray.__array_namespace_info__()``."""

from __future__ import annotations

from . import _dtypes
from ._device import as_device, available_devices, default_device

_KIND_NAMES = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
               "complex floating", "numeric")


class __array_namespace_info__:  # noqa: N801 - the spec's name
    """The array API's inspection namespace: what rocarray can do, its default dtypes and devices.

    Examples:
        >>> import rocarray as ra
        >>> info = ra.__array_namespace_info__()
        >>> info.default_dtypes(device="cpu")["real floating"]
        dtype('float64')
        >>> info.capabilities()["boolean indexing"]
        True
    """

    def capabilities(self) -> dict:
        """What the standard asks about (2024.12 and the 2025.12 draft define these three
        keys): boolean-mask indexing (``x[mask]``, ``x[mask] = v``: rocarray/_indexing.py),
        data-dependent output shapes (``nonzero``, the ``unique_*`` functions, ``repeat``
        with array repeats: each is implemented) and the most dimensions an array may have
        (None: any number; kernels take more than ``MAX_DIMS`` merged dimensions as several
        launches)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        """The device new arrays go to when none is given (``rocarray.default_device()``)."""
        return default_device()

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes, by kind: ``"real floating"`` float64, ``"complex floating"``
        complex128, ``"integral"`` int64, ``"indexing"`` int64 (the same on every device).
        """
        if device is not None:
            as_device(device)
        return {
            "real floating": _dtypes.default_float,
            "complex floating": _dtypes.default_complex,
            "integral": _dtypes.default_int,
            "indexing": _dtypes.default_index,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        """Every standard dtype of ``kind`` (a kind name, a tuple of them, or None for all),
        by name.  Every device supports every dtype."""
        if device is not None:
            as_device(device)
        out = {}
        for d in _dtypes.all_dtypes:
            if d == _dtypes.float16:
                continue  # Note: float16 works everywhere but is not a dtype of the standard
            if kind is None or _dtypes.isdtype(d, kind):
                out[str(d)] = d
        return out

    def devices(self) -> tuple:
        """Every device of this machine, CPU first, as a tuple (the standard's 2025.12 type;
        ``rocarray.available_devices()`` as a tuple)."""
        return tuple(available_devices())
