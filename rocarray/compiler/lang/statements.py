"""Lowering of kernel-language statements: declarations, control flow, switch and return."""

from __future__ import annotations

from llvmlite import ir

from . import syntax as A
from .errors import KernelSyntaxError
from .expressions import NAMED_CONSTANTS
from .ir_types import I8, I64
from .types import BOOL, VOID, promote_int
from .values import LocalArray, LValue

#: local arrays of more elements than this are zeroed by a loop, not one aggregate store
ZERO_STORE_MOST = 256


class StatementLowering:
    """The statements of ``Lowerer``."""

    def block(self, node: A.Block, new_scope: bool = True):
        ctx = self.ctx
        if new_scope:
            ctx.scopes.append({})
            ctx.types.append({})
        try:
            for s in node.stmts:
                if isinstance(s, A.Case):
                    raise self.err("'case' label outside a switch", s, KernelSyntaxError)
                self.stmt(s)
        finally:
            if new_scope:
                ctx.scopes.pop()
                ctx.types.pop()

    def st_block(self, node):
        self.block(node)

    def st_empty(self, node):
        pass

    def st_expr(self, node):
        self.expr(node.expr)

    def st_typedef(self, node: A.Typedef):
        self.ctx.types[-1][node.name] = self.resolve(node.tspec)

    def st_decl(self, node: A.Decl):
        spec = node.tspec
        auto = spec.kind == "auto"
        base_t = None if auto else self.resolve(spec)
        if base_t is VOID:
            raise self.err("variables cannot be void", spec)
        const = spec.const
        for d in node.items:
            t = base_t
            if d.size is not None:
                self.declare_array(d, t, const, spec)
                continue
            if d.ref:
                if d.init is None:
                    raise self.err(f"reference '{d.name}' needs an initialiser", d,
                                   KernelSyntaxError)
                target = self.operand(d.init)
                if isinstance(target, LValue) and target.value is None and \
                        (t is None or target.t is t) and (const or not target.const):
                    self.declare(d.name, LValue(target.ptr, target.t, name=f"'{d.name}'",
                                                const=(f"const reference '{d.name}'"
                                                       if const else target.const)), d)
                    continue
                if not const:
                    raise self.err(f"reference '{d.name}' must bind a variable of its own type",
                                   d)
                v = self.load(target) if isinstance(target, LValue) else target
                v = self.convert(v, t if t is not None else v.t, d)
                self.declare(d.name, LValue(None, v.t, value=v.v,
                                            const=f"const reference '{d.name}'"), d)
                continue
            init = None
            if d.init is not None:
                if isinstance(d.init, A.InitList):
                    if len(d.init.items) > 1 and (t is None or t.kind != "c"):
                        raise self.err("an initialiser list for a scalar takes one value",
                                       d.init, KernelSyntaxError)
                    if t is None:
                        raise self.err("'auto' cannot be deduced from an initialiser list",
                                       d.init, KernelSyntaxError)
                    init = self.ex_cast(A.Cast(spec, d.init.items, "func", d.init.line,
                                               d.init.col)) if d.init.items else \
                        self.const(t, 0)
                else:
                    init = self.expr(d.init)
                if t is None:
                    t = init.t
                    if t is VOID:
                        raise self.err("cannot deduce 'auto' from a void expression", d)
                elif init.t.kind == "c" and t.kind != "c":
                    raise self.err(f"cannot initialise a {t.name} with a {init.t.name} (use "
                                   "real(z), abs(z) or an explicit cast)", d.init)
                init = self.convert(init, t, d.init)
            elif t is None:
                raise self.err(f"'auto' variable '{d.name}' needs an initialiser", d,
                               KernelSyntaxError)
            slot = self.alloca(t.storage, name=d.name)
            lv = LValue(slot, t, name=f"'{d.name}'",
                        const=f"const variable '{d.name}'" if const else False)
            if init is None:
                init = self.const(t, 0)   # C leaves it indeterminate; zero is deterministic
            x = init.v
            if t is BOOL:
                x = self.b.zext(x, I8)
            self.b.store(x, slot)
            self.declare(d.name, lv, d)

    def declare_array(self, d: A.Declarator, t, const, spec):
        items = None
        if d.init is not None:
            if not isinstance(d.init, A.InitList):
                raise self.err(f"array '{d.name}' must be initialised with {{...}}", d.init,
                               KernelSyntaxError)
            items = d.init.items
        if t is None:
            raise self.err("arrays cannot be 'auto'", d, KernelSyntaxError)
        if d.size == "infer":
            if items is None:
                raise self.err(f"array '{d.name}' needs a size", d, KernelSyntaxError)
            size = len(items)
        else:
            size = self.const_int(d.size)
        if size <= 0 or size > 1 << 20:
            raise self.err(f"array size {size} is out of range", d.size)
        if items is not None and len(items) > size:
            raise self.err(f"too many initialisers for array '{d.name}' of size {size}", d.init)
        aty = ir.ArrayType(t.storage, size)
        slot = self.alloca(aty, name=d.name)
        values = [self.convert(self.expr(e), t, e) for e in (items or ())]
        if len(values) == size or items is not None:
            for k in range(size):
                v = values[k] if k < len(values) else self.const(t, 0)
                p = self.b.gep(slot, [ir.Constant(I64, 0), ir.Constant(I64, k)],
                               source_etype=aty)
                x = self.b.zext(v.v, I8) if t is BOOL else v.v
                self.b.store(x, p)
        elif size > ZERO_STORE_MOST:
            self.zero_loop(slot, aty, t, d.name)
        else:
            self.b.store(ir.Constant(aty, None), slot)
        self.declare(d.name, LocalArray(slot, t, size, d.name,
                                        const=f"const array '{d.name}'" if const else False), d)

    def zero_loop(self, slot, aty, t, name: str) -> None:
        """Zero the local array at ``slot`` by a loop over its elements (LLVM makes it a
        memset where the target has one): one store of a large zero aggregate costs LLVM's
        optimiser time that grows with the array (seconds for tens of kilobytes)."""
        b = self.b
        pre = b.block
        loop, done = self.new_block(f"{name}.zero"), self.new_block(f"{name}.zeroed")
        b.branch(loop)
        b.position_at_end(loop)
        k = b.phi(I64)
        k.add_incoming(ir.Constant(I64, 0), pre)
        b.store(ir.Constant(t.storage, 0), b.gep(slot, [ir.Constant(I64, 0), k], source_etype=aty))
        after = b.add(k, ir.Constant(I64, 1))
        k.add_incoming(after, loop)
        b.cbranch(b.icmp_unsigned("<", after, ir.Constant(I64, aty.count)), loop, done)
        b.position_at_end(done)

    def const_int(self, node) -> int:
        """Value of an integer constant expression (array sizes, case labels)."""
        if isinstance(node, A.Num):
            if node.ktype.kind in "biu":
                return int(node.value)
        elif isinstance(node, A.Unary):
            v = self.const_int(node.operand)
            if node.op == "-":
                return -v
            if node.op == "+":
                return v
            if node.op == "~":
                return ~v
            if node.op == "!":
                return int(not v)
        elif isinstance(node, A.Binary):
            a = self.const_int(node.lhs)
            b = self.const_int(node.rhs)
            op = node.op
            if op in ("/", "%") and b == 0:
                raise self.err("division by zero in a constant expression", node)
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "/": lambda: int(a / b) if abs(a) < 2**52 else a // b,
                   "%": lambda: a - b * int(a / b), "<<": lambda: a << b, ">>": lambda: a >> b,
                   "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
                   "==": lambda: int(a == b), "!=": lambda: int(a != b),
                   "<": lambda: int(a < b), ">": lambda: int(a > b),
                   "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                   "&&": lambda: int(bool(a and b)), "||": lambda: int(bool(a or b))}
            if op in ops:
                return ops[op]()
        elif isinstance(node, A.Name):
            unit = self.ctx.unit
            if unit is not None and node.name in unit.globals:
                g = unit.globals[node.name]
                saved = self.ctx.source
                self.ctx.source = g.source
                try:
                    return self.const_int(g.init)
                finally:
                    self.ctx.source = saved
            c = NAMED_CONSTANTS.get(node.name)
            if c is not None and c[1].kind in "iu":
                return int(c[0])
        elif isinstance(node, A.Cast) and len(node.args) == 1:
            t = self.resolve(node.tspec)
            if t.kind in "iu":
                v = self.const_int(node.args[0]) & ((1 << t.bits) - 1)
                if t.kind == "i" and v >= 1 << (t.bits - 1):
                    v -= 1 << t.bits
                return v
        elif isinstance(node, A.SizeOf) and node.tspec is not None:
            return self.resolve(node.tspec).itemsize
        elif isinstance(node, A.Cond):
            return self.const_int(node.a) if self.const_int(node.cond) else \
                self.const_int(node.b)
        raise self.err("expected an integer constant expression", node)

    def st_if(self, node: A.If):
        c = self.to_bool(self.expr(node.cond), node.cond)
        then_bb = self.new_block("if.then")
        end_bb = self.new_block("if.end")
        else_bb = self.new_block("if.else") if node.other is not None else end_bb
        self.b.cbranch(c, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        self.scoped_stmt(node.then)
        self.branch_to(end_bb)
        if node.other is not None:
            self.b.position_at_end(else_bb)
            self.scoped_stmt(node.other)
            self.branch_to(end_bb)
        self.b.position_at_end(end_bb)

    def scoped_stmt(self, node):
        """A statement that is the body of if/while/for: its own scope even without braces."""
        if isinstance(node, A.Block):
            self.block(node)
            return
        self.ctx.scopes.append({})
        try:
            self.stmt(node)
        finally:
            self.ctx.scopes.pop()

    def st_while(self, node: A.While):
        cond_bb = self.new_block("while.cond")
        body_bb = self.new_block("while.body")
        end_bb = self.new_block("while.end")
        self.b.branch(cond_bb)
        self.b.position_at_end(cond_bb)
        c = self.to_bool(self.expr(node.cond), node.cond)
        self.b.cbranch(c, body_bb, end_bb)
        self.b.position_at_end(body_bb)
        self.loop_body(node.body, end_bb, cond_bb)
        self.branch_to(cond_bb)
        self.b.position_at_end(end_bb)

    def loop_body(self, body, break_bb, continue_bb) -> None:
        """Lower a loop's body with ``break`` going to ``break_bb``, ``continue`` to
        ``continue_bb``."""
        self.ctx.loops.append((break_bb, continue_bb))
        try:
            self.scoped_stmt(body)
        finally:
            self.ctx.loops.pop()

    def st_dowhile(self, node: A.DoWhile):
        body_bb = self.new_block("do.body")
        cond_bb = self.new_block("do.cond")
        end_bb = self.new_block("do.end")
        self.b.branch(body_bb)
        self.b.position_at_end(body_bb)
        self.loop_body(node.body, end_bb, cond_bb)
        self.branch_to(cond_bb)
        self.b.position_at_end(cond_bb)
        c = self.to_bool(self.expr(node.cond), node.cond)
        self.b.cbranch(c, body_bb, end_bb)
        self.b.position_at_end(end_bb)

    def st_for(self, node: A.For):
        ctx = self.ctx
        ctx.scopes.append({})
        ctx.types.append({})
        try:
            if node.init is not None:
                self.stmt(node.init)
            cond_bb = self.new_block("for.cond")
            body_bb = self.new_block("for.body")
            step_bb = self.new_block("for.step")
            end_bb = self.new_block("for.end")
            self.b.branch(cond_bb)
            self.b.position_at_end(cond_bb)
            if node.cond is not None:
                c = self.to_bool(self.expr(node.cond), node.cond)
                self.b.cbranch(c, body_bb, end_bb)
            else:
                self.b.branch(body_bb)
            self.b.position_at_end(body_bb)
            self.loop_body(node.body, end_bb, step_bb)
            self.branch_to(step_bb)
            self.b.position_at_end(step_bb)
            if node.step is not None:
                self.expr(node.step)
            self.b.branch(cond_bb)
            self.b.position_at_end(end_bb)
        finally:
            ctx.scopes.pop()
            ctx.types.pop()

    def st_switch(self, node: A.Switch):
        v = self.expr(node.expr)
        if v.t.kind not in "biu":
            raise self.err(f"switch needs an integer value, not {v.t.name}", node.expr)
        t = promote_int(v.t)
        x = self.convert(v, t, node.expr).v
        body = node.body
        if not isinstance(body, A.Block):
            raise self.err("the body of a switch must be a block { ... }", body,
                           KernelSyntaxError)
        end_bb = self.new_block("switch.end")
        label_bb = {}          # id(Case) -> block, in order of appearance
        default_bb = None
        values = set()
        cases = []
        for s in body.stmts:
            if not isinstance(s, A.Case):
                continue
            bb = self.new_block("switch.case")
            label_bb[id(s)] = bb
            if s.value is None:
                if default_bb is not None:
                    raise self.err("two 'default' labels in one switch", s, KernelSyntaxError)
                default_bb = bb
                continue
            cv = self.const_int(s.value) & ((1 << t.bits) - 1)
            if cv in values:
                raise self.err("duplicate case value", s, KernelSyntaxError)
            values.add(cv)
            cases.append((cv, bb))
        sw = self.b.switch(x, default_bb if default_bb is not None else end_bb)
        for cv, bb in cases:
            sw.add_case(ir.Constant(t.ir, cv), bb)
        self.dead_block()     # statements before the first label are unreachable
        self.ctx.scopes.append({})
        self.ctx.loops.append((end_bb, None))
        try:
            for s in body.stmts:
                if isinstance(s, A.Case):
                    bb = label_bb[id(s)]
                    self.branch_to(bb)          # fall through from the previous case
                    self.b.position_at_end(bb)
                    continue
                self.stmt(s)
        finally:
            self.ctx.loops.pop()
            self.ctx.scopes.pop()
        self.branch_to(end_bb)
        self.b.position_at_end(end_bb)

    def st_case(self, node):
        raise self.err("'case' label outside a switch (or nested inside a block of the "
                       "switch)", node, KernelSyntaxError)

    def st_break(self, node):
        if not self.ctx.loops:
            raise self.err("'break' outside a loop or switch", node, KernelSyntaxError)
        self.b.branch(self.ctx.loops[-1][0])
        self.dead_block()

    def st_continue(self, node):
        for _, cont in reversed(self.ctx.loops):
            if cont is not None:
                self.b.branch(cont)
                self.dead_block()
                return
        raise self.err("'continue' outside a loop", node, KernelSyntaxError)

    def st_return(self, node: A.Return):
        ret = self.ctx.ret
        if node.value is None:
            if ret is not VOID:
                raise self.err(f"'return' without a value in a function returning {ret.name}",
                               node)
            self.b.ret_void()
        else:
            v = self.expr(node.value)
            if ret is VOID:
                if v.t is not VOID:
                    what = ("the kernel body" if self.ctx.is_body
                            else f"void function '{self.ctx.name}'")
                    raise self.err(f"'return' with a value in {what}", node)
                self.b.ret_void()
            else:
                if v.t.kind == "c" and ret.kind != "c":
                    raise self.err(f"cannot return a {v.t.name} from a function returning "
                                   f"{ret.name}", node.value)
                self.b.ret(self.convert(v, ret, node.value).v)
        self.dead_block()
