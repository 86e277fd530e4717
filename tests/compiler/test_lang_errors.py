"""Every kind of kernel-language error: its class, message, line and column."""

import pickle

import numpy as np
import pytest
from llvmlite import ir

try:  # tests/compiler may or may not be a package
    from ._lang_target import TARGET
except ImportError:
    from _lang_target import TARGET
from rocarray.compiler.lang import (KernelError, KernelNameError, KernelSyntaxError,
                                    KernelTypeError, compile_scalar_function)

F32 = np.dtype(np.float32)
PARAMS = [("x", F32, "in"), ("y", F32, "in"), ("z", F32, "out"), ("r", F32, "raw")]


def compile_body(body, params=PARAMS, **kw):
    module = ir.Module()
    kw.setdefault("kernel_name", "squared_diff")
    compile_scalar_function(module, "body", params, body, target=TARGET, **kw)
    return module


def error_of(body, cls=KernelError, **kw):
    with pytest.raises(cls) as e:
        compile_body(body, **kw)
    return e.value


def test_message_format():
    e = error_of("float d = x - y;\nz = d * zz;", KernelNameError)
    assert (e.line, e.column) == (2, 9)
    assert str(e) == ("kernel 'squared_diff', line 2, column 9: unknown identifier 'zz'\n"
                      "    z = d * zz;\n"
                      "            ^")
    assert isinstance(e, NameError) and isinstance(e, ValueError)


def test_error_survives_pickle():
    e = error_of("z = q;", KernelNameError)
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is KernelNameError and str(e2) == str(e) and e2.line == 1


@pytest.mark.parametrize("body,cls,line,col,text", [
    ("z = x +;", KernelSyntaxError, 1, 8, "expected an expression"),
    ("z = (x + y;", KernelSyntaxError, 1, 11, "expected ')'"),
    ("z = x\ny = 2;", KernelSyntaxError, 2, 1, "expected ';'"),
    ("if (x) { z = 1;", KernelSyntaxError, 1, 8, "missing '}'"),
    ("z = x @ y;", KernelSyntaxError, 1, 7, "unexpected character '@'"),
    ("/* open", KernelSyntaxError, 1, 1, "unterminated comment"),
    ("float* p = 0;", KernelSyntaxError, 1, 6, "pointers are not supported"),
    ("z = *x;", KernelSyntaxError, 1, 5, "pointers are not supported (unary '*'"),
    ("z = &x;", KernelSyntaxError, 1, 5, "address-of"),
    ("struct S { int a; };", KernelSyntaxError, 1, 1, "structs are not supported"),
    ("goto end;", KernelSyntaxError, 1, 1, "goto statements are not supported"),
    ("end: z = 1;", KernelSyntaxError, 1, 1, "labels"),
    ("z = new float;", KernelSyntaxError, 1, 5, "'new' expressions"),
    ("z = \"s\";", KernelSyntaxError, 1, 5, "string literals"),
    ("z = x.y;", KernelSyntaxError, 1, 7, "member access '.y'"),
    ("z = x->y;", KernelSyntaxError, 1, 6, "'->'"),
    ("atomicAdd(z, 1);", KernelSyntaxError, 1, 1, "atomic operations are not supported"),
    ("__syncthreads();", KernelSyntaxError, 1, 1, "__syncthreads"),
    ("break;", KernelSyntaxError, 1, 1, "'break' outside a loop"),
    ("continue;", KernelSyntaxError, 1, 1, "'continue' outside a loop"),
    ("case 1: z = 1;", KernelSyntaxError, 1, 1, "'case' label outside a switch"),
    ("#if X > 1\n#endif", KernelSyntaxError, 1, 1, "#if with an expression"),
    ("#error no", KernelSyntaxError, 1, 1, "'#error' is not supported"),
    ("z = 99999999999999999999999;", KernelSyntaxError, 1, 5, "too large"),
    ("float a[2][2];", KernelSyntaxError, 1, 11, "multi-dimensional"),
    ("float q = 1; float q = 2;", KernelSyntaxError, 1, 20, "redeclaration of 'q'"),
    ("float z = 1;", KernelSyntaxError, 1, 7, "a kernel parameter"),
    ("[](){};", KernelSyntaxError, 1, 1, "lambdas"),
    ("z = reinterpret_cast<int>(x);", KernelSyntaxError, 1, 5, "reinterpret_cast"),
    ("z = zz;", KernelNameError, 1, 5, "unknown identifier 'zz'"),
    ("z = foo(x);", KernelNameError, 1, 5, "unknown function 'foo'"),
    ("foo q = 1;", KernelNameError, 1, 1, "unknown type name 'foo'"),
    ("z = (U)x;", KernelNameError, 1, 6, "unknown type name 'U'"),
    ("z = r.length();", KernelNameError, 1, 7, "raw arrays have no method 'length'"),
    ("x = 1;", KernelTypeError, 1, 1, "cannot assign to input parameter 'x'"),
    ("x += 1;", KernelTypeError, 1, 1, "inputs are const"),
    ("x++;", KernelTypeError, 1, 1, "cannot assign to input parameter 'x'"),
    ("i = 3;", KernelTypeError, 1, 1, "the loop index 'i'"),
    ("const int c = 1; c = 2;", KernelTypeError, 1, 18, "const variable 'c'"),
    ("z = x % y;", KernelTypeError, 1, 7, "operator '%' needs integer operands"),
    ("z = ~x;", KernelTypeError, 1, 5, "operator '~' needs an integer operand"),
    ("z = x << 1;", KernelTypeError, 1, 7, "operator '<<' needs integer operands"),
    ("z = y[0];", KernelTypeError, 1, 5, "'y' is not an array"),
    ("z = r;", KernelTypeError, 1, 5, "raw parameter 'r' used as a value"),
    ("z = r[1.5];", KernelTypeError, 1, 7, "an index must be an integer"),
    ("z = sqrt(x, y);", KernelTypeError, 1, 5, "sqrt() takes 1 argument"),
    ("return 1;", KernelTypeError, 1, 1, "'return' with a value in the kernel body"),
    ("z = 1 = 2;", KernelTypeError, 1, 5, "expression is not assignable"),
    ("z = (x + y)++;", KernelTypeError, 1, 12, "expression is not assignable"),
    ("z = sqrt;", KernelTypeError, 1, 5, "function 'sqrt' used as a value"),
    ("bool b = true; b++;", KernelTypeError, 1, 17, "operator '++' cannot take a bool"),
    ("auto q;", KernelSyntaxError, 1, 6, "'auto' variable 'q' needs an initialiser"),
    ("int a[0];", KernelTypeError, 1, 7, "array size 0 is out of range"),
    ("int n = 2; int a[n];", KernelTypeError, 1, 18, "integer constant expression"),
])
def test_errors(body, cls, line, col, text):
    e = error_of(body, cls)
    assert text in str(e), str(e)
    assert (e.line, e.column) == (line, col), str(e)
    assert str(e).startswith(f"kernel 'squared_diff', line {line}, column {col}: ")


@pytest.mark.parametrize("preamble,body,cls,where_line,col,text", [
    ("float f(float a) {\n  return a + qq;\n}", "z = f(x);", KernelNameError, 2, 14,
     "unknown identifier 'qq'"),
    ("int f(int n) { return n > 0 ? f(n - 1) : 0; }", "z = f(1);", KernelSyntaxError, 1, 31,
     "recursive call of 'f'"),
    ("template <int N> float f(float a) { return a; }", "z = f(x);", KernelSyntaxError, 1, 11,
     "only type template parameters"),
    ("float g = 2;", "z = g;", KernelSyntaxError, 1, 7, "must be const"),
    ("void f(float& a) { a = 1; }", "f(x);", KernelTypeError, 1, 1,
     "needs a variable"),
    ("void f(float a) { return a; }", "f(x);", KernelTypeError, 1, 19,
     "'return' with a value in void function 'f'"),
    ("float f(float a) { return; }", "z = f(x);", KernelTypeError, 1, 20,
     "'return' without a value"),
    ("float f(float a) { return a; }", "z = f(x, y);", KernelTypeError, 1, 5,
     "'f' takes 1 arguments, 2 given"),
    ("template <typename T> T f(T a, T b) { return a; }", "z = f(x, 1.0);", KernelTypeError,
     1, 5, "cannot deduce template parameters of 'f'"),
    ("float f(double a) { return a; }\nfloat f(float a) { return a; }", "z = f(1);",
     KernelTypeError, 1, 5, "ambiguous"),
    ("struct P { float a; };", "z = x;", KernelSyntaxError, 1, 1, "structs"),
    ("#define F(a, b) a\n", "z = F(x);", KernelSyntaxError, 1, 5,
     "macro 'F' takes 2 arguments"),
])
def test_preamble_errors(preamble, body, cls, where_line, col, text):
    e = error_of(body, cls, preamble=preamble)
    assert text in str(e), str(e)
    assert (e.line, e.column) == (where_line, col), str(e)


def test_preamble_error_points_into_the_preamble():
    e = error_of("z = f(x);", KernelNameError, preamble="float f(float a) {\n  return a + qq;\n}")
    assert e.where == "preamble"
    assert str(e).startswith("kernel 'squared_diff', preamble line 2, column 14: ")
    assert "return a + qq;" in str(e)


def test_param_errors():
    e = error_of("z = 1;", KernelTypeError, params=[("x", np.dtype(np.float32), "bogus")])
    assert "kind must be one of" in str(e)
    e = error_of("z = 1;", KernelTypeError, params=[("x", np.dtype("M8[s]"), "in")])
    assert "not supported" in str(e)


def test_failed_compile_leaves_module_clean():
    module = ir.Module()
    compile_scalar_function(module, "ok", PARAMS, "z = exp(x);", target=TARGET)
    before = set(module.globals)
    with pytest.raises(KernelNameError):
        compile_scalar_function(module, "bad", [("x", np.dtype(np.complex64), "in"),
                                                ("z", np.dtype(np.complex64), "out")],
                                "z = sqrt(x) + exp(x) + nope;", target=TARGET)
    assert set(module.globals) == before
    str(module)   # still printable
    # the name can be used again
    compile_scalar_function(module, "bad", PARAMS, "z = x;", target=TARGET)
