"""array-api-extra as a client: its public functions given rocarray arrays return rocarray
arrays on the same device, equal to what they return for NumPy arrays."""

import numpy as np
import pytest

import rocarray as ra

xpx = pytest.importorskip("array_api_extra", reason="needs array-api-extra")

A = np.random.default_rng(3).uniform(-2, 2, (4, 5))
I = np.array([3, 1, 3, 0, 2, 1])
J = np.array([2, 5, 1])

CASES = {
    "atleast_nd": lambda xp, a, i, j: xpx.atleast_nd(a[0], ndim=3, xp=xp),
    "cov": lambda xp, a, i, j: xpx.cov(a, xp=xp),
    "create_diagonal": lambda xp, a, i, j: xpx.create_diagonal(a[0], offset=1, xp=xp),
    "kron": lambda xp, a, i, j: xpx.kron(a, a[:2, :2], xp=xp),
    "nunique": lambda xp, a, i, j: xpx.nunique(i, xp=xp),
    "pad": lambda xp, a, i, j: xpx.pad(a, 2, constant_values=1.5, xp=xp),
    "setdiff1d": lambda xp, a, i, j: xpx.setdiff1d(i, j, xp=xp),
    "union1d": lambda xp, a, i, j: xpx.union1d(i, j, xp=xp),
    "sinc": lambda xp, a, i, j: xpx.sinc(a, xp=xp),
    "isclose": lambda xp, a, i, j: xpx.isclose(a, a + 1e-9, xp=xp),
    "at_set": lambda xp, a, i, j: xpx.at(a)[0, 1].set(5.0, copy=True),
    "at_add_mask": lambda xp, a, i, j: xpx.at(a)[a > 0].add(1.0, copy=True),
    "at_multiply": lambda xp, a, i, j: xpx.at(a)[1:3].multiply(2.0, copy=True),
    "nan_to_num": lambda xp, a, i, j: xpx.nan_to_num(xp.where(a > 1, xp.nan, a), fill_value=-1.0, xp=xp),
    "one_hot": lambda xp, a, i, j: xpx.one_hot(i, 4, xp=xp),
    "apply_where": lambda xp, a, i, j: xpx.apply_where(a > 0, a, lambda v: v * 2, fill_value=0.0, xp=xp),
    "lazy_apply": lambda xp, a, i, j: xpx.lazy_apply(lambda v: v * 2, a, xp=xp),
    "partition": lambda xp, a, i, j: xp.sort(xpx.partition(a, 2, xp=xp), axis=-1),
    "argpartition": lambda xp, a, i, j: xp.take_along_axis(a, xpx.argpartition(a, 2, xp=xp), axis=-1)[:, 2],
    "isin": lambda xp, a, i, j: xpx.isin(i, j, xp=xp),
    "nanmean": lambda xp, a, i, j: xpx.nanmean(xp.where(a > 1, xp.nan, a), axis=0, xp=xp),
    "nansum": lambda xp, a, i, j: xpx.nansum(xp.where(a > 1, xp.nan, a), xp=xp),
    "nanmax": lambda xp, a, i, j: xpx.nanmax(xp.where(a > 1, xp.nan, a), axis=1, xp=xp),
    "nanmin": lambda xp, a, i, j: xpx.nanmin(xp.where(a > 1, xp.nan, a), xp=xp),
    "angle": lambda xp, a, i, j: xpx.angle(a, xp=xp),
    "deg2rad": lambda xp, a, i, j: xpx.deg2rad(a, xp=xp),
    "rad2deg": lambda xp, a, i, j: xpx.rad2deg(a, xp=xp),
    "searchsorted": lambda xp, a, i, j: xpx.searchsorted(xp.sort(a, axis=-1), a[:, :2], xp=xp),
    "unravel_index": lambda xp, a, i, j: xp.stack(xpx.unravel_index(i, (2, 2), xp=xp)),
    "tril_indices": lambda xp, a, i, j: xp.stack(xpx.tril_indices(4, offset=1, xp=xp)),
    "triu_indices": lambda xp, a, i, j: xp.stack(xpx.triu_indices(4, offset=-1, m=5, xp=xp)),
    "diag_indices": lambda xp, a, i, j: xp.stack(xpx.diag_indices(3, xp=xp)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_function(device, name):
    fn = CASES[name]
    want = fn(np, A, I, J)
    args = [ra.asarray(v, device=device) for v in (A, I, J)]
    got = fn(ra, *args)
    assert isinstance(got, ra.Array), type(got)
    assert got.device == ra.Device(device)
    np.testing.assert_allclose(got.get(), np.asarray(want), rtol=1e-10, atol=1e-12)
