"""The generic reduction engine: every strategy (chunks and record passes, host tiles, GPU
blocks and threads), float accuracy, user-written ``ReductionDef``s with several inputs,
fields and outputs, and scans (cumulative_sum / cumulative_prod), against NumPy."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import _tiers
from rocarray._reduction import HOST_CHUNK, ReductionDef, reduce
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array

# (shape, axis): long rows (chunks + a record pass), a leading axis (host tiles, GPU
# threads), both with partial tiles, a full reduction of a long vector, reduced axes that
# do not merge, and a tiny case
LAYOUTS = [
    ((3, 3 * HOST_CHUNK + 17), 1),
    ((3 * HOST_CHUNK + 5, 3), 0),
    ((5000, 45), 0),
    ((2, 9000, 37), 1),
    ((1 << 18,), None),
    ((30, 40, 50), (0, 2)),
    ((7, 1, 5), (0, 1)),
]


@pytest.mark.parametrize("shape,axis", LAYOUTS, ids=str)
@pytest.mark.parametrize("dtype", [ra.int32, ra.uint8, ra.float32, ra.float64, ra.complex64, ra.bool], ids=str)
def test_strategies_match_numpy(device, shape, axis, dtype):
    a = random_array(shape, dtype, np.random.default_rng(11), low=-20, high=20)
    x = ra.asarray(a, device=device)
    kind = np.dtype(dtype).kind
    for op in ("sum", "max", "argmax", "any"):
        if kind == "c" and op in ("max", "argmax"):
            continue
        if op == "argmax" and not (axis is None or isinstance(axis, int)):
            continue
        g = getattr(ra, op)(x, axis=axis).get()
        if op == "sum" and kind in "fc":
            exact = np.sum(a.astype(np.complex128 if kind == "c" else np.float64), axis=axis)
            scale = np.sum(np.abs(a).astype(np.float64), axis=axis)
            eps = np.finfo(a.real.dtype).eps
            assert np.all(np.abs(g - exact) <= 4 * eps * scale + 1e-30), (op, np.max(np.abs(g - exact)))
        else:
            np.testing.assert_array_equal(g, getattr(np, op)(a, axis=axis), err_msg=op)


@pytest.mark.parametrize("cols", [1024, 1030, 4099])
@pytest.mark.parametrize("dtype", [ra.int8, ra.uint16, ra.int32, ra.float16, ra.float32, ra.float64, ra.bool],
                         ids=str)
def test_leading_axis_of_wide_arrays(device, dtype, cols):
    # The GPU tiled mode (whole vectors across adjacent outputs, several rows in flight; a
    # partial last group and misaligned views take its per-column path; two chunks of rows
    # take a record pass) and the host tiles, against NumPy.
    a = random_array((130, cols), dtype, np.random.default_rng(cols), low=-20, high=20)
    x = ra.asarray(a, device=device)
    kind = np.dtype(dtype).kind
    for view, ref in ((x, a), (x[:, 1:], a[:, 1:]), (x[::2, 3:], a[::2, 3:])):
        for op in ("sum", "max", "argmax", "any"):
            g = getattr(ra, op)(view, axis=0).get()
            e = getattr(np, op)(ref, axis=0)
            if op == "sum" and kind == "f":
                exact = np.sum(ref.astype(np.float64), axis=0)
                scale = np.sum(np.abs(ref).astype(np.float64), axis=0)
                assert np.all(np.abs(g - exact) <= 4 * np.finfo(ref.dtype).eps * scale), op
            else:
                np.testing.assert_array_equal(g, e, err_msg=op)


def _extreme_cases(dtype, n, rng):
    """Named 1-D inputs for max/min/argmax/argmin: random data with the extreme planted
    several times (the first occurrence must win), NaNs (the first NaN wins), a run that
    is all the lowest or all the highest value (ties with the identity), and one extreme
    in the last element."""
    dt = np.dtype(dtype)
    a = random_array((n,), dt, rng, low=-50, high=50)
    if dt.kind == "f":
        lo, hi = -np.inf, np.inf
    elif dt.kind == "b":
        lo, hi = False, True
    else:
        lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
    cases = {"random": a}
    planted = a.copy()
    planted[[n // 7, n // 3, n // 2, n - 3]] = hi
    planted[[n // 9, n // 4, n - 2]] = lo
    cases["planted"] = planted
    cases["all lowest"] = np.full(n, lo, dt)
    cases["all highest"] = np.full(n, hi, dt)
    last = a.copy()
    last[-1] = hi
    cases["last"] = last
    if dt.kind == "f":
        nan = a.copy()
        nan[[n // 5, n // 5 + 1, n // 2]] = np.nan
        cases["nan"] = nan
        late = planted.copy()
        late[n - 1] = np.nan
        cases["late nan"] = late
    return cases


@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.int32, ra.int64, ra.uint8, ra.int16, ra.bool,
                                   ra.float16], ids=str)
def test_extremes_on_both_tiers(device, dtype, monkeypatch):
    """max/min/argmax/argmin with ties, NaNs and identity-valued data, on the first call
    (quick tier on GPUs) and again on the full tier; on a GPU with few resident blocks, so
    each wave folds many vector trips (its lanes start from the first trip's elements and
    then take only strictly better ones or the first NaN)."""
    from rocarray.compiler.cache import drain_background

    if device.kind != "cpu":
        monkeypatch.setattr(type(device.runtime), "resident_grid", lambda self, fn, block: 2)
    rng = np.random.default_rng(21)
    n = 100_003
    for name, a in _extreme_cases(dtype, n, rng).items():
        x = ra.asarray(a, device=device)
        m = ra.asarray(a.reshape(1, n)[:, :n - 3].reshape(1, n - 3), device=device)
        views = ((x, a), (x[1:], a[1:]), (x[::3], a[::3]))
        for op in ("max", "min", "argmax", "argmin"):
            for _ in range(2):
                for view, ref in views:
                    np.testing.assert_array_equal(getattr(ra, op)(view).get(), getattr(np, op)(ref),
                                                  err_msg=f"{op} {name} {view.shape}")
                np.testing.assert_array_equal(getattr(ra, op)(m, axis=1).get(),
                                              getattr(np, op)(a[None, :n - 3], axis=1), err_msg=f"{op} {name} rows")
                drain_background()


@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.float16, ra.int8, ra.uint8, ra.int16, ra.uint16,
                                   ra.int32, ra.uint32, ra.int64, ra.uint64, ra.bool], ids=str)
def test_extremes_around_wide_blocks(device, dtype):
    """max/min/argmax/argmin over runs that end inside, at and just past the host's wide
    trips and argmax blocks (``HOST_WIDE_BYTES``, ``HOST_BLOCK_TRIPS``), at unaligned
    starts: random data with few values (ties), NaNs at random places (the trip of a NaN
    hands max over to the 32-lane loop; argmax stops at the block of the first NaN),
    +-0.0, and the extremes planted late; along rows and columns too."""
    from rocarray.compiler.cache import drain_background
    from rocarray.compiler.reduction_host import HOST_BLOCK_TRIPS, HOST_WIDE_BYTES

    dt = np.dtype(dtype)
    rng = np.random.default_rng(17)
    ops = ("max", "min", "argmax", "argmin")
    warm = ra.asarray(random_array((1 << 16,), dt, rng), device=device)
    for op in ops:  # the full tier's code from here on (a launch this large tiers up)
        getattr(ra, op)(warm)
    drain_background()
    wide = HOST_WIDE_BYTES // dt.itemsize
    block = wide * HOST_BLOCK_TRIPS
    sizes = sorted({1, 31, wide - 1, wide, wide + 33, 3 * wide + 5, block - 1, block, block + 1,
                    2 * block + wide + 7, 5 * block + 3})
    for n in sizes:
        cases = {"ties": random_array((n,), dt, rng, low=-3, high=3)}
        if dt.kind == "f":
            for k in (1, 3):
                a = random_array((n,), dt, rng, low=-3, high=3)
                a[rng.integers(0, n, k)] = np.nan
                cases[f"{k} nan"] = a
            for where in (n - 1, min(block, n - 1)):  # in the tail; at a block's start
                a = random_array((n,), dt, rng, low=-3, high=3)
                a[where] = np.nan
                cases[f"nan at {where}"] = a
            z = np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dt)
            z[rng.integers(0, n)] = 0.0
            cases["zeros"] = z
        elif dt.kind in "iu":
            a = random_array((n,), dt, rng)
            info = np.iinfo(dt)
            a[rng.integers(n // 2, n, 2)] = info.max
            a[rng.integers(n // 2, n, 2)] = info.min
            cases["limits"] = a
        for name, a in cases.items():
            x = ra.asarray(a, device=device)
            for start in (0, 1, 3):
                if start >= n:
                    continue
                for op in ops:
                    e = getattr(np, op)(a[start:])
                    g = getattr(ra, op)(x[start:]).get()
                    np.testing.assert_array_equal(g, e, err_msg=f"{op} {name} n={n} start={start}")
            if n > 8:
                rows = a[: n - n % 4].reshape(4, -1)
                y = ra.asarray(rows, device=device)
                for op in ops:
                    for axis in (0, 1):
                        np.testing.assert_array_equal(getattr(ra, op)(y, axis=axis).get(),
                                                      getattr(np, op)(rows, axis=axis),
                                                      err_msg=f"{op} {name} n={n} axis={axis}")
    if dt.kind == "f":
        # a zero max or min of zeros of one sign keeps the sign
        for v in (-0.0, 0.0):
            x = ra.asarray(np.full(3 * block + 5, v, dt), device=device)
            for op in ("max", "min"):
                assert np.signbit(getattr(ra, op)(x).get()) == np.signbit(v), (op, v)


def test_transposed_and_strided_inputs(device):
    a = random_array((64, 300, 5), np.float64, np.random.default_rng(3))
    x = ra.asarray(a, device=device)
    for view, ref in ((x.T, a.T), (x[::3, ::-2], a[::3, ::-2]), (x[:, 7, :], a[:, 7, :])):
        for axis in (None, 0, -1):
            np.testing.assert_allclose(ra.sum(view, axis=axis).get(), np.sum(ref, axis=axis), rtol=1e-12, atol=1e-9)
            np.testing.assert_array_equal(ra.argmin(view, axis=axis).get(), np.argmin(ref, axis=axis))


def test_float32_sum_accuracy(device):
    """A float32 sum of a million values is a tree of short runs: its error stays within a
    few ulps of the magnitude (a serial sum drifts ~100x further)."""
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, 1 << 20).astype(np.float32)
    exact = np.sum(a, dtype=np.float64)
    got = float(ra.sum(ra.asarray(a, device=device)))
    assert abs(got - exact) / exact < 2e-6
    m = rng.uniform(0, 1, (4, 1 << 18)).astype(np.float32)
    rows = ra.sum(ra.asarray(m, device=device), axis=1).get()
    assert np.all(np.abs(rows - m.sum(axis=1, dtype=np.float64)) / m.sum(axis=1, dtype=np.float64) < 2e-6)


def test_float16_accumulates_in_float32(device):
    a = np.full(5000, 0.1, np.float16)
    s = ra.sum(ra.asarray(a, device=device))
    assert s.dtype == ra.float16
    assert abs(float(s) - 5000 * float(np.float16(0.1))) < 4  # float16 serial sum stalls at 256


def test_reduction_def_with_two_inputs_two_fields_two_outputs(device):
    # the mean and the root mean square of x * w, in one pass
    rdef = ReductionDef(
        "weighted_stats", [("x", "float64"), ("w", "float32")],
        [("s", "t", "float64"), ("q", "r", "float64"), ("n", "m", "int64")],
        "s = 0; q = 0; n = 0;", "double v = x * w; s = v; q = v * v; n = 1;",
        "s += t; q += r; n += m;",
        [("mean", "float64"), ("rms", "float32")], "mean = s / n; rms = sqrt(q / n);")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 7000))
    w = rng.uniform(0, 2, 7000).astype(np.float32)  # broadcast along the rows
    mean, rms = reduce(rdef, [ra.asarray(x, device=device), ra.asarray(w, device=device)], axis=1)
    v = x * w
    np.testing.assert_allclose(mean.get(), v.mean(axis=1), rtol=1e-10)
    np.testing.assert_allclose(rms.get(), np.sqrt((v * v).mean(axis=1)), rtol=1e-6)
    assert rms.dtype == ra.float32
    (full_mean, _) = reduce(rdef, [ra.asarray(x, device=device), ra.asarray(w, device=device)], keepdims=True)
    assert full_mean.shape == (1, 1)
    np.testing.assert_allclose(full_mean.get(), v.mean(keepdims=True), rtol=1e-10)
    out = [ra.empty((7000,), dtype=ra.float64, device=device), ra.empty((7000,), dtype=ra.float32, device=device)]
    res = reduce(rdef, [ra.asarray(x, device=device), ra.asarray(w, device=device)], axis=0, outs=out)
    assert res[0] is out[0]
    np.testing.assert_allclose(out[0].get(), v.mean(axis=0), rtol=1e-10)


def test_reduce_errors(device):
    rdef = ReductionDef("r", [("x", "float32")], [("a", "b", "float32")], "a = 0;", "a = x;", "a += b;",
                        [("y", "float32")], "y = a;")
    x = ra.ones((3, 4), device=device)
    with pytest.raises(TypeError, match="takes 1 input arrays"):
        reduce(rdef, [x, x])
    with pytest.raises(ValueError, match=r"output 'y' must have shape \(3,\)"):
        reduce(rdef, [x], axis=1, outs=[ra.empty((4,), device=device)])
    with pytest.raises(TypeError, match="expected rocarray arrays"):
        reduce(rdef, [np.ones(3)])
    bad = ReductionDef("bad", [("x", "float32")], [("a", "b", "float32")], "a = 0;", "a = x +;", "a += b;",
                       [("y", "float32")], "y = a;")
    with pytest.raises(ValueError, match="line 1"):
        reduce(bad, [x])


# -- scans -----------------------------------------------------------------------------------

def _scan_expected(op, a, axis, include_initial, dtype=None):
    f = np.cumulative_sum if op == "cumulative_sum" else np.cumulative_prod
    if a.dtype == np.float16:  # rocarray accumulates float16 in float32
        return f(a.astype(np.float32), axis=axis, include_initial=include_initial).astype(np.float16)
    return f(a, axis=axis, include_initial=include_initial, dtype=dtype)


@pytest.mark.parametrize("op", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_cumulative_matches_numpy(device, op, dtype):
    low, high = (-2, 2) if op == "cumulative_prod" else (-30, 30)
    a = random_array((3, 4, 5), dtype, np.random.default_rng(8), low=low, high=high)
    x = ra.asarray(a, device=device)
    f = getattr(ra, op)
    for axis in (0, 1, 2, -1):
        for inc in (False, True):
            e = _scan_expected(op, a, axis, inc)
            g = f(x, axis=axis, include_initial=inc)
            assert g.dtype == e.dtype and g.shape == e.shape, (axis, inc, g.dtype, e.dtype)
            if e.dtype.kind in "fc":
                tol = 1e-2 if dtype == ra.float16 else 1e-5
                np.testing.assert_allclose(g.get(), e, rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(g.get(), e)
    v = a[0, 0]
    np.testing.assert_allclose(f(ra.asarray(v, device=device)).get().astype(np.complex128),
                               _scan_expected(op, v, 0, False).astype(np.complex128), rtol=1e-2)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES[:4] + [ra.float32, ra.float64], ids=str)
def test_cumulative_long_lines(device, dtype):
    rng = np.random.default_rng(4)
    a = random_array((1 << 19,), dtype, rng, low=-3, high=3)
    g = ra.cumulative_sum(ra.asarray(a, device=device), include_initial=True).get()
    e = np.cumulative_sum(a.astype(np.float64) if a.dtype.kind == "f" else a, include_initial=True)
    if a.dtype.kind == "f":
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-2 if dtype == ra.float32 else 1e-8)
    else:
        np.testing.assert_array_equal(g, e)
    b = random_array((3, 70000), dtype, rng, low=-3, high=3)
    np.testing.assert_allclose(ra.cumulative_sum(ra.asarray(b, device=device), axis=1).get(),
                               np.cumulative_sum(b.astype(np.float64), axis=1), rtol=1e-4, atol=1e-2)


def test_cumulative_dtype_and_errors(device):
    x = ra.asarray(np.arange(1, 6, dtype=np.int8), device=device)
    assert ra.cumulative_sum(x).dtype == ra.int64
    assert ra.cumulative_sum(x, dtype=ra.int8).dtype == ra.int8
    np.testing.assert_array_equal(ra.cumulative_prod(x, dtype=ra.float64).get(), [1, 2, 6, 24, 120])
    e = ra.cumulative_sum(ra.zeros((2, 0), device=device), axis=1, include_initial=True)
    np.testing.assert_array_equal(e.get(), np.zeros((2, 1)))
    assert ra.cumulative_sum(ra.zeros((0, 3), device=device), axis=0).shape == (0, 3)
    with pytest.raises(ValueError, match="axis must be given"):
        ra.cumulative_sum(ra.zeros((2, 2), device=device))
    with pytest.raises(ValueError, match="0-d"):
        ra.cumulative_prod(ra.asarray(1.0, device=device))
    with pytest.raises(IndexError, match="out of bounds"):
        ra.cumulative_sum(ra.zeros((2, 2), device=device), axis=2)
    with pytest.raises(TypeError, match="rocarray array"):
        ra.cumulative_sum([1, 2])


def test_both_tiers_agree(device):
    """A definition no cache has seen runs the quick tier first (one accumulator per item,
    short chunks), then the full tier once hot: both give NumPy's results, and the plan
    made for quick code is re-made for the full tier."""
    import secrets

    from rocarray._launch import load
    from rocarray.compiler.cache import drain_background

    nonce = secrets.token_hex(4)
    rdef = ReductionDef(f"tiers_{nonce}", [("x", "float32")], [("a", "b", "float32"), ("n", "m", "int64")],
                        "a = 0; n = 0;", f"a = x * x; n = (x > 0); /* {nonce} */", "a += b; n += m;",
                        [("y", "float32"), ("k", "int64")], "y = sqrt(a); k = n;")
    x = np.random.default_rng(6).standard_normal((5, 30000)).astype(np.float32)
    xd = ra.asarray(x, device=device)
    expect_y = np.sqrt((x.astype(np.float64) ** 2).sum(axis=1))
    expect_k = (x > 0).sum(axis=1)
    results = []
    for _ in range(20):
        y, k = reduce(rdef, [xd], axis=1)
        results.append((y.get(), k.get()))
    drain_background()
    kernel = load(rdef.spec(), device)
    if device.kind == "cpu" or kernel.target.quick_tier is not None:
        assert not kernel.code.simple_loops
    y, k = reduce(rdef, [xd], axis=1)
    results.append((y.get(), k.get()))
    for y, k in results:
        np.testing.assert_allclose(y, expect_y, rtol=2e-6)
        np.testing.assert_array_equal(k, expect_k)


@pytest.fixture
def fresh_scan_plans():
    """No scan plan made before the test serves it, nor one made in it (under its patched
    cuts) a later test."""
    from rocarray._reduction import _scan_plans

    _scan_plans.clear()
    yield
    _scan_plans.clear()


@pytest.mark.parametrize("unscanned_most", [0, 64])
def test_scan_chunk_totals_scanned_recursively(device, monkeypatch, fresh_scan_plans, unscanned_most):
    """Force every line into many chunks, so the chunk totals are themselves scanned in
    chunks (three levels here), or (``unscanned_most``) left unscanned where they are few,
    each chunk folding the totals before it: the result must not change."""
    import rocarray._reduction as red

    monkeypatch.setattr(red, "SCAN_UNSCANNED_MOST", unscanned_most)
    monkeypatch.setattr(red, "_scan_chunks", lambda kernel, n_out, n, *mode: max(1, min(n // 3, 40)))
    rng = np.random.default_rng(12)
    for dtype in (ra.int32, ra.float64, ra.bool):
        a = random_array((3, 5000), dtype, rng, low=-4, high=4)
        x = ra.asarray(a, device=device)
        for inc in (False, True):
            g = ra.cumulative_sum(x, axis=1, include_initial=inc).get()
            e = np.cumulative_sum(a, axis=1, include_initial=inc, dtype=g.dtype)
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-9)
        m = random_array((900,), ra.int8, rng, low=1, high=2)  # a product of 1s and 2s: exact
        np.testing.assert_array_equal(ra.cumulative_prod(ra.asarray(m, device=device), dtype=ra.float64).get(),
                                      np.cumprod(m.astype(np.float64)))


# GPU wave scans (one wave per (line, chunk)): lines long enough for several chunks, whose
# lengths leave a partial last wave step, contiguous, strided, reversed and transposed
# (on the CPU these run the host path)
WAVE_SCAN_LAYOUTS = [
    ((2, 100003), 1, None),                          # long lines, many chunks
    ((4, 30001), 1, (slice(None), slice(None, None, 3))),   # strided lines
    ((50001,), 0, (slice(None, None, -1),)),         # a reversed line
    ((3, 20001), 1, (slice(None), slice(None, None, -2))),  # reversed and strided
    ((20000, 3), 0, None),                           # few lines along a leading axis
    ((3000, 40), 0, None),                           # many adjacent lines (a thread each on GPUs)
    ((7, 5000), 0, "T"),                             # transposed: lines 7 elements apart
    ((3, 6, 900), 2, (slice(None), slice(None, None, 2))),  # kept dims that do not merge
    ((4096, 64), 1, None),                           # many short lines (a thread each on GPUs)
    ((5, 129), 1, None),                             # lines of a few wave steps, one chunk
]


def _layout(a, view):
    if view is None:
        return a
    return a.T if view == "T" else a[view]


def _scan_tolerance(e_abs, dtype, n):
    """Float scans in another order than NumPy's serial one: a bound on the rounding of
    partial sums (or products) of magnitude ``e_abs``."""
    eps = np.finfo(np.dtype(dtype)).eps
    return 8 * eps * e_abs + 8 * eps * np.sqrt(n)


@pytest.mark.parametrize("shape,axis,view", WAVE_SCAN_LAYOUTS, ids=str)
@pytest.mark.parametrize("dtype", [ra.int32, ra.int64, ra.uint8, ra.float32, ra.float64, ra.complex64,
                                   ra.complex128], ids=str)
def test_wave_scans_match_numpy(device, shape, axis, view, dtype):
    rng = np.random.default_rng(21)
    base = random_array(shape, dtype, rng, low=-3, high=3)
    a = _layout(base, view)
    x = _layout(ra.asarray(base, device=device), view)
    assert x.shape == a.shape
    n = a.shape[axis]
    kind = np.dtype(dtype).kind
    for inc in (False, True):
        g = ra.cumulative_sum(x, axis=axis, include_initial=inc).get()
        if kind in "fc":
            wide = np.complex128 if kind == "c" else np.float64
            e = np.cumulative_sum(a.astype(wide), axis=axis, include_initial=inc)
            scale = np.cumulative_sum(np.abs(a).astype(np.float64), axis=axis, include_initial=inc)
            assert g.shape == e.shape and g.dtype == dtype
            assert np.all(np.abs(g - e) <= _scan_tolerance(scale, dtype, n)), (inc, np.max(np.abs(g - e)))
        else:
            np.testing.assert_array_equal(g, np.cumulative_sum(a, axis=axis, include_initial=inc))
    # products: +-1 for integers (0 or 1 unsigned: exact), close to 1 for floats, of unit
    # modulus for complex numbers; laid out as the sums were
    if kind == "i":
        mb = np.where(rng.random(shape) < 0.5, 1, -1).astype(dtype)
    elif kind == "u":
        mb = (rng.random(shape) >= 0.001).astype(dtype)
    elif kind == "f":
        mb = rng.uniform(0.995, 1.005, size=shape).astype(dtype)
    else:
        mb = np.exp(1j * rng.uniform(-np.pi, np.pi, size=shape)).astype(dtype)
    m = _layout(mb, view)
    y = _layout(ra.asarray(mb, device=device), view)
    for inc in (False, True):
        g = ra.cumulative_prod(y, axis=axis, include_initial=inc).get()
        if kind in "fc":
            e = np.cumulative_prod(m.astype(np.complex128 if kind == "c" else np.float64), axis=axis,
                                   include_initial=inc)
            # relative rounding grows with the number of factors
            eps = np.finfo(np.dtype(dtype)).eps
            steps = np.arange(e.shape[axis]).reshape([-1 if d == axis else 1 for d in range(e.ndim)]) + 1
            assert np.all(np.abs(g - e) <= 4 * eps * steps * np.abs(e) + 1e-30), inc
        else:
            np.testing.assert_array_equal(g, np.cumulative_prod(m, axis=axis, include_initial=inc))


@pytest.mark.parametrize("dtype", [ra.int64, ra.int8, ra.bool, ra.float64, ra.complex128], ids=str)
def test_scan_of_one_line_folds_group_records(device, fresh_scan_plans, dtype):
    """One long line: on GPUs the chunk totals pass also writes one record per block
    (``MODE_GROUPS``) and each wave of the scan folds those before its block and its
    block's totals before its chunk -- two launches; records of one to four words, a
    length that leaves a partial block, NumPy's results."""
    import rocarray._reduction as red

    rng = np.random.default_rng(5)
    a = random_array(((1 << 21) + 12345,), dtype, rng, low=-3, high=3)
    x = ra.asarray(a, device=device)
    for view, v in ((x, a), (x[::-1], a[::-1])):
        for inc in (False, True):
            g = ra.cumulative_sum(view, include_initial=inc).get()
            kind = np.dtype(dtype).kind
            if kind in "fc":
                e = np.cumulative_sum(v.astype(np.complex128 if kind == "c" else np.float64), include_initial=inc)
                scale = np.cumulative_sum(np.abs(v).astype(np.float64), include_initial=inc)
                assert np.all(np.abs(g - e) <= _scan_tolerance(scale, dtype, v.size)), (inc, np.max(np.abs(g - e)))
            else:
                np.testing.assert_array_equal(g, np.cumulative_sum(v, include_initial=inc, dtype=g.dtype))
    if device.kind != "cpu":
        plans = {id(p): p for p in red._scan_plans.values()}.values()
        for plan in plans:
            modes = [template[0] for _, _, _, template, *_ in plan.launches]
            assert len(modes) == 2 and all(m & red.MODE_GROUPS for m in modes), modes


@pytest.mark.parametrize("wave_scans", [True, False])
def test_wave_scans_many_chunks_and_the_switch(device, monkeypatch, wave_scans, fresh_scan_plans):
    """Lines cut into many chunks (their totals scanned recursively, the records scans in
    wave mode too once their lines are a wave step long), and the module switch back to
    the per-thread mode: both give NumPy's results."""
    import rocarray._reduction as red

    monkeypatch.setattr(red, "GPU_WAVE_SCANS", wave_scans)
    monkeypatch.setattr(red, "GPU_SCAN_WAVE_STEPS", 1)
    monkeypatch.setattr(red, "_scan_chunks", lambda kernel, n_out, n, *mode: max(1, min(n // 40, 300)))
    rng = np.random.default_rng(22)
    for dtype in (ra.int64, ra.float64, ra.complex64):
        a = random_array((3, 40001), dtype, rng, low=-4, high=4)
        x = ra.asarray(a, device=device)
        for inc in (False, True):
            g = ra.cumulative_sum(x, axis=1, include_initial=inc).get()
            e = np.cumulative_sum(a.astype(np.complex128) if dtype == ra.complex64 else a, axis=1,
                                  include_initial=inc)
            if dtype == ra.int64:
                np.testing.assert_array_equal(g, e)
            else:
                scale = np.cumulative_sum(np.abs(a).astype(np.float64), axis=1, include_initial=inc)
                assert np.all(np.abs(g - e) <= _scan_tolerance(scale, dtype, 40001))
    m = random_array((2, 9000), ra.int8, rng, low=1, high=2)  # products of 1s and 2s, exact in float64
    m[:, 60:] = 1
    np.testing.assert_array_equal(ra.cumulative_prod(ra.asarray(m, device=device), axis=1, dtype=ra.float64).get(),
                                  np.cumulative_prod(m.astype(np.float64), axis=1))


class _FakeGPU:
    """A GPU kernel and runtime that only record launches: the host side of a scan's plan
    (modes, chunks, grids, packing) checked on any machine."""

    is_gpu = True
    index = 0
    def __init__(self, wave, simple=False):
        from types import SimpleNamespace

        self.target = SimpleNamespace(wave_size=wave)
        functions = ("entry", "entry_c", "entry_s", "entry_r")
        self.code = _tiers.QuickCode(functions, 0) if simple else _tiers.FullCode(functions, 0)
        if simple:
            self.code.calls = -1  # (no tier-up: the plan is what is checked)
        self.runtime = self
        self.launches = []
        self.packer = None

    def fit(self, work):
        pass

    def resident_grid(self, fn, block):
        return 132 * 2048 // block

    def max_grid(self, index, block):
        return 132 * 2048 // block

    def launch_packed(self, fn, grid, block, packer, n, values):
        packer.pack(n, *values)  # the parameter list is what the entry takes
        self.launches.append((fn, grid, block, n, values[0], values[2], values[3]))


@pytest.mark.parametrize("wave", [32, 64])
def test_gpu_scan_plans(monkeypatch, wave, fresh_scan_plans):
    """Which scans take the GPU wave mode, and how they are cut: long lines (contiguous,
    strided or reversed) take it for their totals pass, the totals' scans and the scan
    itself, with chunks of whole wave trips and one round of resident waves; many short
    lines, adjacent lines, quick-tier code and the switch turned off keep a thread per
    (line, chunk)."""
    import rocarray._reduction as red
    from rocarray._reduction import (MODE_GROUPS, MODE_RECORDS, MODE_UNSCANNED, MODE_WAVE, SCAN_UNROLL,
                                     VECTOR_ELEMENTS, _packer)

    monkeypatch.setattr(red, "_chains", lambda *args: False)  # (the passes, not the single pass)

    def plan(a, axis, simple=False):
        fake = _FakeGPU(wave, simple)
        fake.packer = _packer(1, 1)
        monkeypatch.setattr(red, "load", lambda spec, device: fake)
        red._scan_plans.clear()  # (planned for another fake)
        ra.cumulative_sum(a, axis=axis)
        return fake.launches

    resident_waves = 132 * 2048 // wave
    x = ra.zeros((1 << 22,), dtype=ra.float32)
    for line in (x, x[::3], x[::-1]):
        launches = plan(line, 0)
        assert [fn for fn, *_ in launches][-1] == "entry_s"
        for fn, grid, block, items, mode, n_chunks, chunk in launches:
            if not mode & MODE_WAVE:  # the totals of the last level: a short line
                assert fn in ("entry_c", "entry_r") and n_chunks * chunk < 4 * wave
                continue
            assert grid * block // wave <= resident_waves and grid * block % wave == 0
            if fn in ("entry", "entry_s"):
                assert n_chunks > 1 and chunk % (wave * SCAN_UNROLL * VECTOR_ELEMENTS) == 0
                assert (n_chunks - 1) * chunk < line.shape[0] <= n_chunks * chunk
        # one line: the totals pass also writes each block's fold (``MODE_GROUPS``), and the
        # scan folds those and its block's totals: no launch scans the totals
        assert [(fn, mode) for fn, _, _, _, mode, _, _ in launches] == [
            ("entry", MODE_RECORDS | MODE_WAVE | MODE_GROUPS), ("entry_s", MODE_WAVE | MODE_UNSCANNED | MODE_GROUPS)]
        blocks = launches[0][1]
        assert blocks == -(-launches[0][5] // (256 // wave))  # (one chunk per wave)
    # more groups than a wave folds: the totals are scanned by launches of their own
    most = red.SCAN_GROUPED_MOST
    monkeypatch.setattr(red, "SCAN_GROUPED_MOST", 64)
    launches = plan(x, 0)
    assert [fn for fn, *_ in launches][0] == "entry" and "entry_r" in [fn for fn, *_ in launches]
    assert not any(mode & MODE_GROUPS for *_, mode, _, _ in launches)
    monkeypatch.setattr(red, "SCAN_GROUPED_MOST", most)
    for a, axis in ((ra.zeros((4096, 64)), 1), (ra.zeros((1 << 14, 64)), 0), (ra.zeros((100, 4 * wave - 1)), 1)):
        assert not any(mode & MODE_WAVE for *_, mode, _, _ in plan(a, axis)), a.shape

    def elements_in_waves(launches):  # the totals pass and the scan of the elements
        return all(launch[4] & MODE_WAVE for launch in launches if launch[0] in ("entry", "entry_s"))

    long_rows = ra.zeros((3, 1 << 16))
    assert elements_in_waves(plan(long_rows, 1))
    assert elements_in_waves(plan(ra.zeros((1 << 16, 3)), 0))  # few lines along a leading axis
    assert not any(launch[4] & MODE_WAVE for launch in plan(long_rows, 1, simple=True))
    monkeypatch.setattr(red, "GPU_WAVE_SCANS", False)
    assert not any(launch[4] & MODE_WAVE for launch in plan(long_rows, 1))



def test_scan_plans_serve_other_arrays_of_a_layout(device, fresh_scan_plans):
    """A warm scan replays its layout's plan with the pointers of the call: other data,
    other offsets into one buffer (rows of a matrix, reversed views), every kind of
    dtype, ``ra.scan`` through the engine's plans too; one plan per layout."""
    from rocarray._reduction import _ScanPlan, _scan_plans

    rng = np.random.default_rng(31)
    for dtype in (ra.int32, ra.float32, ra.float64, ra.uint8, ra.bool, ra.complex64):
        m = random_array((4, 70001), dtype, rng, low=-5, high=5)
        md = ra.asarray(m, device=device)
        for inc in (False, True):
            for k in range(4):
                for view, a in ((md[k], m[k]), (md[k, ::-1], m[k, ::-1])):
                    g = ra.cumulative_sum(view, include_initial=inc).get()
                    if m.dtype.kind in "fc":
                        e = np.cumulative_sum(a.astype(np.complex128 if m.dtype.kind == "c" else np.float64),
                                              include_initial=inc)
                        scale = np.cumulative_sum(np.abs(a).astype(np.float64), include_initial=inc)
                        assert np.all(np.abs(g - e) <= _scan_tolerance(scale, m.dtype, a.size)), (dtype, k, inc)
                    else:
                        e = np.cumulative_sum(a, include_initial=inc, dtype=g.dtype)
                        np.testing.assert_array_equal(g, e, err_msg=f"{dtype} row {k} inc {inc}")
        if m.dtype.kind != "c":
            for k in range(4):
                np.testing.assert_array_equal(ra.scan(md[k], "max").get(), np.maximum.accumulate(m[k]))
    # per dtype: sum over two layouts (forward, reversed) times include_initial, and max
    plans = {id(p) for p in _scan_plans.values() if isinstance(p, _ScanPlan)}
    assert len(plans) == 6 * 2 * 2 + 5


@pytest.mark.parametrize("grouped", [True, False])
def test_gpu_scan_plan_replays_its_launches(monkeypatch, fresh_scan_plans, grouped):
    """A warm GPU scan launches what the first call planned, only the pointers filled in:
    the input's (with its offset), the new output's, and the chunk totals' parts of one
    scratch buffer (aligned apart); a long line takes two launches (the totals with their
    group records, the scan), or four where its groups are more than a wave folds."""
    import rocarray._reduction as red

    if not grouped:
        monkeypatch.setattr(red, "SCAN_GROUPED_MOST", 64)
    monkeypatch.setattr(red, "_chains", lambda *args: False)  # (the passes, not the single pass)
    fake = _FakeGPU(32)
    fake.packer = red._packer(1, 1)
    seen = []
    fake.launch_packed = lambda fn, grid, block, packer, n, values: seen.append((fn, grid, n, list(values)))
    monkeypatch.setattr(red, "load", lambda spec, device: fake)
    m = ra.zeros((2, 1 << 22), dtype=ra.float32)
    calls = []
    for row in (m[0], m[1], m[1]):
        seen.clear()
        out = ra.cumulative_sum(row)
        calls.append((row, out, list(seen)))
    (plan,) = {id(p): p for p in red._scan_plans.values()}.values()
    modes = [values[0] for *_, values in calls[0][2]]
    offsets = sorted({off for *_, slots, _, _ in plan.launches for _, src, off in slots if src == 2})
    if grouped:
        assert [fn for fn, *_ in calls[0][2]] == ["entry", "entry_s"]
        assert modes[0] & red.MODE_GROUPS and modes[1] & red.MODE_GROUPS and modes[1] & red.MODE_UNSCANNED
        # (the chunk totals, then one record per block of the totals pass)
        assert offsets == [0] and plan.scratch >= (calls[0][2][0][2] + calls[0][2][0][1]) * 4
    else:
        # the elements' chunk totals, those of the totals' chunks (few: left unscanned), the
        # scan of the totals, of the elements
        assert [fn for fn, *_ in calls[0][2]] == ["entry", "entry_c", "entry_r", "entry_s"]
        assert modes[2] & red.MODE_UNSCANNED and not modes[3] & red.MODE_UNSCANNED
        assert len(offsets) == 2 and all(off % 256 == 0 for off in offsets) and plan.scratch > offsets[-1]
    for row, out, launches in calls:
        bases = {0: row._buf.ptr + row._offset, 1: out._buf.ptr}
        scratch = set()
        for (fn, grid, n, values), (_, _, items, template, slots, plan_grid, _) in zip(launches, plan.launches):
            assert (grid, n) == (plan_grid, items)
            pointers = {slot: (src, off) for slot, src, off in slots}
            for k, (v, t) in enumerate(zip(values, template)):
                if k not in pointers:
                    assert v == t, (fn, k)
                elif pointers[k][0] == 2:
                    scratch.add(v - pointers[k][1])
                else:
                    assert v == bases[pointers[k][0]] + pointers[k][1], (fn, k)
        assert len(scratch) == 1 and 0 not in scratch


@pytest.mark.parametrize("chunks", [None, 40, 3000])
def test_scan_order_of_chunk_totals(device, monkeypatch, fresh_scan_plans, chunks):
    """An associative operation that does not commute (the last non-zero element so far)
    over sparse data, most chunks of which hold only zeros: each chunk's carry must be the
    earlier chunks' totals folded in order, scanned (``chunks=3000``) or not (40).  At
    most one non-zero element per chunk: a chunk's own total is folded in lanes, in no set
    order (a non-commuting operation's totals are not checked here)."""
    import rocarray._reduction as red

    if chunks is not None:
        monkeypatch.setattr(red, "_scan_chunks", lambda kernel, n_out, n, *mode: max(1, min(n // 3, chunks)))
    last = ra.ReductionKernel("T x", "T y", "x", "(b != 0) ? b : a", "y = a", "0", "rk_scan_last_nonzero")
    rng = np.random.default_rng(43)
    for n in (200003, 9001):
        h = np.zeros(n, np.int64)
        at = np.arange(777, n, 6007)  # (further apart than any chunk is long)
        h[at] = np.where(rng.random(at.size) < 0.7, rng.integers(1, 1000, at.size), 0)
        h[at[0]] = 5
        want = np.maximum.accumulate(np.where(h != 0, np.arange(n), -1))
        want = np.where(want >= 0, h[np.maximum(want, 0)], 0)
        for x in (ra.asarray(h, device=device), ra.asarray(h[::-1].copy(), device=device)[::-1]):
            for _ in range(2):  # (the plan's first and warm calls)
                np.testing.assert_array_equal(ra.scan(x, last).get(), want, err_msg=f"{n} {chunks}")
