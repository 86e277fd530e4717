"""Lowering of calls: built-in functions, user and prelude functions, template instantiation."""

from __future__ import annotations

from llvmlite import ir

from . import syntax as A
from .builtins import BUILTINS
from .errors import KernelError, KernelNameError, KernelSyntaxError
from .ir_types import I8, PTR
from .prelude import prelude_unit
from .types import BOOL, VOID, KType, can_convert_implicitly
from .values import FuncCtx, LValue, Value


class CallLowering:
    """The calls of ``Lowerer``."""

    def ex_call(self, node: A.Call) -> Value:
        name = node.name
        sym = self.lookup(name)
        if sym is not None:
            raise self.err(f"'{name}' is a variable, not a function", node)
        unit = self.ctx.unit
        if unit is not None and name in unit.funcs:
            return self.call_user(unit, name, node)
        if node.targs:
            raise self.err(f"template arguments given to '{name}', which is not a template",
                           node)
        handler = BUILTINS.get(name)
        if handler is None:
            raise self.err(f"unknown function '{name}'", node, KernelNameError)
        args = [self.expr(a) for a in node.args]
        return handler(self, node, args)

    def call_user(self, unit: A.Unit, name: str, node: A.Call) -> Value:
        args = [self.operand(a) for a in node.args]
        targs = [self.resolve(s) for s in node.targs] if node.targs else None
        return self.call_function(unit, name, args, node, targs)

    def call_function(self, unit: A.Unit, name: str, args, node, targs=None) -> Value:
        """Call preamble (or prelude) function ``name`` with lowered arguments (Values or
        LValues), choosing among overloads and instantiating templates."""
        best = None
        best_score = None
        ambiguous = False
        reasons = []
        arg_types = [a.t for a in args]
        for f in unit.funcs[name]:
            r = self.match(f, arg_types, args, targs)
            if isinstance(r, str):
                reasons.append(r)
                continue
            score = r[0]
            if best is None or score > best_score:
                best, best_score, ambiguous = (f, r[1], r[2]), score, False
            elif score == best_score:
                ambiguous = True
        if best is None:
            detail = f" ({reasons[0]})" if len(reasons) == 1 else ""
            raise self.err(f"no matching overload of '{name}' for argument types "
                           f"({', '.join(t.name for t in arg_types)}){detail}", node)
        if ambiguous:
            raise self.err(f"call of '{name}' with argument types "
                           f"({', '.join(t.name for t in arg_types)}) is ambiguous", node)
        f, binding, ptypes = best
        fn, ret = self.instantiate(unit, f, binding, ptypes, node)
        ir_args = []
        for a, p, pt in zip(args, f.params, ptypes):
            if p.tspec.ref and not p.tspec.const:
                ir_args.append(a.ptr)
            else:
                v = self.load(a) if isinstance(a, LValue) else a
                ir_args.append(self.convert(v, pt, node).v)
        r = self.b.call(fn, ir_args)
        return Value(r if ret is not VOID else None, ret)

    def match(self, f: A.FuncDef, arg_types, args, targs):
        """(score, binding, param types) when ``f`` can take these arguments, else a reason."""
        if len(f.params) != len(arg_types):
            return f"'{f.name}' takes {len(f.params)} arguments, {len(arg_types)} given"
        binding: dict[str, KType] = {}
        if f.tparams:
            explicit = ()
            if targs:
                if len(targs) > len(f.tparams):
                    return "too many template arguments"
                binding.update(zip(f.tparams, targs))
                explicit = f.tparams[:len(targs)]
            deducible = [t for t in f.tparams if t not in explicit]
            for p, at in zip(f.params, arg_types):
                ok = _deduce(p.tspec, at, deducible, binding)
                if not ok:
                    return (f"cannot deduce template parameters of '{f.name}' from "
                            f"({', '.join(t.name for t in arg_types)})")
            missing = [t for t in f.tparams if t not in binding]
            if missing:
                return f"template parameter '{missing[0]}' of '{f.name}' cannot be deduced"
        elif targs:
            return "not a template"
        self.ctx.types.append(binding)
        saved_unit = self.ctx.unit
        self.ctx.unit = f.unit
        try:
            ptypes = [self.resolve(p.tspec) for p in f.params]
        finally:
            self.ctx.types.pop()
            self.ctx.unit = saved_unit
        score = 0
        for p, pt, at, a in zip(f.params, ptypes, arg_types, args):
            if p.tspec.ref and not p.tspec.const:
                if not isinstance(a, LValue) or a.value is not None or a.const:
                    return f"parameter '{p.name}' is a reference and needs a variable"
                if at is not pt:
                    return (f"reference parameter '{p.name}' of type {pt.name} cannot bind a "
                            f"{at.name}")
            elif not can_convert_implicitly(at, pt):
                return f"cannot convert {at.name} to {pt.name}"
            score += 2 if at is pt else (1 if at.kind == pt.kind else 0)
        if not f.tparams:
            score += 0.5   # C++ prefers a non-template when both fit as well
        return score, binding, ptypes

    def instantiate(self, unit, f: A.FuncDef, binding, ptypes, node):
        key = (id(f), tuple(sorted((k, v.name) for k, v in binding.items())))
        is_prelude = unit.is_prelude
        if key in self.active:
            raise self.err(f"recursive call of '{f.name}' (recursion is not supported)", node,
                           KernelSyntaxError)
        hit = self.instances.get(key)
        if hit is not None:
            return hit
        sig = ".".join(t.name for t in ptypes)
        if binding:
            sig += "." + ".".join(f"{k}_{v}" for k, v in key[1])
        mangled = (f"__rk.prelude.{f.name}.{sig}" if is_prelude
                   else f"{self.prefix}.{f.name}.{len(self.instances)}.{sig}")
        existing = self.module.globals.get(mangled) if is_prelude else None
        saved = self.ctx
        # resolve the return type in the function's own scope
        tmp_types = [dict(binding)]
        self.ctx = _TypeOnlyCtx(tmp_types, unit, f.source)
        try:
            ret = self.resolve(f.ret) if f.ret.kind != "auto" else None
        finally:
            self.ctx = saved
        if ret is None:
            raise self.err("'auto' return types are not supported", f.ret, KernelSyntaxError)
        if f.ret.ref:
            raise self.err("functions returning references are not supported", f.ret,
                           KernelSyntaxError)
        if existing is not None:
            self.instances[key] = (existing, ret)
            return existing, ret
        arg_tys = []
        for p, pt in zip(f.params, ptypes):
            arg_tys.append(PTR if (p.tspec.ref and not p.tspec.const) else pt.ir)
        fn = ir.Function(self.module, ir.FunctionType(ret.ir, arg_tys), mangled)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        self.instances[key] = (fn, ret)
        self.active.append(key)
        try:
            self.ctx = FuncCtx(fn, ret, f.source, unit, False, f.name)
            self.ctx.types.append(dict(binding))
            for p, pt, arg in zip(f.params, ptypes, fn.args):
                if p.tspec.ref and not p.tspec.const:
                    sym = LValue(arg, pt, name=f"parameter '{p.name}'")
                else:
                    slot = self.alloca(pt.storage, name=p.name)
                    lv = LValue(slot, pt, name=f"parameter '{p.name}'",
                                const=f"const parameter '{p.name}'" if p.tspec.const else False)
                    x = arg
                    if pt is BOOL:
                        x = self.b.zext(arg, I8)
                    self.b.store(x, slot)
                    sym = lv
                self.declare(p.name, sym, p)
            self.block(f.body, new_scope=False)
            self.finish()
        except KernelError:
            del self.instances[key]
            raise
        finally:
            self.active.pop()
            self.ctx = saved
        return fn, ret

    def call_prelude(self, name: str, args, node) -> Value:
        return self.call_function(prelude_unit(), name, args, node)


class _TypeOnlyCtx:
    """Enough of a FuncCtx to resolve types (a function's return type) outside its body."""

    def __init__(self, types, unit, source):
        self.types = types
        self.unit = unit
        self.source = source


def _deduce(spec: A.TypeSpec, at: KType, tparams, binding) -> bool:
    if spec.kind == "name" and spec.name in tparams:
        prev = binding.get(spec.name)
        if prev is None:
            binding[spec.name] = at
            return True
        return prev is at
    if spec.kind == "complex" and spec.arg.kind == "name" and spec.arg.name in tparams:
        if at.kind != "c":
            # a real argument can still be passed to complex<T> once T is known
            return spec.arg.name in binding
        comp = at.component
        prev = binding.get(spec.arg.name)
        if prev is None:
            binding[spec.arg.name] = comp
            return True
        return prev is comp
    return True
