"""The op catalogue: device-side sources shipped inside the wheel as ``rocarray.kernels``.

One declarative row per elementwise op and per reduction, with bodies written in the
kernel language (the same language users write ``ElementwiseKernel`` bodies in).
"""
