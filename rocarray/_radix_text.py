"""The kernel-language texts of the radix sort's kernels (rocarray/_radix.py): key
transforms, the passes' and the row kernels' bodies, and the preambles made from them for a
dtype; the digit and row constants those texts are written for."""

from __future__ import annotations

import numpy as np

#: bits of one digit: a pass per digit, ``BINS`` counters per tile
RADIX_BITS = 8
BINS = 1 << RADIX_BITS
#: tiles a row is cut into at most, on the host (the passes' next-digit counters are per
#: destination tile)
HOST_TILES_PER_ROW = 16
#: the host sorts a row in the item's local arrays (``_ROW_LOCAL``) for rows of
#: ``ROW_LOCAL_MIN`` to ``RCAP`` elements (the arrays are zeroed per item: shorter rows
#: take ``_ROW``)
RCAP = 1024
ROW_LOCAL_MIN = 256

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
long t = i;
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
# The host's long lines after one pass by their most significant varied digit (the MSD
# pass): each item sorts its group of buckets (``bounds``: a bucket's [lo, hi) in the
# line, ``gs``: where each group's buckets start), a bucket by the ``dt`` digits below that
# one -- all their counts in one read, then a pass per digit the bucket does not share,
# between the keys ``a`` and the scratch ``b``, the last writing the values made back
# from the keys into ``o``.  A bucket holds a fraction of the line, so its passes count
# nothing for other items (the LSD passes' next-digit counting) and mostly stay in cache.
def _bucket_pass(src: str, store: str, sh: str, digit: str) -> str:
    """A bucket pass's loop, two elements a trip: each key word ``k@`` of ``src`` goes to
    the next place ``p@`` of its digit ``digit`` (``store``: the write there)."""
    def step(sfx: str, at: str) -> str:
        return (f"\n            KW k{sfx} = {src}[j{at}];\n"
                f"            int q{sfx} = {digit} * nb + (int)((k{sfx} >> {sh}) & (nb - 1));\n"
                f"            int p{sfx} = h[q{sfx}];\n            h[q{sfx}] = p{sfx} + 1;\n"
                f"            {store.replace('@', sfx)}")
    return ("\n        long j = lo;\n        for (; j + 1 < hi; j += 2) {" + step("0", "") + step("1", " + 1")
            + "\n        }\n        if (j < hi) {" + step("0", "") + "\n        }")


# A bucket's digits are ``RB`` bits wide, or ``WIDE`` for a bucket of ``WMIN`` to
# ``SMALL`` elements when that makes fewer passes (``BUCKET_SMALL``).  A bucket at either
# end of its line may hold the NaN key, whose value takes a select (``rk_unkey``); the
# others take ``rk_unkey_inner``.
_COUNT_LOOP = """
    for (long j = lo; j < hi; j++) {
        KW k = a[j];
        COUNT
    }
"""
_BUCKET = """
long n = hi - lo;
int w = n >= WMIN && n <= SMALL && (RB * dt + WIDE - 1) / WIDE < dt ? WIDE : RB;
int nb = 1 << w;
int np = (int)((RB * dt + w - 1) / w);
for (int g = 0; g < np * nb; g++) h[g] = 0;
if (w == RB) {
    if (np == NARROW_LINES) {""" + _COUNT_LOOP.replace("COUNT", "NARROW_COUNT") + """} else {""" + \
    _COUNT_LOOP.replace("COUNT", "NARROW_GUARDED") + """}
} else if (np == WIDE_LINES) {""" + _COUNT_LOOP.replace("COUNT", "WIDE_COUNT") + """} else {""" + \
    _COUNT_LOOP.replace("COUNT", "WIDE_GUARDED") + """}
bool shared[MAXP];
int last = -1;
for (int d = 0; d < np; d++) {
    int run = 0;
    shared[d] = false;
    for (int g = 0; g < nb; g++) {
        int c = h[d * nb + g];
        if (c == n) shared[d] = true;
        h[d * nb + g] = run;
        run += c;
    }
    if (!shared[d]) last = d;
}
bool in_a = true;
for (int d = 0; d < last; d++) {
    if (shared[d]) continue;
    int sh = (w * d) & (KWBITS - 1);
    if (in_a) {""" + _bucket_pass("a", "b[lo + p@] = k@;", "sh", "d") + """
    } else {""" + _bucket_pass("b", "a[lo + p@] = k@;", "sh", "d") + """
    }
    in_a = !in_a;
}
int shl = (w * max(last, 0)) & (KWBITS - 1);
bool edge = lo % L == 0 || hi % L == 0;
if (last < 0) {
    for (long j = lo; j < hi; j++) o[j] = rk_unkey(in_a ? a[j] : b[j], desc, kmin);
} else if (edge) {
    if (in_a) {""" + _bucket_pass("a", "o[lo + p@] = rk_unkey(k@, desc, kmin);", "shl", "last") + """
    } else {""" + _bucket_pass("b", "o[lo + p@] = rk_unkey(k@, desc, kmin);", "shl", "last") + """
    }
} else if (in_a) {""" + _bucket_pass("a", "o[lo + p@] = rk_unkey_inner(k@, desc, kmin);", "shl", "last") + """
} else {""" + _bucket_pass("b", "o[lo + p@] = rk_unkey_inner(k@, desc, kmin);", "shl", "last") + """
}
"""
_BUCKETS_HOST = """
long t = i;
if (t >= groups) return;
int h[HMAX];
for (long s = gs[t]; s < gs[t + 1]; s++) {
    long lo = bounds[2 * s];
    long hi = bounds[2 * s + 1];
    if (RUNS) {""" + _BUCKET + "} else {" + _BUCKET + """}
}
"""
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
long r = i;
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
long r = i;
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
__device__ T rk_unkey_inner(KW k, bool desc, unsigned long long kmin) {
    unsigned long long w = ((unsigned long long)k MORE) ^ (desc ? WMASK : 0ull);
    return INNER;
}
"""
_FLOAT32_VALUE = """
__device__ float rk_fvalue(unsigned long long w) {
    unsigned int k = (unsigned int)w;
    unsigned int b = k ^ (~(unsigned int)((int)k >> 31) | 0x80000000u);
    return __uint_as_float(k == 0xFFFFFFFFu ? 0x7FC00000u : b);
}
__device__ float rk_fplain(unsigned long long w) {
    unsigned int k = (unsigned int)w;
    return __uint_as_float(k ^ (~(unsigned int)((int)k >> 31) | 0x80000000u));
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
__device__ double rk_fplain(unsigned long long k) {
    return __longlong_as_double((long long)(k ^ (~(unsigned long long)((long long)k >> 63) | 0x8000000000000000ull)));
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
        value, inner = "(T)rk_fvalue(w)", "(T)rk_fplain(w)"
    elif dtype.kind == "i":
        value = inner = f"(T)(long long)(w - (1ull << {bits - 1}))"
    else:
        value = inner = "(T)w"
    more = "+ kmin" if dtype.kind in "iu" and dtype.itemsize > 1 else ""
    unkey = _UNKEY.replace("MORE", more).replace("WMASK", mask).replace("VALUE", value).replace("INNER", inner)
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


_GEOMETRY = "int64 rows, int64 L, int64 tpr, int64 ts, bool desc, uint64 kmin"


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
