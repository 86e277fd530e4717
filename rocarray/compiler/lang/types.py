"""Scalar types of the kernel language, C type names, and the parameter-list syntax.

Every value in a kernel is one of fifteen scalar types (``KType``), each tied to a NumPy dtype,
an LLVM register type and an LLVM storage type (bool: ``i1`` in registers, ``i8`` in memory).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np
from llvmlite import ir

from .errors import KernelSyntaxError, KernelTypeError
from .lexer import tokenize


class KType:
    """One scalar type: kind is 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex."""

    __slots__ = ("name", "dtype", "kind", "bits", "ir", "storage", "component", "itemsize")

    def __init__(self, name, kind, bits, ir_type, storage, component=None):
        self.name = name
        self.kind = kind
        self.bits = bits
        self.ir = ir_type
        self.storage = storage
        self.component = component
        self.dtype = np.dtype(name) if kind != "v" else None
        self.itemsize = self.dtype.itemsize if self.dtype is not None else 0

    @property
    def is_int(self):  # integer or bool
        return self.kind in "biu"

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_complex(self):
        return self.kind == "c"

    @property
    def is_signed(self):
        return self.kind == "i"

    def __repr__(self):
        return self.name


_F16, _F32, _F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()

VOID = KType("void", "v", 0, ir.VoidType(), ir.VoidType())
BOOL = KType("bool", "b", 1, ir.IntType(1), ir.IntType(8))
INT8 = KType("int8", "i", 8, ir.IntType(8), ir.IntType(8))
INT16 = KType("int16", "i", 16, ir.IntType(16), ir.IntType(16))
INT32 = KType("int32", "i", 32, ir.IntType(32), ir.IntType(32))
INT64 = KType("int64", "i", 64, ir.IntType(64), ir.IntType(64))
UINT8 = KType("uint8", "u", 8, ir.IntType(8), ir.IntType(8))
UINT16 = KType("uint16", "u", 16, ir.IntType(16), ir.IntType(16))
UINT32 = KType("uint32", "u", 32, ir.IntType(32), ir.IntType(32))
UINT64 = KType("uint64", "u", 64, ir.IntType(64), ir.IntType(64))
FLOAT16 = KType("float16", "f", 16, _F16, _F16)
FLOAT32 = KType("float32", "f", 32, _F32, _F32)
FLOAT64 = KType("float64", "f", 64, _F64, _F64)
_C64 = ir.LiteralStructType([_F32, _F32])
_C128 = ir.LiteralStructType([_F64, _F64])
COMPLEX64 = KType("complex64", "c", 64, _C64, _C64, FLOAT32)
COMPLEX128 = KType("complex128", "c", 128, _C128, _C128, FLOAT64)

ALL_TYPES = (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64,
             FLOAT16, FLOAT32, FLOAT64, COMPLEX64, COMPLEX128)
_BY_DTYPE = {t.dtype: t for t in ALL_TYPES}
_BY_NAME = {t.name: t for t in ALL_TYPES}

INT_BY = {("i", 8): INT8, ("i", 16): INT16, ("i", 32): INT32, ("i", 64): INT64,
          ("u", 8): UINT8, ("u", 16): UINT16, ("u", 32): UINT32, ("u", 64): UINT64}
COMPLEX_OF = {FLOAT32: COMPLEX64, FLOAT64: COMPLEX128, FLOAT16: COMPLEX64}


def ktype_of(dtype) -> KType:
    """The KType of a NumPy dtype (or anything ``np.dtype`` accepts)."""
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    try:
        return _BY_DTYPE[dt]
    except KeyError:
        try:
            return _BY_DTYPE[dt.newbyteorder("=")] if dt.isnative else _raise_dtype(dt)
        except KeyError:
            _raise_dtype(dt)


def _raise_dtype(dt):
    raise KernelTypeError(f"dtype {dt} is not supported by the kernel language")


# -- C and NumPy type names ------------------------------------------------------------------

#: Single-word (or ``::``-qualified) type names.  ``long`` is 64 bits (LP64, as CUDA on Linux).
SIMPLE_TYPE_NAMES: dict[str, KType] = {
    "bool": BOOL, "_Bool": BOOL,
    "char": INT8, "short": INT16, "int": INT32, "long": INT64, "unsigned": UINT32, "signed": INT32,
    "float": FLOAT32, "double": FLOAT64, "half": FLOAT16, "__half": FLOAT16,
    "size_t": UINT64, "ptrdiff_t": INT64, "ssize_t": INT64,
    "int8_t": INT8, "int16_t": INT16, "int32_t": INT32, "int64_t": INT64,
    "uint8_t": UINT8, "uint16_t": UINT16, "uint32_t": UINT32, "uint64_t": UINT64,
    "intptr_t": INT64, "uintptr_t": UINT64,
    "std::size_t": UINT64, "std::ptrdiff_t": INT64,
    "std::int8_t": INT8, "std::int16_t": INT16, "std::int32_t": INT32, "std::int64_t": INT64,
    "std::uint8_t": UINT8, "std::uint16_t": UINT16, "std::uint32_t": UINT32,
    "std::uint64_t": UINT64,
    "float16": FLOAT16, "float32": FLOAT32, "float64": FLOAT64,
    "complex64": COMPLEX64, "complex128": COMPLEX128,
    "int8": INT8, "int16": INT16, "int32": INT32, "int64": INT64,
    "uint8": UINT8, "uint16": UINT16, "uint32": UINT32, "uint64": UINT64,
}

#: Words that combine into a C integer/float type ("unsigned long long int").
C_TYPE_WORDS = frozenset({"unsigned", "signed", "char", "short", "int", "long", "float",
                          "double", "bool", "void"})

#: Template names that take one type argument: complex<float> and its namespaced spellings.
COMPLEX_TEMPLATE_NAMES = frozenset({"complex", "thrust::complex", "std::complex",
                                    "cuda::std::complex"})


def combine_c_words(words: Sequence[str]) -> KType | None:
    """Map a multiset of C type words ("unsigned", "long", "long", "int") to a KType.

    Returns None for an invalid combination.
    """
    if not words:
        return None
    counts: dict[str, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    unsigned = counts.pop("unsigned", 0)
    signed = counts.pop("signed", 0)
    if unsigned > 1 or signed > 1 or (unsigned and signed):
        return None
    longs = counts.pop("long", 0)
    rest = set(counts)
    if any(c > 1 for c in counts.values()):
        return None
    if rest == {"double"} and not unsigned and not signed:
        return FLOAT64 if longs <= 1 else None   # long double: computed as double
    if rest == {"float"} and not (unsigned or signed or longs):
        return FLOAT32
    if rest == {"bool"} and not (unsigned or signed or longs):
        return BOOL
    if rest == {"void"} and not (unsigned or signed or longs):
        return VOID
    if rest == {"char"}:
        if longs:
            return None
        return UINT8 if unsigned else INT8
    if rest == {"short"} or rest == {"short", "int"}:
        if longs:
            return None
        return UINT16 if unsigned else INT16
    if rest <= {"int"}:
        if longs > 2:
            return None
        bits = 64 if longs else 32
        if not rest and not longs and not (unsigned or signed):
            return None
        return INT_BY[("u" if unsigned else "i", bits)]
    return None


def complex_of_component(t: KType) -> KType | None:
    if t in (FLOAT32, FLOAT64):
        return COMPLEX_OF[t]
    return None


_SPECIAL_NAME_CACHE: dict[str, KType | None] = {}


def lookup_type_text(text: str) -> KType | None | bool:
    """Resolve a type written as text: a KType, None for a single identifier that is not a
    known type (a placeholder), False for text that is no valid type at all."""
    try:
        return _SPECIAL_NAME_CACHE[text]
    except KeyError:
        pass
    result = _lookup_type_text(text)
    if len(_SPECIAL_NAME_CACHE) < 4096:
        _SPECIAL_NAME_CACHE[text] = result
    return result


def _lookup_type_text(text: str):
    try:
        toks = [t for t in tokenize(text, "params") if t.kind != "eof"]
    except KernelSyntaxError:
        return False
    vals = [t.value for t in toks]
    while vals and vals[0] in ("const", "volatile"):
        vals.pop(0)
    if not vals:
        return False
    # qualified names: join ident :: ident
    joined: list[str] = []
    for v in vals:
        if joined and (v == "::" or joined[-1].endswith("::")):
            joined[-1] += v
        else:
            joined.append(v)
    vals = joined
    if len(vals) == 1:
        v = vals[0]
        if v in SIMPLE_TYPE_NAMES:
            return SIMPLE_TYPE_NAMES[v]
        if v in C_TYPE_WORDS:
            t = combine_c_words([v])
            return t if t is not None and t is not VOID else False
        if v.isidentifier():
            return None
        return False
    if len(vals) == 4 and vals[0] in COMPLEX_TEMPLATE_NAMES and vals[1] == "<" and vals[3] == ">":
        comp = lookup_type_text(vals[2])
        if isinstance(comp, KType):
            c = complex_of_component(comp)
            return c if c is not None else False
        return False
    if all(v in C_TYPE_WORDS for v in vals):
        t = combine_c_words(vals)
        return t if t is not None and t is not VOID else False
    return False


def resolve_type_name(name: str) -> np.dtype | None:
    """The dtype a type name denotes, or None for a type placeholder (``T``, ``U``...).

    Raises KernelSyntaxError for text that is no type name at all.
    """
    t = lookup_type_text(" ".join(name.split()))
    if t is False:
        raise KernelSyntaxError(f"'{name}' is not a type name", 1, 1, source=name, where="params")
    return None if t is None else t.dtype


# -- parameter lists --------------------------------------------------------------------------


class Param(NamedTuple):
    """One parameter of an ElementwiseKernel / ReductionKernel parameter list."""

    name: str
    type_name: str
    raw: bool
    is_placeholder: bool


_RESERVED = frozenset({"i", "_ind", "raw", "const", "return", "if", "else", "for", "while",
                       "do", "break", "continue", "true", "false", "auto", "void"})


def parse_params(text: str, *, kernel_name: str = "kernel") -> tuple[Param, ...]:
    """Parse CuPy's parameter syntax ``"T x, raw float32 y, int32 n"``."""
    params: list[Param] = []
    seen: set[str] = set()
    if not text.strip():
        return ()
    col = 1
    for part in text.split(","):
        start = col
        col += len(part) + 1
        stripped = part.strip()
        pcol = start + (len(part) - len(part.lstrip()))

        def fail(msg, c=pcol):
            raise KernelSyntaxError(msg, 1, c, source=text, where="params",
                                    kernel_name=kernel_name)

        if not stripped:
            fail("empty parameter in parameter list")
        words = stripped.split()
        raw = False
        if words[0] == "raw":
            raw = True
            words = words[1:]
        if len(words) < 2:
            fail(f"parameter '{stripped}' needs a type and a name")
        name = words[-1]
        if name.startswith("&") or name.startswith("*") or words[-2].endswith(("*", "&")):
            fail(f"pointer or reference parameters are not supported: '{stripped}'")
        if not name.isidentifier():
            fail(f"'{name}' is not a valid parameter name")
        ncol = pcol + len(stripped) - len(name)
        type_text = " ".join(words[:-1])
        t = lookup_type_text(type_text)
        if t is False:
            fail(f"unknown type '{type_text}' of parameter '{name}'")
        if t is None and (type_text in _RESERVED or type_text in C_TYPE_WORDS):
            fail(f"'{type_text}' cannot be a type placeholder")
        if name in _RESERVED or lookup_type_text(name) not in (None,):
            fail(f"'{name}' is a reserved word or type name and cannot be a parameter name",
                 ncol)
        if name in seen:
            fail(f"duplicate parameter name '{name}'", ncol)
        seen.add(name)
        params.append(Param(name, type_text, raw, t is None))
    return tuple(params)


def bind_placeholders(params: Sequence[Param], dtypes) -> dict[str, np.dtype]:
    """Bind type placeholders (``T``...) from per-parameter dtypes.

    ``dtypes`` is a sequence aligned with ``params`` or a mapping from parameter name to
    dtype; None entries (and missing names) bind nothing.
    """
    bound: dict[str, np.dtype] = {}
    who: dict[str, str] = {}
    if isinstance(dtypes, Mapping):
        pairs = [(p, dtypes.get(p.name)) for p in params]
    else:
        dtypes = list(dtypes)
        if len(dtypes) > len(params):
            raise KernelTypeError(f"{len(dtypes)} dtypes given for {len(params)} parameters")
        pairs = list(zip(params, dtypes))
    for p, dt in pairs:
        if dt is None or not p.is_placeholder:
            continue
        dt = np.dtype(dt)
        prev = bound.get(p.type_name)
        if prev is None:
            bound[p.type_name] = dt
            who[p.type_name] = p.name
        elif prev != dt:
            raise KernelTypeError(
                f"type placeholder '{p.type_name}' bound to both {prev} and {dt} "
                f"(parameters '{who[p.type_name]}' and '{p.name}')")
    return bound


def promote_int(t: KType) -> KType:
    """C integer promotion: bool and integers narrower than int become int."""
    if t.kind == "b" or (t.kind in "iu" and t.bits < 32):
        return INT32
    return t


def _float_pair(a: KType, b: KType) -> KType:
    fa = FLOAT32 if a is FLOAT16 else a
    fb = FLOAT32 if b is FLOAT16 else b
    if fa.kind == "f" and fb.kind == "f":
        return fa if fa.bits >= fb.bits else fb
    if fa.kind == "f":
        return fa
    if fb.kind == "f":
        return fb
    return FLOAT64


def arith_type(a: KType, b: KType) -> KType:
    """C's usual arithmetic conversions (float16 counts as float; complex wins)."""
    if a.kind == "c" or b.kind == "c":
        ca = a.component if a.kind == "c" else a
        cb = b.component if b.kind == "c" else b
        return COMPLEX_OF[_float_pair(ca, cb)]
    if a.kind == "f" or b.kind == "f":
        return _float_pair(a, b)
    a = promote_int(a)
    b = promote_int(b)
    if a is b:
        return a
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if u.bits >= s.bits:
        return u
    return s


def can_convert_implicitly(f: KType, t: KType) -> bool:
    return not (f.kind == "c" and t.kind != "c") and f is not VOID and t is not VOID
