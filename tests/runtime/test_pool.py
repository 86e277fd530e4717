"""Tests of the caching memory pool (rocarray/runtime/pool.py) over a fake hook table."""

from __future__ import annotations

import random
import threading

import pytest

from _fake_hooks import INVALID_VALUE, FakeHooks
from rocarray.runtime.hooks import GPUError
from rocarray.runtime.pool import _SMALL_CLASSES_BYTES, SMALL_BLOCK, SMALL_BLOCKS_PER_CLASS, MemoryPool, round_size


# -- size classes --------------------------------------------------------------------------


def test_round_size_small_sizes_are_multiples_of_512():
    assert round_size(1) == 512
    assert round_size(512) == 512
    assert round_size(513) == 1024
    assert round_size(4000) == 4096
    assert round_size(8191) == 8192


def test_round_size_large_sizes_waste_under_an_eighth():
    rng = random.Random(0)
    for _ in range(2000):
        n = rng.randrange(1, 1 << 36)
        size = round_size(n)
        assert size >= n
        assert size % 512 == 0
        assert size - n < max(512, size / 8)
        assert round_size(size) == size


def test_round_size_is_monotonic():
    sizes = [round_size(n) for n in range(1, 200_000, 97)]
    assert sizes == sorted(sizes)


# -- the memory pool -----------------------------------------------------------------------


def test_pool_reuses_a_freed_block_of_the_same_size_class():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(1000)
    pool.free(a)
    b = pool.malloc(900)
    assert b == a
    assert api.alloc_calls == 1
    assert pool.driver_allocations() == 1


def _free_inside(inside, victim_size, check):
    """A pool whose driver hook, on its first call inside the pool method ``inside``, frees
    a block of ``victim_size`` bytes as a garbage-collected finalizer would (on this
    thread, mid-method) and runs ``check(pool, victim)`` right after that free: (the pool,
    its hooks, the victim, the interrupted action, the list that notes the firing)."""
    api = FakeHooks()
    pool = MemoryPool(api, max_cached_bytes=None if inside != "free" else 0)
    victim = pool.malloc(victim_size)
    other = pool.malloc(70_000)
    cached = pool.malloc(1000)
    pool.free(cached)
    hook = "mem_alloc" if inside == "malloc" else "mem_free"
    original = getattr(api, hook)
    fired = []

    def finalizer_inside(*args):
        if not fired:
            fired.append(True)
            pool.free(victim)  # re-entered on this thread, in the middle of a pool method
            check(pool, victim)
        return original(*args)

    setattr(api, hook, finalizer_inside)
    action = {"malloc": lambda: pool.malloc(200_000), "free": lambda: pool.free(other),
              "free_all_blocks": pool.free_all_blocks}[inside]
    return pool, api, victim, action, fired


@pytest.mark.parametrize("inside", ["malloc", "free", "free_all_blocks"])
def test_pool_free_reentered_by_a_finalizer_is_deferred_not_deadlocked(inside):
    """The garbage collector can run a buffer's finalizer (which frees its block) in the
    middle of a pool method, on the thread holding the pool's lock.  Here the driver hooks
    the pool calls inside its methods stand for that moment: the re-entered free of a large
    block must not deadlock, and its block is back in the pool when the interrupted method
    returns (a small block's free takes no lock: the next test)."""

    def deferred(pool, victim):
        assert victim in pool._in_use  # deferred: the interrupted method is mid-way

    pool, api, victim, action, fired = _free_inside(inside, SMALL_BLOCK + 3000, deferred)
    done = []
    worker = threading.Thread(target=lambda: done.append(action()), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the pool deadlocked on a re-entered free"
    assert fired and done
    assert victim not in pool._in_use and not pool._deferred
    assert pool.used_bytes() == sum(size for _, size in pool._in_use.values())
    with pytest.raises(ValueError, match="freed already"):
        pool.free(victim)


@pytest.mark.parametrize("inside", ["malloc", "free", "free_all_blocks"])
def test_pool_small_free_reentered_by_a_finalizer_completes_at_once(inside):
    """A small block's free takes no lock: run inside a pool method (a finalizer), it is
    done before the interrupted method goes on, and the books stay right."""

    def at_once(pool, victim):
        assert victim not in pool._in_use

    pool, api, victim, action, fired = _free_inside(inside, 3000, at_once)
    action()
    assert fired
    assert pool.used_bytes() == sum(size for _, size in pool._in_use.values())
    assert pool.total_bytes() == sum(api.live.values())
    with pytest.raises(ValueError, match="freed already"):
        pool.free(victim)


def test_pool_keeps_a_bounded_number_of_small_blocks():
    api = FakeHooks()
    pool = MemoryPool(api)
    blocks = [pool.malloc(4000) for _ in range(SMALL_BLOCKS_PER_CLASS + 5)]
    for p in blocks:
        pool.free(p)
    assert pool.n_free_blocks() == SMALL_BLOCKS_PER_CLASS
    assert api.free_calls == 5
    assert pool.cached_bytes() == 4096 * SMALL_BLOCKS_PER_CLASS
    assert pool.malloc(4000) == blocks[SMALL_BLOCKS_PER_CLASS - 1]  # last in, first out
    # no caching at all under a bound of 0, and small ones never pass a low bound
    for bound, kept in ((0, 0), (_SMALL_CLASSES_BYTES * 3, 3)):
        api = FakeHooks()
        pool = MemoryPool(api, max_cached_bytes=bound)
        blocks = [pool.malloc(60_000) for _ in range(5)]
        for p in blocks:
            pool.free(p)
        assert pool.n_free_blocks() == kept and pool.cached_bytes() <= bound


def _race_on_pool(pool, steps, sizes, streams=(0,), any_order=False, free_all_every=0, shrink=False):
    """Eight threads allocating and freeing at random; fails if a block is ever handed to
    two owners or a thread raises.  Every thread frees what it holds at the end."""
    held = set()
    held_lock = threading.Lock()
    errors = []

    def work(seed):
        rng = random.Random(seed)
        mine = []
        try:
            for step in range(steps):
                if mine and rng.random() < 0.5:
                    ptr = mine.pop(rng.randrange(len(mine)) if any_order else -1)
                    with held_lock:
                        held.remove(ptr)
                    pool.free(ptr)
                else:
                    nbytes = rng.choice(sizes)
                    ptr = pool.malloc(nbytes, stream=rng.choice(streams))
                    with held_lock:
                        assert ptr not in held, "one block handed to two owners"
                        held.add(ptr)
                    if shrink and rng.random() < 0.3:
                        pool.shrink(ptr, rng.randrange(1, nbytes + 1))
                    mine.append(ptr)
                if free_all_every and step % free_all_every == 0:
                    pool.free_all_blocks()
            for ptr in mine:
                with held_lock:
                    held.remove(ptr)
                pool.free(ptr)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert pool.used_bytes() == 0


def test_pool_small_blocks_from_many_threads_keep_the_books():
    """Small blocks go through the lock-free lists: racing threads never share a block,
    and a double free is caught."""
    api = FakeHooks(capacity=64 << 20)
    pool = MemoryPool(api)
    _race_on_pool(pool, 4000, (100, 4000))
    assert pool.cached_bytes() == sum(api.live.values())
    p = pool.malloc(100)
    pool.free(p)
    with pytest.raises(ValueError, match="freed already"):
        pool.free(p)


def test_pool_allocates_anew_for_another_size_class_or_stream():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(1000)
    pool.free(a)
    b = pool.malloc(5000)
    assert b != a
    c = pool.malloc(1000, stream=77)
    assert c != a  # a block freed by the null stream's work is not handed to another stream
    assert api.alloc_calls == 3
    pool.free(c)
    assert pool.malloc(600, stream=77) == c


def test_pool_statistics():
    api = FakeHooks()
    pool = MemoryPool(api)
    assert (pool.used_bytes(), pool.cached_bytes(), pool.total_bytes()) == (0, 0, 0)
    a = pool.malloc(100)
    b = pool.malloc(3000)
    assert pool.used_bytes() == 512 + 3072
    pool.free(a)
    assert pool.used_bytes() == 3072
    assert pool.cached_bytes() == 512
    assert pool.total_bytes() == 3072 + 512
    assert pool.n_free_blocks() == 1
    pool.free_all_blocks()
    assert api.free_calls == 1
    assert pool.total_bytes() == pool.used_bytes() == 3072
    assert pool.n_free_blocks() == 0
    pool.free(b)
    pool.free_all_blocks()
    assert api.live == {}
    assert "MemoryPool" in repr(pool)


def test_pool_zero_bytes_and_bad_frees():
    pool = MemoryPool(FakeHooks())
    assert pool.malloc(0) == 0
    pool.free(0)
    with pytest.raises(ValueError):
        pool.malloc(-1)
    p = pool.malloc(10)
    pool.free(p)
    with pytest.raises(ValueError, match="not allocated by this memory pool"):
        pool.free(p)
    with pytest.raises(ValueError):
        pool.free(12345)


def test_pool_refuses_requests_beyond_ssize_t_without_calling_the_driver():
    # a hook takes a size_t: a larger count would reach the driver wrapped (or not at all)
    api = FakeHooks(capacity=1 << 80)
    pool = MemoryPool(api, label="fake:0")
    for nbytes in (2**63, 2**64, 2**64 + 4096, 2**70):
        with pytest.raises(MemoryError, match=r"fake:0: cannot allocate \d+ bytes: more than the largest possible allocation"):
            pool.malloc(nbytes)
    assert api.alloc_calls == 0
    p = pool.malloc(2**40)  # the largest sizes below still go to the driver
    assert api.alloc_calls == 1
    pool.free(p)


def test_pool_calls_activate_before_driver_calls():
    api = FakeHooks()
    seen = []
    pool = MemoryPool(api, activate=lambda: seen.append("activate"))
    p = pool.malloc(10)
    assert seen == ["activate"]
    pool.free(p)
    pool.malloc(10)  # from the cache: no driver call, no activation
    assert seen == ["activate"]
    pool.free(p)
    pool.free_all_blocks()
    assert seen == ["activate", "activate"]


def test_pool_out_of_memory_frees_cached_blocks_and_retries():
    api = FakeHooks(capacity=8192)
    pool = MemoryPool(api)
    a = pool.malloc(4096)
    b = pool.malloc(2048)
    pool.free(a)
    pool.free(b)
    assert sum(api.live.values()) == 6144
    c = pool.malloc(8192)  # fails once, frees the 6144 cached bytes, then succeeds
    assert api.alloc_calls == 4
    assert api.free_calls == 2
    assert pool.used_bytes() == 8192
    assert pool.cached_bytes() == 0
    pool.free(c)


def test_pool_out_of_memory_twice_raises_memory_error_with_sizes():
    api = FakeHooks(capacity=8192)
    pool = MemoryPool(api, label="fake:0")
    keep = pool.malloc(4096)
    spare = pool.malloc(1024)
    pool.free(spare)
    with pytest.raises(MemoryError) as info:
        pool.malloc(6000)
    message = str(info.value)
    assert "fake:0" in message
    assert "6000 bytes" in message
    assert "6144-byte block" in message
    assert "4096 bytes in use" in message
    assert "released 1024 cached bytes" in message
    assert "4096 of 8192 bytes free" in message
    assert isinstance(info.value.__cause__, GPUError)
    assert pool.used_bytes() == 4096
    pool.free(keep)


def test_pool_passes_other_driver_errors_through_without_releasing_the_cache():
    api = FakeHooks()
    pool = MemoryPool(api)
    p = pool.malloc(100)
    pool.free(p)
    api.fail_alloc_with = INVALID_VALUE
    with pytest.raises(GPUError) as info:
        pool.malloc(100_000)
    assert info.value.code == INVALID_VALUE
    assert pool.cached_bytes() == 512
    assert api.free_calls == 0


def test_pool_is_thread_safe():
    # (the threads hold up to about 50 MB at once, their cut blocks' rests beside: a pretend
    # device of 64 MB ran out at times, which a test of the books is not about)
    api = FakeHooks(capacity=256 << 20)
    pool = MemoryPool(api)
    _race_on_pool(pool, 3000, (100, 600, 5000, 70_000, 300_000, 1 << 20), streams=(0, 1), any_order=True,
                  free_all_every=500, shrink=True)
    assert pool.total_bytes() == pool.cached_bytes() == sum(api.live.values())
    assert pool.n_free_blocks() == len(api.live)
    pool.free_all_blocks()
    assert api.live == {}
    # (an allocation past the pretend device's size, where the threads held the most, is
    # retried by the pool once it freed its cached blocks: no block to free for it)
    assert api.alloc_calls - api.out_of_memory_calls == api.free_calls


# -- cut blocks ----------------------------------------------------------------------------


def test_pool_shrink_frees_the_rest_which_joins_the_block_again():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(8 << 20)
    pool.shrink(a, 3 << 20)
    assert pool.used_bytes() == 3 << 20
    assert pool.cached_bytes() == 5 << 20
    assert pool.n_free_blocks() == 1
    pool.free(a)  # the two parts join: the whole block is free for its size class again
    assert pool.used_bytes() == 0 and pool.cached_bytes() == 8 << 20
    assert pool.malloc(8 << 20) == a
    assert api.alloc_calls == 1


def test_pool_shrink_keeps_small_blocks_and_small_rests_whole():
    api = FakeHooks()
    pool = MemoryPool(api)
    small = pool.malloc(SMALL_BLOCK)
    pool.shrink(small, 10)
    assert pool.used_bytes() == SMALL_BLOCK
    big = pool.malloc(1 << 20)
    pool.shrink(big, (1 << 20) - SMALL_BLOCK)  # the rest, 64 KiB, is not worth a piece
    assert pool.used_bytes() == SMALL_BLOCK + (1 << 20)
    pool.shrink(big, 1)  # a piece in use keeps more than SMALL_BLOCK bytes
    assert pool.used_bytes() == SMALL_BLOCK + SMALL_BLOCK + 512
    with pytest.raises(ValueError, match="not allocated by this memory pool"):
        pool.shrink(12345, 1)


def test_pool_hands_out_free_pieces_best_fit_on_their_stream_only():
    api = FakeHooks()
    pool = MemoryPool(api)
    a = pool.malloc(16 << 20)
    b = pool.malloc(16 << 20)
    pool.shrink(a, 4 << 20)  # a piece of 12 MiB
    pool.shrink(b, 13 << 20)  # a piece of 3 MiB
    other = pool.malloc(2 << 20, stream=5)
    assert other not in (a + (4 << 20), b + (13 << 20))  # another stream: no piece
    calls = api.alloc_calls
    c = pool.malloc(2 << 20)  # the smaller piece that fits, cut: 1 MiB stays free
    assert c == b + (13 << 20) and api.alloc_calls == calls
    d = pool.malloc(12 << 20)  # the whole of the other piece (nothing would be left)
    assert d == a + (4 << 20) and api.alloc_calls == calls
    e = pool.malloc(3 << 20)  # no piece is that large any more
    assert api.alloc_calls == calls + 1
    assert pool.used_bytes() == (4 << 20) + (13 << 20) + (2 << 20) + (12 << 20) + (3 << 20) + (2 << 20)
    for p in (c, b, d, a, e, other):
        pool.free(p)
    # every block is whole and free again, and goes back to the driver
    assert pool.n_free_blocks() == len(api.live) == 4 and pool.used_bytes() == 0
    pool.free_all_blocks()
    assert api.live == {} and pool.cached_bytes() == 0


def test_pool_pieces_in_any_order_of_frees_join_their_block():
    rng = random.Random(3)
    for _ in range(50):
        api = FakeHooks()
        pool = MemoryPool(api)
        a = pool.malloc(64 << 20)
        held = [a]
        pool.shrink(a, rng.randrange(1, 32 << 20))
        for _ in range(6):  # carve the free pieces further
            p = pool.malloc(rng.randrange(SMALL_BLOCK + 1, 8 << 20))
            held.append(p)
            if rng.random() < 0.5:
                pool.shrink(p, rng.randrange(1, 4 << 20))
        rng.shuffle(held)
        for p in held:
            pool.free(p)
        assert pool.used_bytes() == 0
        assert pool.cached_bytes() == sum(api.live.values())
        assert pool.n_free_blocks() == len(api.live)
        pool.free_all_blocks()
        assert api.live == {}


def test_pool_out_of_memory_keeps_pieces_of_blocks_in_use():
    api = FakeHooks(capacity=40 << 20)
    pool = MemoryPool(api)
    a = pool.malloc(32 << 20)
    pool.shrink(a, 8 << 20)
    with pytest.raises(MemoryError, match="released 0 cached bytes"):
        pool.malloc(30 << 20)  # the 24 MiB piece cannot go back to the driver
    assert pool.malloc(20 << 20) == a + (8 << 20)  # but it serves a request it fits
