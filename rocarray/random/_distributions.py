"""The distributions of ``rocarray.random.Generator`` derived from its uniforms, normals,
gammas and per-element samplers (NumPy's ``Generator`` methods beyond the first ones):
``_Distributions``, a base of ``Generator``."""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .._array_object import Array
from .._creation_functions import asarray, zeros
from .._elementwise_functions import (ceil, exp, expm1, floor, isnan, log, log1p, maximum, minimum, sqrt,
                                      tan, where)
from .._manipulation_functions import stack
from .._statistical_functions import sum as _sum
from ._common import (_FLOATS, _INT64_MAX, _POISSON_LAM_MAX, _bad, _host, _is_scalar, _log1p,
                      _result_shape, _shape, _to_int64)


class _Distributions:
    """NumPy's distributions built on a ``Generator``'s samplers (``_blocked``,
    ``_per_element``, ``standard_normal``, ``standard_gamma``, ...)."""

    # -- distributions derived from uniforms, normals and gammas -------------------------------

    def _params(self, size, *params) -> tuple:
        """The result's shape (``size``, or the parameters' broadcast shape) and the
        parameters as Python floats or float64 arrays on the device."""
        dev = self.device
        vals, shapes = [], []
        for v in params:
            if _is_scalar(v):
                vals.append(float(v))
            else:
                a = asarray(v, device=dev)
                vals.append(a.astype(np.float64) if a.dtype != np.float64 else a)
                shapes.append(a.shape)
        return _result_shape(size, shapes), vals

    def _checkable(self, values: tuple, dtype=None) -> list:
        """Parameters as arrays that combine in the checks of their relations: rocarray
        arrays on the device if any of them is one, else NumPy arrays on the host."""
        if any(isinstance(v, Array) for v in values):
            out = [asarray(v, device=self.device) for v in values]
            return out if dtype is None else [a.astype(dtype) if a.dtype != dtype else a for a in out]
        return [np.asarray(v, dtype=dtype) for v in values]

    def _open_uniform(self, shape: tuple) -> Array:
        """float64 uniforms in the open interval (0, 1), 52 random bits (never 0 or 1: the
        inversion samplers take logarithms of them and of ``1 - u``)."""
        return self._blocked("uniform_open", _FLOATS[1], shape, ())

    def _std_gamma(self, shape: tuple, a) -> Array:
        """Gamma(a, 1) of ``shape`` in float64 (``a``: a float or an array broadcasting to it)."""
        return self._per_element("gamma", np.float64, shape, (a, 1.0), (np.float64, np.float64))

    def standard_cauchy(self, size=None) -> Array:
        """``standard_cauchy(size=None)``: draws from the standard Cauchy (Lorentz)
        distribution, by inversion: ``tan(pi (u - 1/2))`` for u uniform in (0, 1).

        Examples:
            >>> default_rng(20).standard_cauchy(4).shape
            (4,)
        """
        return tan(math.pi * (self._open_uniform(_shape(size)) - 0.5))

    def lognormal(self, mean=0.0, sigma=1.0, size=None) -> Array:
        """``lognormal(mean=0.0, sigma=1.0, size=None)``: draws from the log-normal
        distribution, ``exp(normal(mean, sigma))``; ``sigma < 0`` is a ``ValueError``.

        Examples:
            >>> float(default_rng(21).lognormal(0, 1, 100).min()) > 0
            True
        """
        if _bad(sigma, lambda v: v < 0):
            raise ValueError("sigma < 0")
        shape, (m, s) = self._params(size, mean, sigma)
        return exp(m + s * self.standard_normal(shape))

    def chisquare(self, df, size=None) -> Array:
        """``chisquare(df, size=None)``: draws from the chi-square distribution with ``df``
        degrees of freedom, ``2 standard_gamma(df / 2)``; ``df <= 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(22).chisquare(3.0, 5).shape
            (5,)
        """
        if _bad(df, lambda v: v <= 0):
            raise ValueError("df <= 0")
        shape, (d,) = self._params(size, df)
        return 2.0 * self._std_gamma(shape, d / 2)

    def noncentral_chisquare(self, df, nonc, size=None) -> Array:
        """``noncentral_chisquare(df, nonc, size=None)``: draws from the noncentral
        chi-square distribution, as the Poisson mixture ``chisquare(df + 2K)`` with K ~
        Poisson(nonc / 2).  ``df <= 0`` or ``nonc < 0`` is a ``ValueError``; a NaN ``nonc``
        gives NaN, as in NumPy.

        Examples:
            >>> default_rng(23).noncentral_chisquare(3.0, 2.0, 5).shape
            (5,)
        """
        if _bad(df, lambda v: v <= 0):
            raise ValueError("df <= 0")
        if _bad(nonc, lambda v: v < 0):
            raise ValueError("nonc < 0")
        if _bad(nonc, lambda v: v > 2 * _POISSON_LAM_MAX):
            raise ValueError("nonc value too large")
        shape, (d, c) = self._params(size, df, nonc)
        # (a NaN mean would never end the Poisson kernel's loop: it draws with 0 instead,
        # and the NaN comes back through ``0 * c``)
        lam = (0.0 if c != c else c / 2) if isinstance(c, float) else where(isnan(c), 0.0, c / 2)
        k = self._per_element("poisson", np.int64, shape, (lam,), (np.float64,)).astype(np.float64)
        return 2.0 * self._std_gamma(shape, d / 2 + k) + 0.0 * c

    def standard_t(self, df, size=None) -> Array:
        """``standard_t(df, size=None)``: draws from Student's t distribution with ``df``
        degrees of freedom, ``Z / sqrt(chisquare(df) / df)``; ``df <= 0`` is a
        ``ValueError``.

        Examples:
            >>> default_rng(24).standard_t(5.0, 3).shape
            (3,)
        """
        if _bad(df, lambda v: v <= 0):
            raise ValueError("df <= 0")
        shape, (d,) = self._params(size, df)
        z = self.standard_normal(shape)
        return z * sqrt(d / (2.0 * self._std_gamma(shape, d / 2)))

    def f(self, dfnum, dfden, size=None) -> Array:
        """``f(dfnum, dfden, size=None)``: draws from the F (Fisher-Snedecor)
        distribution, the ratio of two chi-square variates over their degrees of freedom;
        ``dfnum <= 0`` or ``dfden <= 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(25).f(3.0, 7.0, 4).shape
            (4,)
        """
        if _bad(dfnum, lambda v: v <= 0):
            raise ValueError("dfnum <= 0")
        if _bad(dfden, lambda v: v <= 0):
            raise ValueError("dfden <= 0")
        shape, (n, m) = self._params(size, dfnum, dfden)
        return (self._std_gamma(shape, n / 2) * m) / (self._std_gamma(shape, m / 2) * n)

    def noncentral_f(self, dfnum, dfden, nonc, size=None) -> Array:
        """``noncentral_f(dfnum, dfden, nonc, size=None)``: draws from the noncentral F
        distribution, ``(noncentral_chisquare(dfnum, nonc) / dfnum) / (chisquare(dfden) /
        dfden)``; ``dfnum <= 0``, ``dfden <= 0`` or ``nonc < 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(26).noncentral_f(3.0, 20.0, 3.0, 4).shape
            (4,)
        """
        if _bad(dfnum, lambda v: v <= 0):
            raise ValueError("dfnum <= 0")
        if _bad(dfden, lambda v: v <= 0):
            raise ValueError("dfden <= 0")
        if _bad(nonc, lambda v: v < 0):
            raise ValueError("nonc < 0")
        shape, (n, m, _) = self._params(size, dfnum, dfden, nonc)
        top = self.noncentral_chisquare(dfnum, nonc, shape) * m
        return top / (2.0 * self._std_gamma(shape, m / 2) * n)

    def dirichlet(self, alpha, size=None) -> Array:
        """``dirichlet(alpha, size=None)``: draws from the Dirichlet distribution over the
        simplex, shape ``size + (len(alpha),)``: independent ``standard_gamma(alpha_j)``
        normalised to sum 1.  ``alpha`` is 1-D; a negative ``alpha`` is a ``ValueError``.
        (NumPy switches to stick-breaking with beta variates when every alpha is below 0.1;
        here, for alphas far below 0.01, all the gamma variates of a draw can underflow and
        give NaN.)

        Examples:
            >>> default_rng(27).dirichlet([1.0, 2.0, 3.0], 5).shape
            (5, 3)
        """
        if np.ndim(alpha) != 1 and not (isinstance(alpha, Array) and alpha.ndim == 1):
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        if _bad(alpha, lambda v: v < 0):
            raise ValueError("alpha < 0")
        a = asarray(alpha, device=self.device)
        a = a.astype(np.float64) if a.dtype != np.float64 else a
        g = self._std_gamma(_shape(size) + a.shape, a)
        return g / _sum(g, axis=-1, keepdims=True)

    def gumbel(self, loc=0.0, scale=1.0, size=None) -> Array:
        """``gumbel(loc=0.0, scale=1.0, size=None)``: draws from the Gumbel (extreme value
        type I) distribution, by inversion: ``loc - scale log(-log u)``; ``scale < 0`` is a
        ``ValueError``.

        Examples:
            >>> default_rng(28).gumbel(0.0, 2.0, 3).shape
            (3,)
        """
        if _bad(scale, lambda v: v < 0):
            raise ValueError("scale < 0")
        shape, (mu, beta) = self._params(size, loc, scale)
        return mu - beta * log(-log(self._open_uniform(shape)))

    def logistic(self, loc=0.0, scale=1.0, size=None) -> Array:
        """``logistic(loc=0.0, scale=1.0, size=None)``: draws from the logistic
        distribution, by inversion: ``loc + scale log(u / (1 - u))``; ``scale < 0`` is a
        ``ValueError``.

        Examples:
            >>> default_rng(29).logistic(1.0, 0.5, 3).shape
            (3,)
        """
        if _bad(scale, lambda v: v < 0):
            raise ValueError("scale < 0")
        shape, (mu, s) = self._params(size, loc, scale)
        u = self._open_uniform(shape)
        return mu + s * (log(u) - log1p(-u))

    def laplace(self, loc=0.0, scale=1.0, size=None) -> Array:
        """``laplace(loc=0.0, scale=1.0, size=None)``: draws from the Laplace (double
        exponential) distribution, by inversion; ``scale < 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(30).laplace(0.0, 1.0, 3).shape
            (3,)
        """
        if _bad(scale, lambda v: v < 0):
            raise ValueError("scale < 0")
        shape, (mu, b) = self._params(size, loc, scale)
        u = self._open_uniform(shape)
        return mu + b * where(u < 0.5, log(2.0 * u), -log(2.0 - 2.0 * u))

    def rayleigh(self, scale=1.0, size=None) -> Array:
        """``rayleigh(scale=1.0, size=None)``: draws from the Rayleigh distribution, by
        inversion: ``scale sqrt(-2 log u)``; ``scale < 0`` is a ``ValueError``.

        Examples:
            >>> float(default_rng(31).rayleigh(2.0, 10).min()) > 0
            True
        """
        if _bad(scale, lambda v: v < 0):
            raise ValueError("scale < 0")
        shape, (s,) = self._params(size, scale)
        return s * sqrt(-2.0 * log(self._open_uniform(shape)))

    def weibull(self, a, size=None) -> Array:
        """``weibull(a, size=None)``: draws from the Weibull distribution with shape ``a``
        (scale 1), by inversion: ``(-log u)^(1/a)``; ``a = 0`` gives 0, as in NumPy;
        ``a < 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(32).weibull(1.5, 3).shape
            (3,)
        """
        if _bad(a, lambda v: v < 0):
            raise ValueError("a < 0")
        shape, (k,) = self._params(size, a)
        e = -log(self._open_uniform(shape))
        if isinstance(k, float):
            return e * 0.0 if k == 0 else e ** (1.0 / k)
        return where(k == 0, 0.0, e ** (1.0 / where(k == 0, 1.0, k)))

    def pareto(self, a, size=None) -> Array:
        """``pareto(a, size=None)``: draws from the Pareto II (Lomax) distribution with
        shape ``a``, NumPy's ``pareto``: ``u^(-1/a) - 1`` (add 1 and multiply by m for the
        classical Pareto of minimum m); ``a <= 0`` is a ``ValueError``.

        Examples:
            >>> float(default_rng(33).pareto(3.0, 10).min()) >= 0
            True
        """
        if _bad(a, lambda v: v <= 0):
            raise ValueError("a <= 0")
        shape, (k,) = self._params(size, a)
        return expm1(-log(self._open_uniform(shape)) / k)

    def power(self, a, size=None) -> Array:
        """``power(a, size=None)``: draws in [0, 1] from the power distribution with
        exponent ``a - 1`` (density ``a x^(a-1)``): ``u^(1/a)``; ``a <= 0`` is a
        ``ValueError``.

        Examples:
            >>> float(default_rng(34).power(5.0, 10).max()) <= 1
            True
        """
        if _bad(a, lambda v: v <= 0):
            raise ValueError("a <= 0")
        shape, (k,) = self._params(size, a)
        return self._open_uniform(shape) ** (1.0 / k)

    def triangular(self, left, mode, right, size=None) -> Array:
        """``triangular(left, mode, right, size=None)``: draws from the triangular
        distribution over [left, right] with peak at ``mode``, by inversion.  ``left >
        mode``, ``mode > right`` or ``left == right`` is a ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(35).triangular(0.0, 1.0, 4.0, 3).shape
            (3,)
        """
        lo, md, hi = self._checkable((left, mode, right), np.float64)
        if _bad(lo - md, lambda v: v > 0):
            raise ValueError("left > mode")
        if _bad(md - hi, lambda v: v > 0):
            raise ValueError("mode > right")
        if _bad(lo - hi, lambda v: v == 0):
            raise ValueError("left == right")
        shape, (a, c, b) = self._params(size, left, mode, right)
        u = self._open_uniform(shape)
        width = b - a
        return where(u <= (c - a) / width, a + sqrt(u * width * (c - a)),
                     b - sqrt((1.0 - u) * width * (b - c)))

    def wald(self, mean, scale, size=None) -> Array:
        """``wald(mean, scale, size=None)``: draws from the Wald (inverse Gaussian)
        distribution, by Michael, Schucany and Haas' transformation of a chi-square(1)
        variate (its smaller root in a form without cancellation); ``mean <= 0`` or
        ``scale <= 0`` is a ``ValueError``.

        Examples:
            >>> float(default_rng(36).wald(1.0, 2.0, 10).min()) > 0
            True
        """
        if _bad(mean, lambda v: v <= 0):
            raise ValueError("mean <= 0")
        if _bad(scale, lambda v: v <= 0):
            raise ValueError("scale <= 0")
        shape, (mu, lam) = self._params(size, mean, scale)
        z = self.standard_normal(shape)
        r = mu * (z * z) / (2.0 * lam)
        x = mu / (1.0 + r + sqrt(r * (r + 2.0)))
        u = self.random(shape)
        return where(u * (mu + x) <= mu, x, mu * mu / x)

    def vonmises(self, mu, kappa, size=None) -> Array:
        """``vonmises(mu, kappa, size=None)``: draws in [-pi, pi) from the von Mises
        distribution on the circle (mean direction ``mu``, concentration ``kappa``), by Best
        and Fisher's rejection (uniform below kappa = 1e-8, the wrapped normal above 1e6);
        ``kappa < 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(37).vonmises(0.0, 4.0, 3).shape
            (3,)
        """
        if _bad(kappa, lambda v: v < 0):
            raise ValueError("kappa < 0")
        return self._per_element("vonmises", np.float64, size, (mu, kappa), (np.float64, np.float64))

    # -- discrete, derived and with kernels of their own ---------------------------------------

    def geometric(self, p, size=None) -> Array:
        """``geometric(p, size=None)``: draws from the geometric distribution (the number
        of trials up to the first success, >= 1) as int64, by inversion: ``ceil(log u /
        log(1 - p))``.  ``p <= 0``, ``p > 1`` or a NaN ``p`` is a ``ValueError``.

        Examples:
            >>> default_rng(38).geometric(0.25, 4).dtype
            dtype('int64')
        """
        if _bad(p, lambda v: (v <= 0) | (v > 1) | (v != v)):
            raise ValueError("p <= 0, p > 1 or p contains NaNs")
        shape, (q,) = self._params(size, p)
        x = ceil(log(self._open_uniform(shape)) / _log1p(-q))
        return _to_int64(maximum(x, 1.0))  # (p = 1: log(1 - p) = -inf gives 0)

    def negative_binomial(self, n, p, size=None) -> Array:
        """``negative_binomial(n, p, size=None)``: draws from the negative binomial
        distribution (failures before the n-th success; ``n`` may be real) as int64, as the
        gamma-Poisson mixture Poisson(Gamma(n, (1 - p) / p)).  ``n <= 0``, ``p`` outside
        (0, 1] or NaN, or a Poisson mean past int64 (n too large or p too small) is a
        ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(39).negative_binomial(3, 0.4, 4).dtype
            dtype('int64')
        """
        if _bad(n, lambda v: v <= 0):
            raise ValueError("n <= 0")
        if _bad(p, lambda v: (v <= 0) | (v > 1) | (v != v)):
            raise ValueError("p <= 0, p > 1 or p contains NaNs")
        shape, (k, q) = self._params(size, n, p)
        odds = (1.0 - q) / q
        if _bad(k * odds, lambda v: v > _POISSON_LAM_MAX):
            raise ValueError("n too large or p too small, see Generator.negative_binomial Notes")
        lam = minimum(self._std_gamma(shape, k) * odds, _POISSON_LAM_MAX)
        return self._per_element("poisson", np.int64, shape, (lam,), (np.float64,))

    def logseries(self, p, size=None) -> Array:
        """``logseries(p, size=None)``: draws from the logarithmic series distribution
        (values >= 1) as int64, by Kemp's algorithm LK (two uniforms a value, no loop).
        ``p < 0``, ``p >= 1`` or a NaN ``p`` is a ``ValueError``, as in NumPy.

        Examples:
            >>> int(default_rng(40).logseries(0.6, 10).min()) >= 1
            True
        """
        if _bad(p, lambda v: (v < 0) | (v >= 1) | (v != v)):
            raise ValueError("p < 0, p >= 1 or p is NaN")
        shape, (a,) = self._params(size, p)
        v = self._open_uniform(shape)
        q = -expm1(_log1p(-a) * self._open_uniform(shape))
        two_or_one = 2.0 - (v >= q).astype(np.float64)
        # (where q underflows to 0 the first branch, log q = -inf, is not the one taken)
        x = where(v >= a, 1.0, where(v <= q * q, floor(1.0 + log(v) / log(q)), two_or_one))
        return _to_int64(x)

    def zipf(self, a, size=None) -> Array:
        """``zipf(a, size=None)``: draws from the Zipf (zeta) distribution with exponent
        ``a`` as int64, by Devroye's rejection (values past int64 are redrawn, as in
        NumPy).  ``a <= 1`` or a NaN ``a`` is a ``ValueError``.

        Examples:
            >>> int(default_rng(41).zipf(2.5, 10).min()) >= 1
            True
        """
        if _bad(a, lambda v: (v <= 1) | (v != v)):
            raise ValueError("a <= 1 or a is NaN")
        return self._per_element("zipf", np.int64, size, (a,), (np.float64,))

    def _int_params(self, who: str, names: tuple, values: tuple) -> list:
        """Integer parameters as int64 arrays (``_checkable``); a non-integer one is a
        TypeError."""
        out = []
        for name, a in zip(names, self._checkable(values)):
            if a.dtype.kind not in "iub":
                raise TypeError(f"{who}: {name} must be integers, got dtype {a.dtype}")
            out.append(a.astype(np.int64) if a.dtype != np.int64 else a)
        return out

    def hypergeometric(self, ngood, nbad, nsample, size=None) -> Array:
        """``hypergeometric(ngood, nbad, nsample, size=None)``: draws from the
        hypergeometric distribution (good items among ``nsample`` drawn without replacement
        from ``ngood`` good and ``nbad`` bad) as int64, by inversion with a search from the
        mode.  Negative parameters, ``ngood + nbad < nsample`` or ``ngood`` or ``nbad`` not
        below 10^9 is a ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(42).hypergeometric(10, 5, 7, 4).dtype
            dtype('int64')
        """
        g, b, n = self._int_params("hypergeometric", ("ngood", "nbad", "nsample"), (ngood, nbad, nsample))
        for name, v in (("ngood", g), ("nbad", b), ("nsample", n)):
            if _bad(v, lambda x: x < 0):
                raise ValueError(f"{name} < 0")
        if _bad(g + b - n, lambda x: x < 0):
            raise ValueError("ngood + nbad < nsample")
        if _bad(g, lambda x: x >= 10**9) or _bad(b, lambda x: x >= 10**9):
            raise ValueError("both ngood and nbad must be less than 1000000000")
        args = [int(v) if v.ndim == 0 and not isinstance(v, Array) else v for v in (g, b, n)]
        return self._per_element("hypergeometric", np.int64, size, tuple(args), (np.int64,) * 3)

    # -- multivariate --------------------------------------------------------------------------

    def multinomial(self, n, pvals, size=None) -> Array:
        """``multinomial(n, pvals, size=None)``: draws from the multinomial distribution,
        int64 counts of shape ``size + (len(pvals),)`` (``size`` defaults to the broadcast
        of ``n`` and ``pvals[..., 0]``), by conditional binomials; the last category takes
        what is left (``pvals[-1]`` is not read, as in NumPy).  NumPy's ``ValueError``\\ s
        for ``n < 0``, ``pvals`` outside [0, 1] or NaN, ``sum(pvals[:-1]) > 1``.

        Examples:
            >>> default_rng(43).multinomial(20, [0.2, 0.3, 0.5], 4).shape
            (4, 3)
        """
        pv = _host(pvals, np.float64)
        if pv.ndim == 0 or pv.shape[-1] == 0:
            raise ValueError("pvals must have at least 1 dimension and the last dimension of pvals "
                             "must be greater than 0.")
        if np.any((pv < 0) | (pv > 1) | np.isnan(pv)):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if np.any(np.sum(pv[..., :-1], axis=-1) > 1.0 + 1e-12):
            raise ValueError("sum(pvals[:-1]) > 1.0")
        (nn,) = self._int_params("multinomial", ("n",), (n,))
        if _bad(nn, lambda v: v < 0):
            raise ValueError("n < 0")
        shape = _result_shape(size, [tuple(nn.shape), pv.shape[:-1]])
        left = zeros(shape, dtype=np.int64, device=self.device) + asarray(nn, device=self.device)
        mass = np.ones(pv.shape[:-1])
        cols = []
        for j in range(pv.shape[-1] - 1):
            with np.errstate(divide="ignore", invalid="ignore"):
                cond = np.where(mass > 0, np.clip(pv[..., j] / mass, 0.0, 1.0), 0.0)
            x = self._per_element("binomial", np.int64, shape, (left, cond), (np.int64, np.float64))
            cols.append(x)
            left = left - x
            mass = mass - pv[..., j]
        cols.append(left)
        return stack(cols, axis=-1)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals") -> Array:
        """``multivariate_hypergeometric(colors, nsample, size=None, method='marginals')``:
        draws from the multivariate hypergeometric distribution (how many of each color
        among ``nsample`` items drawn without replacement from an urn holding ``colors[j]``
        items of color j), int64 of shape ``size + (len(colors),)``, by hypergeometric
        marginals.  ``method``: 'marginals' or 'count', both sampled by the marginals here
        (the same law; NumPy's 'count' is another algorithm); ``sum(colors)`` must be below
        10^9 for both.  NumPy's ``ValueError``\\ s for bad colors and ``nsample``.

        Examples:
            >>> default_rng(44).multivariate_hypergeometric([4, 5, 6], 7, 3).shape
            (3, 3)
        """
        if method not in ("count", "marginals"):
            raise ValueError('method must be "count" or "marginals".')
        col = _host(colors)
        if col.ndim != 1 or (col.size and (col.dtype.kind not in "iu" or np.any(col < 0))):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative integers "
                             f"not exceeding {_INT64_MAX}.")
        col = col.astype(np.int64)
        total = int(np.sum(col, dtype=object)) if col.size else 0
        if total >= 10**9:
            raise ValueError("sum(colors) must be less than 1000000000 (the marginals method)")
        (ns,) = self._int_params("multivariate_hypergeometric", ("nsample",), (nsample,))
        if _bad(ns, lambda v: v < 0):
            raise ValueError("nsample must be nonnegative.")
        if _bad(ns, lambda v: v > total):
            raise ValueError("nsample > sum(colors)")
        shape = _result_shape(size, [tuple(ns.shape)])
        if col.size == 0:
            return zeros(shape + (0,), dtype=np.int64, device=self.device)
        left = zeros(shape, dtype=np.int64, device=self.device) + asarray(ns, device=self.device)
        rest = total
        cols = []
        for c in col[:-1].tolist():
            rest -= c
            x = self._per_element("hypergeometric", np.int64, shape, (c, rest, left), (np.int64,) * 3)
            cols.append(x)
            left = left - x
        cols.append(left)
        return stack(cols, axis=-1)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd") -> Array:
        """``multivariate_normal(mean, cov, size=None, check_valid='warn', tol=1e-8, *,
        method='svd')``: draws from the multivariate normal distribution, float64 of shape
        ``size + (len(mean),)``: ``mean + z A^T`` for standard normals z and ``A A^T = cov``.
        ``A`` comes from an SVD, an eigendecomposition or a Cholesky factor (``method``) of
        the small k x k ``cov``, computed by NumPy on the host; the draws are made on the
        device.  A ``cov`` not symmetric positive-semidefinite (within ``tol``) warns
        (``check_valid='warn'``), raises ('raise') or is used as it is ('ignore').

        Examples:
            >>> default_rng(45).multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], 4).shape
            (4, 2)
        """
        mu = _host(mean, np.float64)
        cv = _host(cov, np.float64)
        if mu.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cv.ndim != 2 or cv.shape[0] != cv.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mu.shape[0] != cv.shape[0]:
            raise ValueError("mean and cov must have same length")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if method == "cholesky":
            factor_t = np.linalg.cholesky(cv).T
            psd = True
        elif method == "eigh":
            s, u = np.linalg.eigh(cv)
            psd = not np.any(s < -tol)
            factor_t = (u * np.sqrt(np.abs(s))).T
        else:
            u, s, vh = np.linalg.svd(cv)
            psd = np.allclose((vh.T * s) @ vh, cv, rtol=tol, atol=tol)
            factor_t = np.sqrt(s)[:, None] * vh
        if not psd and check_valid != "ignore":
            if check_valid == "raise":
                raise ValueError("covariance is not symmetric positive-semidefinite.")
            warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
        shape = _shape(size)
        k = mu.shape[0]
        z = self.standard_normal((math.prod(shape), k))
        dev = self.device
        x = z @ asarray(factor_t, device=dev) + asarray(mu, device=dev)
        return x.reshape(shape + (k,))

    def bytes(self, length) -> bytes:
        """``bytes(length)``: ``length`` random bytes (a Python ``bytes``), the stream's
        next words in little-endian order.

        Examples:
            >>> len(default_rng(46).bytes(10))
            10
        """
        n = operator.index(length)
        if n < 0:
            raise ValueError(f"length must be non-negative, got {n}")
        words = self._bg.random_raw((n + 3) // 4, device=self.device).get()
        return words.astype("<u4").tobytes()[:n]
