"""The device runtimes (host, CUDA, HIP): memory, streams, code loading and launches.

The bottom layer: the launcher calls a runtime through ``base.Runtime``; a runtime imports
no code generator and no array type.
"""
