"""Tokens of the kernel language, with a small C preprocessor (#define, #ifdef, #include).

One compiled pattern splits the text; the caller caches whole parses, so this runs once per
distinct snippet.
"""

from __future__ import annotations

import re

from .errors import KernelSyntaxError


class Token:
    __slots__ = ("kind", "value", "line", "col")

    def __init__(self, kind: str, value, line: int, col: int):
        self.kind = kind      # 'id', 'int', 'float', 'char', 'str', 'op', 'eof'
        self.value = value    # text (numbers keep their text; the parser decodes them)
        self.line = line
        self.col = col

    def at(self, line: int, col: int) -> "Token":
        return Token(self.kind, self.value, line, col)

    def __repr__(self):
        return f"Token({self.kind}, {self.value!r}, {self.line}:{self.col})"


_OPS = ["<<=", ">>=", "...", "->", "::", "++", "--", "&&", "||", "<=", ">=", "==", "!=",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>",
        "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ";",
        ",", ".", "(", ")", "[", "]", "{", "}", "#"]

_PATTERN = re.compile(r"""
    (?P<nl>\r\n|\n|\r)
  | (?P<ws>[ \t\f\v]+|\\\r?\n)
  | (?P<lcomment>//[^\n\r]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<badcomment>/\*)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?)
  | (?P<int>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<char>'(?:\\.|[^\\'\n])*')
  | (?P<str>"(?:\\.|[^\\"\n])*")
  | (?P<op>""" + "|".join(re.escape(o) for o in _OPS) + r""")
""", re.VERBOSE | re.DOTALL)


def tokenize(text: str, where: str = "body", macros: dict | None = None) -> list[Token]:
    """Split ``text`` into tokens (comments and whitespace dropped), then run the
    preprocessor directives.  The last token has kind 'eof'.

    ``macros`` (name -> macro) are the macros defined before this text (a preamble's, for
    the body); the dict is updated with this text's #define / #undef."""
    toks: list[Token] = []
    pos = 0
    line = 1
    line_start = 0
    n = len(text)
    match = _PATTERN.match
    at_line_start = True   # only whitespace seen since the last newline (for '#')
    directives: list[tuple[int, list[Token]]] = []   # (index in toks, directive tokens)
    directive: list[Token] | None = None
    while pos < n:
        m = match(text, pos)
        if m is None:
            ch = text[pos]
            raise KernelSyntaxError(f"unexpected character {ch!r}", line, pos - line_start + 1,
                                    source=text, where=where)
        kind = m.lastgroup
        end = m.end()
        # (spaces and newlines first, the most frequent matches; no text copied for them)
        if kind == "ws":
            if text[pos] == "\\":
                line += 1
                line_start = end
            pos = end
            continue
        if kind == "nl":
            line += 1
            pos = line_start = end
            at_line_start = True
            if directive is not None:
                directives.append((len(toks), directive))
                directive = None
            continue
        value = m.group()
        col = pos - line_start + 1
        pos = end
        if kind == "lcomment":
            continue
        if kind == "bcomment":
            nls = value.count("\n")
            if nls:
                line += nls
                line_start = m.start() + value.rfind("\n") + 1
            continue
        if kind == "badcomment":
            raise KernelSyntaxError("unterminated comment '/*'", line, col, source=text,
                                    where=where)
        tok = Token(kind, value, line, col)
        if directive is not None:
            directive.append(tok)
            continue
        if kind == "op" and value == "#":
            if not at_line_start:
                raise KernelSyntaxError("'#' is only allowed at the start of a line "
                                        "(stringizing is not supported)", line, col,
                                        source=text, where=where)
            directive = [tok]
            continue
        at_line_start = False
        toks.append(tok)
    if directive is not None:
        directives.append((len(toks), directive))
    eof = Token("eof", "", line, pos - line_start + 1)
    if directives or macros:
        toks = _preprocess(toks, directives, text, where, {} if macros is None else macros)
    toks.append(eof)
    return toks


# -- preprocessor -----------------------------------------------------------------------------


class _Macro:
    __slots__ = ("name", "params", "body")

    def __init__(self, name, params, body):
        self.name = name
        self.params = params   # None for object-like macros
        self.body = body


def _preprocess(toks: list[Token], directives, text: str, where: str,
                macros: dict) -> list[Token]:
    def err(msg, tok):
        return KernelSyntaxError(msg, tok.line, tok.col, source=text, where=where)

    out: list[Token] = []
    # stack of (this branch active, some branch taken, parent active)
    cond: list[list[bool]] = []
    active = True
    pending = toks
    # Split the token stream at directive positions and interpret them in order.
    start = 0
    for index, dtoks in directives:
        segment = pending[start:index]
        start = index
        if active:
            out.extend(_expand(segment, macros, err))
        hash_tok = dtoks[0]
        if len(dtoks) < 2 or dtoks[1].kind != "id":
            if len(dtoks) == 1:
                continue   # a lone '#' is a null directive
            raise err("malformed preprocessor directive", hash_tok)
        name = dtoks[1].value
        args = dtoks[2:]
        if name in ("ifdef", "ifndef"):
            if len(args) != 1 or args[0].kind != "id":
                raise err(f"#{name} needs one macro name", hash_tok)
            defined = args[0].value in macros
            take = defined if name == "ifdef" else not defined
            cond.append([active and take, take, active])
            active = active and take
            continue
        if name == "if":
            if len(args) == 1 and args[0].kind == "int" and args[0].value in ("0", "1"):
                take = args[0].value == "1"
                cond.append([active and take, take, active])
                active = active and take
                continue
            raise err("#if with an expression is not supported (use #ifdef / #ifndef, "
                      "#if 0 or #if 1)", hash_tok)
        if name == "else":
            if not cond:
                raise err("#else without #if", hash_tok)
            top = cond[-1]
            take = not top[1]
            top[0] = top[2] and take
            top[1] = True
            active = top[0]
            continue
        if name == "endif":
            if not cond:
                raise err("#endif without #if", hash_tok)
            top = cond.pop()
            active = top[2]
            continue
        if not active:
            continue
        if name == "define":
            if not args or args[0].kind != "id":
                raise err("#define needs a macro name", hash_tok)
            mname = args[0].value
            rest = args[1:]
            params = None
            # function-like only when '(' follows the name without a space
            if rest and rest[0].value == "(" and rest[0].kind == "op" and \
                    rest[0].line == args[0].line and rest[0].col == args[0].col + len(mname):
                params = []
                k = 1
                while True:
                    if k >= len(rest):
                        raise err(f"unterminated parameter list of macro '{mname}'", hash_tok)
                    t = rest[k]
                    if t.value == ")":
                        k += 1
                        break
                    if t.kind == "id":
                        params.append(t.value)
                        k += 1
                        if k < len(rest) and rest[k].value == ",":
                            k += 1
                        continue
                    if t.value == "...":
                        raise err("variadic macros are not supported", t)
                    raise err(f"bad parameter list of macro '{mname}'", t)
                rest = rest[k:]
            for t in rest:
                if t.value == "#" and t.kind == "op":
                    raise err("'#' and '##' in macros are not supported", t)
            macros[mname] = _Macro(mname, params, rest)
            continue
        if name == "undef":
            if len(args) != 1 or args[0].kind != "id":
                raise err("#undef needs one macro name", hash_tok)
            macros.pop(args[0].value, None)
            continue
        if name in ("include", "pragma"):
            continue   # headers of CUDA/CuPy are built in; pragmas are hints
        raise err(f"preprocessor directive '#{name}' is not supported", hash_tok)
    if cond:
        raise err("#if/#ifdef without #endif", directives[-1][1][0])
    out.extend(_expand(pending[start:], macros, err))
    return out


def _expand(tokens: list[Token], macros: dict, err, disabled: frozenset = frozenset(),
            site: Token | None = None) -> list[Token]:
    if not macros:
        return tokens
    out: list[Token] = []
    k = 0
    n = len(tokens)
    while k < n:
        t = tokens[k]
        m = macros.get(t.value) if t.kind == "id" else None
        if m is None or m.name in disabled:
            out.append(t if site is None else t.at(site.line, site.col))
            k += 1
            continue
        where = site or t
        if m.params is None:
            out.extend(_expand(m.body, macros, err, disabled | {m.name}, where))
            k += 1
            continue
        if k + 1 >= n or tokens[k + 1].value != "(":
            out.append(t if site is None else t.at(site.line, site.col))
            k += 1
            continue
        # collect arguments
        depth = 0
        args: list[list[Token]] = [[]]
        j = k + 2
        while True:
            if j >= n:
                raise err(f"unterminated call of macro '{m.name}'", t)
            a = tokens[j]
            if a.value in ("(", "[", "{") and a.kind == "op":
                depth += 1
            elif a.value in (")", "]", "}") and a.kind == "op":
                if depth == 0 and a.value == ")":
                    break
                depth -= 1
            elif a.value == "," and a.kind == "op" and depth == 0:
                args.append([])
                j += 1
                continue
            args[-1].append(a)
            j += 1
        if len(args) == 1 and not args[0] and not m.params:
            args = []
        if len(args) != len(m.params):
            raise err(f"macro '{m.name}' takes {len(m.params)} arguments, {len(args)} given", t)
        binding = {p: _expand(a, macros, err, disabled, None) for p, a in zip(m.params, args)}
        body: list[Token] = []
        for b in m.body:
            if b.kind == "id" and b.value in binding:
                body.extend(binding[b.value])
            else:
                body.append(b)
        out.extend(_expand(body, macros, err, disabled | {m.name}, where))
        k = j + 1
    return out
