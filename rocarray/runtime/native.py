"""Native built-ins: Python built-in functions made from LLVM IR, for the launches' C calls.

A warm launch from Python ends in one C call -- the driver's ``cuLaunchKernel`` (or HIP's
``hipModuleLaunchKernel``, the same signature), or a host kernel's entry.  Through the
vendor bindings or ctypes that call costs more Python-side work than the rest of the warm
path (cuda-bindings convert eleven arguments and make a ``CUstream`` per call; ctypes
converts each argument through libffi), so the last step is a *built-in function*: a
``PyMethodDef`` whose C function is code rocarray compiles itself, with the host target,
from the IR text below, called through CPython's ``METH_FASTCALL`` convention (no argument
tuple, no libffi; measured faster than both, see benchmarks/results/history/benchmarks.md).  Each function reads
its integer arguments with ``PyLong_AsUnsignedLongLong`` (a wrong type or a negative value
raises as that function does: ``TypeError`` / ``OverflowError``), and the C function to
call comes from the built-in's ``self`` (a Python ``int``), so one compiled module serves
every driver and every kernel:

* ``launch(function, grid, block, shared, stream, extra) -> int``: calls the function at
  ``self`` as ``cuLaunchKernel(function, grid, 1, 1, block, 1, 1, shared, stream, NULL,
  extra)`` with the GIL released and returns its error code (0: queued).
* ``call(args, start, stop)`` / ``call_nogil(...)``: calls the host kernel entry at
  ``self`` as ``void f(ptr args, i64 start, i64 stop)`` (the host kernel ABI), keeping or
  releasing the GIL; ``args`` is an address (``int``) or a ``bytes`` object whose data the
  kernel reads.

The module is compiled once per machine and kept in the disk cache as a host image
(relocated at load with the addresses of the CPython functions it calls).  Where any
part is missing -- no ``ctypes.pythonapi`` (PyPy), a loader that cannot place the
code -- ``unavailable_reason()`` says why and callers fall back to ctypes or the bindings.
"""

from __future__ import annotations

import ctypes
import sys
import threading

from .hostload import register_symbols

#: CPython's ``METH_FASTCALL`` flag: ``PyObject *f(PyObject *self, PyObject *const *args,
#: Py_ssize_t nargs)``
METH_FASTCALL = 0x0080

#: The C functions of the CPython API the module calls (resolved in this process at load).
_PYTHON_API = ("PyLong_AsUnsignedLongLong", "PyLong_AsVoidPtr", "PyLong_FromLong", "PyErr_Occurred",
               "PyErr_Clear", "PyBytes_AsString", "PyEval_SaveThread", "PyEval_RestoreThread",
               "PyErr_BadArgument", "Py_IncRef")

_IR = r"""
; rocarray.runtime.native: built-in functions (METH_FASTCALL) over C calls (nounwind: no
; unwind tables, so that rocarray's own loader places the code, which takes code and constants)
declare i64 @PyLong_AsUnsignedLongLong(ptr)
declare ptr @PyLong_AsVoidPtr(ptr)
declare ptr @PyLong_FromLong(i64)
declare ptr @PyErr_Occurred()
declare void @PyErr_Clear()
declare ptr @PyBytes_AsString(ptr)
declare ptr @PyEval_SaveThread()
declare void @PyEval_RestoreThread(ptr)
declare ptr @PyErr_BadArgument()
declare void @Py_IncRef(ptr)
@_Py_NoneStruct = external global i8

; the %n arguments at %args as unsigned 64-bit integers, into %out: false (an exception
; set) when one is not such an integer
define internal i1 @rk.words(ptr %args, i64 %n, ptr %out) nounwind {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %ok ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %at = getelementptr ptr, ptr %args, i64 %i
  %obj = load ptr, ptr %at
  %v = call i64 @PyLong_AsUnsignedLongLong(ptr %obj)
  %to = getelementptr i64, ptr %out, i64 %i
  store i64 %v, ptr %to
  %maybe = icmp eq i64 %v, -1
  br i1 %maybe, label %check, label %ok
check:
  %err = call ptr @PyErr_Occurred()
  %raised = icmp ne ptr %err, null
  br i1 %raised, label %fail, label %ok
ok:
  %next = add i64 %i, 1
  br label %loop
fail:
  ret i1 false
done:
  ret i1 true
}

; the address in the argument at %args -- an int, or the data of a bytes object -- into
; %out; false (an exception set) when it is neither
define internal i1 @rk.address(ptr %args, ptr %out) nounwind {
entry:
  %int = call i1 @rk.words(ptr %args, i64 1, ptr %out)
  br i1 %int, label %done, label %bytes
bytes:
  call void @PyErr_Clear()
  %obj = load ptr, ptr %args
  %data = call ptr @PyBytes_AsString(ptr %obj)
  store ptr %data, ptr %out
  %found = icmp ne ptr %data, null
  ret i1 %found
done:
  ret i1 true
}

; every built-in's start: the C function at %self (an int), with the arguments from %first on
; read as integers into the same words of %words; null (an exception set) when %nargs is not
; %expected (a TypeError) or one of those arguments is no such integer
define internal ptr @rk.begin(ptr %self, ptr %args, i64 %nargs, i64 %expected, i64 %first,
                              ptr %words) nounwind {
entry:
  %right = icmp eq i64 %nargs, %expected
  br i1 %right, label %read, label %wrong
wrong:
  %w = call ptr @PyErr_BadArgument()
  ret ptr null
read:
  %target = call ptr @PyLong_AsVoidPtr(ptr %self)
  %from = getelementptr ptr, ptr %args, i64 %first
  %to = getelementptr i64, ptr %words, i64 %first
  %count = sub i64 %expected, %first
  %read_all = call i1 @rk.words(ptr %from, i64 %count, ptr %to)
  br i1 %read_all, label %done, label %fail
done:
  ret ptr %target
fail:
  ret ptr null
}

define ptr @rk.native.launch(ptr %self, ptr %args, i64 %nargs) nounwind {
entry:
  %words = alloca [6 x i64]
  %target = call ptr @rk.begin(ptr %self, ptr %args, i64 %nargs, i64 6, i64 0, ptr %words)
  %none = icmp eq ptr %target, null
  br i1 %none, label %raise, label %go
go:
  %f = load ptr, ptr %words
  %at1 = getelementptr i64, ptr %words, i64 1
  %grid64 = load i64, ptr %at1
  %grid = trunc i64 %grid64 to i32
  %at2 = getelementptr i64, ptr %words, i64 2
  %block64 = load i64, ptr %at2
  %block = trunc i64 %block64 to i32
  %at3 = getelementptr i64, ptr %words, i64 3
  %shared64 = load i64, ptr %at3
  %shared = trunc i64 %shared64 to i32
  %at4 = getelementptr i64, ptr %words, i64 4
  %stream = load ptr, ptr %at4
  %at5 = getelementptr i64, ptr %words, i64 5
  %extra = load ptr, ptr %at5
  %ts = call ptr @PyEval_SaveThread()
  %code = call i32 %target(ptr %f, i32 %grid, i32 1, i32 1, i32 %block, i32 1, i32 1, i32 %shared,
                           ptr %stream, ptr null, ptr %extra)
  call void @PyEval_RestoreThread(ptr %ts)
  %code64 = zext i32 %code to i64
  %r = call ptr @PyLong_FromLong(i64 %code64)
  ret ptr %r
raise:
  ret ptr null
}

define internal ptr @rk.call(ptr %self, ptr %args, i64 %nargs, i1 %release) alwaysinline nounwind {
entry:
  %words = alloca [3 x i64]
  %target = call ptr @rk.begin(ptr %self, ptr %args, i64 %nargs, i64 3, i64 1, ptr %words)
  %none = icmp eq ptr %target, null
  br i1 %none, label %raise, label %first
first:
  %read_address = call i1 @rk.address(ptr %args, ptr %words)
  br i1 %read_address, label %go, label %raise
go:
  %a = load ptr, ptr %words
  %at1 = getelementptr i64, ptr %words, i64 1
  %start = load i64, ptr %at1
  %at2 = getelementptr i64, ptr %words, i64 2
  %stop = load i64, ptr %at2
  br i1 %release, label %nogil, label %gil
gil:
  call void %target(ptr %a, i64 %start, i64 %stop)
  br label %done
nogil:
  %ts = call ptr @PyEval_SaveThread()
  call void %target(ptr %a, i64 %start, i64 %stop)
  call void @PyEval_RestoreThread(ptr %ts)
  br label %done
done:
  call void @Py_IncRef(ptr @_Py_NoneStruct)
  ret ptr @_Py_NoneStruct
raise:
  ret ptr null
}

define ptr @rk.native.call(ptr %self, ptr %args, i64 %nargs) nounwind {
  %r = call ptr @rk.call(ptr %self, ptr %args, i64 %nargs, i1 false)
  ret ptr %r
}

define ptr @rk.native.call_nogil(ptr %self, ptr %args, i64 %nargs) nounwind {
  %r = call ptr @rk.call(ptr %self, ptr %args, i64 %nargs, i1 true)
  ret ptr %r
}
"""

#: built-in name -> the function in the module
FUNCTIONS = {"launch": "rk.native.launch", "call": "rk.native.call", "call_nogil": "rk.native.call_nogil"}

_lock = threading.Lock()
_state: dict = {}  # "defs": {name: PyMethodDef address} or "reason": why there are none
_keep: list = []   # the method definitions and their names: they must outlive every built-in


def _python_symbols() -> dict:
    """The addresses of the CPython functions and objects the module names."""
    api = ctypes.pythonapi
    symbols = {name: ctypes.cast(getattr(api, name), ctypes.c_void_p).value for name in _PYTHON_API}
    symbols["_Py_NoneStruct"] = id(None)
    return symbols


_module_loader = None


def provide_loader(load) -> None:
    """Lend the function that compiles this module's IR for the host (or reads it from the
    disk cache) and loads it: ``load(name, ir_text)`` -> a loaded host module.  The runtime
    compiles nothing itself; the launcher, which owns the code generator, lends it."""
    global _module_loader
    _module_loader = load


def _load() -> dict:
    if _module_loader is None:
        raise RuntimeError("no host compiler was lent to the runtime (rocarray._launch lends it)")
    register_symbols(_python_symbols())
    module = _module_loader("rocarray.runtime.native", _IR)
    defs = {}
    for name, symbol in FUNCTIONS.items():
        encoded = ctypes.create_string_buffer(f"rocarray.native.{name}".encode())
        # struct PyMethodDef { const char *ml_name; PyCFunction ml_meth; int ml_flags; const char *ml_doc; }
        method = (ctypes.c_void_p * 4)(ctypes.addressof(encoded), module.address(symbol), METH_FASTCALL, None)
        _keep.append((encoded, method))
        defs[name] = ctypes.addressof(method)
    return defs


def _defs() -> dict | None:
    if not _state:
        with _lock:
            if not _state:
                if sys.implementation.name != "cpython" or not hasattr(ctypes, "pythonapi"):
                    _state["reason"] = f"not CPython ({sys.implementation.name})"
                else:
                    try:
                        _state["defs"] = _load()
                    except Exception as e:  # no host compiler or loader here: callers keep ctypes
                        _state["reason"] = f"the native calls could not be built: {type(e).__name__}: {e}"
    return _state.get("defs")


def unavailable_reason() -> str | None:
    """Why ``builtin`` gives None here, or None when the native calls work."""
    return None if _defs() is not None else _state["reason"]


_new_builtin = None


def builtin(name: str, address: int):
    """The built-in ``name`` (a key of ``FUNCTIONS``) bound to the C function at
    ``address``, or None where the native calls are not available (``unavailable_reason``)."""
    global _new_builtin
    defs = _defs()
    if defs is None:
        return None
    if not address:
        raise ValueError(f"native {name}: the address of the C function to call is 0")
    if _new_builtin is None:
        fn = ctypes.pythonapi.PyCFunction_NewEx
        fn.restype = ctypes.py_object
        fn.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
        _new_builtin = fn
    return _new_builtin(defs[name], int(address), None)
