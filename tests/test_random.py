"""rocarray.random's stream: Philox4x32-10 against Random123's known answers and an
independent NumPy model of the generator, bit for bit on every device (raw words,
uniforms, integers with their redraws, permutations), seeds, streams and thin
specialization.  Statistics of the distributions: tests/test_random_stats.py."""

import doctest
import pickle
import threading

import numpy as np
import pytest

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from rocarray._user_kernels import _user_spec
from rocarray.random import Philox, _distributions, _generator, _kernels, _philox, default_rng
from rocarray.targets.amdgpu import AMDGPUTarget, find_device_libs, find_lld
from rocarray.targets.nvptx import NVPTXTarget, find_libdevice

# Random123's kat_vectors, "philox4x32 10" lines: counter (4 words), key (2 words), output.
KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]

M32 = np.uint64(0xFFFFFFFF)


def philox_model(key, counter: int, nblocks: int, attempt: int = 0) -> np.ndarray:
    """The words of blocks counter .. counter + nblocks - 1, shape (nblocks, 4), computed
    with NumPy's uint64 arithmetic from the published algorithm (the model the kernels
    are checked against)."""
    ctr = [(counter + b) % (1 << 128) for b in range(nblocks)]
    x = [np.array([(c >> (32 * j)) & 0xFFFFFFFF for c in ctr], dtype=np.uint64) for j in range(4)]
    k0 = np.uint64((key[0] ^ (attempt * 0x85EBCA6B)) & 0xFFFFFFFF)
    k1 = np.uint64((key[1] ^ (attempt * 0xC2B2AE35)) & 0xFFFFFFFF)
    for r in range(10):
        p0 = np.uint64(0xD2511F53) * x[0]
        p1 = np.uint64(0xCD9E8D57) * x[2]
        x = [(p1 >> np.uint64(32)) ^ x[1] ^ k0, p1 & M32, (p0 >> np.uint64(32)) ^ x[3] ^ k1, p0 & M32]
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    return np.stack(x, axis=1).astype(np.uint32)


def _counter_int(words) -> int:
    return sum(int(w) << (32 * j) for j, w in enumerate(words))


@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_known_answers(device, ctr, key, expected):
    bg = Philox(key=key, counter=ctr)
    np.testing.assert_array_equal(bg.random_raw(4, device=device).get(), np.array(expected, np.uint32))
    nxt = (_counter_int(ctr) + 1) % (1 << 128)
    assert bg.counter == tuple((nxt >> (32 * j)) & 0xFFFFFFFF for j in range(4))


def test_model_matches_known_answers():
    for ctr, key, expected in KAT:
        np.testing.assert_array_equal(philox_model(key, _counter_int(ctr), 1)[0], expected)


@pytest.mark.parametrize("ctr", [(0xFFFFFFF0, 0, 0, 0), (0xFFFFFFFE, 0xFFFFFFFF, 0, 0),
                                 (0xFFFFFFFD, 0xFFFFFFFF, 0xFFFFFFFF, 7),
                                 (0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)])
def test_counter_carries_across_words(device, ctr):
    key = (0x9E3779B9, 0x01234567)
    got = Philox(key=key, counter=ctr).random_raw(4 * 37, device=device).get()
    np.testing.assert_array_equal(got, philox_model(key, _counter_int(ctr), 37).ravel())


def test_counter_wraps_to_zero(device):
    """Past 2^128 - 1 the counter is 0 again: the all-zero known answer."""
    bg = Philox(key=(0, 0), counter=(0xFFFFFFFF,) * 4)
    np.testing.assert_array_equal(bg.random_raw(8, device=device).get()[4:], KAT[0][2])
    assert bg.counter == (1, 0, 0, 0)


def test_raw_stream_is_continuous_in_blocks(device):
    key = (123, 456)
    bg = Philox(key=key, counter=5)
    a = bg.random_raw(10, device=device).get()  # blocks 5, 6, 7 (two words of 7 dropped)
    b = bg.random_raw(6, device=device).get()   # blocks 8, 9
    ref = philox_model(key, 5, 5).ravel()
    np.testing.assert_array_equal(a, ref[:10])
    np.testing.assert_array_equal(b, ref[12:18])
    assert bg.random_raw(device=device).shape == ()


def test_advance_jumped_and_state(device):
    key = (7, 8)
    bg = Philox(key=key)
    bg.advance(1000)
    np.testing.assert_array_equal(bg.random_raw(8, device=device).get(), philox_model(key, 1000, 2).ravel())
    j = Philox(key=key).jumped(3)
    assert _counter_int(j.counter) == 3 << 64 and j.key == key
    np.testing.assert_array_equal(j.random_raw(4, device=device).get(), philox_model(key, 3 << 64, 1)[0])
    st = bg.state
    first = bg.random_raw(12, device=device).get()
    bg.state = st
    np.testing.assert_array_equal(bg.random_raw(12, device=device).get(), first)


def test_seed_makes_key_through_seed_sequence():
    bg = Philox(12345)
    assert bg.key == tuple(int(w) for w in np.random.SeedSequence(12345).generate_state(2, np.uint32))
    assert Philox(np.random.SeedSequence(12345)).key == bg.key
    assert Philox(12346).key != bg.key and bg.counter == (0, 0, 0, 0)


@pytest.mark.parametrize("n", [1001, 2**19 + 5])  # the larger one is split across host threads
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniforms_bit_exact(device, dtype, n):
    key = (0xDEADBEEF, 0x0BADF00D)
    rng = ra.random.Generator(Philox(key=key, counter=11), device=device)
    got = rng.random(n, dtype=dtype).get()
    per = 4 if dtype == "float32" else 2
    m = -(-n // per)
    w = philox_model(key, 11, m).astype(np.uint64)
    if dtype == "float32":
        ref = np.concatenate([(w[:, j] >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
                              for j in range(4)])
    else:
        ref = np.concatenate([((w[:, 2 * j] >> np.uint64(5)) * np.uint64(1 << 26) + (w[:, 2 * j + 1] >> np.uint64(6)))
                              .astype(np.float64) * 2.0**-53 for j in range(2)])
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, ref[:n])
    u = rng.uniform(-3.0, 5.0, 64, dtype=dtype).get()
    assert u.min() >= -3 and u.max() < 5 and u.dtype == np.dtype(dtype)


def _integers_model(key, counter, n_values, lo, n, dtype):
    """Lemire's method with redraws under the attempt keys, value by value in Python."""
    m = -(-n_values // 4)
    wide = n > 1 << 32
    bits = 64 if wide else 32
    th = (1 << bits) % n if n < 1 << bits else 0
    first = philox_model(key, counter, m).astype(object)
    second = philox_model(key, counter + m, m).astype(object) if wide else None
    out = np.empty((4, m), dtype=object)
    for i in range(m):
        for j in range(4):
            t = 0
            while True:
                if t == 0:
                    x = (first[i, j] << 32 | second[i, j]) if wide else first[i, j]
                else:
                    y = philox_model(key, counter + i, 1, t)[0].astype(object)
                    x = (y[j] << 32 | int(philox_model(key, counter + m + i, 1, t)[0][j])) if wide else y[j]
                prod = x * (n % (1 << bits) or 1 << bits)
                if prod % (1 << bits) >= th:
                    break
                t += 1
            out[j, i] = lo + (prod >> bits)
    return np.array([int(v) for v in out.ravel()[:n_values]], dtype=object)


@pytest.mark.parametrize("dtype,low,high", [
    ("int8", -128, 128), ("uint8", 3, 250), ("int16", -1000, 7), ("uint16", 0, 65536),
    ("int32", -(2**31), 2**31 - 5), ("uint32", 0, 2**31 + 1), ("int64", -(2**40), 2**40 + 3),
    ("uint64", 2**63, 2**64), ("int64", -(2**63), 2**63), ("uint64", 0, 2**63 + 3)])
def test_integers_bit_exact_with_redraws(device, dtype, low, high):
    """Every integer dtype; ranges whose rejection zone is large (2^31 + 1, 2^63 + 3) so
    that the redraw pass runs."""
    key = (0x1234, 0x5678)
    rng = ra.random.Generator(Philox(key=key, counter=3), device=device)
    got = rng.integers(low, high, 203, dtype=dtype).get()
    assert got.dtype == np.dtype(dtype)
    ref = _integers_model(key, 3, 203, low, high - low, dtype)
    np.testing.assert_array_equal(got.astype(object), ref)
    assert got.min() >= low and got.max() < high


@pytest.mark.parametrize("one_pass", [False, True])
@pytest.mark.parametrize("dtype,low,high", [("int16", -1000, 7), ("uint32", 0, 2**31 + 1),
                                            ("int64", -(2**40), 2**40 + 3), ("uint64", 0, 2**63 + 3)])
def test_one_and_two_pass_integers_agree(one_pass, dtype, low, high):
    """The GPUs' one-pass kernels (redraws inline) and the host's two passes (flags, then the
    redraw) give the same values: both run here on the host against the model."""
    key = (0x1234, 0x5678)
    rng = ra.random.Generator(Philox(key=key, counter=3), device="cpu")
    got = rng._integers(np.dtype(dtype), (203,), low & (2**64 - 1), high - low, one_pass=one_pass).get()
    np.testing.assert_array_equal(got.astype(object), _integers_model(key, 3, 203, low, high - low, dtype))


def test_integers_endpoint_bool_and_single_bound(device):
    rng = default_rng(5, device=device)
    x = rng.integers(0, 3, 3000, dtype="int16", endpoint=True).get()
    assert set(np.unique(x).tolist()) == {0, 1, 2, 3}
    b = rng.integers(0, 2, 1000, dtype=bool).get()
    assert b.dtype == np.bool_ and 300 < b.sum() < 700
    y = rng.integers(5, size=(10, 10)).get()
    assert y.shape == (10, 10) and y.min() >= 0 and y.max() < 5
    z = rng.integers(-7, -6, 20, dtype="int8").get()
    assert (z == -7).all()


def test_same_seed_same_numbers_other_seed_other_numbers(device):
    a = default_rng(99, device=device)
    b = default_rng(99, device=device)
    for f in (lambda r: r.random(50), lambda r: r.integers(0, 100, 50), lambda r: r.permutation(50)):
        np.testing.assert_array_equal(f(a).get(), f(b).get())
    c = default_rng(100, device=device)
    assert not np.array_equal(a.random(50).get(), c.random(50).get())


def test_spawn_gives_independent_streams(device):
    rng = default_rng(3, device=device)
    kids = rng.spawn(3)
    draws = [k.random(100).get() for k in kids]
    assert len({k.bit_generator.key for k in kids}) == 3
    for i in range(3):
        for j in range(i):
            assert abs(np.corrcoef(draws[i], draws[j])[0, 1]) < 0.4
    again = default_rng(3, device=device).spawn(3)
    np.testing.assert_array_equal(again[1].random(100).get(), draws[1])
    keyed = ra.random.Generator(Philox(key=(1, 2)), device=device).spawn(2)
    assert keyed[0].bit_generator.key != keyed[1].bit_generator.key


def test_permutation_and_choice_without_replacement_are_exact(device):
    rng = default_rng(8, device=device)
    for n in (1, 2, 17, 1000):
        p = rng.permutation(n).get()
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    x = ra.asarray(np.arange(40, dtype=np.float32).reshape(10, 4), device=device)
    px = rng.permutation(x).get()
    np.testing.assert_array_equal(np.sort(px[:, 0]), np.arange(0, 40, 4))
    np.testing.assert_array_equal(px[:, 1] - px[:, 0], 1)
    c = rng.choice(500, 300, replace=False).get()
    assert len(np.unique(c)) == 300 and c.min() >= 0 and c.max() < 500
    p = np.zeros(50)
    p[::5] = 0.1
    cp = rng.choice(50, 10, replace=False, p=p).get()
    np.testing.assert_array_equal(np.sort(cp), np.arange(0, 50, 5))
    items = ra.asarray(np.arange(100, 130), device=device)
    ci = rng.choice(items, (3, 4), replace=False).get()
    assert ci.shape == (3, 4) and len(np.unique(ci)) == 12 and ci.min() >= 100


def test_shuffle_and_permuted(device):
    rng = default_rng(9, device=device)
    x = ra.asarray(np.arange(64), device=device)
    rng.shuffle(x)
    h = x.get()
    np.testing.assert_array_equal(np.sort(h), np.arange(64))
    assert not np.array_equal(h, np.arange(64))
    m = ra.asarray(np.arange(60).reshape(6, 10), device=device)
    r = rng.permuted(m, axis=1).get()
    np.testing.assert_array_equal(np.sort(r, axis=1), np.arange(60).reshape(6, 10))
    assert not np.array_equal(r, np.arange(60).reshape(6, 10))
    f = rng.permuted(m).get()
    np.testing.assert_array_equal(np.sort(f.ravel()), np.arange(60))
    out = ra.empty((6, 10), dtype=m.dtype, device=device)
    assert rng.permuted(m, axis=0, out=out) is out


def test_results_on_the_generators_device(device):
    rng = default_rng(1, device=device)
    for x in (rng.random(3), rng.standard_normal(3), rng.integers(0, 3, 3), rng.gamma(2.0, size=3),
              rng.poisson(2.0, 3), rng.binomial(5, 0.5, 3), rng.choice(5, 3), rng.permutation(4)):
        assert x.device == device


def test_sizes_shapes_and_out(device):
    rng = default_rng(2, device=device)
    assert rng.random().shape == ()
    assert rng.random((2, 3, 4)).shape == (2, 3, 4)
    assert rng.standard_normal(0).shape == (0,)
    assert rng.integers(0, 5, (0, 3)).shape == (0, 3)
    out = ra.empty((5, 2), dtype=ra.float32, device=device)
    assert rng.random(dtype=ra.float32, out=out) is out
    assert rng.standard_normal(out=ra.empty(3, device=device)).shape == (3,)
    assert rng.normal(ra.asarray(np.arange(4.0), device=device), 0.001).shape == (4,)
    g = rng.gamma(ra.asarray(np.array([1.0, 2.0, 3.0]), device=device), 2.0, size=(2, 3))
    assert g.shape == (2, 3)


def test_module_functions_follow_seed(device):
    with ra.Device(device):
        ra.random.seed(2024)
        a = [ra.random.rand(3, 2), ra.random.randn(4), ra.random.randint(0, 9, 5),
             ra.random.random_sample(3), ra.random.uniform(1, 2, 3), ra.random.normal(0, 1, 3),
             ra.random.choice(9, 3), ra.random.permutation(6)]
        ra.random.seed(2024)
        b = [ra.random.rand(3, 2), ra.random.randn(4), ra.random.randint(0, 9, 5),
             ra.random.random_sample(3), ra.random.uniform(1, 2, 3), ra.random.normal(0, 1, 3),
             ra.random.choice(9, 3), ra.random.permutation(6)]
        for x, y in zip(a, b):
            assert x.device == device
            np.testing.assert_array_equal(x.get(), y.get())
        x = ra.asarray(np.arange(10), device=device)
        ra.random.shuffle(x)
        np.testing.assert_array_equal(np.sort(x.get()), np.arange(10))
    assert ra.random.rand(2, 3, dtype=ra.float32).dtype == ra.float32


def _compiles():
    drain_background()
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


def test_new_sizes_and_seeds_compile_nothing(device):
    """One kernel per (distribution, dtype): key, counter and size are arguments.  (A range
    of 16 integers: a power of two never needs the flags' reduction, whose GPU plans may
    differ with the size.)"""
    rng = default_rng(0, device=device)
    calls = [lambda r, n: r.random(n, dtype=ra.float32), lambda r, n: r.standard_normal(n),
             lambda r, n: r.integers(-8, 8, n, dtype=ra.int16), lambda r, n: r.gamma(1.5, 1.0, n),
             lambda r, n: r.bit_generator.random_raw(n, device=device)]
    for f in calls:
        f(rng, 33)
    before = _compiles()
    for seed, n in ((1, 7), (2, 1000), (3, 12345)):
        other = default_rng(seed, device=device)
        for f in calls:
            f(other, n)
    other.bit_generator.advance(2**100)
    for f in calls:
        f(other, 5)
    assert _compiles() == before


def test_bad_arguments_raise_numpys_errors(device):
    rng = default_rng(0, device=device)
    cases = [
        (ValueError, "low >= high", lambda: rng.integers(5, 5)),
        (ValueError, "low > high", lambda: rng.integers(5, 4, endpoint=True)),
        (ValueError, "high is out of bounds for int8", lambda: rng.integers(0, 300, dtype="int8")),
        (ValueError, "low is out of bounds for uint16", lambda: rng.integers(-1, 3, dtype="uint16")),
        (TypeError, "Unsupported dtype", lambda: rng.integers(0, 3, dtype="float32")),
        (TypeError, "Unsupported dtype", lambda: rng.random(3, dtype="int32")),
        (ValueError, "scale < 0", lambda: rng.normal(0, -1)),
        (ValueError, "scale < 0", lambda: rng.exponential(-2.0)),
        (ValueError, "scale < 0", lambda: rng.normal(0, ra.asarray(np.array([1.0, -1.0]), device=device))),
        (ValueError, "shape < 0", lambda: rng.gamma(-1.0)),
        (ValueError, "a <= 0", lambda: rng.beta(0.0, 1.0)),
        (ValueError, "b <= 0", lambda: rng.beta(1.0, -1.0)),
        (ValueError, "lam < 0", lambda: rng.poisson(-1.0)),
        (ValueError, "lam value too large", lambda: rng.poisson(1e20)),
        (ValueError, "n < 0", lambda: rng.binomial(-1, 0.5)),
        (ValueError, "p > 1", lambda: rng.binomial(5, 1.5)),
        (ValueError, "p < 0", lambda: rng.binomial(5, -0.5)),
        (ValueError, "p is nan", lambda: rng.binomial(5, float("nan"))),
        (ValueError, "probabilities do not sum to 1", lambda: rng.choice(3, p=[0.5, 0.2, 0.2])),
        (ValueError, "probabilities are not non-negative", lambda: rng.choice(3, p=[1.5, -0.5, 0.0])),
        (ValueError, "a and p must have same size", lambda: rng.choice(3, p=[0.5, 0.5])),
        (ValueError, "Cannot take a larger sample than population when replace is False",
         lambda: rng.choice(5, 6, replace=False)),
        (ValueError, "Fewer non-zero entries in p than size",
         lambda: rng.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0])),
        (ValueError, "a must be a positive integer unless no samples are taken", lambda: rng.choice(0, 2)),
        (ValueError, "negative dimensions are not allowed", lambda: rng.random(-1)),
        (OverflowError, "Range exceeds valid bounds", lambda: rng.uniform(-1e308, 1e308)),
        (TypeError, "rocarray array", lambda: rng.shuffle(np.arange(3))),
        (ValueError, "pass seed or key", lambda: Philox(1, key=(1, 2))),
        (ValueError, "key must be 2 integers", lambda: Philox(key=(1, 2, 3))),
        (ValueError, "counter must be an integer in", lambda: Philox(key=(1, 2), counter=-1)),
        (TypeError, "needs a rocarray.random.Philox", lambda: ra.random.Generator(np.random.PCG64())),
    ]
    for exc, msg, fn in cases:
        with pytest.raises(exc, match=msg):
            fn()
    # NumPy raises the same types for these
    g = np.random.default_rng(0)
    for fn in (lambda: g.integers(5, 5), lambda: g.normal(0, -1), lambda: g.choice(3, p=[0.5, 0.2, 0.2]),
               lambda: g.choice(5, 6, replace=False), lambda: g.poisson(-1.0), lambda: g.binomial(5, 1.5)):
        with pytest.raises(ValueError):
            fn()


def test_import_forms():
    import rocarray.random as rr

    assert rr is ra.random and rr.default_rng is default_rng


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_and_exponential_follow_the_model_within_ulps(device, dtype):
    """Box-Muller and inversion on the model's words, in float64 with NumPy: the device's
    own log/sin/cos agree within a few ulps of the dtype."""
    key = (0xABCDEF01, 0x12345678)
    n = 1000
    per = 4 if dtype == "float32" else 2
    m = -(-n // per)
    w = philox_model(key, 0, m).astype(np.uint64)
    if dtype == "float32":
        u = [(w[:, j] >> np.uint64(8)).astype(np.float64) * 2.0**-24 for j in range(4)]
        uo = [((w[:, j] >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0**-24 for j in range(4)]
        pairs = [(uo[0], u[1]), (uo[2], u[3])]
        expo = [-np.log(v) for v in uo]
    else:
        hi = [(w[:, 2 * j] >> np.uint64(5)).astype(np.float64) * 2.0**26 + (w[:, 2 * j + 1] >> np.uint64(6))
              for j in range(2)]
        pairs = [((hi[0] + 1) * 2.0**-53, hi[1] * 2.0**-53)]
        expo = [-np.log((h + 1) * 2.0**-53) for h in hi]
    normals = []
    for a, b in pairs:
        r = np.sqrt(-2 * np.log(a))
        normals += [r * np.cos(2 * np.pi * b), r * np.sin(2 * np.pi * b)]
    eps = np.finfo(dtype).eps
    got = Philox(key=key)
    z = ra.random.Generator(got, device=device).standard_normal(n, dtype=dtype).get()
    np.testing.assert_allclose(z, np.concatenate(normals)[:n], rtol=0, atol=64 * eps)
    e = ra.random.Generator(Philox(key=key), device=device).standard_exponential(n, dtype=dtype).get()
    np.testing.assert_allclose(e, np.concatenate(expo)[:n], rtol=8 * eps, atol=8 * eps)


def _spec_for(kind, dtype):
    """The KernelSpec a call of the kernel would make (all scalars and outputs)."""
    k = _kernels.kernel(kind, dtype)
    params = list(k.in_params) + list(k.out_params)
    kinds = ["scalar"] * len(k.in_params) + ["out"] * len(k.out_params)
    dtypes = [np.dtype(dtype) if p.is_placeholder else np.dtype(p.type_name) for p in params]
    if kind == "integers_fix":  # its flags are an array input
        kinds[[p.name for p in params].index("bad")] = "in"
    typedefs = {"T": np.dtype(dtype)} if any(p.is_placeholder for p in params) else {}
    return _user_spec(k.name, k.operation, k.preamble, k._names, kinds, dtypes, typedefs)


@pytest.mark.skipif(find_libdevice() is None, reason="libdevice.10.bc not found (CUDA toolkit or nvidia-nvvm)")
@pytest.mark.parametrize("kind,dtype", [("raw", None), ("uniform", "float32"), ("normal", "float32"),
                                        ("integers", "int64"), ("integers_wide", "uint64"),
                                        ("integers_fix", "int8"), ("integers_one", "int16"),
                                        ("integers_wide_one", "uint64"), ("poisson", None)])
def test_kernels_compile_for_sm_90(kind, dtype):
    """Compile only (no GPU needed): the Philox rounds are mul.hi.u32 / mul.lo of 32 bits,
    not 64-bit products."""
    target = NVPTXTarget("sm_90")
    ptx = target.emit_ptx(_spec_for(kind, dtype).build_module(target))
    assert "mul.hi.u32" in ptx and ".entry" in ptx
    if kind.startswith("integers_wide"):
        assert "mul.hi.u64" in ptx


@pytest.mark.skipif(find_device_libs() is None or find_lld() is None,
                    reason="needs ROCm device-libs (ocml.bc) and ld.lld >= 17 to build AMDGPU code objects")
@pytest.mark.parametrize("kind,dtype", [("raw", None), ("integers_wide", "uint64"), ("normal", "float64"),
                                        ("binomial", None)])
def test_kernels_compile_for_gfx942(kind, dtype):
    """Compile only: the code objects an AMD GPU would load (never run: no AMD GPU here)."""
    target = AMDGPUTarget("gfx942")
    assert len(target.compile(_spec_for(kind, dtype).build_module(target))) > 1000


def test_a_gpu_gives_the_cpus_numbers(device):
    """Same seed, same numbers: the device's stream against the CPU's, bit for bit where
    only exact operations are used (raw words, uniforms, integers, normals, exponentials,
    permutations), and, for the samplers through the math library, equal but for a rare
    accept/reject decision flipped by a last-ulp difference."""
    if device.kind == "cpu":
        pytest.skip("compares a GPU's stream with the CPU's: needs a GPU (CUDA or ROCm)")
    cpu = ra.Device("cpu")
    exact = [lambda r: r.bit_generator.random_raw(4099, device=r.device),
             lambda r: r.random(5001, dtype=ra.float32), lambda r: r.random(5001),
             lambda r: r.uniform(-2, 3, 777, dtype=ra.float32),
             lambda r: r.integers(-(2**31), 2**31 + 1, 3001), lambda r: r.integers(0, 2**64, 999, dtype=ra.uint64),
             lambda r: r.integers(-5, 100, 3001, dtype=ra.int8),
             lambda r: r.standard_normal(4001, dtype=ra.float32), lambda r: r.standard_normal(4001),
             lambda r: r.normal(1.5, 3.0, 999, dtype=ra.float32),
             lambda r: r.standard_exponential(4001, dtype=ra.float32), lambda r: r.exponential(2.0, 4001),
             lambda r: r.permutation(1000), lambda r: r.choice(1000, 100, replace=False)]
    for f in exact:
        a = f(default_rng(77, device=cpu)).get()
        b = f(default_rng(77, device=device)).get()
        np.testing.assert_array_equal(b, a)
    close = [lambda r: r.gamma(0.7, 2.0, 4001), lambda r: r.gamma(3.0, 1.0, 4001), lambda r: r.beta(2.0, 3.0, 4001),
             lambda r: r.poisson(4.0, 4001), lambda r: r.poisson(300.0, 4001),
             lambda r: r.binomial(20, 0.3, 4001), lambda r: r.binomial(5000, 0.4, 4001)]
    for f in close:
        a = f(default_rng(78, device=cpu)).get()
        b = f(default_rng(78, device=device)).get()
        same = np.isclose(a, b, rtol=1e-12, atol=0)
        assert same.mean() > 0.999


@pytest.mark.parametrize("module", [ra.random, _philox, _generator, _distributions])
def test_docstring_examples(module):
    """The examples in the docstrings run and print what they say."""
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, extraglobs={"default_rng": ra.random.default_rng})
    assert result.attempted > 0 and result.failed == 0


def test_parameter_arrays_must_broadcast_to_size(device):
    rng = default_rng(4, device=device)
    shapes = ra.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(ValueError, match="cannot be broadcast to size"):
        rng.gamma(shapes, size=(3,))
    assert rng.poisson(np.array([1.0, 2.0]), size=(4, 2)).shape == (4, 2)
    assert rng.binomial(10, np.full((3, 1), 0.5), size=(3, 5)).shape == (3, 5)


def test_pickle_and_threads(device):
    """A pickled generator continues its stream; calls from several threads take distinct
    blocks (together, every block once; on the CPU, whatever the device under test: what
    is checked is the counter, not the device's runtime under threads)."""
    rng = default_rng(21, device=device)
    rng.random(5)
    copy = pickle.loads(pickle.dumps(rng))
    np.testing.assert_array_equal(copy.random(9).get(), rng.random(9).get())
    bg = Philox(key=(3, 4))
    got = []

    def work():
        for _ in range(20):
            got.append(bg.random_raw(8, device="cpu").get())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = {tuple(g) for g in got}
    ref = philox_model((3, 4), 0, 160).reshape(80, 8)
    assert rows == {tuple(r) for r in ref}
