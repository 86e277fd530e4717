"""Finds the op catalogue (the top-level ``kernels/`` folder of the source tree, shipped
inside the wheel as ``rocarray.kernels``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

_here = Path(__file__).resolve().parent
_CATALOGUES = ("elementwise", "reductions")


def catalogue():
    """The ``rocarray.kernels`` package, from the wheel or from a source checkout."""
    try:
        for name in _CATALOGUES:
            importlib.import_module(f"rocarray.kernels.{name}")
        return sys.modules["rocarray.kernels"]
    except ModuleNotFoundError:
        pass
    # A source checkout on PYTHONPATH (no install): kernels/ sits beside rocarray/.
    folder = _here.parent / "kernels"
    spec = importlib.util.spec_from_file_location(
        "rocarray.kernels", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None:
        raise ImportError(f"rocarray's op catalogue was not found (looked in {folder})")
    module = importlib.util.module_from_spec(spec)
    sys.modules["rocarray.kernels"] = module
    spec.loader.exec_module(module)
    for name in _CATALOGUES:
        importlib.import_module(f"rocarray.kernels.{name}")
    return module
