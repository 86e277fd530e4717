"""Statistics of rocarray.random's distributions on every device, with fixed seeds (the
tests can fail, and never flake): moments, tail frequencies, Kolmogorov-Smirnov against
closed-form CDFs (and scipy's where scipy is present), chi-square of discrete laws.

Bounds: KS statistic times sqrt(n) below 2.2 (a p-value near 1e-4 for a correct sampler);
chi-square below dof + 6 sqrt(2 dof) + 6; means within 6 standard errors."""

import math

import numpy as np
import pytest

import rocarray as ra
from rocarray.random import default_rng

N = 20000


def ks_ok(sample, cdf, points=None) -> float:
    """KS statistic of ``sample`` against ``cdf`` (at ``points`` of the sorted sample's
    points, evenly spread, when the CDF is expensive: a lower bound of the statistic)."""
    x = np.sort(np.asarray(sample, dtype=np.float64))
    n = len(x)
    idx = np.arange(n) if points is None else np.unique(np.linspace(0, n - 1, points).astype(np.int64))
    f = np.asarray(cdf(x[idx]), dtype=np.float64)
    d = max(np.max((idx + 1) / n - f), np.max(f - idx / n))
    assert d * math.sqrt(n) < 2.2, f"KS statistic {d:.4g} for n={n}"
    return d


def chi2_ok(counts, probs) -> None:
    """Pool cells with expected count below 5 (from both ends) and test."""
    counts = np.asarray(counts, dtype=np.float64)
    expected = np.asarray(probs, dtype=np.float64) * counts.sum()
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, expected):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and cells_e:
        cells_o[-1] += acc_o
        cells_e[-1] += acc_e
    o, e = np.array(cells_o), np.array(cells_e)
    chi2 = float(np.sum((o - e) ** 2 / e))
    dof = len(o) - 1
    assert dof >= 1
    assert chi2 < dof + 6 * math.sqrt(2 * dof) + 6, f"chi-square {chi2:.1f} with {dof} dof"


def mean_ok(x, mean, var) -> None:
    x = np.asarray(x, dtype=np.float64)
    assert abs(x.mean() - mean) < 6 * math.sqrt(var / len(x)), (x.mean(), mean)
    assert abs(x.var() / var - 1) < 0.1, (x.var(), var)


_erf = np.vectorize(math.erf)


def normal_cdf(x):
    return 0.5 * (1 + _erf(x / math.sqrt(2)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform(device, dtype):
    x = default_rng(101, device=device).random(N, dtype=dtype).get()
    assert x.min() >= 0 and x.max() < 1
    ks_ok(x, lambda v: v)
    mean_ok(x, 0.5, 1 / 12)
    y = default_rng(102, device=device).uniform(-2, 6, N, dtype=dtype).get()
    ks_ok(y, lambda v: (v + 2) / 8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal(device, dtype):
    z = default_rng(103, device=device).standard_normal(N, dtype=dtype).get()
    assert z.dtype == np.dtype(dtype) and np.isfinite(z).all()
    ks_ok(z, normal_cdf)
    mean_ok(z, 0.0, 1.0)
    zz = z.astype(np.float64)
    assert abs(np.mean(zz**3)) < 6 * math.sqrt(15 / N)          # skewness
    assert abs(np.mean(zz**4) - 3) < 6 * math.sqrt(96 / N)      # kurtosis
    tail = np.mean(np.abs(zz) > 3)                              # 0.0027
    assert abs(tail - 0.0027) < 6 * math.sqrt(0.0027 / N)
    w = default_rng(104, device=device).normal(3.0, 2.0, N, dtype=dtype).get()
    ks_ok(w, lambda v: normal_cdf((v - 3) / 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential(device, dtype):
    x = default_rng(105, device=device).standard_exponential(N, dtype=dtype).get()
    assert x.min() >= 0 and np.isfinite(x).all()
    ks_ok(x, lambda v: 1 - np.exp(-v))
    mean_ok(x, 1.0, 1.0)
    tail = np.mean(x > 5)
    assert abs(tail - math.exp(-5)) < 6 * math.sqrt(math.exp(-5) / N)
    y = default_rng(106, device=device).exponential(2.5, N).get()
    ks_ok(y, lambda v: 1 - np.exp(-v / 2.5))


# Gamma CDFs in closed form: shape 1/2 (a chi-square with one degree of freedom, halved),
# 1 (exponential), 2 and 5 (Erlang).
def _erlang_cdf(k):
    def cdf(x):
        s = sum(x**j / math.factorial(j) for j in range(k))
        return 1 - np.exp(-x) * s
    return cdf


GAMMA_CDFS = {0.5: lambda x: _erf(np.sqrt(x)), 1.0: _erlang_cdf(1), 2.0: _erlang_cdf(2), 5.0: _erlang_cdf(5)}


@pytest.mark.parametrize("shape", sorted(GAMMA_CDFS))
def test_gamma(device, shape):
    x = default_rng(107, device=device).standard_gamma(shape, N).get()
    assert x.min() >= 0
    ks_ok(x, GAMMA_CDFS[shape])
    mean_ok(x, shape, shape)
    y = default_rng(108, device=device).gamma(shape, 3.0, N).get()
    ks_ok(y, lambda v: GAMMA_CDFS[shape](v / 3.0))
    f = default_rng(109, device=device).standard_gamma(shape, N, dtype="float32").get()
    assert f.dtype == np.float32
    ks_ok(f, GAMMA_CDFS[shape])


def test_gamma_array_shapes(device):
    shapes = ra.asarray(np.array([0.5, 2.0, 5.0]), device=device)
    x = default_rng(110, device=device).gamma(shapes, 1.0, size=(N // 3, 3)).get()
    for j, s in enumerate((0.5, 2.0, 5.0)):
        ks_ok(x[:, j], GAMMA_CDFS[s])


@pytest.mark.parametrize("a,b,cdf", [
    (2.0, 3.0, lambda x: 6 * x**2 - 8 * x**3 + 3 * x**4),
    (0.5, 0.5, lambda x: 2 / math.pi * np.arcsin(np.sqrt(x))),
    (1.0, 1.0, lambda x: x)])
def test_beta(device, a, b, cdf):
    x = default_rng(111, device=device).beta(a, b, N).get()
    assert x.min() >= 0 and x.max() <= 1
    ks_ok(x, cdf)
    mean_ok(x, a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))


def _poisson_pmf(lam, kmax):
    k = np.arange(kmax + 1)
    return np.exp(k * math.log(lam) - lam - np.array([math.lgamma(v + 1) for v in k]))


@pytest.mark.parametrize("lam", [0.5, 4.0, 9.99, 10.0, 31.5, 1000.0])
def test_poisson(device, lam):
    x = default_rng(112, device=device).poisson(lam, N).get()
    assert x.dtype == np.int64 and x.min() >= 0
    kmax = int(lam + 12 * math.sqrt(lam) + 20)
    counts = np.bincount(x, minlength=kmax + 1)
    assert counts.size == kmax + 1
    pmf = _poisson_pmf(lam, kmax)
    pmf[-1] += 1 - pmf.sum()
    chi2_ok(counts, pmf)
    mean_ok(x, lam, lam)


@pytest.mark.parametrize("n,p", [(10, 0.3), (100, 0.05), (1, 0.5), (60, 0.5), (1000, 0.7), (2000, 0.01)])
def test_binomial(device, n, p):
    x = default_rng(113, device=device).binomial(n, p, N).get()
    assert x.dtype == np.int64 and x.min() >= 0 and x.max() <= n
    k = np.arange(n + 1)
    logpmf = np.array([math.lgamma(n + 1) - math.lgamma(v + 1) - math.lgamma(n - v + 1) for v in k])
    pmf = np.exp(logpmf + k * math.log(p) + (n - k) * math.log1p(-p))
    chi2_ok(np.bincount(x, minlength=n + 1), pmf)
    mean_ok(x, n * p, n * p * (1 - p))


def test_binomial_and_poisson_with_array_parameters(device):
    rng = default_rng(114, device=device)
    b = rng.binomial(ra.asarray(np.array([5, 50]), device=device), ra.asarray(np.array([0.9, 0.2]),
                                                                            device=device), size=(N, 2)).get()
    mean_ok(b[:, 0], 4.5, 0.45)
    mean_ok(b[:, 1], 10.0, 8.0)
    q = rng.poisson(np.array([[1.0], [100.0]]), size=(2, N)).get()
    mean_ok(q[0], 1.0, 1.0)
    mean_ok(q[1], 100.0, 100.0)


@pytest.mark.parametrize("dtype,low,high", [("int64", 0, 10), ("int8", -128, 128), ("uint16", 7, 20),
                                            ("uint32", 0, 3 * 2**30 + 7), ("uint64", 0, 3 * 2**62),
                                            ("int64", -(2**62), 2**62 + 2**61)])
def test_integers_chi_square(device, dtype, low, high):
    x = default_rng(115, device=device).integers(low, high, N, dtype=dtype).get().astype(object)
    # 16 equal-width bins of [low, high) (exact for the small ranges)
    span = high - low
    bins = min(span, 16)
    idx = np.array([(int(v) - low) * bins // span for v in x])
    edges = [low + (span * j + bins - 1) // bins for j in range(bins + 1)]
    probs = np.diff(edges) / span
    chi2_ok(np.bincount(idx, minlength=bins), probs)


def test_choice_with_p(device):
    p = np.array([0.05, 0.0, 0.25, 0.5, 0.2])
    x = default_rng(116, device=device).choice(5, N, p=p).get()
    counts = np.bincount(x, minlength=5)
    assert counts[1] == 0
    chi2_ok(counts[p > 0], p[p > 0])
    u = default_rng(117, device=device).choice(7, N).get()
    chi2_ok(np.bincount(u, minlength=7), np.full(7, 1 / 7))


def test_permutations_are_uniform(device):
    """All 24 orders of four items, equally often, from independent rows."""
    rows = ra.asarray(np.tile(np.arange(4), (12000, 1)), device=device)
    r = default_rng(118, device=device).permuted(rows, axis=1).get()
    code = r[:, 0] * 64 + r[:, 1] * 16 + r[:, 2] * 4 + r[:, 3]
    _, counts = np.unique(code, return_counts=True)
    assert len(counts) == 24
    chi2_ok(counts, np.full(24, 1 / 24))


def test_choice_without_replacement_weights(device):
    """With p and no replacement, the first of the items drawn has probability p
    (Efraimidis and Spirakis' keys)."""
    rng = default_rng(119, device=device)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    first = np.array([int(rng.choice(4, 2, replace=False, p=p).get()[0]) for _ in range(400)])
    chi2_ok(np.bincount(first, minlength=4), p)


try:
    import scipy.stats as scipy_stats  # noqa: F811
except ImportError:
    scipy_stats = None


@pytest.mark.skipif(scipy_stats is None, reason="needs scipy (the other tests use closed forms)")
@pytest.mark.parametrize("law", ["gamma", "beta", "normal"])
def test_ks_against_scipy(device, law):
    rng = default_rng(120, device=device)
    if law == "gamma":
        x, cdf = rng.gamma(2.7, 1.5, N).get(), scipy_stats.gamma(2.7, scale=1.5).cdf
    elif law == "beta":
        x, cdf = rng.beta(0.7, 1.9, N).get(), scipy_stats.beta(0.7, 1.9).cdf
    else:
        x, cdf = rng.normal(-1.0, 0.5, N, dtype="float32").get(), scipy_stats.norm(-1.0, 0.5).cdf
    ks_ok(x, cdf)
