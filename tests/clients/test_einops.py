"""einops as a client through its array API entry points (``einops.array_api``):
``rearrange``, ``reduce`` and ``repeat`` patterns on rocarray arrays match NumPy's."""

import numpy as np
import pytest

import rocarray as ra

pytest.importorskip("einops", reason="needs einops")
from einops import array_api as ea  # noqa: E402
import einops  # noqa: E402

A = np.random.default_rng(4).uniform(-1, 1, (2, 6, 4))

PATTERNS = [
    ("rearrange", "b h w -> b (h w)", {}),
    ("rearrange", "b h w -> w b h", {}),
    ("rearrange", "b (h h2) w -> b h h2 w", {"h2": 2}),
    ("reduce", "b h w -> b", {"reduction": "mean"}),
    ("reduce", "b (h h2) w -> b h w", {"reduction": "max", "h2": 3}),
    ("reduce", "b h w -> h w", {"reduction": "sum"}),
    ("reduce", "b h w -> b w", {"reduction": "min"}),
    ("repeat", "b h w -> b h w c", {"c": 3}),
    ("repeat", "b h w -> (b r) h w", {"r": 2}),
]


@pytest.mark.parametrize("op,pattern,kw", PATTERNS, ids=[p[1] for p in PATTERNS])
def test_pattern(device, op, pattern, kw):
    kw = dict(kw)
    reduction = kw.pop("reduction", None)
    args = (pattern, reduction) if reduction else (pattern,)
    got = getattr(ea, op)(ra.asarray(A, device=device), *args, **kw)
    want = getattr(einops, op)(A, *args, **kw)
    assert isinstance(got, ra.Array) and got.device == ra.Device(device)
    np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12)
