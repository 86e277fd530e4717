"""unique_all / unique_counts / unique_inverse / unique_values against NumPy (with the
standard's rule that NaNs are distinct: NumPy's equal_nan=False) on every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

REAL = ALL_DTYPES


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_unique_matches_numpy(device, dtype):
    rng = np.random.default_rng(31)
    for shape in ((5, 7), (40,), (2, 3, 4), ()):
        a = random_array(shape, dtype, rng, low=-3, high=3)
        if np.dtype(dtype).kind == "f" and a.size > 3:
            a.flat[0] = a.flat[3] = np.nan
        x = ra.asarray(a, device=device)
        v, i, inv, c = np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                                 equal_nan=False)
        r = ra.unique_all(x)
        np.testing.assert_array_equal(r.values.get(), v)
        np.testing.assert_array_equal(r.indices.get(), i)
        np.testing.assert_array_equal(r.inverse_indices.get(), inv.reshape(a.shape))
        np.testing.assert_array_equal(r.counts.get(), c)
        assert r.indices.dtype == r.counts.dtype == r.inverse_indices.dtype == ra.int64
        np.testing.assert_array_equal(ra.unique_values(x).get(), v)
        vc = ra.unique_counts(x)
        np.testing.assert_array_equal(vc.values.get(), v)
        np.testing.assert_array_equal(vc.counts.get(), c)
        vi = ra.unique_inverse(x)
        np.testing.assert_array_equal(vi.inverse_indices.get(), inv.reshape(a.shape))
        # the inverse rebuilds x
        np.testing.assert_array_equal(vi.values.get()[vi.inverse_indices.get()], a)


def test_unique_views_empty_and_errors(device):
    rng = np.random.default_rng(32)
    a = random_array((6, 8), np.int32, rng, low=0, high=4)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.unique_values(x[::-2, 1::3]).get(), np.unique(a[::-2, 1::3]))
    e = ra.unique_all(ra.zeros((0, 3), device=device))
    assert e.values.shape == (0,) and e.inverse_indices.shape == (0, 3)
    with pytest.raises(TypeError, match="rocarray array"):
        ra.unique_counts([1, 2, 2])
