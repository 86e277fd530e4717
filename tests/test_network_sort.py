"""The host's sorting network (compiler/network_host.py) behind ``sort`` of rows of up to
``longest_row`` 32- and 64-bit elements (65,536; 16,384 of 64-bit integers: in the stack's
buffer up to ``row_max``, else in a scratch array) and of 8- and 16-bit integers, bools
and float16 from ``shortest_row`` on, against NumPy's stable sort bit for bit: every length class, both
directions, NaNs of any bits and sign, -0.0 among +0.0, infinities, the extremes of the
integers; the input left as it was; the radix sort serving the rows while the network
compiles, and rows longer than the network's; new lengths compile nothing."""

from types import SimpleNamespace

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _launch, _radix, _sorting_functions, _split_sort, cache
from rocarray.compiler import network_host
from rocarray.compiler.cache import drain_background
from rocarray.targets import target_for

DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint32, np.uint64]
LENGTHS = [2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257, 511, 512, 700, 1023, 1024, 1025, 2048, 3001,
           8191, 8192, 8193, 16384, 16385, 20000, 32768, 32769, 65536, 65537]


def _host(device):
    if device.kind != "cpu":
        pytest.skip("the sorting network is the host's (GPUs sort with their radix sort)")


def _rows(dtype, rows, L, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = (rng.standard_normal((rows, L)) * 50).astype(dtype)
        a[rng.random((rows, L)) < 0.1] = 0.0
        a[rng.random((rows, L)) < 0.1] = -0.0
        a[rng.random((rows, L)) < 0.05] = np.inf
        a[rng.random((rows, L)) < 0.05] = -np.inf
        bits = a.view(f"u{dtype.itemsize}")
        top = 1 << (8 * dtype.itemsize - 1)
        exp = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[dtype.itemsize]
        # NaNs of several payloads and both signs
        for payload, sign in ((1, 0), (12345, top), (exp >> 1, 0), (3, top)):
            bits[rng.random((rows, L)) < 0.03] = exp | payload | sign
        return a
    info = np.iinfo(dtype)
    a = rng.integers(-40, 40, (rows, L)).astype(dtype) if dtype.kind == "i" else \
        rng.integers(0, 80, (rows, L)).astype(dtype)
    a[rng.random((rows, L)) < 0.05] = info.max  # (the network pads with the largest key)
    a[rng.random((rows, L)) < 0.05] = info.min
    return a


def _ready(dtype, device, arg=False):
    """Ask for the network of ``dtype`` (``arg``: its argsort) and wait for its background
    compile."""
    kind = "u1" if np.dtype(dtype).kind == "b" else f"{np.dtype(dtype).kind}{np.dtype(dtype).itemsize}"
    (ra.argsort if arg else ra.sort)(ra.asarray((np.arange(80)[::-1] % 7).astype(dtype).reshape(2, 40), device=device))
    drain_background()
    assert (("network-host", network_host.VERSION, kind, arg), device) in _launch._full_modules


def _expected(a, descending):
    if not descending:
        return np.sort(a, axis=1, kind="stable")
    # stable descending: the reversed rows sorted stably, reversed (NaNs first)
    return np.sort(a[:, ::-1], axis=1, kind="stable")[:, ::-1]


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_rows_match_numpy_bit_for_bit(device, dtype):
    _host(device)
    _ready(dtype, device)
    rng = np.random.default_rng(97)
    for L in LENGTHS:
        a = _rows(dtype, 9 if L <= 1024 else 2, L, rng)
        x = ra.asarray(a.copy(), device=device)  # (its own memory: on the CPU asarray wraps a)
        for descending in (False, True):
            got = ra.sort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_expected(a, descending)), err_msg=f"L={L}")
        np.testing.assert_array_equal(_bits(x.get()), _bits(a))  # (the input is not written)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_narrow_rows_match_numpy(device, dtype):
    # 8- and 16-bit keys, 64 and 32 lanes a vector: from ``shortest_row`` on as they are
    # (the extremes among them: the padding's largest key), shorter rows widened
    _host(device)
    _ready(dtype, device)
    rng = np.random.default_rng(98)
    kind = "u1" if np.dtype(dtype).kind == "b" else f"{np.dtype(dtype).kind}{np.dtype(dtype).itemsize}"
    shortest = network_host.shortest_row(kind)
    assert shortest in (20, 24)
    for L in [shortest - 1, shortest] + [L for L in LENGTHS if L > shortest]:
        a = rng.random((9 if L <= 1024 else 2, L)) < 0.4 if np.dtype(dtype).kind == "b" else _rows(dtype, 9 if L <= 1024 else 2, L, rng)
        x = ra.asarray(a.copy(), device=device)
        assert _radix.network_sorts(L, np.dtype(dtype), device) == (shortest <= L <= 65536), L
        for descending in (False, True):
            got = ra.sort(x, axis=1, descending=descending)
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got.get(), _expected(a, descending), err_msg=f"L={L}")
        np.testing.assert_array_equal(x.get(), a)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_64_bit_integer_rows_as_doubles_and_as_keys(device, dtype):
    """Rows of 64-bit integers whose magnitudes are at most 2**53 are sorted as doubles (exact):
    the bounds themselves, their neighbours one past (which take the integer keys) and values
    that differ in the lowest bit near the bounds, ties, both directions."""
    _host(device)
    _ready(dtype, device)
    rng = np.random.default_rng(95)
    e = 1 << 53
    signed = np.dtype(dtype).kind == "i"
    for L in (5, 64, 1000, 5000):
        near = [e, e - 1, e - 2, 0, 1, 2] + ([-e, -e + 1, -e + 2, -1] if signed else [])
        a = rng.integers(-e if signed else 0, e, (6, L), endpoint=True).astype(dtype)
        a[:, ::7] = rng.choice(np.array(near, dtype=dtype), (6, len(range(0, L, 7))))
        a[:, 1::5] = a[:, :1]  # (ties)
        a[4, L // 2] = e + 1  # one past the bound: this row takes the integer keys
        if signed:
            a[5, L // 3] = -e - 1
        x = ra.asarray(a, device=device)
        for descending in (False, True):
            got = ra.sort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(got, _expected(a, descending), err_msg=f"L={L}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_float_rows_without_zeros_or_nans(device, dtype):
    """Float keys are compared as floats: rows with neither zeros nor NaNs skip the pass
    that puts those back, so the network's own order is the answer (subnormals, the
    largest finite values and infinities among the rest)."""
    _host(device)
    _ready(dtype, device)
    rng = np.random.default_rng(96)
    info = np.finfo(dtype)
    for L in (7, 64, 1000, 5000):
        a = (rng.standard_normal((5, L)) * 50).astype(dtype)
        a[a == 0] = 1
        for v in (info.smallest_subnormal, -info.smallest_subnormal, 3 * info.smallest_subnormal, info.max,
                  -info.max, np.inf, -np.inf):
            a[rng.random((5, L)) < 0.04] = v
        x = ra.asarray(a, device=device)
        for descending in (False, True):
            got = ra.sort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(_bits(got), _bits(_expected(a, descending)), err_msg=f"L={L}")


@pytest.mark.parametrize("dtype", [np.float32, np.int64], ids=lambda d: np.dtype(d).name)
def test_axes_views_and_one_line(device, dtype):
    _host(device)
    _ready(dtype, device)
    rng = np.random.default_rng(98)
    a = _rows(dtype, 40, 300, rng)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(_bits(ra.sort(x, axis=0).get()),
                                  _bits(np.sort(a.T, axis=1, kind="stable").T))
    v = x[::3, 5::2]
    np.testing.assert_array_equal(_bits(ra.sort(v).get()), _bits(np.sort(a[::3, 5::2], axis=1, kind="stable")))
    line = ra.asarray(a[0], device=device)
    np.testing.assert_array_equal(_bits(ra.sort(line).get()), _bits(np.sort(a[0], kind="stable")))


def test_new_lengths_compile_nothing(device):
    _host(device)
    _ready(np.float32, device)
    rng = np.random.default_rng(99)
    ra.sort(ra.asarray(_rows(np.float32, 3, 100, rng), device=device))
    drain_background()
    before = cache.info()["compiled"] + cache.info()["disk_hits"]
    for L in (5, 64, 333, 1024, 5000, 16384):
        ra.sort(ra.asarray(_rows(np.float32, 4, L, rng), device=device), descending=True)
    drain_background()
    assert cache.info()["compiled"] + cache.info()["disk_hits"] == before


@pytest.fixture
def compiles_held(monkeypatch):
    """No network loaded; the background compiles asked for are held in the list returned
    (each one a job the test runs when it wants the module loaded)."""
    monkeypatch.setattr(_launch, "_full_modules_asked", set())
    monkeypatch.setattr(_launch, "_full_modules", {})
    started = []
    monkeypatch.setattr(_launch, "_cache", SimpleNamespace(compile_in_background=started.append))
    return started


def test_merge_and_radix_sorts_serve_until_the_network_is_loaded(compiles_held, monkeypatch):
    """Before its module is loaded (a first call does not wait for the network's compile)
    the rows of a small input go to the merge sort (one kernel to compile), those of a
    larger one to the radix sort (``FIRST_MERGE_MAX``), which sort them the same, bit for
    bit; then the network takes both."""
    cpu, started = ra.Device("cpu"), compiles_held
    merged, real = [], _sorting_functions._kernel
    monkeypatch.setattr(_sorting_functions, "_kernel", lambda *args: merged.append(args) or real(*args))
    radixed, real_radix = [], _sorting_functions.radix_sort
    monkeypatch.setattr(_sorting_functions, "radix_sort", lambda *args, **kw: radixed.append(1) or real_radix(*args, **kw))
    rng = np.random.default_rng(100)
    a = _rows(np.float64, 5, 300, rng)
    big = _rows(np.float64, _sorting_functions.FIRST_MERGE_MAX // 300 + 1, 300, rng)
    got = ra.sort(ra.asarray(a, device=cpu), axis=1).get()
    np.testing.assert_array_equal(_bits(got), _bits(_expected(a, False)))
    assert len(merged) == 1 and not radixed
    got = ra.sort(ra.asarray(big, device=cpu), axis=1).get()
    np.testing.assert_array_equal(_bits(got), _bits(_expected(big, False)))
    assert len(merged) == 1 and len(radixed) == 1
    assert len(started) == 1 and not _launch._full_modules  # (asked once, not loaded)
    ra.sort(ra.asarray(a, device=cpu), axis=1)
    assert len(started) == 1
    # (a single line that NumPy's sort takes, where the host has it: nothing to compile;
    # ``sort`` hands it to ``host_line_sort`` at once, before the choice of the others)
    monkeypatch.setattr(_split_sort, "numpy_simd_sort", lambda bits: True)
    monkeypatch.setattr(_split_sort, "ONE_PIECE_MIN", 1 << 10)
    lined, real_line = [], _sorting_functions.host_line_sort
    monkeypatch.setattr(_sorting_functions, "host_line_sort", lambda *args: lined.append(1) or real_line(*args))
    line = _rows(np.float64, 1, 2000, rng)[0]
    np.testing.assert_array_equal(_bits(ra.sort(ra.asarray(line, device=cpu)).get()), _bits(np.sort(line, kind="stable")))
    assert len(merged) == 2 and len(radixed) == 1 and len(lined) == 1
    started[0]()  # the background job: the module loads, and the next call takes it
    assert _radix.network_sorts(300, np.dtype(np.float64), cpu)
    got = ra.sort(ra.asarray(a, device=cpu), axis=1, descending=True).get()
    np.testing.assert_array_equal(_bits(got), _bits(_expected(a, True)))
    assert len(merged) == 2 and len(radixed) == 2  # (the network through ``radix_sort``)


def test_what_takes_the_network(device):
    _host(device)
    _ready(np.float32, device)
    cpu = ra.Device("cpu")
    for dt, on_stack in ((np.float32, 16384), (np.uint32, 16384), (np.int64, 8192), (np.float64, 8192)):
        _ready(dt, device)
        size = np.dtype(dt).itemsize
        assert network_host.row_max(size) == on_stack
        assert network_host.scratch_bytes(3, on_stack, size) == 0
        assert network_host.scratch_bytes(3, on_stack + 1, size) == 3 * 2 * on_stack * size
        longest = network_host.longest_row(f"{np.dtype(dt).kind}{size}")
        assert longest == (65536 if size == 4 or dt == np.float64 else 16384)
        for L in (1025, on_stack, on_stack + 1, longest):
            assert _radix.network_sorts(L, np.dtype(dt), cpu)
        assert not _radix.network_sorts(longest + 1, np.dtype(dt), cpu)
    assert not _radix.network_sorts(100, np.dtype(np.complex64), cpu)
    _ready(np.float16, device)  # (sorts from rows of 4; its argsort widens it)
    assert _radix.network_sorts(4, np.dtype(np.float16), cpu) and _radix.network_sorts(65536, np.dtype(np.float16), cpu)
    assert not _radix.network_sorts(3, np.dtype(np.float16), cpu) and not _radix.network_sorts(100, np.dtype(np.float16), cpu, True)
    for dt in (np.int16, np.uint8, np.bool_):  # (sorts; their argsorts widen them)
        _ready(dt, device)
        assert _radix.network_sorts(100, np.dtype(dt), cpu) and not _radix.network_sorts(100, np.dtype(dt), cpu, True)
        assert not _radix.network_sorts(19, np.dtype(dt), cpu) and not _radix.network_sorts(65537, np.dtype(dt), cpu)


def _module(target, kind, arg=False):
    module = ir.Module("network")
    module.triple, module.data_layout = target.triple, target.data_layout
    network_host.build_network_module(module, target, "rk_net", kind, arg)
    return module


@pytest.mark.parametrize("kind, arg", [(kind, arg) for kind in network_host.KINDS for arg in (False, True)
                                       if network_host.longest_row(kind, arg)], ids=str)
def test_module_builds_for_the_host(kind, arg):
    # (8- and 16-bit keys: sorts only, their argsorts widen them; test_errors)
    target = target_for("host").heavy_tier
    asm = target.emit_assembly(_module(target, kind, arg))
    assert "rk_net:" in asm
    assert isinstance(target.compile(_module(target, kind, arg)), bytes)


def test_errors():
    with pytest.raises(ValueError, match="built for the host"):
        _module(target_for("sm_90"), "f4")
    with pytest.raises(ValueError, match="not 'c8'"):
        _module(target_for("host"), "c8")
    with pytest.raises(ValueError, match="argsorts keys of 32 and 64 bits, not 'i2'"):
        _module(target_for("host"), "i2", True)


ARG_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]


def _expected_order(a, descending):
    """NumPy's stable argsort; descending: stable too (equal elements keep their order)."""
    if not descending:
        return np.argsort(a, axis=1, kind="stable")
    return a.shape[1] - 1 - np.argsort(a[:, ::-1], axis=1, kind="stable")[:, ::-1]


@pytest.mark.parametrize("dtype", ARG_DTYPES, ids=lambda d: np.dtype(d).name)
def test_argsort_rows_match_numpys_stable_order(device, dtype):
    """Rows of every length class up to the longest the argsort network takes (short rows
    too, under the radix sort's ``RADIX_MIN_LINE``; in the stack's buffer and in the
    scratch array), ties, NaNs of any bits, both zeros: the order is NumPy's stable one,
    both ways; the input is not written."""
    _host(device)
    _ready(dtype, device, arg=True)
    rng = np.random.default_rng(101)
    record = network_host.record_bytes(np.dtype(dtype).itemsize, True)
    longest = network_host.longest_row(f"{np.dtype(dtype).kind}{np.dtype(dtype).itemsize}", True)
    for L in sorted({L for L in [2, 3, 5, 8, 17, 31, 32, 33, 100, 256, 1000, 1024, 1025, 4097, network_host.row_max(record),
                                 network_host.row_max(record) + 1, longest] if L <= longest}):
        a = _rows(dtype, 5 if L <= 1024 else 2, L, rng)
        x = ra.asarray(a.copy(), device=device)  # (its own memory: on the CPU asarray wraps a)
        assert _radix.network_argsort(x.reshape((x.size,)), a.shape[0], L, False) is not None
        for descending in (False, True):
            got = ra.argsort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(got, _expected_order(a, descending), err_msg=f"L={L}")
        np.testing.assert_array_equal(_bits(x.get()), _bits(a))
    line = _rows(dtype, 1, 3000, rng)[0]
    np.testing.assert_array_equal(ra.argsort(ra.asarray(line, device=device)).get(),
                                  np.argsort(line, kind="stable"))


def test_what_the_argsort_network_takes(device):
    _host(device)
    cpu = ra.Device("cpu")
    for dt in ARG_DTYPES:
        _ready(dt, device, arg=True)
        x = ra.asarray(np.arange(2 * 100, dtype=dt), device=cpu)
        assert _radix.network_argsort(x, 2, 100, False) is not None
        longest = network_host.longest_row(f"{np.dtype(dt).kind}{np.dtype(dt).itemsize}", True)
        assert longest == (16384 if np.dtype(dt).itemsize == 4 else 4096)
        assert _radix.network_argsort(x, 1, longest + 1, False) is None
    assert [network_host.row_max(network_host.record_bytes(size, True)) for size in (4, 8)] == [8192, 4096]
    for dt in (np.float16, np.int16, np.bool_, np.complex64):
        x = ra.asarray(np.zeros(200, dtype=dt), device=cpu)
        assert _radix.network_argsort(x, 2, 100, False) is None


@pytest.mark.parametrize("dtype, rows, L", [(np.float32, 4, 300), (np.int64, 3000, 9)], ids=["long", "short"])
def test_argsort_rows_until_the_network_is_loaded(compiles_held, dtype, rows, L):
    """Before the argsort network's module is loaded the rows' order comes from the merge
    sort (short rows, and rows of small inputs: ``FIRST_MERGE_MAX``) or the radix sort,
    from a copy of the keys, which they write; once it is loaded, from the network, the
    keys not copied; the same order either way."""
    cpu, started = ra.Device("cpu"), compiles_held
    rng = np.random.default_rng(102)
    a = _rows(dtype, rows, L, rng)
    x = ra.asarray(a, device=cpu)
    np.testing.assert_array_equal(ra.argsort(x, axis=1).get(), _expected_order(a, False))
    np.testing.assert_array_equal(_bits(x.get()), _bits(a))
    assert len(started) == 1 and not _launch._full_modules
    started[0]()  # the background job: the module loads, and the next call takes it
    taken, copied = [], []
    real, real_copy = _sorting_functions.network_argsort, _sorting_functions.copy_array
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_sorting_functions, "network_argsort", lambda *args: taken.append(args[2]) or real(*args))
        mp.setattr(_sorting_functions, "copy_array", lambda *args: copied.append(1) or real_copy(*args))
        np.testing.assert_array_equal(ra.argsort(x, axis=1, descending=True).get(), _expected_order(a, True))
    assert taken == [L] and copied == []


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16],
                         ids=lambda d: np.dtype(d).name)
def test_short_rows_of_narrow_dtypes_widened_for_the_network(device, dtype, monkeypatch):
    """Rows shorter than ``RADIX_MIN_LINE`` of 8- and 16-bit integers and bools: ``sort``
    and ``argsort`` by the int32 network; float16's ``argsort`` by the float32 argsort
    network, its ``sort`` by its own network from rows of 4 (NaNs of several payloads keep
    their bits), shorter rows by the merge sort; ties, the extremes, NaNs and both zeros;
    NumPy's stable order both ways, sorted values bit for bit; the merge sort called for
    nothing else, and the keys copied for it alone."""
    _host(device)
    for dt, arg in ((np.int32, False), (np.int32, True), (np.float32, True), (np.float16, False)):
        _ready(dt, device, arg=arg)
    rng = np.random.default_rng(104)
    if np.dtype(dtype).kind == "f":
        base = rng.integers(-4, 4, 4000).astype(dtype)
        bits = base.view(np.uint16)
        for nan in (0x7E00, 0xFE01, 0x7C01, 0x7D23):  # (quiet and signalling, both signs)
            bits[rng.random(4000) < 0.02] = nan
        base[rng.random(4000) < 0.05] = -0.0
        base[rng.random(4000) < 0.03] = -np.inf
    elif np.dtype(dtype).kind == "b":
        base = rng.random(4000) < 0.5
    else:
        info = np.iinfo(dtype)
        base = rng.integers(info.min, int(info.max) + 1, 4000).astype(dtype)
        base[rng.random(4000) < 0.2] = info.max
        base[rng.random(4000) < 0.2] = 0
    merged, real = [], _sorting_functions._kernel
    monkeypatch.setattr(_sorting_functions, "_kernel", lambda *a: merged.append(L) or real(*a))
    copied, real_copy = [], _sorting_functions.copy_array
    monkeypatch.setattr(_sorting_functions, "copy_array", lambda *a: copied.append(L) or real_copy(*a))
    lengths = (2, 3, 7, 16, 31)
    for L in lengths:
        a = base[: 4000 // L * L].reshape(-1, L)
        x = ra.asarray(a.copy(), device=device)
        for descending in (False, True):
            got = ra.argsort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(got, _expected_order(a, descending), err_msg=f"L={L}")
            got = ra.sort(x, axis=1, descending=descending)
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(_bits(got.get()) if a.dtype.kind == "f" else got.get(),
                                          _bits(_expected(a, descending)) if a.dtype.kind == "f" else
                                          _expected(a, descending), err_msg=f"L={L}")
        np.testing.assert_array_equal(x.get(), a)
    # (float16 rows shorter than its network's: the merge sort)
    short = [L for L in lengths if L < network_host.shortest_row("f2") for _ in (0, 1)]
    assert short and merged == (short if np.dtype(dtype).kind == "f" else [])
    # (the keys are widened into a new array, not copied first; the merge sort's are)
    assert copied == merged


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float16], ids=lambda d: np.dtype(d).name)
def test_narrow_argsorts_widened_up_to_their_longest_row(device, dtype, monkeypatch):
    # argsorts of rows of 8- and 16-bit values from ``RADIX_MIN_LINE`` to
    # ``WIDE_ARGSORT_MAX`` by the wider network (longer rows: 8-bit ones counted, others
    # the radix sort's passes)
    _host(device)
    for dt in (np.int32, np.float32):
        _ready(dt, device, arg=True)
    rng = np.random.default_rng(105)
    longest = _sorting_functions.WIDE_ARGSORT_MAX[np.dtype(dtype).itemsize]
    widened, real = [], _sorting_functions.astype
    monkeypatch.setattr(_sorting_functions, "astype", lambda x, dt: widened.append(x.shape[-1]) or real(x, dt))
    lengths = (32, longest, longest + 1, 2 * longest + 3)
    for L in lengths:
        a = (rng.random((7, L)) < 0.5 if np.dtype(dtype).kind == "b" else
             rng.integers(-5, 60, (7, L)).astype(dtype))
        if a.dtype.kind == "f":
            a[rng.random(a.shape) < 0.05] = np.nan
            a[rng.random(a.shape) < 0.05] = -0.0
        x = ra.asarray(a.copy(), device=device)
        for descending in (False, True):
            got = ra.argsort(x, axis=1, descending=descending).get()
            np.testing.assert_array_equal(got, _expected_order(a, descending), err_msg=f"L={L}")
        np.testing.assert_array_equal(x.get(), a)
    assert widened == [L for L in lengths[:2] for _ in (0, 1)]


@pytest.mark.parametrize("block", [1, 2, 4, 16])
@pytest.mark.parametrize("kind, arg", [("f4", False), ("i4", False), ("i8", False), ("f8", False),
                                       ("i2", False), ("u1", False), ("f2", False), ("f4", True), ("f8", True)],
                         ids=str)
def test_every_register_block_sorts_as_numpy(monkeypatch, block, kind, arg):
    # This machine builds one block size (``register_block``); other hosts build others
    # (four without AVX-512): each is run here, through the module's entry itself.
    import ctypes

    from rocarray.runtime.hostload import load_host_object

    monkeypatch.setattr(network_host, "register_block", lambda target: block)
    target = target_for("host").heavy_tier
    entry = load_host_object(target.compile(_module(target, kind, arg))).address("rk_net")
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(entry)
    rng = np.random.default_rng(block)
    dtype = np.dtype({"f4": np.float32, "i4": np.int32, "i8": np.int64, "f8": np.float64, "i2": np.int16,
                      "u1": np.uint8, "f2": np.float16}[kind])
    for L in (3, 16, 33, 100, 256, 700, 2048):
        a = _rows(dtype, 5, L, rng)
        for desc in (False, True):
            out = np.empty(a.shape, np.int64 if arg else dtype)
            args = (ctypes.c_int64 * 6)(5, a.ctypes.data, out.ctypes.data, L, int(desc), 0)
            run(ctypes.addressof(args), 0, 5)
            if arg:
                np.testing.assert_array_equal(out, _expected_order(a, desc), err_msg=f"L={L} desc={desc}")
            else:
                np.testing.assert_array_equal(_bits(out), _bits(_expected(a, desc)), err_msg=f"L={L} desc={desc}")


@pytest.mark.parametrize("dtype", DTYPES + [np.int16, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
def test_short_lines_go_straight_to_the_network(device, dtype, monkeypatch):
    """One contiguous host line the network takes (its argsort: of 32- and 64-bit keys) is
    sorted by it with none of a general sort's preparation (``_prepare``, here made to
    fail): NumPy's stable order bit for bit, both ways, views with an offset, the input
    unwritten; lines it does not take (one element, complex) still sort."""
    _host(device)
    _ready(dtype, device)
    arg = dtype in ARG_DTYPES
    if arg:
        _ready(dtype, device, arg=True)
    rng = np.random.default_rng(103)
    kind = "u1" if np.dtype(dtype).kind == "b" else f"{np.dtype(dtype).kind}{np.dtype(dtype).itemsize}"
    shortest = network_host.shortest_row(kind)
    longest_arg = network_host.longest_row(kind, True) if arg else 0

    def no_prepare(*args):
        raise AssertionError("a short line went through _prepare")

    with monkeypatch.context() as m:
        m.setattr(_sorting_functions, "_prepare", no_prepare)
        for L in (shortest, 33, 256, 1000, 8191):
            a = (_rows(dtype, 1, L + 3, rng)[0] if np.dtype(dtype).kind != "b"
                 else rng.random(L + 3) < 0.5)
            base = ra.asarray(a.copy(), device=device)
            x = base[3:]  # (a view with an offset)
            for descending in (False, True):
                got = ra.sort(x, descending=descending).get()
                np.testing.assert_array_equal(_bits(got), _bits(_expected(a[None, 3:], descending)[0]),
                                              err_msg=f"L={L}")
                if L <= longest_arg:
                    np.testing.assert_array_equal(ra.argsort(x, descending=descending).get(),
                                                  _expected_order(a[None, 3:], descending)[0], err_msg=f"L={L}")
            np.testing.assert_array_equal(_bits(base.get()), _bits(a))
    one = ra.asarray(np.ones(1, dtype=dtype), device=device)
    assert ra.sort(one).get().tolist() == [1] and ra.argsort(one).get().tolist() == [0]
    z = rng.standard_normal(50) + 1j * rng.standard_normal(50)
    np.testing.assert_array_equal(ra.sort(ra.asarray(z, device=device)).get(), np.sort(z, kind="stable"))
