"""The kernels of rocarray.random: Philox4x32-10 and the distributions, as kernel-language
text compiled through ``ElementwiseKernel`` for every device.

Every kernel takes the key ``(k0, k1)`` and the first block's counter ``(c0, c1, c2, c3)``
as scalar arguments (packed in three 64-bit scalars), so one kernel per (distribution,
dtype) serves every seed, size and stream position.  Element ``i`` of a kernel's loop
computes the block whose counter is ``counter + i`` (a 128-bit little-endian sum):

* *blocked* kernels (raw words, uniforms, normals, exponentials, integers) write each of a
  block's outputs to a separate contiguous quarter (or half) of the result, so every store
  is contiguous and vectorises on the host and coalesces on GPUs; the raw stream writes the
  four words of a block side by side (Random123's order);
* *per-element* kernels (gamma, Poisson, binomial, von Mises, Zipf, hypergeometric:
  rejection and search samplers) use one block per
  attempt for output ``i``; attempt ``t > 0`` uses the same counter under the key
  ``(k0 ^ t * 0x85EBCA6B, k1 ^ t * 0xC2B2AE35)``, so a retry never consumes counters.
  Unbiased integers redraw the same way.

The blocked kernels use integer arithmetic and IEEE operations written out one by one
(``fma``, ``__fmul_rn``, ...; ``log`` and the sine and cosine of a turn are polynomials
of their own, ``rk_log`` and ``rk_sincos_turn``), so their bits are the same on every
device; the per-element samplers call the device's ``log``, ``exp``, ``pow``, ``lgamma``
and may differ by a few ulps between devices.
"""

from __future__ import annotations

import struct
import threading

import numpy as np

from .._array_object import Array
from .._buffer import Buffer
from .._params import SCALAR_CONVERTERS, _scalar_code
from .._tiers import stride_grid
from .._user_kernels import ElementwiseKernel

#: The scalar parameters every kernel starts with: the key (k1 << 32 | k0) and the first
#: counter's low and high 64 bits (few scalars: each costs host time per call).
STREAM_PARAMS = "uint64 key, uint64 clo, uint64 chi"

#: Philox4x32-10 and the helpers every kernel shares (Salmon et al., SC'11).
PREAMBLE = r"""
__device__ void philox_round(unsigned int& x0, unsigned int& x1, unsigned int& x2,
                             unsigned int& x3, unsigned int a, unsigned int b) {
    // high halves by __umulhi, low halves by a wrapping multiply: mul.hi.u32 and
    // mul.lo.u32 on GPUs (a 64-bit product there is several instructions)
    unsigned int y0 = __umulhi(0xCD9E8D57u, x2) ^ x1 ^ a;
    unsigned int y2 = __umulhi(0xD2511F53u, x0) ^ x3 ^ b;
    x1 = 0xCD9E8D57u * x2;
    x3 = 0xD2511F53u * x0;
    x0 = y0;
    x2 = y2;
}

// The ten rounds written out: the host pipeline does not unroll loops, and an unrolled
// body lets the element loop vectorise.
__device__ void philox10(unsigned int& x0, unsigned int& x1, unsigned int& x2,
                         unsigned int& x3, unsigned int a, unsigned int b) {
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b); a += 0x9E3779B9u; b += 0xBB67AE85u;
    philox_round(x0, x1, x2, x3, a, b);
}

// The block at counter (chi:clo) + off under the key of attempt t (t = 0: the key itself).
__device__ void philox_block(unsigned long long clo, unsigned long long chi, unsigned long long off,
                             unsigned long long key, unsigned int t, unsigned int& x0,
                             unsigned int& x1, unsigned int& x2, unsigned int& x3) {
    unsigned long long lo = clo + off;
    unsigned long long hi = chi + (lo < off ? 1ull : 0ull);
    x0 = (unsigned int)lo;
    x1 = (unsigned int)(lo >> 32);
    x2 = (unsigned int)hi;
    x3 = (unsigned int)(hi >> 32);
    philox10(x0, x1, x2, x3, (unsigned int)key ^ (t * 0x85EBCA6Bu),
             (unsigned int)(key >> 32) ^ (t * 0xC2B2AE35u));
}

// Uniform floats: exact products of integers by powers of two, the same bits everywhere.
__device__ float u24(unsigned int w) { return (float)(w >> 8) * 5.9604644775390625e-08f; }
__device__ float u24_open(unsigned int w) { return (float)((w >> 8) + 1u) * 5.9604644775390625e-08f; }
__device__ double u53(unsigned int a, unsigned int b) {
    return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16;
}
__device__ double u53_open(unsigned int a, unsigned int b) {
    return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6) + 1.0) * 1.1102230246251565e-16;
}
__device__ double u32_mid(unsigned int w) { return ((double)w + 0.5) * 2.3283064365386963e-10; }

// log, and sin and cos of a turn, for the Box-Muller and inversion samplers: polynomials with
// every operation written out (fma, __dmul_rn, ...), so that no target contracts or reorders
// them -- the same bits on every device -- and without calls, so that the host loop
// vectorises.  Accuracy: a few ulps (tests/test_random.py checks them against NumPy).

// log(u) for normal u > 0: u = 2^e m, m in [sqrt(1/2), sqrt(2)) (found on the bits as in
// rk_logf), log m = 2 atanh(s)
// with s = (m - 1) / (m + 1) (|s| < 0.172), as 2s + s z R(z), z = s^2; e log 2 in two parts.
__device__ double rk_log(double u) {
    long long b = __double_as_longlong(u) - 0x3FE6A09E667F3BCDll;
    double de = (double)(b >> 52);
    double m = __longlong_as_double((b & 0x000FFFFFFFFFFFFFll) + 0x3FE6A09E667F3BCDll);
    double sv = __ddiv_rn(__dsub_rn(m, 1.0), __dadd_rn(m, 1.0));
    double z = __dmul_rn(sv, sv);
    double r = 0.08695652173913043;
    r = fma(r, z, 0.09523809523809523);
    r = fma(r, z, 0.10526315789473684);
    r = fma(r, z, 0.11764705882352941);
    r = fma(r, z, 0.13333333333333333);
    r = fma(r, z, 0.15384615384615385);
    r = fma(r, z, 0.18181818181818182);
    r = fma(r, z, 0.2222222222222222);
    r = fma(r, z, 0.2857142857142857);
    r = fma(r, z, 0.4);
    r = fma(r, z, 0.6666666666666666);
    double t = fma(de, 2.7897668087737545e-08, __dmul_rn(sv, __dmul_rn(z, r)));
    return fma(de, 0.6931471526622772, __dadd_rn(__dadd_rn(sv, sv), t));
}

// log(u) for normal float u > 0 without a division: u = 2^e m with m in [sqrt(1/2), sqrt(2))
// found on the bits (subtracting sqrt(1/2)'s bits splits them at the right place, no
// compare), log m = log1p(f), f = m - 1, as f - f^2/2 + f^3 P(f) (P fitted for relative error
// in float arithmetic: about one ulp); e log 2 in two parts.
__device__ float rk_logf(float u) {
    int b = __float_as_int(u) - 0x3F3504F3;
    float de = (float)(b >> 23);
    float f = __fsub_rn(__int_as_float((b & 0x007FFFFF) + 0x3F3504F3), 1.0f);
    float f2 = __fmul_rn(f, f);
    float p = 0.08506954f;
    p = fmaf(p, f, -0.14197472f);
    p = fmaf(p, f, 0.14950979f);
    p = fmaf(p, f, -0.16587949f);
    p = fmaf(p, f, 0.19960597f);
    p = fmaf(p, f, -0.25000969f);
    p = fmaf(p, f, 0.33333972f);
    float t = fmaf(__fmul_rn(f2, f), p, __fmul_rn(-0.5f, f2));
    t = fmaf(de, 3.1946183e-05f, t);
    return fmaf(de, 0.69311523f, __fadd_rn(f, t));
}

// sin and cos of a turn, 2 pi k / 2^B for the integer k in [0, 2^B): the quadrant j (k / 2^(B-2)
// rounded, 0..4) and the rest r = k / 2^(B-2) - j in [-1/2, 1/2] found on the integer, then
// sin and cos of (pi/2) r by their series (|(pi/2) r| <= pi/4), and the quadrant's signs and
// swap on the bits (no compare of floats, no float-to-integer conversion).
__device__ void rk_sincos_turn(unsigned long long k, double& sn, double& cs) {
    unsigned long long j = (k + (1ull << 50)) >> 51;
    double r = (double)(long long)(k - (j << 51)) * 4.440892098500626e-16;
    double x = __dmul_rn(r, r);
    double ps = 6.0669357311061955e-12;
    ps = fma(ps, x, -6.688035109811468e-10);
    ps = fma(ps, x, 5.692172921967927e-08);
    ps = fma(ps, x, -3.598843235212085e-06);
    ps = fma(ps, x, 0.00016044118478735983);
    ps = fma(ps, x, -0.004681754135318688);
    ps = fma(ps, x, 0.07969262624616705);
    ps = fma(ps, x, -0.6459640975062463);
    ps = fma(ps, x, 1.5707963267948966);
    double sr = __dmul_rn(r, ps);
    double pc = -5.294400200734623e-13;
    pc = fma(pc, x, 6.565963114979473e-11);
    pc = fma(pc, x, -6.386603083791852e-09);
    pc = fma(pc, x, 4.710874778818172e-07);
    pc = fma(pc, x, -2.5202042373060607e-05);
    pc = fma(pc, x, 0.0009192602748394266);
    pc = fma(pc, x, -0.02086348076335296);
    pc = fma(pc, x, 0.25366950790104803);
    pc = fma(pc, x, -1.2337005501361697);
    double cr = fma(pc, x, 1.0);
    bool odd = (j & 1ull) != 0ull;
    sn = __longlong_as_double(__double_as_longlong(odd ? cr : sr) ^ (long long)((j & 2ull) << 62));
    cs = __longlong_as_double(__double_as_longlong(odd ? sr : cr) ^ (long long)(((j + 1ull) & 2ull) << 62));
}

// The same for a float and 2^B = 2^24 (k: a word's high 24 bits).
__device__ void rk_sincos_turnf(unsigned int k, float& sn, float& cs) {
    unsigned int j = (k + (1u << 21)) >> 22;
    float r = (float)(int)(k - (j << 22)) * 2.384185791015625e-07f;
    float x = __fmul_rn(r, r);
    float ps = 0.00016044118f;
    ps = fmaf(ps, x, -0.0046817539f);
    ps = fmaf(ps, x, 0.079692625f);
    ps = fmaf(ps, x, -0.64596409f);
    ps = fmaf(ps, x, 1.5707964f);
    float sr = __fmul_rn(r, ps);
    float pc = -2.5202042e-05f;
    pc = fmaf(pc, x, 0.00091926026f);
    pc = fmaf(pc, x, -0.020863481f);
    pc = fmaf(pc, x, 0.25366950f);
    pc = fmaf(pc, x, -1.2337005f);
    float cr = fmaf(pc, x, 1.0f);
    bool odd = (j & 1u) != 0u;
    sn = __int_as_float(__float_as_int(odd ? cr : sr) ^ (int)((j & 2u) << 30));
    cs = __int_as_float(__float_as_int(odd ? sr : cr) ^ (int)(((j + 1u) & 2u) << 30));
}
"""

_BLOCK = r"""
unsigned int x0, x1, x2, x3;
philox_block(clo, chi, (unsigned long long)i, key, 0u, x0, x1, x2, x3);
"""

#: The raw stream: four words of a block side by side (outputs are strided views).
RAW = ("", "uint32 o0, uint32 o1, uint32 o2, uint32 o3",
       _BLOCK + "o0 = x0; o1 = x1; o2 = x2; o3 = x3;")

#: Uniform [lo, lo + scale): float32, four per block; float64 (53 bits), two per block.
UNIFORM = {
    "float32": (", float32 lo, float32 scale", "float32 o0, float32 o1, float32 o2, float32 o3",
                _BLOCK + "o0 = __fadd_rn(__fmul_rn(u24(x0), scale), lo);"
                " o1 = __fadd_rn(__fmul_rn(u24(x1), scale), lo);"
                " o2 = __fadd_rn(__fmul_rn(u24(x2), scale), lo);"
                " o3 = __fadd_rn(__fmul_rn(u24(x3), scale), lo);"),
    "float64": (", float64 lo, float64 scale", "float64 o0, float64 o1",
                _BLOCK + "o0 = __dadd_rn(__dmul_rn(u53(x0, x1), scale), lo);"
                " o1 = __dadd_rn(__dmul_rn(u53(x2, x3), scale), lo);"),
}

#: Normal(loc, scale) by Box and Muller: two uniforms give two values.
NORMAL = {
    "float32": (", float32 loc, float32 scale", "float32 o0, float32 o1, float32 o2, float32 o3",
                _BLOCK + r"""
float r0 = __fmul_rn(__fsqrt_rn(__fmul_rn(-2.0f, rk_logf(u24_open(x0)))), scale);
float r1 = __fmul_rn(__fsqrt_rn(__fmul_rn(-2.0f, rk_logf(u24_open(x2)))), scale);
float s0, k0, s1, k1;
rk_sincos_turnf(x1 >> 8, s0, k0);
rk_sincos_turnf(x3 >> 8, s1, k1);
o0 = fmaf(r0, k0, loc);
o1 = fmaf(r0, s0, loc);
o2 = fmaf(r1, k1, loc);
o3 = fmaf(r1, s1, loc);
"""),
    "float64": (", float64 loc, float64 scale", "float64 o0, float64 o1", _BLOCK + r"""
double r = __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, rk_log(u53_open(x0, x1)))), scale);
double sn, cs;
rk_sincos_turn(((unsigned long long)(x2 >> 5) << 26) | (unsigned long long)(x3 >> 6), sn, cs);
o0 = fma(r, cs, loc);
o1 = fma(r, sn, loc);
"""),
}

#: Exponential(scale) by inversion: -log(u) for u in (0, 1].
EXPONENTIAL = {
    "float32": (", float32 scale", "float32 o0, float32 o1, float32 o2, float32 o3",
                _BLOCK + "o0 = __fmul_rn(-rk_logf(u24_open(x0)), scale);"
                " o1 = __fmul_rn(-rk_logf(u24_open(x1)), scale);"
                " o2 = __fmul_rn(-rk_logf(u24_open(x2)), scale);"
                " o3 = __fmul_rn(-rk_logf(u24_open(x3)), scale);"),
    "float64": (", float64 scale", "float64 o0, float64 o1",
                _BLOCK + "o0 = __dmul_rn(-rk_log(u53_open(x0, x1)), scale);"
                " o1 = __dmul_rn(-rk_log(u53_open(x2, x3)), scale);"),
}

# Integers in [lo, lo + n) by Lemire's multiply-and-reject (unbiased), in two passes so
# that the common path has no loop and vectorises: ``integers`` (n <= 2^32: one word per
# value) and ``integers_wide`` (n > 2^32: a word of block i and one of block i + size per
# value; n = 0 stands for 2^64) take the high half of x * n and flag a block when a value's low half falls below
# ``th = 2^w mod n`` (the rejection zone; probability below n / 2^w); ``integers_fix``
# then redraws the values of the flagged blocks only, under the keys of later attempts.
INTEGERS = (", uint64 lo, uint64 n, uint32 th", "T o0, T o1, T o2, T o3, uint8 bad", _BLOCK + r"""
unsigned long long m0 = (unsigned long long)x0 * n, m1 = (unsigned long long)x1 * n;
unsigned long long m2 = (unsigned long long)x2 * n, m3 = (unsigned long long)x3 * n;
o0 = (T)(lo + (m0 >> 32)); o1 = (T)(lo + (m1 >> 32)); o2 = (T)(lo + (m2 >> 32)); o3 = (T)(lo + (m3 >> 32));
bad = (unsigned int)m0 < th || (unsigned int)m1 < th || (unsigned int)m2 < th || (unsigned int)m3 < th;
""")

_WIDE_WORD = "unsigned long long wJ = ((unsigned long long)xJ << 32) | zJ, lJ = wJ * n;\n" \
             "oJ = (T)(lo + (n == 0ull ? wJ : __umul64hi(wJ, n)));\n"
INTEGERS_WIDE = (", uint64 lo, uint64 n, uint64 th", "T o0, T o1, T o2, T o3, uint8 bad", _BLOCK + r"""
unsigned int z0, z1, z2, z3;
philox_block(clo, chi, (unsigned long long)i + (unsigned long long)_ind.size(), key, 0u,
             z0, z1, z2, z3);
""" + "".join(_WIDE_WORD.replace("J", str(j)) for j in range(4)) + """
bad = l0 < th || l1 < th || l2 < th || l3 < th;
""")

_FIX_WORD = r"""
{
    unsigned long long x = wide == 0 ? (unsigned long long)xJ : (((unsigned long long)xJ << 32) | zJ);
    unsigned long long l = wide == 0 ? (x * n) & 0xFFFFFFFFull : x * n;
    unsigned int t = 0u;
    while (l < th) {
        t += 1u;
        unsigned int y0, y1, y2, y3, v0, v1, v2, v3;
        philox_block(clo, chi, (unsigned long long)i, key, t, y0, y1, y2, y3);
        if (wide == 0) {
            x = yJ;
            l = (x * n) & 0xFFFFFFFFull;
        } else {
            philox_block(clo, chi, (unsigned long long)i + (unsigned long long)_ind.size(), key, t,
                         v0, v1, v2, v3);
            x = ((unsigned long long)yJ << 32) | vJ;
            l = x * n;
        }
    }
    oJ = t != 0u ? (T)(lo + (wide == 0 ? (x * n) >> 32 : __umul64hi(x, n))) : oJ;
}
"""
INTEGERS_FIX = (", uint64 lo, uint64 n, uint64 th, int32 wide, uint8 bad", "T o0, T o1, T o2, T o3",
                r"""
if (bad == 0) return;
""" + _BLOCK + r"""
unsigned int z0 = 0u, z1 = 0u, z2 = 0u, z3 = 0u;
if (wide != 0) {
    philox_block(clo, chi, (unsigned long long)i + (unsigned long long)_ind.size(), key, 0u,
                 z0, z1, z2, z3);
}
""" + "".join(_FIX_WORD.replace("J", str(j)) for j in range(4)))

# GPUs take the same values in one pass (``integers_one``, ``integers_wide_one``): a block
# with a value in the rejection zone redraws it at once, as ``integers_fix`` would (same
# attempts, same keys), so there are no flags to write, reduce and read back and no second
# pass over the result -- a rare branch the wave's other lanes wait out.  The host keeps the
# two passes: a loop in the body stops its element loop from vectorising.
def _one_pass(kernel: tuple, wide: int) -> tuple:
    extra, outs, body = kernel
    main, flag = body.split("bad = ")
    redraw = _FIX_WORD.replace("wide == 0", "true" if wide == 0 else "false")
    return (extra, outs.replace(", uint8 bad", ""),
            main + "if (" + flag.strip().rstrip(";") + ") {\n"
            + ("unsigned int z0 = 0u, z1 = 0u, z2 = 0u, z3 = 0u;\n" if wide == 0 else "")
            + "".join(redraw.replace("J", str(j)) for j in range(4)) + "}\n")


INTEGERS_ONE = _one_pass(INTEGERS, 0)
INTEGERS_WIDE_ONE = _one_pass(INTEGERS_WIDE, 1)

# Marsaglia and Tsang's gamma sampler (shape >= 1; shape < 1 boosted by u^(1/shape)),
# computed in double for both float dtypes.  One block per attempt: a normal from
# (x0, x1, x2) by Box and Muller, the acceptance uniform from x3; the kernels' own log
# and cosine (rk_log, rk_sincos_turn), without calls.
GAMMA = (", T shape, T scale", "T o", r"""
double a = (double)shape;
if (a <= 0.0) { o = (T)0; return; }
bool small = a < 1.0;
double d = (small ? a + 1.0 : a) - 1.0 / 3.0;
double c = 1.0 / sqrt(9.0 * d);
unsigned int t = 0u;
double g;
while (true) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
    t += 1u;
    double sn, cs;
    rk_sincos_turn((((unsigned long long)x2 << 1) | 1ull) << 20, sn, cs);
    double z = sqrt(-2.0 * rk_log(u53_open(x0, x1))) * cs;
    double v = 1.0 + c * z;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = u32_mid(x3);
    if (u < 1.0 - 0.0331 * (z * z) * (z * z) || rk_log(u) < 0.5 * z * z + d * (1.0 - v + rk_log(v))) {
        g = d * v;
        break;
    }
}
if (small) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
    g = g * pow(u53_open(x0, x1), 1.0 / a);
}
o = (T)(g * (double)scale);
""")

# Poisson: inversion by sequential search below lam = 10, Hörmann's PTRS (transformed
# rejection with squeeze, 1993) above.
POISSON = (", float64 lam", "int64 o", r"""
if (lam <= 0.0) { o = 0; return; }
unsigned int t = 0u;
if (lam < 10.0) {
    // inversion: the first k whose cumulative probability reaches one uniform (a new
    // uniform in the 2^-53-rare case that rounding leaves the sum short of it)
    double p0 = exp(-lam);
    while (true) {
        unsigned int x0, x1, x2, x3;
        philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
        t += 1u;
        double u = u53(x0, x1);
        double p = p0;
        double f = p0;
        long long k = 0;
        while (u > f && p > 0.0) {
            k += 1;
            p = p * lam / (double)k;
            f += p;
        }
        if (u <= f) { o = k; return; }
    }
}
double slam = sqrt(lam);
double loglam = log(lam);
double b = 0.931 + 2.53 * slam;
double a = -0.059 + 0.02483 * b;
double invalpha = 1.1239 + 1.1328 / (b - 3.4);
double vr = 0.9277 - 3.6224 / (b - 2.0);
while (true) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
    t += 1u;
    double u = u53(x0, x1) - 0.5;
    double v = u53_open(x2, x3);
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) { o = (long long)k; return; }
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (rk_log(v) + log(invalpha) - rk_log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1.0)) {
        o = (long long)k;
        return;
    }
}
""")

# Binomial: inversion below n*min(p, 1-p) = 10, Hörmann's BTRS above (p > 1/2 by symmetry).
BINOMIAL = (", int64 n, float64 p", "int64 o", r"""
if (n <= 0 || p <= 0.0) { o = 0; return; }
if (p >= 1.0) { o = n; return; }
bool flip = p > 0.5;
double pp = flip ? 1.0 - p : p;
double q = 1.0 - pp;
double dn = (double)n;
unsigned int t = 0u;
long long k = 0;
if (dn * pp < 10.0) {
    double s = pp / q;
    double aa = (dn + 1.0) * s;
    double r0 = pow(q, dn);
    while (true) {
        unsigned int x0, x1, x2, x3;
        philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
        t += 1u;
        double u = u53(x0, x1);
        double r = r0;
        k = 0;
        while (u > r && k <= n) {
            u -= r;
            k += 1;
            r *= aa / (double)k - s;
        }
        if (k <= n) break;
    }
} else {
    double spq = sqrt(dn * pp * q);
    double b = 1.15 + 2.53 * spq;
    double a = -0.0873 + 0.0248 * b + 0.01 * pp;
    double c = dn * pp + 0.5;
    double vr = 0.92 - 4.2 / b;
    double alpha = (2.83 + 5.1 / b) * spq;
    double lpq = log(pp / q);
    double m = floor((dn + 1.0) * pp);
    double h = lgamma(m + 1.0) + lgamma(dn - m + 1.0);
    while (true) {
        unsigned int x0, x1, x2, x3;
        philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
        t += 1u;
        double u = u53(x0, x1) - 0.5;
        double v = u53_open(x2, x3);
        double us = 0.5 - fabs(u);
        double kk = floor((2.0 * a / us + b) * u + c);
        if (kk < 0.0 || kk > dn) continue;
        if (us >= 0.07 && v <= vr) { k = (long long)kk; break; }
        double lv = rk_log(v * alpha / (a / (us * us) + b));
        if (lv <= h - lgamma(kk + 1.0) - lgamma(dn - kk + 1.0) + (kk - m) * lpq) {
            k = (long long)kk;
            break;
        }
    }
}
o = flip ? n - k : k;
""")

#: Uniform floats in the open interval (0, 1): ``(k + 1/2) 2^-52`` for a 52-bit integer k
#: (exact, so never 0 or 1), two per block; the inversion samplers (Gumbel, logistic,
#: Laplace, Cauchy, ...) take logarithms and tangents of it and of ``1 - u``.
UNIFORM_OPEN = {
    "float64": ("", "float64 o0, float64 o1", _BLOCK + r"""
o0 = ((double)(((unsigned long long)(x0 >> 6) << 26) | (unsigned long long)(x1 >> 6)) + 0.5)
     * 2.220446049250313e-16;
o1 = ((double)(((unsigned long long)(x2 >> 6) << 26) | (unsigned long long)(x3 >> 6)) + 0.5)
     * 2.220446049250313e-16;
"""),
}

# von Mises: Best and Fisher's rejection from a wrapped Cauchy envelope (1979), one block per
# attempt (a 53-bit uniform for the angle, a 32-bit one to accept, one bit for the sign);
# rho computed without cancellation for small kappa.  Below kappa = 1e-8 the law is uniform
# on the circle to double precision; above 1e6 the wrapped normal N(0, 1/kappa) is used,
# where s - 1 would lose its digits.  The angle mu + theta is wrapped into [-pi, pi].
VONMISES = (", float64 mu, float64 kappa", "float64 o", r"""
const double PI = 3.141592653589793;
if (kappa != kappa || mu != mu) { o = kappa + mu; return; }
double th;
if (kappa < 1e-8) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, 0u, x0, x1, x2, x3);
    th = PI * (2.0 * u53(x0, x1) - 1.0);
} else if (kappa > 1e6) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, 0u, x0, x1, x2, x3);
    double sn, cs;
    rk_sincos_turn((((unsigned long long)x2 << 1) | 1ull) << 20, sn, cs);
    th = sqrt(-2.0 * rk_log(u53_open(x0, x1)) / kappa) * cs;
} else {
    double q = sqrt(1.0 + 4.0 * kappa * kappa);
    double r = 1.0 + q;
    double rho = 2.0 * kappa * r / ((q + 1.0) * (r + sqrt(2.0 * r)));
    double s = (1.0 + rho * rho) / (2.0 * rho);
    unsigned int t = 0u;
    while (true) {
        unsigned int x0, x1, x2, x3;
        philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
        t += 1u;
        double z = cos(PI * u53(x0, x1));
        double w = (1.0 + s * z) / (s + z);
        double y = kappa * (s - w);
        double v = u32_mid(x2);
        if (y * (2.0 - y) - v > 0.0 || log(y / v) + 1.0 - y >= 0.0) {
            w = w > 1.0 ? 1.0 : (w < -1.0 ? -1.0 : w);
            th = acos(w);
            if ((x3 & 1u) != 0u) th = -th;
            break;
        }
    }
}
double res = fmod(mu + th + PI, 2.0 * PI);
if (res < 0.0) res += 2.0 * PI;
o = res - PI;
""")

# Zipf: Devroye's rejection (Non-Uniform Random Variate Generation, X.6): X = floor(U^(-1/(a-1)))
# for U in (0, 1], accepted when V X (T - 1) / (b - 1) <= T / b with T = (1 + 1/X)^(a-1),
# b = 2^(a-1); T - 1 and b - 1 by expm1 (a near 1).  Values past int64 are redrawn.
ZIPF = (", float64 a", "int64 o", r"""
double am1 = a - 1.0;
double bm1 = expm1(am1 * 0.6931471805599453);
unsigned int t = 0u;
while (true) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
    t += 1u;
    double x = floor(pow(u53_open(x0, x1), -1.0 / am1));
    if (!(x >= 1.0 && x < 9.2e18)) continue;
    double tm1 = expm1(am1 * log1p(1.0 / x));
    if (u53(x2, x3) * x * tm1 / bm1 <= (tm1 + 1.0) / (bm1 + 1.0)) {
        o = (long long)x;
        return;
    }
}
""")

# Hypergeometric: inversion by a chop-down search from the mode (Kemp's idea): the mode's
# probability from lgamma, then the neighbours' by the ratio of successive probabilities,
# alternately above and below, subtracted from one uniform until it falls below zero --
# O(standard deviation) steps.  Where rounding leaves the uniform above the summed mass
# (the tails underflowed), the element draws again under the next attempt's key.
HYPERGEOMETRIC = (", int64 ngood, int64 nbad, int64 nsample", "int64 o", r"""
long long lo = nsample - nbad > 0 ? nsample - nbad : 0;
long long hi = nsample < ngood ? nsample : ngood;
if (lo >= hi) { o = lo; return; }
double g = (double)ngood, b = (double)nbad, n = (double)nsample, tot = g + b;
long long m = (long long)floor((n + 1.0) * (g + 1.0) / (tot + 2.0));
m = m < lo ? lo : (m > hi ? hi : m);
double dm = (double)m;
double pm = exp(lgamma(g + 1.0) - lgamma(dm + 1.0) - lgamma(g - dm + 1.0)
                + lgamma(b + 1.0) - lgamma(n - dm + 1.0) - lgamma(b - n + dm + 1.0)
                - lgamma(tot + 1.0) + lgamma(n + 1.0) + lgamma(tot - n + 1.0));
unsigned int t = 0u;
while (true) {
    unsigned int x0, x1, x2, x3;
    philox_block(clo, chi, (unsigned long long)i, key, t, x0, x1, x2, x3);
    t += 1u;
    double u = u53(x0, x1) - pm;
    if (u < 0.0) { o = m; return; }
    long long ku = m, kd = m;
    double pu = pm, pd = pm;
    while (true) {
        bool up = ku < hi && pu > 0.0, down = kd > lo && pd > 0.0;
        if (!up && !down) break;
        if (up) {
            double k = (double)ku;
            pu *= (g - k) * (n - k) / ((k + 1.0) * (b - n + k + 1.0));
            ku += 1;
            u -= pu;
            if (u < 0.0) { o = ku; return; }
        }
        if (down) {
            double k = (double)kd;
            pd *= k * (b - n + k) / ((g - k + 1.0) * (n - k + 1.0));
            kd -= 1;
            u -= pd;
            if (u < 0.0) { o = kd; return; }
        }
    }
}
""")

_KINDS = {"raw": RAW, "integers": INTEGERS, "integers_wide": INTEGERS_WIDE,
          "integers_fix": INTEGERS_FIX, "integers_one": INTEGERS_ONE,
          "integers_wide_one": INTEGERS_WIDE_ONE, "gamma": GAMMA, "poisson": POISSON,
          "binomial": BINOMIAL, "vonmises": VONMISES, "zipf": ZIPF, "hypergeometric": HYPERGEOMETRIC}
_PER_DTYPE = {"uniform": UNIFORM, "normal": NORMAL, "exponential": EXPONENTIAL, "uniform_open": UNIFORM_OPEN}

_made: dict = {}
_lock = threading.Lock()


def kernel(kind: str, dtype=None) -> ElementwiseKernel:
    """The ``ElementwiseKernel`` of a distribution (made once per process; compiled once
    per dtype signature and device by the kernel cache)."""
    k = _made.get((kind, dtype))
    if k is None:
        name = kind if dtype is None or kind not in _PER_DTYPE else f"{kind}_{np.dtype(dtype).name}"
        with _lock:
            k = _made.get((kind, dtype))
            if k is None:
                extra, outs, body = (_PER_DTYPE[kind][np.dtype(dtype).name] if kind in _PER_DTYPE
                                     else _KINDS[kind])
                k = _made.get(name) or ElementwiseKernel(STREAM_PARAMS + extra, outs, body,
                                                         "rocarray_random_" + name, preamble=PREAMBLE)
                _made[name] = _made[(kind, dtype)] = k
    return k


_plans: dict = {}


def blocked_plan(kind: str, dtype, extra_types: tuple, device):
    """The plan (``ElementwiseKernel.plan_for``) of a blocked kernel on ``device``: its
    stream scalars and scalars of ``extra_types`` in, ``per_block`` outputs of ``dtype``."""
    key = (kind, dtype, extra_types, device)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = kernel(kind, dtype).plan_for(
            (int, int, int) + extra_types, (dtype,) * per_block(kind, dtype), device)
    return plan


def _value_offsets(fmt: str) -> list:
    """The byte offset of each value a ``struct`` format packs (``<`` formats: no padding
    but ``x``)."""
    offsets, at, count = [], 0, ""
    for c in fmt.lstrip("<"):
        if c.isdigit():
            count += c
            continue
        size = struct.calcsize("<" + c)
        for _ in range(int(count or 1)):
            if c != "x":
                offsets.append(at)
            at += size
        count = ""
    return offsets


class BlockedLauncher:
    """A blocked kernel's call on a GPU with little host time (next to a kernel of tens of
    microseconds, the Python of a call is what a user waits for): the parameters live in a
    parameter area (``runtime.parameter_area``) where a call overwrites the size, the
    stream's scalars and extras (one ``struct`` write) and the outputs' pointers, and one
    runtime call allocates the result and launches (``launch_into_new``).  The outputs
    are the ``per_block`` slices of one new block.  ``__call__`` answers None where this
    path does not apply -- the host, or a tier whose first calls are counted -- and the
    caller takes the plan's packed launch (``_Plan.launch_flat``)."""

    __slots__ = ("plan", "kernel", "per_block", "dtype", "itemsize", "device", "pool", "launch_new", "areas",
                 "shape_word", "scalars", "scalar_at", "converters", "out_words", "name", "gpu")

    def __init__(self, kind: str, dtype, extra_types: tuple, device):
        plan = self.plan = blocked_plan(kind, dtype, extra_types, device)
        kernel = self.kernel = plan.kernel
        self.per_block = per_block(kind, dtype)
        self.dtype = dtype
        self.itemsize = dtype.itemsize
        self.device = device
        self.name = plan.name
        self.areas: list = []
        offsets = _value_offsets(kernel.packer.format)
        # the packed values: n, then the template's (values[1]: the shape's first extent)
        self.shape_word = offsets[2] // 8
        self.scalar_at = offsets[plan.positions[0] + 1]
        codes = [_scalar_code(np.dtype(t)) for t in plan.scalar_types]
        self.scalars = struct.Struct("<" + "".join(codes))
        self.converters = tuple(SCALAR_CONVERTERS[t] for t in plan.scalar_types[3:])
        # the outputs' pointer words, and those of the hidden inputs through which the
        # body reads an output (``_Plan.read_back``), each with its slice of the block
        pointers = [(offsets[p + 1], j) for j, p in enumerate(plan.out_positions)]
        pointers += [(offsets[p + 1], j) for j, p in plan.read_back]
        self.out_words = tuple((at // 8, j) for at, j in pointers)
        # (one struct write of the scalars needs them side by side; the pointers are words)
        side_by_side = all(offsets[p + 1] == self.scalar_at + struct.calcsize("<" + "".join(codes[:i]))
                           for i, p in enumerate(plan.positions))
        words_aligned = all(at % 8 == 0 for at, _ in pointers) and offsets[2] % 8 == 0
        self.gpu = kernel.is_gpu and side_by_side and words_aligned and kernel.packer.size % 8 == 0
        if self.gpu:
            self.pool = kernel.runtime.memory_pool(kernel.index)
            self.launch_new = kernel.runtime.launch_into_new

    def __call__(self, m: int, stream: tuple, extra: tuple):
        """A new 1-D array of ``per_block * m`` values made by ``m`` loop elements, or None."""
        kernel = self.kernel
        code = kernel.code  # (read once: a tier-up swaps it whole)
        if not self.gpu or code.first_calls:
            return None
        try:
            area = self.areas.pop()
        except IndexError:
            words, address = kernel.runtime.parameter_area(kernel.packer.pack(0, *self.plan._template))
            area = (words, address, words.cast("B"))
        words = area[0]
        words[0] = words[self.shape_word] = m
        name = self.name
        self.scalars.pack_into(area[2], self.scalar_at, *stream,
                               *[f for c, v in zip(self.converters, extra) for f in c(v, name)])
        block = kernel.block
        grid = (m + block - 1) // block
        if grid > code.max_grid and not code.per_element:  # (as in ``CompiledCode.launch``)
            grid = stride_grid(code.max_grid, m, kernel.round_elements)
        step = m * self.itemsize
        out_words = self.out_words
        nbytes = step * self.per_block
        ptr = self.launch_new(code.function, grid, block, area, out_words[0][0], nbytes, out_words[1:], step)
        self.areas.append(area)
        return Array._on_buffer(Buffer(ptr, nbytes, self.device, None, False, self.pool),
                                (self.per_block * m,), self.per_block * m, self.dtype)


_launchers: dict = {}


def blocked_launcher(kind: str, dtype, extra_types: tuple, device) -> BlockedLauncher:
    """The ``BlockedLauncher`` of a blocked kernel on ``device`` (made once)."""
    key = (kind, dtype, extra_types, device)
    launcher = _launchers.get(key)
    if launcher is None:
        launcher = _launchers.setdefault(key, BlockedLauncher(kind, dtype, extra_types, device))
    return launcher


#: Outputs per block of the blocked kernels, by (kind, dtype name).
def per_block(kind: str, dtype) -> int:
    """How many values one block gives a blocked kernel's loop element."""
    if kind == "raw" or kind.startswith("integers"):
        return 4
    return 4 if dtype == _FLOAT32 else 2


_FLOAT32 = np.dtype(np.float32)
