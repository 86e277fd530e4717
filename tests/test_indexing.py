import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

KEYS = [
    0, -1, (1, 2), slice(None), slice(1, None), slice(None, None, -1), slice(4, 0, -2),
    (slice(None), 1), (Ellipsis, 0), (None, 1), (1, None, Ellipsis, None), (slice(1, 3), slice(None, None, 3)),
    (Ellipsis,), (), (slice(10, 20),), (-2, slice(None, None, -3), 0), (slice(None), None, slice(2, 3)),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_views(device, key):
    a = random_array((5, 6, 3), np.float64)
    x = ra.asarray(a, device=device)
    v = x[key]
    np.testing.assert_array_equal(v.get(), a[key])
    assert v.shape == a[key].shape
    assert v._buf is x._buf  # a view, not a copy


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_setitem(device, dtype):
    rng = np.random.default_rng(5)
    a = random_array((4, 5), dtype, rng)
    x = ra.asarray(a, device=device)
    b = random_array((5,), dtype, rng)
    x[1] = ra.asarray(b, device=device)
    a[1] = b
    c = random_array((4, 1), dtype, rng)
    x[:, ::2] = ra.asarray(c, device=device)  # broadcast
    a[:, ::2] = c
    v = {"b": False, "i": 3, "u": 4, "f": -1.5, "c": 2j}[np.dtype(dtype).kind]
    x[..., -1] = v
    a[..., -1] = v
    x[2:, 1] = b[:2]  # a NumPy array value
    a[2:, 1] = b[:2]
    np.testing.assert_array_equal(x.get(), a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_setitem_scalar_in_every_layout(device, dtype):
    """A Python or NumPy scalar written through views of every kind of layout (the fill
    kernel with the value as a parameter), converted as NumPy converts it; signed zeros and
    NaN keep their bits."""
    base = random_array((6, 7, 5), dtype, np.random.default_rng(8))
    kind = np.dtype(dtype).kind
    values = {"b": [True, False], "i": [0, -7, 2.9], "u": [0, 9, np.uint8(3)],
              "f": [-0.0, 2.5, np.float32(1.25), float("nan")], "c": [1 - 2j, -0.0, 3.5]}[kind]
    for key in [(Ellipsis,), (slice(None, None, 2),), (slice(1, 5), slice(None, None, -2)),
                (Ellipsis, 3), (2, slice(None), slice(1, 4))]:
        for v in values:
            x, a = ra.asarray(base, device=device), base.copy()
            x[key] = v
            a[key] = v
            got = x.get()
            np.testing.assert_array_equal(got, a)
            if kind in "fc":
                np.testing.assert_array_equal(np.signbit(got.real), np.signbit(a.real))
    t = ra.asarray(base, device=device).T
    t[...] = values[0]
    np.testing.assert_array_equal(t.get(), np.full(base.shape[::-1], values[0], dtype=dtype))


def test_setitem_overlap_and_cast(device):
    x = ra.arange(10, device=device)
    x[1:] = x[:-1]
    a = np.arange(10)
    a[1:] = a[:-1].copy()
    np.testing.assert_array_equal(x.get(), a)
    y = ra.zeros(3, dtype=ra.int32, device=device)
    y[...] = ra.asarray([1.7, -2.2, 3.0], device=device)
    assert y.tolist() == [1, -2, 3]


def test_index_errors(device):
    x = ra.zeros((3, 4), device=device)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        x[0, -5]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="valid indices"):
        x["a"]
    with pytest.raises(IndexError, match="integer or boolean type"):
        x[ra.asarray([0.0, 1.0], device=device)]
    with pytest.raises(ValueError, match="broadcast"):
        x[0] = ra.zeros(3, device=device)
    with pytest.raises(OverflowError):
        ra.zeros(2, dtype=ra.uint8, device=device)[0] = 256


def test_zero_d_array_index(device):
    x = ra.asarray(random_array((4,), np.int32), device=device)
    i = ra.asarray(2, device=device)
    assert x[i].tolist() == x.get()[2]


def test_setitem_refuses_broadcast_views(device):
    """A broadcast view (elements sharing memory) cannot be assigned into, as in NumPy
    (it wrote through the alias; found by tests/property)."""
    x = ra.asarray(np.arange(3.0), device=device)
    b = ra.broadcast_to(x, (2, 3))
    for key in ((0, 0), (slice(None), 1), ra.asarray(np.array([True, False]), device=device), Ellipsis):
        with pytest.raises(ValueError, match="assignment destination is a broadcast view"):
            b[key] = 5.0
    np.testing.assert_array_equal(x.get(), [0.0, 1.0, 2.0])
    if device.kind == "cpu":
        r = ra.asarray(np.frombuffer(bytes(16), dtype=np.float64), device=device, copy=False)
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            r[0] = 1.0

