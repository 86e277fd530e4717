"""xarray as a client: DataArrays over rocarray arrays keep rocarray through arithmetic,
reductions (``std``, ``cumsum``, ``median``, ``quantile``), ``groupby``, ``where``,
``concat``, ``dot`` and ``rolling`` windows, with NumPy's values."""

import numpy as np
import pytest

import rocarray as ra

xr = pytest.importorskip("xarray", reason="needs xarray")


def _pair(device):
    a = np.random.default_rng(1).uniform(-1, 1, (8, 5))
    coords = {"t": np.arange(8), "g": ("t", [0, 1, 0, 1, 2, 2, 0, 1])}
    return (xr.DataArray(a, dims=("t", "s"), coords=coords),
            xr.DataArray(ra.asarray(a, device=device), dims=("t", "s"), coords=coords))


def _check(got, want, device):
    assert isinstance(got.data, ra.Array), type(got.data)
    assert got.data.device == device
    assert got.dims == want.dims
    np.testing.assert_allclose(got.data.get(), want.data, rtol=1e-10, atol=1e-12, equal_nan=True)


CASES = {
    "arithmetic": lambda d: (d + 1) * d - 2,
    "ufunc": lambda d: np.exp(d) + np.sin(d),
    "sum": lambda d: d.sum("t"),
    "mean": lambda d: d.mean(),
    "std": lambda d: d.std("s"),
    "std_ddof": lambda d: d.std("t", ddof=1),
    "var": lambda d: d.var(),
    "max": lambda d: d.max("t"),
    "min": lambda d: d.min("s"),
    "argmax": lambda d: d.argmax("t"),
    "cumsum": lambda d: d.cumsum("t"),
    "median": lambda d: d.median("t"),
    "quantile": lambda d: d.quantile(0.3, "t"),
    "groupby_mean": lambda d: d.groupby("g").mean(),
    "groupby_sum": lambda d: d.groupby("g").sum(),
    "groupby_std": lambda d: d.groupby("g").std(),
    "where": lambda d: d.where(d > 0),
    "where_other": lambda d: d.where(d > 0, 0.5),
    "skipna_sum": lambda d: d.where(d > 0).sum("t"),
    "skipna_mean": lambda d: d.where(d > 0).mean("s"),
    "fillna": lambda d: d.where(d > 0).fillna(-1),
    "isel": lambda d: d.isel(t=slice(2, 5)),
    "transpose": lambda d: d.T,
    "concat": lambda d: xr.concat([d, d], "t"),
    "dot": lambda d: d.dot(d),
    "count": lambda d: d.where(d > 0).count("t"),
    # (rocarray.lib.stride_tricks.sliding_window_view under them)
    "rolling_mean": lambda d: d.rolling(t=3).mean(),
    "rolling_centered_sum": lambda d: d.rolling(t=4, center=True).sum(),
    "rolling_max_2d": lambda d: d.rolling(t=2, s=3).max(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataarray_keeps_rocarray(device, name):
    ref, d = _pair(device)
    # xarray makes its scalars arrays with ``asarray`` and no device, so on the default
    # device; the data's device is made the default, as a program on it would
    with device:
        got = CASES[name](d)
    _check(got, CASES[name](ref), device)
