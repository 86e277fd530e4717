"""The distributions of rocarray.random beyond the first ones (chisquare to zipf, the
multivariate ones, bytes) and NumPy's legacy module functions: shapes, dtypes and devices,
determinism for a seed, broadcasting of parameters, supports, NumPy's errors, and the laws,
on every device with fixed seeds (the tests can fail, and never flake).

Laws: Kolmogorov-Smirnov against CDFs written here (closed forms, or the regularised
incomplete gamma and beta functions by their series and continued fractions; the expensive
ones evaluated at 2001 of the sorted sample's points, which bounds the statistic from
below), chi-square of discrete laws, means within 6 standard errors.  Bounds as in
tests/test_random_stats.py: KS statistic times sqrt(n) below 2.2, chi-square below
dof + 6 sqrt(2 dof) + 6."""

import math
import warnings

import numpy as np
import pytest

import rocarray as ra
from rocarray.random import default_rng
from rocarray.targets.amdgpu import AMDGPUTarget, find_device_libs, find_lld
from rocarray.targets.nvptx import NVPTXTarget, find_libdevice
from test_random_stats import chi2_ok, ks_ok

N = 20000


# -- the statistical checks --------------------------------------------------------------------

def discrete_ok(x, pmf, kmin, kmax) -> None:
    """Chi-square of integer draws against ``pmf`` on kmin..kmax, the rest pooled above."""
    x = np.asarray(x)
    assert x.min() >= kmin
    ks = np.arange(kmin, kmax)
    p = np.array([pmf(int(k)) for k in ks])
    counts = np.bincount(np.minimum(x, kmax) - kmin, minlength=kmax - kmin + 1)
    chi2_ok(counts, np.append(p, max(1 - p.sum(), 0.0)))


def mean_ok(x, mean, var) -> None:
    x = np.asarray(x, dtype=np.float64)
    assert abs(x.mean() - mean) < 6 * math.sqrt(var / x.size), (x.mean(), mean)


# -- CDFs ----------------------------------------------------------------------------------------

_erf = np.vectorize(math.erf)


def normal_cdf(x):
    return 0.5 * (1 + _erf(np.asarray(x) / math.sqrt(2)))


def _gammainc(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x): its series below x = a + 1, else one
    minus the continued fraction of Q (modified Lentz)."""
    if x <= 0:
        return 0.0
    front = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        n = 0
        while abs(term) > 1e-17 * total:
            n += 1
            term *= x / (a + n)
            total += term
        return total * front
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1 - front * h


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 1000):
        for aa in (m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))):
            d = 1 + aa * d
            d = 1 / (tiny if abs(d) < tiny else d)
            c = 1 + aa / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


gammainc = np.vectorize(_gammainc)
betainc = np.vectorize(_betainc)


def _poisson_weights(lam: float, count: int = 80):
    return [math.exp(-lam + j * math.log(lam) - math.lgamma(j + 1)) for j in range(count)]


def test_special_functions_match_closed_forms():
    """The CDF helpers against closed forms (so the law tests check the samplers)."""
    x = np.array([0.1, 0.7, 1.5, 4.0, 12.0])
    np.testing.assert_allclose(gammainc(1.0, x), 1 - np.exp(-x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gammainc(2.0, x), 1 - np.exp(-x) * (1 + x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gammainc(0.5, x), _erf(np.sqrt(x)), rtol=1e-12, atol=1e-15)
    u = np.array([0.05, 0.3, 0.5, 0.8, 0.97])
    np.testing.assert_allclose(betainc(2.0, 3.0, u), 6 * u**2 - 8 * u**3 + 3 * u**4, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(betainc(0.5, 0.5, u), 2 / math.pi * np.arcsin(np.sqrt(u)), rtol=1e-12)
    np.testing.assert_allclose(betainc(1.0, 4.5, u), 1 - (1 - u) ** 4.5, rtol=1e-12)


# -- every new method: shape, dtype, device, determinism ------------------------------------------

# name -> (call with (rng, size), dtype, shape of one draw (the multivariate ones' last axis))
CALLS = {
    "chisquare": (lambda r, s: r.chisquare(3.3, s), "float64", ()),
    "dirichlet": (lambda r, s: r.dirichlet([0.5, 1.5, 2.0], s), "float64", (3,)),
    "f": (lambda r, s: r.f(2.5, 6.1, s), "float64", ()),
    "geometric": (lambda r, s: r.geometric(0.3, s), "int64", ()),
    "gumbel": (lambda r, s: r.gumbel(0.5, 1.5, s), "float64", ()),
    "hypergeometric": (lambda r, s: r.hypergeometric(13, 8, 9, s), "int64", ()),
    "laplace": (lambda r, s: r.laplace(1.0, 0.5, s), "float64", ()),
    "logistic": (lambda r, s: r.logistic(-1.0, 2.0, s), "float64", ()),
    "lognormal": (lambda r, s: r.lognormal(0.2, 0.6, s), "float64", ()),
    "logseries": (lambda r, s: r.logseries(0.8, s), "int64", ()),
    "multinomial": (lambda r, s: r.multinomial(17, [0.1, 0.6, 0.3], s), "int64", (3,)),
    "multivariate_hypergeometric": (lambda r, s: r.multivariate_hypergeometric([3, 9, 4, 6], 11, s), "int64",
                                    (4,)),
    "multivariate_normal": (lambda r, s: r.multivariate_normal([1.0, -1.0], [[2.0, 0.3], [0.3, 1.0]], s),
                            "float64", (2,)),
    "negative_binomial": (lambda r, s: r.negative_binomial(2.5, 0.4, s), "int64", ()),
    "noncentral_chisquare": (lambda r, s: r.noncentral_chisquare(2.2, 1.3, s), "float64", ()),
    "noncentral_f": (lambda r, s: r.noncentral_f(2.2, 9.0, 1.3, s), "float64", ()),
    "pareto": (lambda r, s: r.pareto(2.9, s), "float64", ()),
    "power": (lambda r, s: r.power(0.7, s), "float64", ()),
    "rayleigh": (lambda r, s: r.rayleigh(1.7, s), "float64", ()),
    "standard_cauchy": (lambda r, s: r.standard_cauchy(s), "float64", ()),
    "standard_t": (lambda r, s: r.standard_t(3.7, s), "float64", ()),
    "triangular": (lambda r, s: r.triangular(-2.0, 0.5, 1.0, s), "float64", ()),
    "vonmises": (lambda r, s: r.vonmises(2.9, 1.1, s), "float64", ()),
    "wald": (lambda r, s: r.wald(0.8, 3.1, s), "float64", ()),
    "weibull": (lambda r, s: r.weibull(0.9, s), "float64", ()),
    "zipf": (lambda r, s: r.zipf(1.8, s), "int64", ()),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_shape_dtype_device_determinism(device, name):
    call, dtype, tail = CALLS[name]
    a = call(default_rng(301, device=device), (3, 5))
    assert isinstance(a, ra.Array) and a.shape == (3, 5) + tail and a.dtype == np.dtype(dtype)
    assert a.device == device
    b = call(default_rng(301, device=device), (3, 5))
    np.testing.assert_array_equal(a.get(), b.get())
    rng = default_rng(302, device=device)
    first, second = call(rng, 400).get(), call(rng, 400).get()
    assert first.shape == (400,) + tail and not np.array_equal(first, second)  # the stream moves on
    assert call(default_rng(303, device=device), None).shape == tail
    assert call(default_rng(303, device=device), 0).shape == (0,) + tail


def test_bytes(device):
    b = default_rng(304, device=device).bytes(10)
    assert isinstance(b, bytes) and len(b) == 10
    assert default_rng(304, device=device).bytes(10) == b
    assert default_rng(304, device=device).bytes(0) == b""
    # the first bytes are the stream's first words, little-endian
    raw = ra.random.Philox(304).random_raw(3, device=device).get()
    assert b == raw.astype("<u4").tobytes()[:10]
    many = np.frombuffer(default_rng(305, device=device).bytes(256 * 200), dtype=np.uint8)
    chi2_ok(np.bincount(many, minlength=256), np.full(256, 1 / 256))
    with pytest.raises(ValueError, match="length"):
        default_rng(0).bytes(-1)


# -- broadcasting of array parameters ---------------------------------------------------------

# name -> (call with two parameter arrays/scalars and size, parameters of rows (2, 1) and
# columns (3,)); the laws of their columns are checked in the tests below
BROADCAST = {
    "chisquare": lambda r, a, b, s: r.chisquare(a + b, s),
    "f": lambda r, a, b, s: r.f(a, b, s),
    "geometric": lambda r, a, b, s: r.geometric(a / (a + b), s),
    "gumbel": lambda r, a, b, s: r.gumbel(a, b, s),
    "hypergeometric": lambda r, a, b, s: r.hypergeometric((a * 3).astype(np.int64), (b * 2).astype(np.int64), 2, s),
    "laplace": lambda r, a, b, s: r.laplace(a, b, s),
    "logistic": lambda r, a, b, s: r.logistic(a, b, s),
    "lognormal": lambda r, a, b, s: r.lognormal(a, b, s),
    "logseries": lambda r, a, b, s: r.logseries(a / (a + b), s),
    "negative_binomial": lambda r, a, b, s: r.negative_binomial(a, b / (a + b), s),
    "noncentral_chisquare": lambda r, a, b, s: r.noncentral_chisquare(a, b, s),
    "noncentral_f": lambda r, a, b, s: r.noncentral_f(a, b, a, s),
    "pareto": lambda r, a, b, s: r.pareto(a * b, s),
    "power": lambda r, a, b, s: r.power(a * b, s),
    "rayleigh": lambda r, a, b, s: r.rayleigh(a * b, s),
    "standard_t": lambda r, a, b, s: r.standard_t(a * b, s),
    "triangular": lambda r, a, b, s: r.triangular(-a, 0 * a + 0 * b, b, s),
    "vonmises": lambda r, a, b, s: r.vonmises(a, b, s),
    "wald": lambda r, a, b, s: r.wald(a, b, s),
    "weibull": lambda r, a, b, s: r.weibull(a * b, s),
    "zipf": lambda r, a, b, s: r.zipf(1 + a * b, s),
}


@pytest.mark.parametrize("name", sorted(BROADCAST))
@pytest.mark.parametrize("kind", ["numpy", "rocarray"])
def test_parameters_broadcast(device, name, kind):
    a = np.array([[1.0], [2.5]])
    b = np.array([0.5, 1.5, 3.0])
    if kind == "rocarray":
        a, b = ra.asarray(a, device=device), ra.asarray(b, device=device)
    call = BROADCAST[name]
    x = call(default_rng(306, device=device), a, b, None)
    assert x.shape == (2, 3) and x.device == device
    y = call(default_rng(306, device=device), a, b, (4, 2, 3))
    assert y.shape == (4, 2, 3)
    np.testing.assert_array_equal(call(default_rng(306, device=device), a, b, (4, 2, 3)).get(), y.get())
    with pytest.raises(ValueError, match="cannot be broadcast to size"):
        call(default_rng(306, device=device), a, b, (5,))


def test_broadcast_columns_follow_their_parameters(device):
    """Each element of a broadcast result has its own parameters' law (means)."""
    rng = default_rng(307, device=device)
    loc = np.array([-3.0, 0.0, 5.0])
    scale = np.array([[0.5], [2.0]])
    g = rng.gumbel(loc, scale, (N, 2, 3)).get()
    lam = rng.noncentral_chisquare(np.array([1.0, 4.0, 9.0]), np.array([[0.5], [6.0]]), (N, 2, 3)).get()
    w = rng.wald(np.array([0.5, 1.0, 2.0]), np.array([[1.0], [4.0]]), (N, 2, 3)).get()
    h = rng.hypergeometric(np.array([5, 20, 50]), np.array([[10], [40]]), 5, (N, 2, 3)).get()
    for i in range(2):
        for j in range(3):
            s, m = scale[i, 0], loc[j]
            mean_ok(g[:, i, j], m + s * 0.5772156649015329, s * s * math.pi**2 / 6)
            df, nc = [1.0, 4.0, 9.0][j], [0.5, 6.0][i]
            mean_ok(lam[:, i, j], df + nc, 2 * (df + 2 * nc))
            mu, sc = [0.5, 1.0, 2.0][j], [1.0, 4.0][i]
            mean_ok(w[:, i, j], mu, mu**3 / sc)
            good, bad = [5, 20, 50][j], [10, 40][i]
            tot = good + bad
            mean_ok(h[:, i, j], 5 * good / tot, 5 * good * bad * (tot - 5) / (tot**2 * (tot - 1)))


# -- the continuous laws ------------------------------------------------------------------------

def test_standard_cauchy(device):
    x = default_rng(310, device=device).standard_cauchy(N).get()
    assert np.isfinite(x).all()
    ks_ok(x, lambda v: 0.5 + np.arctan(v) / math.pi)


def test_lognormal(device):
    x = default_rng(311, device=device).lognormal(0.3, 0.7, N).get()
    assert x.min() > 0
    ks_ok(x, lambda v: normal_cdf((np.log(v) - 0.3) / 0.7))
    mean_ok(x, math.exp(0.3 + 0.49 / 2), (math.exp(0.49) - 1) * math.exp(0.6 + 0.49))


@pytest.mark.parametrize("df", [0.6, 3.7, 41.0])
def test_chisquare(device, df):
    x = default_rng(312, device=device).chisquare(df, N).get()
    assert x.min() >= 0
    ks_ok(x, lambda v: gammainc(df / 2, v / 2), points=2001)
    mean_ok(x, df, 2 * df)


@pytest.mark.parametrize("df,nonc", [(2.5, 1.8), (0.7, 9.0), (6.0, 0.0)])
def test_noncentral_chisquare(device, df, nonc):
    x = default_rng(313, device=device).noncentral_chisquare(df, nonc, N).get()
    assert x.min() >= 0
    weights = _poisson_weights(nonc / 2) if nonc else [1.0]
    ks_ok(x, lambda v: sum(w * gammainc(df / 2 + j, v / 2) for j, w in enumerate(weights) if w > 1e-18),
          points=2001)
    mean_ok(x, df + nonc, 2 * (df + 2 * nonc))


def _t_cdf(df):
    def cdf(v):
        tail = 0.5 * betainc(df / 2, 0.5, df / (df + v * v))
        return np.where(v < 0, tail, 1 - tail)
    return cdf


@pytest.mark.parametrize("df", [1.0, 4.3, 30.0])
def test_standard_t(device, df):
    x = default_rng(314, device=device).standard_t(df, N).get()
    assert np.isfinite(x).all()
    ks_ok(x, _t_cdf(df), points=2001)
    if df > 2:
        mean_ok(x, 0.0, df / (df - 2))


@pytest.mark.parametrize("d1,d2", [(3.5, 7.2), (1.0, 12.0)])
def test_f(device, d1, d2):
    x = default_rng(315, device=device).f(d1, d2, N).get()
    assert x.min() >= 0
    ks_ok(x, lambda v: betainc(d1 / 2, d2 / 2, d1 * v / (d1 * v + d2)), points=2001)
    mean_ok(x, d2 / (d2 - 2), 2 * d2**2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4)))


def test_noncentral_f(device):
    d1, d2, nonc = 3.0, 11.0, 2.5
    x = default_rng(316, device=device).noncentral_f(d1, d2, nonc, N).get()
    assert x.min() >= 0
    weights = _poisson_weights(nonc / 2)
    ks_ok(x, lambda v: sum(w * betainc(d1 / 2 + j, d2 / 2, d1 * v / (d1 * v + d2))
                           for j, w in enumerate(weights) if w > 1e-18), points=2001)
    mean_ok(x, d2 * (d1 + nonc) / (d1 * (d2 - 2)),
            2 * (d2 / d1) ** 2 * ((d1 + nonc) ** 2 + (d1 + 2 * nonc) * (d2 - 2)) / ((d2 - 2) ** 2 * (d2 - 4)))


def test_dirichlet(device):
    alpha = np.array([0.7, 2.0, 3.3])
    a0 = alpha.sum()
    x = default_rng(317, device=device).dirichlet(alpha, N).get()
    assert x.shape == (N, 3) and x.min() >= 0
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    for j in range(3):   # the marginals: Beta(alpha_j, a0 - alpha_j)
        ks_ok(x[:, j], lambda v: betainc(alpha[j], a0 - alpha[j], v), points=2001)
        mean_ok(x[:, j], alpha[j] / a0, alpha[j] * (a0 - alpha[j]) / (a0**2 * (a0 + 1)))
    y = default_rng(318, device=device).dirichlet(ra.asarray(alpha, device=device), (4, 5))
    assert y.shape == (4, 5, 3)


def test_gumbel_logistic_laplace(device):
    rng = default_rng(319, device=device)
    g = rng.gumbel(1.2, 2.1, N).get()
    ks_ok(g, lambda v: np.exp(-np.exp(-(v - 1.2) / 2.1)))
    mean_ok(g, 1.2 + 2.1 * 0.5772156649015329, (2.1 * math.pi) ** 2 / 6)
    lo = rng.logistic(0.3, 0.8, N).get()
    ks_ok(lo, lambda v: 1 / (1 + np.exp(-(v - 0.3) / 0.8)))
    mean_ok(lo, 0.3, (0.8 * math.pi) ** 2 / 3)
    la = rng.laplace(-0.4, 1.7, N).get()
    ks_ok(la, lambda v: np.where(v < -0.4, 0.5 * np.exp((v + 0.4) / 1.7), 1 - 0.5 * np.exp(-(v + 0.4) / 1.7)))
    mean_ok(la, -0.4, 2 * 1.7**2)
    assert np.isfinite(g).all() and np.isfinite(lo).all() and np.isfinite(la).all()
    # scale 0: every draw is loc
    np.testing.assert_array_equal(rng.gumbel(2.0, 0.0, 5).get(), 2.0)


def test_rayleigh_weibull_pareto_power(device):
    rng = default_rng(320, device=device)
    r = rng.rayleigh(2.2, N).get()
    assert r.min() > 0
    ks_ok(r, lambda v: 1 - np.exp(-v * v / (2 * 2.2**2)))
    mean_ok(r, 2.2 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 2.2**2)
    w = rng.weibull(1.7, N).get()
    assert w.min() >= 0
    ks_ok(w, lambda v: 1 - np.exp(-(v**1.7)))
    mean_ok(w, math.gamma(1 + 1 / 1.7), math.gamma(1 + 2 / 1.7) - math.gamma(1 + 1 / 1.7) ** 2)
    np.testing.assert_array_equal(rng.weibull(0.0, 4).get(), 0.0)
    p = rng.pareto(2.6, N).get()
    assert p.min() >= 0
    ks_ok(p, lambda v: 1 - (1 + v) ** -2.6)
    mean_ok(p, 1 / 1.6, 2.6 / (1.6**2 * 0.6))
    q = rng.power(3.4, N).get()
    assert q.min() >= 0 and q.max() <= 1
    ks_ok(q, lambda v: v**3.4)
    mean_ok(q, 3.4 / 4.4, 3.4 / (4.4**2 * 5.4))


@pytest.mark.parametrize("left,mode,right", [(-1.0, 0.5, 3.0), (0.0, 0.0, 2.0), (1.0, 4.0, 4.0)])
def test_triangular(device, left, mode, right):
    x = default_rng(321, device=device).triangular(left, mode, right, N).get()
    assert x.min() >= left and x.max() <= right
    w = right - left

    def cdf(v):
        below = (v - left) ** 2 / (w * (mode - left)) if mode > left else np.zeros_like(v)
        above = 1 - (right - v) ** 2 / (w * (right - mode)) if right > mode else np.ones_like(v)
        return np.where(v <= mode, below, above)
    with np.errstate(divide="ignore", invalid="ignore"):
        ks_ok(x, cdf)
    mean_ok(x, (left + mode + right) / 3,
            (left**2 + mode**2 + right**2 - left * mode - left * right - mode * right) / 18)


def test_wald(device):
    mu, lam = 1.3, 2.4
    x = default_rng(322, device=device).wald(mu, lam, N).get()
    assert x.min() > 0
    ks_ok(x, lambda v: normal_cdf(np.sqrt(lam / v) * (v / mu - 1))
          + math.exp(2 * lam / mu) * normal_cdf(-np.sqrt(lam / v) * (v / mu + 1)))
    mean_ok(x, mu, mu**3 / lam)
    # a large mean over the scale: the form without cancellation keeps draws positive
    y = default_rng(323, device=device).wald(1e6, 1.0, N).get()
    assert y.min() > 0 and np.isfinite(y).all()


def _vonmises_cdf(mu, kappa):
    grid = np.linspace(-math.pi, math.pi, 200001)
    dens = np.exp(kappa * (np.cos(grid - mu) - 1))
    cum = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
    cum /= cum[-1]
    return lambda v: np.interp(v, grid, cum)


@pytest.mark.parametrize("mu,kappa", [(0.7, 2.3), (-3.0, 0.4), (2.5, 40.0), (0.0, 1e-9)])
def test_vonmises(device, mu, kappa):
    x = default_rng(324, device=device).vonmises(mu, kappa, N).get()
    assert x.min() >= -math.pi and x.max() < math.pi
    ks_ok(x, _vonmises_cdf(mu, kappa))


def test_vonmises_large_kappa(device):
    """Above kappa = 1e6 the wrapped normal: mean direction mu, spread 1/sqrt(kappa)."""
    x = default_rng(325, device=device).vonmises(1.0, 1e8, N).get()
    ks_ok(x, lambda v: normal_cdf((v - 1.0) * 1e4))
    z = default_rng(326, device=device).vonmises(math.pi - 1e-5, 1e7, N).get()  # wraps past pi
    assert z.min() >= -math.pi and z.max() < math.pi and (z < 0).any() and (z > 0).any()


def test_multivariate_normal(device):
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    for method in ("svd", "eigh", "cholesky"):
        x = default_rng(327, device=device).multivariate_normal(mean, cov, N, method=method).get()
        assert x.shape == (N, 3)
        for j in range(3):
            mean_ok(x[:, j], mean[j], cov[j, j])
            ks_ok(x[:, j], lambda v: normal_cdf((v - mean[j]) / math.sqrt(cov[j, j])))
        w = np.array([0.3, -1.0, 2.0])   # a projection: N(w.mean, w' cov w)
        ks_ok(x @ w, lambda v: normal_cdf((v - w @ mean) / math.sqrt(w @ cov @ w)))
        c = np.cov(x.T)
        # the sample covariances within 6 standard errors ((s_ii s_jj + s_ij^2) / n)
        se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / N)
        assert np.all(np.abs(c - cov) < 6 * se), (c, cov)
    y = default_rng(328, device=device).multivariate_normal(ra.asarray(mean, device=device), cov, (2, 4))
    assert y.shape == (2, 4, 3) and y.device == device
    # a singular (positive-semidefinite) covariance: draws on the line x0 = x1
    z = default_rng(329, device=device).multivariate_normal([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]], 100).get()
    np.testing.assert_allclose(z[:, 0], z[:, 1], atol=1e-7)


# -- the discrete laws --------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.23, 0.9, 1.0, 0.001])
def test_geometric(device, p):
    x = default_rng(330, device=device).geometric(p, N).get()
    assert x.dtype == np.int64 and x.min() >= 1
    if p == 1.0:
        assert (x == 1).all()
        return
    kmax = int(math.ceil(30 / p))
    discrete_ok(x, lambda k: (1 - p) ** (k - 1) * p, 1, kmax)
    mean_ok(x, 1 / p, (1 - p) / p**2)


@pytest.mark.parametrize("n,p", [(3.5, 0.35), (0.8, 0.9), (40.0, 0.02)])
def test_negative_binomial(device, n, p):
    x = default_rng(331, device=device).negative_binomial(n, p, N).get()
    assert x.dtype == np.int64 and x.min() >= 0
    mean, var = n * (1 - p) / p, n * (1 - p) / p**2

    def pmf(k):
        return math.exp(math.lgamma(k + n) - math.lgamma(n) - math.lgamma(k + 1) + n * math.log(p)
                        + k * math.log1p(-p))
    discrete_ok(x, pmf, 0, int(mean + 12 * math.sqrt(var) + 10))
    mean_ok(x, mean, var)
    np.testing.assert_array_equal(default_rng(332, device=device).negative_binomial(4, 1.0, 5).get(), 0)


@pytest.mark.parametrize("p", [0.7, 0.05, 0.995])
def test_logseries(device, p):
    x = default_rng(333, device=device).logseries(p, N).get()
    assert x.dtype == np.int64 and x.min() >= 1
    c = -1 / math.log1p(-p)
    discrete_ok(x, lambda k: c * p**k / k, 1, 400)
    mean_ok(x, c * p / (1 - p), c * p * (1 - c * p) / (1 - p) ** 2)
    np.testing.assert_array_equal(default_rng(334, device=device).logseries(0.0, 5).get(), 1)


def _zeta(a: float, terms: int = 2000) -> float:
    """Riemann zeta by a partial sum and Euler-Maclaurin's tail."""
    k = np.arange(1, terms, dtype=np.float64)
    big = float(terms)
    return float(np.sum(k**-a)) + big ** (1 - a) / (a - 1) + big**-a / 2 + a * big ** (-a - 1) / 12


@pytest.mark.parametrize("a", [2.3, 1.5, 6.0])
def test_zipf(device, a):
    x = default_rng(335, device=device).zipf(a, N).get()
    assert x.dtype == np.int64 and x.min() >= 1
    z = _zeta(a)
    discrete_ok(x, lambda k: k**-a / z, 1, 300)
    if a > 3:
        mean_ok(x, _zeta(a - 1) / z, _zeta(a - 2) / z - (_zeta(a - 1) / z) ** 2)


def _hypergeom_pmf(good, bad, n):
    tot = good + bad

    def pmf(k):
        if k < max(0, n - bad) or k > min(n, good):
            return 0.0
        return math.exp(math.lgamma(good + 1) - math.lgamma(k + 1) - math.lgamma(good - k + 1)
                        + math.lgamma(bad + 1) - math.lgamma(n - k + 1) - math.lgamma(bad - n + k + 1)
                        - math.lgamma(tot + 1) + math.lgamma(n + 1) + math.lgamma(tot - n + 1))
    return pmf


@pytest.mark.parametrize("good,bad,n", [(37, 55, 40), (5, 2, 6), (1000, 10, 500), (300000, 500000, 200000),
                                        (3, 9, 0), (4, 4, 8)])
def test_hypergeometric(device, good, bad, n):
    x = default_rng(336, device=device).hypergeometric(good, bad, n, N).get()
    assert x.dtype == np.int64 and x.min() >= max(0, n - bad) and x.max() <= min(n, good)
    tot = good + bad
    var = n * good * bad * (tot - n) / (tot**2 * (tot - 1))
    if var == 0:
        assert (x == n * good // tot).all()
        return
    lo, hi = max(0, n - bad), min(n, good)
    if hi - lo < 2000:
        x_shift = x - lo
        pmf = _hypergeom_pmf(good, bad, n)
        discrete_ok(x_shift, lambda k: pmf(k + lo), 0, hi - lo)
    mean_ok(x, n * good / tot, var)


def test_multinomial(device):
    p = np.array([0.1, 0.25, 0.05, 0.6])
    n = 30
    x = default_rng(337, device=device).multinomial(n, p, N).get()
    assert x.shape == (N, 4) and x.dtype == np.int64 and x.min() >= 0
    assert (x.sum(axis=1) == n).all()
    for j in range(4):   # the marginals: Binomial(n, p_j)
        k = np.arange(n + 1)
        logpmf = np.array([math.lgamma(n + 1) - math.lgamma(v + 1) - math.lgamma(n - v + 1) for v in k])
        pmf = np.exp(logpmf + k * math.log(p[j]) + (n - k) * math.log1p(-p[j]))
        chi2_ok(np.bincount(x[:, j], minlength=n + 1), pmf)
        mean_ok(x[:, j], n * p[j], n * p[j] * (1 - p[j]))
    # covariance of two counts: -n p_i p_j
    c = np.mean((x[:, 0] - n * p[0]) * (x[:, 3] - n * p[3]))
    assert abs(c + n * p[0] * p[3]) < 6 * math.sqrt(n * p[0] * n * p[3] / N) * 1.5
    # arrays of n and of pvals broadcast
    y = default_rng(338, device=device).multinomial(np.array([[5], [500]]), np.array([[0.5, 0.5], [0.9, 0.1],
                                                                                       [0.0, 1.0]]))
    assert y.shape == (2, 3, 2)
    got = y.get()
    assert (got.sum(axis=-1) == np.array([[5], [500]])).all() and (got[:, 2, 0] == 0).all()
    big = default_rng(339, device=device).multinomial(ra.asarray(np.array([10, 1000]), device=device), p, (N, 2)).get()
    mean_ok(big[:, 1, 3], 600, 1000 * 0.6 * 0.4)


def test_multivariate_hypergeometric(device):
    colors = np.array([12, 3, 20, 7])
    total, n = colors.sum(), 15
    for method in ("marginals", "count"):
        x = default_rng(340, device=device).multivariate_hypergeometric(colors, n, N, method=method).get()
        assert x.shape == (N, 4) and x.dtype == np.int64
        assert (x.sum(axis=1) == n).all() and (x <= colors).all() and x.min() >= 0
        for j in range(4):   # the marginals: hypergeometric
            pmf = _hypergeom_pmf(int(colors[j]), int(total - colors[j]), n)
            discrete_ok(x[:, j], pmf, 0, int(colors[j]))
    y = default_rng(341, device=device).multivariate_hypergeometric(colors, np.array([0, 5, 42]), (6, 3)).get()
    assert y.shape == (6, 3, 4) and (y.sum(axis=-1) == np.array([0, 5, 42])).all()
    assert (y[:, 2] == colors).all()
    assert default_rng(342).multivariate_hypergeometric([], 0, 2).shape == (2, 0)


# -- errors ----------------------------------------------------------------------------------------

def _errors(r, dev):
    arr = ra.asarray(np.array([1.0, -1.0]), device=dev)
    return [
        (ValueError, "df <= 0", lambda: r.chisquare(0.0)),
        (ValueError, "df <= 0", lambda: r.chisquare(arr)),
        (ValueError, "df <= 0", lambda: r.standard_t(-1.0)),
        (ValueError, "df <= 0", lambda: r.noncentral_chisquare(0.0, 1.0)),
        (ValueError, "nonc < 0", lambda: r.noncentral_chisquare(1.0, [1.0, -0.5])),
        (ValueError, "dfnum <= 0", lambda: r.f(0.0, 1.0)),
        (ValueError, "dfden <= 0", lambda: r.f(1.0, arr)),
        (ValueError, "dfnum <= 0", lambda: r.noncentral_f(0.0, 1.0, 1.0)),
        (ValueError, "dfden <= 0", lambda: r.noncentral_f(1.0, -1.0, 1.0)),
        (ValueError, "nonc < 0", lambda: r.noncentral_f(1.0, 1.0, -1.0)),
        (ValueError, "alpha < 0", lambda: r.dirichlet([1.0, -0.1])),
        (ValueError, "alpha must be a one-dimensional", lambda: r.dirichlet([[1.0, 2.0]])),
        (ValueError, "p <= 0, p > 1", lambda: r.geometric(0.0)),
        (ValueError, "p <= 0, p > 1", lambda: r.geometric([0.5, 1.5])),
        (ValueError, "p contains NaNs", lambda: r.geometric(float("nan"))),
        (ValueError, "scale < 0", lambda: r.gumbel(0.0, -1.0)),
        (ValueError, "scale < 0", lambda: r.laplace(0.0, arr)),
        (ValueError, "scale < 0", lambda: r.logistic(0.0, -1.0)),
        (ValueError, "scale < 0", lambda: r.rayleigh(-2.0)),
        (ValueError, "sigma < 0", lambda: r.lognormal(0.0, -1.0)),
        (ValueError, "p < 0, p >= 1", lambda: r.logseries(1.0)),
        (ValueError, "p < 0, p >= 1", lambda: r.logseries(-0.1)),
        (ValueError, "p is NaN", lambda: r.logseries(float("nan"))),
        (ValueError, "n <= 0", lambda: r.negative_binomial(0, 0.5)),
        (ValueError, "p <= 0, p > 1", lambda: r.negative_binomial(1, 0.0)),
        (ValueError, "p <= 0, p > 1", lambda: r.negative_binomial(1, 1.5)),
        (ValueError, "n too large or p too small", lambda: r.negative_binomial(1, 1e-300)),
        (ValueError, "a <= 0", lambda: r.pareto(0.0)),
        (ValueError, "a <= 0", lambda: r.power(arr)),
        (ValueError, "a < 0", lambda: r.weibull(-1.0)),
        (ValueError, "left > mode", lambda: r.triangular(2.0, 1.0, 3.0)),
        (ValueError, "mode > right", lambda: r.triangular(0.0, 4.0, 3.0)),
        (ValueError, "left == right", lambda: r.triangular(1.0, 1.0, 1.0)),
        (ValueError, "left > mode", lambda: r.triangular(arr, 0.0, 3.0)),
        (ValueError, "kappa < 0", lambda: r.vonmises(0.0, -1.0)),
        (ValueError, "mean <= 0", lambda: r.wald(0.0, 1.0)),
        (ValueError, "scale <= 0", lambda: r.wald(1.0, arr)),
        (ValueError, "a <= 1 or a is NaN", lambda: r.zipf(1.0)),
        (ValueError, "a <= 1 or a is NaN", lambda: r.zipf(float("nan"))),
        (ValueError, "ngood < 0", lambda: r.hypergeometric(-1, 2, 1)),
        (ValueError, "nbad < 0", lambda: r.hypergeometric(1, -2, 1)),
        (ValueError, "nsample < 0", lambda: r.hypergeometric(1, 2, -1)),
        (ValueError, "ngood \\+ nbad < nsample", lambda: r.hypergeometric(1, 2, 5)),
        (ValueError, "ngood \\+ nbad < nsample", lambda: r.hypergeometric(np.array([1, 5]), 2, 5)),
        (ValueError, "less than 1000000000", lambda: r.hypergeometric(10**9, 1, 1)),
        (TypeError, "ngood must be integers", lambda: r.hypergeometric(1.5, 2, 1)),
        (ValueError, "n < 0", lambda: r.multinomial(-1, [0.5, 0.5])),
        (ValueError, "pvals < 0, pvals > 1", lambda: r.multinomial(5, [-0.5, 0.7])),
        (ValueError, "pvals contains NaNs", lambda: r.multinomial(5, [float("nan"), 0.7])),
        (ValueError, "sum\\(pvals\\[:-1\\]\\) > 1.0", lambda: r.multinomial(5, [0.5, 0.7, 0.1])),
        (ValueError, "pvals must have at least 1 dimension", lambda: r.multinomial(5, 0.5)),
        (ValueError, "mean must be 1 dimensional", lambda: r.multivariate_normal([[0.0, 0.0]], np.eye(2))),
        (ValueError, "cov must be 2 dimensional and square",
         lambda: r.multivariate_normal([0.0, 0.0], np.ones((3, 2)))),
        (ValueError, "mean and cov must have same length", lambda: r.multivariate_normal([0.0] * 3, np.eye(2))),
        (ValueError, "check_valid must equal", lambda: r.multivariate_normal([0.0], [[1.0]], check_valid="x")),
        (ValueError, "method must be one of", lambda: r.multivariate_normal([0.0], [[1.0]], method="x")),
        (ValueError, "not symmetric positive-semidefinite",
         lambda: r.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], check_valid="raise")),
        (ValueError, "colors must be a one-dimensional", lambda: r.multivariate_hypergeometric([1, -2], 1)),
        (ValueError, "colors must be a one-dimensional", lambda: r.multivariate_hypergeometric([[1, 2]], 1)),
        (ValueError, "nsample > sum\\(colors\\)", lambda: r.multivariate_hypergeometric([1, 2], 4)),
        (ValueError, "nsample must be nonnegative", lambda: r.multivariate_hypergeometric([1, 2], -1)),
        (ValueError, 'method must be "count" or "marginals"',
         lambda: r.multivariate_hypergeometric([1, 2], 1, method="x")),
        (ValueError, "lam < 0 or lam is NaN", lambda: r.poisson(float("nan"))),
        (TypeError, "size must be", lambda: r.gumbel(size="x")),
    ]


def test_bad_parameters(device):
    for exc, msg, call in _errors(default_rng(0, device=device), device):
        with pytest.raises(exc, match=msg):
            call()


def test_non_psd_covariance_warns(device):
    rng = default_rng(343, device=device)
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        rng.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rng.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], 3, check_valid="ignore").shape == (3, 2)


def test_nan_parameters_give_nan(device):
    """A NaN where NumPy gives NaN (and no kernel loop that never ends)."""
    rng = default_rng(344, device=device)
    assert np.isnan(rng.vonmises(0.0, float("nan"), 3).get()).all()
    assert np.isnan(rng.noncentral_chisquare(2.0, float("nan"), 3).get()).all()
    got = rng.noncentral_chisquare(2.0, ra.asarray(np.array([np.nan, 1.0]), device=device)).get()
    assert np.isnan(got[0]) and np.isfinite(got[1])


# -- the module functions (NumPy's legacy names, CuPy's) -------------------------------------------

LEGACY = {
    "beta": (2.0, 3.0), "binomial": (10, 0.3), "chisquare": (3.0,), "exponential": (2.0,), "f": (3.0, 5.0),
    "gamma": (2.0, 1.5), "geometric": (0.3,), "gumbel": (0.0, 1.0), "hypergeometric": (5, 6, 4),
    "laplace": (0.0, 1.0), "logistic": (0.0, 1.0), "lognormal": (0.0, 1.0), "logseries": (0.5,),
    "negative_binomial": (3, 0.5), "noncentral_chisquare": (2.0, 1.0), "noncentral_f": (2.0, 5.0, 1.0),
    "pareto": (3.0,), "poisson": (4.0,), "power": (2.0,), "rayleigh": (1.0,), "standard_cauchy": (),
    "standard_exponential": (), "standard_gamma": (2.0,), "standard_normal": (), "standard_t": (4.0,),
    "triangular": (0.0, 1.0, 2.0), "vonmises": (0.0, 1.0), "wald": (1.0, 1.0), "weibull": (1.5,), "zipf": (2.0,),
    "random": (), "ranf": (), "sample": (),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_module_functions(name):
    fn = getattr(ra.random, name)
    args = LEGACY[name]
    ra.random.seed(11)
    a = fn(*args, size=(3, 4))
    ra.random.seed(11)
    b = fn(*args, size=(3, 4))
    assert isinstance(a, ra.Array) and a.shape == (3, 4) and a.device == ra.default_device()
    np.testing.assert_array_equal(a.get(), b.get())
    # the global generator's method of the same name (the legacy aliases: ``random``)
    method = {"ranf": "random", "sample": "random"}.get(name, name)
    expected = getattr(default_rng(12), method)(*args, size=(3, 4))
    ra.random.seed(12)
    np.testing.assert_array_equal(fn(*args, size=(3, 4)).get(), expected.get())
    assert name in ra.random.__all__


def test_module_multivariate_and_bytes():
    ra.random.seed(13)
    assert ra.random.multinomial(10, [0.2, 0.8], 5).shape == (5, 2)
    assert ra.random.dirichlet([1.0, 2.0, 3.0], 4).shape == (4, 3)
    assert ra.random.multivariate_normal([0.0, 1.0], np.eye(2), (2, 3)).shape == (2, 3, 2)
    ra.random.seed(14)
    b = ra.random.bytes(9)
    assert b == default_rng(14).bytes(9)
    assert ra.random.standard_normal(4, dtype="float32").dtype == np.float32
    for name in ("bytes", "dirichlet", "multinomial", "multivariate_normal"):
        assert name in ra.random.__all__


# -- the new kernels compile for the GPU targets (compile only: no GPU needed) -----------------

NEW_KERNELS = [("vonmises", None), ("zipf", None), ("hypergeometric", None), ("uniform_open", "float64")]


def _spec_for(kind, dtype):
    """The KernelSpec a call of the kernel would make (all scalars and outputs)."""
    from rocarray._user_kernels import _user_spec
    from rocarray.random import _kernels

    k = _kernels.kernel(kind, dtype)
    params = list(k.in_params) + list(k.out_params)
    kinds = ["scalar"] * len(k.in_params) + ["out"] * len(k.out_params)
    dtypes = [np.dtype(p.type_name) for p in params]
    return _user_spec(k.name, k.operation, k.preamble, k._names, kinds, dtypes, {})


@pytest.mark.skipif(find_libdevice() is None, reason="libdevice.10.bc not found (CUDA toolkit or nvidia-nvvm)")
@pytest.mark.parametrize("kind,dtype", NEW_KERNELS)
def test_new_kernels_compile_for_sm_90(kind, dtype):
    ptx = NVPTXTarget("sm_90").emit_ptx(_spec_for(kind, dtype).build_module(NVPTXTarget("sm_90")))
    assert ".entry" in ptx and "mul.hi.u32" in ptx


@pytest.mark.skipif(find_device_libs() is None or find_lld() is None,
                    reason="ROCm device libraries or ld.lld not found")
@pytest.mark.parametrize("kind,dtype", NEW_KERNELS)
def test_new_kernels_compile_for_gfx942(kind, dtype):
    target = AMDGPUTarget("gfx942")
    assert len(target.compile(_spec_for(kind, dtype).build_module(target))) > 1000
