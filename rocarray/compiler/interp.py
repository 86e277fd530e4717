"""The interpreter tier: one kernel per target that runs a body's bytecode, so a first call
compiles nothing for the device.

The interpreter kernel wraps the compiled kernels' element loop around a dispatch loop
over the bytecode (``bytecode``, made by ``bytecode_compiler``); each handler is the very
LLVM instruction or math call the bytecode names, so it computes the compiled kernel's
bits.  This module is the tier's entry point: it also names the bytecode API the launcher
uses.  docs/architecture.md, "The interpreter tier", says more.
"""

from __future__ import annotations

from llvmlite import ir

from .abi import N_OFFSET, NDIM_OFFSET, SHAPE_OFFSET, STRIDES_OFFSET, parameter_pointer_type
from .bytecode import (ENTRY, F16, F32, F64, FLOAT_TYPES, HEADER_WORDS, I1, I8, I16, I32, I64, INSTR_WORDS, MAGIC,
                       PARAM_WORDS, PARAMS_AT, PTR, SLOTS, STACK_BYTES, InstructionSet, NotInterpretable,
                       instruction_set, scalar_name, size_align)
from .bytecode_compiler import ItemTemplate, compile_body, compile_items
from .index_ir import dims_loop

__all__ = ["ENTRY", "INSTR_WORDS", "MAGIC", "PARAM_WORDS", "SLOTS", "InstructionSet", "ItemTemplate",
           "NotInterpretable", "build_interpreter", "compile_body", "compile_items", "instruction_set"]


class _Kernel:
    """The interpreter's IR: the element loop around the dispatch loop (``build``)."""

    def __init__(self, target, iset: InstructionSet):
        self.target = target
        self.iset = iset
        module = self.module = ir.Module(name=ENTRY)
        module.triple = target.triple
        module.data_layout = target.data_layout
        self.functions = {name: ir.Function(module, fnty, name) for name, fnty in iset.externals.items()}
        if target.facts.emits_grid:
            ptype = parameter_pointer_type(target, ir.ArrayType(I64, PARAM_WORDS))
            if ptype is None:
                raise NotInterpretable(f"target {target.name} passes no parameters by reference")
            fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptype]), ENTRY)
            target.mark_kernel(fn)
            fn.args[0].add_attribute(target.facts.dims_by_reference[1])
            fn.args[0].attributes.align = 8
        else:
            fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), ENTRY)
            target.mark_kernel(fn)
        self.fn = fn
        self.params = fn.args[0]

    # -- small helpers (``b`` is the builder at the current block) --

    def word(self, b, base_ptr, index, ty=I32):
        """Element ``index`` (an i32/i64 value) of the ``ty`` array at ``base_ptr``."""
        return b.load(b.gep(base_ptr, [index], source_etype=ty), typ=ty)

    def param_at(self, b, byte_offset, ty=I64):
        """The ``ty`` at ``byte_offset`` (i64) of the launch parameters."""
        p = b.gep(self.params, [byte_offset], source_etype=I8)
        return b.load(p, typ=ty, align=1 if ty == I8 else 8)

    def slot_ptr(self, b, s):
        return b.gep(self.regs, [b.zext(s, I64) if s.type != I64 else s], source_etype=I64)

    def read(self, b, s):
        return b.load(self.slot_ptr(b, s), typ=I64)

    def write(self, b, s, v):
        b.store(v, self.slot_ptr(b, s))

    @staticmethod
    def as_type(b, v, name: str):
        """The i64 slot bits ``v`` as a value of type ``name`` ("i8", "f32", ...)."""
        if name == "i64":
            return v
        if name[0] == "i":
            return b.trunc(v, ir.IntType(int(name[1:])))
        if name == "f64":
            return b.bitcast(v, F64)
        if name == "f32":
            return b.bitcast(b.trunc(v, I32), F32)
        if name == "f16":
            return b.bitcast(b.trunc(v, I16), F16)
        raise AssertionError(name)

    @staticmethod
    def to_slot(b, v):
        ty = v.type
        if isinstance(ty, ir.IntType):
            return v if ty.width == 64 else b.zext(v, I64)
        if isinstance(ty, ir.DoubleType):
            return b.bitcast(v, I64)
        if isinstance(ty, ir.FloatType):
            return b.zext(b.bitcast(v, I32), I64)
        if isinstance(ty, ir.HalfType):
            return b.zext(b.bitcast(v, I16), I64)
        raise AssertionError(ty)

    @staticmethod
    def type_name(ty) -> str:
        return scalar_name(ty)

    # -- the kernel --

    def build(self) -> ir.Module:
        fn, target = self.fn, self.target
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        self.regs = b.alloca(ir.ArrayType(I64, SLOTS), name="slots")
        self.regs.type = PTR
        stack = b.alloca(ir.ArrayType(I64, STACK_BYTES // 8), name="stack")
        stack.type = PTR
        self.stack = stack
        pcv = b.alloca(I32, name="pc")
        phase = b.alloca(I1, name="phase")
        iv = b.alloca(I64, name="i")
        code = b.inttoptr(self.param_at(b, ir.Constant(I64, 0)), PTR)
        n = self.param_at(b, ir.Constant(I64, PARAMS_AT + N_OFFSET))
        ndim = self.param_at(b, ir.Constant(I64, PARAMS_AT + NDIM_OFFSET))
        if target.facts.emits_grid:
            start = target.emit_global_thread_id(b)
            step = target.emit_global_thread_count(b)
            stop = n
        else:
            start, stop = fn.args[1], fn.args[2]
            step = ir.Constant(I64, 1)
        n_arrays = self.word(b, code, ir.Constant(I32, 1))
        i_slot = self.word(b, code, ir.Constant(I32, 2))
        n_slot = self.word(b, code, ir.Constant(I32, 3))
        body_pc = self.word(b, code, ir.Constant(I32, 5))
        b.store(start, iv)
        b.store(self.word(b, code, ir.Constant(I32, 4)), pcv)
        b.store(ir.Constant(I1, 0), phase)

        dispatch = fn.append_basic_block("dispatch")
        nxt = fn.append_basic_block("next")
        elem_head = fn.append_basic_block("element.head")
        elem_body = fn.append_basic_block("element.body")
        elem_next = fn.append_basic_block("element.next")
        done = fn.append_basic_block("done")
        b.branch(dispatch)

        # the element loop: operand addresses for element i, then the body's bytecode
        b.position_at_end(elem_head)
        i = b.load(iv, typ=I64)
        b.cbranch(b.icmp_signed("<", i, stop), elem_body, done)
        b.position_at_end(elem_body)
        self._addresses(b, code, n_arrays, ndim, i)
        self.write(b, i_slot, i)
        self.write(b, n_slot, n)
        b.store(ir.Constant(I1, 1), phase)
        b.store(body_pc, pcv)
        b.branch(dispatch)
        b.position_at_end(elem_next)
        b.store(b.add(b.load(iv, typ=I64), step), iv)
        b.branch(elem_head)
        b.position_at_end(done)
        b.ret_void()

        # the dispatch loop
        b.position_at_end(dispatch)
        pc = b.load(pcv, typ=I32)
        op = self.word(b, code, pc)
        fields = [self.word(b, code, b.add(pc, ir.Constant(I32, k))) for k in range(1, INSTR_WORDS)]
        bad = fn.append_basic_block("bad")
        sw = b.switch(op, bad)
        b.position_at_end(bad)
        b.branch(done)  # (never: every opcode has a handler)
        b.position_at_end(nxt)
        b.store(b.add(pc, ir.Constant(I32, INSTR_WORDS)), pcv)
        b.branch(dispatch)
        self.ctx = (pcv, phase, elem_head, elem_next, dispatch, nxt)
        for k, name in enumerate(self.iset.names):
            block = fn.append_basic_block(name.replace(".", "_").replace("@", ""))
            sw.add_case(ir.Constant(I32, k), block)
            b.position_at_end(block)
            self._handler(b, name, *fields)
        return self.module

    def _addresses(self, b, code, n_arrays, ndim, i):
        """Each array operand's element address into its slot: its pointer plus the
        element's index along each dimension times the operand's stride there."""
        fn = self.fn
        eight = ir.Constant(I64, 8)
        # pass 1: slot = pointer (+ i * stride[0] when the space is 1-D)
        flat = b.icmp_signed("<=", ndim, ir.Constant(I64, 1))

        def start(b, off, s):
            ptr = self.param_at(b, off)
            stride0 = self.param_at(b, b.add(off, ir.Constant(I64, STRIDES_OFFSET)))
            self.write(b, s, b.add(ptr, b.select(flat, b.mul(i, stride0), ir.Constant(I64, 0))))

        self._each_array(b, code, n_arrays, start, "arrays")
        after = b.block
        nd = fn.append_basic_block("unravel")
        rest = fn.append_basic_block("unravel.done")
        last = b.sub(ndim, ir.Constant(I64, 1))
        b.cbranch(flat, rest, nd)
        # pass 2 (N-d): d from ndim-1 down to 0, idx = rem % shape[d], rem /= shape[d]
        b.position_at_end(nd)

        def step(b, _, idx, d):
            def add(b, off, s):
                stride = self.param_at(b, b.add(off, b.add(ir.Constant(I64, STRIDES_OFFSET), b.mul(d, eight))))
                self.write(b, s, b.add(self.read(b, s), b.mul(idx, stride)))

            self._each_array(b, code, n_arrays, add, "unravel.arrays")
            return []

        dims_loop(b, last, i,
                  lambda b, d: self.param_at(b, b.add(ir.Constant(I64, PARAMS_AT + SHAPE_OFFSET), b.mul(d, eight))),
                  lambda b, x, y: (b.urem(x, y), b.udiv(x, y)), (), step, entered_from=after, then=rest)

    def _each_array(self, b, code, n_arrays, emit, name: str) -> None:
        """A loop over the header's array operands, ``emit(b, off, s)`` for each (the byte
        offset of its pointer in the launch parameters, its slot); ``b`` is left after it."""
        fn = self.fn
        head = b.block
        loop = fn.append_basic_block(name)
        out = fn.append_basic_block(name + ".done")
        b.cbranch(b.icmp_signed(">", n_arrays, ir.Constant(I32, 0)), loop, out)
        b.position_at_end(loop)
        j = b.phi(I32)
        j.add_incoming(ir.Constant(I32, 0), head)
        at = b.add(ir.Constant(I32, HEADER_WORDS), b.mul(j, ir.Constant(I32, 2)))
        emit(b, b.sext(self.word(b, code, at), I64), self.word(b, code, b.add(at, ir.Constant(I32, 1))))
        j1 = b.add(j, ir.Constant(I32, 1))
        j.add_incoming(j1, b.block)
        b.cbranch(b.icmp_signed("<", j1, n_arrays), loop, out)
        b.position_at_end(out)

    def _handler(self, b, name: str, d, a, bb, c) -> None:
        pcv, phase, elem_head, elem_next, dispatch, nxt = self.ctx
        parts = name.split(".")
        head = parts[0]
        if name == "ret":
            b.cbranch(b.load(phase, typ=I1), elem_next, elem_head)
            return
        if name == "jmp":
            b.store(a, pcv)
            b.branch(dispatch)
            return
        if name == "br":
            cond = b.trunc(self.read(b, a), I1)
            b.store(b.select(cond, bb, c), pcv)
            b.branch(dispatch)
            return
        if name == "mov":
            self.write(b, d, self.read(b, a))
        elif name == "select":
            cond = b.trunc(self.read(b, a), I1)
            self.write(b, d, b.select(cond, self.read(b, bb), self.read(b, c)))
        elif name == "const":
            lo = b.zext(a, I64)
            hi = b.shl(b.zext(bb, I64), ir.Constant(I64, 32))
            self.write(b, d, b.or_(lo, hi))
        elif name == "lea":
            self.write(b, d, b.add(self.read(b, a), b.mul(self.read(b, bb), b.sext(c, I64))))
        elif name == "addi":
            self.write(b, d, b.add(self.read(b, a), b.sext(c, I64)))
        elif name == "addr":
            self.write(b, d, b.add(b.ptrtoint(self.stack, I64), b.sext(a, I64)))
        elif name == "copyp":
            self._copy_parameters(b, d, a, bb)
        elif head in ("load", "store"):
            t = parts[1]
            mem = "i8" if t == "i1" else t
            mty = ir.IntType(int(mem[1:])) if mem[0] == "i" else FLOAT_TYPES[mem]
            size = size_align(mty)[0]
            if head == "load":
                p = b.inttoptr(b.add(self.read(b, a), b.sext(bb, I64)), PTR)
                self.write(b, d, self.to_slot(b, b.load(p, typ=mty, align=size)))
            else:
                p = b.inttoptr(b.add(self.read(b, a), b.sext(c, I64)), PTR)
                v = self.as_type(b, self.read(b, bb), t)
                if t == "i1":
                    v = b.zext(v, I8)
                b.store(v, p, align=size)
        elif head == "call":
            fn = self.functions[name[5:]]
            args = [self.as_type(b, self.read(b, s), self.type_name(t))
                    for s, t in zip((a, bb, c), fn.function_type.args)]
            r = b.call(fn, args)
            if not isinstance(fn.function_type.return_type, ir.VoidType):
                self.write(b, d, self.to_slot(b, r))
        elif head in ("icmp", "fcmp"):
            t = parts[2]
            x, y = self.as_type(b, self.read(b, a), t), self.as_type(b, self.read(b, bb), t)
            if head == "icmp":
                r = _icmp(b, parts[1], x, y)
            else:
                r = _fcmp(b, parts[1], x, y)
            self.write(b, d, b.zext(r, I64))
        elif head in ("zext", "sext"):
            x = self.as_type(b, self.read(b, a), parts[1])
            self.write(b, d, b.zext(x, I64) if head == "zext" else b.sext(x, I64))
        elif head in ("fpext", "fptrunc"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.fpext if head == "fpext" else b.fptrunc
            self.write(b, d, self.to_slot(b, conv(x, FLOAT_TYPES[parts[2]])))
        elif head in ("fptosi", "fptoui"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.fptosi if head == "fptosi" else b.fptoui
            self.write(b, d, self.to_slot(b, conv(x, ir.IntType(int(parts[2][1:])))))
        elif head in ("sitofp", "uitofp"):
            x = self.as_type(b, self.read(b, a), parts[1])
            conv = b.sitofp if head == "sitofp" else b.uitofp
            self.write(b, d, self.to_slot(b, conv(x, FLOAT_TYPES[parts[2]])))
        elif head == "fneg":
            self.write(b, d, self.to_slot(b, b.fneg(self.as_type(b, self.read(b, a), parts[1]))))
        else:
            t = parts[1]
            x, y = self.as_type(b, self.read(b, a), t), self.as_type(b, self.read(b, bb), t)
            method = {"and": "and_", "or": "or_"}.get(head, head)
            self.write(b, d, self.to_slot(b, getattr(b, method)(x, y)))
        b.branch(nxt)

    def _copy_parameters(self, b, dst, src, count) -> None:
        """``count`` bytes of the launch parameters from byte ``src`` to stack byte ``dst``."""
        fn = self.fn
        head = b.block
        loop = fn.append_basic_block("copy")
        out = fn.append_basic_block("copy.done")
        b.cbranch(b.icmp_signed(">", count, ir.Constant(I32, 0)), loop, out)
        b.position_at_end(loop)
        k = b.phi(I32)
        k.add_incoming(ir.Constant(I32, 0), head)
        v = self.param_at(b, b.sext(b.add(src, k), I64), I8)
        b.store(v, b.gep(self.stack, [b.sext(b.add(dst, k), I64)], source_etype=I8))
        k1 = b.add(k, ir.Constant(I32, 1))
        k.add_incoming(k1, b.block)
        b.cbranch(b.icmp_signed("<", k1, count), loop, out)
        b.position_at_end(out)


_ICMP_OPS = {"eq": "==", "ne": "!=", "ugt": ">", "uge": ">=", "ult": "<", "ule": "<=",
             "sgt": ">", "sge": ">=", "slt": "<", "sle": "<="}
_FCMP_OPS = {"eq": "==", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def _icmp(b, pred, x, y):
    if pred in ("eq", "ne") or pred[0] == "u":
        return b.icmp_unsigned(_ICMP_OPS[pred], x, y)
    return b.icmp_signed(_ICMP_OPS[pred], x, y)


def _fcmp(b, pred, x, y):
    if pred in ("ord", "uno"):
        return b.fcmp_ordered(pred, x, y) if pred == "ord" else b.fcmp_unordered(pred, x, y)
    op = _FCMP_OPS[pred[1:]]
    return b.fcmp_ordered(op, x, y) if pred[0] == "o" else b.fcmp_unordered(op, x, y)


def build_interpreter(target) -> ir.Module:
    """The interpreter kernel ``ENTRY`` for ``target`` (see the module's doc)."""
    return _Kernel(target, instruction_set(target)).build()
