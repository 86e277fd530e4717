"""Dask as a client: Dask arrays whose chunks are rocarray arrays keep rocarray chunks and
meta through elementwise work, reductions, ``map_blocks``, matmul, concatenation and masks,
on the threaded scheduler and on a ``dask.distributed.LocalCluster`` of worker processes
(the chunks pickled with their device)."""

import numpy as np
import pytest

import rocarray as ra

da = pytest.importorskip("dask.array", reason="needs dask (pip install 'dask[array]')")
dask = pytest.importorskip("dask")


def _chunked(device, shape=(24, 18), chunks=(8, 9), seed=0):
    a = np.random.default_rng(seed).uniform(-1, 1, shape)
    return a, da.from_array(ra.asarray(a, device=device), chunks=chunks, asarray=False)


def _check(result, want, device, tol=1e-10):
    """A Dask result computes to a rocarray array on ``device`` equal to NumPy's."""
    assert isinstance(result._meta, ra.Array), type(result._meta)
    got = result.compute(scheduler="threads")
    assert isinstance(got, ra.Array), type(got)
    assert got.device == device
    np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol)


def test_meta_and_elementwise(device):
    a, d = _chunked(device)
    assert isinstance(d._meta, ra.Array)
    _check(d * 2 + 1, a * 2 + 1, device)
    _check(np.sin(d) - d ** 2, np.sin(a) - a ** 2, device)
    _check(da.where(d > 0, d, -d), np.abs(a), device)
    _check(d.T[3:9], a.T[3:9], device)


@pytest.mark.parametrize("name", ["sum", "mean", "std", "var", "max", "min", "prod", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions(device, name, axis):
    a, d = _chunked(device)
    _check(getattr(d, name)(axis=axis), getattr(a, name)(axis=axis), device)


def test_more_reductions_and_scans(device):
    a, d = _chunked(device)
    _check((d > 0).any(axis=0), (a > 0).any(axis=0), device)
    _check((d > -0.9).all(), (a > -0.9).all(), device)
    _check(d.cumsum(axis=0), a.cumsum(axis=0), device)
    _check(da.nansum(d, axis=1), np.nansum(a, axis=1), device)
    _check(d.std(axis=0, ddof=1), a.std(axis=0, ddof=1), device)


def test_map_blocks_matmul_concatenate_mask(device):
    a, d = _chunked(device)
    _check(d.map_blocks(lambda b: ra.exp(b) * 2, dtype=d.dtype), np.exp(a) * 2, device)
    _check(d @ d.T, a @ a.T, device)
    _check(da.concatenate([d, d[:4]], axis=0), np.concatenate([a, a[:4]], axis=0), device)
    _check(da.stack([d, d]), np.stack([a, a]), device)
    got = d[d > 0.5].compute(scheduler="threads")
    assert isinstance(got, ra.Array)
    np.testing.assert_allclose(np.sort(got.get()), np.sort(a[a > 0.5]))
    _check(d.rechunk((12, 18)).sum(axis=1), a.sum(axis=1), device)


def test_local_cluster_of_processes(device):
    """Chunks travel to worker processes (pickled with their device) and back."""
    distributed = pytest.importorskip("distributed", reason="needs dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        a, d = _chunked(device)
        total = client.compute((d * 3).sum(axis=0)).result()
        assert isinstance(total, ra.Array) and total.device == device
        np.testing.assert_allclose(total.get(), (a * 3).sum(axis=0), rtol=1e-12)
        means = client.compute(d.map_blocks(lambda b: b - b.mean(), dtype=d.dtype)).result()
        assert isinstance(means, ra.Array)
        blocks = [a[i:i + 8, j:j + 9] for i in (0, 8, 16) for j in (0, 9)]
        want = np.block([[blocks[2 * r + c] - blocks[2 * r + c].mean() for c in range(2)] for r in range(3)])
        np.testing.assert_allclose(means.get(), want, rtol=1e-10, atol=1e-12)
