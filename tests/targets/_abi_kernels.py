"""Elementwise kernels built by hand with llvmlite, following the kernel ABI of
docs/architecture.md, for the compile-only tests of the GPU targets.

Parameters: ``i64 n, i64 ndim, [8 x i64] shape``, then per operand (inputs, then outputs)
``ptr data, [8 x i64] strides`` for an array or the storage type for a scalar.  The body
is a grid-stride loop over the flat index; element addresses come from unravelling the
index over ``shape`` (trailing extents are 1) and the byte strides.
"""

from __future__ import annotations

from llvmlite import ir

from rocarray.targets.base import MAX_DIMS

I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F32 = ir.FloatType()
F64 = ir.DoubleType()
C128 = ir.LiteralStructType([F64, F64])
C64 = ir.LiteralStructType([F32, F32])
DIMS = ir.ArrayType(I64, MAX_DIMS)
PTR = ir.PointerType()

#: (size, alignment) of the storage types, as C and the CUDA/HIP parameter rules lay them out.
_NATURAL = {
    "i8": (1, 1), "i16": (2, 2), "i32": (4, 4), "i64": (8, 8),
    "half": (2, 2), "float": (4, 4), "double": (8, 8),
    "{float, float}": (8, 4), "{double, double}": (16, 8),
}


def natural_layout(inputs, outputs) -> tuple[list[tuple[int, int]], int]:
    """``[(offset, size), ...]`` of every kernel parameter and the total size, each field
    aligned to its own size (arrays of i64 and pointers to 8)."""
    fields = [(8, 8), (8, 8), (8 * MAX_DIMS, 8)]
    for kind, ty in [*inputs, *(("array", t) for t in outputs)]:
        if kind == "array":
            fields += [(8, 8), (8 * MAX_DIMS, 8)]
        else:
            fields.append(_NATURAL[str(ty)])
    layout, offset = [], 0
    for size, align in fields:
        offset = (offset + align - 1) // align * align
        layout.append((offset, size))
        offset += size
    return layout, offset


def build_kernel(target, name, inputs, outputs, body) -> ir.Module:
    """A module holding kernel ``name`` for ``target``.

    ``inputs``: ``[("array" | "scalar", storage type), ...]``; ``outputs``: storage types
    of the output arrays; ``body(builder, module, values) -> [output values]`` computes one
    element from the loaded inputs (and scalars).
    """
    module = ir.Module(name=name)
    module.triple = target.triple
    module.data_layout = target.data_layout
    params = [I64, I64, DIMS]
    for kind, ty in inputs:
        params += [PTR, DIMS] if kind == "array" else [ty]
    for ty in outputs:
        params += [PTR, DIMS]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), params), name)
    target.mark_kernel(fn)
    args = list(fn.args)
    n, _ndim, shape = args[:3]
    pos = 3
    operands = []  # (kind, ty, data, strides)
    for kind, ty in [*inputs, *(("array", t) for t in outputs)]:
        if kind == "array":
            args[pos].add_attribute("noalias")
            operands.append((kind, ty, args[pos], args[pos + 1]))
            pos += 2
        else:
            operands.append((kind, ty, args[pos], None))
            pos += 1

    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    work = fn.append_basic_block("work")
    dims = fn.append_basic_block("dims")
    element = fn.append_basic_block("element")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    # shape and strides travel by value; index them at run time through memory (SROA and
    # the loop passes take it apart again)
    shape_mem = b.alloca(DIMS)
    b.store(shape, shape_mem)
    stride_mems = {}
    for k, (kind, _ty, _data, strides) in enumerate(operands):
        if kind == "array":
            stride_mems[k] = b.alloca(DIMS)
            b.store(strides, stride_mems[k])
    offset_mems = {k: b.alloca(I64) for k in stride_mems}
    rest_mem, dim_mem = b.alloca(I64), b.alloca(I64)
    start = target.emit_global_thread_id(b)
    step = target.emit_global_thread_count(b)
    b.branch(loop)

    b.position_at_end(loop)
    i = b.phi(I64, "i")
    i.add_incoming(start, entry)
    b.cbranch(b.icmp_unsigned("<", i, n), work, done)

    b.position_at_end(work)
    for mem in offset_mems.values():
        b.store(ir.Constant(I64, 0), mem)
    b.store(i, rest_mem)
    b.store(_ndim, dim_mem)
    b.branch(dims)

    # for d = ndim - 1 .. 0: index = rest % shape[d]; rest /= shape[d]; off += index * stride[d]
    b.position_at_end(dims)
    d = b.sub(b.load(dim_mem), ir.Constant(I64, 1))
    b.store(d, dim_mem)
    zero = ir.Constant(I64, 0)
    extent = b.load(b.gep(shape_mem, [zero, d], inbounds=True))
    rest = b.load(rest_mem)
    index = b.urem(rest, extent)
    b.store(b.udiv(rest, extent), rest_mem)
    for k, mem in offset_mems.items():
        stride = b.load(b.gep(stride_mems[k], [zero, d], inbounds=True))
        b.store(b.add(b.load(mem), b.mul(index, stride)), mem)
    b.cbranch(b.icmp_signed(">", d, zero), dims, element)

    b.position_at_end(element)
    addresses = [
        b.gep(data, [b.load(offset_mems[k])], source_etype=I8) if kind == "array" else None
        for k, (kind, _ty, data, _s) in enumerate(operands)
    ]
    values = [
        b.load(addresses[k], typ=ty) if kind == "array" else data
        for k, (kind, ty, data, _s) in enumerate(operands[: len(inputs)])
    ]
    results = body(b, module, values)
    for k, value in enumerate(results):
        b.store(value, addresses[len(inputs) + k])
    nxt = b.add(i, step)
    i.add_incoming(nxt, b.block)
    b.branch(loop)

    b.position_at_end(done)
    b.ret_void()
    return module


# -- bodies --------------------------------------------------------------------------------


def add_i64(b, module, values):
    return [b.add(values[0], values[1])]


def fma_like(ty):
    def body(b, module, values):
        x, y, s = values
        return [b.fadd(b.fmul(x, y, flags=["contract"]), s, flags=["contract"])]

    return body


def math_calls(target, ty):
    """exp(x) + log1p(y) * atan2(x, y): three library calls on ``ty``."""

    def body(b, module, values):
        x, y = values
        e = b.call(target.math_function(module, "exp", ty), [x])
        l1p = b.call(target.math_function(module, "log1p", ty), [y])
        a = b.call(target.math_function(module, "atan2", ty), [x, y])
        return [b.fadd(e, b.fmul(l1p, a))]

    return body


def complex_mul_add(b, module, values):
    """(a * b + c) on complex128 held as {double, double}."""
    a, c_, s = values
    ar, ai = b.extract_value(a, 0), b.extract_value(a, 1)
    br, bi = b.extract_value(c_, 0), b.extract_value(c_, 1)
    sr, si = b.extract_value(s, 0), b.extract_value(s, 1)
    re = b.fsub(b.fmul(ar, br), b.fmul(ai, bi))
    im = b.fadd(b.fmul(ar, bi), b.fmul(ai, br))
    out = ir.Constant(C128, ir.Undefined)
    out = b.insert_value(out, b.fadd(re, sr), 0)
    out = b.insert_value(out, b.fadd(im, si), 1)
    return [out]


def complex_exp(target):
    """exp(z) for complex128: exp(re) * (cos(im), sin(im))."""

    def body(b, module, values):
        (z,) = values
        re, im = b.extract_value(z, 0), b.extract_value(z, 1)
        scale = b.call(target.math_function(module, "exp", F64), [re])
        c = b.call(target.math_function(module, "cos", F64), [im])
        s = b.call(target.math_function(module, "sin", F64), [im])
        out = ir.Constant(C128, ir.Undefined)
        out = b.insert_value(out, b.fmul(scale, c), 0)
        out = b.insert_value(out, b.fmul(scale, s), 1)
        return [out]

    return body


def unary_math(target, fn, ty):
    def body(b, module, values):
        return [b.call(target.math_function(module, fn, ty), values)]

    return body


#: name -> (inputs, outputs, body factory taking the target)
SIGNATURES = {
    "add_i64": ([("array", I64), ("array", I64)], [I64], lambda t: add_i64),
    "axpy_f32": ([("array", F32), ("array", F32), ("scalar", F32)], [F32], lambda t: fma_like(F32)),
    "math_f32": ([("array", F32), ("array", F32)], [F32], lambda t: math_calls(t, F32)),
    "math_f64": ([("array", F64), ("array", F64)], [F64], lambda t: math_calls(t, F64)),
    "cmul_c128": ([("array", C128), ("array", C128), ("scalar", C128)], [C128], lambda t: complex_mul_add),
    "cexp_c128": ([("array", C128)], [C128], complex_exp),
}


def signature_kernel(target, name):
    """``(module, inputs, outputs)`` of the kernel of ``SIGNATURES[name]`` for ``target``."""
    inputs, outputs, factory = SIGNATURES[name]
    return build_kernel(target, name, inputs, outputs, factory(target)), inputs, outputs


def catalogue_module(target, op, dtype):
    """(entry name, module text) of catalogue op ``op`` on ``dtype`` inputs for ``target``
    (``dtype``: one dtype for every input, or a tuple of one per input)."""
    import numpy as np

    from rocarray._elementwise import Ufunc, elementwise_spec
    from rocarray._elementwise_functions import _rows

    u = Ufunc(_rows[op])
    dts = tuple(map(np.dtype, dtype)) if isinstance(dtype, tuple) else (np.dtype(dtype),) * u.nin
    loop_in, loop_out, out_storage, body = u.resolve(dts)
    spec = elementwise_spec(op, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)
    return spec.entry, str(spec.build_module(target))
