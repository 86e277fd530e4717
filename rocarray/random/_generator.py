"""``Generator``: NumPy's ``numpy.random.Generator`` methods over the Philox4x32-10
kernels, with results on the generator's device."""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from .._array_object import Array
from .._creation_functions import asarray, empty
from .._device import as_device, default_device
from .._elementwise_functions import minimum
from .._indexing_functions import searchsorted, take, take_along_axis
from .._sorting_functions import argsort
from .._statistical_functions import any as _any
from . import _kernels
from ._common import (_FLOATS, _POISSON_LAM_MAX, _bad, _contiguous_result, _finish, _float_dtype,
                      _is_scalar, _result_shape, _shape)
from ._distributions import _Distributions
from ._philox import Philox


class Generator(_Distributions):
    """Random numbers with NumPy's ``Generator`` methods, made by Philox4x32-10 kernels.

    ``Generator(bit_generator, *, device=None)``: ``bit_generator`` is a ``Philox``;
    results are arrays on ``device`` (default: the default device at each call).  The same
    seed gives the same numbers on every device (raw words, integers, uniforms and
    permutations bit for bit; distributions through ``log``/``sin``/``cos``/``pow``/``lgamma``
    within a few ulps, the devices' math libraries differing).  Differences from NumPy:
    other algorithms (Box-Muller normals, inversion exponentials, PTRS and BTRS for
    Poisson and binomial), so other numbers for a seed; ``size=None`` gives a 0-d array;
    integer bounds are Python ints, not arrays.

    Examples:
        >>> import rocarray as ra
        >>> rng = ra.random.default_rng(42, device="cpu")
        >>> rng.random(3).shape
        (3,)
    """

    def __init__(self, bit_generator: Philox, *, device=None):
        if not isinstance(bit_generator, Philox):
            raise TypeError(f"Generator needs a rocarray.random.Philox, got {type(bit_generator).__name__}")
        self._bg = bit_generator
        self._device = None if device is None else as_device(device)

    @property
    def bit_generator(self) -> Philox:
        """The ``Philox`` bit generator (its key and counter: ``rng.bit_generator.state``).

        Examples:
            >>> default_rng(3).bit_generator.counter
            (0, 0, 0, 0)
        """
        return self._bg

    @property
    def device(self):
        """The device results are made on: the one given, else the default device now.

        Examples:
            >>> str(default_rng(0, device="cpu").device)
            'cpu'
        """
        return self._device if self._device is not None else default_device()

    def __repr__(self) -> str:
        return f"Generator({self._bg!r}, device={self._device})"

    def spawn(self, n_children) -> list:
        """``spawn(n_children)``: independent generators on the same device, keyed by the
        seed sequence's children (NumPy's ``Generator.spawn``).

        Examples:
            >>> [g.random(2).shape for g in default_rng(1).spawn(2)]
            [(2,), (2,)]
        """
        return [Generator(bg, device=self._device) for bg in self._bg.spawn(n_children)]

    # -- the kernels ---------------------------------------------------------------------------

    def _blocked(self, kind: str, dtype, shape: tuple, extra: tuple, extra_type=float, draws: int = 1) -> Array:
        """Run a blocked kernel: each block gives ``per_block`` values, written to as many
        contiguous slices of one buffer; ``dtype``: a NumPy dtype (not a type: it keys the
        launchers); ``extra``: its scalars after the stream's (of ``extra_type``); ``draws``:
        blocks of the stream taken per loop element.  On a GPU the launch goes through the
        kernel's ``BlockedLauncher``, else (and on its first calls) through its plan."""
        n = math.prod(shape)
        dev = self._device or default_device()
        launcher = _kernels.blocked_launcher(kind, dtype, (extra_type,) * len(extra), dev)
        k = launcher.per_block
        m = -(-n // k)
        stream = self._bg.take_blocks(draws * m) if m else None
        buf = launcher(m, stream, extra) if m else None
        if buf is None:
            buf = Array._empty((k * m,), dtype, dev)
            if m:
                # the outputs are slices of one new buffer, so a call's checks of layouts
                # and devices would find nothing
                base, step = buf._buf.ptr, m * dtype.itemsize
                launcher.plan.launch_flat(m, (*stream, *extra), [base + j * step for j in range(k)])
        return buf if k * m == n and len(shape) == 1 else _contiguous_result(buf, n, shape)

    def _integers(self, dtype, shape: tuple, lo: int, n: int, one_pass: bool | None = None) -> Array:
        """Values ``lo + [0, n)`` (lo as its 64-bit pattern), four per block, unbiased
        (``_kernels.INTEGERS``): ``one_pass`` (the default on GPUs) redraws rejected values
        at once; else (the host's) a vectorised pass flags blocks with a rejected value, then
        the flagged blocks are redrawn.  Both give the same values."""
        wide = n > 1 << 32
        th = ((1 << 64) % n if n < 1 << 64 else 0) if wide else (1 << 32) % n
        nn = n & (2**64 - 1)
        kind = "integers_wide" if wide else "integers"
        dev = self.device
        if dev.kind != "cpu" if one_pass is None else one_pass:
            return self._blocked(kind + "_one", dtype, shape, (lo, nn, th), int, 2 if wide else 1)
        count = math.prod(shape)
        m = -(-count // 4)
        buf = Array._empty((4 * m,), np.dtype(dtype), dev)
        if m:
            args = self._bg.take_blocks(2 * m if wide else m)
            item = buf.dtype.itemsize
            quarters = [buf._view((m,), (item,), buf._offset + j * m * item) for j in range(4)]
            bad = Array._empty((m,), np.dtype(np.uint8), dev)
            _kernels.kernel(kind)(*args, lo, nn, th, *quarters, bad)
            # th = 0 (n a power of two: every full dtype range, the permutations' keys): no
            # value can be rejected, and no flag needs reading back
            if th and bool(_any(bad)):
                _kernels.kernel("integers_fix")(*args, lo, nn, th, int(wide), bad, *quarters)
        return _contiguous_result(buf, count, shape)

    def _per_element(self, kind: str, dtype, size, params: tuple, param_dtypes: tuple) -> Array:
        """Run a per-element kernel: parameters broadcast to ``size`` (or to each other)."""
        dev = self.device
        args, shapes = [], []
        for v, pdt in zip(params, param_dtypes):
            if _is_scalar(v):
                args.append(v.item() if isinstance(v, (np.generic, np.ndarray)) else v)
            else:
                a = asarray(v, device=dev)
                a = a.astype(pdt) if a.dtype != pdt else a
                args.append(a)
                shapes.append(a.shape)
        shape = _result_shape(size, shapes)
        out = empty(shape, dtype=dtype, device=dev)
        n = math.prod(shape)
        if n:
            _kernels.kernel(kind)(*self._bg.take_blocks(n), *args, out)
        return out

    # -- uniform ---------------------------------------------------------------------------------

    def random(self, size=None, dtype=np.float64, out=None) -> Array:
        """``random(size=None, dtype=float64, out=None)``: floats in [0, 1), with 24
        (float32) or 53 (float64) random bits, multiples of 2^-24 or 2^-53.

        Examples:
            >>> rng = default_rng(0); rng.random((2, 2), dtype="float32").dtype
            dtype('float32')
        """
        dt = _float_dtype(dtype, "random")
        shape = out.shape if out is not None and size is None else _shape(size)
        return _finish(self._blocked("uniform", dt, shape, (0.0, 1.0)), out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64) -> Array:
        """``uniform(low=0.0, high=1.0, size=None)``: floats in [low, high), ``low + (high -
        low) * random()``; array bounds broadcast.  ``dtype`` (float32/float64) is
        rocarray's and CuPy's addition.  A non-finite ``high - low`` is an
        ``OverflowError``, as in NumPy.

        Examples:
            >>> default_rng(1).uniform(-1, 1, 4).shape
            (4,)
        """
        dt = _float_dtype(dtype, "uniform")
        if _is_scalar(low) and _is_scalar(high):
            span = float(high) - float(low)
            if not math.isfinite(span):
                raise OverflowError("Range exceeds valid bounds")
            return self._blocked("uniform", dt, _shape(size), (float(low), span))
        lo, hi = asarray(low, dtype=dt, device=self.device), asarray(high, dtype=dt, device=self.device)
        shape = _result_shape(size, [lo.shape, hi.shape])
        return lo + (hi - lo) * self._blocked("uniform", dt, shape, (0.0, 1.0))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False) -> Array:
        """``integers(low, high=None, size=None, dtype=int64, endpoint=False)``: integers in
        [low, high) ([low, high] with ``endpoint=True``; [0, low) when ``high`` is None),
        every value equally likely (Lemire's multiply and reject, no modulo bias), for every
        integer dtype and bool.  Bounds are Python ints (NumPy also takes arrays).

        Examples:
            >>> x = default_rng(2).integers(0, 10, 5, dtype="int8"); x.dtype
            dtype('int8')
        """
        dt = np.dtype(dtype)
        if dt.kind not in "iub":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        if high is None:
            low, high = 0, low
        try:
            lo, hi = operator.index(low), operator.index(high)
        except TypeError:
            raise TypeError("integers: low and high must be ints (arrays of bounds are not "
                            "supported)") from None
        info = (0, 1) if dt.kind == "b" else (np.iinfo(dt).min, np.iinfo(dt).max)
        top = hi if endpoint else hi - 1
        if lo < info[0]:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if top > info[1]:
            raise ValueError(f"high is out of bounds for {dt.name}")
        if lo > top:
            raise ValueError("low > high" if endpoint else "low >= high")
        n = top - lo + 1
        kdt = np.dtype(np.uint8) if dt.kind == "b" else dt
        r = self._integers(kdt, _shape(size), lo & (2**64 - 1), n)
        return r.astype(dt) if kdt != dt else r

    # -- normal, exponential, gamma, beta ------------------------------------------------------

    def standard_normal(self, size=None, dtype=np.float64, out=None) -> Array:
        """``standard_normal(size=None, dtype=float64, out=None)``: N(0, 1) by Box and
        Muller (NumPy uses a ziggurat: other numbers for a seed).

        Examples:
            >>> default_rng(3).standard_normal(8, dtype="float32").shape
            (8,)
        """
        dt = _float_dtype(dtype, "standard_normal")
        shape = out.shape if out is not None and size is None else _shape(size)
        return _finish(self._blocked("normal", dt, shape, (0.0, 1.0)), out)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64) -> Array:
        """``normal(loc=0.0, scale=1.0, size=None)``: N(loc, scale^2); array parameters
        broadcast; ``scale < 0`` is a ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(4).normal(10, 2, (3, 3)).shape
            (3, 3)
        """
        dt = _float_dtype(dtype, "normal")
        if _bad(scale, lambda s: s < 0):
            raise ValueError("scale < 0")
        if _is_scalar(loc) and _is_scalar(scale):
            return self._blocked("normal", dt, _shape(size), (float(loc), float(scale)))
        lo, sc = asarray(loc, dtype=dt, device=self.device), asarray(scale, dtype=dt, device=self.device)
        shape = _result_shape(size, [lo.shape, sc.shape])
        return lo + sc * self._blocked("normal", dt, shape, (0.0, 1.0))

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None) -> Array:
        """``standard_exponential(size=None, dtype=float64, method='zig', out=None)``:
        Exp(1) by inversion, ``-log(u)``, whatever ``method`` says ('zig' or 'inv').

        Examples:
            >>> float(default_rng(5).standard_exponential(1000).min()) >= 0
            True
        """
        if method not in ("zig", "inv"):
            raise ValueError("method must be 'zig' or 'inv'")
        dt = _float_dtype(dtype, "standard_exponential")
        shape = out.shape if out is not None and size is None else _shape(size)
        return _finish(self._blocked("exponential", dt, shape, (1.0,)), out)

    def exponential(self, scale=1.0, size=None) -> Array:
        """``exponential(scale=1.0, size=None)``: Exp with mean ``scale`` (float64); array
        scales broadcast; ``scale < 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(6).exponential(2.0, 5).shape
            (5,)
        """
        if _bad(scale, lambda s: s < 0):
            raise ValueError("scale < 0")
        if _is_scalar(scale):
            return self._blocked("exponential", _FLOATS[1], _shape(size), (float(scale),))
        sc = asarray(scale, dtype=np.float64, device=self.device)
        shape = _result_shape(size, [sc.shape])
        return sc * self._blocked("exponential", _FLOATS[1], shape, (1.0,))

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None) -> Array:
        """``standard_gamma(shape, size=None, dtype=float64, out=None)``: Gamma(shape, 1)
        by Marsaglia and Tsang's method (computed in float64 for both dtypes).

        Examples:
            >>> default_rng(7).standard_gamma(2.5, 4).shape
            (4,)
        """
        dt = _float_dtype(dtype, "standard_gamma")
        if _bad(shape, lambda s: s < 0):
            raise ValueError("shape < 0")
        size = out.shape if out is not None and size is None else size
        r = self._per_element("gamma", dt, size, (shape, 1.0), (dt, dt))
        return _finish(r, out)

    def gamma(self, shape, scale=1.0, size=None) -> Array:
        """``gamma(shape, scale=1.0, size=None)``: Gamma(shape, scale), float64; array
        parameters broadcast; negative ``shape`` or ``scale`` is a ``ValueError``.

        Examples:
            >>> default_rng(8).gamma(0.5, 2.0, 3).shape
            (3,)
        """
        if _bad(shape, lambda s: s < 0):
            raise ValueError("shape < 0")
        if _bad(scale, lambda s: s < 0):
            raise ValueError("scale < 0")
        return self._per_element("gamma", np.float64, size, (shape, scale), (np.float64, np.float64))

    def beta(self, a, b, size=None) -> Array:
        """``beta(a, b, size=None)``: Beta(a, b) as ``X / (X + Y)`` of two gamma variates
        (NumPy uses Johnk's method below a, b <= 1; for a and b far below 0.01 both gamma
        variates can underflow and give NaN).  ``a <= 0`` or ``b <= 0`` is a ``ValueError``.

        Examples:
            >>> default_rng(9).beta(2.0, 5.0, 3).shape
            (3,)
        """
        if _bad(a, lambda v: v <= 0):
            raise ValueError("a <= 0")
        if _bad(b, lambda v: v <= 0):
            raise ValueError("b <= 0")
        if size is None and not (_is_scalar(a) and _is_scalar(b)):
            size = np.broadcast_shapes(np.shape(a), np.shape(b))
        x = self._per_element("gamma", np.float64, size, (a, 1.0), (np.float64, np.float64))
        y = self._per_element("gamma", np.float64, size, (b, 1.0), (np.float64, np.float64))
        return x / (x + y)

    # -- discrete --------------------------------------------------------------------------------

    def poisson(self, lam=1.0, size=None) -> Array:
        """``poisson(lam=1.0, size=None)``: Poisson(lam) as int64 (inversion by sequential
        search below lam = 10, Hörmann's PTRS above).  ``lam < 0``, a NaN ``lam`` or a lam
        too large for int64 is a ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(10).poisson(3.0, 4).dtype
            dtype('int64')
        """
        # (a NaN would never end the kernel's rejection loop)
        if _bad(lam, lambda v: (v < 0) | (v != v)):
            raise ValueError("lam < 0 or lam is NaN")
        if _bad(lam, lambda v: v > _POISSON_LAM_MAX):
            raise ValueError("lam value too large")
        return self._per_element("poisson", np.int64, size, (lam,), (np.float64,))

    def binomial(self, n, p, size=None) -> Array:
        """``binomial(n, p, size=None)``: Binomial(n, p) as int64 (inversion below
        n min(p, 1-p) = 10, Hörmann's BTRS above).  ``n < 0``, ``p < 0``, ``p > 1`` or a NaN
        ``p`` is a ``ValueError``, as in NumPy.

        Examples:
            >>> default_rng(11).binomial(10, 0.5, 4).dtype
            dtype('int64')
        """
        if _bad(n, lambda v: v < 0):
            raise ValueError("n < 0")
        if _bad(p, lambda v: v < 0):
            raise ValueError("p < 0")
        if _bad(p, lambda v: v > 1):
            raise ValueError("p > 1")
        if _bad(p, lambda v: v != v):
            raise ValueError("p is nan")
        return self._per_element("binomial", np.int64, size, (n, p), (np.int64, np.float64))

    # -- permutations and sampling --------------------------------------------------------------

    def _order(self, n: int) -> Array:
        """A uniformly random permutation of ``range(n)``: the order of n random 64-bit keys
        (a tie, probability below n^2 / 2^65, keeps index order)."""
        keys = self.integers(0, 2**64, n, dtype=np.uint64)
        return argsort(keys)

    def permutation(self, x, axis=0) -> Array:
        """``permutation(x, axis=0)``: a permuted ``arange(x)`` for an int, else a permuted
        copy of the array ``x`` along ``axis``.

        Examples:
            >>> sorted(default_rng(12).permutation(5).get().tolist())
            [0, 1, 2, 3, 4]
        """
        if isinstance(x, (numbers.Integral, np.integer)):
            n = operator.index(x)
            if n < 0:
                raise ValueError("x must be a non-negative integer")
            return self._order(n)
        a = asarray(x, device=self.device)
        if a.ndim == 0:
            raise ValueError("x must be an integer or at least 1-dimensional")
        return take(a, self._order(a.shape[axis]), axis=axis)

    def shuffle(self, x, axis=0) -> None:
        """``shuffle(x, axis=0)``: permute the rocarray array ``x`` in place along ``axis``.

        Examples:
            >>> import rocarray as ra
            >>> x = ra.arange(5); default_rng(13).shuffle(x); sorted(x.get().tolist())
            [0, 1, 2, 3, 4]
        """
        if not isinstance(x, Array):
            raise TypeError("shuffle needs a rocarray array (it permutes in place)")
        if x.ndim == 0:
            raise ValueError("shuffle needs an array of at least one dimension")
        x[...] = take(x, self._order(x.shape[axis]), axis=axis)

    def permuted(self, x, *, axis=None, out=None) -> Array:
        """``permuted(x, axis=None, out=None)``: ``x`` with each slice along ``axis``
        permuted independently (all elements together for ``axis=None``).

        Examples:
            >>> import rocarray as ra
            >>> default_rng(14).permuted(ra.reshape(ra.arange(6), (2, 3)), axis=1).shape
            (2, 3)
        """
        a = asarray(x, device=self.device)
        if axis is None:
            flat = a.reshape((a.size,))
            r = take(flat, self._order(a.size), axis=0).reshape(a.shape)
        else:
            keys = self.integers(0, 2**64, a.shape, dtype=np.uint64)
            r = take_along_axis(a, argsort(keys, axis=axis), axis=axis)
        return _finish(r, out)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True) -> Array:
        """``choice(a, size=None, replace=True, p=None, axis=0, shuffle=True)``: samples of
        ``arange(a)`` (an int) or of the array ``a`` along ``axis``; with ``p`` each item
        has that probability.  Without replacement: a random permutation's first items, or
        with ``p`` the smallest keys ``Exp(1) / p`` (Efraimidis and Spirakis), items
        distinct either way.  NumPy's errors for bad arguments.

        Examples:
            >>> default_rng(15).choice(10, 3, replace=False).shape
            (3,)
        """
        if isinstance(a, (numbers.Integral, np.integer)):
            pop = operator.index(a)
            arr = None
        else:
            arr = asarray(a, device=self.device)
            if arr.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            pop = arr.shape[axis]
        shape = _shape(size)
        k = math.prod(shape)
        if pop <= 0 and k:
            raise ValueError("a must be a positive integer unless no samples are taken" if arr is None
                             else "a cannot be empty unless no samples are taken")
        pp = None
        if p is not None:
            pp = np.asarray(p.get() if isinstance(p, Array) else p, dtype=np.float64)
            if pp.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if pp.size != pop:
                raise ValueError("a and p must have same size")
            if np.isnan(pp).any():
                raise ValueError("probabilities contain NaN")
            if (pp < 0).any():
                raise ValueError("probabilities are not non-negative")
            if abs(math.fsum(pp) - 1.0) > math.sqrt(np.finfo(np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if replace:
            if pp is None:
                idx = self.integers(0, max(pop, 1), shape)
            else:
                cdf = np.cumsum(pp)
                cdf /= cdf[-1]
                u = self.random(shape)
                idx = searchsorted(asarray(cdf, device=self.device), u.reshape((k,)), side="right")
                idx = minimum(idx, pop - 1).reshape(shape)
        else:
            if k > pop:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            if pp is None:
                idx = self._order(pop)[:k].reshape(shape)
            else:
                if k > int(np.count_nonzero(pp)):
                    raise ValueError("Fewer non-zero entries in p than size")
                keys = self.standard_exponential(pop) / asarray(pp, device=self.device)
                idx = argsort(keys)[:k].reshape(shape)
        if arr is None:
            return idx
        picked = take(arr, idx.reshape((k,)), axis=axis)
        ax = axis % arr.ndim
        return picked.reshape(arr.shape[:ax] + shape + arr.shape[ax + 1:])


def default_rng(seed=None, *, device=None) -> Generator:
    """``default_rng(seed=None, *, device=None)``: a ``Generator`` over ``Philox(seed)``.

    ``seed`` is None (fresh entropy), an int, a sequence of ints, a
    ``numpy.random.SeedSequence``, a ``Philox`` or a ``Generator`` (returned as it is);
    ``device`` fixes the device results are made on (default: the default device at each
    call).  The same seed gives the same numbers on every device.

    Examples:
        >>> rng = default_rng(1234, device="cpu")
        >>> rng.integers(0, 6, size=3).dtype
        dtype('int64')
    """
    if isinstance(seed, Generator):
        return seed
    bg = seed if isinstance(seed, Philox) else Philox(seed)
    return Generator(bg, device=device)
