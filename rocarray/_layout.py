"""Iteration layout: broadcasting operands to one shape and merging adjacent dimensions.

Before a launch, dimensions of extent 1 are dropped and a dimension is merged into the
next whenever every operand steps through both as through one (stride[d] == stride[d+1] *
shape[d+1]).  A C-contiguous array of any shape becomes one 1-D run; the kernel sees only
the merged shape, so a new shape with a known dtype signature compiles nothing.
"""

from __future__ import annotations

from .targets.base import MAX_DIMS

_PAD = (1,) * MAX_DIMS
_ZEROS = (0,) * MAX_DIMS


def broadcast_strides(shape: tuple, op_shape: tuple, op_strides: tuple) -> tuple:
    """Byte strides of an operand of ``op_shape`` broadcast to ``shape`` (0 where repeated)."""
    off = len(shape) - len(op_shape)
    if off < 0:
        raise ValueError(f"cannot broadcast shape {op_shape} to {shape}")
    out = [0] * off
    for i, (d, s) in enumerate(zip(op_shape, op_strides)):
        t = shape[off + i]
        if d == t:
            out.append(s if d != 1 else 0)
        elif d == 1:
            out.append(0)
        else:
            raise ValueError(f"shapes {op_shape} and {shape} cannot be broadcast together")
    return tuple(out)


def merge_dims(shape: tuple, strides_list: list) -> tuple:
    """Merge dims; return (shape, [strides per operand]) with at least one dimension."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (1,), [(0,) for _ in strides_list]
    new_shape = [shape[dims[-1]]]
    new_strides = [[s[dims[-1]]] for s in strides_list]
    for d in reversed(dims[:-1]):
        n = shape[d]
        inner = new_shape[0]
        if all(s[d] == ns[0] * inner for s, ns in zip(strides_list, new_strides)):
            new_shape[0] = n * inner
        else:
            new_shape.insert(0, n)
            for s, ns in zip(strides_list, new_strides):
                ns.insert(0, s[d])
    return tuple(new_shape), [tuple(ns) for ns in new_strides]


def pad_dims(t: tuple, fill) -> tuple:
    """A dims tuple padded to MAX_DIMS entries (for the kernel's by-value arrays)."""
    return t + (_PAD if fill == 1 else _ZEROS)[len(t):]


def launch_words(shape: tuple, strides_list: list, merge: bool = True) -> tuple:
    """A launch over ``shape`` whose operands step by ``strides_list`` (bytes, broadcast to
    ``shape``): (the merged shape, each operand's merged strides, the dims' words, each
    operand's padded strides); the words None where more dims stay than a kernel takes.
    ``merge`` False keeps ``shape``'s own dims (kernels that index by them) where they fit."""
    if merge or len(shape) > MAX_DIMS or not shape:
        mshape, merged = merge_dims(shape, strides_list)
    else:
        mshape, merged = shape, strides_list
    if len(mshape) > MAX_DIMS:
        return mshape, merged, None, None
    return mshape, merged, (len(mshape), *pad_dims(mshape, 1)), [tuple(pad_dims(st, 0)) for st in merged]


def remember(table: dict, key, value, most: int):
    """``table[key] = value`` (and ``value``), the table emptied first when it holds
    ``most`` entries: a memo of layouts or plans that never grows past a bound."""
    if len(table) >= most:
        table.clear()
    table[key] = value
    return value
