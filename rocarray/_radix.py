"""The stable LSD radix sort behind ``sort``, ``argsort`` and the set functions: keys with
an optional int64 payload, sorted along the rows of a ``(rows, L)`` array, on every device.

Each element's key is an unsigned integer that orders as NumPy orders the values (the key
transforms below), cut into 8-bit digits; one pass per digit moves the elements stably by
that digit, least significant first.  A row is cut into tiles; one kernel item owns a tile:

1. ``rk_radix_hist``: each item counts the digits of its tile (a 256-bin histogram on the
   item's stack) and writes the counts digit-major per row, ``counts[row, digit, tile]``.
   The first call counts every digit position at once (the onesweep layout of one
   histogram pass over all digits), so that the digit positions where all keys agree are
   skipped: the only value read back is that ``(digits, 256)`` total, to pick the passes.
2. an inclusive ``cumulative_sum`` of each row's counts, digit-major: where each
   (digit, tile) pair starts in the row;
3. ``rk_radix_scatter``: each item walks its tile in order and puts every element at the
   next free place of its digit (so equal digits keep their order: stable).

On the host, real elements take kernels of their own: the first read
(``rk_radix_hist_host``) writes every element's whole key as an unsigned word (32 bits
where the keys fit: integer keys less the smallest one, whose digits above their range are
neither counted nor moved) and counts digit 0 only; the tiles' OR and AND of their keys
tell which digits every key shares (those passes are skipped).  The passes
(``rk_radix_scatter_host``, one kernel per key word width) move key words with no
transform, and the last (``rk_radix_last_host``) writes the values made back from the keys
into a new array (the input is never written) -- unless the data holds -0.0 or a NaN other
than NaN's own bits (which no key gives back): then the elements' indices move with the
keys and the values are gathered.  Complex keys take the generic kernels above on every device.
The kernels are thin (one per key dtype and payload; sizes, tiles and digit positions are
run-time arguments).  On the host an item is
launched at every ``S``-th index of a range as long as the data (items between do nothing),
so that the launcher splits the tiles across its threads as it splits elementwise work; on
a GPU an item is one thread.

Rows short enough for one item (the row path) sort without counters through memory.  On
the host, rows of real elements have a kernel of their own (``rk_radix_rows_host``, one for
every length): rows of ``ROW_LOCAL_MIN`` to ``RCAP`` elements are sorted in the item's
local arrays, each element's whole key made once and moved with it (elements of up to 32
bits inside their key's 64-bit word), so a pass is a shift, a counter and a store on the
item's stack; other lengths take the row path between the row and a scratch row.

Key transforms: unsigned and bool as they are; signed integers offset by half their range;
floats by their bits (negative values complemented, positive ones with the sign bit set),
with ``-0.0`` read as ``+0.0`` (equal, so their order is kept) and every NaN one largest key
(last, in input order); float16 through float32 (exact).  Complex numbers order as NumPy's
do: values without NaN by real then imaginary part, then those with a NaN imaginary part
(by real part), a NaN real part (by imaginary part), both -- a class digit above the two
parts' digits, and the parts that do not count for a class read as zero.  ``descending``
complements every digit: the order reverses while equal keys keep their input order, as
the standard's stable descending sort asks (NaN then comes first).
"""

from __future__ import annotations

import numpy as np

from ._advanced_indexing import take_along
from ._array_object import Array
from ._copy import contiguous
from ._creation_functions import arange
from ._launch import full_module_when_ready, load_full_module, spread_items
from ._radix_gpu import gpu_radix_sort, gpu_sortable
from ._statistical_functions import cumulative_sum, max as _max, min as _min, sum as _sum
from ._user_kernels import ElementwiseKernel
from ._views import broadcast_to
from .compiler import network_host

# (in integer operations on the bits: the magnitude's bits ``m`` tell NaN and zero apart,
# the sign's copy in every bit complements a negative value)
_FLOAT32_KEY = """
__device__ unsigned long long rk_fkey(float f) {
    unsigned int b = __float_as_uint(f);
    unsigned int m = b << 1;
    if (m > 0xFF000000u) return 0xFFFFFFFFull;   // every NaN: the largest key, last
    if (m == 0u) b = 0u;                         // -0.0 and +0.0 are equal
    return (unsigned long long)(b ^ ((unsigned int)((int)b >> 31) | 0x80000000u));
}
"""
_FLOAT64_KEY = """
__device__ unsigned long long rk_fkey(double f) {
    unsigned long long b = (unsigned long long)__double_as_longlong(f);
    unsigned long long m = b << 1;
    if (m > 0xFFE0000000000000ull) return 0xFFFFFFFFFFFFFFFFull;
    if (m == 0ull) b = 0ull;
    return b ^ ((unsigned long long)((long long)b >> 63) | 0x8000000000000000ull);
}
"""
_REAL_DIGIT = """
__device__ int rk_digit(T v, int d) { return (int)((KEY >> (RB * d)) & (unsigned long long)RMASK); }
"""
# the class digit is digit 2 * PD; PD digits per part
_COMPLEX_DIGIT = """
__device__ int rk_digit(T z, int d) {
    int cls = (isnan(real(z)) ? 2 : 0) + (isnan(imag(z)) ? 1 : 0);
    if (d == 2 * PD) return cls;
    if (d >= PD) return cls >= 2 ? 0 : (int)((rk_fkey(real(z)) >> (RB * (d - PD))) & (unsigned long long)RMASK);
    return (cls & 1) != 0 ? 0 : (int)((rk_fkey(imag(z)) >> (RB * d)) & (unsigned long long)RMASK);
}
"""
_DIGIT = """
__device__ int rk_dig(T v, int d, bool desc, unsigned long long kmin) {
    int g = rk_digit(v, d);
    return desc ? RMASK - g : g;
}
"""
# integers: the key less the smallest key (descending: complemented first), so that the
# digits above the keys' range are zero and skipped
_INT_DIGIT = """
__device__ int rk_dig(T v, int d, bool desc, unsigned long long kmin) {
    unsigned long long k = KEY;
    if (desc) k = ~k & WMASK;
    return (int)(((k - kmin) >> (RB * d)) & (unsigned long long)RMASK);
}
"""

# The tile of item i: rows of L elements, tpr tiles of ts elements per row.
_TILE = """
if ((i & (S - 1)) != 0) return;
long t = i / S;
if (t >= rows * tpr) return;
long r = t / tpr;
long k = t - r * tpr;
long lo = r * L + k * ts;
long hi = min(lo + ts, r * L + L);
"""
_HIST = _TILE + """
int h[NDRB];
for (int g = 0; g < nd * RBINS; g++) h[g] = 0;
for (long j = lo; j < hi; j++) {
    T v = a[j];
    for (int dd = 0; dd < nd; dd++) h[dd * RBINS + rk_dig(v, (int)(d0 + dd), desc, kmin)] += 1;
}
for (long dd = 0; dd < nd; dd++) {
    long base = (dd * rows + r) * RBINS * tpr + k;
    for (int g = 0; g < RBINS; g++) counts[base + g * tpr] = h[dd * RBINS + g];
}
"""
_SCATTER = _TILE + """
long o[RBINS];
long base = r * RBINS * tpr + k;
for (int g = 0; g < RBINS; g++) {
    long q = base + g * tpr;
    o[g] = inc[q] - cnt[q] + r * L;
}
long cb = (r * tpr + k) * RBINS * tpr;
if (dn >= 0) {
    for (long q = 0; q < RBINS * tpr; q++) cn[cb + q] = 0;
}
for (long j = lo; j < hi; j++) {
    T v = a[j];
    int g = rk_dig(v, (int)d, desc, kmin);
    long p = o[g];
    o[g] = p + 1;
    b[p] = v;
    MOVE
    if (dn >= 0) {
        long q = cb + rk_dig(v, (int)dn, desc, kmin) * tpr + ((p - r * L) >> tsh);
        cn[q] = cn[q] + 1;
    }
}
"""
# The host's passes over real elements.  Their first read (``rk_radix_hist_host``) makes
# each element's key -- a word (``KW``) complemented when descending, less the smallest key
# -- into an array of keys, counts digit ``d0`` of the keys and takes their OR and AND (the
# digits every key shares); the passes (``rk_radix_scatter_host``) then move keys (and the
# payload): a digit is a shift and a mask; the last one (``rk_radix_last_host``) writes the
# values made back from the keys.  A float
# key says nothing of a zero's sign or a NaN's bits: the first read counts the elements
# the value made from their key would not give back (-0.0, a NaN other than the one made:
# ``rk_special``), and a sort with any moves their indices and gathers the values.  Loops
# are written twice, the first for 1-D contiguous raw operands (as ``radix_sort`` passes
# them: no access checks a layout or multiplies a stride); counters are 32-bit (a tile
# has at most 2**30 elements).
_HIST_LOOP = """
for (long j = lo; j < hi; j++) {
    T v = a[j];
    KW kk = rk_k(v, desc, kmin);
    KEYOUT
    h[rk_g(kk, dc)] += 1;
}"""
# (the keys of a chunk made by a loop that vectorizes, their digits counted in a second
# loop from the words just written: the counters' stores would keep the first scalar)
_HIST_SPLIT = """
for (long c = lo; c < hi; c += 2048) {
    long e = min(c + 2048, hi);
    for (long j = c; j < e; j++) {
        T v = a[j];
        KW kk = rk_k(v, desc, kmin);
        KEYOUT
    }
    for (long j = c; j < e; j++) h[rk_g(kw[j], dc)] += 1;
}"""
_HIST_HOST = _TILE + """
int h[RBINS];
for (int g = 0; g < RBINS; g++) h[g] = 0;
int dc = (int)d0;
long sp = 0;
KW kor = (KW)0;
KW kand = ~(KW)0;
if (RUNS) {FAST} else {""" + _HIST_LOOP + """}
long base = r * RBINS * tpr + k;
for (int g = 0; g < RBINS; g++) counts[base + g * tpr] = h[g];
SPECOUT
"""
# A pass moves the keys of a tile by digit ``d`` and, when ``dn >= 0``, counts digit ``dn``
# by destination tile (the next pass's counters: ``nc`` on the item's stack, written out
# once).
_COUNT_NEXT = "nc[(int)((kk@ >> shn) & RMASK) * TPRMAX + (int)((p@ - rl) >> tsh)] += 1;"


def _scatter_loop(count: str) -> str:
    """A pass's loop over its tile, two elements a trip (``@``: the element's suffix in
    ``count``'s names; ``STORE@`` and ``MOVE@``: its key's and payload's moves, filled in
    per kernel)."""
    def step(sfx: str, at: str) -> str:
        return (f"\n    KW kk{sfx} = a[j{at}];\n    int g{sfx} = (int)((kk{sfx} >> sh) & RMASK);\n"
                f"    long p{sfx} = o[g{sfx}];\n    o[g{sfx}] = p{sfx} + 1;\n    STORE{sfx}\n"
                f"    MOVE{sfx}\n    " + count.replace("@", sfx))
    return ("\nlong j = lo;\nfor (; j + 1 < hi; j += 2) {" + step("0", "") + step("1", " + 1")
            + "\n}\nif (j < hi) {" + step("0", "") + "\n}\n")


_SCATTER_HEAD = _TILE + """
long o[RBINS];
long base = r * RBINS * tpr + k;
long rl = r * L;
for (int g = 0; g < RBINS; g++) {
    long q = base + g * tpr;
    o[g] = inc[q] - cnt[q] + rl;
}
int sh = (int)(RB * d) & (KWBITS - 1);
"""
_SCATTER_HOST = _SCATTER_HEAD + """
int nc[RBINS * TPRMAX];
int shn = (int)(RB * dn) & (KWBITS - 1);
if (dn >= 0) {
    for (int q = 0; q < RBINS * TPRMAX; q++) nc[q] = 0;
}
if (RUNS && dn >= 0) {""" + _scatter_loop(_COUNT_NEXT) + "} else if (RUNS) {" + _scatter_loop("") + """
} else {""" + _scatter_loop("if (dn >= 0) " + _COUNT_NEXT) + """}
if (dn >= 0) {
    long cb = (r * tpr + k) * RBINS * tpr;
    for (int g = 0; g < RBINS; g++) {
        for (int q = 0; q < tpr; q++) cn[cb + g * tpr + q] = nc[g * TPRMAX + q];
    }
}
"""
# The last pass: the keys moved by digit ``d`` are written as the values they are the keys
# of (``rk_unkey``) -- or not at all when a payload moves with them (the callers then want
# the order only).
_SCATTER_LAST_HOST = _SCATTER_HEAD + "if (RUNS) {" + _scatter_loop("") + "} else {" + _scatter_loop("") + "}\n"
# a row's counts of digit ``d`` turned into where each digit starts (a digit every element
# shares is no pass: ``continue``), shared by the row kernels
_DIGIT_STARTS = """
    bool skip = false;
    int run = 0;
    for (int g = 0; g < RBINS; g++) {
        int c = h[d * RBINS + g];
        if (c == L) skip = true;
        h[d * RBINS + g] = run;
        run += c;
    }
    if (skip) continue;"""

# One item sorts one whole row: all digit histograms in one read, then a pass per digit
# between the row and its scratch row (a digit the whole row shares is skipped), the
# result copied back when it ends in the scratch row.  No counters leave the item.
_ROW = """
if ((i & (S - 1)) != 0) return;
long r = i / S;
if (r >= rows) return;
long lo = r * L;
long hi = lo + L;
int h[NDRB];
for (int g = 0; g < NDRB; g++) h[g] = 0;
for (long j = lo; j < hi; j++) {
    T v = a[j];
    for (int d = 0; d < ND; d++) h[d * RBINS + rk_dig(v, d, desc, kmin)] += 1;
}
bool in_a = true;
for (int d = 0; d < ND; d++) {
DIGIT_STARTS
    if (in_a) {
        for (long j = lo; j < hi; j++) {
            T v = a[j];
            int q = d * RBINS + rk_dig(v, d, desc, kmin);
            long p = lo + h[q];
            h[q] += 1;
            b[p] = v;
            MOVE_AB
        }
    } else {
        for (long j = lo; j < hi; j++) {
            T v = b[j];
            int q = d * RBINS + rk_dig(v, d, desc, kmin);
            long p = lo + h[q];
            h[q] += 1;
            a[p] = v;
            MOVE_BA
        }
    }
    in_a = !in_a;
}
if (!in_a) {
    for (long j = lo; j < hi; j++) {
        a[j] = b[j];
        MOVE_BACK
    }
}
""".replace("DIGIT_STARTS", _DIGIT_STARTS)
# The host's row of up to ``RCAP`` real elements, sorted in local arrays of the item (read
# from the row once, written back once): each element's whole key -- complemented when
# descending, less the smallest key -- is made once and moves with the element, so that a
# pass reads a digit with a shift and indexes the item's own stack, not two raw operands
# (whose every access checks their layout).  Elements of at most 32 bits whose bits come
# back exactly (not float16: through float32) travel inside their item ``KT``: the key in
# the high half, the element's bits in the low (``rk_item``, ``rk_value``); wider ones in
# arrays of their own beside the keys (``VALUES``).
_ROW_HEAD = """
if ((i & (S - 1)) != 0) return;
long r = i / S;
if (r >= rows) return;
long lo = r * L;
"""
_ROW_LOCAL = """
KT kx[RCAP];
KT ky[RCAP];
VALUES
LOCALS
int h[NDRB];
for (int g = 0; g < NDRB; g++) h[g] = 0;
for (int j = 0; j < L; j++) {
    T v = a[lo + j];
    KT k = rk_item(v, desc, kmin);
    kx[j] = k;
    VLOAD
    LOAD
    COUNT
}
bool in_x = true;
for (int d = 0; d < ND; d++) {
DIGIT_STARTS
    int sh = KSH + RB * d;
    if (in_x) {
        for (int j = 0; j < L; j++) {
            KT k = kx[j];
            int q = d * RBINS + (int)((k >> sh) & RMASK);
            int p = h[q];
            h[q] = p + 1;
            ky[p] = k;
            VMOVE_XY
            MOVE_XY
        }
    } else {
        for (int j = 0; j < L; j++) {
            KT k = ky[j];
            int q = d * RBINS + (int)((k >> sh) & RMASK);
            int p = h[q];
            h[q] = p + 1;
            kx[p] = k;
            VMOVE_YX
            MOVE_YX
        }
    }
    in_x = !in_x;
}
if (in_x) {
    for (int j = 0; j < L; j++) {
        a[lo + j] = OUT_X;
        STORE_X
    }
} else {
    for (int j = 0; j < L; j++) {
        a[lo + j] = OUT_Y;
        STORE_Y
    }
}
""".replace("DIGIT_STARTS", _DIGIT_STARTS)
# (markers of ``_ROW_LOCAL``: the packed items', then the separate values')
_PACKED_MARKS = {"VALUES": "", "VLOAD": "", "VMOVE_XY": "", "VMOVE_YX": "", "OUT_X": "rk_value(kx[j])",
                 "OUT_Y": "rk_value(ky[j])"}
_PAIRED_MARKS = {"VALUES": "T x[RCAP];\nT y[RCAP];", "VLOAD": "x[j] = v;", "VMOVE_XY": "y[p] = x[j];",
                 "VMOVE_YX": "x[p] = y[j];", "OUT_X": "x[j]", "OUT_Y": "y[j]"}
# the host's rows of real elements: in local arrays from ``ROW_LOCAL_MIN`` to ``RCAP``
# elements, else as ``_ROW`` (one kernel for every length: a new length compiles nothing)
assert _ROW.startswith(_ROW_HEAD)
_ROW_HOST = (_ROW_HEAD + "if (L >= LMIN && L <= RCAP) {" + _ROW_LOCAL + "} else if (RUNS) {"
             + _ROW[len(_ROW_HEAD):] + "} else {" + _ROW[len(_ROW_HEAD):] + "}\n")

# a real element's whole key (``KEY`` of ``WMASK``'s width; the host's passes and
# ``_ROW_LOCAL``); ``ITEM`` and ``VALUE`` pack an element and its key into a ``KT`` and
# take the element back out (``_ROW_LOCAL``)
_KEY_WORD = """
__device__ unsigned long long rk_key(T v, bool desc, unsigned long long kmin) {
    unsigned long long k = KEY;
    if (desc) k = ~k & WMASK;
    return k LESS;
}
"""
_PACKING = """
__device__ KT rk_item(T v, bool desc, unsigned long long kmin) { return ITEM; }
__device__ T rk_value(KT k) { return VALUE; }
"""
# the host passes' key words (``KW``): ``rk_k`` the key of an element (``KEYOF``: its
# whole key, or a key word itself), ``rk_g`` its digit ``d``
_PASS_KEY = """
__device__ KW rk_k(T v, bool desc, unsigned long long kmin) { return (KW)KEYOF; }
__device__ int rk_g(KW k, int d) { return (int)((k >> ((RB * d) & (KWBITS - 1))) & RMASK); }
"""
# a real value back from its key word (``rk_radix_last_host``: ``rk_key`` undone; a float
# key's value through ``rk_fvalue``), and whether that value would differ from ``v``
# (``rk_special``: the bits a key gives back, ``back``, are +0.0's for both zeros and
# NaN's own for every NaN; selects, not branches, in the first read's loop)
_UNKEY = """
__device__ T rk_unkey(KW k, bool desc, unsigned long long kmin) {
    unsigned long long w = ((unsigned long long)k MORE) ^ (desc ? WMASK : 0ull);
    return VALUE;
}
"""
_FLOAT32_VALUE = """
__device__ float rk_fvalue(unsigned long long w) {
    unsigned int k = (unsigned int)w;
    unsigned int b = k ^ (~(unsigned int)((int)k >> 31) | 0x80000000u);
    return __uint_as_float(k == 0xFFFFFFFFu ? 0x7FC00000u : b);
}
__device__ long rk_special(T v) {
    unsigned int b = __float_as_uint((float)v);
    unsigned int m = b << 1;
    unsigned int back = m == 0u ? 0u : (m > 0xFF000000u ? 0x7FC00000u : b);
    return (long)(back != b);
}
"""
_FLOAT64_VALUE = """
__device__ double rk_fvalue(unsigned long long k) {
    unsigned long long b = k ^ (~(unsigned long long)((long long)k >> 63) | 0x8000000000000000ull);
    return __longlong_as_double((long long)(k == 0xFFFFFFFFFFFFFFFFull ? 0x7FF8000000000000ull : b));
}
__device__ long rk_special(T v) {
    unsigned long long b = (unsigned long long)__double_as_longlong(v);
    unsigned long long m = b << 1;
    unsigned long long back = m == 0ull ? 0ull : (m > 0xFFE0000000000000ull ? 0x7FF8000000000000ull : b);
    return (long)(back != b);
}
"""


def _key_dtype(dtype: np.dtype, digits: int | None = None) -> np.dtype:
    """The dtype of a real ``dtype``'s key words on the host: uint32, or uint64 for keys of
    more than 32 bits (those of 64-bit integers spanning at most ``digits`` digits: less
    the smallest key, in 32 bits)."""
    narrow = _key_bits(dtype) <= 32 or (digits is not None and digits * RADIX_BITS <= 32)
    return np.dtype(np.uint32 if narrow else np.uint64)


def _pass_key(dtype: np.dtype, values: bool, kdt: np.dtype | None = None) -> str:
    """The preamble of ``rk_k`` and ``rk_g`` for the host's kernels over ``dtype``: a real
    dtype's elements (``values``: with ``rk_key``, ``rk_unkey`` and ``rk_special``; their
    key words of ``kdt``), or key words (``dtype`` uint32 or uint64)."""
    kdt = _key_dtype(dtype) if kdt is None else kdt
    text = (f"#define TPRMAX {HOST_TILES_PER_ROW}\n#define KW unsigned {'long long' if kdt.itemsize == 8 else 'int'}\n"
            f"#define KWBITS {8 * kdt.itemsize}\n")
    if not values:
        return text + _PASS_KEY.replace("KEYOF", "v")
    bits = _key_bits(dtype)
    mask = "0xFFFFFFFFFFFFFFFFull" if bits == 64 else f"((1ull << {bits}) - 1ull)"
    if dtype.kind == "f":
        text += _FLOAT64_VALUE if dtype.itemsize == 8 else _FLOAT32_VALUE
        value = "(T)rk_fvalue(w)"
    elif dtype.kind == "i":
        value = f"(T)(long long)(w - (1ull << {bits - 1}))"
    else:
        value = "(T)w"
    more = "+ kmin" if dtype.kind in "iu" and dtype.itemsize > 1 else ""
    unkey = _UNKEY.replace("MORE", more).replace("WMASK", mask).replace("VALUE", value)
    return text + _key_word(dtype) + _PASS_KEY.replace("KEYOF", "rk_key(v, desc, kmin)") + unkey


def _hist_host(dtype: np.dtype, values: bool, kdt: np.dtype) -> str:
    """``_HIST_HOST`` over ``dtype``'s elements (``values``: writing their key words, with
    each tile's count of specials of a float dtype and the OR and AND of its key words) or
    key words."""
    runs = _runs(("a",), dtype.itemsize)
    keyout, specout = "", ""
    if values:
        runs += " && " + _runs(("kw",), kdt.itemsize)
        keyout = "kw[j] = kk;\n    kor |= kk;\n    kand &= kk;"
        if dtype.kind == "f":
            keyout += "\n    sp += rk_special(v);"
        specout = "long nt = rows * tpr;\nspec[t] = sp;\nspec[nt + t] = (long)kor;\nspec[2 * nt + t] = (long)kand;"
    fast = _HIST_SPLIT if values else _HIST_LOOP
    return _HIST_HOST.replace("FAST", fast).replace("RUNS", runs).replace("KEYOUT", keyout).replace("SPECOUT", specout)


def _runs(names, itemsize: int) -> str:
    """The condition that the raw operands ``names`` are 1-D runs of ``itemsize`` bytes a
    step (a loop under it indexes them without a layout check or a stride to multiply)."""
    return " && ".join(f"{n}.ndim == 1 && {n}.strides()[0] == {itemsize}" for n in names)


def _packed(dtype: np.dtype) -> bool:
    """Whether ``_ROW_LOCAL`` carries ``dtype``'s elements inside their keys' items."""
    return dtype.kind in "biu" and dtype.itemsize <= 4 or dtype == np.float32


def _key_bits(dtype: np.dtype) -> int:
    """The width of a real ``dtype``'s whole key."""
    return 8 * max(dtype.itemsize, 4) if dtype.kind == "f" else 8 * dtype.itemsize


def _key_word(dtype: np.dtype) -> str:
    """The preamble of ``rk_key`` for a real ``dtype`` (``WMASK``: its width's mask)."""
    bits = _key_bits(dtype)
    mask = "0xFFFFFFFFFFFFFFFFull" if bits == 64 else f"((1ull << {bits}) - 1ull)"
    if dtype.kind == "f":
        key = "rk_fkey(v)" if dtype.itemsize == 8 else "rk_fkey((float)v)"
    elif dtype.kind == "i":
        key = f"((((unsigned long long)(long long)v) + (1ull << {bits - 1})) & {mask})"
    else:
        key = "((unsigned long long)v)"
    # (``kmin`` is 0 but for integers of more than a byte)
    less = "- kmin" if dtype.kind in "iu" and dtype.itemsize > 1 else ""
    return _KEY_WORD.replace("KEY", key).replace("WMASK", mask).replace("LESS", less)


def _whole_key(dtype: np.dtype) -> str:
    """The preamble of ``rk_key``, ``rk_item`` and ``rk_value``, with the item type ``KT``
    and the shift ``KSH`` of the key in it, for a real ``dtype``."""
    if _packed(dtype):
        kt, ksh = "unsigned long long", 32
        vbits = "__float_as_uint(v)" if dtype.kind == "f" else "(unsigned int)v"
        item = f"(rk_key(v, desc, kmin) << 32) | (unsigned long long){vbits}"
        value = "__uint_as_float((unsigned int)k)" if dtype.kind == "f" else "(T)(int)(unsigned int)k"
    else:
        kt, ksh = ("unsigned long long" if _key_bits(dtype) == 64 else "unsigned int"), 0
        item, value = "(KT)rk_key(v, desc, kmin)", "(T)0"
    defines = f"#define KT {kt}\n#define KSH {ksh}\n#define RCAP {RCAP}\n#define LMIN {ROW_LOCAL_MIN}\n"
    return defines + _key_word(dtype) + _PACKING.replace("ITEM", item).replace("VALUE", value)


_GEOMETRY = "int64 rows, int64 L, int64 tpr, int64 ts, int64 S, bool desc, uint64 kmin"

#: elements of a tile: on the host, a tile (and its 256 counters) stays in the core's
#: cache between the counting and the moving; on a GPU, one thread walks a tile
HOST_TILE = 1 << 14
HOST_TILES_PER_ROW = 16
#: a host pass counts the next pass's digits when the data is this many times the counters
FUSED_COUNTERS_RATIO = 4
GPU_TILE = 1 << 11
GPU_TILE_MIN = 1 << 8
#: threads a GPU sort aims for (tiles between ``GPU_TILE_MIN`` and ``GPU_TILE`` permitting)
GPU_THREADS = 1 << 13
#: one item sorts a whole row (no counters through memory) on the host for rows of up to a
#: tile, or up to ``ROW_MAX_HOST`` when there are enough rows for the threads; on a GPU
#: when there are enough rows to fill it with threads
ROWS_MIN_HOST = 16
ROW_MAX_HOST = 1 << 16
ROWS_MIN_GPU = 2048
#: the host sorts a row in the item's local arrays (``_ROW_LOCAL``) for rows of
#: ``ROW_LOCAL_MIN`` to ``RCAP`` elements (the arrays are zeroed per item: shorter rows
#: take ``_ROW``)
RCAP = 1024
ROW_LOCAL_MIN = 256


#: bits of one digit: a pass per digit, ``BINS`` counters per tile
RADIX_BITS = 8
BINS = 1 << RADIX_BITS


def _part_digits(bits: int) -> int:
    return -(-bits // RADIX_BITS)


def key_digits(dtype: np.dtype) -> int:
    """The number of digits of ``dtype``'s sort key."""
    if dtype.kind == "c":
        return 2 * _part_digits(4 * dtype.itemsize) + 1  # two parts and the class digit
    if dtype.kind == "f":
        return _part_digits(8 * max(dtype.itemsize, 4))  # float16 through float32
    return _part_digits(8 * dtype.itemsize)


def _preamble(dtype: np.dtype) -> tuple[str, str]:
    """(a name for the key transform, the preamble defining ``rk_dig``) for ``dtype``."""
    name, text = _key_preamble(dtype)
    sizes = f"#define RB {RADIX_BITS}\n#define RBINS {BINS}\n#define RMASK {BINS - 1}\n"
    nd = key_digits(dtype)
    return name, sizes + f"#define ND {nd}\n#define NDRB {nd * BINS}\n" + text


def _key_preamble(dtype: np.dtype) -> tuple[str, str]:
    bits = 8 * dtype.itemsize
    if dtype.kind == "c":
        part = _FLOAT32_KEY if dtype.itemsize == 8 else _FLOAT64_KEY
        body = part + _COMPLEX_DIGIT.replace("PD", str(_part_digits(4 * dtype.itemsize)))
        return f"c{bits}", body + _DIGIT
    if dtype.kind == "f":
        if dtype.itemsize == 8:
            return "f64", _FLOAT64_KEY + _REAL_DIGIT.replace("KEY", "rk_fkey(v)") + _DIGIT
        return "f32", _FLOAT32_KEY + _REAL_DIGIT.replace("KEY", "rk_fkey((float)v)") + _DIGIT
    mask = "0xFFFFFFFFFFFFFFFFull" if bits == 64 else f"((1ull << {bits}) - 1ull)"
    if dtype.kind == "i":
        # offset by half the range, within the type's width: the minimum is key 0
        key = f"((((unsigned long long)(long long)v) + (1ull << {bits - 1})) & {mask})"
        return f"i{bits}", _INT_DIGIT.replace("KEY", key).replace("WMASK", mask)
    return f"u{bits}", _INT_DIGIT.replace("KEY", "((unsigned long long)v)").replace("WMASK", mask)


def _key_range(keys: Array, descending: bool) -> tuple[int, int]:
    """(the smallest key, the number of digits of the keys less it) of an integer array of
    more than a byte (complemented keys when ``descending``), from its extremes read back."""
    dtype = keys.dtype
    bits = 8 * dtype.itemsize
    lo, hi = (int(_min(keys).get()), int(_max(keys).get()))
    if dtype.kind == "i":
        lo, hi = lo + (1 << (bits - 1)), hi + (1 << (bits - 1))
    if descending:
        lo, hi = ((1 << bits) - 1) ^ hi, ((1 << bits) - 1) ^ lo
    return lo, _part_digits((hi - lo).bit_length())


_kernels: dict = {}


def _kernel(what: str, dtype: np.dtype, payload: bool = False, kdt: np.dtype | None = None) -> ElementwiseKernel:
    """The kernel ``what`` for ``dtype`` (with an int64 ``payload``; ``kdt``: the key words'
    dtype of the host's kernels between elements and key words)."""
    name, preamble = _preamble(dtype)
    kdt = _key_dtype(dtype) if kdt is None else kdt
    key = (what, name, payload, kdt)
    k = _kernels.get(key)
    if k is None:
        if what == "rows":
            moves = ("ai[j] = bi[j];", "bi[p] = ai[j];", "ai[p] = bi[j];") if payload else ("", "", "")
            body = _ROW
            for mark, text in zip(("MOVE_BACK", "MOVE_AB", "MOVE_BA"), moves):
                body = body.replace(mark, text)
            k = ElementwiseKernel("int64 rows, int64 L, int64 S, bool desc, uint64 kmin",
                                  "raw T a, raw int64 ai, raw T b, raw int64 bi" if payload else "raw T a, raw T b",
                                  body, f"rk_radix_rows{'_kv' if payload else ''}_{name}", preamble=preamble,
                                  _heavy=True)
        elif what == "rows_host":
            marks = ("MOVE_BACK", "MOVE_AB", "MOVE_BA", "LOCALS", "LOAD", "MOVE_XY", "MOVE_YX", "STORE_X",
                     "STORE_Y")
            moves = ("ai[j] = bi[j];", "bi[p] = ai[j];", "ai[p] = bi[j];", "long xi[RCAP];\nlong yi[RCAP];",
                     "xi[j] = ai[lo + j];", "yi[p] = xi[j];", "xi[p] = yi[j];", "ai[lo + j] = xi[j];",
                     "ai[lo + j] = yi[j];") if payload else ("",) * 9
            # (the raw path written twice, the first for 1-D raw operands, as ``radix_sort``
            # passes them: there LLVM drops every access's layout check; each digit counted
            # by a line of its own)
            runs = "a.ndim == 1 && b.ndim == 1" + (" && ai.ndim == 1 && bi.ndim == 1" if payload else "")
            # (integers of more than a byte: ``nd`` digits sorted, those of the keys' range
            # less the smallest key; other keys: all, a number the loops are unrolled for)
            ranged = dtype.kind in "iu" and dtype.itemsize > 1
            count = "".join(("if (nd > {d}) " if ranged else "").format(d=d)
                            + f"h[{d * BINS} + (int)((k >> (KSH + {RADIX_BITS * d})) & RMASK)] += 1;\n    "
                            for d in range(key_digits(dtype)))
            body = _ROW_HOST.replace("RUNS", runs).replace("COUNT", count)
            if ranged:
                body = body.replace("d < ND;", "d < nd;")
            for mark, text in (_PACKED_MARKS if _packed(dtype) else _PAIRED_MARKS).items():
                body = body.replace(mark, text)
            for mark, text in zip(marks, moves):
                body = body.replace(mark, text)
            k = ElementwiseKernel("int64 rows, int64 L, int64 S, bool desc, uint64 kmin, int64 nd",
                                  "raw T a, raw int64 ai, raw T b, raw int64 bi" if payload else "raw T a, raw T b",
                                  body, f"rk_radix_rows_host{'_kv' if payload else ''}_{name}",
                                  preamble=preamble + _whole_key(dtype), _heavy=True)
        elif what in ("hist_host", "count_host"):
            values = what == "hist_host"
            outs = f"raw {kdt.name} kw, raw int64 counts, raw int64 spec" if values else "raw int64 counts"
            k = ElementwiseKernel(f"raw T a, {_GEOMETRY}, int64 d0", outs, _hist_host(dtype, values, kdt),
                                  f"rk_radix_{what}_{name}_{kdt.name}", preamble=preamble + _pass_key(dtype, values, kdt),
                                  _heavy=True)
        elif what == "scatter_host":
            moves = ("bi[p0] = ai[j];", "bi[p1] = ai[j + 1];") if payload else ("", "")
            runs = _runs(("a", "b"), dtype.itemsize) + " && " + _runs(
                ("cnt", "inc", "cn") + (("ai", "bi") if payload else ()), 8)
            body = _SCATTER_HOST.replace("MOVE0", moves[0]).replace("MOVE1", moves[1]).replace("RUNS", runs)
            body = body.replace("STORE0", "b[p0] = kk0;").replace("STORE1", "b[p1] = kk1;")
            ins = "raw T a, raw int64 ai, " if payload else "raw T a, "
            outs = "raw T b, raw int64 bi, raw int64 cn" if payload else "raw T b, raw int64 cn"
            k = ElementwiseKernel(f"{ins}raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d, int64 dn, int64 tsh",
                                  outs, body, f"rk_radix_scatter_host{'_kv' if payload else ''}_{name}",
                                  preamble=preamble + _pass_key(dtype, False), _heavy=True)
        elif what == "scatter_last_host":
            # (with a payload: over key words, which it does not write; else over the
            # elements, from their key words of ``kdt``)
            moves = ("bi[p0] = ai[j];", "bi[p1] = ai[j + 1];") if payload else ("", "")
            stores = ("", "") if payload else tuple(f"b[p{k}] = rk_unkey(kk{k}, desc, kmin);" for k in (0, 1))
            runs = _runs(("a",), kdt.itemsize) + " && " + _runs(("cnt", "inc") + (("ai", "bi") if payload else ()), 8)
            if not payload:
                runs += " && " + _runs(("b",), dtype.itemsize)
            body = _SCATTER_LAST_HOST.replace("RUNS", runs)
            for mark, text in zip(("MOVE0", "MOVE1", "STORE0", "STORE1"), moves + stores):
                body = body.replace(mark, text)
            ins = "raw T a, raw int64 ai, " if payload else f"raw {kdt.name} a, "
            outs = "raw int64 bi" if payload else "raw T b"
            k = ElementwiseKernel(f"{ins}raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d", outs, body,
                                  f"rk_radix_last_host{'_kv' if payload else ''}_{name}_{kdt.name}",
                                  preamble=preamble + _pass_key(dtype, not payload, kdt), _heavy=True)
        elif what == "hist":
            k = ElementwiseKernel(f"raw T a, {_GEOMETRY}, int64 d0, int64 nd",
                                  "raw int64 counts", _HIST, f"rk_radix_hist_{name}", preamble=preamble, _heavy=True)
        elif payload:
            body = _SCATTER.replace("MOVE", "bi[p] = ai[j];")
            k = ElementwiseKernel(f"raw T a, raw int64 ai, raw int64 cnt, raw int64 inc, {_GEOMETRY}, "
                                  "int64 d, int64 dn, int64 tsh", "raw T b, raw int64 bi, raw int64 cn", body,
                                  f"rk_radix_scatter_kv_{name}", preamble=preamble, _heavy=True)
        else:
            body = _SCATTER.replace("MOVE", "")
            k = ElementwiseKernel(f"raw T a, raw int64 cnt, raw int64 inc, {_GEOMETRY}, int64 d, int64 dn, "
                                  "int64 tsh", "raw T b, raw int64 cn", body, f"rk_radix_scatter_{name}", preamble=preamble, _heavy=True)
        k = _kernels.setdefault(key, k)
    return k


def _geometry(rows: int, L: int, device) -> tuple[int, int, int, int, int]:
    """(tiles per row, tile size, its log2 rounded up, index step ``S`` between items,
    items' launch size).  Host tiles are a power of two, at most ``HOST_TILES_PER_ROW`` a
    row (the scatter counts the next digit per destination tile: ``tsh`` finds it)."""
    if device.kind == "cpu":
        # (at most 2**30: a tile's counters are 32-bit)
        t = min(max(HOST_TILE, -(-L // HOST_TILES_PER_ROW)), 1 << 30)
        ts = min(L, 1 << (t - 1).bit_length())
    else:
        # a thread per tile: smaller tiles for fewer elements, so that a short sort
        # still has threads to run on
        t = -(-rows * L // GPU_THREADS)
        ts = min(L, GPU_TILE, max(GPU_TILE_MIN, 1 << max(0, (t - 1).bit_length())))
    tpr = -(-L // ts)
    return (tpr, ts, (ts - 1).bit_length()) + spread_items(rows * tpr, rows * L, device)


def _by_rows(rows: int, L: int, device) -> bool:
    """Whether one item per row sorts ``rows`` rows of ``L`` (else tiles of rows do)."""
    if device.kind == "cpu":
        return L <= HOST_TILE or (rows >= ROWS_MIN_HOST and L <= ROW_MAX_HOST)
    return rows >= ROWS_MIN_GPU and L <= GPU_TILE


def keeps_keys(rows: int, L: int, dtype: np.dtype, device, payload: bool = False) -> bool:
    """Whether ``radix_sort`` of ``rows`` rows of ``L`` (with a ``payload`` or not) leaves its
    keys unwritten (the sorted keys then come back in a new array, or the keys passed when
    all are equal)."""
    if device.kind != "cpu":
        return gpu_sortable(dtype, L)
    return (not payload and network_sorts(L, dtype, device)) or (dtype.kind != "c" and not _by_rows(rows, L, device))


def radix_sort(keys: Array, payload: Array | None = None, descending: bool = False, indices: bool = False):
    """Sort each row of the contiguous 2-D ``keys`` stably (and move the int64 ``payload``
    of its shape with it; on the GPU path also a uint32 one); returns ``(keys, payload)``,
    each the array passed or a new one of its shape: the payload sorted, the keys sorted
    when there is no payload (with one, the host's real keys are left unsorted: the
    callers want the order only).  ``indices`` (the GPU path only, no ``payload``): the
    payload is each key's place in its row, made by the sort (``gpu_radix_sort``)."""
    rows, L = keys.shape
    if keys.size == 0 or L < 2:
        return keys, payload
    shape, dtype, device = keys.shape, keys.dtype, keys.device
    # the kernels index flat (1-d) raw operands: an N-d one costs divisions per access
    keys = keys.reshape((-1,))
    payload = None if payload is None else payload.reshape((-1,))
    # GPUs: block-cooperative passes (``_radix_gpu``); complex keys stay on the kernels below
    if device.kind != "cpu" and gpu_sortable(dtype, L):
        out, payload = gpu_radix_sort(keys, rows, L, payload, descending,
                                      _FLOAT64_KEY if dtype.itemsize == 8 else _FLOAT32_KEY, indices)
        return _shaped(out, payload, shape)
    k = None if payload is not None else _network(L, dtype, device)
    if k is not None:
        # the host's short rows of 32- and 64-bit keys: a sorting network on vectors, into
        # a new array
        out = Array._empty(keys.shape, dtype, device)
        k.code.launch_entry(k, 0, network_host.packer(), rows, (keys.data_ptr, out.data_ptr, L, int(descending)),
                            rows, 1, rows * L)
        return _shaped(out, None, shape)
    nd, kmin = key_digits(dtype), 0
    if dtype.kind in "iu" and dtype.itemsize > 1:
        # the keys less the smallest: the digits above their range are zero, not counted
        kmin, nd = _key_range(keys, descending)
        if nd == 0:
            return _shaped(keys, payload, shape)  # all keys equal: in order already
    if _by_rows(rows, L, device):
        step, size = spread_items(rows, rows * L, device)
        # (the host's rows of real elements: local arrays up to ``RCAP``, no scratch rows)
        what = "rows_host" if device.kind == "cpu" and dtype.kind != "c" else "rows"
        scratch_shape = (1,) if what == "rows_host" and ROW_LOCAL_MIN <= L <= RCAP else keys.shape
        scratch = Array._empty(scratch_shape, dtype, device)
        digits = (nd,) if what == "rows_host" else ()
        if payload is None:
            _kernel(what, dtype)(rows, L, step, descending, kmin, *digits, keys, scratch, size=size)
        else:
            scratch_p = Array._empty(scratch_shape, payload.dtype, device)
            _kernel(what, dtype, True)(rows, L, step, descending, kmin, *digits, keys, payload, scratch, scratch_p,
                                       size=size)
        return _shaped(keys, payload, shape)
    tpr, ts, tsh, step, size = _geometry(rows, L, device)
    geometry = (rows, L, tpr, ts, step, descending, kmin)
    i64 = np.dtype(np.int64)
    span = rows * BINS * tpr
    # the host's real elements are sorted as key words (``_HIST_HOST``), their values made
    # back at the end; complex ones (and a GPU's) move as they are
    words = device.kind == "cpu" and dtype.kind != "c"
    if words:
        # one read writes the key words and counts digit 0; a digit every key shares moves
        # nothing (no pass): its bits are the same in the tiles' OR and AND
        kdt = _key_dtype(dtype, nd)
        src = Array._empty(keys.shape, kdt, device)
        counts = Array._empty((span,), i64, device)
        tiles = Array._empty((3 * rows * tpr,), i64, device)
        _kernel("hist_host", dtype, kdt=kdt)(keys, *geometry, 0, src, counts, tiles, size=size)
        special, ors, ands = tiles.get().view(np.uint64).reshape((3, -1))
        varied = int(np.bitwise_or.reduce(ors) ^ np.bitwise_and.reduce(ands))
        passes = [d for d in range(nd) if (varied >> (RADIX_BITS * d)) & (BINS - 1)]
        hist = _kernel("count_host", kdt)
        if passes and passes[0]:
            hist(src, *geometry, passes[0], counts, size=size)
        cnt = counts
    else:
        kdt, src = dtype, keys
        counts = Array._empty((nd * span,), i64, device)
        hist = _kernel("hist", dtype)
        hist(keys, *geometry, 0, nd, counts, size=size)
        totals = _sum(counts.reshape((nd, rows, BINS, tpr)), axis=(1, 3)).get()
        passes = [d for d in range(nd) if totals[d].max() < keys.size]  # others move nothing
        cnt = counts[passes[0] * span:(passes[0] + 1) * span] if passes else None
    if not passes:
        return _shaped(keys, payload, shape)
    gather = words and payload is None and dtype.kind == "f" and int(special.sum()) > 0
    if gather:
        # -0.0 or NaNs whose bits their keys do not give back: the elements' indices move
        # with the keys, and the values are gathered by them
        payload = contiguous(broadcast_to(arange(L, dtype=i64, device=device), (rows, L))).reshape((-1,))
    # on the host each pass also counts the next pass's digits (by source and destination
    # tile) while it moves the elements, where those counters are few beside the data;
    # elsewhere a pass counts its digits first
    per_tile = BINS * tpr  # the next digit's counters of one source tile: per destination tile
    fused = device.kind == "cpu" and span * tpr * FUSED_COUNTERS_RATIO <= keys.size
    scatter = _kernel("scatter_host" if words else "scatter", kdt, payload is not None)
    src_p = payload
    dst = Array._empty(keys.shape, kdt, device)
    dst_p = None if payload is None else Array._empty(keys.shape, payload.dtype, device)
    nxt = Array._empty((span * tpr,) if fused else (1,), i64, device)
    for n, d in enumerate(passes):
        if n and not fused:
            cnt = Array._empty((span,), i64, device)
            hist(src, *geometry, *((d,) if words else (d, 1)), cnt, size=size)
        dn = passes[n + 1] if fused and n + 1 < len(passes) else -1
        inc = cumulative_sum(cnt.reshape((rows, BINS * tpr)), axis=1).reshape((-1,))
        if words and n + 1 == len(passes):
            # the last pass writes the values (or, with a payload, only the payload)
            if payload is None:
                out = Array._empty(keys.shape, dtype, device)
                _kernel("scatter_last_host", dtype, False, kdt)(src, cnt, inc, *geometry, d, out, size=size)
            else:
                _kernel("scatter_last_host", kdt, True)(src, src_p, cnt, inc, *geometry, d, dst_p, size=size)
                src_p = dst_p
            break
        ins = (src, cnt, inc) if payload is None else (src, src_p, cnt, inc)
        outs = (dst,) if payload is None else (dst, dst_p)
        scatter(*ins, *geometry, d, dn, tsh, *outs, nxt, size=size)
        if dn >= 0:
            cnt = _sum(nxt.reshape((rows, tpr, per_tile)), axis=1).reshape((-1,))
        src, dst, src_p, dst_p = dst, src, dst_p, src_p
    if not words:
        return _shaped(src, src_p, shape)
    if gather:
        return _shaped(take_along(keys.reshape((rows, L)), src_p.reshape((rows, L)), 1), None, shape)
    return _shaped(out if payload is None else keys, src_p, shape)


def network_sorts(L: int, dtype: np.dtype, device) -> bool:
    """Whether rows of ``L`` elements of ``dtype`` (no payload) are sorted by the host's
    sorting network (which writes a new array).  Its module is compiled on the background
    worker at the first ask; until it is loaded the radix sort serves those rows (whose
    kernels start on the quick tiers: a first call stays short)."""
    return _network(L, dtype, device) is not None


def _network(L: int, dtype: np.dtype, device):
    """The host's sorting network for rows of ``L`` elements of ``dtype``, loaded; None for
    other rows, and while it compiles (``full_module_when_ready``)."""
    kind = f"{dtype.kind}{dtype.itemsize}"
    if device.kind != "cpu" or L > network_host.ROW_MAX or kind not in network_host.KINDS:
        return None
    return full_module_when_ready(("network-host", network_host.VERSION, kind), device, lambda: (
        f"network_{kind}", lambda m, t, e: network_host.build_network_module(m, t, e, kind), network_host.packer(),
        ()))


def _shaped(keys: Array, payload: Array | None, shape: tuple):
    return keys.reshape(shape), None if payload is None else payload.reshape(shape)
