"""The reduction catalogue: one row per reduction, in the kernel language.

Row fields:
  name      the array API name
  accepts   input dtype kinds ("numeric", "real", "any")
  acc       the accumulator dtype: "sum" (integers and bools widen to int64/uint64, float16
            accumulates in float32, others keep their dtype), "same", "bool"
  out       "acc" (the accumulator's dtype, float16 inputs give float16 back) or "bool"
  init      kernel-language statement setting ``acc`` to the identity, or None when the
            reduction has none (min, max): ``acc`` then starts from the first element and
            an empty reduction is an error
  step      statement folding one element ``in0`` into ``acc``
"""

from __future__ import annotations

from typing import NamedTuple


class Reduction(NamedTuple):
    name: str
    accepts: str
    acc: str
    out: str
    init: str | None
    step: object  # str, or a dict from dtype-kind letters to str


_MAX_STEP = {
    "biu": "if (in0 > acc) acc = in0;",
    "f": "if (!isnan(acc) && (isnan(in0) || in0 > acc)) acc = in0;",
}
_MIN_STEP = {
    "biu": "if (in0 < acc) acc = in0;",
    "f": "if (!isnan(acc) && (isnan(in0) || in0 < acc)) acc = in0;",
}

REDUCTIONS = (
    Reduction("sum", "numeric", "sum", "acc", "acc = 0;", "acc += in0;"),
    Reduction("prod", "numeric", "sum", "acc", "acc = 1;", "acc *= in0;"),
    Reduction("max", "real", "same", "acc", None, _MAX_STEP),
    Reduction("min", "real", "same", "acc", None, _MIN_STEP),
    Reduction("all", "any", "bool", "bool", "acc = true;", "acc = acc && (in0 != 0);"),
    Reduction("any", "any", "bool", "bool", "acc = false;", "acc = acc || (in0 != 0);"),
)
