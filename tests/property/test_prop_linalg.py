"""matmul (and ``@``) against NumPy: 1-d and n-d operands with broadcast batch axes, every
numeric dtype pair, random layouts; integers exactly (wrapping as NumPy does), floats within
the error bound of a sum of ``k`` products in any order (rocarray sums in a tree, with FMAs
where the CPU has them; NumPy calls BLAS), float16 accumulating in float32 in both."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rocarray as ra

from ._support import assert_raises_like, assert_same, cases, dtypes, order_bound, quiet, reference, within_bound


@st.composite
def matmul_shapes(draw):
    """Shapes of two operands: 1-d or n-d (batch axes broadcast), sometimes not fitting."""
    m, k, n = (draw(st.integers(0, 4), label=lab) for lab in ("m", "k", "n"))
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2), label="batch"))
    a = (k,) if draw(st.integers(0, 4)) == 0 else batch[draw(st.integers(0, len(batch))):] + (m, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else tuple(
        1 if draw(st.integers(0, 3)) == 0 else d for d in batch) + (k, n)
    if draw(st.integers(0, 10)) == 0:
        b = b[:-2] + (k + 1,) + b[-1:] if len(b) > 1 else (k + 1,)  # contracted sizes differ
    if draw(st.integers(0, 20)) == 0:
        a = ()  # 0-d: an error
    return a, b


@given(data=st.data())
def test_matmul(device, data):
    sa, sb = data.draw(matmul_shapes(), label="shapes")
    da = data.draw(dtypes("iufc"), label="dtype1")
    db = data.draw(dtypes("iufc"), label="dtype2")
    an, ar = data.draw(cases(da, sa), label="x1").make(device)
    bn, br = data.draw(cases(db, sb), label="x2").make(device)
    use_operator = data.draw(st.booleans(), label="@")
    call = (lambda: ar @ br) if use_operator else (lambda: ra.matmul(ar, br))
    expected, exc = reference(np.matmul, an, bn)
    if exc is not None:
        assert_raises_like(exc, call)
        return
    expected = np.asarray(expected)
    got = call()
    if expected.dtype.kind not in "fc":
        assert_same(got, expected, what="matmul")
        return
    g = got.get()
    assert g.shape == expected.shape and g.dtype == expected.dtype, (g.shape, g.dtype, expected.shape, expected.dtype)
    k = sa[-1]
    with quiet():
        wide = np.complex128 if expected.dtype.kind == "c" else np.float64
        aa = np.abs(an.astype(wide)).astype(np.float64)
        bb = np.abs(bn.astype(wide)).astype(np.float64)
        aa, bb = np.where(np.isfinite(aa), aa, 0), np.where(np.isfinite(bb), bb, 0)
        scale = np.asarray(np.matmul(aa, bb))  # sum of |a| |b|: the terms' magnitudes
    bound = order_bound(expected.dtype, max(k, 1), scale, expected)
    # finite terms whose sum overflows depend on the order: not compared
    real = np.dtype(f"f{expected.dtype.itemsize // 2}") if expected.dtype.kind == "c" else expected.dtype
    acc_max = float(np.finfo(np.float32 if real == np.float16 else real).max)
    keep = ~(scale > acc_max / 4)
    if expected.dtype.kind == "c":
        # a complex product with an infinite or NaN part has no one answer: C99's Annex G,
        # the naive formula and BLAS kernels (NumPy's) differ there; compared where every
        # term is finite
        with quiet():
            bad = np.asarray(np.matmul((~np.isfinite(an)).astype(np.int64), np.ones(sb, dtype=np.int64))
                             + np.matmul(np.ones(sa, dtype=np.int64), (~np.isfinite(bn)).astype(np.int64)))
        keep &= bad == 0
    within_bound(g[keep], expected[keep], np.broadcast_to(bound, g.shape)[keep], "matmul")


def test_matmul_refuses_bool(device):
    # numeric operands only (the standard; NumPy also multiplies bools as and/or)
    x = ra.asarray(np.array([[True, False]]), device=device)
    with pytest.raises(TypeError, match="matmul: expected numeric arrays, got bool"):
        ra.matmul(x, x.T)
