"""``finish_all`` (rocarray/runtime/threads.py): an interrupted wait for helper threads
still waits for the pieces they began, drops the rest, then raises the interruption."""

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rocarray.runtime.threads import finish_all


@pytest.fixture
def sigint_raises():
    """SIGINT raising KeyboardInterrupt here (a background job starts with it ignored)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_an_interrupted_wait_ends_after_the_begun_pieces(sigint_raises):
    finished, stops = [], []
    release = threading.Event()

    def begun_piece():  # (it ends only after the interruption was seen)
        release.wait(30)
        finished.append("begun")

    def stop():
        stops.append(queued.cancel())
        threading.Timer(0.2, release.set).start()

    with ThreadPoolExecutor(1) as pool:
        begun = pool.submit(begun_piece)
        queued = pool.submit(lambda: finished.append("queued"))
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            finish_all([begun, queued], stop=stop)
        assert finished == ["begun"]  # (it did not leave before the begun piece ended)
    assert stops == [True]


def test_a_pieces_error_is_raised_after_the_others_end():
    finished = []
    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(lambda: 1 / 0)
        slow = pool.submit(lambda: (time.sleep(0.2), finished.append("slow")))
        with pytest.raises(ZeroDivisionError):
            finish_all([bad, slow])
        assert finished == ["slow"]
