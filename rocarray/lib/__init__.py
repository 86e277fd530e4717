"""``rocarray.lib``: NumPy's ``numpy.lib`` names that rocarray has (``stride_tricks``)."""

from . import stride_tricks

__all__ = ["stride_tricks"]
