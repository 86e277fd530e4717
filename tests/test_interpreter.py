"""The interpreter tier (rocarray/compiler/interp.py, rocarray/_interpreter.py).

Its results must be the compiled kernels' bit for bit: the whole op catalogue over every
dtype, on special values too, on every device present (the interpreter kernel compiles for
the host as for a GPU), and user kernels through the real call path (scalars, raw arrays,
preamble functions, control flow, broadcasting, strides, 0-d and empty).
"""

import struct

import numpy as np
import pytest

import rocarray as ra
from rocarray import _interpreter, _launch, _sorting_functions, _tiers
from rocarray.compiler import cache as cache_module
from rocarray.compiler import interp
from rocarray._elementwise import Ufunc
from rocarray._elementwise_functions import _rows
from conftest import ALL_DTYPES, DEVICES


def _data(dt, shape, rng):
    n = int(np.prod(shape))
    if dt.kind == "b":
        x = rng.integers(0, 2, n).astype(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dt)
        x[:2] = [info.min, info.max] if n >= 2 else x[:2]
    elif dt.kind == "f":
        x = (rng.standard_normal(n) * 3).astype(dt)
        special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]
        x[:len(special)] = special[:n]
    else:
        x = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3).astype(dt)
        x[:3] = [complex(0, -0.0), complex(np.inf, 1), complex(np.nan, 0)][:n]
    return x.reshape(shape)


class _Modes:
    """Runs a function with the interpreter serving every first call, then compiled."""

    def __init__(self, device, monkeypatch):
        self.device = device
        self.monkeypatch = monkeypatch

    def interpreted(self, fn):
        mp = self.monkeypatch
        saved = dict(_launch._loaded)
        mp.setattr(_interpreter, "ON_HOST", True)
        mp.setattr(_interpreter, "ENABLED", True)
        # the kernels stay interpreted: no compiled code replaces them, and none found in
        # the compile cache (memory or disk) is used instead
        mp.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
        mp.setattr(cache_module.default_cache(), "lookup", lambda key, target, quick=None: None)
        _launch._loaded.clear()
        try:
            out = fn()
            ran = [k for k in _launch._loaded.values() if k.code.tier == "interpreted"]
        finally:
            _launch._loaded.clear()
            _launch._loaded.update(saved)
            mp.undo()
        return out, ran

    def compiled(self, fn):
        self.monkeypatch.setattr(_interpreter, "ENABLED", False)
        try:
            return fn()
        finally:
            self.monkeypatch.undo()


def needs_interpreter(device) -> None:
    """Skip unless ``device`` has an interpreter (built now, or read from the disk cache)."""
    if _interpreter.prepare(device) is None:
        pytest.skip(f"{device} has no interpreter")


@pytest.fixture
def modes(device, monkeypatch):
    needs_interpreter(device)
    return _Modes(device, monkeypatch)


def _same_bits(got, want, what):
    """The same values bit for bit; a NaN matches any NaN (a GPU's ``abs.f32`` gives its
    canonical NaN where the interpreter's clears the sign bit of the NaN it got)."""
    g, w = got.get(), want.get()
    assert g.dtype == w.dtype and g.shape == w.shape, what
    if g.dtype.kind in "fc":
        parts = (g.real, w.real, g.imag, w.imag) if g.dtype.kind == "c" else (g, w)
        for a, b in zip(parts[::2], parts[1::2]):
            nan = np.isnan(a)
            assert np.array_equal(nan, np.isnan(b)), (what, a, b)
            a, b = np.where(nan, 0, a), np.where(nan, 0, b)
            assert a.tobytes() == b.tobytes(), (what, a, b)
        return
    assert g.tobytes() == w.tobytes(), (what, g, w)


def _catalogue():
    for name in sorted(_rows):
        yield name


@pytest.mark.parametrize("name", list(_catalogue()))
def test_catalogue_bit_for_bit(modes, name):
    """Every op of the catalogue, every dtype it takes: contiguous, strided, broadcast."""
    device = modes.device
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    nin = Ufunc(_rows[name]).nin
    checked = 0
    for dt in ALL_DTYPES:
        dt = np.dtype(dt)
        try:
            Ufunc(_rows[name]).resolve((dt,) * nin)
        except (TypeError, ValueError):
            continue
        flat = [ra.asarray(_data(dt, (37,), rng), device=device) for _ in range(nin)]
        grid = [ra.asarray(_data(dt, (6, 10), rng), device=device) for _ in range(nin)]
        views = [g[::2, 1::3] for g in grid]           # strided
        bcast = [grid[0][:, :1]] + [g[:1, :] for g in grid[1:]]   # broadcast
        for args in (flat, views, bcast):
            # a fresh Ufunc per mode: no plan made in one mode serves the other
            got, ran = modes.interpreted(lambda: Ufunc(_rows[name])(*args))
            want = modes.compiled(lambda: Ufunc(_rows[name])(*args))
            _same_bits(got, want, (name, str(dt)))
            if ran:
                checked += 1
    assert checked, f"{name}: the interpreter ran none of its signatures"


def test_bodies_of_many_constants_write_them_where_used(modes):
    """A body with more distinct constants than the interpreter has slots (each would keep
    one for the whole body): they are written where they are used, and the results are
    the compiled kernel's bit for bit, on both sides of a branch."""
    device = modes.device
    x = ra.asarray(np.random.default_rng(5).standard_normal(33), device=device)
    terms = " + ".join(f"x * {1 + k / 1024!r}" for k in range(300))
    body = f"double s = 0.0; if (x > 0) {{ s = {terms}; }} else {{ s = x * 0.25 - 1.5; }} y = s;"
    k = ra.ElementwiseKernel("float64 x", "float64 y", body, "interp_many_constants")
    got, ran = modes.interpreted(lambda: k(x))
    assert ran
    _same_bits(got, modes.compiled(lambda: k(x)), "many constants")


def test_bodies_too_large_are_compiled(modes):
    """More locals than the interpreter's stack (200 locals; a call of 300 arguments, which
    its callee keeps in locals): such a kernel's first call is compiled, and is right."""
    device = modes.device
    x = ra.asarray(np.linspace(0.5, 2.0, 16, dtype=np.float64), device=device)
    # a call's 300 arguments, all live at the call, then its callee's locals
    wide = ("__device__ double wide(" + ", ".join(f"double a{k}" for k in range(300)) + ") { return "
            + " + ".join(f"a{k}" for k in range(300)) + "; }")
    call = "y = wide(" + ", ".join(f"x * {k}.0" for k in range(300)) + ");"
    # 200 locals: more bytes than the interpreter's stack
    many = " ".join(f"double v{k} = x + {k}.0;" for k in range(200)) + " y = " + \
        " + ".join(f"v{k}" for k in range(200)) + ";"
    for body, pre, want in ((call, wide, sum(x.get() * k for k in range(300))),
                            (many, "", sum(x.get() + k for k in range(200)))):
        k = ra.ElementwiseKernel("float64 x", "float64 y", body, "interp_too_large", preamble=pre)
        got, ran = modes.interpreted(lambda: k(x))
        assert not ran
        np.testing.assert_allclose(got.get(), want, rtol=1e-12)


def test_large_bodies_share_slots(modes):
    """The complex inverse functions' bodies hold more values than there are slots: their
    live ranges share them, and the results are still the compiled kernel's."""
    device = modes.device
    z = ra.asarray(_data(np.dtype(np.complex128), (9,), np.random.default_rng(3)), device=device)
    # (fresh Ufuncs: the namespace's own keeps the plans earlier tests made)
    got, ran = modes.interpreted(lambda: Ufunc(_rows["asin"])(z))
    assert ran
    want = modes.compiled(lambda: Ufunc(_rows["asin"])(z))
    _same_bits(got, want, "asin")


_CLAMP = """
__device__ T clampit(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
"""
_COLLATZ = """
__device__ int collatz(long v) {
    int steps = 0;
    while (v != 1 && steps < 500) { v = (v % 2 == 0) ? v / 2 : 3 * v + 1; steps++; }
    return steps;
}
"""


def test_user_kernels_bit_for_bit(modes):
    device = modes.device
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 8)).astype(np.float32)
    y = rng.standard_normal((8,)).astype(np.float32)
    xs = ra.asarray(x, device=device)
    ys = ra.asarray(y, device=device)
    cases = []
    k1 = lambda: ra.ElementwiseKernel("T x, T y, T s", "T z",
                                      "z = clampit(x * y + s, (T)-1, (T)1)", "interp_clamp",
                                      preamble=_CLAMP)
    cases.append((k1, lambda k: k(xs, ys, np.float32(0.25))))           # broadcast + scalar
    cases.append((k1, lambda k: k(xs[:, ::3], ys[::3], np.float32(2))))  # strided
    k2 = lambda: ra.ElementwiseKernel("raw T x, int32 w", "T z",
                                      "int r = i / w, c = i % w; "
                                      "z = x[i] + (c > 0 ? x[i - 1] : (T)0) + (r > 0 ? x[i - w] : (T)0)",
                                      "interp_stencil")
    cases.append((k2, lambda k: k(xs.reshape(-1), np.int32(8), size=40)))
    k3 = lambda: ra.ElementwiseKernel("int64 v", "int32 steps, bool odd",
                                      "steps = collatz(v); switch (v % 3) { case 0: odd = false; break; "
                                      "default: odd = true; }", "interp_collatz", preamble=_COLLATZ)
    vs = ra.asarray(np.arange(1, 65, dtype=np.int64), device=device)
    cases.append((k3, lambda k: k(vs)))
    k4 = lambda: ra.ElementwiseKernel("complex64 a, float16 h", "complex128 c, float16 g",
                                      "c = a * a + (complex128)h; g = h * h - (float16)1.5",
                                      "interp_mixed")
    a = ra.asarray((rng.standard_normal(16) + 1j * rng.standard_normal(16)).astype(np.complex64),
                   device=device)
    h = ra.asarray(rng.standard_normal(16).astype(np.float16), device=device)
    cases.append((k4, lambda k: k(a, h)))
    cases.append((k4, lambda k: k(a[:0], h[:0])))                         # empty
    k5 = lambda: ra.ElementwiseKernel("int64 v", "int64 z",
                                      "long acc = 0; for (int r = 0; r < 2; r++) { bool t[300]; "
                                      "acc += t[v % 300] ? 1000 : 0; t[v % 300] = true; } "
                                      "bool seen[600]; seen[v] = true; z = acc + (seen[v] ? v : -1) + "
                                      "(seen[599] ? 5000 : 0);",
                                      "interp_large_arrays")  # (arrays zeroed by loops: within the interpreter's stack)
    cases.append((k5, lambda k: k(vs)))
    cases.append((k1, lambda k: k(xs[0, 0], ys[0], np.float32(0))))      # 0-d and 1-d
    for make, call in cases:
        got, ran = modes.interpreted(lambda: call(make()))
        want = modes.compiled(lambda: call(make()))
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            _same_bits(g, w, make().name)
        assert ran or got[0].size == 0


def test_fuse_bit_for_bit(modes):
    device = modes.device
    rng = np.random.default_rng(11)
    x = ra.asarray(rng.standard_normal(50).astype(np.float64), device=device)

    def make():
        @ra.fuse(kernel_name="interp_fused")
        def f(a, b):
            return ra.where(a > 0, ra.exp(-a) * b, ra.maximum(a, 1 - b))
        return f

    got, ran = modes.interpreted(lambda: make()(x, 0.5))
    want = modes.compiled(lambda: make()(x, 0.5))
    _same_bits(got, want, "fuse")
    assert ran


def test_a_first_call_is_interpreted_then_compiled(device, monkeypatch):
    """The real sequence: the interpreter runs the first call and the compiled code,
    made in the background, replaces it; both give the same bits."""
    needs_interpreter(device)
    monkeypatch.setattr(_interpreter, "ON_HOST", True)
    k = ra.ElementwiseKernel("T x", "T y", "y = x * x - (T)3", "interp_sequence_%d" % id(device))
    x = ra.asarray(np.linspace(-4, 4, 101, dtype=np.float32), device=device)
    first = k(x)
    loaded = [v for v in _launch._loaded.values() if v.spec.name.startswith("interp_sequence")]
    cache_module.drain_background()
    assert loaded and all(v.code.tier != "interpreted" for v in loaded)  # compiled code in place
    second = k(x)
    _same_bits(first, second, "first and later calls")
    # (x * x - 3 is one fma where the device contracts: within an ulp of NumPy's rounding)
    np.testing.assert_allclose(second.get(), x.get() * x.get() - np.float32(3), rtol=2e-7, atol=1e-6)


def test_kernels_that_say_so_are_never_interpreted(device, monkeypatch):
    """A kernel made with ``_interpret=False`` (the ranks of a GPU's first sorts, whose
    items loop over a line) compiles at its first call where the interpreter serves every
    other first call."""
    needs_interpreter(device)
    x = ra.asarray(np.arange(7, dtype=np.float32), device=device)
    plain = ra.ElementwiseKernel("T x", "T y", "y = x + (T)1", "interp_plain_%d" % id(device))
    never = ra.ElementwiseKernel("T x", "T y", "y = x + (T)1", "interp_never_%d" % id(device), _interpret=False)
    out, ran = _Modes(device, monkeypatch).interpreted(lambda: (plain(x).get(), never(x).get()))
    names = [k.spec.name for k in ran]
    assert any(n.startswith("interp_plain") for n in names)
    assert not any(n.startswith("interp_never") for n in names)
    for got in out:
        np.testing.assert_array_equal(got, np.arange(1, 8, dtype=np.float32))
    assert not _sorting_functions._rank_kernel("other")._interpret


# -- the bytecode and the interpreter kernel, without running them ----------------------------

def test_bytecode_layout():
    from llvmlite import ir
    from rocarray._elementwise import elementwise_spec
    from rocarray.targets import target_for

    f = np.dtype(np.float32)
    spec = elementwise_spec("interp_layout", "out0 = in0 * in1 + in2;", (f, f, f), ("a", "a", "scalar"),
                            (f, f, f), f, f)
    quick = target_for("sm_90").quick_tier
    module = ir.Module()
    module.triple, module.data_layout = quick.triple, quick.data_layout
    body = spec.build_body(module, quick)
    iset = interp.instruction_set(quick)
    code = interp.compile_body(module, body, spec.operands, iset)
    words = np.frombuffer(code, dtype=np.int32)
    assert words[0] == interp.MAGIC
    assert words[1] == 3            # three array operands (two inputs, the output)
    start, body_pc = words[4], words[5]
    ops = [iset.names[w] for w in words[start::interp.INSTR_WORDS][:(len(words) - start) // interp.INSTR_WORDS]]
    assert "copyp" in ops and "addr" in ops   # the scalar, copied onto the stack
    assert "call.llvm.fma.f32" in ops         # contraction is explicit, as compiled
    assert ops[-1] == "ret"
    assert (len(words) - start) % interp.INSTR_WORDS == 0 and body_pc > start


def test_more_live_values_than_slots_are_reported():
    from llvmlite import ir
    from rocarray.compiler.abi import Operand
    from rocarray.targets import target_for

    quick = target_for("host").quick_tier
    module = ir.Module()
    i64, ptr = ir.IntType(64), ir.PointerType()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, i64, i64]), "body")
    b = ir.IRBuilder(fn.append_basic_block())
    x = b.load(fn.args[0], typ=i64)
    live = interp.SLOTS + 10
    values = [b.add(x, ir.Constant(i64, k)) for k in range(live)]   # all live until the sum
    total = values[-1]
    for v in reversed(values[:-1]):
        total = b.add(total, v)
    b.store(total, fn.args[1])
    b.ret_void()
    ops = [Operand(np.dtype(np.int64), "in"), Operand(np.dtype(np.int64), "out")]
    with pytest.raises(interp.NotInterpretable, match=f"more than {interp.SLOTS} values live at once"):
        interp.compile_body(module, fn, ops, interp.instruction_set(quick))
    # fewer live at once than slots, though more values than slots: they share
    module2 = ir.Module()
    fn2 = ir.Function(module2, ir.FunctionType(ir.VoidType(), [ptr, ptr, i64, i64]), "body")
    b = ir.IRBuilder(fn2.append_basic_block())
    acc = b.load(fn2.args[0], typ=i64)
    for k in range(3 * interp.SLOTS):
        acc = b.add(acc, ir.Constant(i64, k % 5))  # (constants keep slots of their own)
    b.store(acc, fn2.args[1])
    b.ret_void()
    code = interp.compile_body(module2, fn2, ops, interp.instruction_set(quick))
    words = np.frombuffer(code, dtype=np.int32)
    start = words[4]
    slots = words[start + 1::interp.INSTR_WORDS]
    assert slots.max() < interp.SLOTS


def test_unsupported_constructs_are_reported():
    from llvmlite import ir
    from rocarray.targets import target_for

    quick = target_for("host").quick_tier
    module = ir.Module()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(128)]), "body")
    b = ir.IRBuilder(fn.append_basic_block())
    b.add(fn.args[0], fn.args[0])
    b.ret_void()
    with pytest.raises(interp.NotInterpretable, match="parameters do not match"):
        interp.compile_body(module, fn, [], interp.instruction_set(quick))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_interpreter_kernel_compiles_for_nvptx(arch):
    """Compile-only: the interpreter kernel as PTX (libdevice linked), one kernel entry
    taking the parameter words by reference."""
    from rocarray.targets.nvptx import NVPTXTarget, find_libdevice

    if find_libdevice() is None:
        pytest.skip("libdevice.10.bc not found (CUDA toolkit or the nvidia-nvvm wheel)")
    target = _interpreter.image_target(NVPTXTarget(arch))
    ptx = target.emit_ptx(interp.build_interpreter(target))
    assert f".entry {interp.ENTRY}" in ptx
    assert f".param .align 8 .b8 {interp.ENTRY}_param_0[{8 * interp.PARAM_WORDS}]" in ptx
    assert "__nv_expf" not in ptx or ".func" in ptx  # libdevice inlined or defined, not external
    assert ".extern" not in ptx


def test_parameters_fit_or_fall_back(modes):
    """A kernel whose parameters pass the GPU interpreter's words is compiled first."""
    from rocarray.compiler.abi import Operand

    device = modes.device
    names = ", ".join(f"T a{k}" for k in range(16))
    body = " + ".join(f"a{k}" for k in range(16))
    k = ra.ElementwiseKernel(names, "T z", f"z = {body}", "interp_wide")
    xs = [ra.asarray(np.full(4, v, np.float32), device=device) for v in range(16)]
    got, ran = modes.interpreted(lambda: k(*xs))
    np.testing.assert_array_equal(got.get(), np.full(4, sum(range(16)), np.float32))
    f = np.dtype(np.float32)
    size = 8 + _launch.pack_format([Operand(f, "in")] * 16 + [Operand(f, "out")]).size
    assert size > 8 * interp.PARAM_WORDS
    assert bool(ran) == (device.kind == "cpu")  # the host passes its parameters in memory


def host_leaving(monkeypatch) -> list:
    """The host's interpreter serving every first call (none found in a cache), and the
    list of the kernels that then leave it for compiled code (``_tiers.leave_interpreter``)."""
    needs_interpreter(ra.Device("cpu"))
    monkeypatch.setattr(_interpreter, "ON_HOST", True)
    monkeypatch.setattr(_interpreter, "ENABLED", True)
    monkeypatch.setattr(cache_module.default_cache(), "lookup", lambda key, target, quick=None: None)
    left = []
    leave = _tiers.leave_interpreter
    monkeypatch.setattr(_tiers, "leave_interpreter", lambda kernel: (left.append(kernel), leave(kernel))[1])
    return left


def test_a_large_first_call_on_the_host_loads_compiled_code(monkeypatch):
    """The host interprets small first calls only: a larger one loads the quick tier's code
    at once (the full tier follows in the background)."""
    device = ra.Device("cpu")
    left = host_leaving(monkeypatch)
    k = ra.ElementwiseKernel("T x", "T y", "y = x * (T)3 + (T)1", "interp_large_first")
    small = ra.asarray(np.arange(10, dtype=np.float64), device=device)
    np.testing.assert_array_equal(k(small).get(), small.get() * 3 + 1)   # interpreted
    assert not left
    n = _tiers.POLICY.host_interpreted_most + 1
    big = ra.asarray(np.arange(n, dtype=np.float32), device=device)
    y = k(big)
    assert len(left) == 1 and left[0].code.tier != "interpreted" and left[0].code.function is not None
    np.testing.assert_allclose(y.get(), big.get() * 3 + 1, rtol=1e-7)
    cache_module.drain_background()


def test_a_missing_interpreter_is_built_in_a_child_process(monkeypatch, tmp_path):
    """No interpreter in the disk cache: the first look-up starts one child build and
    first calls compile meanwhile; once the image is there it is loaded; a child that
    left nothing turns the tier off for the process (no second child)."""
    from rocarray.compiler.cache import CompileCache
    from rocarray.compiler.diskcache import DiskCache
    from rocarray.targets import target_for

    device = ra.Device("cpu")
    target = target_for("host")
    cache = CompileCache(DiskCache(str(tmp_path)))
    monkeypatch.setattr(_interpreter, "default_cache", lambda: cache)
    monkeypatch.setattr(_interpreter, "_state", {})
    monkeypatch.setattr(_interpreter, "ON_HOST", True)
    monkeypatch.setattr(_interpreter, "ENABLED", True)

    class Child:
        def __init__(self, code):
            self.code = code

        def poll(self):
            return self.code

    started = []
    monkeypatch.setattr(_interpreter, "_start_build", lambda t: started.append(t.name) or Child(None))
    assert _interpreter.for_device(device, device.runtime, target) is None
    assert _interpreter.for_device(device, device.runtime, target) is None   # still building
    assert started == ["host"]
    _interpreter.build_image(target)                    # what the child does
    interp = _interpreter.for_device(device, device.runtime, target)
    assert isinstance(interp, _interpreter.DeviceInterpreter) and started == ["host"]

    monkeypatch.setattr(_interpreter, "_state", {})
    monkeypatch.setattr(_interpreter, "default_cache", lambda: CompileCache(DiskCache(str(tmp_path / "other"))))
    monkeypatch.setattr(_interpreter, "_start_build", lambda t: started.append(t.name) or Child(1))
    assert _interpreter.for_device(device, device.runtime, target) is None
    assert _interpreter.for_device(device, device.runtime, target) is None   # the child failed
    assert _interpreter.for_device(device, device.runtime, target) is None
    assert started == ["host", "host"]
