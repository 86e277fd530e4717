"""searchsorted's binary search against NumPy: every table length from 0 to 70 and around
powers of two, ties, both sides, every dtype, on every device."""

import numpy as np
import pytest

import rocarray as ra
from rocarray._indexing_functions import SEARCH_GROUP
from conftest import ALL_DTYPES, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_table_length(device, dtype):
    rng = np.random.default_rng(2105)
    lengths = list(range(71)) + [127, 128, 129, 1023, 1024, 1025]
    queries = random_array((300,), dtype, rng, low=-12, high=12)
    x2 = ra.asarray(queries, device=device)
    for n in lengths:
        table = np.sort(random_array((n,), dtype, rng, low=-10, high=10))  # many ties
        x1 = ra.asarray(table, device=device)
        for side in ("left", "right"):
            np.testing.assert_array_equal(ra.searchsorted(x1, x2, side=side).get(),
                                          np.searchsorted(table, queries, side=side),
                                          err_msg=f"n={n} side={side}")


@pytest.mark.parametrize("dtype", [ra.float32, ra.int64, ra.complex64], ids=str)
def test_query_counts_and_layouts(device, dtype):
    """Counts of queries around the host's group of searches taken together, level by level
    (a last group part full; many groups, split over the threads), queries of any shape
    and layout, a 0-d query."""
    rng = np.random.default_rng(2106)
    table = np.sort(random_array((200,), dtype, rng, low=-10, high=10))
    x1 = ra.asarray(table, device=device)
    group = SEARCH_GROUP
    for m in list(range(1, 11)) + [group - 1, group, group + 1, 2 * group + 3, 37 * group + 5]:
        q = random_array((m,), dtype, rng, low=-12, high=12)
        for side in ("left", "right"):
            np.testing.assert_array_equal(ra.searchsorted(x1, ra.asarray(q, device=device), side=side).get(),
                                          np.searchsorted(table, q, side=side), err_msg=f"m={m} {side}")
    q = random_array((5, 7), dtype, rng, low=-12, high=12)
    got = ra.searchsorted(x1, ra.asarray(q, device=device).T)  # (a transposed view)
    assert got.shape == (7, 5)
    np.testing.assert_array_equal(got.get(), np.searchsorted(table, q.T))
    got = ra.searchsorted(x1, ra.asarray(q[2, 3], device=device))
    assert got.shape == () and int(got) == np.searchsorted(table, q[2, 3])
