"""rocarray.random: counter-based random numbers (Philox4x32-10) made by kernels of
rocarray's own pipeline, NumPy's ``Generator`` API, CuPy's module-level functions (NumPy's
legacy distributions among them), and the same stream for the same seed on every device
(docs/random.md)."""

from __future__ import annotations

import threading

import numpy as np

from ._generator import Generator, default_rng
from ._philox import Philox

_global = None
_global_lock = threading.Lock()


def _rng() -> Generator:
    global _global
    if _global is None:
        with _global_lock:
            if _global is None:
                _global = default_rng()
    return _global


def seed(seed=None) -> None:
    """``seed(seed=None)``: reset the global generator of the module-level functions to
    ``default_rng(seed)`` (CuPy's ``cupy.random.seed``; None draws fresh entropy).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.seed(0); a = ra.random.rand(3); ra.random.seed(0)
        >>> bool((a == ra.random.rand(3)).all())
        True
    """
    global _global
    with _global_lock:
        _global = default_rng(seed)


def get_random_state() -> Generator:
    """The global generator the module-level functions use (made on first use; ``seed``
    replaces it).  CuPy returns its ``RandomState`` here; this is a ``Generator``.

    Examples:
        >>> import rocarray as ra
        >>> isinstance(ra.random.get_random_state(), ra.random.Generator)
        True
    """
    return _rng()


def rand(*size, dtype=np.float64):
    """``rand(*size, dtype=float64)``: uniform floats in [0, 1) of shape ``size``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.rand(2, 3).shape
        (2, 3)
    """
    return _rng().random(size, dtype=dtype)


def randn(*size, dtype=np.float64):
    """``randn(*size, dtype=float64)``: standard normal floats of shape ``size``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.randn(4).shape
        (4,)
    """
    return _rng().standard_normal(size, dtype=dtype)


def randint(low, high=None, size=None, dtype=np.int64):
    """``randint(low, high=None, size=None, dtype=int64)``: integers in [low, high) ([0,
    low) without ``high``), as ``Generator.integers``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.randint(0, 10, 5).dtype
        dtype('int64')
    """
    return _rng().integers(low, high, size, dtype=dtype)


def random_sample(size=None, dtype=np.float64):
    """``random_sample(size=None, dtype=float64)``: uniform floats in [0, 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.random_sample((2, 2)).shape
        (2, 2)
    """
    return _rng().random(size, dtype=dtype)


def uniform(low=0.0, high=1.0, size=None, dtype=np.float64):
    """``uniform(low=0.0, high=1.0, size=None, dtype=float64)``: floats in [low, high).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.uniform(-1, 1, 3).shape
        (3,)
    """
    return _rng().uniform(low, high, size, dtype=dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=np.float64):
    """``normal(loc=0.0, scale=1.0, size=None, dtype=float64)``: N(loc, scale^2).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.normal(0, 1, 3).shape
        (3,)
    """
    return _rng().normal(loc, scale, size, dtype=dtype)


def choice(a, size=None, replace=True, p=None):
    """``choice(a, size=None, replace=True, p=None)``: as ``Generator.choice``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.choice(5, 3, replace=False).shape
        (3,)
    """
    return _rng().choice(a, size, replace, p)


def shuffle(a) -> None:
    """``shuffle(a)``: permute the rocarray array ``a`` in place along its first axis.

    Examples:
        >>> import rocarray as ra
        >>> x = ra.arange(4); ra.random.shuffle(x); x.shape
        (4,)
    """
    _rng().shuffle(a)


def permutation(a):
    """``permutation(a)``: a permuted ``arange(a)`` for an int, else a permuted copy of
    ``a`` along its first axis.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.permutation(4).shape
        (4,)
    """
    return _rng().permutation(a)


# -- NumPy's legacy distributions (``numpy.random.<name>``, CuPy's ``cupy.random.<name>``):
# the global generator's methods of the same name

def random(size=None, dtype=np.float64):
    """``random(size=None, dtype=float64)``: uniform floats in [0, 1) (``Generator.random``).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.random((2, 3)).shape
        (2, 3)
    """
    return _rng().random(size, dtype=dtype)


def ranf(size=None, dtype=np.float64):
    """``ranf(size=None, dtype=float64)``: uniform floats in [0, 1) (NumPy's alias of
    ``random_sample``).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.ranf(3).shape
        (3,)
    """
    return _rng().random(size, dtype=dtype)


def sample(size=None, dtype=np.float64):
    """``sample(size=None, dtype=float64)``: uniform floats in [0, 1) (NumPy's alias of
    ``random_sample``).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.sample(3).shape
        (3,)
    """
    return _rng().random(size, dtype=dtype)


def bytes(length):
    """``bytes(length)``: ``length`` random bytes, as a Python ``bytes``.

    Examples:
        >>> import rocarray as ra
        >>> len(ra.random.bytes(5))
        5
    """
    return _rng().bytes(length)


def standard_normal(size=None, dtype=np.float64):
    """``standard_normal(size=None, dtype=float64)``: draws from the standard normal
    distribution N(0, 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.standard_normal(3).shape
        (3,)
    """
    return _rng().standard_normal(size, dtype=dtype)


def standard_exponential(size=None, dtype=np.float64):
    """``standard_exponential(size=None, dtype=float64)``: draws from the exponential
    distribution of mean 1.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.standard_exponential(3).shape
        (3,)
    """
    return _rng().standard_exponential(size, dtype=dtype)


def exponential(scale=1.0, size=None):
    """``exponential(scale=1.0, size=None)``: draws from the exponential distribution of
    mean ``scale``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.exponential(2.0, 3).shape
        (3,)
    """
    return _rng().exponential(scale, size)


def standard_gamma(shape, size=None, dtype=np.float64):
    """``standard_gamma(shape, size=None, dtype=float64)``: draws from the gamma
    distribution Gamma(shape, 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.standard_gamma(2.0, 3).shape
        (3,)
    """
    return _rng().standard_gamma(shape, size, dtype=dtype)


def gamma(shape, scale=1.0, size=None):
    """``gamma(shape, scale=1.0, size=None)``: draws from the gamma distribution
    Gamma(shape, scale).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.gamma(2.0, 3.0, 3).shape
        (3,)
    """
    return _rng().gamma(shape, scale, size)


def beta(a, b, size=None):
    """``beta(a, b, size=None)``: draws from the beta distribution Beta(a, b).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.beta(2.0, 3.0, 3).shape
        (3,)
    """
    return _rng().beta(a, b, size)


def chisquare(df, size=None):
    """``chisquare(df, size=None)``: draws from the chi-square distribution with ``df``
    degrees of freedom.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.chisquare(4.0, 3).shape
        (3,)
    """
    return _rng().chisquare(df, size)


def noncentral_chisquare(df, nonc, size=None):
    """``noncentral_chisquare(df, nonc, size=None)``: draws from the noncentral chi-square
    distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.noncentral_chisquare(4.0, 1.5, 3).shape
        (3,)
    """
    return _rng().noncentral_chisquare(df, nonc, size)


def f(dfnum, dfden, size=None):
    """``f(dfnum, dfden, size=None)``: draws from the F distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.f(3.0, 8.0, 3).shape
        (3,)
    """
    return _rng().f(dfnum, dfden, size)


def noncentral_f(dfnum, dfden, nonc, size=None):
    """``noncentral_f(dfnum, dfden, nonc, size=None)``: draws from the noncentral F
    distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.noncentral_f(3.0, 8.0, 2.0, 3).shape
        (3,)
    """
    return _rng().noncentral_f(dfnum, dfden, nonc, size)


def standard_t(df, size=None):
    """``standard_t(df, size=None)``: draws from Student's t distribution with ``df``
    degrees of freedom.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.standard_t(5.0, 3).shape
        (3,)
    """
    return _rng().standard_t(df, size)


def standard_cauchy(size=None):
    """``standard_cauchy(size=None)``: draws from the standard Cauchy distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.standard_cauchy(3).shape
        (3,)
    """
    return _rng().standard_cauchy(size)


def lognormal(mean=0.0, sigma=1.0, size=None):
    """``lognormal(mean=0.0, sigma=1.0, size=None)``: draws from the log-normal
    distribution, ``exp`` of N(mean, sigma^2).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.lognormal(0.0, 0.5, 3).shape
        (3,)
    """
    return _rng().lognormal(mean, sigma, size)


def gumbel(loc=0.0, scale=1.0, size=None):
    """``gumbel(loc=0.0, scale=1.0, size=None)``: draws from the Gumbel distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.gumbel(0.0, 1.0, 3).shape
        (3,)
    """
    return _rng().gumbel(loc, scale, size)


def laplace(loc=0.0, scale=1.0, size=None):
    """``laplace(loc=0.0, scale=1.0, size=None)``: draws from the Laplace (double
    exponential) distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.laplace(0.0, 1.0, 3).shape
        (3,)
    """
    return _rng().laplace(loc, scale, size)


def logistic(loc=0.0, scale=1.0, size=None):
    """``logistic(loc=0.0, scale=1.0, size=None)``: draws from the logistic distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.logistic(0.0, 1.0, 3).shape
        (3,)
    """
    return _rng().logistic(loc, scale, size)


def rayleigh(scale=1.0, size=None):
    """``rayleigh(scale=1.0, size=None)``: draws from the Rayleigh distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.rayleigh(1.0, 3).shape
        (3,)
    """
    return _rng().rayleigh(scale, size)


def weibull(a, size=None):
    """``weibull(a, size=None)``: draws from the Weibull distribution with shape ``a``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.weibull(2.0, 3).shape
        (3,)
    """
    return _rng().weibull(a, size)


def pareto(a, size=None):
    """``pareto(a, size=None)``: draws from the Pareto II (Lomax) distribution with shape
    ``a``, as NumPy's ``pareto``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.pareto(3.0, 3).shape
        (3,)
    """
    return _rng().pareto(a, size)


def power(a, size=None):
    """``power(a, size=None)``: draws in [0, 1] from the power distribution with density
    ``a x^(a-1)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.power(3.0, 3).shape
        (3,)
    """
    return _rng().power(a, size)


def triangular(left, mode, right, size=None):
    """``triangular(left, mode, right, size=None)``: draws from the triangular
    distribution over [left, right].

    Examples:
        >>> import rocarray as ra
        >>> ra.random.triangular(0.0, 0.5, 2.0, 3).shape
        (3,)
    """
    return _rng().triangular(left, mode, right, size)


def wald(mean, scale, size=None):
    """``wald(mean, scale, size=None)``: draws from the Wald (inverse Gaussian)
    distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.wald(1.0, 2.0, 3).shape
        (3,)
    """
    return _rng().wald(mean, scale, size)


def vonmises(mu, kappa, size=None):
    """``vonmises(mu, kappa, size=None)``: draws in [-pi, pi) from the von Mises
    distribution.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.vonmises(0.0, 2.0, 3).shape
        (3,)
    """
    return _rng().vonmises(mu, kappa, size)


def dirichlet(alpha, size=None):
    """``dirichlet(alpha, size=None)``: draws from the Dirichlet distribution, shape
    ``size + (len(alpha),)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.dirichlet([1.0, 2.0], 3).shape
        (3, 2)
    """
    return _rng().dirichlet(alpha, size)


def multivariate_normal(mean, cov, size=None, check_valid="warn", tol=1e-8):
    """``multivariate_normal(mean, cov, size=None, check_valid='warn', tol=1e-8)``: draws
    from the multivariate normal distribution, shape ``size + (len(mean),)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.multivariate_normal([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], 3).shape
        (3, 2)
    """
    return _rng().multivariate_normal(mean, cov, size, check_valid, tol)


def poisson(lam=1.0, size=None):
    """``poisson(lam=1.0, size=None)``: draws from the Poisson distribution (int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.poisson(3.0, 3).dtype
        dtype('int64')
    """
    return _rng().poisson(lam, size)


def binomial(n, p, size=None):
    """``binomial(n, p, size=None)``: draws from the binomial distribution (int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.binomial(10, 0.5, 3).dtype
        dtype('int64')
    """
    return _rng().binomial(n, p, size)


def negative_binomial(n, p, size=None):
    """``negative_binomial(n, p, size=None)``: draws from the negative binomial
    distribution (int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.negative_binomial(3, 0.5, 3).dtype
        dtype('int64')
    """
    return _rng().negative_binomial(n, p, size)


def geometric(p, size=None):
    """``geometric(p, size=None)``: draws from the geometric distribution (int64, >= 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.geometric(0.5, 3).dtype
        dtype('int64')
    """
    return _rng().geometric(p, size)


def hypergeometric(ngood, nbad, nsample, size=None):
    """``hypergeometric(ngood, nbad, nsample, size=None)``: draws from the hypergeometric
    distribution (int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.hypergeometric(5, 5, 4, 3).dtype
        dtype('int64')
    """
    return _rng().hypergeometric(ngood, nbad, nsample, size)


def logseries(p, size=None):
    """``logseries(p, size=None)``: draws from the logarithmic series distribution (int64,
    >= 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.logseries(0.5, 3).dtype
        dtype('int64')
    """
    return _rng().logseries(p, size)


def zipf(a, size=None):
    """``zipf(a, size=None)``: draws from the Zipf distribution (int64, >= 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.zipf(3.0, 3).dtype
        dtype('int64')
    """
    return _rng().zipf(a, size)


def multinomial(n, pvals, size=None):
    """``multinomial(n, pvals, size=None)``: draws from the multinomial distribution,
    int64 counts of shape ``size + (len(pvals),)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.multinomial(10, [0.5, 0.5], 3).shape
        (3, 2)
    """
    return _rng().multinomial(n, pvals, size)


_DISTRIBUTIONS = ["random", "ranf", "sample", "bytes", "standard_normal", "standard_exponential", "exponential",
                  "standard_gamma", "gamma", "beta", "chisquare", "noncentral_chisquare", "f", "noncentral_f",
                  "standard_t", "standard_cauchy", "lognormal", "gumbel", "laplace", "logistic", "rayleigh",
                  "weibull", "pareto", "power", "triangular", "wald", "vonmises", "dirichlet",
                  "multivariate_normal", "poisson", "binomial", "negative_binomial", "geometric", "hypergeometric",
                  "logseries", "zipf", "multinomial"]


__all__ = ["Generator", "Philox", "default_rng", "seed", "get_random_state", "rand", "randn", "randint",
           "random_sample", "uniform", "normal", "choice", "shuffle", "permutation", *_DISTRIBUTIONS]
