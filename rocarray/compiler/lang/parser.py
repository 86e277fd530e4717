"""Recursive-descent parser of the kernel language (a C/C++ subset) into ``ast`` nodes.

Which identifiers name types must be known while parsing (``(T)x`` versus ``(a) - b``), so
the parse of a snippet depends on the set of type names in scope (typedef keys given by the
caller, preamble typedefs, template parameters); that set is part of the parse cache key.
"""

from __future__ import annotations

from . import syntax as A
from .errors import KernelNameError, KernelSyntaxError
from .lexer import Token, tokenize
from .types import (BOOL, C_TYPE_WORDS, COMPLEX_TEMPLATE_NAMES, FLOAT32, FLOAT64, INT8, INT32,
                    INT64, SIMPLE_TYPE_NAMES, UINT32, UINT64, combine_c_words)

_BINARY_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})

#: Qualifiers and attributes that change nothing for us.
_IGNORED_QUALIFIERS = frozenset({
    "__device__", "__host__", "static", "inline", "__forceinline__", "__inline__",
    "__noinline__", "extern", "register", "__restrict__", "__restrict", "restrict",
    "typename", "mutable", "__align__",
})

#: Words that start a construct we do not support, with a description for the error.
_UNSUPPORTED = {
    "goto": "goto statements", "struct": "structs", "class": "classes", "union": "unions",
    "enum": "enums", "try": "exceptions (try)", "throw": "exceptions (throw)",
    "catch": "exceptions (catch)", "asm": "inline assembly", "__asm__": "inline assembly",
    "new": "'new' expressions", "delete": "'delete' expressions", "this": "'this'",
    "nullptr": "pointers (nullptr)", "NULL": "pointers (NULL)", "operator": "operator overloading",
    "namespace": "namespaces", "__shared__": "shared memory (__shared__)",
    "__global__": "__global__ functions", "reinterpret_cast": "reinterpret_cast",
    "const_cast": "const_cast", "dynamic_cast": "dynamic_cast", "virtual": "virtual functions",
    "friend": "friend declarations", "lambda": "lambdas", "co_await": "coroutines",
    "static_assert": "static_assert", "decltype": "decltype", "alignof": "alignof",
    "__syncthreads": "__syncthreads (block synchronisation)",
}


#: Words ``parse_primary`` must not take for a plain name: literals, casts, the words that
#: start a type, unsupported constructs.
_NOT_PLAIN_NAMES = frozenset({"true", "false", "static_cast", "const", "volatile", "auto",
                              "constexpr", "typename", *_UNSUPPORTED})
#: Tokens after a name that make it more than a plain name (a qualified name, a call, template
#: arguments, a braced conversion).
_NAME_FOLLOWERS = frozenset({"::", "(", "<", "{"})


def _unescape_char(text: str) -> int:
    body = text[1:-1]
    if not body:
        raise ValueError("empty character literal")
    if body[0] != "\\":
        if len(body) != 1:
            raise ValueError("multi-character literal")
        return ord(body)
    esc = body[1:]
    simple = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8,
              "f": 12, "v": 11, "?": 63}
    if esc in simple:
        return simple[esc]
    if esc[:1] == "x":
        return int(esc[1:], 16)
    if esc.isdigit():
        return int(esc, 8)
    raise ValueError(f"unknown escape \\{esc}")


def decode_int(text: str):
    """Value and KType of a C integer literal (C's rules for the type of a literal)."""
    t = text.lower()
    suffix = ""
    while t and t[-1] in "ul":
        suffix = t[-1] + suffix
        t = t[:-1]
    if suffix.count("u") > 1 or suffix.count("l") > 2 or suffix.replace("u", "") not in (
            "", "l", "ll"):
        raise ValueError(f"bad integer suffix in '{text}'")
    if t.startswith("0x"):
        value, decimal = int(t[2:], 16), False
    elif len(t) > 1 and t[0] == "0":
        if any(c in "89" for c in t):
            raise ValueError(f"invalid octal literal '{text}'")
        value, decimal = int(t, 8), False
    else:
        value, decimal = int(t), True
    unsigned = "u" in suffix
    long_ = "l" in suffix
    candidates = []
    if not long_:
        candidates += [INT32] if not unsigned else [UINT32]
        if not decimal and not unsigned:
            candidates.append(UINT32)
    candidates += [INT64] if not unsigned else [UINT64]
    if not decimal or unsigned:
        candidates.append(UINT64)
    for kt in candidates:
        lo = 0 if kt.kind == "u" else -(1 << (kt.bits - 1))
        hi = (1 << kt.bits) - 1 if kt.kind == "u" else (1 << (kt.bits - 1)) - 1
        if lo <= value <= hi:
            return value, kt
    if value < (1 << 64):
        return value, UINT64   # as compilers do, with a warning
    raise ValueError(f"integer literal '{text}' is too large")


def decode_float(text: str):
    t = text.lower()
    if t.endswith("f"):
        return float(t[:-1]), FLOAT32
    if t.endswith("l"):
        return float(t[:-1]), FLOAT64
    return float(t), FLOAT64


class Parser:
    def __init__(self, text: str, where: str, type_names=frozenset(), template_names=frozenset(),
                 macros: dict | None = None):
        self.text = text
        self.where = where
        self.macros = dict(macros) if macros else {}
        self.toks = tokenize(text, where, self.macros)
        self.pos = 0
        self.type_scopes: list[set] = [set(type_names)]
        self.template_names = set(template_names)

    # -- token helpers ------------------------------------------------------------------------

    def peek(self, k: int = 0) -> Token:
        p = self.pos + k
        return self.toks[p] if p < len(self.toks) else self.toks[-1]

    def next(self) -> Token:
        tok = self.toks[self.pos]
        if tok.kind != "eof":
            self.pos += 1
        return tok

    def at(self, value: str) -> bool:
        tok = self.toks[self.pos]
        return tok.value == value and tok.kind in ("op", "id")

    def accept(self, value: str) -> Token | None:
        if self.at(value):
            return self.next()
        return None

    def expect(self, value: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok.value == value and tok.kind in ("op", "id"):
            return self.next()
        found = "end of input" if tok.kind == "eof" else f"'{tok.value}'"
        raise self.error(f"expected '{value}'{' ' + what if what else ''}, found {found}", tok)

    def expect_close_angle(self):
        tok = self.peek()
        if tok.kind == "op" and tok.value == ">>":
            # split '>>' into two '>' (nested template arguments)
            self.toks[self.pos] = Token("op", ">", tok.line, tok.col + 1)
            return tok
        if tok.kind == "op" and tok.value == ">=":
            self.toks[self.pos] = Token("op", "=", tok.line, tok.col + 1)
            return tok
        return self.expect(">")

    def error(self, msg: str, tok: Token | A.Node, cls=KernelSyntaxError):
        return cls(msg, tok.line, tok.col, source=self.text, where=self.where)

    def unsupported(self, what: str, tok: Token):
        return self.error(f"{what} are not supported" if what.endswith("s")
                          else f"{what} is not supported", tok)

    # -- names and types ----------------------------------------------------------------------

    def qualified_at(self, k: int = 0):
        """(name, token count) of an identifier with '::' qualifications at offset k."""
        tok = self.peek(k)
        n = 0
        parts = []
        if tok.kind == "op" and tok.value == "::":
            n = 1
            tok = self.peek(k + 1)
        if tok.kind != "id":
            return None, 0
        parts.append(tok.value)
        n += 1
        while self.peek(k + n).value == "::" and self.peek(k + n).kind == "op" and \
                self.peek(k + n + 1).kind == "id":
            parts.append(self.peek(k + n + 1).value)
            n += 2
        return "::".join(parts), n

    def is_type_name(self, name: str) -> bool:
        if name in SIMPLE_TYPE_NAMES or name in C_TYPE_WORDS or name in COMPLEX_TEMPLATE_NAMES:
            return True
        for scope in reversed(self.type_scopes):
            if name in scope:
                return True
        return False

    def starts_type(self, k: int = 0) -> bool:
        tok = self.peek(k)
        if tok.kind != "id" and not (tok.kind == "op" and tok.value == "::"):
            return False
        if tok.value in ("const", "volatile", "auto", "constexpr", "typename"):
            return True
        name, _ = self.qualified_at(k)
        return name is not None and self.is_type_name(name)

    def parse_type(self, allow_ref: bool = False) -> A.TypeSpec:
        first = self.peek()
        const = False
        while True:
            tok = self.peek()
            if tok.kind == "id" and tok.value in ("const", "volatile", "constexpr"):
                const = const or tok.value != "volatile"
                self.next()
            elif tok.kind == "id" and tok.value in _IGNORED_QUALIFIERS:
                self.next()
            else:
                break
        tok = self.peek()
        if tok.kind == "id" and tok.value == "auto":
            self.next()
            spec = A.TypeSpec("auto", tok.line, tok.col)
        elif tok.kind == "id" and tok.value in C_TYPE_WORDS:
            words = []
            while self.peek().kind == "id" and self.peek().value in C_TYPE_WORDS:
                words.append(self.next().value)
            kt = combine_c_words(words)
            if kt is None:
                raise self.error(f"invalid type '{' '.join(words)}'", tok)
            spec = A.TypeSpec("k", tok.line, tok.col, ktype=kt)
        else:
            name, n = self.qualified_at()
            if name is None:
                found = "end of input" if tok.kind == "eof" else f"'{tok.value}'"
                raise self.error(f"expected a type, found {found}", tok)
            if not self.is_type_name(name):
                raise self.error(f"unknown type name '{name}'", tok, KernelNameError)
            self.pos += n
            if name in COMPLEX_TEMPLATE_NAMES:
                if not self.at("<"):
                    raise self.error(f"'{name}' needs a component type: {name}<float> or "
                                     f"{name}<double>", tok)
                self.next()
                arg = self.parse_type()
                self.expect_close_angle()
                spec = A.TypeSpec("complex", tok.line, tok.col, arg=arg)
            elif name in SIMPLE_TYPE_NAMES:
                spec = A.TypeSpec("k", tok.line, tok.col, ktype=SIMPLE_TYPE_NAMES[name])
            else:
                spec = A.TypeSpec("name", tok.line, tok.col, name=name)
        spec.line, spec.col = first.line, first.col
        while self.peek().kind == "id" and self.peek().value in ("const", "volatile",
                                                                 "__restrict__"):
            if self.next().value == "const":
                const = True
        spec.const = const
        tok = self.peek()
        if tok.kind == "op" and tok.value in ("*", "&&"):
            raise self.error("pointers are not supported" if tok.value == "*"
                             else "rvalue references are not supported", tok)
        if tok.kind == "op" and tok.value == "&":
            if not allow_ref:
                raise self.error("references are not supported here", tok)
            self.next()
            spec.ref = True
        return spec

    # -- top level ----------------------------------------------------------------------------

    def parse_unit(self) -> A.Unit:
        unit = A.Unit()
        unit.source = (self.text, self.where)
        while self.peek().kind != "eof":
            self.parse_toplevel(unit)
        unit.type_names = frozenset(unit.typedefs)
        unit.macros = self.macros
        unit.template_names = frozenset(self.template_names)
        return unit

    def parse_toplevel(self, unit: A.Unit):
        tok = self.peek()
        if tok.kind == "op" and tok.value == ";":
            self.next()
            return
        if tok.kind == "id":
            v = tok.value
            if v == "template":
                return self.parse_template(unit)
            if v == "typedef":
                td = self.parse_typedef()
                unit.typedefs[td.name] = td.tspec
                return
            if v == "using":
                td = self.parse_using()
                if td is not None:
                    unit.typedefs[td.name] = td.tspec
                return
            if v == "extern" and self.peek(1).kind == "str":
                raise self.error("extern \"C\" blocks are not supported", tok)
            if v in _UNSUPPORTED:
                raise self.unsupported(_UNSUPPORTED[v], tok)
        self.parse_function_or_global(unit, [])

    def parse_template(self, unit: A.Unit):
        tok = self.expect("template")
        self.expect("<")
        tparams = []
        while not self.at(">"):
            kw = self.peek()
            if kw.kind == "id" and kw.value in ("typename", "class"):
                self.next()
                name = self.next()
                if name.kind != "id":
                    raise self.error("expected a template parameter name", name)
                if self.at("="):
                    raise self.error("default template arguments are not supported", self.peek())
                tparams.append(name.value)
            else:
                raise self.error("only type template parameters ('typename T') are supported",
                                 kw)
            if not self.accept(","):
                break
        self.expect(">")
        if not tparams:
            raise self.error("template specialisations are not supported", tok)
        self.type_scopes.append(set(tparams))
        try:
            if self.peek().kind == "id" and self.peek().value in ("struct", "class"):
                raise self.unsupported("template structs and classes", self.peek())
            self.parse_function_or_global(unit, tparams, template_tok=tok)
        finally:
            self.type_scopes.pop()

    def parse_typedef(self) -> A.Typedef:
        tok = self.expect("typedef")
        if self.peek().kind == "id" and self.peek().value in ("struct", "union", "enum"):
            raise self.unsupported(_UNSUPPORTED[self.peek().value], self.peek())
        spec = self.parse_type()
        name = self.next()
        if name.kind != "id":
            raise self.error("expected a name in typedef", name)
        if self.at("["):
            raise self.error("array typedefs are not supported", self.peek())
        self.expect(";")
        self.type_scopes[-1].add(name.value)
        return A.Typedef(name.value, spec, tok.line, tok.col)

    def parse_using(self) -> A.Typedef | None:
        tok = self.expect("using")
        if self.accept("namespace"):
            while not self.at(";") and self.peek().kind != "eof":
                self.next()
            self.expect(";")
            return None
        name = self.next()
        if name.kind != "id" or not self.at("="):
            raise self.error("only 'using Name = type;' and 'using namespace ...;' are supported",
                             tok)
        self.next()
        spec = self.parse_type()
        self.expect(";")
        self.type_scopes[-1].add(name.value)
        return A.Typedef(name.value, spec, tok.line, tok.col)

    def parse_function_or_global(self, unit: A.Unit, tparams, template_tok=None):
        start = self.peek()
        is_constant = False
        while self.peek().kind == "id" and self.peek().value in (
                _IGNORED_QUALIFIERS | {"__constant__"}):
            if self.next().value == "__constant__":
                is_constant = True
        tok = self.peek()
        if tok.kind == "id" and tok.value in _UNSUPPORTED:
            raise self.unsupported(_UNSUPPORTED[tok.value], tok)
        if not self.starts_type():
            if tok.kind == "id":
                raise self.error(f"unknown type name '{tok.value}'", tok, KernelNameError)
            raise self.error(f"expected a function or constant definition, found '{tok.value}'",
                             tok)
        spec = self.parse_type(allow_ref=False)
        name_tok = self.peek()
        name, n = self.qualified_at()
        if name is None:
            raise self.error("expected a name after the type", name_tok)
        self.pos += n
        if self.at("("):
            self.parse_function_rest(unit, spec, name, name_tok, tparams, start)
            return
        if tparams:
            raise self.error("template variables are not supported", template_tok)
        # global constants: [const|constexpr|__constant__] T name = init, ...;
        while True:
            if self.at("["):
                raise self.error("global arrays are not supported", self.peek())
            if not (spec.const or is_constant):
                raise self.error(f"global variable '{name}' must be const (mutable globals are "
                                 "not supported)", name_tok)
            if not self.accept("="):
                raise self.error(f"global constant '{name}' needs an initialiser", self.peek())
            init = self.parse_assign()
            g = A.GlobalConst(name, spec, init, name_tok.line, name_tok.col)
            g.source = (self.text, self.where)
            unit.globals[name] = g
            if not self.accept(","):
                break
            name_tok = self.next()
            if name_tok.kind != "id":
                raise self.error("expected a name", name_tok)
            name = name_tok.value
        self.expect(";")

    def parse_function_rest(self, unit, ret, name, name_tok, tparams, start):
        self.expect("(")
        params: list[A.FParam] = []
        if self.at("void") and self.peek(1).value == ")":
            self.next()
        while not self.at(")"):
            if self.at("..."):
                raise self.error("variadic functions are not supported", self.peek())
            pspec = self.parse_type(allow_ref=True)
            ptok = self.peek()
            if ptok.kind == "id":
                pname = self.next().value
            else:
                pname = f"__unnamed{len(params)}"
            if self.at("["):
                raise self.error("array parameters are not supported", self.peek())
            if self.at("="):
                raise self.error("default arguments are not supported", self.peek())
            params.append(A.FParam(pname, pspec, ptok.line, ptok.col))
            if not self.accept(","):
                break
        self.expect(")")
        while self.peek().kind == "id" and self.peek().value in ("const", "noexcept"):
            self.next()
        if self.accept(";"):
            return   # a prototype: the definition must follow
        if not self.at("{"):
            raise self.error(f"expected '{{' to start the body of function '{name}'", self.peek())
        if tparams:
            self.template_names.add(name)
        body = self.parse_block()
        f = A.FuncDef(name, ret, params, body, tuple(tparams), name_tok.line, name_tok.col)
        f.source = (self.text, self.where)
        f.unit = unit
        if name in SIMPLE_TYPE_NAMES or name in C_TYPE_WORDS:
            raise self.error(f"'{name}' is a type name", name_tok)
        unit.funcs.setdefault(name, []).append(f)

    # -- statements ---------------------------------------------------------------------------

    def parse_body(self) -> A.Block:
        first = self.peek()
        stmts = []
        while self.peek().kind != "eof":
            stmts.append(self.parse_statement())
        return A.Block(stmts, first.line, first.col)

    def parse_block(self) -> A.Block:
        tok = self.expect("{")
        stmts = []
        self.type_scopes.append(set())
        try:
            while not self.at("}"):
                if self.peek().kind == "eof":
                    raise self.error("missing '}' (the block opened here is not closed)", tok)
                stmts.append(self.parse_statement())
        finally:
            self.type_scopes.pop()
        self.next()
        return A.Block(stmts, tok.line, tok.col)

    def end_statement(self):
        """';' ending a statement; the last statement of a body may omit it (CuPy adds it)."""
        if self.accept(";"):
            return
        nxt = self.peek()
        if nxt.kind == "eof" or (nxt.kind == "op" and nxt.value == "}"):
            # CuPy appends the ';' after a body: accept its absence before the end of the
            # text or of a block (a body wrapped in braces by a code generator)
            return
        tok = self.peek()
        found = "end of input" if tok.kind == "eof" else f"'{tok.value}'"
        raise self.error(f"expected ';', found {found}", tok)

    def parse_statement(self) -> A.Stmt:
        tok = self.toks[self.pos]  # (= peek(): pos never passes the eof token)
        if tok.kind == "op":
            if tok.value == "{":
                return self.parse_block()
            if tok.value == ";":
                self.next()
                return A.Empty(tok.line, tok.col)
        if tok.kind == "id":
            v = tok.value
            if v == "if":
                self.next()
                self.expect("(", "after 'if'")
                cond = self.parse_condition()
                self.expect(")")
                then = self.parse_statement()
                other = None
                if self.accept("else"):
                    other = self.parse_statement()
                return A.If(cond, then, other, tok.line, tok.col)
            if v == "while":
                self.next()
                self.expect("(", "after 'while'")
                cond = self.parse_condition()
                self.expect(")")
                return A.While(cond, self.parse_statement(), tok.line, tok.col)
            if v == "do":
                self.next()
                body = self.parse_statement()
                self.expect("while", "after the body of 'do'")
                self.expect("(")
                cond = self.parse_expr()
                self.expect(")")
                self.end_statement()
                return A.DoWhile(body, cond, tok.line, tok.col)
            if v == "for":
                return self.parse_for()
            if v == "switch":
                self.next()
                self.expect("(", "after 'switch'")
                expr = self.parse_expr()
                self.expect(")")
                body = self.parse_statement()
                return A.Switch(expr, body, tok.line, tok.col)
            if v == "case":
                self.next()
                value = self.parse_cond()
                self.expect(":")
                return A.Case(value, tok.line, tok.col)
            if v == "default" and self.peek(1).value == ":":
                self.next()
                self.next()
                return A.Case(None, tok.line, tok.col)
            if v == "break":
                self.next()
                self.end_statement()
                return A.Break(tok.line, tok.col)
            if v == "continue":
                self.next()
                self.end_statement()
                return A.Continue(tok.line, tok.col)
            if v == "return":
                self.next()
                value = None
                if not self.at(";") and self.peek().kind != "eof":
                    value = self.parse_expr()
                self.end_statement()
                return A.Return(value, tok.line, tok.col)
            if v == "typedef":
                return self.parse_typedef()
            if v == "using":
                td = self.parse_using()
                return td if td is not None else A.Empty(tok.line, tok.col)
            if v == "template":
                raise self.error("templates can only be defined in the preamble", tok)
            if v in _UNSUPPORTED:
                raise self.unsupported(_UNSUPPORTED[v], tok)
            if v == "else":
                raise self.error("'else' without a matching 'if'", tok)
            if self.peek(1).kind == "op" and self.peek(1).value == ":" and \
                    self.peek(2).value != ":":
                raise self.error("labels (and goto) are not supported", tok)
            if v in _IGNORED_QUALIFIERS or self.starts_type():
                decl = self.try_declaration()
                if decl is not None:
                    self.end_statement()
                    return decl
            elif self.peek(1).kind == "id" and self.peek(2).value in ("=", ";", ",", "[", "("):
                # 'foo x = ...' with foo unknown: a missing type
                raise self.error(f"unknown type name '{v}'", tok, KernelNameError)
        expr = self.parse_expr()
        self.end_statement()
        return A.ExprStmt(expr, tok.line, tok.col)

    def parse_condition(self) -> A.Expr:
        if self.starts_type():
            raise self.error("declarations in conditions are not supported", self.peek())
        return self.parse_expr()

    def parse_for(self) -> A.For:
        tok = self.expect("for")
        self.expect("(", "after 'for'")
        self.type_scopes.append(set())
        try:
            init = None
            if not self.at(";"):
                if self.starts_type():
                    init = self.try_declaration()
                if init is None:
                    e = self.parse_expr()
                    init = A.ExprStmt(e, e.line, e.col)
            self.expect(";", "in 'for'")
            cond = None if self.at(";") else self.parse_expr()
            self.expect(";", "in 'for'")
            step = None if self.at(")") else self.parse_expr()
            self.expect(")")
            body = self.parse_statement()
        finally:
            self.type_scopes.pop()
        return A.For(init, cond, step, body, tok.line, tok.col)

    def try_declaration(self) -> A.Decl | None:
        """Parse a declaration (without its ';'), or return None (position unchanged) when
        the type is followed by something else, e.g. a function-style cast ``float(x)``."""
        save = self.pos
        first = self.peek()
        while self.peek().kind == "id" and self.peek().value in _IGNORED_QUALIFIERS:
            self.next()
        spec = self.parse_type(allow_ref=True)
        tok = self.peek()
        if tok.kind != "id":
            if spec.ref:
                raise self.error("expected a name after '&'", tok)
            self.pos = save
            return None
        items = []
        first_ref = spec.ref
        while True:
            name_tok = self.next()
            if name_tok.kind != "id":
                raise self.error("expected a variable name", name_tok)
            if name_tok.value in _UNSUPPORTED:
                raise self.unsupported(_UNSUPPORTED[name_tok.value], name_tok)
            if name_tok.value in SIMPLE_TYPE_NAMES or name_tok.value in C_TYPE_WORDS:
                raise self.error(f"'{name_tok.value}' is a type name", name_tok)
            size = None
            init = None
            if self.at("["):
                lb = self.next()
                if self.at("]"):
                    size = "infer"
                else:
                    size = self.parse_cond()
                self.expect("]")
                if self.at("["):
                    raise self.error("multi-dimensional local arrays are not supported",
                                     self.peek())
                if first_ref:
                    raise self.error("arrays of references are not supported", lb)
            if self.accept("="):
                if self.at("{"):
                    init = self.parse_init_list()
                else:
                    init = self.parse_assign()
            elif self.at("(") and size is None:
                lp = self.next()
                args = []
                while not self.at(")"):
                    args.append(self.parse_assign())
                    if not self.accept(","):
                        break
                self.expect(")")
                init = A.Cast(spec, args, "ctor", lp.line, lp.col)
            elif self.at("{") and size is None:
                init = self.parse_init_list()
            items.append(A.Declarator(name_tok.value, init, size, first_ref, name_tok.line,
                                      name_tok.col))
            if not self.accept(","):
                break
            first_ref = False
            if self.at("&"):
                self.next()
                first_ref = True
            if self.at("*"):
                raise self.error("pointers are not supported", self.peek())
        return A.Decl(spec, items, first.line, first.col)

    def parse_init_list(self) -> A.InitList:
        tok = self.expect("{")
        items = []
        while not self.at("}"):
            if self.at("{"):
                raise self.error("nested initialiser lists are not supported", self.peek())
            items.append(self.parse_assign())
            if not self.accept(","):
                break
        self.expect("}")
        return A.InitList(items, tok.line, tok.col)

    # -- expressions --------------------------------------------------------------------------

    def parse_expr(self) -> A.Expr:
        first = self.parse_assign()
        if not self.at(","):
            return first
        items = [first]
        while self.accept(","):
            items.append(self.parse_assign())
        return A.Comma(items, first.line, first.col)

    def parse_assign(self) -> A.Expr:
        lhs = self.parse_cond()
        tok = self.toks[self.pos]
        if tok.kind == "op" and tok.value in _ASSIGN_OPS:
            self.next()
            rhs = self.parse_assign()
            return A.Assign(tok.value, lhs, rhs, tok.line, tok.col)
        return lhs

    def parse_cond(self) -> A.Expr:
        cond = self.parse_binary(1)
        tok = self.toks[self.pos]
        if tok.kind == "op" and tok.value == "?":
            self.next()
            a = self.parse_expr()
            self.expect(":", "in conditional expression")
            b = self.parse_assign()
            return A.Cond(cond, a, b, tok.line, tok.col)
        return cond

    def parse_binary(self, min_prec: int) -> A.Expr:
        lhs = self.parse_unary()
        while True:
            tok = self.toks[self.pos]
            if tok.kind != "op":
                return lhs
            prec = _BINARY_PREC.get(tok.value)
            if prec is None or prec < min_prec:
                return lhs
            self.next()
            if tok.value == "*" and self.at("*"):
                raise self.error("'**' is not an operator (use pow(x, y))", tok)
            rhs = self.parse_binary(prec + 1)
            lhs = A.Binary(tok.value, lhs, rhs, tok.line, tok.col)

    def parse_unary(self) -> A.Expr:
        tok = self.toks[self.pos]
        if tok.kind == "op":
            v = tok.value
            if v in ("-", "+", "!", "~"):
                self.next()
                return A.Unary(v, self.parse_unary(), tok.line, tok.col)
            if v in ("++", "--"):
                self.next()
                return A.IncDec(v, True, self.parse_unary(), tok.line, tok.col)
            if v == "*":
                raise self.error("pointers are not supported (unary '*' dereference)", tok)
            if v in ("&", "&&"):
                raise self.error("pointers are not supported (unary '&' address-of)", tok)
            if v == "(" and self.starts_type(1):
                save = self.pos
                self.next()
                spec = self.parse_type()
                if self.at(")"):
                    self.next()
                    operand = self.parse_unary()
                    return A.Cast(spec, [operand], "c", tok.line, tok.col)
                self.pos = save   # '(T(1) - x)': a parenthesised expression
        elif tok.kind == "id" and tok.value == "sizeof":
            self.next()
            if self.at("(") and self.starts_type(1):
                self.next()
                spec = self.parse_type()
                self.expect(")")
                return A.SizeOf(spec, None, tok.line, tok.col)
            return A.SizeOf(None, self.parse_unary(), tok.line, tok.col)
        return self.parse_postfix()

    def parse_args(self) -> list:
        self.expect("(")
        args = []
        while not self.at(")"):
            args.append(self.parse_assign())
            if not self.accept(","):
                break
        self.expect(")", "to close the argument list")
        return args

    def parse_postfix(self) -> A.Expr:
        expr = self.parse_primary()
        while True:
            tok = self.toks[self.pos]
            if tok.kind != "op":
                return expr
            v = tok.value
            if v == "[":
                self.next()
                index = self.parse_expr()
                self.expect("]")
                expr = A.Index(expr, index, tok.line, tok.col)
            elif v == ".":
                self.next()
                name = self.next()
                if name.kind != "id":
                    raise self.error("expected a member name after '.'", name)
                # args None: a field access (only raw arrays' 'ndim' exists)
                args = self.parse_args() if self.at("(") else None
                expr = A.Method(expr, name.value, args, name.line, name.col)
            elif v == "->":
                raise self.error("pointers are not supported ('->')", tok)
            elif v in ("++", "--"):
                self.next()
                expr = A.IncDec(v, False, expr, tok.line, tok.col)
            elif v == "(":
                raise self.error("only named functions can be called", tok)
            else:
                return expr

    def parse_primary(self) -> A.Expr:
        tok = self.toks[self.pos]
        kind = tok.kind
        if kind == "int":
            self.next()
            try:
                value, kt = decode_int(tok.value)
            except ValueError as e:
                raise self.error(str(e), tok) from None
            return A.Num(value, kt, tok.line, tok.col)
        if kind == "float":
            self.next()
            value, kt = decode_float(tok.value)
            return A.Num(value, kt, tok.line, tok.col)
        if kind == "char":
            self.next()
            try:
                value = _unescape_char(tok.value)
            except ValueError as e:
                raise self.error(f"bad character literal: {e}", tok) from None
            if value > 127:
                value -= 256
            return A.Num(value, INT8, tok.line, tok.col)
        if kind == "str":
            raise self.error("string literals are not supported", tok)
        if kind == "eof":
            raise self.error("unexpected end of input (an expression is missing)", tok)
        if kind == "op":
            if tok.value == "(":
                self.next()
                e = self.parse_expr()
                self.expect(")")
                nxt = self.peek()
                if isinstance(e, A.Name) and (nxt.kind in ("id", "int", "float", "char") or
                                              (nxt.kind == "op" and nxt.value in ("(", "!", "~"))):
                    # '(U)x' with U no known type: a cast to an unknown type
                    raise self.error(f"unknown type name '{e.name}'", e, KernelNameError)
                return e
            if tok.value == "[":
                raise self.error("lambdas are not supported", tok)
            if tok.value == "{":
                raise self.error("initialiser lists are only allowed in declarations", tok)
            if not (tok.value == "::" and self.peek(1).kind == "id"):   # '::sqrt(x)'
                raise self.error(f"expected an expression, found '{tok.value}'", tok)
        v = tok.value
        if kind == "id" and v not in _NOT_PLAIN_NAMES:
            # the common case, a plain name (not a call, a type, a qualified or a template
            # name): decided by the next token, where the general path below would look it
            # up again as a qualified name and as a type (the catalogue's bodies are mostly
            # names: parsing ``out0 = in0 * in1;`` 4.5K -> 3.8K Python opcodes)
            nxt = self.toks[self.pos + 1]  # (the last token is eof, and this one is not)
            if not (nxt.kind == "op" and nxt.value in _NAME_FOLLOWERS) and not self.is_type_name(v):
                self.pos += 1
                return A.Name(v, tok.line, tok.col)
        if v in ("true", "false"):
            self.next()
            return A.Num(1 if v == "true" else 0, BOOL, tok.line, tok.col)
        if v == "static_cast":
            self.next()
            self.expect("<")
            spec = self.parse_type()
            self.expect_close_angle()
            args = self.parse_args()
            if len(args) != 1:
                raise self.error("static_cast takes one argument", tok)
            return A.Cast(spec, args, "static", tok.line, tok.col)
        if v in _UNSUPPORTED:
            raise self.unsupported(_UNSUPPORTED[v], tok)
        if self.starts_type():
            spec = self.parse_type()
            if self.at("{"):
                lb = self.next()
                args = []
                while not self.at("}"):
                    args.append(self.parse_assign())
                    if not self.accept(","):
                        break
                self.expect("}")
                return A.Cast(spec, args, "func", lb.line, lb.col)
            if not self.at("("):
                raise self.error(f"type '{spec.text()}' used as a value (expected '(' for a "
                                 "conversion)", self.peek())
            args = self.parse_args()
            return A.Cast(spec, args, "func", tok.line, tok.col)
        name, n = self.qualified_at()
        if name is None:
            raise self.error(f"expected an expression, found '{tok.value}'", tok)
        self.pos += n
        for prefix in ("std::", "thrust::", "cuda::std::", "cuda::"):
            if name.startswith(prefix):
                name = name[len(prefix):]
                break
        targs = None
        if self.at("<") and name in self.template_names:
            self.next()
            targs = []
            while True:
                targs.append(self.parse_type())
                if not self.accept(","):
                    break
            self.expect_close_angle()
            if not self.at("("):
                raise self.error(f"expected '(' after template arguments of '{name}'",
                                 self.peek())
        if self.at("("):
            args = self.parse_args()
            return A.Call(name, args, targs, tok.line, tok.col)
        return A.Name(name, tok.line, tok.col)


def parse_preamble(text: str, type_names: frozenset) -> A.Unit:
    return Parser(text, "preamble", type_names).parse_unit()


def parse_body(text: str, type_names: frozenset, template_names: frozenset,
               macros: dict | None = None) -> A.Block:
    return Parser(text, "body", type_names, template_names, macros).parse_body()
