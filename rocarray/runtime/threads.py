"""Waiting for work handed to helper threads, also when the waiting thread is interrupted.

A host launch or a large host copy hands pieces to a thread pool and waits for them.  If
the waiting thread is interrupted meanwhile (Ctrl-C: a signal handler raises in the main
thread), the exception unwinds its frames and frees what the pieces still use -- the
launch's argument buffer, the arrays -- while the pool's threads go on writing there,
which crashed the process.  ``finish_all`` waits for every piece before any exception
leaves, and drops the pieces not yet begun so that Ctrl-C is still prompt.
"""

from __future__ import annotations


def finish_all(futures, stop=None) -> None:
    """Wait until each of ``futures`` is done.  An exception raised in this thread while it
    waits (a signal's handler) calls ``stop()`` once -- no more pieces are begun -- and is
    raised after the wait; else the first error of a piece is raised."""
    interrupted = failed = None
    for f in futures:
        while True:
            try:
                f.result()
                break
            except BaseException as exc:  # noqa: B036  (KeyboardInterrupt above all)
                if f.done():
                    if not f.cancelled() and failed is None:
                        failed = exc
                    break
                if interrupted is None:
                    interrupted = exc
                    if stop is not None:
                        stop()
    if interrupted is not None:
        raise interrupted
    if failed is not None:
        raise failed
