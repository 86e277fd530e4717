"""The quick tier's and the interpreter's reduction entries: one item per thread, read in place."""

from __future__ import annotations

from llvmlite import ir

from .abi import I8, I64, PTR
from .index_ir import CountedLoop, declare_trap, dims_loop, divmod32, udivrem
from .reduction_abi import EntryParams, reduction_param_types, scan_param_types
from .reduction_ir import I32
from .skeletons import SIMPLE_LOOP_MAX_ELEMENTS


class QuickTierBuilder:
    """The quick-tier and interpreter entries of ``ReductionBuilder``."""

    def quick_entry(self, types):
        """Add the entry ``self.entry`` for the quick tier: the parameters ``types`` (the
        launcher's layout), read where they are (``EntryParams``): on GPUs shapes and
        strides by reference where the target can (``dims_parameter_type``), on the host
        in the packed struct the entry's ``args`` points to.  Returns the builder, the
        ``EntryParams``, the item loop (the builder in its body) and its step: on GPUs a
        grid-stride loop over ``n_items`` after one check that the launch fits the 32-bit
        index arithmetic (it traps otherwise); on the host the items ``start .. stop`` of
        the call (the launcher never hands the quick tier more: ``LoadedKernel.fit``)."""
        target = self.target
        if not target.facts.emits_grid:
            fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
            target.mark_kernel(fn)
            self.fn = fn
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            args_ptr, start, stop = fn.args
            params = EntryParams(target, b, None, types, buffer=args_ptr)
            return b, params, CountedLoop(b, start, stop, "item"), ir.Constant(I64, 1)
        fn, b, params = self.gpu_entry(types)
        self.fn = fn
        first = target.emit_global_thread_id(b)
        step = target.emit_global_thread_count(b)
        # every index below is under n_items (an output, a chunk) or n_r (a reduced index):
        # more than 2**31 - 1 of either traps (the launcher runs the full tier for those)
        limit = ir.Constant(I64, SIMPLE_LOOP_MAX_ELEMENTS)
        too_big = b.or_(b.icmp_unsigned(">", params.value(b, 0), limit),
                        b.icmp_unsigned(">", params.value(b, 9), limit))
        trap_bb = fn.append_basic_block("too.many.items")
        start_bb = fn.append_basic_block("start")
        b.cbranch(too_big, trap_bb, start_bb)
        b.position_at_end(trap_bb)
        b.call(declare_trap(self.module), [])
        b.unreachable()
        b.position_at_end(start_bb)
        return b, params, CountedLoop(b, first, params.value(b, 0), "item"), step

    def unravel32(self, b, params, ndim, shape, flat, bases, strides) -> list:
        """``bases`` (None stays None) each moved by the offset of index ``flat`` over the
        dimensions of shape parameter ``shape`` (``ndim`` of them, at least one), with the
        strides parameters ``strides``: dimensions ``ndim - 1`` down to 1 divide in 32 bits
        (every index and extent is below 2**31: ``quick_entry``), dimension 0 takes what
        is left, so a one-dimensional run divides nothing."""
        def step(b, ptrs, r, d):
            idx = b.zext(r, I64)
            return [None if p is None else b.gep(p, [b.mul(idx, params.dim(b, s, d))], source_etype=I8)
                    for p, s in zip(ptrs, strides)]

        phis, rem = dims_loop(b, b.sub(ndim, ir.Constant(I64, 1)), b.trunc(flat, I32),
                              lambda b, d: b.trunc(params.dim(b, shape, d), I32), udivrem, bases, step, stop=1)
        return step(b, phis, rem, ir.Constant(I64, 0))

    def build_quick(self) -> None:
        """The quick tier's reduction entry (a new signature's first calls: little code,
        cheap for LLVM and a GPU driver's JIT): one thread (host: loop trip) per item
        (output, chunk), one accumulator, each reduced index unravelled in 32 bits;
        the result post-mapped, or the raw record with ``MODE_RECORDS``.  Parameters
        are read where the launcher packed them (``EntryParams``)."""
        types = reduction_param_types(self.n_inputs, len(self.out_dtypes))
        b, params, items, step = self.quick_entry(types)
        self.quick_item(b, params, items.i)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def build_item_function(self) -> ir.Function:
        """The interpreter tier's form of ``build_quick``: ``void entry(ptr params, i64
        item, i64 n)``, one item of the quick tier's loop, its parameters read from the
        packed struct at ``params`` (``compiler/interp.py``: ``compile_items``)."""
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(self.target, b, None, reduction_param_types(self.n_inputs, len(self.out_dtypes)),
                              buffer=fn.args[0])
        self.quick_item(b, params, fn.args[1])
        b.ret_void()
        return fn

    def quick_item(self, b, params, it) -> None:
        """One item ``it`` of the quick tier: the output and chunk it stands for, its
        elements folded into one accumulator, the result (or record) written."""
        n_in, n_outs = self.n_inputs, len(self.out_dtypes)
        ins = [10 + 3 * k for k in range(n_in)]  # pointer; kept strides, reduced strides after it
        outs = [10 + 3 * n_in + 2 * k for k in range(n_outs)]  # pointer; kept strides after it
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        self.n_out = params.value(b, 2)
        o, c = divmod32(b, it, self.n_out)
        bases = self.unravel32(b, params, params.value(b, 5), 6, o, [params.value(b, k) for k in ins + outs],
                               [k + 1 for k in ins + outs])
        in_bases, out_addrs = bases[:n_in], bases[n_in:]
        self.chunk_len, self.n_r = params.value(b, 4), params.value(b, 9)
        j_begin, j_end = self.chunk_range(b, c)
        self.set_identity(b, acc)
        run = CountedLoop(b, j_begin, j_end, "j")
        addrs = self.unravel32(b, params, params.value(b, 7), 8, run.i, in_bases, [k + 2 for k in ins])
        self.fold_into(b, acc.fields(b), addrs, run.i)
        run.close(b, b.add(run.i, ir.Constant(I64, 1)))
        self.mode = params.value(b, 1)
        self.records = params.value(b, len(reduction_param_types(n_in, n_outs)) - 1)
        self.write(b, acc, o, c, out_addrs)

    def move_record(self, b, src, dst) -> None:
        """Copy the record at ``src`` to ``dst``."""
        if self.opaque is None:
            b.store(b.load(src, typ=self.rec_type), dst)
        else:
            zero = ir.Constant(I64, 0)
            b.call(self.opaque[0], [dst, src, zero, zero])

    def build_scan_quick(self, records_out: bool) -> None:
        """The quick tier's scan entry: ``build_scan``'s items, parameters read in
        place and lines unravelled in 32 bits, as ``build_quick`` does."""
        n_outs = 1 if records_out else len(self.out_dtypes)
        b, params, items, step = self.quick_entry(scan_param_types(self.n_inputs, n_outs))
        self.quick_scan_item(b, params, items.i, records_out)
        items.close(b, b.add(items.i, step))
        b.ret_void()

    def build_scan_item_function(self, records_out: bool) -> ir.Function:
        """The interpreter tier's form of ``build_scan_quick`` (see ``build_item_function``)."""
        n_outs = 1 if records_out else len(self.out_dtypes)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR, I64, I64]), self.entry)
        self.fn = fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        params = EntryParams(self.target, b, None, scan_param_types(self.n_inputs, n_outs), buffer=fn.args[0])
        self.quick_scan_item(b, params, fn.args[1], records_out)
        b.ret_void()
        return fn

    def quick_scan_item(self, b, params, it, records_out: bool) -> None:
        """One item ``it`` of the quick tier's scan: a chunk of one line scanned serially."""
        n_in = self.n_inputs
        n_outs = 1 if records_out else len(self.out_dtypes)
        types = scan_param_types(n_in, n_outs)
        arrays = [10 + 3 * k for k in range(n_in + n_outs)]  # pointer, kept strides, scanned stride
        self.tmp = self.new_record(b)
        acc = self.new_record(b)
        self.mode = params.value(b, 1)
        self.n_out = params.value(b, 2)
        o, c = divmod32(b, it, self.n_out)
        bases = self.unravel32(b, params, params.value(b, 5), 6, o, [params.value(b, k) for k in arrays],
                               [k + 1 for k in arrays])
        zero = ir.Constant(I64, 0)
        scanned = [params.dim(b, k + 2, zero) for k in arrays]
        self.chunk_len, self.n_r = params.value(b, 4), params.value(b, 9)
        self.records = params.value(b, len(types) - 2)
        self.scan_item(b, acc, o, c, bases[:n_in], bases[n_in:], scanned[:n_in], scanned[n_in:],
                       params.value(b, len(types) - 1), records_out)
