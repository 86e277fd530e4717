"""The GPU quick tier's elementwise kernel (``skeletons._gpu_loop_simple``), run on the host.

No GPU is needed: the kernel is built for a host target that poses as a GPU -- its thread
index and thread count are globals the test sets, and it reads its parameters either
through a pointer to the packed parameter buffer (as on AMDGPU, the kernarg segment) or
through pointer parameters to shape and strides (as on NVPTX, ``byval``).  Each thread is
one call.  The element addresses the kernel computes (32-bit unravel, one thread per
element) are checked against NumPy for N-d, strided, negative-stride, broadcast, 0-d and
empty layouts, scalar operands and a raw operand; and the entry's text is made once per
operand layout.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import replace

import numpy as np
import pytest
from llvmlite import ir

from rocarray._elementwise import Ufunc, elementwise_spec
from rocarray._elementwise_functions import _rows
from rocarray._launch import KernelSpec
from rocarray.compiler.lang import compile_scalar_function
from rocarray.compiler.abi import MAX_DIMS, Operand
from rocarray.compiler.quick_text import _gpu_simple_template, gpu_simple_kernel_text
from rocarray.compiler.skeletons import SIMPLE_LOOP_MAX_ELEMENTS
from rocarray.runtime.hostload import load_host_object
from rocarray.targets.host import HostTarget

try:  # tests/compiler may or may not be a package
    from ._packing import launch_values, layout_pair, packed_buffer
except ImportError:
    from _packing import launch_values, layout_pair, packed_buffer

I64 = ir.IntType(64)


class _HostAsGPU(HostTarget):
    """The host CPU compiling the GPU quick tier's kernel as a plain C function
    ``void k(<the kernel parameters>)``; ``@rk.test.tid`` and ``@rk.test.nthreads`` stand
    for the thread index and count, ``@rk.test.params`` for the parameter buffer."""

    def __init__(self, mode: str):
        super().__init__(opt_level=0)
        # the facts a GPU target has beside its own hooks: a thread grid, fenced
        # intermediates, 32-bit index division
        self.facts = replace(self.facts, emits_grid=True, fence_intermediates=True, slow_wide_division=True)
        self.simple_loops = True
        self.pipeline = "inline"
        self.mode = mode
        self.via_buffer = mode == "buffer"
        # "pointers": the host has no byval kernel parameters, a plain pointer stands for
        # one; "values": shape and strides arrive by value (the kernel copies them once)
        self.dims_by_reference = (0, "noalias") if mode == "pointers" else None

    def cache_key(self) -> tuple:
        return super().cache_key() + ("gpu-on-host", self.mode)

    def mark_kernel(self, fn: ir.Function) -> None:
        pass

    def _global(self, builder, name, ty):
        g = builder.module.globals.get(name)
        if g is None:
            g = ir.GlobalVariable(builder.module, ty, name)
            g.initializer = ir.Constant(ty, None)
        return builder.load(g, typ=ty)

    def emit_global_thread_id(self, builder):
        return self._global(builder, "rk.test.tid", I64)

    def emit_global_thread_count(self, builder):
        return self._global(builder, "rk.test.nthreads", I64)

    def emit_parameter_buffer(self, builder):
        return self._global(builder, "rk.test.params", ir.PointerType()) if self.via_buffer else None


@pytest.fixture(scope="module", params=["buffer", "pointers", "values"])
def gpu(request):
    return _HostAsGPU(request.param)


def _parameters(operands, values):
    """``(kind, value)`` of each kernel parameter, from the launcher's packed values:
    "dims" (shape, array strides: by value or by reference), "raw dims" (by value)."""
    fields = [("i", values[0]), ("i", values[1]), ("dims", values[2:2 + MAX_DIMS])]
    pos = 2 + MAX_DIMS
    for op in operands:
        if op.kind == "scalar":
            k = 2 if op.dtype.kind == "c" else 1
            fields.append(("scalar", (op.dtype, values[pos:pos + k])))
            pos += k
        elif op.kind == "raw":
            fields += [("i", values[pos]), ("i", values[pos + 1]), ("i", values[pos + 2]),
                       ("raw dims", values[pos + 3:pos + 3 + MAX_DIMS]),
                       ("raw dims", values[pos + 3 + MAX_DIMS:pos + 3 + 2 * MAX_DIMS])]
            pos += 3 + 2 * MAX_DIMS
        else:
            fields += [("i", values[pos]), ("dims", values[pos + 1:pos + 1 + MAX_DIMS])]
            pos += 1 + MAX_DIMS
    return fields


def _run(target, operands, build_body, arrays_and_scalars, shape, threads=None):
    """Build ``operands``' quick-tier kernel for ``target`` and run one call per thread
    (``threads``, default one per element) with the launcher's packing."""
    name = f"gpu_quick_{len(_keys)}_{target.mode}"
    _keys.append(name)
    spec = KernelSpec(("test", name), name, operands, build_body)
    text = spec.build_module(target)
    assert isinstance(text, str)
    mod = load_host_object(target.compile(text))
    n, values, buf = packed_buffer(operands, arrays_and_scalars, shape)
    kept = []  # keep the C arrays alive through the calls

    def c_value(kind, value):
        """A parameter as C arguments: a by-value ``[8 x i64]`` as eight ``i64`` (how LLVM
        passes a first-class array argument on the host), a pointer parameter as a pointer."""
        if kind == "i":
            return ctypes.c_int64(value)
        if kind == "raw dims" or (kind == "dims" and target.dims_by_reference is None):  # by value
            return [ctypes.c_int64(v) for v in value]
        if kind == "dims":
            arr = (ctypes.c_int64 * MAX_DIMS)(*value)
            kept.append(arr)
            return ctypes.cast(arr, ctypes.c_void_p)
        dtype, vs = value
        if dtype.kind == "b":
            c = ctypes.c_bool
        elif dtype.kind == "f":
            c = {4: ctypes.c_float, 8: ctypes.c_double}[dtype.itemsize]
        else:
            c = {1: ctypes.c_int8, 2: ctypes.c_int16, 4: ctypes.c_int32, 8: ctypes.c_int64}[dtype.itemsize]
        return c(vs[0])

    args = []
    for kind, value in _parameters(operands, [n, *values]):
        v = c_value(kind, value)
        args.extend(v if isinstance(v, list) else [v])
    fn = ctypes.CFUNCTYPE(None, *[type(a) for a in args])(mod.address(spec.entry))
    tid = ctypes.c_int64.from_address(mod.address("rk.test.tid"))
    nthreads = ctypes.c_int64.from_address(mod.address("rk.test.nthreads"))
    if target.via_buffer:
        ctypes.c_void_p.from_address(mod.address("rk.test.params")).value = ctypes.addressof(buf)
    total = n if threads is None else threads
    nthreads.value = total
    for t in range(total):
        tid.value = t
        fn(*args)


_keys: list = []


def _kernel_language(params, body, typedefs=None):
    def build_body(module, t):
        return compile_scalar_function(module, "body", params, body, typedefs=typedefs or {}, target=t,
                                       kernel_name="gpu_quick")
    return build_body


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "broadcast", "3d", "8d", "0d", "empty"])
def test_layouts(gpu, layout):
    a, b = layout_pair(layout, np.random.default_rng(3))
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.full(shape, np.nan, np.float32)
    ops = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "in"),
           Operand(np.dtype("float32"), "out")]
    params = [("a", np.dtype("float32"), "in"), ("b", np.dtype("float32"), "in"),
              ("c", np.dtype("float32"), "out")]
    _run(gpu, ops, _kernel_language(params, "c = a * b - b + (float)i;"), [a, b, out], shape)
    expected = a * b - b + np.arange(out.size, dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_threads_past_the_end_do_nothing(gpu):
    a = np.arange(10, dtype=np.int32)
    memory = np.full(16, -1, np.int32)
    out = memory[:10]
    ops = [Operand(np.dtype("int32"), "in"), Operand(np.dtype("int32"), "out")]
    params = [("a", np.dtype("int32"), "in"), ("c", np.dtype("int32"), "out")]
    _run(gpu, ops, _kernel_language(params, "c = a + 1;"), [a, out], a.shape, threads=16)
    np.testing.assert_array_equal(out, a + 1)
    assert (memory[10:] == -1).all()


@pytest.mark.parametrize("op,dtype", [("add", "int16"), ("multiply", "uint32"), ("exp", "float32"),
                                      ("hypot", "float64"), ("sin", "complex64")])
def test_catalogue_kernels(gpu, op, dtype):
    # the simple signatures of the benchmark, over a non-contiguous 3-d layout
    u = Ufunc(_rows[op])
    dt = np.dtype(dtype)
    dts = (dt,) * u.nin
    loop_in, loop_out, out_storage, body = u.resolve(dts)
    spec = elementwise_spec(op, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)
    rng = np.random.default_rng(11)
    raw = rng.uniform(1, 3, (5, 6, 7)) * (1 + (1j if dt.kind == "c" else 0))
    xs = [raw.astype(dt)[::2, ::-1].transpose(2, 0, 1) for _ in range(u.nin)]
    out = np.zeros(xs[0].shape, out_storage)
    _run(gpu, spec.operands, spec.build_body, [*xs, out], out.shape)
    expected = getattr(np, op)(*xs)
    if dt.kind in "iu":
        np.testing.assert_array_equal(out, expected.astype(out_storage))
    else:
        np.testing.assert_allclose(out, expected, rtol=1e-5 if dt in (np.float32, np.complex64) else 1e-12)


@pytest.mark.parametrize("scalar", ["bool", "int8", "int16", "float32", "int64", "float64"])
def test_scalar_operand(gpu, scalar):
    sdt = np.dtype(scalar)
    out_dt = np.dtype("float64")
    a = np.linspace(-2, 2, 35).reshape(5, 7)[:, ::2]
    value = {"b": True, "f": 0.75}.get(sdt.kind, 3)
    out = np.zeros(a.shape, out_dt)
    ops = [Operand(np.dtype("float64"), "in"), Operand(sdt, "scalar"), Operand(out_dt, "out")]
    params = [("x", np.dtype("float64"), "in"), ("s", sdt, "in"), ("y", out_dt, "out")]
    _run(gpu, ops, _kernel_language(params, "y = x * (double)s;"), [a, value, out], a.shape)
    np.testing.assert_allclose(out, a * np.asarray(value).astype(out_dt), rtol=1e-12)


def test_raw_operand(gpu):
    table = np.arange(12, dtype=np.int64).reshape(3, 4) * 10
    idx = np.array([0, 5, 11, 3, 7, 2], dtype=np.int64).reshape(2, 3)[:, ::-1]
    out = np.zeros(idx.shape, np.int64)
    ops = [Operand(np.dtype("int64"), "in"), Operand(np.dtype("int64"), "raw"),
           Operand(np.dtype("int64"), "out")]
    params = [("j", np.dtype("int64"), "in"), ("t", np.dtype("int64"), "raw"),
              ("y", np.dtype("int64"), "out")]
    _run(gpu, ops, _kernel_language(params, "y = t[j] + t.size() + _ind.size();"), [idx, table, out],
         idx.shape)
    np.testing.assert_array_equal(out, table.ravel()[idx] + 12 + 6)


def test_entry_text_is_one_template_per_layout(gpu):
    f32, i16 = np.dtype("float32"), np.dtype("int16")
    module = ir.Module(name="m")
    _gpu_simple_template.cache_clear()
    t1 = gpu_simple_kernel_text(gpu, "k1", [Operand(f32, "in"), Operand(f32, "out")], module)
    t2 = gpu_simple_kernel_text(gpu, "k2", [Operand(i16, "in"), Operand(i16, "out")], module)
    assert _gpu_simple_template.cache_info().misses == 1  # arrays: the dtype is not in the text
    assert t1.replace('"k1"', '"k2"') == t2
    gpu_simple_kernel_text(gpu, "k3", [Operand(f32, "in"), Operand(f32, "scalar"), Operand(f32, "out")], module)
    assert _gpu_simple_template.cache_info().misses == 2


def test_limit_is_checked_once():
    # more elements than the 32-bit unravel takes, or than threads, trap before anything
    assert SIMPLE_LOOP_MAX_ELEMENTS < 2**32
    ops = [Operand(np.dtype("f4"), "in"), Operand(np.dtype("f4"), "out")]
    text = gpu_simple_kernel_text(_HostAsGPU("buffer"), "k", ops, ir.Module())
    assert text.count('call void @"llvm.trap"()') == 1
    assert re.search(rf'icmp ugt i64 %"[^"]+", {SIMPLE_LOOP_MAX_ELEMENTS}\n', text)
    assert "sdiv i64" not in text and "srem i64" not in text and "udiv i32" in text


def test_offsets_up_to_the_32_bit_limit(gpu):
    # operands whose byte offsets reach just below 2^31, forward and (from the far end)
    # backward: the kernel's 32-bit offsets are exact up to SIMPLE_LOOP_MAX_OFFSET, which
    # the launcher checks (simple_loop_offsets_fit).  A 2 GiB anonymous mapping: only the
    # two touched pages are backed.
    import mmap

    from rocarray._launch import stride_positions
    from rocarray.compiler.skeletons import SIMPLE_LOOP_MAX_OFFSET, simple_loop_offsets_fit

    try:
        memory = mmap.mmap(-1, 2**31 + 4096)
    except (OSError, OverflowError, ValueError) as exc:  # pragma: no cover - a small address space
        pytest.skip(f"no 2 GiB mapping here: {exc}")
    far = 2**31 - 12
    # a: rows 0 and ``far`` bytes apart; b: the same six elements, both axes reversed
    a = np.ndarray((2, 3), np.float32, buffer=memory, offset=0, strides=(far, 4))
    b = np.ndarray((2, 3), np.float32, buffer=memory, offset=far + 8, strides=(-far, -4))
    a[...] = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    ops = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "in"),
           Operand(np.dtype("float32"), "out")]
    out = np.full((2, 3), np.nan, np.float32)
    _, values = launch_values(ops, [a, b, out], (2, 3))
    assert simple_loop_offsets_fit(values, stride_positions(ops))
    assert 2**31 - 16 < far + 8 <= SIMPLE_LOOP_MAX_OFFSET  # the largest offset, of each input
    expected = a * 2 + a[::-1, ::-1]
    params = [("a", np.dtype("float32"), "in"), ("b", np.dtype("float32"), "in"),
              ("c", np.dtype("float32"), "out")]
    _run(gpu, ops, _kernel_language(params, "c = a * 2.0f + b;"), [a, b, out], (2, 3))
    np.testing.assert_array_equal(out, expected)
    del a, b
    memory.close()
