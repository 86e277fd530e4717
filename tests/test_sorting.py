"""sort / argsort against NumPy on every device: every real dtype, every axis, NaN, ties,
descending (stable, as the standard defines it), views, empty and 1-element lines."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

REAL = ALL_DTYPES  # complex sorts as NumPy's (real part, then imaginary part)


def _desc_argsort(a, axis):
    # the standard's stable descending order: equal elements keep their input order
    e = np.flip(np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)
    return a.shape[axis] - 1 - e


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_sort_argsort_match_numpy(device, dtype):
    rng = np.random.default_rng(21)
    a = random_array((3, 41, 4), dtype, rng, low=-5, high=5)  # few values: many ties
    if np.dtype(dtype).kind == "f":
        a[0, 3, 1] = a[2, 10, 0] = a[1, 0, 3] = np.nan
        a[2, 11, 0] = -np.inf
    if np.dtype(dtype).kind == "c":
        a.real = np.round(a.real)  # equal real parts: the imaginary part decides
        a[0, 3, 1] = complex(np.nan, 1)
        a[2, 10, 0] = complex(1, np.nan)
    x = ra.asarray(a, device=device)
    for axis in (0, 1, 2, -1):
        np.testing.assert_array_equal(ra.sort(x, axis=axis).get(), np.sort(a, axis=axis))
        np.testing.assert_array_equal(ra.argsort(x, axis=axis).get(), np.argsort(a, axis=axis, kind="stable"))
        d = _desc_argsort(a, axis)
        np.testing.assert_array_equal(ra.argsort(x, axis=axis, descending=True).get(), d)
        np.testing.assert_array_equal(ra.sort(x, axis=axis, descending=True).get(),
                                      np.take_along_axis(a, d, axis=axis))
    g = ra.argsort(x, axis=1)
    assert g.dtype == ra.int64 and g.shape == a.shape


def test_sort_views_long_lines_and_edges(device):
    rng = np.random.default_rng(22)
    a = random_array((5000,), np.float64, rng)
    x = ra.asarray(a.copy(), device=device)  # (its own memory: on the CPU asarray wraps a)
    np.testing.assert_array_equal(ra.sort(x).get(), np.sort(a))
    np.testing.assert_array_equal(ra.sort(x[::-3]).get(), np.sort(a[::-3]))
    np.testing.assert_array_equal(x.get(), a)  # the input is left alone
    m = random_array((6, 7), np.int32, rng)
    y = ra.asarray(m, device=device)
    np.testing.assert_array_equal(ra.argsort(y.T, axis=0).get(), np.argsort(m.T, axis=0, kind="stable"))
    assert ra.sort(ra.zeros((3, 0), device=device)).shape == (3, 0)
    np.testing.assert_array_equal(ra.argsort(ra.ones((4, 1), device=device)).get(), np.zeros((4, 1)))


def test_float16_lines_of_few_values(device):
    """Long float16 lines of a few distinct values, both zeros and NaN: sorted, and the
    same as NumPy's stable sort.  (Not NumPy's default sort: NumPy 2.4's AVX-512 float16
    quicksort leaves such lines out of order on AVX-512 machines, found 2026-12-05.)"""
    rng = np.random.default_rng(23)
    for n in (4096, 20000):
        a = np.round(rng.standard_normal(n) * 2).astype(np.float16)
        a[rng.integers(0, n, 40)] = np.array([np.nan, -0.0, 0.0, np.inf], np.float16)[rng.integers(0, 4, 40)]
        got = ra.sort(ra.asarray(a, device=device)).get()
        want = np.sort(a, kind="stable")
        np.testing.assert_array_equal(got, want)
        finite = got[~np.isnan(got)].astype(np.float32)
        assert np.all(finite[1:] >= finite[:-1]) and np.isnan(got[finite.size:]).all()


def test_sort_errors(device):
    x = ra.ones((2, 3), device=device)
    with pytest.raises(ValueError, match="0-d"):
        ra.argsort(ra.asarray(1.0, device=device))
    with pytest.raises(IndexError, match="out of bounds"):
        ra.sort(x, axis=2)
    with pytest.raises(TypeError, match="descending must be a bool"):
        ra.sort(x, descending=1)
    with pytest.raises(TypeError, match="rocarray array"):
        ra.sort([3, 1, 2])


def test_sort_kernels_compile_for_gpu_targets():
    """The merge sort kernels build for NVPTX (PTX text with its entry) without a GPU."""
    from rocarray._sorting_functions import _kernel
    from rocarray._user_kernels import _user_spec
    from rocarray.targets import target_for

    t = target_for("sm_90")
    i64, b = np.dtype(np.int64), np.dtype(np.bool_)
    for kind, dtype in (("float", np.dtype(np.float32)), ("other", np.dtype(np.int16))):
        for arg in (False, True):
            k = _kernel(kind, arg)
            if arg:
                kinds, dtypes = ["raw", "raw", "scalar", "scalar", "raw", "raw"], [dtype, i64, i64, b, dtype, i64]
            else:
                kinds, dtypes = ["raw", "scalar", "scalar", "raw"], [dtype, i64, b, dtype]
            spec = _user_spec(k.name, k.operation, k.preamble, k._names, kinds, dtypes, {"T": dtype})
            ptx = t.emit_ptx(spec.build_module(t))
            assert f".entry {spec.entry}(" in ptx


def test_rank_kernels_compile_for_gpu_targets():
    """The ranks of a GPU's first sorts of short lines build for NVPTX and AMDGPU on their
    quick tier (they are never interpreted: that tier is their first) and their full one."""
    from rocarray._sorting_functions import _rank_kernel
    from rocarray._user_kernels import _user_spec
    from rocarray.targets import target_for

    i64, b = np.dtype(np.int64), np.dtype(np.bool_)
    for name in ("sm_90", "gfx942"):
        t = target_for(name)
        for kind, dtype in (("float", np.dtype(np.float16)), ("other", np.dtype(np.uint64))):
            k = _rank_kernel(kind)
            spec = _user_spec(k.name, k.operation, k.preamble, k._names, ["raw", "scalar", "scalar", "raw", "raw"],
                              [dtype, i64, b, dtype, i64], {"T": dtype}, (), False, False)
            assert not spec.interpret
            for tier in (t.quick_tier, t):
                assert spec.entry in tier.emit_assembly(spec.build_module(tier))
