"""The settings: every ROCARRAY_* environment variable, its type, default, allowed values and meaning, read and checked in one place.

Each setting is declared once below (``_declare``: name, parser, default, what is allowed,
what it does) and read through its object: ``NUM_THREADS.get()``.  A value that is unset
or empty means the default.  ``check_environment()`` -- run when ``rocarray`` is imported
-- parses every ROCARRAY_* variable that is set, so a bad value is one ``ValueError``
naming the variable, the value and what is allowed, before any work; the settings that
name tools or files (``ROCARRAY_PTXAS``, ``ROCARRAY_LIBDEVICE``, ``ROCARRAY_LLD``,
``ROCARRAY_DEVICE_LIBS``) are checked as well as they can be then (a non-empty string)
and fully when the tool is first looked for, by the code that looks (``Setting.invalid``
makes its error).  A ROCARRAY_* variable that is no setting (a typo) gives a warning.

``get()`` reads the environment again at each call (tests change variables while they
run), parsing a value only when it differs from the one parsed last: callers read a
setting where they make something that lasts (a target, a runtime, the disk cache),
never on a warm call path.  ``in_force()`` is what ``python -m rocarray info`` lists.
"""

from __future__ import annotations

import os
import re
import warnings

PREFIX = "ROCARRAY_"


class Setting:
    """One ROCARRAY_* environment variable: how its text is read and what it means."""

    __slots__ = ("name", "parse", "default", "allowed", "help", "_memo")

    def __init__(self, name: str, parse, default, allowed: str, help: str):
        self.name = name
        #: text -> value; raises ValueError (saying what is wrong) for a bad value
        self.parse = parse
        #: the value when the variable is unset or empty (a callable: computed then)
        self.default = default
        #: what values are allowed, in words (error messages, ``info``)
        self.allowed = allowed
        #: what the setting does
        self.help = help
        self._memo: tuple | None = None  # (text, value) last parsed

    def raw(self) -> str | None:
        """The variable's text, or None when it is unset or empty."""
        return os.environ.get(self.name) or None

    def get(self):
        """The value in force: the variable's, parsed and checked, else the default."""
        text = os.environ.get(self.name) or None
        memo = self._memo
        if memo is not None and memo[0] == text:
            return memo[1]
        if text is None:
            value = self.default() if callable(self.default) else self.default
        else:
            try:
                value = self.parse(text)
            except ValueError as exc:
                raise self.invalid(text, str(exc)) from None
        self._memo = (text, value)
        return value

    def invalid(self, text: str, problem: str = "") -> ValueError:
        """The error for ``text`` as this setting's value: the variable, the value, what
        is wrong (``problem``) and what is allowed."""
        said = f" ({problem})" if problem else ""
        return ValueError(f"{self.name}={text!r} is not valid{said}; allowed: {self.allowed}")

    def __repr__(self) -> str:
        return f"<Setting {self.name}>"


#: name -> Setting, in the order declared
SETTINGS: dict[str, Setting] = {}


def _declare(name: str, parse, default, allowed: str, help: str) -> Setting:
    setting = SETTINGS[name] = Setting(name, parse, default, allowed, help)
    return setting


# -- parsers -------------------------------------------------------------------------------

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_FLAG = "1 (on) or 0 (off); also true/false, yes/no, on/off"


def _flag(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError("not a yes/no value")


def _choice(*words: str, aliases: dict | None = None):
    """A parser for one of ``words`` (case-insensitive; ``aliases``: other spellings)."""
    table = {w: w for w in words}
    table.update(aliases or {})

    def parse(text: str) -> str:
        word = text.strip().lower()
        if word not in table:
            raise ValueError("not one of the choices")
        return table[word]

    return parse


def _integer(low: int, high: int | None = None):
    """A parser for a decimal integer from ``low`` to ``high`` (None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise ValueError("not an integer") from None
        if value < low or (high is not None and value > high):
            raise ValueError("out of range")
        return value

    return parse


_BYTES = re.compile(r"\s*(\d+)\s*([kmgt]i?b?|b)?\s*", re.IGNORECASE)
_BYTES_ALLOWED = "a number of bytes >= 0, optionally with K, M, G or T (powers of 1024), e.g. 512M"


def _bytes(text: str) -> int:
    m = _BYTES.fullmatch(text)
    if m is None:
        raise ValueError("not a number of bytes")
    unit = (m[2] or "b")[0].lower()
    return int(m[1]) << {"b": 0, "k": 10, "m": 20, "g": 30, "t": 40}[unit]


_DEVICE = re.compile(r"(cpu(:0)?|cuda(:\d+)?|hip(:\d+)?)")


def _device(text: str) -> str:
    spec = text.strip().lower()
    if not _DEVICE.fullmatch(spec):
        raise ValueError(f"unknown device {text!r}")
    return spec


def _devices(text: str) -> tuple:
    return tuple(_device(part) for part in text.split(","))


def _text(text: str) -> str:
    """A path or command line; whether it names something usable is checked at use."""
    if not text.strip():
        raise ValueError("blank")
    return text


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity: ``taskset``, a container's cpuset),
    not all the machine has; threads beyond them only take turns."""
    if hasattr(os, "process_cpu_count"):  # (Python 3.13)
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


# -- the settings ----------------------------------------------------------------------------
# (grouped by what reads them; README's "Environment" section points here)

DEVICE = _declare(
    "ROCARRAY_DEVICE", _device, None, "'cpu', 'cuda[:N]' or 'hip[:N]'",
    "the default device (unset: the first GPU found, CUDA then HIP, else the CPU); "
    "a device that is not present is an error at its first use")

CACHE_DIR = _declare(
    "ROCARRAY_CACHE_DIR", _text, None, "a folder (created when first written)",
    "where compiled kernels are kept between processes (unset: $XDG_CACHE_HOME/rocarray, "
    "else ~/.cache/rocarray)")
CACHE_MAX_BYTES = _declare(
    "ROCARRAY_CACHE_MAX_BYTES", _bytes, 1 << 30, _BYTES_ALLOWED,
    "the disk cache's bound: least recently used entries go beyond it (default 1G)")
DISK_CACHE = _declare(
    "ROCARRAY_DISK_CACHE", _flag, True, _FLAG,
    "0 keeps compiled kernels in memory only (default 1)")

TIERED = _declare(
    "ROCARRAY_TIERED", _flag, True, _FLAG,
    "1: a new signature's first calls run quick-tier code, recompiled with the full "
    "pipeline in the background once hot; 0: every kernel compiled by the full tier at "
    "once (default 1; read when a target is made)")
COMPILE_PROCESS = _declare(
    "ROCARRAY_COMPILE_PROCESS", _flag, True, _FLAG,
    "1: the background tier-ups are built and compiled by a second process at the lowest "
    "priority, beside the first calls' compiles; 0: on a thread of this process, taking turns "
    "with them (default 1)")
INTERPRETER = _declare(
    "ROCARRAY_INTERPRETER", _choice("on", "off", "gpu", aliases={**dict.fromkeys(_TRUE, "on"),
                                                                  **dict.fromkeys(_FALSE, "off")}),
    "on", "1 (on), 0 (off) or gpu (on GPUs only)",
    "the interpreter tier: first calls of a new signature run on an interpreter kernel "
    "while the compiled code is made (default on; read at import)")
VERIFY_IR = _declare(
    "ROCARRAY_VERIFY_IR", _flag, False, _FLAG,
    "1 runs LLVM's verifier on quick-tier IR too (the full tiers always verify; the "
    "tests set it; default 0)")

NUM_THREADS = _declare(
    "ROCARRAY_NUM_THREADS", _integer(1), cpu_count, "a positive integer (more than 64 is taken as 64)",
    "threads of large host kernels (default: the CPUs the process may run on)")
HOST_POOL_BYTES = _declare(
    "ROCARRAY_HOST_POOL_BYTES", _bytes, 1 << 30, _BYTES_ALLOWED,
    "freed host memory kept for reuse (default 1G; read at import)")

PTXAS = _declare(
    "ROCARRAY_PTXAS", _text, None, "the path of an executable ptxas",
    "the ptxas to use (unset: the CUDA toolkit's, then PATH, then the nvidia-cuda-nvcc wheel)")
LIBDEVICE = _declare(
    "ROCARRAY_LIBDEVICE", _text, None, "libdevice.10.bc or a folder holding libdevice*.bc",
    "NVIDIA's libdevice math library (unset: the CUDA toolkit's, then the nvidia-nvvm wheel)")

LLD = _declare(
    "ROCARRAY_LLD", _text, None, "the path or command line of an ld.lld >= 17, e.g. 'zig ld.lld'",
    "the ld.lld that links AMDGPU code objects (unset: ROCm's, the ziglang wheel's, then "
    "ld.lld-NN and ld.lld on PATH)")
DEVICE_LIBS = _declare(
    "ROCARRAY_DEVICE_LIBS", _text, None, "a folder holding ocml.bc",
    "ROCm's device libraries (unset: $ROCM_PATH, /opt/rocm*, then Debian's rocm-device-libs)")

TEST_DEVICES = _declare(
    "ROCARRAY_TEST_DEVICES", _devices, None, "devices separated by commas, e.g. cpu,cuda:0",
    "the test suite only: the devices its tests run on (default: every device present)")


# -- checking and listing ----------------------------------------------------------------------


def check_environment() -> None:
    """Parse every ROCARRAY_* variable that is set: one ValueError for the bad values
    (each named with its value and what is allowed); a warning for a ROCARRAY_* name
    that is no setting."""
    problems = []
    for name in sorted(n for n in os.environ if n.startswith(PREFIX)):
        setting = SETTINGS.get(name)
        if setting is None:
            import difflib

            close = difflib.get_close_matches(name, SETTINGS, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            warnings.warn(f"{name} is not a rocarray setting{hint} (the settings: rocarray/_settings.py, "
                          "python -m rocarray info)", RuntimeWarning, stacklevel=3)
            continue
        try:
            setting.get()
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        raise ValueError("\n".join(problems))


def in_force() -> list[tuple[str, str, bool]]:
    """``(name, the value in force as text, whether the environment set it)`` of every
    setting, in the order declared: a flag as 1 or 0, an unset setting without a default
    as "", a bad value as the error's text."""
    out = []
    for name, setting in SETTINGS.items():
        try:
            value = setting.get()
        except ValueError as exc:
            text = f"invalid: {exc}"
        else:
            if isinstance(value, bool):
                text = "1" if value else "0"
            elif isinstance(value, tuple):
                text = ",".join(value)
            else:
                text = "" if value is None else str(value)
        out.append((name, text, setting.raw() is not None))
    return out
