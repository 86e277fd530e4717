"""How the parser reads a name in an expression: a plain name (its fast path), or a call,
a type (cast), a qualified or template name, a literal word -- decided by the name and the
token after it."""

from __future__ import annotations

import pytest

from rocarray.compiler.lang import parse
from rocarray.compiler.lang import syntax as A


def _expr(src: str, types=frozenset({"T"}), preamble: str = ""):
    block, _ = parse(f"y = {src};", preamble, frozenset(types))
    return block.stmts[0].expr.value


def _shape(e):
    """The node kinds of an expression, as nested tuples."""
    if isinstance(e, A.Name):
        return ("name", e.name)
    if isinstance(e, A.Num):
        return ("num", e.value)
    if isinstance(e, A.Binary):
        return ("bin", e.op, _shape(e.lhs), _shape(e.rhs))
    if isinstance(e, A.Call):
        return ("call", e.name, tuple(_shape(a) for a in e.args), e.targs is not None)
    if isinstance(e, A.Cast):
        return ("cast", e.style, tuple(_shape(a) for a in e.args))
    if isinstance(e, A.Cond):
        return ("cond", _shape(e.cond), _shape(e.a), _shape(e.b))
    return (type(e).__name__,)


@pytest.mark.parametrize("src, shape", [
    ("a", ("name", "a")),
    ("a * b + c", ("bin", "+", ("bin", "*", ("name", "a"), ("name", "b")), ("name", "c"))),
    ("a < b", ("bin", "<", ("name", "a"), ("name", "b"))),
    ("a < b ? a : b", ("cond", ("bin", "<", ("name", "a"), ("name", "b")), ("name", "a"), ("name", "b"))),
    ("sqrt(a)", ("call", "sqrt", (("name", "a"),), False)),
    ("std::abs(a)", ("call", "abs", (("name", "a"),), False)),
    ("::sqrt(a)", ("call", "sqrt", (("name", "a"),), False)),
    ("T(a)", ("cast", "func", (("name", "a"),))),
    ("(T)a", ("cast", "c", (("name", "a"),))),
    ("T{a}", ("cast", "func", (("name", "a"),))),
    ("float(a)", ("cast", "func", (("name", "a"),))),
    ("true", ("num", 1)),
    ("false", ("num", 0)),
])
def test_names_in_expressions(src, shape):
    assert _shape(_expr(src)) == shape


def test_template_name_before_angle_bracket():
    pre = "template <typename U> U twice(U x) { return x + x; }"
    assert _shape(_expr("twice<T>(a)", preamble=pre)) == ("call", "twice", (("name", "a"),), True)
    assert _shape(_expr("b < a", preamble=pre)) == ("bin", "<", ("name", "b"), ("name", "a"))


def test_unsupported_words_still_raise():
    from rocarray.compiler.lang import KernelSyntaxError

    with pytest.raises(KernelSyntaxError, match="nullptr"):
        _expr("nullptr")
