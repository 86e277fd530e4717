"""The compiler-runtime functions host code may call, defined by rocarray in LLVM IR.

LLVM lowers a few operations to calls of libgcc / compiler-rt functions where the CPU has
no instruction for them: double -> float16 on x86-64 without AVX512-FP16, float <-> float16
without F16C, ``llvm.powi``.  Those libraries are not part of rocarray's guaranteed
environment (a Python process may or may not have loaded ``libgcc_s``), so rocarray defines
the functions itself: ``IR`` below, compiled once per machine like any host module and
registered with the host loader, which resolves these names to it and to nothing else.

128-bit integer division and int128 <-> float conversions, the other calls LLVM can make on
64-bit hosts, are expanded inline instead (``DIV_REM_OPTIONS``, set for the process).

The bodies use integer and float operations that every 64-bit host lowers to
instructions (bit moves, shifts, int <-> float32 conversion, float32/64 multiply), never
the operation they stand in for, so the module itself needs no library
(tests/targets/test_host_symbols.py checks this, on this CPU and with F16C turned off).
"""

from __future__ import annotations

#: LLVM options that expand 128-bit integer ``div``/``rem`` and int128 <-> float
#: conversions inline (no ``__udivti3``, ``__floattidf``, ...): integers wider than 64 bits.
DIV_REM_OPTIONS = ("-expand-div-rem-bits=64", "-expand-fp-convert-bits=64")

#: The functions ``IR`` defines: every compiler-runtime name host code may need.
NAMES = frozenset({
    "__truncdfhf2", "__truncsfhf2", "__extendhfsf2", "__extendhfdf2",
    "__gnu_f2h_ieee", "__gnu_h2f_ieee", "__powisf2", "__powidf2",
})

IR = r"""
; rocarray.targets.hostrt: compiler-runtime functions for host code (nounwind: no unwind
; tables, so that rocarray's own loader places the code, which takes code and constants)

; double -> float16 bits, rounded to nearest even (NaN stays a quiet NaN with its sign)
define internal i16 @rk.d2h(double %x) alwaysinline nounwind {
  %u = bitcast double %x to i64
  %sign = and i64 %u, -9223372036854775808
  %a = and i64 %u, 9223372036854775807
  ; normal halves (2^-14 <= |x| < 65520): drop 42 mantissa bits, rebias 1023 -> 15
  %q = lshr i64 %a, 42
  %r = and i64 %a, 4398046511103
  %lsb = and i64 %q, 1
  %t = add i64 %r, 2199023255551
  %t2 = add i64 %t, %lsb
  %up = lshr i64 %t2, 42
  %qn = add i64 %q, %up
  %normal = sub i64 %qn, 1032192
  ; subnormal halves: the 53-bit significand shifted right by 1051 - exponent (63 at most:
  ; smaller values round to zero)
  %e = lshr i64 %a, 52
  %frac = and i64 %a, 4503599627370495
  %m = or i64 %frac, 4503599627370496
  %s0 = sub i64 1051, %e
  %big = icmp ugt i64 %s0, 63
  %s = select i1 %big, i64 63, i64 %s0
  %sq = lshr i64 %m, %s
  %one = shl i64 1, %s
  %mask = sub i64 %one, 1
  %sr = and i64 %m, %mask
  %halfway = lshr i64 %one, 1
  %slsb = and i64 %sq, 1
  %st = add i64 %sr, %halfway
  %st1 = sub i64 %st, 1
  %st2 = add i64 %st1, %slsb
  %sup = lshr i64 %st2, %s
  %sub = add i64 %sq, %sup
  ; NaN: quiet, top payload bits kept
  %payload = and i64 %q, 1023
  %nan = or i64 %payload, 32256
  %is_nan = icmp ugt i64 %a, 9218868437227405312
  %is_big = icmp uge i64 %a, 4679237813814689792
  %is_normal = icmp uge i64 %a, 4544132024016830464
  %h0 = select i1 %is_normal, i64 %normal, i64 %sub
  %h1 = select i1 %is_big, i64 31744, i64 %h0
  %h2 = select i1 %is_nan, i64 %nan, i64 %h1
  %sign16 = lshr i64 %sign, 48
  %h = or i64 %h2, %sign16
  %bits = trunc i64 %h to i16
  ret i16 %bits
}

; float16 bits -> float (exact)
define internal float @rk.h2f(i16 %w) alwaysinline nounwind {
  %x = zext i16 %w to i32
  %sign = and i32 %x, 32768
  %sign32 = shl i32 %sign, 16
  %e = lshr i32 %x, 10
  %exp = and i32 %e, 31
  %m = and i32 %x, 1023
  %m13 = shl i32 %m, 13
  ; normal: rebias 15 -> 127
  %eb = add i32 %exp, 112
  %eb23 = shl i32 %eb, 23
  %normal = or i32 %eb23, %m13
  ; inf and NaN
  %special = or i32 %m13, 2139095040
  ; zero and subnormal: m * 2^-24, exact in float
  %mf = uitofp i32 %m to float
  %small = fmul float %mf, 0x3E70000000000000
  %smallbits = bitcast float %small to i32
  %is_special = icmp eq i32 %exp, 31
  %is_small = icmp eq i32 %exp, 0
  %b0 = select i1 %is_special, i32 %special, i32 %normal
  %b1 = select i1 %is_small, i32 %smallbits, i32 %b0
  %b = or i32 %b1, %sign32
  %f = bitcast i32 %b to float
  ret float %f
}

define half @__truncdfhf2(double %x) nounwind {
  %bits = call i16 @rk.d2h(double %x)
  %h = bitcast i16 %bits to half
  ret half %h
}

; float -> double is exact, so one rounding to float16 follows
define half @__truncsfhf2(float %x) nounwind {
  %d = fpext float %x to double
  %bits = call i16 @rk.d2h(double %d)
  %h = bitcast i16 %bits to half
  ret half %h
}

define i16 @__gnu_f2h_ieee(float %x) nounwind {
  %d = fpext float %x to double
  %bits = call i16 @rk.d2h(double %d)
  ret i16 %bits
}

define float @__extendhfsf2(half %h) nounwind {
  %w = bitcast half %h to i16
  %f = call float @rk.h2f(i16 %w)
  ret float %f
}

; (a NaN's bits are moved, not converted: fpext would make a signalling NaN quiet)
define double @__extendhfdf2(half %h) nounwind {
  %w = bitcast half %h to i16
  %f = call float @rk.h2f(i16 %w)
  %d = fpext float %f to double
  %b = bitcast float %f to i32
  %b64 = zext i32 %b to i64
  %sign = and i64 %b64, 2147483648
  %sign64 = shl i64 %sign, 32
  %frac = and i64 %b64, 8388607
  %frac64 = shl i64 %frac, 29
  %nanbits0 = or i64 %sign64, %frac64
  %nanbits = or i64 %nanbits0, 9218868437227405312
  %nan = bitcast i64 %nanbits to double
  %is_nan = fcmp uno float %f, %f
  %r = select i1 %is_nan, double %nan, double %d
  ret double %r
}

define float @__gnu_h2f_ieee(i16 %w) nounwind {
  %f = call float @rk.h2f(i16 %w)
  ret float %f
}

"""

# x ** n by repeated squaring, as compiler-rt defines it (1 / x ** -n for negative n): one
# body for float (``__powisf2``) and double (``__powidf2``)
_POWI = r"""
define $T @$NAME($T %x, i32 %n) nounwind {
entry:
  %neg = icmp slt i32 %n, 0
  br label %loop
loop:
  %r = phi $T [ 1.0, %entry ], [ %r2, %loop ]
  %b = phi $T [ %x, %entry ], [ %b2, %loop ]
  %k = phi i32 [ %n, %entry ], [ %k2, %loop ]
  %odd = and i32 %k, 1
  %take = icmp ne i32 %odd, 0
  %rb = fmul $T %r, %b
  %r2 = select i1 %take, $T %rb, $T %r
  %b2 = fmul $T %b, %b
  %k2 = sdiv i32 %k, 2
  %more = icmp ne i32 %k2, 0
  br i1 %more, label %loop, label %done
done:
  %inv = fdiv $T 1.0, %r2
  %res = select i1 %neg, $T %inv, $T %r2
  ret $T %res
}
"""

IR += "".join(_POWI.replace("$NAME", name).replace("$T", ty)
              for name, ty in (("__powisf2", "float"), ("__powidf2", "double")))

