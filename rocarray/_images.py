"""Compiled bytes -> a loaded device module, for the launcher and the interpreter tier.

PTX for the driver's JIT is first looked up as the cubin the driver made of the same PTX
in an earlier process, kept in the disk cache; a miss JITs the PTX and makes that cubin
on the background worker for the next process.
"""

from __future__ import annotations

import hashlib

from .compiler import cache as _cache
from .compiler.cache import default_cache as _default_cache
from .targets.codeobject import EM_CUDA, check_elf


def _check_cubin(data: bytes) -> None:
    """A cubin from the disk cache (the driver's of some PTX): a sound NVIDIA ELF file,
    or ValueError (then a miss: the PTX is loaded and assembled again)."""
    check_elf(data, machine=EM_CUDA, what="cubin")


def _load_image(rt, index: int, image: bytes, target):
    """``rt.load_module`` of ``target``'s bytes, with the JIT level the target asks for.

    A cubin loads much faster than its PTX JITs, so the cubin is kept under the PTX's
    digest, the assembler (the driver's version, the architecture) and the JIT level; it
    is made on the background worker (``cuLink*``, which releases the GIL)."""
    jit_opt = target.jit_opt
    if jit_opt is None:
        return rt.load_module(index, image)
    disk = _default_cache().disk
    assembler = rt.ptx_assembler(index) if disk is not None else None
    if assembler is None:
        return rt.load_module(index, image, jit_opt)
    key = f"cubin|{assembler!r}|O{jit_opt}|{hashlib.blake2b(image, digest_size=20).hexdigest()}"
    cubin = disk.get(key, check=_check_cubin)
    if cubin is not None:
        return rt.load_module(index, cubin)
    module = rt.load_module(index, image, jit_opt)
    _cache.compile_in_background(lambda: disk.put(key, rt.assemble_ptx(index, image, jit_opt)))
    return module
