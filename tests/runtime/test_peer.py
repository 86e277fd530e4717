"""Tests of copies between two GPUs (rocarray/runtime/peer.py, GPURuntime.copy_peer and
``to_device`` between GPUs) against a fake hook table of two pretend devices whose memory
is host memory: the decisions (can-access, enable once per pair, fallback when refused or
without pinned memory) and the event ordering, with real bytes.  tests/test_multi_gpu.py
drives two real GPUs."""

from __future__ import annotations

import ctypes
import types

import numpy as np
import pytest

from _fake_hooks import INVALID_VALUE, HostBackedHooks
from conftest import ALL_DTYPES, random_array
import rocarray as ra
from rocarray import _device
from rocarray.runtime.cuda import CudaHooks
from rocarray.runtime.gpu import GPUError, GPURuntime
from rocarray.runtime.hip import HipHooks
from rocarray.runtime.streams import Stream

TOO_MANY_PEERS = 711


class TwoDeviceHooks(HostBackedHooks):
    """Two pretend devices over host memory; ``ops`` lists, in order, the copies, event
    records and stream waits, each with the device current when it was made."""

    def __init__(self, pinned_memory=True):
        super().__init__(pinned_memory)
        self.devices = 2
        self.ops = []
        self.event_device = {}

    def event_create(self, timing=True):
        event = super().event_create(timing)
        self.event_device[event] = self.current
        return event

    def event_record(self, event, stream):
        self.ops.append(("record", event, stream, self.current))

    def stream_wait_event(self, stream, event):
        self.ops.append(("wait", stream, event, self.current))

    def memcpy_dtoh(self, dst, src, nbytes, stream):
        super().memcpy_dtoh(dst, src, nbytes, stream)
        self.ops.append(("dtoh", nbytes, stream, self.current))

    def memcpy_htod(self, dst, src, nbytes, stream):
        super().memcpy_htod(dst, src, nbytes, stream)
        self.ops.append(("htod", nbytes, stream, self.current))

    def memcpy_dtod(self, dst, src, nbytes, stream):
        super().memcpy_dtod(dst, src, nbytes, stream)
        ctypes.memmove(dst, src, nbytes)

    def memcpy_peer(self, dst, dst_index, src, src_index, nbytes, stream):
        super().memcpy_peer(dst, dst_index, src, src_index, nbytes, stream)
        ctypes.memmove(dst, src, nbytes)
        self.ops.append(("peer", nbytes, stream, self.current))


def _filled(runtime, index, data: bytes) -> int:
    ptr = runtime.alloc(index, len(data))
    runtime.copy_host_to_device(index, ptr, ctypes.c_char_p(data), len(data))
    return ptr


def _read(runtime, index, ptr, nbytes) -> bytes:
    out = ctypes.create_string_buffer(nbytes)
    runtime.copy_device_to_host(index, ctypes.addressof(out), ptr, nbytes)
    return out.raw


def _bytes(n, seed=7) -> bytes:
    return np.random.default_rng(seed).integers(1, 256, n, dtype=np.uint8).tobytes()


def _peer_calls(api):
    return [c for c in api.calls if c[0] in ("can_access_peer", "enable_peer_access")]


# -- decisions ----------------------------------------------------------------------------


def test_direct_copy_enables_access_once_per_ordered_pair():
    api = TwoDeviceHooks()
    runtime = GPURuntime(api)
    data = _bytes(5000)
    src = _filled(runtime, 0, data)
    dst = runtime.alloc(1, len(data))
    for _ in range(3):
        runtime.copy_peer(1, dst, 0, src, len(data))
    assert _read(runtime, 1, dst, len(data)) == data
    # device 1 (the destination) was asked, and given access to device 0's memory, once
    assert _peer_calls(api) == [("can_access_peer", 1, 0), ("enable_peer_access", 1, 0)]
    assert [c[:-2] for c in api.calls if c[0] == "peer"] == [("peer", dst, 1, src, 0, len(data))] * 3
    assert runtime.peer_route(1, 0) == "peer"
    # the other direction is another pair, decided on its own
    back = runtime.alloc(0, len(data))
    runtime.copy_peer(0, back, 1, dst, len(data))
    assert _read(runtime, 0, back, len(data)) == data
    assert _peer_calls(api)[2:] == [("can_access_peer", 0, 1), ("enable_peer_access", 0, 1)]
    assert runtime.peer_route(0, 0) == "same device"


def test_the_direct_copy_is_ordered_on_both_devices_current_streams():
    api = TwoDeviceHooks()
    runtime = GPURuntime(api)
    data = _bytes(300)
    src = _filled(runtime, 0, data)
    with Stream(runtime, 0) as s0, Stream(runtime, 1) as s1:
        dst = runtime.alloc(1, len(data))
        api.ops.clear()
        runtime.copy_peer(1, dst, 0, src, len(data))
    (rec0, ev0, st0, dev0), (wait1, st1, ev0b, _), (peer, n, stp, devp), (rec1, ev1, st1b, dev1), \
        (wait0, st0b, ev1b, _) = api.ops
    assert (rec0, wait1, peer, rec1, wait0) == ("record", "wait", "peer", "record", "wait")
    # the source's stream marks where its writes end; the destination's waits for that,
    # then copies; the source's stream waits for the copy before reusing the source
    assert (st0, dev0, api.event_device[ev0]) == (s0.handle, 0, 0)
    assert (st1, ev0b) == (s1.handle, ev0)
    assert (stp, devp, n) == (s1.handle, 1, len(data))
    assert (st1b, dev1, api.event_device[ev1]) == (s1.handle, 1, 1)
    assert (st0b, ev1b) == (s0.handle, ev1)
    assert _read(runtime, 1, dst, len(data)) == data


@pytest.mark.parametrize("nbytes", [100, 4096, 3 * 4096 + 100])
def test_staged_copy_when_the_hardware_has_no_link(nbytes):
    api = TwoDeviceHooks()
    api.peer_links = {(0, 1)}  # device 0 reaches device 1, not the other way
    runtime = GPURuntime(api)
    runtime.staging_chunk = 4096
    data = _bytes(nbytes)
    src = _filled(runtime, 0, data)
    dst = runtime.alloc(1, nbytes)
    api.ops.clear()
    runtime.copy_peer(1, dst, 0, src, nbytes)
    ops = list(api.ops)
    assert _read(runtime, 1, dst, nbytes) == data
    assert _peer_calls(api) == [("can_access_peer", 1, 0)]  # never asked to enable
    assert not [c for c in api.calls if c[0] == "peer"]
    assert runtime.peer_route(1, 0) == "staged: fake:1 cannot access fake:0's memory directly"
    chunks = -(-nbytes // 4096)
    kinds = [op[0] for op in ops]
    assert kinds.count("dtoh") == kinds.count("htod") == chunks
    # each chunk: out of device 0 on its stream, then into device 1 on its own, after an event
    for op in ops:
        if op[0] == "dtoh":
            assert op[3] == 0
        if op[0] == "htod":
            assert op[3] == 1
    # a buffer is filled again only after device 0's stream waited for its draining
    if chunks > 2:
        drained = [op[1] for op in ops if op[0] == "record" and op[3] == 1]
        third = [i for i, op in enumerate(ops) if op[0] == "dtoh"][2]
        assert ops[third - 1][0] == "wait" and ops[third - 1][2] == drained[0]
    # the second copy reuses the pair's relay: nothing allocated again
    live = dict(api.blocks)
    runtime.copy_peer(1, dst, 0, src, nbytes)
    assert api.blocks.keys() == live.keys()


def test_staged_copy_when_the_driver_refuses_access():
    api = TwoDeviceHooks()
    api.refuse_peer_with = TOO_MANY_PEERS
    runtime = GPURuntime(api)
    data = _bytes(10000)
    src = _filled(runtime, 1, data)
    dst = runtime.alloc(0, len(data))
    runtime.copy_peer(0, dst, 1, src, len(data))
    runtime.copy_peer(0, dst, 1, src, len(data))
    assert _read(runtime, 0, dst, len(data)) == data
    assert _peer_calls(api) == [("can_access_peer", 0, 1), ("enable_peer_access", 0, 1)]
    assert runtime.peer_route(0, 1).startswith("staged: peer access refused: fakeEnablePeerAccess failed")


def test_staged_copy_through_pageable_memory_without_pinned_memory():
    api = TwoDeviceHooks(pinned_memory=False)
    runtime = GPURuntime(api)
    runtime.peer_access = False
    data = _bytes(9000)
    src = _filled(runtime, 0, data)
    dst = runtime.alloc(1, len(data))
    runtime.copy_peer(1, dst, 0, src, len(data))
    assert _read(runtime, 1, dst, len(data)) == data
    assert _peer_calls(api) == []
    assert runtime.peer_route(1, 0) == "staged: peer access turned off (GPURuntime.peer_access)"


def test_copy_peer_on_one_device_and_bad_indices():
    api = TwoDeviceHooks()
    runtime = GPURuntime(api)
    data = _bytes(64)
    src = _filled(runtime, 1, data)
    dst = runtime.alloc(1, 64)
    runtime.copy_peer(1, dst, 1, src, 64)
    assert _read(runtime, 1, dst, 64) == data
    assert _peer_calls(api) == []
    runtime.copy_peer(1, dst, 0, src, 0)  # nothing to copy: nothing asked
    assert _peer_calls(api) == []
    with pytest.raises(ValueError, match="fake:2: no such device; 2 FAKE device"):
        runtime.copy_peer(2, dst, 1, src, 64)


# -- the vendors' hook bodies -------------------------------------------------------------


def _bindings(results):
    """A stand-in for the bindings' module: each function records its arguments and
    returns the tuple ``results`` gives for its name."""
    seen = []

    def function(name):
        def call(*args):
            seen.append((name, args))
            return results[name]
        return call

    return types.SimpleNamespace(**{name: function(name) for name in results}), seen


@pytest.mark.parametrize("table", [CudaHooks, HipHooks])
def test_vendor_peer_hooks(table):
    hooks = table()
    names = table.CALLS
    lib, seen = _bindings({
        names["can_access_peer"]: (0, 1),
        names["enable_peer_access"]: (hooks._peer_already_enabled,),
        names["memcpy_peer"]: (0,),
        "cuDeviceGet": (0, "dev"),
        "cuDevicePrimaryCtxRetain": (0, "ctx"),
    })
    hooks._lib = lib
    assert hooks.can_access_peer(0, 1) is True
    hooks.enable_peer_access(1)  # already enabled (by another library, say): success
    hooks.memcpy_peer(0x2000, 1, 0x1000, 0, 256, None)
    calls = {name: args for name, args in seen if name in names.values()}
    if table is CudaHooks:  # CUDA names devices and contexts
        assert calls["cuDeviceCanAccessPeer"] == ("dev", "dev")
        assert calls["cuCtxEnablePeerAccess"] == ("ctx", 0)
        assert calls["cuMemcpyPeerAsync"] == (0x2000, "ctx", 0x1000, "ctx", 256, None)
    else:  # HIP names device indices
        assert calls["hipDeviceCanAccessPeer"] == (0, 1)
        assert calls["hipDeviceEnablePeerAccess"] == (1, 0)
        assert calls["hipMemcpyPeerAsync"] == (0x2000, 1, 0x1000, 0, 256, None)
    lib, _ = _bindings({names["enable_peer_access"]: (TOO_MANY_PEERS,), "cuDevicePrimaryCtxRetain": (0, "c"),
                        "cuDeviceGet": (0, "d")})
    hooks._lib = lib
    with pytest.raises(GPUError, match=names["enable_peer_access"] + " failed") as info:
        hooks.enable_peer_access(1)
    assert info.value.code == TOO_MANY_PEERS


# -- arrays on two devices ----------------------------------------------------------------


@pytest.fixture
def two_fake_gpus(monkeypatch):
    """``cuda:0`` and ``cuda:1`` backed by the fake runtime for the test's length."""
    api = TwoDeviceHooks()
    runtime = GPURuntime(api)
    monkeypatch.setitem(_device._runtimes, "cuda", runtime)
    for index in (0, 1):
        monkeypatch.setattr(ra.Device("cuda", index), "_runtime", runtime)
    return api, runtime


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_to_device_between_two_gpus(two_fake_gpus, dtype):
    api, runtime = two_fake_gpus
    a = random_array((37, 5), dtype)
    x = ra.asarray(a, device="cuda:0")
    y = x.to_device("cuda:1")
    assert y.device == ra.Device("cuda:1") and x.device == ra.Device("cuda:0")
    assert y.shape == a.shape and y.dtype == dtype
    np.testing.assert_array_equal(y.get(), a)
    assert y.data_ptr in runtime.memory_pool(1)._in_use  # from device 1's own pool
    assert x.data_ptr in runtime.memory_pool(0)._in_use
    assert runtime.peer_route(1, 0) == "peer"
    back = y.to_device(ra.Device("cuda:0"))
    np.testing.assert_array_equal(back.get(), a)


def test_to_device_between_two_gpus_staged(two_fake_gpus):
    api, runtime = two_fake_gpus
    api.refuse_peer_with = INVALID_VALUE
    runtime.staging_chunk = 1024
    a = random_array((1000,), ra.float64)
    y = ra.asarray(a, device="cuda:1").to_device("cuda:0")
    np.testing.assert_array_equal(y.get(), a)
    assert runtime.peer_route(0, 1).startswith("staged: peer access refused")
    empty = ra.asarray(np.zeros((0, 3), np.float32), device="cuda:0").to_device("cuda:1")
    assert empty.shape == (0, 3) and empty.device == ra.Device("cuda:1")


def test_with_device_and_mixing_devices(two_fake_gpus):
    a = random_array((8,), ra.float32)
    b = random_array((8,), ra.float32, np.random.default_rng(5))
    x = ra.asarray(a, device="cuda:0")
    with ra.Device("cuda:1"):
        z = ra.asarray(b)
        assert z.device == ra.Device("cuda:1")
        assert ra.asarray(a, device="cuda:0").device == ra.Device("cuda:0")
    with pytest.raises(TypeError, match=r"add: cannot mix devices cuda:0 and cuda:1; move arrays with "
                                        r"\.to_device\(\) first"):
        ra.add(x, z)
    with pytest.raises(TypeError, match="cannot mix devices cuda:1 and cuda:0"):
        z * x
    with pytest.raises(TypeError, match="cannot mix devices"):
        ra.add(x, ra.asarray(b, device="cpu"))
