"""Syntax tree of the kernel language.  Nodes carry the line and column they start at."""

from __future__ import annotations


class Node:
    __slots__ = ("line", "col")


# -- types ------------------------------------------------------------------------------------


class TypeSpec(Node):
    """A type as written.  kind: 'k' (a fixed KType in ``ktype``), 'name' (a typedef, template
    parameter or placeholder in ``name``, resolved when lowering), 'complex' (complex of
    ``arg``), 'auto'."""

    __slots__ = ("kind", "ktype", "name", "arg", "const", "ref")

    def __init__(self, kind, line, col, *, ktype=None, name=None, arg=None):
        self.kind = kind
        self.ktype = ktype
        self.name = name
        self.arg = arg
        self.const = False
        self.ref = False
        self.line = line
        self.col = col

    def text(self) -> str:
        if self.kind == "k":
            return self.ktype.name
        if self.kind == "name":
            return self.name
        if self.kind == "complex":
            return f"complex<{self.arg.text()}>"
        return "auto"


# -- expressions ------------------------------------------------------------------------------


class Expr(Node):
    __slots__ = ()


class Num(Expr):
    __slots__ = ("value", "ktype")

    def __init__(self, value, ktype, line, col):
        self.value, self.ktype, self.line, self.col = value, ktype, line, col


class Name(Expr):
    __slots__ = ("name",)

    def __init__(self, name, line, col):
        self.name, self.line, self.col = name, line, col


class Unary(Expr):
    __slots__ = ("op", "operand")

    def __init__(self, op, operand, line, col):
        self.op, self.operand, self.line, self.col = op, operand, line, col


class IncDec(Expr):
    __slots__ = ("op", "prefix", "operand")

    def __init__(self, op, prefix, operand, line, col):
        self.op, self.prefix, self.operand, self.line, self.col = op, prefix, operand, line, col


class Binary(Expr):
    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, op, lhs, rhs, line, col):
        self.op, self.lhs, self.rhs, self.line, self.col = op, lhs, rhs, line, col


class Assign(Expr):
    __slots__ = ("op", "target", "value")

    def __init__(self, op, target, value, line, col):
        self.op, self.target, self.value, self.line, self.col = op, target, value, line, col


class Cond(Expr):
    __slots__ = ("cond", "a", "b")

    def __init__(self, cond, a, b, line, col):
        self.cond, self.a, self.b, self.line, self.col = cond, a, b, line, col


class Comma(Expr):
    __slots__ = ("items",)

    def __init__(self, items, line, col):
        self.items, self.line, self.col = items, line, col


class Cast(Expr):
    """``(T)x``, ``T(x)``, ``static_cast<T>(x)``, ``complex<float>(re, im)``."""

    __slots__ = ("tspec", "args", "style")

    def __init__(self, tspec, args, style, line, col):
        self.tspec, self.args, self.style, self.line, self.col = tspec, args, style, line, col


class Call(Expr):
    __slots__ = ("name", "args", "targs")

    def __init__(self, name, args, targs, line, col):
        self.name, self.args, self.targs, self.line, self.col = name, args, targs, line, col


class Method(Expr):
    __slots__ = ("obj", "name", "args")

    def __init__(self, obj, name, args, line, col):
        self.obj, self.name, self.args, self.line, self.col = obj, name, args, line, col


class Index(Expr):
    __slots__ = ("base", "index")

    def __init__(self, base, index, line, col):
        self.base, self.index, self.line, self.col = base, index, line, col


class SizeOf(Expr):
    __slots__ = ("tspec", "expr")

    def __init__(self, tspec, expr, line, col):
        self.tspec, self.expr, self.line, self.col = tspec, expr, line, col


class InitList(Expr):
    __slots__ = ("items",)

    def __init__(self, items, line, col):
        self.items, self.line, self.col = items, line, col


# -- statements -------------------------------------------------------------------------------


class Stmt(Node):
    __slots__ = ()


class Declarator(Node):
    __slots__ = ("name", "init", "size", "ref")

    def __init__(self, name, init, size, ref, line, col):
        self.name, self.init, self.size, self.ref, self.line, self.col = \
            name, init, size, ref, line, col


class Decl(Stmt):
    __slots__ = ("tspec", "items")

    def __init__(self, tspec, items, line, col):
        self.tspec, self.items, self.line, self.col = tspec, items, line, col


class Typedef(Stmt):
    __slots__ = ("name", "tspec")

    def __init__(self, name, tspec, line, col):
        self.name, self.tspec, self.line, self.col = name, tspec, line, col


class ExprStmt(Stmt):
    __slots__ = ("expr",)

    def __init__(self, expr, line, col):
        self.expr, self.line, self.col = expr, line, col


class Block(Stmt):
    __slots__ = ("stmts",)

    def __init__(self, stmts, line, col):
        self.stmts, self.line, self.col = stmts, line, col


class If(Stmt):
    __slots__ = ("cond", "then", "other")

    def __init__(self, cond, then, other, line, col):
        self.cond, self.then, self.other, self.line, self.col = cond, then, other, line, col


class For(Stmt):
    __slots__ = ("init", "cond", "step", "body")

    def __init__(self, init, cond, step, body, line, col):
        self.init, self.cond, self.step, self.body, self.line, self.col = \
            init, cond, step, body, line, col


class While(Stmt):
    __slots__ = ("cond", "body")

    def __init__(self, cond, body, line, col):
        self.cond, self.body, self.line, self.col = cond, body, line, col


class DoWhile(Stmt):
    __slots__ = ("body", "cond")

    def __init__(self, body, cond, line, col):
        self.body, self.cond, self.line, self.col = body, cond, line, col


class Switch(Stmt):
    __slots__ = ("expr", "body")

    def __init__(self, expr, body, line, col):
        self.expr, self.body, self.line, self.col = expr, body, line, col


class Case(Stmt):
    """``case value:`` (value None: ``default:``), a label inside a switch body."""

    __slots__ = ("value",)

    def __init__(self, value, line, col):
        self.value, self.line, self.col = value, line, col


class Break(Stmt):
    __slots__ = ()

    def __init__(self, line, col):
        self.line, self.col = line, col


class Continue(Stmt):
    __slots__ = ()

    def __init__(self, line, col):
        self.line, self.col = line, col


class Return(Stmt):
    __slots__ = ("value",)

    def __init__(self, value, line, col):
        self.value, self.line, self.col = value, line, col


class Empty(Stmt):
    __slots__ = ()

    def __init__(self, line, col):
        self.line, self.col = line, col


# -- top level --------------------------------------------------------------------------------


class FParam(Node):
    __slots__ = ("name", "tspec")

    def __init__(self, name, tspec, line, col):
        self.name, self.tspec, self.line, self.col = name, tspec, line, col


class FuncDef(Node):
    __slots__ = ("name", "ret", "params", "body", "tparams", "source", "unit")

    def __init__(self, name, ret, params, body, tparams, line, col):
        self.name, self.ret, self.params, self.body, self.tparams = \
            name, ret, params, body, tparams
        self.line, self.col = line, col
        self.source = None   # (text, where) for error messages, set by the parser
        self.unit = None     # the Unit defining it (its typedefs, globals, other functions)


class GlobalConst(Node):
    __slots__ = ("name", "tspec", "init", "source")

    def __init__(self, name, tspec, init, line, col):
        self.name, self.tspec, self.init, self.line, self.col = name, tspec, init, line, col
        self.source = None


class Unit:
    """A parsed preamble: functions by name (overloads), const globals, typedefs."""

    __slots__ = ("funcs", "globals", "typedefs", "type_names", "template_names", "source",
                 "is_prelude", "macros")

    def __init__(self):
        self.funcs: dict[str, list[FuncDef]] = {}
        self.globals: dict[str, GlobalConst] = {}
        self.typedefs: dict[str, TypeSpec] = {}
        self.type_names: frozenset = frozenset()
        self.template_names: frozenset = frozenset()
        self.source = ("", "preamble")
        self.is_prelude = False
        self.macros: dict = {}   # #defines of the preamble, which the body sees too
