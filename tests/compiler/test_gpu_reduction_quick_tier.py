"""The quick tier's reduction and scan entries (``QuickTierBuilder.build_quick``,
``build_scan_quick``) as a GPU builds them, run on the host.

No GPU is needed: the module is built for the host target posing as a GPU of
tests/compiler/test_gpu_quick_tier.py (thread index and count are globals; parameters read
through a pointer to the packed buffer as on AMDGPU, through pointer parameters as NVPTX's
``byval``, or by value).  Each thread is one call, and fewer threads than items make the
grid-stride loop go round.  The passes are laid out as ``rocarray._reduction`` lays them
out (merged dims, chunks, records and the records entry ``_c``); results are compared with
NumPy on random data.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from rocarray._launch import KernelSpec
from rocarray._layout import merge_dims
from rocarray._reduction import _c_strides, _packer, _scan_packer, _scan_values, _values
from rocarray._statistical_functions import argmax, prod, sum as rsum
from rocarray._user_kernels import ReductionKernel
from rocarray.compiler.reduction_abi import MODE_RECORDS, record_layout, reduction_param_types, scan_param_types
from rocarray.compiler.abi import DIMS
from rocarray.targets.base import MAX_DIMS
from rocarray.runtime.hostload import load_host_object

try:  # tests/compiler may or may not be a package
    from .test_gpu_quick_tier import _HostAsGPU
except ImportError:
    from test_gpu_quick_tier import _HostAsGPU


@pytest.fixture(scope="module", params=["buffer", "pointers", "values"])
def gpu(request):
    return _HostAsGPU(request.param)


def _def(op, dtype):
    dt = np.dtype(dtype)
    acc, out = op.dtypes(dt)
    return op.definition(dt, acc, out)


def _l2norm(dtype):
    k = ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", name="quick_l2norm")
    return k._plan((np.dtype(dtype),), ())[0]


class _Module:
    """A reduction or scan module of ``spec`` built for ``target`` and loaded on the host."""

    _count = 0

    def __init__(self, target, spec):
        # a spec of its own (one entry symbol per build; the def's spec stays as it is)
        _Module._count += 1
        spec = KernelSpec(spec.key + ("gpu-on-host", target.mode, _Module._count), spec.name, (), None,
                          build_kernel=spec.build_kernel,
                          extra_entries=tuple(e[len(spec.entry):] for e in spec.entries[1:]))
        self.target = target
        self.spec = spec
        self.obj = load_host_object(target.compile(str(spec.build_module(target))))
        self.tid = ctypes.c_int64.from_address(self.obj.address("rk.test.tid"))
        self.nthreads = ctypes.c_int64.from_address(self.obj.address("rk.test.nthreads"))

    def launch(self, suffix, types, packer, items, values, threads):
        """Run entry ``suffix`` over ``items`` with ``threads`` threads (one call each)."""
        packed = [items, *values]
        buf = ctypes.create_string_buffer(packer.pack(*packed), packer.size)
        if self.target.via_buffer:
            ctypes.c_void_p.from_address(self.obj.address("rk.test.params")).value = ctypes.addressof(buf)
        args, keep, pos = [], [], 0
        for t in types:
            if t == DIMS:
                dims = packed[pos:pos + MAX_DIMS]
                pos += MAX_DIMS
                if self.target.dims_by_reference is None:  # by value: eight i64 arguments
                    args += [ctypes.c_int64(v) for v in dims]
                else:
                    arr = (ctypes.c_int64 * MAX_DIMS)(*dims)
                    keep.append(arr)
                    args.append(ctypes.cast(arr, ctypes.c_void_p))
            else:
                args.append(ctypes.c_int64(packed[pos]))
                pos += 1
        fn = ctypes.CFUNCTYPE(None, *[type(a) for a in args])(self.obj.address(self.spec.entry + suffix))
        self.nthreads.value = threads
        for t in range(threads):
            self.tid.value = t
            fn(*args)


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _reduce(target, rdef, x, axis, chunk, threads=5):
    """``rdef`` over ``axis`` of ``x`` with chunks of at most ``chunk`` reduced elements:
    the elements entry, then the records entry over the chunks' records until one chunk
    is left (``_reduction._Plan``'s passes)."""
    mod = _Module(target, rdef.spec())
    axes = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis) % max(x.ndim, 1))
    kept = [d for d in range(x.ndim) if d not in axes]
    kept_shape = tuple(x.shape[d] for d in kept)
    red_shape = tuple(x.shape[d] for d in axes)
    (_, out_dt), = rdef.outputs
    out = np.full(kept_shape, 7, out_dt)
    n_out, n_red = int(np.prod(kept_shape)), int(np.prod(red_shape))
    shape_k, (sk, ok) = merge_dims(kept_shape, [tuple(x.strides[d] for d in kept), out.strides])
    shape_r, (sr,) = merge_dims(red_shape, [tuple(x.strides[d] for d in axes)]) if n_red else ((0,), [(0,)])
    _, rec_size = record_layout([d for _, _, d in rdef.fields])
    src, suffix, keep = (_ptr(x), sk, sr), "", []
    while True:
        n_chunks = max(1, -(-n_red // chunk))
        chunk_len = -(-n_red // n_chunks) if n_red else 0
        records = np.zeros(n_chunks * n_out * rec_size if n_chunks > 1 else 1, np.uint8)
        keep.append(records)
        values = _values(MODE_RECORDS if n_chunks > 1 else 0, n_out, n_chunks, chunk_len, shape_k, shape_r,
                         n_red, [src], [(_ptr(out), ok)], _ptr(records))
        mod.launch(suffix, reduction_param_types(1, 1), _packer(1, 1), n_out * n_chunks, values,
                   min(threads, n_out * n_chunks))
        if n_chunks == 1:
            return out
        src = (_ptr(records), _c_strides(shape_k, rec_size), (n_out * rec_size,))
        shape_r, n_red, suffix = (n_chunks,), n_chunks, "_c"


def _scan(target, rdef, x, axis, n_chunks, include_initial=False, threads=5):
    """The inclusive scan of ``rdef`` along ``axis`` of ``x`` in ``n_chunks`` chunks per
    line: chunk totals (elements entry), their scan in place (``_r``), then the scan of
    each chunk from the total before it (``_s``) -- ``_reduction.scan`` with one level."""
    mod = _Module(target, rdef.scan_spec())
    (_, out_dt), = rdef.outputs
    n = x.shape[axis]
    out = np.full(tuple(d + (include_initial and k == axis) for k, d in enumerate(x.shape)), 7, out_dt)
    kept = [d for d in range(x.ndim) if d != axis]
    kept_shape = tuple(x.shape[d] for d in kept)
    n_out = int(np.prod(kept_shape))
    shape_k, (sk_in, sk_out) = merge_dims(kept_shape, [tuple(x.strides[d] for d in kept),
                                                       tuple(out.strides[d] for d in kept)])
    _, rec_size = record_layout([d for _, _, d in rdef.fields])
    chunk = -(-n // n_chunks)
    src = (_ptr(x), sk_in, x.strides[axis])
    totals = np.zeros(n_chunks * n_out * rec_size, np.uint8)
    values = _values(MODE_RECORDS, n_out, n_chunks, chunk, shape_k, (n,), n, [(src[0], sk_in, (src[2],))],
                     [(0, sk_out)], _ptr(totals))
    mod.launch("", reduction_param_types(1, 1), _packer(1, 1), n_out * n_chunks, values, threads)
    line = (_ptr(totals), _c_strides(shape_k, rec_size), n_out * rec_size)
    values = _scan_values(0, n_out, 1, n_chunks, shape_k, n_chunks, line, line, 0, False)
    mod.launch("_r", scan_param_types(1, 1), _scan_packer(1, 1), n_out, values, threads)
    dst = (_ptr(out), sk_out, out.strides[axis])
    values = _scan_values(0, n_out, n_chunks, chunk, shape_k, n, src, dst, _ptr(totals), include_initial)
    mod.launch("_s", scan_param_types(1, 1), _scan_packer(1, 1), n_out * n_chunks, values, threads)
    return out


LAYOUTS = {
    "1d": lambda a: (a.ravel(), None),
    "2d axis 0": lambda a: (a, 0),
    "2d axis 1": lambda a: (a, 1),
    "2d all": lambda a: (a, None),
    "3d axes 0 and 2": lambda a: (a.reshape(6, 5, 12), (0, 2)),
    "strided": lambda a: (a[::2, ::3], 1),
    "negative strides": lambda a: (a[::-1, ::-2], 0),
    "transposed": lambda a: (a.T, 1),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("chunk", [4, 1000])
def test_sum_float32(gpu, layout, chunk):
    # chunk 4: several chunks, so the records and the records entry ``_c`` run
    rng = np.random.default_rng(5)
    x, axis = LAYOUTS[layout](rng.standard_normal((30, 12)).astype(np.float32))
    out = _reduce(gpu, _def(rsum, "float32"), x, axis, chunk)
    np.testing.assert_allclose(out, x.sum(axis=axis), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_argmax_with_nan(gpu, axis):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((9, 40))
    x[rng.random(x.shape) < 0.03] = np.nan
    x[3] = 1.5  # ties: the first index wins
    x[:, 5] = 2.5
    out = _reduce(gpu, _def(argmax, "float64"), x[:, ::-1], axis, chunk=6)
    np.testing.assert_array_equal(out, np.argmax(x[:, ::-1], axis=axis))


@pytest.mark.parametrize("dtype", ["int16", "uint8", "int64"])
def test_sum_integers(gpu, dtype):
    rng = np.random.default_rng(9)
    x = rng.integers(0, 100, (7, 33)).astype(dtype)
    for axis in (None, 0, 1):
        out = _reduce(gpu, _def(rsum, dtype), x, axis, chunk=5)
        np.testing.assert_array_equal(out, x.sum(axis=axis))


def test_prod_complex64(gpu):
    rng = np.random.default_rng(3)
    x = (rng.uniform(0.8, 1.2, (5, 24)) + 1j * rng.uniform(-0.2, 0.2, (5, 24))).astype(np.complex64)
    out = _reduce(gpu, _def(prod, "complex64"), x[:, 1::2], 1, chunk=4)
    np.testing.assert_allclose(out, x[:, 1::2].prod(axis=1), rtol=1e-5)


def test_reduction_kernel_l2norm(gpu):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, 50)).astype(np.float32)
    out = _reduce(gpu, _l2norm("float32"), x, 1, chunk=8, threads=9)
    np.testing.assert_allclose(out, np.sqrt((x * x).sum(axis=1)), rtol=1e-5)


def test_empty(gpu):
    # nothing reduced: every output is post(identity); no outputs: nothing runs
    x = np.zeros((4, 0), np.float32)
    np.testing.assert_array_equal(_reduce(gpu, _def(rsum, "float32"), x, 1, chunk=4), np.zeros(4, np.float32))
    assert _reduce(gpu, _def(rsum, "float32"), np.zeros((0, 3), np.float32), 1, chunk=4).shape == (0,)


def test_many_items_and_chunks(gpu):
    # more items than threads (the grid-stride loop), two passes of records
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 2000)).astype(np.float32)
    out = _reduce(gpu, _def(rsum, "float32"), x, 1, chunk=16, threads=7)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_scan(gpu, axis, include_initial):
    rng = np.random.default_rng(6)
    x = rng.integers(-50, 50, (6, 23)).astype(np.int32)[:, ::-1]
    out = _scan(gpu, _def(rsum, "int32"), x, axis, n_chunks=3, include_initial=include_initial)
    expected = np.cumsum(x, axis=axis)
    if include_initial:
        expected = np.concatenate([np.zeros_like(expected.take([0], axis=axis)), expected], axis=axis)
    np.testing.assert_array_equal(out, expected)


def test_scan_float32(gpu):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5, 31)).astype(np.float32)
    out = _scan(gpu, _def(rsum, "float32"), x, 2, n_chunks=4)
    np.testing.assert_allclose(out, np.cumsum(x, axis=2), rtol=1e-4, atol=1e-5)


def test_launches_past_the_32_bit_limit_run_the_full_tier():
    from rocarray import _tiers
    from rocarray.compiler.skeletons import SIMPLE_LOOP_MAX_ELEMENTS

    class Kernel:
        is_gpu, upgraded = True, 0

        def __init__(self):
            self.code = _tiers.QuickCode(("quick",), 0)

        def fit(self, work):
            self.code.fit(self, work)

    def upgrade(kernel):
        kernel.upgraded += 1
        kernel.code = _tiers.FullCode(("full",), 0)

    _tiers_upgrade = _tiers.upgrade
    _tiers.upgrade = upgrade
    try:
        k = Kernel()
        k.fit(SIMPLE_LOOP_MAX_ELEMENTS)
        assert k.upgraded == 0 and k.code.simple_loops
        k.fit(SIMPLE_LOOP_MAX_ELEMENTS + 1)
        assert k.upgraded == 1 and not k.code.simple_loops
        host = Kernel()
        host.is_gpu = False  # the host quick tier indexes in 32 bits too
        host.fit(2**40)
        assert host.upgraded == 1
        full = Kernel()
        full.code = _tiers.FullCode(("full",), 0)  # full-tier code takes any size
        full.fit(2**40)
        assert full.upgraded == 0
    finally:
        _tiers.upgrade = _tiers_upgrade
