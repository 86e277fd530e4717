"""Running test code in a fresh Python process, so that a crash or a hang is a test failure.

``run_python(code)`` runs ``code`` with this interpreter under a timeout; ``run_cases``
runs a script that prints one JSON document as its last line and returns it decoded.
A process that is killed by a signal, times out, or prints no JSON fails the test that
started it, with its output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: Seconds a child may take; a hang (an ``open`` waiting on a FIFO) is caught by it.
TIMEOUT = 60


def run_python(code: str, env: dict | None = None, timeout: float = TIMEOUT, args=()) -> subprocess.CompletedProcess:
    """``python -c code *args`` in a new process with ``os.environ`` updated by ``env``
    (a value of None removes the variable); fails the test on a timeout."""
    full = dict(os.environ)
    for name, value in (env or {}).items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    try:
        return subprocess.run([sys.executable, "-c", code, *args], env=full, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child process hung (no exit within {timeout} s); output so far:\n"
                    f"{exc.stdout}\n{exc.stderr}")


def run_json(code: str, env: dict | None = None, timeout: float = TIMEOUT):
    """The JSON value the last line of ``run_python(code)``'s output holds; fails the test
    when the child crashed, failed or printed none."""
    r = run_python(code, env, timeout)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        how = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit status {r.returncode}"
        pytest.fail(f"the child process failed ({how}):\n{r.stdout}\n{r.stderr}")
    try:
        return json.loads(lines[-1])
    except ValueError:
        pytest.fail(f"the child process printed no JSON:\n{r.stdout}\n{r.stderr}")
