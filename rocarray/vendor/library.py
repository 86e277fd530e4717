"""The table of vendor library calls one GPU backend runs on: C names per operation and
element type, the enum values, and the vendor's calling convention.

``rocarray.vendor.cuda`` and ``rocarray.vendor.hip`` each fill one ``Library``; the
backend (``rocarray.vendor.gpu``, ``gpufft``) asks it for ``call("getrf", dtype)`` and
never names a vendor.  Bindings are imported at the first call, so importing rocarray
needs neither nvmath-python nor hip-python.
"""

from __future__ import annotations

import importlib

import numpy as np

#: The BLAS/LAPACK type letter of each dtype.
LETTERS = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


class VendorError(RuntimeError):
    """A vendor library call failed: ``call`` is its C name, ``status`` the library's code."""

    def __init__(self, call: str, status, detail: str = ""):
        self.call = call
        self.status = status
        super().__init__(f"{call} failed with status {status}{': ' + detail if detail else ''}")


def _import_first(key: str, names, library) -> object:
    """The first of ``names`` (one module name or a tuple of them) that imports."""
    failure = None
    for name in (names,) if isinstance(names, str) else names:
        try:
            return importlib.import_module(name)
        except ImportError as e:
            failure = e
    raise ImportError(f"{library.kind} linear algebra and FFTs need {library.install_hint} "
                      f"({failure})") from failure


class Library:
    """One vendor's calls.

    ``modules``: short name -> Python module of the bindings (``"blas"``, ``"solver"``,
    ``"fft"``; a tuple: the first that imports); ``names``: operation -> (module short name, C-name template) where the
    template's ``{t}`` is the type letter (``{T}`` capitalised) and ``{sy}`` / ``{or}``
    become ``sy``/``he`` and ``or``/``un`` for real/complex types; ``attr`` turns a C name
    into the binding's attribute name; ``enums``: name -> a callable of the loaded modules
    returning the value; ``unpack``: the vendor's convention of returning from a call
    (raises ``VendorError`` on failure, returns the outputs).
    """

    def __init__(self, kind, modules, names, attr, enums, unpack, install_hint):
        self.kind = kind
        self._module_names = modules
        self._names = names
        self._attr = attr
        self._enum_getters = enums
        self._unpack = unpack
        self.install_hint = install_hint
        self._modules = None
        self._calls: dict = {}
        self.enums: dict = {}

    def load(self) -> None:
        """Import the bindings (ImportError naming the extra to install when absent)."""
        if self._modules is not None:
            return
        mods = {k: _import_first(k, v, self) for k, v in self._module_names.items()}
        self.enums = {k: get(mods) for k, get in self._enum_getters.items()}
        self._modules = mods

    def c_name(self, op: str, dtype=None) -> str:
        module, template = self._names[op]
        if dtype is None:
            return template
        t = LETTERS[np.dtype(dtype)]
        cplx = t in "cz"
        return template.format(t=t, T=t.upper(), sy="he" if cplx else "sy", or_="un" if cplx else "or")

    def call(self, op: str, dtype=None):
        """The binding of operation ``op`` for ``dtype``, wrapped so that a failure raises
        ``VendorError`` naming the C function and a success returns the outputs."""
        key = (op, None if dtype is None else np.dtype(dtype))
        fn = self._calls.get(key)
        if fn is None:
            self.load()
            name = self.c_name(op, dtype)
            module = self._modules[self._names[op][0]]
            raw = getattr(module, self._attr(name))
            unpack = self._unpack

            def fn(*args, _raw=raw, _name=name):
                return unpack(_name, _raw, args)

            self._calls[key] = fn
        return fn
