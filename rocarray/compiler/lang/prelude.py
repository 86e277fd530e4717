"""The built-in prelude: complex math written in the kernel language (``prelude.rk``).

Only the functions a kernel calls are parsed (each one on first use), so a process that
uses one complex function does not pay for parsing all of them.
"""

from __future__ import annotations

import functools
import re
import threading
from pathlib import Path

from .syntax import Unit
from .parser import Parser

_DEF = re.compile(r"^template\s*<[^>]*>\s*[\w<>:]+\s+(\w+)\s*\(", re.M)


class _LazyFuncs(dict):
    """name -> [FuncDef], parsing a function's source on first look-up."""

    def __init__(self, unit: Unit, text: str):
        super().__init__()
        self._unit = unit
        self._text = text
        self._chunks: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()
        starts = [(m.start(), m.group(1)) for m in _DEF.finditer(text)]
        for k, (pos, name) in enumerate(starts):
            end = starts[k + 1][0] if k + 1 < len(starts) else len(text)
            self._chunks[name] = (pos, end)

    def _load(self, name: str) -> bool:
        with self._lock:
            if dict.__contains__(self, name):
                return True
            return self._load_locked(name)

    def _load_locked(self, name: str) -> bool:
        span = self._chunks.get(name)
        if span is None:
            return False
        start, end = span
        # pad with the newlines before the chunk so that line numbers stay right
        text = "\n" * self._text.count("\n", 0, start) + self._text[start:end]
        parser = Parser(text, "prelude")
        parser.template_names = set(self._chunks) | set(self)
        sub = parser.parse_unit()
        for fname, defs in sub.funcs.items():
            for f in defs:
                f.unit = self._unit
            dict.setdefault(self, fname, []).extend(defs)
        del self._chunks[name]
        return True

    def __contains__(self, name):
        return dict.__contains__(self, name) or self._load(name)

    def __getitem__(self, name):
        if not dict.__contains__(self, name):
            self._load(name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        if not dict.__contains__(self, name):
            self._load(name)
        return dict.get(self, name, default)


@functools.lru_cache(maxsize=1)
def prelude_unit() -> Unit:
    text = (Path(__file__).parent / "prelude.rk").read_text()
    unit = Unit()
    unit.funcs = _LazyFuncs(unit, text)
    unit.is_prelude = True
    unit.source = (text, "prelude")
    return unit
