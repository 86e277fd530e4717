"""A pytest plugin that adds rocarray to array-api-extra's own test backends.

array-api-extra runs its tests (``tests/main`` of its repository) over a fixed enum of
backends (``array_api_extra._lib._backends.Backend``); this plugin replaces that enum, before
the suite's conftest imports it, with one that has a ``ROCARRAY`` member, so every test that
takes ``xp`` also runs with ``xp`` = rocarray. From a checkout of array-api-extra matching the
installed version::

    PYTHONPATH=<rocarray>/scripts python -m pytest -p array_api_extra_backend tests/main \\
        -k "rocarray or (numpy and not readonly)" -o addopts="" -W ignore

(``-o addopts=""``: the suite's ``--strict-config`` and warnings-as-errors belong to its own CI.)
Results: benchmarks/results/history/conformance.md.
"""

import enum

import array_api_extra._lib._backends as _backends

_members = {m.name: m.value for m in _backends.Backend}
_members["ROCARRAY"] = "rocarray"
Backend = enum.Enum("Backend", _members)
for _name in ("modname", "like", "pytest_param"):
    setattr(Backend, _name, _backends.Backend.__dict__[_name])
Backend.__doc__ = _backends.Backend.__doc__
_backends.Backend = Backend
