import re

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((24,), (2, 3, 4)),
                                       ((2, 3, 4), (4, 1, 6)), ((1, 5), (5, 1)), ((0, 3), (3, 0)), ((), (1, 1))])
def test_reshape_contiguous_is_view(device, shape, new):
    a = random_array(shape, np.float32)
    x = ra.asarray(a, device=device)
    y = ra.reshape(x, new)
    np.testing.assert_array_equal(y.get(), a.reshape(new))
    assert y._buf is x._buf
    assert ra.reshape(x, new, copy=False).shape == a.reshape(new).shape


def test_reshape_noncontiguous(device):
    a = random_array((4, 6), np.int64)
    x = ra.asarray(a, device=device)
    t = x.T  # not viewable as flat
    np.testing.assert_array_equal(ra.reshape(t, (-1,)).get(), a.T.reshape(-1))
    with pytest.raises(ValueError, match="copy=False"):
        ra.reshape(t, (24,), copy=False)
    s = x[:, ::2]  # (4, 3) with stride: split of the last dim is a view
    v = ra.reshape(s, (4, 3, 1))
    assert v._buf is x._buf
    np.testing.assert_array_equal(v.get(), a[:, ::2].reshape(4, 3, 1))
    c = ra.reshape(x, (24,), copy=True)
    c[0] = 99
    assert x[0, 0].item() == a[0, 0]
    with pytest.raises(ValueError, match="cannot reshape"):
        ra.reshape(x, (5, 5))
    with pytest.raises(ValueError, match="one unknown"):
        ra.reshape(x, (-1, -1))
    np.testing.assert_array_equal(x.reshape(3, 8).get(), a.reshape(3, 8))


def test_permute_expand_squeeze(device):
    a = random_array((2, 1, 3), np.complex64)
    x = ra.asarray(a, device=device)
    np.testing.assert_array_equal(ra.permute_dims(x, (2, 0, 1)).get(), np.transpose(a, (2, 0, 1)))
    np.testing.assert_array_equal(ra.matrix_transpose(x).get(), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(ra.expand_dims(x, axis=-1).get(), np.expand_dims(a, -1))
    np.testing.assert_array_equal(ra.expand_dims(x, axis=(0, 2)).get(), np.expand_dims(a, (0, 2)))
    np.testing.assert_array_equal(ra.squeeze(x, axis=1).get(), np.squeeze(a, 1))
    np.testing.assert_array_equal(ra.squeeze(x).get(), np.squeeze(a))
    with pytest.raises(ValueError, match="size 2"):
        ra.squeeze(x, axis=0)
    with pytest.raises(ValueError, match="permutation"):
        ra.permute_dims(x, (0, 0, 1))
    with pytest.raises(IndexError, match="out of bounds"):
        ra.expand_dims(x, axis=5)
    np.testing.assert_array_equal(x.transpose().get(), a.transpose())


def test_permute_dims_checks_the_count_of_axes_first(device):
    # a wrong number of axes is a ValueError whatever the axes are (as NumPy; an axis out of
    # range was reported first, as an IndexError; found by tests/property)
    x = ra.asarray(random_array((2, 3), np.float32), device=device)
    for axes in ((0,), (0, 1, 2), (5,), (0, 1, 7)):
        with pytest.raises(ValueError, match=rf"permute_dims: axes {re.escape(repr(axes))} .* 2 axes"):
            ra.permute_dims(x, axes)
    with pytest.raises(ValueError, match=r"permute_dims: axes \(0,\) .* 0 axes"):
        ra.permute_dims(x[0, 0], (0,))
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.permute_dims(x, (0, 2))
    assert ra.permute_dims(x[0, 0], ()).shape == ()


def test_broadcast(device):
    a = random_array((3, 1), np.int16)
    x = ra.asarray(a, device=device)
    b = ra.broadcast_to(x, (2, 3, 4))
    np.testing.assert_array_equal(b.get(), np.broadcast_to(a, (2, 3, 4)))
    assert b.strides[0] == 0 and b._buf is x._buf
    assert ra.broadcast_shapes((3, 1), (1, 4), (4,)) == (3, 4)
    with pytest.raises(ValueError, match="cannot broadcast"):
        ra.broadcast_to(x, (3, 2, 2)[1:])
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ra.broadcast_shapes((3,), (4,))
    p, q = ra.broadcast_arrays(x, ra.zeros(4, device=device))
    assert p.shape == q.shape == (3, 4)
