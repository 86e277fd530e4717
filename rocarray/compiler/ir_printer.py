"""``module_text``: llvmlite's IR text of a module, printed faster for the common instructions.

llvmlite's printer formats each value through several layers and exceptions; a quick-tier
compile prints one small module, so the printing is a visible part of a first call.
"""

from __future__ import annotations

from llvmlite import ir


def module_text(module: ir.Module, fn: ir.Function) -> str:
    """``str(module)``, the same text, with function ``fn``'s instructions written by
    the printers below (llvmlite's printing raises and catches two exceptions per value
    printed the first time and formats through several layers: about as slow as building
    the module)."""
    if module.namedmetadata or module.metadata or getattr(fn, "metadata", None):
        return str(module)
    lines = ['; ModuleID = "%s"' % (module.name,), 'target triple = "%s"' % (module.triple,),
             'target datalayout = "%s"' % (module.data_layout,), '']
    lines += [t.get_declaration() for t in module.get_identified_types().values()]
    for g in module.globals.values():
        if g is not fn:
            lines.append(str(g))
            continue
        buf = [_prototype(fn), "{\n"]
        for blk in fn.blocks:
            buf.append(blk._format_name() + ":\n")
            for ins in blk.instructions:
                printer = _PRINTERS.get(type(ins)) if not ins.metadata else None
                if printer is None:
                    buf.append(f"  {ins}\n")
                elif isinstance(ins.type, ir.VoidType):
                    buf.append(f"  {printer(ins)}\n")
                else:
                    buf.append(f"  {_ref(ins)} = {printer(ins)}\n")
        buf.append("}\n")
        lines.append("".join(buf))
    return "\n".join(lines)


def _prototype(fn: ir.Function) -> str:
    """The first line of llvmlite's text of function definition ``fn`` (no metadata)."""
    args = []
    for a in fn.args:
        attrs = a.attributes._to_list(a.type)
        args.append(f"{a.type} {' '.join(attrs)} {_ref(a)}" if attrs else f"{a.type} {_ref(a)}")
    args = ", ".join(args)
    if fn.ftype.var_arg:
        args += ", ..." if fn.args else "..."
    attrs = " " + " ".join(fn.attributes._to_list(fn.ftype.return_type)) if fn.attributes else ""
    prefix = " ".join([str(x) for x in ("define", fn.linkage, fn.calling_convention, fn.return_value) if x])
    section = f' section "{fn.section}"' if fn.section else ""
    return f"{prefix} {_ref(fn)}({args}){attrs}{section}\n"


def _ref(v) -> str:
    """``v.get_reference()``: a named value's is written here (llvmlite computes it through
    a caught AttributeError the first time), anything else is llvmlite's."""
    name = getattr(v, "_name", None)
    if name is None or "\\" in name or '"' in name:
        return v.get_reference()
    return f'{v.name_prefix}"{name}"'


def _op_text(ins) -> str:
    flags = ins.flags
    ops = ", ".join([_ref(op) for op in ins.operands])
    return f"{' '.join([ins.opname] + flags) if flags else ins.opname} {ins.type} {ops}"


def _cast_text(ins) -> str:
    op = ins.operands[0]
    return f"{ins.opname} {op.type} {_ref(op)} to {ins.type}"


def _load_text(ins) -> str:
    (val,) = ins.operands
    align = "" if ins.align is None else f", align {ins.align}"
    return f"load {ins.type}, {val.type} {_ref(val)}{align}"


def _store_text(ins) -> str:
    val, ptr = ins.operands
    align = "" if ins.align is None else f", align {ins.align}"
    return f"store {val.type} {_ref(val)}, {ptr.type} {_ref(ptr)}{align}"


def _terminator_text(ins) -> str:
    ops = ", ".join([f"{op.type} {_ref(op)}" for op in ins.operands])
    return f"{ins.opname} {ops}".rstrip()


def _ret_text(ins) -> str:
    rv = ins.return_value
    return ins.opname if rv is None else f"{ins.opname} {rv.type} {_ref(rv)}"


def _compare_text(ins) -> str:
    a, b = ins.operands
    flags = "".join([" " + f for f in ins.flags])
    return f"{ins.opname}{flags} {ins.op} {a.type} {_ref(a)}, {_ref(b)}"


def _select_text(ins) -> str:
    c, x, y = ins.cond, ins.lhs, ins.rhs
    return (f"select {' '.join(ins.flags)} {c.type} {_ref(c)}, {x.type} {_ref(x)}, {y.type} "
            f"{_ref(y)}")


def _phi_text(ins) -> str:
    incs = ", ".join([f"[{_ref(v)}, {_ref(b)}]" for v, b in ins.incomings])
    return f"phi {' '.join(ins.flags)} {ins.type} {incs}".rstrip()


#: instruction class -> its text without the result name, as llvmlite writes it (the
#: classes of the catalogue's bodies; any other is printed by llvmlite)
_PRINTERS = {
    ir.instructions.Instruction: _op_text,
    ir.instructions.CastInstr: _cast_text,
    ir.instructions.LoadInstr: _load_text,
    ir.instructions.StoreInstr: _store_text,
    ir.instructions.Branch: _terminator_text,
    ir.instructions.ConditionalBranch: _terminator_text,
    ir.instructions.Ret: _ret_text,
    ir.instructions.ICMPInstr: _compare_text,
    ir.instructions.FCMPInstr: _compare_text,
    ir.instructions.SelectInstr: _select_text,
    ir.instructions.PhiInstr: _phi_text,
}
