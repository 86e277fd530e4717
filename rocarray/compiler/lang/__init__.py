"""The kernel language: C-like scalar bodies (CuPy ElementwiseKernel / ReductionKernel
syntax) compiled to LLVM IR.

Built-in ops and user kernels both go through ``compile_scalar_function``, which adds to a
module an internal, always-inlined ``void name(T0* p0, ..., i64 i, i64 n)`` (see
docs/architecture.md, "Kernel ABI").  Parsing is cached per source text, so a new dtype
signature only pays for lowering.
"""

from __future__ import annotations

import functools
from typing import Mapping, Sequence

import numpy as np
from llvmlite import ir

from .syntax import Block, Unit
from .errors import KernelError, KernelNameError, KernelSyntaxError, KernelTypeError
from .ir_types import I8, I64, PTR
from .lower import Lowerer
from .parser import parse_body, parse_preamble
from .types import (BOOL, INT64, VOID, Param, bind_placeholders, ktype_of, parse_params,
                    resolve_type_name)
from .values import FuncCtx, IndexObject, LValue, RawArray

__all__ = [
    "parse_params", "Param", "compile_scalar_function", "KernelError", "KernelSyntaxError",
    "KernelTypeError", "KernelNameError", "resolve_type_name", "bind_placeholders",
]

_KINDS = ("in", "out", "inout", "raw")


@functools.lru_cache(maxsize=512)
def _parsed_preamble(preamble: str, type_names: frozenset) -> Unit:
    return parse_preamble(preamble, type_names)


@functools.lru_cache(maxsize=2048)
def _parsed_body(body: str, preamble: str, type_names: frozenset) -> Block:
    unit = _parsed_preamble(preamble, type_names)
    names = type_names | unit.type_names if unit.type_names else type_names
    return parse_body(body, names, unit.template_names, unit.macros)


def parse(body: str, preamble: str = "", type_names: frozenset = frozenset()):
    """Parse (cached) a body and its preamble; returns (Block, Unit).  ``type_names`` are the
    names the caller's typedefs will define (they decide how ``(T)x`` parses)."""
    try:
        unit = _parsed_preamble(preamble, type_names)
    except RecursionError:
        raise _too_deep(preamble, "preamble") from None
    try:
        return _parsed_body(body, preamble, type_names), unit
    except RecursionError:
        raise _too_deep(body, "body") from None


def compile_scalar_function(module: ir.Module, name: str,
                            params: Sequence[tuple[str, np.dtype, str]], body: str, *,
                            preamble: str = "", typedefs: Mapping[str, np.dtype] = {},
                            target, kernel_name: str = "kernel", whole_stores: bool = False) -> ir.Function:
    """Add ``void name(T0* p0, ..., i64 i, i64 n)`` computing ``body`` to ``module``.

    ``params`` are ``(name, dtype, kind)`` with kind 'in' (read once at entry, const),
    'out' / 'inout' (an lvalue on the element) or 'raw' (pointer to the raw descriptor
    ``{ptr, i64 size, i64 ndim, [8 x i64] shape, [8 x i64] strides}``; ``x[k]`` indexes it by
    flat C-order index).  ``typedefs`` names extra types usable in the body (``T``,
    ``in0_type``...).  ``whole_stores``: a complex element of a raw array is stored as one
    vector on the host too (GPU targets always store it so), for kernels whose threads may
    write one element at once.  Raises a KernelError subclass pointing at the snippet on
    any error; the module is then left without the function.
    """
    try:
        kt_typedefs = {k: ktype_of(v) for k, v in typedefs.items()}
        kparams = []
        seen = set()
        for p in params:
            pname, dt, kind = p
            if kind not in _KINDS:
                raise KernelTypeError(f"parameter '{pname}': kind must be one of {_KINDS}, "
                                      f"not {kind!r}")
            if pname in seen:
                raise KernelSyntaxError(f"duplicate parameter name '{pname}'")
            seen.add(pname)
            kparams.append((pname, ktype_of(dt), kind))
        body_ast, unit = parse(body, preamble, frozenset(typedefs))
    except KernelError as e:
        raise e.attach(body, "body", kernel_name) from None

    before = set(module.globals)
    try:
        return _lower(module, name, kparams, body, body_ast, unit, kt_typedefs, target,
                      kernel_name, whole_stores)
    except KernelError as e:
        _forget_new_globals(module, before)
        raise e.attach(body, "body", kernel_name) from None
    except RecursionError:
        _forget_new_globals(module, before)
        raise _too_deep(body, "body").attach(body, "body", kernel_name) from None
    except BaseException:
        _forget_new_globals(module, before)
        raise


def _too_deep(text: str, where: str) -> KernelSyntaxError:
    """The error for a snippet (``where``: "body" or "preamble") nested past what the
    parser's and the lowering's recursion take, pointing at its deepest bracket (line 1,
    column 1 when it has none: a long chain of operators)."""
    depth = deepest = at = 0
    for k, c in enumerate(text):
        if c in "([{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, k
        elif c in ")]}":
            depth -= 1
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    what = (f"{deepest} brackets deep at the deepest" if deepest
            else "a chain of operators too long")
    return KernelSyntaxError(
        f"the expression is nested too deeply to compile ({what}); split it into statements "
        "with local variables", line, column, source=text, where=where)


def _lower(module, name, kparams, body, body_ast, unit, typedefs, target, kernel_name, whole_stores=False):
    fnty = ir.FunctionType(ir.VoidType(), [PTR] * len(kparams) + [I64, I64])
    fn = ir.Function(module, fnty, name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    for (pname, _, _), arg in zip(kparams, fn.args):
        arg.name = pname
    fn.args[-2].name = "i"
    fn.args[-1].name = "n"
    lw = Lowerer(module, target, kernel_name, typedefs, unit, name, whole_stores)
    ctx = FuncCtx(fn, VOID, (body, "body"), unit, True, kernel_name)
    lw.ctx = ctx
    scope = ctx.scopes[0]
    b = ctx.b
    for (pname, t, kind), arg in zip(kparams, fn.args):
        ctx.params.add(pname)
        if kind == "raw":
            scope[pname] = RawArray(arg, t, pname)
        elif kind == "in":
            v = b.load(arg, typ=t.storage, name=pname)
            if t is BOOL:
                v = b.icmp_unsigned("!=", v, ir.Constant(I8, 0))
            scope[pname] = LValue(None, t, value=v, name=f"input parameter '{pname}'",
                                  const=f"input parameter '{pname}' (inputs are const)")
        else:
            scope[pname] = LValue(arg, t, name=f"parameter '{pname}'")
    if "i" not in scope:
        scope["i"] = LValue(None, INT64, value=fn.args[-2],
                            const="the loop index 'i'", name="'i'")
    scope["_ind"] = IndexObject()
    lw.block(body_ast, new_scope=False)
    lw.finish()
    return fn


def _forget_new_globals(module: ir.Module, before: set):
    """Drop what a failed compile added, so the module stays printable."""
    for gname in [g for g in module.globals if g not in before]:
        del module.globals[gname]
        try:
            module.scope._useset.discard(gname)
        except AttributeError:
            pass
