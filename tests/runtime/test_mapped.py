"""The words in mapped host memory (rocarray/runtime/mapped.py) over the fake hook table:
lent zeroed, one holder at a time under threads, taken back after a kernel set them; the
wait on the calling thread's current stream that precedes a read; the host's own reads of
a word it waits on (``GPURuntime.await_word``); a compaction's count read from one."""

from __future__ import annotations

import ctypes
import threading

import pytest

from _fake_hooks import FakeHooks, mapped_host_address

from rocarray.runtime import mapped
from rocarray.runtime.gpu import GPURuntime


def _runtime(devices=1):
    api = FakeHooks(devices=devices)
    return api, GPURuntime(api)


def _kernel_sets(api, device_address: int, value: int = 1) -> None:
    """What a kernel that writes ``value`` at ``device_address`` leaves in host memory."""
    ctypes.c_int32.from_address(mapped_host_address(api, device_address)).value = value


def test_a_word_is_lent_zeroed_and_its_device_address_maps_it():
    api, rt = _runtime(devices=2)
    words = rt.mapped_words(1)
    assert rt.mapped_words(1) is words and rt.mapped_words(0) is not words
    assert not api.mapped  # (the first page comes with the first word)
    view, k, address = word = words.acquire()
    assert [c for c in api.calls if c[0] == "host_alloc_mapped"] == [("host_alloc_mapped", 1, mapped.PAGE)]
    assert view[k] == 0 and words.lent == 1
    _kernel_sets(api, address)
    assert view[k] == 1  # (the host reads the kernel's store straight from memory)
    words.release(word)
    assert words.lent == 0
    again = words.acquire()
    assert again is word and view[k] == 0  # (taken back after it was set: zeroed, not leaked)
    words.release(again)


def test_words_run_over_into_a_new_page():
    api, rt = _runtime()
    words = rt.mapped_words(0)
    per_page = mapped.PAGE // mapped.WORD
    held = [words.acquire() for _ in range(per_page + 3)]
    assert len({w[2] for w in held}) == len(held) == words.lent
    assert sum(c[0] == "host_alloc_mapped" for c in api.calls) == 2
    for w in held:
        words.release(w)
    assert words.lent == 0


def test_threads_holding_words_at_once_hold_different_words():
    api, rt = _runtime()
    words = rt.mapped_words(0)
    threads, rounds = 8, 200
    barrier = threading.Barrier(threads)
    held_together = []
    errors = []

    def work(t):
        try:
            for r in range(rounds):
                view, k, address = word = words.acquire()
                if view[k] != 0:
                    errors.append(f"thread {t} got word {k} set")
                _kernel_sets(api, address, t + 1)  # (a gather that found an index out of range)
                if r == 0:
                    held_together.append(address)
                    barrier.wait()
                if view[k] != t + 1:
                    errors.append(f"thread {t}'s word {k} was changed by another")
                words.release(word)
        except BaseException as e:  # (reported by the test, not lost in the thread)
            errors.append(repr(e))

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert not errors
    assert len(set(held_together)) == threads
    assert words.lent == 0


def test_synchronize_current_waits_for_the_threads_current_stream_only():
    api, rt = _runtime(devices=2)
    rt.synchronize_current(1)
    assert api.calls[-1] == ("stream_synchronize", None) and api.current == 1
    stream = rt.stream_create(0)
    with stream:
        rt.synchronize_current(0)
        assert api.calls[-1] == ("stream_synchronize", stream.handle) and api.current == 0
        other = []
        th = threading.Thread(target=lambda: (rt.synchronize_current(0), other.append(api.calls[-1])))
        th.start()
        th.join()
        assert other == [("stream_synchronize", None)]  # (another thread: its own current stream)
    assert not any(c[0] == "ctx_synchronize" for c in api.calls)


def test_a_compactions_count_is_read_as_soon_as_the_scan_writes_it():
    """``_masks._counted``: the word is lent marked unwritten (-1), the scan writes the
    count into it (here more than 32 bits) and the host reads it at once: no wait for the
    stream nor a question to the driver.  The word goes back to the lender, also when the
    scan fails to queue -- after a wait for the stream then (a scan queued before the
    failure still writes the word)."""
    from types import SimpleNamespace

    from rocarray._masks import _counted

    api, rt = _runtime()
    words = rt.mapped_words(0)
    kernel, device = SimpleNamespace(runtime=rt), SimpleNamespace(index=0)
    seen = []

    def scan(address, fail=False):
        at = ctypes.c_int64.from_address(mapped_host_address(api, address))
        seen.append(at.value)
        at.value = (5 << 32) + 3
        api.calls.append(("scan", address))
        if fail:
            raise MemoryError("the scan's launch")

    assert _counted(kernel, device, scan) == (None, (5 << 32) + 3)
    assert seen == [-1] and api.calls[-1][0] == "scan" and words.lent == 0
    with pytest.raises(MemoryError, match="the scan's launch"):
        _counted(kernel, device, lambda address: scan(address, fail=True))
    assert [c[0] for c in api.calls[-2:]] == ["scan", "stream_synchronize"] and words.lent == 0


def test_work_queued_after_a_compactions_scan_is_not_waited_for():
    """``_masks._counted`` with work to follow the scan (a result written before its size
    is known, or made ready while the device counts): the host reads the word as the scan
    writes it, waiting neither for the stream nor for that work; the word goes back also
    when the work that follows fails to queue, after a wait for the thread's current
    stream."""
    from types import SimpleNamespace

    from rocarray._masks import _counted

    api, rt = _runtime()
    words = rt.mapped_words(0)
    kernel, device = SimpleNamespace(runtime=rt), SimpleNamespace(index=0)

    def scan(address):
        ctypes.c_int64.from_address(mapped_host_address(api, address)).value = 0
        api.calls.append(("scan", address))

    def then(fail=False):
        api.calls.append(("write",))
        if fail:
            raise MemoryError("the write's result")
        return "written"

    stream = rt.stream_create(0)
    with stream:
        assert _counted(kernel, device, scan, then) == ("written", 0)
        names = [c[0] for c in api.calls]
        assert names[-2:] == ["scan", "write"] and words.lent == 0
        with pytest.raises(MemoryError, match="the write's result"):
            _counted(kernel, device, scan, lambda: then(fail=True))
        assert api.calls[-2:] == [("write",), ("stream_synchronize", stream.handle)] and words.lent == 0


def test_a_word_lent_for_a_block_goes_back_after_the_wait_when_the_block_fails():
    """``MappedWords.lend``: the word goes back when the block ends, with no wait; when the
    block raises (a later launch failed, the wait was interrupted), only after
    ``wait(index)``, the word still lent while it waits, and the failure goes on."""
    api, rt = _runtime()
    words = rt.mapped_words(0)
    waits = []

    def wait(index):
        waits.append((index, words.lent))

    with words.lend(wait, 0) as word:
        assert words.lent == 1 and word[0][word[1]] == 0
    assert waits == [] and words.lent == 0
    for failure in (KeyboardInterrupt(), MemoryError("the second launch")):
        with pytest.raises(type(failure)):
            with words.lend(wait, 0):
                raise failure
        assert waits[-1] == (0, 1) and words.lent == 0
    assert len(waits) == 2


def test_words_lent_together_are_distinct_zeroed_and_all_go_back():
    """``lend(wait, index, count)``: ``count`` distinct words, each zeroed, across a page's
    end too; all go back when the block ends, after ``wait`` when it raises."""
    api, rt = _runtime()
    words = rt.mapped_words(0)
    waits = []
    per_page = mapped.PAGE // mapped.WORD
    with words.lend(waits.append, 0, per_page - 1):
        pass
    for _ in range(2):
        with words.lend(waits.append, 0, 3) as got:
            assert len(got) == 3 and len({w[2] for w in got}) == 3 and words.lent == 3
            assert all(w[0][w[1]] == 0 for w in got)
            for w in got:
                w[0][w[1]] = 7  # (zeroed again at the next lend)
        assert words.lent == 0 and waits == []
    with words.lend(waits.append, 0, per_page + 2) as got:  # (more than a page holds)
        assert len({w[2] for w in got}) == per_page + 2
    with pytest.raises(KeyboardInterrupt):
        with words.lend(waits.append, 0, 3):
            raise KeyboardInterrupt
    assert waits == [0] and words.lent == 0


def test_a_gathers_flag_word_goes_back_after_the_stream_when_a_launch_fails():
    """``_gather_gpu._flagged``: a gather of two chunks whose second launch fails waits for
    the stream before its flag word goes back (the first chunk may still set it)."""
    from types import SimpleNamespace

    from rocarray._gather_gpu import _flagged

    api, rt = _runtime()
    words = rt.mapped_words(0)
    calls = []

    def launch(function, grid, block, packer, n, args):
        calls.append(("launch", function))
        if len(calls) == 2:
            raise MemoryError("the second chunk's launch")

    def wait(index):
        calls.append(("wait", index, words.lent))

    plan = SimpleNamespace(functions=("wide", "narrow"), launch=launch, packer=None, flags=words,
                           wait=wait, index=0)
    chunks = [(1, 4, 1, 0, 0, 0, ()), (0, 4, 1, 16, 16, 16, ())]
    with pytest.raises(MemoryError, match="second chunk"):
        _flagged(plan, chunks, 0, 0, 0, 0)
    assert calls == [("launch", "narrow"), ("launch", "wide"), ("wait", 0, 1)] and words.lent == 0
    calls.clear()
    assert _flagged(plan, chunks[:1], 0, 0, 0, 0) is False
    assert calls == [("launch", "narrow"), ("wait", 0, 1)] and words.lent == 0


def test_a_compactions_word_goes_back_after_the_stream_when_its_wait_is_interrupted():
    """``_masks._counted``: a wait for the count that ends in a failure or a Ctrl-C (here
    raised by the driver's question about the stream) waits for the stream before the word
    goes back, since the queued scan may still write it; the word is then lent again."""
    from types import SimpleNamespace

    from rocarray._masks import _counted

    api, rt = _runtime()
    words = rt.mapped_words(0)
    kernel, device = SimpleNamespace(runtime=rt), SimpleNamespace(index=0)
    lent = []

    def scan(address):
        lent.append(address)
        api.calls.append(("scan", address))

    for failure in (KeyboardInterrupt(), MemoryError("the stream's question")):
        _answers(api, None, [False, failure])
        with pytest.raises(type(failure)):
            _counted(kernel, device, scan)
        names = [c[0] for c in api.calls]
        assert names[-4:] == ["scan", "stream_query", "stream_query", "stream_synchronize"]
        assert words.lent == 0
    assert lent[0] == lent[1]  # (the same word, lent again once the stream was past it)


def _answers(api, address, answers, lands=None):
    """Make ``api``'s ``stream_query`` answer ``answers`` in turn (True: finished, False:
    at work, an exception: raised); with ``lands`` = (i, value), the kernel writes the
    64-bit ``value`` at ``address`` as the ``i``-th question is asked."""
    asked = []

    def query(stream):
        api.calls.append(("stream_query", stream))
        asked.append(stream)
        if lands is not None and len(asked) == lands[0]:
            ctypes.c_int64.from_address(mapped_host_address(api, address)).value = lands[1]
        answer = answers[min(len(asked), len(answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    api.stream_query = query
    return asked


def test_await_word_reads_the_word_asks_the_stream_and_raises_its_failure():
    """``GPURuntime.await_word``: a word already written is returned with no driver call;
    while it is not, the host asks the driver about its current stream every
    ``WORD_READS`` reads and returns the word once it lands, the stream still at work; a
    stream that finished without writing it, or failed, raises."""
    from rocarray.runtime.base import RuntimeError_
    from rocarray.runtime.gpu import GPUError

    api, rt = _runtime(devices=2)
    words = rt.mapped_words(1)
    word = words.acquire()
    view, k, address = word
    view[k] = 7
    assert rt.await_word(1, word, -1) == 7 and not any(c[0] == "stream_query" for c in api.calls)

    view[k] = -1
    asked = _answers(api, address, [False], lands=(3, 1 << 40))
    stream = rt.stream_create(1)
    with stream:
        assert rt.await_word(1, word, -1) == 1 << 40
    assert asked == [stream.handle] * 3 and api.current == 1

    view[k] = -1
    _answers(api, address, [False, True])
    with pytest.raises(RuntimeError_, match="finished without writing the word"):
        rt.await_word(1, word, -1)
    assert api.calls[-1] == ("stream_query", None)  # (no stream entered: the null stream)

    _answers(api, address, [False, GPUError("fakeStreamQuery failed: FAKE_ERROR_700", "fakeStreamQuery", 700)])
    with pytest.raises(GPUError, match="FAKE_ERROR_700"):
        rt.await_word(1, word, -1)
    words.release(word)


def test_await_word_sleeps_between_questions_once_the_work_runs_long(monkeypatch):
    """The host spins for ``WORD_SPIN`` seconds, then sleeps ``WORD_SLEEP`` between its
    questions (long work: it stops spinning)."""
    import rocarray.runtime.gpu as gpu_module

    api, rt = _runtime()
    words = rt.mapped_words(0)
    word = words.acquire()
    sleeps = []
    monkeypatch.setattr(gpu_module.time, "sleep", sleeps.append)
    for spin, slept in ((60.0, 0), (0.0, 4)):
        rt.WORD_SPIN = spin
        word[0][word[1]] = -1
        asked = _answers(api, word[2], [False], lands=(4, 0))
        sleeps.clear()
        assert rt.await_word(0, word, -1) == 0
        # (questions 1 to 4 still at work, the word landing with the fourth, then read)
        assert len(asked) == 4 and sleeps == [rt.WORD_SLEEP] * slept
    words.release(word)
