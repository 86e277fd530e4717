"""The interpreter tier of reductions (``reduction.item_functions``, ``interp.compile_items``,
``_interpreter.InterpretedItems``): a new reduction signature's first calls run the quick
tier's items as bytecode, pass for pass, and must give the quick tier's compiled results
bit for bit (same items, same order of folding) -- over the catalogue's reductions and
every dtype, several axes and layouts, records passes, ``ReductionKernel`` and ``fuse``
with a final reduction, on every device present.
"""

import uuid

import numpy as np
import pytest

import rocarray as ra
from rocarray import _interpreter, _launch, _reduction, _tiers
from rocarray.compiler import cache as cache_module
from conftest import ALL_DTYPES
from test_interpreter import _data, _same_bits, host_leaving, needs_interpreter


class _Tiers:
    """Runs a function with every first call interpreted, or on the quick tier's compiled
    code; neither is replaced meanwhile, and no launch plan or loaded kernel of one
    serves the other."""

    def __init__(self, device, monkeypatch):
        self.device = device
        self.monkeypatch = monkeypatch

    def _run(self, fn, interpreted: bool):
        mp = self.monkeypatch
        loaded, plans = dict(_launch._loaded), dict(_reduction._plans)
        scan_plans = dict(_reduction._scan_plans)
        mp.setattr(_interpreter, "ON_HOST", True)
        mp.setattr(_interpreter, "ENABLED", interpreted)
        mp.setattr(_tiers.POLICY, "host_interpreted_work", 1 << 40)
        mp.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
        # (the quick tier's code is then compiled, or found in memory under its own target)
        mp.setattr(cache_module.default_cache(), "lookup", lambda key, target, quick=None: None)
        _launch._loaded.clear()
        _reduction._plans.clear()
        _reduction._scan_plans.clear()
        try:
            out = fn()
            ran = [k for k in _launch._loaded.values() if k.code.tier == "interpreted"]
            quick = all(k.code.simple_loops for k in _launch._loaded.values())
        finally:
            _launch._loaded.clear()
            _launch._loaded.update(loaded)
            _reduction._plans.clear()
            _reduction._plans.update(plans)
            _reduction._scan_plans.clear()
            _reduction._scan_plans.update(scan_plans)
            mp.undo()
        assert quick
        return out, ran

    def interpreted(self, fn):
        return self._run(fn, True)

    def quick(self, fn):
        return self._run(fn, False)[0]


@pytest.fixture
def tiers(device, monkeypatch):
    needs_interpreter(device)
    return _Tiers(device, monkeypatch)


def _outs(x):
    return x if isinstance(x, tuple) else (x,)


def _check(tiers, call, what, want=None, tol=None):
    got, ran = tiers.interpreted(call)
    quick = tiers.quick(call)
    assert ran, f"{what}: not interpreted"
    for g, q in zip(_outs(got), _outs(quick)):
        _same_bits(g, q, what)
    if want is not None:
        g = _outs(got)[0].get()
        if tol is None:
            np.testing.assert_array_equal(g, want, err_msg=str(what))
        else:
            np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=str(what))


_NAMES = ("sum", "prod", "max", "min", "argmax", "argmin", "all", "any")
#: (shape, axis, keepdims): whole arrays, either axis, several axes, a records pass (more
#: reduced elements than one quick-tier chunk), an empty reduced run
_LAYOUTS = (((37,), None, False), ((6, 50), 1, False), ((6, 50), 0, True), ((3, 4, 5), (0, 2), False),
            ((700,), None, False), ((2, 400), 1, True), ((4, 0), 1, False))


@pytest.mark.parametrize("name", _NAMES)
def test_catalogue_reductions_bit_for_bit(tiers, name):
    device = tiers.device
    rng = np.random.default_rng(len(name))
    checked = 0
    for dt in map(np.dtype, ALL_DTYPES):
        if name in ("max", "min", "argmax", "argmin") and dt.kind == "c":
            continue
        for shape, axis, keepdims in _LAYOUTS:
            if name in ("max", "min", "argmax", "argmin") and 0 in shape:
                continue
            if name in ("argmax", "argmin") and isinstance(axis, tuple):
                continue
            x = _data(dt, shape, rng)
            if name == "prod" and dt.kind in "fc":
                x = np.clip(x.real, -1.5, 1.5).astype(dt)  # (products not all inf or 0)
            a = ra.asarray(x, device=device)
            def f(a=a, axis=axis, keepdims=keepdims):
                return getattr(ra, name)(a, axis=axis, keepdims=keepdims)
            got, ran = tiers.interpreted(f)
            _same_bits(got, tiers.quick(f), (name, str(dt), shape, axis))
            if dt.kind in "biu" or name in ("max", "min", "argmax", "argmin", "all", "any"):
                ref = getattr(np, {"all": "all", "any": "any"}.get(name, name))(x, axis=axis, keepdims=keepdims) \
                    if name not in ("argmax", "argmin") else getattr(np, name)(x, axis=axis, keepdims=keepdims)
                if name in ("sum", "prod"):
                    ref = ref.astype(got.dtype)
                np.testing.assert_array_equal(got.get(), ref, err_msg=f"{name} {dt} {shape} {axis}")
            checked += bool(ran)
    assert checked


def test_strided_and_broadcast_inputs(tiers):
    device = tiers.device
    rng = np.random.default_rng(5)
    x = rng.standard_normal((12, 40)).astype(np.float32)
    a = ra.asarray(x, device=device)
    _check(tiers, lambda: ra.sum(a[::3, 1::2], axis=1), "strided", x[::3, 1::2].sum(axis=1), 1e-5)
    _check(tiers, lambda: ra.max(a[:, ::-1], axis=0), "reversed", x[:, ::-1].max(axis=0))
    b = ra.broadcast_to(ra.asarray(x[:1], device=device), (5, 40))
    _check(tiers, lambda: ra.sum(b, axis=0), "broadcast", np.broadcast_to(x[:1], (5, 40)).sum(axis=0), 1e-5)


_L2NORM = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0")


def test_reduction_kernels_bit_for_bit(tiers):
    device = tiers.device
    rng = np.random.default_rng(9)
    for dt in (np.float16, np.float32, np.float64, np.complex64, np.int32):
        x = _data(np.dtype(dt), (8, 130), rng)
        if np.dtype(dt).kind == "f":
            x = np.where(np.isfinite(x), x, 1).astype(dt)
        a = ra.asarray(x, device=device)
        if np.dtype(dt).kind == "c":
            make = lambda: ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "interp_csq")  # noqa: E731
        elif np.dtype(dt).kind == "i":
            make = lambda: ra.ReductionKernel("T x", "int64 y", "x", "a + b", "y = a", "0", "interp_isum",  # noqa: E731
                                              reduce_type="int64")
        else:
            make = lambda: ra.ReductionKernel(*_L2NORM, name="interp_l2")  # noqa: E731
        for axis in (1, 0, None):
            _check(tiers, lambda: make()(a, axis=axis), (str(dt), axis))
    # two inputs, a scalar-typed output of another type, keepdims
    x = rng.standard_normal((6, 33)).astype(np.float64)
    y = rng.standard_normal((33,)).astype(np.float64)
    dot = lambda: ra.ReductionKernel("T x, T y", "float32 z", "x * y", "a + b", "z = (float32)a", "0",  # noqa: E731
                                     "interp_dot")
    xa, ya = ra.asarray(x, device=device), ra.asarray(y, device=device)
    _check(tiers, lambda: dot()(xa, ya, axis=1, keepdims=True), "dot",
           (x * y).sum(axis=1, keepdims=True).astype(np.float32), 1e-5)


def test_fuse_with_a_final_reduction(tiers):
    device = tiers.device
    rng = np.random.default_rng(13)
    x = ra.asarray(rng.standard_normal((7, 90)).astype(np.float32), device=device)
    y = ra.asarray(rng.standard_normal((7, 90)).astype(np.float32), device=device)

    def make():
        @ra.fuse(kernel_name="interp_fused_sum")
        def f(a, b):
            return ((a - b) * (a - b)).sum(axis=1)
        return f

    want = ((x.get() - y.get()) ** 2).sum(axis=1)
    _check(tiers, lambda: make()(x, y), "fuse sum", want, 1e-5)


def test_reductions_too_wide_for_the_interpreter_are_compiled(tiers):
    """Parameters past the interpreter's stack or parameter words: compiled first."""
    device = tiers.device
    n = 9
    k = lambda: ra.ReductionKernel(", ".join(f"T x{j}" for j in range(n)), "T y",  # noqa: E731
                                   " + ".join(f"x{j}" for j in range(n)), "a + b", "y = a", "0", "interp_wide_red")
    xs = [ra.asarray(np.full((3, 4), j, np.float64), device=device) for j in range(n)]
    got, ran = tiers.interpreted(lambda: k()(*xs, axis=1))
    assert not ran
    np.testing.assert_array_equal(got.get(), np.full(3, 4 * sum(range(n)), np.float64))


def test_a_first_reduction_is_interpreted_then_compiled(device, monkeypatch):
    """The real sequence: interpreted first, the full tier made in the background and
    swapped in, a later call planned anew for it."""
    needs_interpreter(device)
    monkeypatch.setattr(_interpreter, "ON_HOST", True)
    # (a name of its own: no kernel of an earlier device or run, in memory or on disk)
    name = f"interp_red_seq_{uuid.uuid4().hex}"
    red = ra.ReductionKernel("T x", "T y", "x * (T)2", "a + b", "y = a - (T)1", "0", name)
    x = np.random.default_rng(17).standard_normal((9, 300))
    a = ra.asarray(x, device=device)
    first = red(a, axis=1)
    loaded = [v for v in _launch._loaded.values() if v.spec.name.startswith(name)]
    assert loaded and loaded[0].code.tier == "interpreted"
    cache_module.drain_background()
    assert loaded[0].code.tier != "interpreted" and not loaded[0].code.simple_loops and loaded[0].code.functions
    second = red(a, axis=1)
    want = 2 * x.sum(axis=1) - 1
    np.testing.assert_allclose(first.get(), want, rtol=1e-12)
    np.testing.assert_allclose(second.get(), want, rtol=1e-12)


def test_a_large_first_reduction_on_the_host_loads_compiled_code(monkeypatch):
    device = ra.Device("cpu")
    left = host_leaving(monkeypatch)
    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    red = ra.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-1000000", "interp_red_large")
    small = np.arange(100, dtype=np.int64)
    assert int(red(ra.asarray(small, device=device)).get()) == 99    # interpreted
    assert not left
    big = np.arange(_tiers.POLICY.host_interpreted_work + 1, dtype=np.int64)[::-1].copy()
    assert int(red(ra.asarray(big, device=device)).get()) == big.size - 1
    assert len(left) == 1 and left[0].code.tier != "interpreted" and left[0].code.functions


def test_records_larger_than_the_interpreter_keeps_are_compiled(tiers):
    """An accumulator record past ``ITEM_RECORD_BYTES`` (nine float64 fields): compiled first."""
    from rocarray.compiler.reduction import ITEM_RECORD_BYTES

    n = ITEM_RECORD_BYTES // 8 + 1
    f8 = np.dtype(np.float64)
    rdef = _reduction.ReductionDef(
        "interp_wide_record", [("x", f8)], [(f"a{k}", f"b{k}", f8) for k in range(n)],
        " ".join(f"a{k} = 0;" for k in range(n)), " ".join(f"a{k} = x * {k};" for k in range(n)),
        " ".join(f"a{k} += b{k};" for k in range(n)), [("y", f8)],
        "y = " + " + ".join(f"a{k}" for k in range(n)) + ";")
    x = np.random.default_rng(21).standard_normal((4, 50))
    a = ra.asarray(x, device=tiers.device)
    got, ran = tiers.interpreted(lambda: _reduction.reduce(rdef, [a], axis=1)[0])
    assert not ran
    np.testing.assert_allclose(got.get(), x.sum(axis=1) * sum(range(n)), rtol=1e-12)


def test_signatures_of_one_layout_share_the_items(tiers):
    """The items are made once per operand counts: a new dtype makes no new template."""
    from rocarray.compiler.reduction import item_functions

    device = tiers.device
    x = np.random.default_rng(23).standard_normal((3, 40))
    tiers.interpreted(lambda: ra.sum(ra.asarray(x.astype(np.float32), device=device), axis=1))
    before = item_functions.cache_info().currsize
    for dt in (np.float64, np.int16, np.complex64):
        got, ran = tiers.interpreted(lambda: ra.prod(ra.asarray(x.astype(dt), device=device), axis=0))
        assert ran
        np.testing.assert_allclose(got.get(), np.prod(x.astype(dt), axis=0), rtol=1e-5)
    assert item_functions.cache_info().currsize == before


@pytest.mark.parametrize("chunks", [None, 5])
def test_scans_bit_for_bit(tiers, monkeypatch, chunks):
    """cumulative_sum / cumulative_prod: the elements, records and scan entries all
    interpreted (``chunks``: lines cut into that many chunks, so the chunk totals are
    scanned too, recursively)."""
    if chunks is not None:
        def cut(kernel, n_out, n, waves=False):
            return max(1, min(chunks, n // 2))  # (halving: the recursion over totals ends)
        monkeypatch.setattr(_reduction, "_scan_chunks", cut)
        _reduction._scan_plans.clear()  # (plans of other cuts)
    device = tiers.device
    rng = np.random.default_rng(29)
    checked = 0
    for dt in map(np.dtype, ALL_DTYPES):
        for shape, axis, initial in (((40,), 0, False), ((5, 33), 1, True), ((30, 4), 0, False)):
            x = _data(dt, shape, rng)
            if dt.kind in "fc":
                x = np.where(np.isfinite(x), x, 1).astype(dt)  # (NaN payloads of sums aside)
            a = ra.asarray(x, device=device)
            for name, ref in (("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)):
                if name == "cumulative_prod" and dt.kind in "fc":
                    a = ra.asarray(np.clip(x.real, -1.2, 1.2).astype(dt), device=device)

                def f(a=a, axis=axis, initial=initial, name=name):
                    return getattr(ra, name)(a, axis=axis, include_initial=initial)
                got, ran = tiers.interpreted(f)
                _same_bits(got, tiers.quick(f), (name, str(dt), shape, axis))
                checked += bool(ran)
                if dt.kind in "iu" and not initial:
                    want = ref(a.get(), axis=axis, dtype=got.dtype)
                    np.testing.assert_array_equal(got.get(), want, err_msg=f"{name} {dt}")
    assert checked
