"""The host quick tier's kernel entry, written as IR text (``host_simple_kernel_text``),
with the scalar body put in place as text where it is a plain copy.

It reads every parameter where the launcher packed it, so its offsets must be the
launcher's; scalar and raw operands are handed to the body as pointers into the argument
buffer.  The entry runs 1-D spaces; N-d ones go through the row driver
(``host_row_driver``), as the launcher runs them.  These tests run such kernels over
every operand kind, scalar dtype and layout (N-d up to 8 dimensions, strided, negative
strides, broadcast, 0-d, sub-ranges of the index space) against NumPy, and check the
entry's text is made once per operand layout.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from rocarray._launch import KernelSpec, pack_format
from rocarray.compiler.lang import compile_scalar_function
from rocarray.compiler.abi import Operand, param_offsets
from rocarray.compiler.quick_text import (HOST_ROW_DRIVER, _host_simple_template, host_row_driver, host_row_words,
                                          host_simple_kernel_text)
from rocarray.runtime.host import HostFunction, HostRuntime
from rocarray.targets.base import MAX_DIMS
from rocarray.runtime.hostload import load_host_object
from rocarray.targets.host import HostTarget

try:  # tests/compiler may or may not be a package
    from ._packing import layout_pair, packed_buffer
except ImportError:
    from _packing import layout_pair, packed_buffer



@pytest.fixture(scope="module")
def quick():
    q = HostTarget(opt_level=1).quick_tier
    if q is None:  # ROCARRAY_TIERED=0 in the environment
        q = HostTarget(opt_level=0)
        q.simple_loops = True
        q.pipeline = "inline"
    return q


_SCALARS = ["bool", "int8", "uint8", "int16", "float16", "int32", "float32", "int64",
            "float64", "complex64", "complex128"]


@pytest.mark.parametrize("first", ["in", "scalar", "raw"])
@pytest.mark.parametrize("scalar", _SCALARS)
def test_offsets_are_the_launchers(first, scalar):
    ops = [Operand(np.dtype("int8"), first), Operand(np.dtype(scalar), "scalar"),
           Operand(np.dtype("int8"), "scalar"), Operand(np.dtype(scalar), "scalar"),
           Operand(np.dtype("float32"), "in"), Operand(np.dtype("float64"), "out")]
    packer = pack_format(ops)
    offsets = param_offsets(ops)
    # pack a distinct marker into each operand's first field and find it at the offset
    values = [0, 0, *([0] * MAX_DIMS)]
    markers = []
    for k, op in enumerate(ops):
        m = 100 + k
        markers.append(m)
        if op.kind == "scalar":
            kind = op.dtype.kind
            if kind == "b":
                values.append(True)
            elif kind == "c":
                values.extend((float(m), 0.0))
            elif kind == "f":
                values.append(float(m))
            else:
                values.append(m)
        elif op.kind == "raw":
            values.extend((m, 0, 0, *([0] * MAX_DIMS), *([0] * MAX_DIMS)))
        else:
            values.extend((m, *([0] * MAX_DIMS)))
    buf = bytearray(packer.size)
    packer.pack_into(buf, 0, *values)
    for op, off, m in zip(ops, offsets, markers):
        if op.kind == "scalar":
            dt = np.dtype(op.dtype.str if op.dtype.kind != "c" else f"f{op.dtype.itemsize // 2}")
            got = np.frombuffer(bytes(buf[off:off + dt.itemsize]), dtype=dt)[0]
            assert got == (True if op.dtype.kind == "b" else m), (op, off)
        else:
            assert int.from_bytes(buf[off:off + 8], "little") == m, (op, off)


def _run(target, operands, params, body, arrays_and_scalars, shape, ranges=None, typedefs=None):
    """Compile a kernel-language ``body`` for ``target`` through ``KernelSpec`` and run it
    the way the host launcher does; ``arrays_and_scalars`` follow ``operands`` (arrays are
    NumPy arrays, broadcast to ``shape``; outputs are written in place)."""
    name = f"quick_{len(_keys)}"
    _keys.append(name)

    def build_body(module, t):
        return compile_scalar_function(module, "body", params, body, typedefs=typedefs or {},
                                       target=t, kernel_name=name)

    spec = KernelSpec(("test", name), name, operands, build_body)
    text = spec.build_module(target)
    assert isinstance(text, str)
    mod = load_host_object(target.compile(text))
    fn = HostFunction(mod, spec.entry, mod.address(spec.entry))
    n, values, buf = packed_buffer(operands, arrays_and_scalars, shape)
    if values[0] != 1:  # N-d: row by row, as the launcher runs quick-tier kernels
        fn = HostRuntime.row_function(_row_driver(target), fn, *host_row_words(operands))
    for lo, hi in ranges or [(0, n)]:
        fn.call(ctypes.addressof(buf), lo, hi)


_keys: list = []
_drivers: dict = {}


def _row_driver(target) -> HostFunction:
    d = _drivers.get(target)
    if d is None:
        mod = load_host_object(target.compile(host_row_driver(target)))
        d = _drivers[target] = HostFunction(mod, HOST_ROW_DRIVER, mod.address(HOST_ROW_DRIVER))
    return d


@pytest.mark.parametrize("scalar", _SCALARS)
def test_scalar_operand_of_every_dtype(quick, scalar):
    sdt = np.dtype(scalar)
    out_dt = np.result_type(sdt, np.float64) if sdt.kind != "b" else np.dtype("float64")
    a = np.linspace(-2, 2, 35).reshape(5, 7)
    value = {"b": True, "c": complex(1.5, -0.5)}.get(sdt.kind, 3)
    if sdt.kind == "f":
        value = 0.75
    out = np.zeros(a.shape, out_dt)
    ops = [Operand(np.dtype("float64"), "in"), Operand(sdt, "scalar"),
           Operand(np.dtype("int8"), "scalar"), Operand(out_dt, "out")]
    params = [("x", np.dtype("float64"), "in"), ("s", sdt, "in"), ("k", np.dtype("int8"), "in"),
              ("y", out_dt, "out")]
    body = "y = x * (T)s + (T)k;"
    _run(quick, ops, params, body, [a, value, -4, out], a.shape, typedefs={"T": out_dt})
    expected = a * np.asarray(value).astype(out_dt) + out_dt.type(-4)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "broadcast", "3d", "8d", "0d"])
def test_layouts_and_subranges(quick, layout):
    a, b = layout_pair(layout, np.random.default_rng(7))
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.zeros(shape, np.float32)
    ops = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "in"),
           Operand(np.dtype("float32"), "out")]
    params = [("a", np.dtype("float32"), "in"), ("b", np.dtype("float32"), "in"),
              ("c", np.dtype("float32"), "out")]
    n = out.size
    ranges = [(0, n)] if n < 3 else [(0, 1), (1, n // 2), (n // 2, n)]
    _run(quick, ops, params, "c = a * b - b + (float)i;", [a, b, out], shape, ranges=ranges)
    expected = a * b - b + np.arange(n, dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_raw_operand_is_read_in_place(quick):
    table = np.arange(12, dtype=np.int64).reshape(3, 4) * 10
    idx = np.array([0, 5, 11, 3, 7], dtype=np.int64)
    out = np.zeros(idx.shape, np.int64)
    ops = [Operand(np.dtype("int64"), "in"), Operand(np.dtype("int64"), "raw"),
           Operand(np.dtype("int64"), "out")]
    params = [("j", np.dtype("int64"), "in"), ("t", np.dtype("int64"), "raw"),
              ("y", np.dtype("int64"), "out")]
    _run(quick, ops, params, "y = t[j] + t.size() + _ind.size();", [idx, table, out], idx.shape)
    np.testing.assert_array_equal(out, table.ravel()[idx] + 12 + 5)


def test_entry_text_is_one_template_per_layout(quick):
    f32, i16 = np.dtype("float32"), np.dtype("int16")
    _host_simple_template.cache_clear()
    t1 = host_simple_kernel_text("k1", [Operand(f32, "in"), Operand(f32, "out")])
    t2 = host_simple_kernel_text("k2", [Operand(i16, "in"), Operand(i16, "out")])
    assert _host_simple_template.cache_info().misses == 1  # arrays: the dtype is not in the text
    assert t1.replace('"k1"', '"k2"') == t2
    host_simple_kernel_text("k3", [Operand(f32, "in"), Operand(f32, "scalar"), Operand(f32, "out")])
    assert _host_simple_template.cache_info().misses == 2


def test_body_is_inlined_once(quick):
    ops = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "out")]
    params = [("a", np.dtype("float32"), "in"), ("c", np.dtype("float32"), "out")]

    def build_body(module, t):
        return compile_scalar_function(module, "body", params, "c = a * 3.0f;", target=t)

    spec = KernelSpec(("test", "inline-once"), "inline_once", ops, build_body)
    asm = quick.emit_assembly(spec.build_module(quick))
    assert "body" not in asm  # inlined, and the internal copy dropped
    assert asm.count("mulss") == 1  # one call site of the body: one copy of it


def _spec_text(quick, key, params, ops, body, typedefs=None):
    def build_body(module, t):
        return compile_scalar_function(module, "body", params, body, typedefs=typedefs or {},
                                       target=t, kernel_name=key)

    spec = KernelSpec(("test", key), key, ops, build_body)
    return spec, spec.build_module(quick)


def test_body_is_put_in_place_in_the_text(quick):
    """A body with locals and a loop: copied into the entry as text (no call, nothing
    for the always-inliner), its stack slots in the entry block; it computes the same."""
    f32 = np.dtype("float32")
    ops = [Operand(f32, "in"), Operand(f32, "out")]
    params = [("a", f32, "in"), ("c", f32, "out")]
    body = "float t = a; for (int k = 0; k < 3; k++) { t = t * a + (float)k; } c = t;"
    spec, text = _spec_text(quick, "text_inlined", params, ops, body)
    assert "call void" not in text and "alwaysinline" not in text
    entry_block = text[text.index("entry:"):text.index("head:")]
    assert text.count(" alloca ") >= 1 and text.count(" alloca ") == entry_block.count(" alloca ")
    a = np.linspace(-1, 1, 257, dtype=np.float32)[::2]
    out = np.zeros(a.shape, np.float32)
    _run(quick, ops, params, body, [a, out], a.shape)
    t = a.copy()
    for k in range(3):
        t = t * a + np.float32(k)
    np.testing.assert_allclose(out, t, rtol=1e-6)


def test_body_calling_its_own_functions_keeps_the_inliner(quick):
    """Complex math calls functions of the kernel language's prelude: the text keeps the
    call of the body and LLVM's always-inliner puts everything in place."""
    c64 = np.dtype("complex64")
    ops = [Operand(c64, "in"), Operand(c64, "out")]
    params = [("a", c64, "in"), ("c", c64, "out")]
    spec, text = _spec_text(quick, "inliner_kept", params, ops, "c = exp(a);")
    assert 'call void @"body"' in text and "alwaysinline" in text
    assert "body" not in quick.emit_assembly(text)
    a = (np.linspace(-2, 2, 9) + 1j * np.linspace(1, -1, 9)).astype(c64)
    out = np.zeros(a.shape, c64)
    _run(quick, ops, params, "c = exp(a);", [a, out], a.shape)
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)


def _fresh_kernel(tag: str):
    """A user kernel no earlier test (or process: the body names a fresh number) compiled:
    its first launches run quick-tier code."""
    import time

    import rocarray as ra

    salt = f"{time.time_ns() % 1000003}.0f"
    return ra.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                f"z = x * y - (float)i + 0.0f * {salt};", f"rows_{tag}")


def test_nd_launches_of_quick_code_go_through_the_row_driver(monkeypatch):
    """Through the launcher: a quick-tier kernel (1-D entry) on N-d layouts, split over
    threads (over 2^18 elements), body reading the flat index; NumPy gives the answer."""
    import rocarray as ra
    from rocarray import _launch, _tiers

    # no tier-up during the test: the launch must run the quick tier's code
    monkeypatch.setattr(_tiers.POLICY, "tier_up_elements", 1 << 40)
    monkeypatch.setattr(_tiers.POLICY, "tier_up_calls", 1 << 40)
    dev = ra.Device("cpu")
    rng = np.random.default_rng(11)
    k = _fresh_kernel("threads")
    a = rng.standard_normal((640, 700)).astype(np.float32)
    b = rng.standard_normal((700, 640)).astype(np.float32)
    x, y = ra.asarray(a, device=dev), ra.asarray(b, device=dev)
    r = k(x.T, y)  # transposed: no dimension merges, 448,000 elements
    loaded = [v for (spec_key, d), v in _launch._loaded.items() if v.spec.name == "rows_threads"]
    assert loaded and loaded[0].code.simple_loops and loaded[0].code.rows is not None  # quick code, row by row
    idx = np.arange(a.size, dtype=np.float32).reshape(700, 640)
    np.testing.assert_allclose(np.asarray(r), a.T * b - idx, rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("layout", ["strided", "reversed", "broadcast", "3d", "8d"])
def test_row_driver_matches_numpy_through_the_launcher(layout):
    import rocarray as ra

    dev = ra.Device("cpu")
    a, b = layout_pair(layout, np.random.default_rng(5))
    k = _fresh_kernel(layout)
    r = k(ra.asarray(a, device=dev), ra.asarray(b, device=dev))
    shape = np.broadcast_shapes(a.shape, b.shape)
    idx = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(np.asarray(r), a * b - idx, rtol=1e-5, atol=1e-3)


def test_straight_line_blocks_go_on_the_calling_block(quick):
    """The body's entry block, the lowering's lone branch to the next block and the final
    return are not kept as blocks (each costs codegen O0 a register-allocation boundary);
    a phi that named the merged block names the calling block, and the result stands."""
    f32 = np.dtype("float32")
    ops = [Operand(f32, "in"), Operand(f32, "out")]
    params = [("a", f32, "in"), ("c", f32, "out")]
    _, text = _spec_text(quick, "merged_plain", params, ops, "c = a * 3.0f;")
    labels = [line for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert labels == ["entry:", "head:", "call:", "exit:"]
    body = "c = (a > 0.0f && a < 0.5f) ? a : -a;"  # '&&': a phi naming the first block
    _, text = _spec_text(quick, "merged_phi", params, ops, body)
    assert '%"b.start"' not in text and "[0, %call]" in text
    a = np.linspace(-1, 1, 41, dtype=np.float32)
    out = np.zeros(a.shape, np.float32)
    _run(quick, ops, params, body, [a, out], a.shape)
    np.testing.assert_array_equal(out, np.where((a > 0) & (a < 0.5), a, -a))


def test_module_text_is_llvmlites_for_every_catalogue_body(quick):
    """``module_text`` writes the body's instructions itself: for every built-in op and
    dtype its text is exactly llvmlite's ``str(module)``."""
    from llvmlite import ir

    import rocarray as ra
    from rocarray._elementwise import Ufunc, _body_source
    from rocarray.compiler.ir_printer import module_text

    dtypes = [np.dtype(d) for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                    "uint32", "uint64", "float16", "float32", "float64",
                                    "complex64", "complex128")]
    checked = 0
    for u in (v for v in vars(ra).values() if isinstance(v, Ufunc)):
        for dt in dtypes:
            try:
                loop_in, loop_out, out_storage, body = u.resolve((dt,) * u.nin)
            except TypeError:
                continue
            params, source, typedefs = _body_source(body, (dt,) * u.nin, loop_in, out_storage, loop_out)
            m = ir.Module(name=u.row.name)
            m.triple, m.data_layout = quick.triple, quick.data_layout
            fn = compile_scalar_function(m, "body", params, source, typedefs=typedefs, target=quick,
                                         kernel_name=u.row.name)
            assert module_text(m, fn) == str(m), (u.row.name, dt)
            checked += 1
    assert checked > 700


def test_module_text_of_user_bodies(quick):
    """Loops, switches, locals, raw operands and preamble functions: the same text too."""
    from llvmlite import ir

    from rocarray.compiler.ir_printer import module_text

    f32, i64 = np.dtype("float32"), np.dtype("int64")
    bodies = [
        ([("a", f32, "in"), ("c", f32, "out")],
         "float t = a; for (int k = 0; k < 3; k++) { t = t * a + (float)k; } c = t;", ""),
        ([("j", i64, "in"), ("c", i64, "out")],
         "switch (j % 3) { case 0: c = 1; break; case 1: c = -j; break; default: c = j << 2; }", ""),
        ([("j", i64, "in"), ("t", i64, "raw"), ("c", i64, "out")], "c = t[j] + t.size() + i;", ""),
        ([("a", f32, "in"), ("c", f32, "out")], "c = sq(a) > 1.0f ? sqrtf(a) : -a;",
         "float sq(float x) { return x * x; }"),
    ]
    for params, body, preamble in bodies:
        m = ir.Module(name="user")
        m.triple, m.data_layout = quick.triple, quick.data_layout
        fn = compile_scalar_function(m, "body", params, body, preamble=preamble, target=quick)
        assert module_text(m, fn) == str(m), body
