"""The single-pass GPU scan (compiler/reduction_chain.py): compile-only checks for sm_90,
gfx90a, gfx942 and gfx1100 on any machine; against NumPy on a GPU (every real and integer
dtype, sums, products, maxima, minima and logical scans, whole and partial tiles, many
tiles, the identity in front, views off the 16-byte grid, NaN)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from llvmlite import ir

import rocarray as ra
from rocarray import _chain_status, _dtypes, _reduction
from rocarray import _statistical_functions as stats
from rocarray.compiler.cache import drain_background
from rocarray.compiler.reduction_chain import CHAIN_PARAMS, chain_tile
from rocarray.runtime.streams import Stream
from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget, find_lld
from rocarray.targets.codeobject import check_code_object
from conftest import ALL_DTYPES, gpu_devices, random_array

NEEDS_GPU = "needs a GPU (NVIDIA CUDA or AMD HIP)"
requires_gpu = pytest.mark.skipif(not gpu_devices("cuda") and not gpu_devices("hip"), reason=NEEDS_GPU)
REAL = [d for d in ALL_DTYPES if np.dtype(d).kind != "c"]


def _module(target, dtype, out=None, op=stats.sum):
    acc, out_dt = op.dtypes(dtype, out)
    key, make = op.definition(dtype, acc, out_dt).chain_module()
    _, build, packer, entries = make()
    assert packer.size == 8 * (1 + len(CHAIN_PARAMS)) and entries == ("_z",)
    module = ir.Module("chain")
    module.triple = target.triple
    module.data_layout = target.data_layout
    build(module, target, "rk_chain")
    return module


@pytest.mark.parametrize("dtype, out", [(_dtypes.float32, None), (_dtypes.float64, None), (_dtypes.int32, None),
                                        (_dtypes.bool, None), (_dtypes.float16, None), (_dtypes.uint8, None),
                                        (_dtypes.int64, _dtypes.int8)], ids=str)
def test_nvptx_single_pass(dtype, out):
    target = target_for("sm_90")
    ptx = target.emit_ptx(_module(target, dtype, out))
    assert ".entry rk_chain(" in ptx and ".entry rk_chain_z(" in ptx and "ld.local" not in ptx
    assert ptx.count(".param .u64 rk_chain_param_") == 1 + len(CHAIN_PARAMS)
    # the status: relaxed 64-bit words, no fences; the stage: 16-byte shared accesses
    assert "st.relaxed" in ptx and "ld.relaxed" in ptx and "fence" not in ptx and "membar" not in ptx
    assert "ld.shared.v4" in ptx and "st.shared.v4" in ptx and "vote.sync.ballot.b32" in ptx
    assert isinstance(target.compile(_module(target, dtype, out)), bytes)


@pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_amdgpu_code_objects(arch):
    target = AMDGPUTarget(arch)
    for dtype, out, op in ((_dtypes.float32, None, stats.sum), (_dtypes.float64, None, stats.prod),
                           (_dtypes.int8, None, stats.sum), (_dtypes.float16, None, stats.sum)):
        hsaco = target.compile(_module(target, dtype, out, op))
        assert check_code_object(hsaco, arch, ["rk_chain", "rk_chain_z"]) == []


def test_errors():
    with pytest.raises(ValueError, match="needs a GPU target"):
        _module(target_for("host"), _dtypes.float32)
    with pytest.raises(ValueError, match="needs a GPU target and a vector path"):
        _module(target_for("sm_90"), _dtypes.complex64)
    # a tile is 32 KiB of the wider of input and output, 16 KiB of float16
    assert chain_tile(4) * 4 == 32768 and chain_tile(2) * 8 == 32768 and chain_tile(4) * 2 == 16384


def _gpu(device):
    if device.kind == "cpu":
        pytest.skip(NEEDS_GPU)


def _single_pass(run):
    """``run()`` once its single pass is loaded, checked to have taken it."""
    _reduction._scan_plans.clear()
    run()
    device_sync()
    drain_background()
    got = run()
    assert any(plan.chained is not None for plan in _reduction._scan_plans.values()), "the single pass did not run"
    return got


def device_sync():
    for d in gpu_devices("cuda") + gpu_devices("hip"):
        d.synchronize()


def _expected(h, op, dtype):
    if op == "sum":
        return np.cumsum(h, dtype=dtype)
    if op == "prod":
        return np.cumprod(h, dtype=dtype)
    if op == "logical_or":
        return np.logical_or.accumulate(h.astype(bool))
    return (np.maximum if op == "max" else np.minimum).accumulate(h)


def _check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":  # (the signs of zeros too)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@requires_gpu
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_cumulative_sum_every_dtype(device, dtype):
    """Sums against NumPy bit for bit: floats hold small whole numbers, whose running sums
    every float type holds exactly, so the order of the combines cannot hide an error;
    float lines start with a run of ``-0.0``, whose sums stay ``-0.0``."""
    _gpu(device)
    rng = np.random.default_rng(11)
    tile = 8192
    for n in ((1 << 17) + 1, (1 << 17) + 4099, 40 * tile + 5):  # (the view: 2**17 and more)
        if np.dtype(dtype).kind == "f":
            h = rng.integers(-1 if dtype == ra.float16 else -3, 2 if dtype == ra.float16 else 4, n).astype(dtype)
            assert np.abs(np.cumsum(h, dtype=np.float64)).max() < 2048  # (exact in float16)
            h[:3 * tile + 5] = -0.0  # (a run of -0.0 over several tiles keeps its sign)
        else:
            h = random_array((n,), dtype, rng)
        x = ra.asarray(h, device=device)
        got = _single_pass(lambda: ra.cumulative_sum(x)).get()
        want = np.cumsum(h, dtype=got.dtype)
        assert got.dtype == ra.cumulative_sum(ra.asarray(h[:2], device="cpu")).dtype
        _check(got, want)
        # the identity in front (the output off the 16-byte grid: element by element)
        got = _single_pass(lambda: ra.cumulative_sum(x, include_initial=True)).get()
        _check(got, np.concatenate([np.zeros(1, want.dtype), want]))
        # a view one element in (the input off the 16-byte grid)
        got = _single_pass(lambda: ra.cumulative_sum(x[1:])).get()
        _check(got, np.cumsum(h[1:], dtype=got.dtype))


@requires_gpu
@pytest.mark.parametrize("op", ["prod", "max", "min", "logical_or"])
@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.int64, ra.int8, ra.uint16, ra.bool], ids=str)
def test_other_operations(device, op, dtype):
    _gpu(device)
    rng = np.random.default_rng(12)
    n = (1 << 20) + 77
    kind = np.dtype(dtype).kind
    if op == "prod" and kind == "f":
        # signed powers of two: every product exact, so the order of the products hides nothing
        steps = rng.choice([-1, 0, 1], n, p=[0.002, 0.996, 0.002])
        assert np.abs(np.cumsum(steps)).max() < 120  # (inside float32's exponents)
        h = (rng.choice([-1.0, 1.0], n) * np.exp2(steps)).astype(dtype)
    elif op == "logical_or":
        h = np.zeros(n, dtype)
        h[rng.integers(n // 2, n)] = 1  # (false up to one element past the middle)
    else:
        h = random_array((n,), dtype, rng)
    if op in ("max", "min") and kind == "f":
        h[n // 3] = np.nan  # (NaN from there on, as NumPy)
    x = ra.asarray(h, device=device)
    got = _single_pass(lambda: ra.scan(x, op)).get()
    want_dt = None if op in ("max", "min", "logical_or") else got.dtype
    _check(got, _expected(h, op, want_dt).astype(got.dtype))


@requires_gpu
def test_repeated_long_integer_lines(device):
    """Integer sums are exact whatever the order: twenty calls of 2**24 + 5 elements agree
    with NumPy bit for bit (a look-back reading a half-written status would not)."""
    _gpu(device)
    rng = np.random.default_rng(13)
    h = rng.integers(-1000, 1000, (1 << 24) + 5)
    x = ra.asarray(h, device=device)
    want = np.cumsum(h)
    _single_pass(lambda: ra.cumulative_sum(x))
    for _ in range(20):
        np.testing.assert_array_equal(ra.cumulative_sum(x).get(), want)


class _Scans:
    """Stand-ins for a scan's two launches over a real host buffer, doing to its counter
    what the GPU entries do: ``zero`` zeroes the words, ``launch`` checks that the counter
    holds ``base`` and that no status word has a state with ``tag``, then takes ``tickets``
    tickets and writes prefixes with ``tag`` into the first ``words`` status words."""

    def __init__(self, status):
        self.status = status
        self.zeroed = []

    def words_at(self, address, n):
        import ctypes
        return np.ctypeslib.as_array((ctypes.c_uint64 * n).from_address(address))

    def zero(self, address, n):
        self.zeroed.append(n)
        self.words_at(address, n)[:] = 0

    def launcher(self, words, tickets, fail=False):
        def launch(counter, status, base, tag):
            assert status == counter + _chain_status.COUNTER_BYTES and tag % 4 == 0 and 0 < tag < 1 << 32
            held = self.words_at(status, self.status.words)
            states = (held >> np.uint64(32)) - np.uint64(tag)  # (another tag's: wrapped past 2)
            assert self.words_at(counter, 1)[0] == base and not np.any((states == 1) | (states == 2))
            self.words_at(counter, 1)[0] += tickets // 2 if fail else tickets
            held[:words] = (tag + 2) << 32
            if fail:
                raise RuntimeError("launch failed")
        return launch


def test_status_kept_between_scans(monkeypatch):
    """A stream's counter and status words (``_chain_status``): zeroed at the first scan,
    when a longer scan grows them, when the tags run out, and after a launch (or a
    zeroing) that raised;
    otherwise each scan starts from the counter the last left and has a tag of its own."""
    cpu = ra.Device("cpu")
    status = _chain_status.ChainStatus()
    scans = _Scans(status)

    def scan(words, tickets, fail=False):
        status.scan(cpu, words, tickets, scans.zero, scans.launcher(words, tickets, fail))

    for words, tickets in ((100, 140), (100, 140), (60, 70), (128, 200)):
        scan(words, tickets)
    assert scans.zeroed == [32 + 128] and status.base == 550 and status.tag == 4
    scan(129, 250)  # longer than the buffer: a new one, zeroed
    assert scans.zeroed[1:] == [32 + 256] and status.base == 250 and status.tag == 1
    with pytest.raises(RuntimeError, match="launch failed"):
        scan(10, 20, fail=True)
    scan(10, 20)  # the counter's value unknown after the failure: zeroed again
    assert scans.zeroed[2:] == [32 + 256] and status.base == 20 and status.tag == 1
    def failing_zero(address, n):
        raise RuntimeError("zeroing failed")

    with pytest.raises(RuntimeError, match="zeroing failed"):
        status.scan(cpu, 300, 20, failing_zero, scans.launcher(300, 20))
    scan(300, 20)  # the new buffer was never zeroed: zeroed now
    assert scans.zeroed[3:] == [32 + 512] and status.base == 20 and status.tag == 1
    monkeypatch.setattr(_chain_status, "TAGS", 4)
    for _ in range(5):
        scan(10, 20)
    assert len(scans.zeroed) == 5 and status.tag == 3  # (tags 2, 3; zeroed; 1, 2, 3: each below TAGS)


@requires_gpu
def test_scans_sharing_a_stream(device, monkeypatch):
    """Single passes of different records (one and two status words a tile) and lengths
    one after another on one stream, without waits between them, then with the tags
    running out every few scans, on a stream of the test's own and from several threads:
    every result exact, and the stream's buffer zeroed only when it had to be."""
    _gpu(device)
    rng = np.random.default_rng(14)
    lines = [rng.integers(-1000, 1000, n).astype(dt) for n, dt in
             (((1 << 18) + 3, np.int64), ((1 << 20) + 9, np.float32), ((1 << 22) + 1, np.int32), (1 << 17, np.int16))]
    xs = [ra.asarray(h, device=device) for h in lines]
    wants = [np.cumsum(h, dtype=ra.cumulative_sum(ra.asarray(h[:2], device="cpu")).dtype) for h in lines]
    for x in xs:
        _single_pass(lambda x=x: ra.cumulative_sum(x))
    status = _chain_status.chain_status(device)
    for rounds in range(2):
        tag, got = status.tag, []
        for _ in range(5):
            got += [ra.cumulative_sum(x) for x in xs]
        assert status.tag == tag + 20 or rounds == 1
        for k, g in enumerate(got):
            np.testing.assert_array_equal(g.get(), wants[k % 4])
        monkeypatch.setattr(_chain_status, "TAGS", 7)  # zeroed every sixth scan
    with Stream(device.runtime, device.index) as own:
        got = [ra.cumulative_sum(x) for x in xs for _ in range(3)]
        assert _chain_status.chain_status(device) is not status and _chain_status.chain_status(device).tag == 6
    own.synchronize()
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g.get(), wants[k // 3])

    def work(k):
        for _ in range(6):
            np.testing.assert_array_equal(ra.cumulative_sum(xs[k % 4]).get(), wants[k % 4])

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))  # (a thread's failure raises here)
