"""The warm path of every elementwise call: built-in ops, their operators, user kernels, fuse.

``warm_call`` builds the function a call goes to first.  When every array operand is
C-contiguous, all of one shape and on one device, and the others are Python scalars, the
signature's plan is one small-tuple dict lookup -- ``(dtype or scalar type per operand...,
device)`` -- and its ``warm(args, shape, n)`` the launch; anything else goes to the
caller's general path.  The checks are unrolled for one and two operands (most calls),
and built into the returned function itself: no frame between the call and the launch.
"""

from __future__ import annotations

from ._array_object import Array

_PY_SCALARS = (bool, int, float, complex)


# The binary entry, written once and made into two functions: an ``Array`` operator with
# fixed parameters, and a call taking ``*args, **kwargs``.  Python cannot share these lines
# between the two without a call between the entry and the launch, so the text is compiled
# twice (once per process, at import), each a factory ``make(plans, general) -> call``.
_BINARY = """
def make(plans, general):
    def call({params}):
        if {guard}:
            {unpack}
            ta, tb = type(a), type(b)
            if ta is Array and a._contig is True:
                if tb is Array:
                    if b._contig is True and b._buf.device is a._buf.device and a._shape == b._shape:
                        plan = plans.get((a._dtype, b._dtype, a._buf.device))
                        if plan is not None:
                            return plan.warm(args, a._shape, a._size)
                elif tb in _PY_SCALARS:
                    plan = plans.get((a._dtype, tb, a._buf.device))
                    if plan is not None:
                        return plan.warm(args, a._shape, a._size)
            elif tb is Array and ta in _PY_SCALARS and b._contig is True:
                plan = plans.get((ta, b._dtype, b._buf.device))
                if plan is not None:
                    return plan.warm(args, b._shape, b._size)
        return general({forward})
    return call
"""


def _binary_factory(params: str, guard: str, unpack: str, forward: str):
    namespace = {"Array": Array, "_PY_SCALARS": _PY_SCALARS}
    exec(_BINARY.format(params=params, guard=guard, unpack=unpack, forward=forward), namespace)
    return namespace["make"]


_binary_operator = _binary_factory("a, b", "True", "args = (a, b)", "a, b")
_binary_call = _binary_factory("*args, **kwargs", "len(args) == 2 and not kwargs", "a, b = args",
                               "*args, **kwargs")


def warm_call(plans: dict, general, nin: int | None, operator: bool = False):
    """The entry of a call taking ``nin`` operands (any number if None) whose warm plans
    are ``plans``: values with a ``warm(args, shape, n)`` method.  ``general(*args,
    **kwargs)`` takes every other call.

    ``operator=True`` (``nin`` 1 or 2) makes a method of ``Array`` with fixed parameters
    and no keywords: Python calls that faster than one taking ``*args``."""
    if nin == 2:
        return (_binary_operator if operator else _binary_call)(plans, general)
    if nin == 1:
        if operator:
            def call(a):
                if a._contig is True:
                    plan = plans.get((a._dtype, a._buf.device))
                    if plan is not None:
                        return plan.warm((a,), a._shape, a._size)
                return general(a)
            return call

        def call(*args, **kwargs):
            if len(args) == 1 and not kwargs:
                a = args[0]
                if type(a) is Array and a._contig is True:
                    plan = plans.get((a._dtype, a._buf.device))
                    if plan is not None:
                        return plan.warm(args, a._shape, a._size)
            return general(*args, **kwargs)
        return call

    def call(*args, **kwargs):
        if (nin is None or len(args) == nin) and not kwargs:
            shape = None
            key = []
            for a in args:
                t = type(a)
                if t is Array:
                    if a._contig is not True:
                        break
                    if shape is None:
                        shape = a._shape
                        dev = a._buf.device
                        n = a._size
                    elif a._shape != shape or a._buf.device is not dev:
                        break
                    key.append(a._dtype)
                elif t in _PY_SCALARS:
                    key.append(t)
                else:
                    break
            else:
                if shape is not None:
                    key.append(dev)
                    plan = plans.get(tuple(key))
                    if plan is not None:
                        return plan.warm(args, shape, n)
        return general(*args, **kwargs)
    return call
