"""The device runtimes (host, CUDA, HIP): memory, streams, code loading and launches.

The bottom layer: the launcher calls a runtime through ``base.Runtime``; no runtime imports
the array type.
"""
