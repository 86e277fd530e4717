"""The reduction catalogue: one row per reduction, in the kernel language (CuPy's
``ReductionKernel`` habit: identity, map, reduce, post).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Reduction(NamedTuple):
    """One row of the catalogue.

    Row fields:
      name        the array API name
      accepts     input dtype kinds ("numeric", "real", "any")
      acc         the accumulator dtype: "sum" (integers and bools widen to int64/uint64,
                  float16 accumulates in float32, others keep their dtype), "same", "bool",
                  "index" (argmin/argmax: the input's dtype, the output is int64)
      fields      the accumulator record: (a-side name, b-side name, dtype), dtype "acc" meaning
                  the accumulator dtype
      identity    statements setting the a-side fields to the identity (a string, a dict from
                  dtype-kind letters to strings, or a function of the input dtype)
      map         statements turning the element ``in0`` (index ``i`` in the reduced run) into
                  the a-side fields
      reduce      statements folding the b-side fields into the a-side fields; must be
                  associative and commutative (the order of combination is a tree)
      post        statements writing ``out0`` from the a-side fields
      empty_error True when a reduction over no elements is an error (no identity in the
                  standard: min, max, argmin, argmax), False when it gives the identity
      simd        the host SIMD recipe computing exactly what map and reduce do over a
                  contiguous run ("add", "mul", "max", "min", "any", "all", "argmax",
                  "argmin"; rocarray/compiler/reduction.py), or None
    """

    name: str
    accepts: str
    acc: str
    fields: tuple
    identity: object
    map: object
    reduce: object
    post: str
    empty_error: bool
    simd: str | None = None


def _limit(dtype, low: bool) -> str:
    """A kernel-language expression for the lowest (or highest) value of ``dtype``."""
    k = dtype.kind
    if k == "f":
        return "-INFINITY" if low else "INFINITY"
    if k == "b":
        return "false" if low else "true"
    info = np.iinfo(dtype)
    v = info.min if low else info.max
    if dtype == np.int64 and low:
        return "(-9223372036854775807L - 1L)"
    if dtype == np.uint64 and not low:
        return "0xFFFFFFFFFFFFFFFFull"
    return f"(in0_type)({v})"


def _extreme(low: bool):
    return lambda dtype: f"a = {_limit(dtype, low)};"


def _arg_identity(low: bool):
    # the worst value and the largest index: any element replaces it
    return lambda dtype: f"av = {_limit(dtype, low)}; ai = 9223372036854775807L;"


# max/min: NaN wins (propagates), as NumPy
_MAX = {
    "biu": "a = (b > a) ? b : a;",
    "f": "a = (isnan(a) | (a >= b)) ? a : b;",
}
_MIN = {
    "biu": "a = (b < a) ? b : a;",
    "f": "a = (isnan(a) | (a <= b)) ? a : b;",
}


def _arg_reduce(better: str) -> dict:
    # the first occurrence wins ties; a NaN beats every number (NumPy's argmax/argmin).
    # Written with selects and bitwise logic, no branches, so the host vectorises it.
    return {
        "biu": f"""
            bool take = (bv {better} av) | ((bv == av) & (bi < ai));
            av = take ? bv : av; ai = take ? bi : ai;""",
        # (a comparison with a NaN is false: when ``av`` is NaN only an earlier NaN wins;
        # no conditional expression, so GPU code has no branches either)
        "f": f"""
            bool earlier = bi < ai;
            bool bn = isnan(bv);
            bool take = (bn & (!isnan(av) | earlier)) | (bv {better} av) | ((bv == av) & earlier);
            av = take ? bv : av; ai = take ? bi : ai;""",
    }


_ONE = (("a", "b", "acc"),)
_ARG = (("av", "bv", "acc"), ("ai", "bi", "int64"))

REDUCTIONS = (
    Reduction("sum", "numeric", "sum", _ONE, "a = 0;", "a = in0;", "a = a + b;", "out0 = a;", False, "add"),
    Reduction("prod", "numeric", "sum", _ONE, "a = 1;", "a = in0;", "a = a * b;", "out0 = a;", False, "mul"),
    Reduction("max", "real", "same", _ONE, _extreme(True), "a = in0;", _MAX, "out0 = a;", True, "max"),
    Reduction("min", "real", "same", _ONE, _extreme(False), "a = in0;", _MIN, "out0 = a;", True, "min"),
    Reduction("all", "any", "bool", _ONE, "a = true;", "a = (in0 != 0);", "a = a && b;", "out0 = a;", False, "all"),
    Reduction("any", "any", "bool", _ONE, "a = false;", "a = (in0 != 0);", "a = a || b;", "out0 = a;", False, "any"),
    Reduction("argmax", "real", "index", _ARG, _arg_identity(True), "av = in0; ai = i;",
              _arg_reduce(">"), "out0 = ai;", True, "argmax"),
    Reduction("argmin", "real", "index", _ARG, _arg_identity(False), "av = in0; ai = i;",
              _arg_reduce("<"), "out0 = ai;", True, "argmin"),
)
