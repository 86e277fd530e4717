"""The spec's statistical and utility reductions, from the reduction catalogue."""

from __future__ import annotations

from ._array_object import Array
from ._reduction import _reduction

sum = _reduction("sum")  # noqa: A001 - the spec's names
prod = _reduction("prod")
max = _reduction("max")  # noqa: A001
min = _reduction("min")  # noqa: A001
all = _reduction("all")  # noqa: A001
any = _reduction("any")  # noqa: A001


def _method(op):
    def method(self, axis=None, keepdims=False, **kwargs):
        return op(self, axis=axis, keepdims=keepdims, **kwargs)
    method.__name__ = op.__name__
    method.__doc__ = f"``{op.__name__}`` of this array (see rocarray.{op.__name__})."
    return method


for _op in (sum, prod, max, min, all, any):
    setattr(Array, _op.__name__, _method(_op))
