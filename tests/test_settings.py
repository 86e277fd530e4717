"""The settings (rocarray/_settings.py): one declaration per ROCARRAY_* variable, values
parsed and checked there, bad ones a ValueError naming the variable at import or first use."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from _isolated import run_python
from rocarray import _settings
from rocarray._settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "rocarray").rglob("*.py")) + sorted((ROOT / "kernels").rglob("*.py"))


def test_every_variable_the_code_names_is_declared_once():
    named = set()
    for path in SOURCES:
        named |= set(re.findall(r"ROCARRAY_[A-Z0-9_]*[A-Z0-9]", path.read_text()))
    named |= set(re.findall(r"ROCARRAY_[A-Z0-9_]*[A-Z0-9]", (ROOT / "tests" / "conftest.py").read_text()))
    assert named - set(SETTINGS) == set()
    assert all(name.startswith("ROCARRAY_") for name in SETTINGS)
    for setting in SETTINGS.values():  # each says what it does and what it takes
        assert setting.help and setting.allowed, setting.name


def test_no_module_reads_a_rocarray_variable_itself():
    reads = re.compile(r"(environ\b[^\n]*|getenv\([^\n]*)[\"']ROCARRAY_")
    offenders = [str(p.relative_to(ROOT)) for p in SOURCES
                 if p.name != "_settings.py" and reads.search(p.read_text())]
    assert offenders == []


GOOD = [
    ("ROCARRAY_NUM_THREADS", "3", 3),
    ("ROCARRAY_NUM_THREADS", " 12 ", 12),
    ("ROCARRAY_CACHE_MAX_BYTES", "12345", 12345),
    ("ROCARRAY_CACHE_MAX_BYTES", "512M", 512 << 20),
    ("ROCARRAY_CACHE_MAX_BYTES", "2GiB", 2 << 30),
    ("ROCARRAY_CACHE_MAX_BYTES", "0", 0),
    ("ROCARRAY_HOST_POOL_BYTES", "64k", 64 << 10),
    ("ROCARRAY_TIERED", "0", False),
    ("ROCARRAY_TIERED", "false", False),
    ("ROCARRAY_TIERED", "On", True),
    ("ROCARRAY_DISK_CACHE", "no", False),
    ("ROCARRAY_VERIFY_IR", "1", True),
    ("ROCARRAY_INTERPRETER", "gpu", "gpu"),
    ("ROCARRAY_INTERPRETER", "0", "off"),
    ("ROCARRAY_INTERPRETER", "1", "on"),
    ("ROCARRAY_DEVICE", "cuda:1", "cuda:1"),
    ("ROCARRAY_DEVICE", " CPU ", "cpu"),
    ("ROCARRAY_TEST_DEVICES", "cpu,hip:0", ("cpu", "hip:0")),
    ("ROCARRAY_CACHE_DIR", "/some/where", "/some/where"),
]


@pytest.mark.parametrize("name, text, value", GOOD)
def test_values_are_parsed(monkeypatch, name, text, value):
    monkeypatch.setenv(name, text)
    assert SETTINGS[name].get() == value


def test_unset_or_empty_is_the_default_and_a_change_is_seen(monkeypatch):
    s = SETTINGS["ROCARRAY_HOST_POOL_BYTES"]
    monkeypatch.delenv("ROCARRAY_HOST_POOL_BYTES", raising=False)
    assert s.get() == 1 << 30
    monkeypatch.setenv("ROCARRAY_HOST_POOL_BYTES", "")
    assert s.get() == 1 << 30
    monkeypatch.setenv("ROCARRAY_HOST_POOL_BYTES", "2")
    assert s.get() == 2  # read again: tests change variables while they run
    monkeypatch.delenv("ROCARRAY_NUM_THREADS", raising=False)
    assert SETTINGS["ROCARRAY_NUM_THREADS"].get() == _settings.cpu_count()


#: (run in a process limited to one CPU) the host's threads and the staging copiers' count
ONE_CPU = """
import os
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
import rocarray as ra
from rocarray._settings import NUM_THREADS
from rocarray.runtime import staging
with ra.Device("cpu"):
    x = ra.arange(1 << 20, dtype=ra.int64)
    print(NUM_THREADS.get(), staging._COPY_THREADS, ra.Device("cpu").runtime._threads, int(ra.sum(x)))
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs os.sched_setaffinity (Linux)")
def test_threads_follow_the_cpus_the_process_may_run_on():
    """A process pinned to one CPU (``taskset``, a container's cpuset) makes one host
    thread, not one for every CPU of the machine: more would only take turns."""
    r = run_python(ONE_CPU, {"ROCARRAY_NUM_THREADS": None}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1", "1", "1", str((1 << 20) * ((1 << 20) - 1) // 2)]


#: (variable, a bad value, what the error says is wrong, a word of what is allowed)
BAD = [
    ("ROCARRAY_NUM_THREADS", "junk", "not an integer", "positive integer"),
    ("ROCARRAY_NUM_THREADS", "0", "out of range", "positive integer"),
    ("ROCARRAY_NUM_THREADS", "-4", "out of range", "positive integer"),
    ("ROCARRAY_NUM_THREADS", "2.5", "not an integer", "positive integer"),
    ("ROCARRAY_HOST_POOL_BYTES", "lots", "not a number of bytes", "number of bytes"),
    ("ROCARRAY_HOST_POOL_BYTES", "-1", "not a number of bytes", "number of bytes"),
    ("ROCARRAY_CACHE_MAX_BYTES", "1.5G", "not a number of bytes", "number of bytes"),
    ("ROCARRAY_CACHE_MAX_BYTES", "10X", "not a number of bytes", "number of bytes"),
    ("ROCARRAY_TIERED", "maybe", "not a yes/no value", "1 (on) or 0 (off)"),
    ("ROCARRAY_COMPILE_PROCESS", "sometimes", "not a yes/no value", "1 (on) or 0 (off)"),
    ("ROCARRAY_DISK_CACHE", "2", "not a yes/no value", "1 (on) or 0 (off)"),
    ("ROCARRAY_VERIFY_IR", "yes please", "not a yes/no value", "1 (on) or 0 (off)"),
    ("ROCARRAY_INTERPRETER", "cpu", "not one of the choices", "gpu"),
    ("ROCARRAY_DEVICE", "tpu", "unknown device 'tpu'", "'cpu', 'cuda[:N]' or 'hip[:N]'"),
    ("ROCARRAY_DEVICE", "cuda:x", "unknown device 'cuda:x'", "'cpu', 'cuda[:N]' or 'hip[:N]'"),
    ("ROCARRAY_DEVICE", "cpu:1", "unknown device 'cpu:1'", "'cpu', 'cuda[:N]' or 'hip[:N]'"),
    ("ROCARRAY_TEST_DEVICES", "cpu,,cuda", "unknown device ''", "separated by commas"),
    ("ROCARRAY_CACHE_DIR", "  ", "blank", "a folder"),
    ("ROCARRAY_PTXAS", "  ", "blank", "ptxas"),
    ("ROCARRAY_LIBDEVICE", "\t", "blank", "libdevice"),
    ("ROCARRAY_LLD", " ", "blank", "ld.lld"),
    ("ROCARRAY_DEVICE_LIBS", "  ", "blank", "ocml.bc"),
]


def _message(name, text, problem, allowed):
    return re.escape(f"{name}={text!r} is not valid ({problem}); allowed: ") + f".*{re.escape(allowed)}"


@pytest.mark.parametrize("name, text, problem, allowed", BAD)
def test_a_bad_value_is_a_value_error_naming_the_variable(monkeypatch, name, text, problem, allowed):
    monkeypatch.setenv(name, text)
    with pytest.raises(ValueError, match=_message(name, text, problem, allowed)):
        SETTINGS[name].get()
    with pytest.raises(ValueError, match=_message(name, text, problem, allowed)):
        _settings.check_environment()


def test_every_setting_has_a_bad_value_tested():
    assert {name for name, *_ in BAD} == set(SETTINGS)


@pytest.mark.parametrize("name, text, problem, allowed", BAD, ids=[f"{b[0]}={b[1]!r}" for b in BAD])
def test_a_bad_value_fails_the_import_of_rocarray(name, text, problem, allowed):
    """The reported case: ``ROCARRAY_NUM_THREADS=junk`` made every op raise ``invalid
    literal for int()``, naming no variable.  (A bad value fails before anything heavy is
    imported: ~0.1 s a process.)"""
    r = run_python("import rocarray", {name: text})
    assert r.returncode == 1, (r.stdout, r.stderr)
    last = r.stderr.strip().splitlines()[-1]
    assert re.match("ValueError: " + _message(name, text, problem, allowed), last), r.stderr
    assert "invalid literal" not in r.stderr


def test_several_bad_values_are_one_error_listing_each():
    r = run_python("import rocarray", {"ROCARRAY_NUM_THREADS": "junk", "ROCARRAY_TIERED": "maybe"})
    assert r.returncode == 1
    assert "ROCARRAY_NUM_THREADS='junk' is not valid" in r.stderr
    assert "ROCARRAY_TIERED='maybe' is not valid" in r.stderr


def test_a_rocarray_name_that_is_no_setting_warns():
    r = run_python("import warnings; warnings.simplefilter('error'); import rocarray",
                   {"ROCARRAY_NUM_THREAD": "2"})
    assert r.returncode == 1
    assert "RuntimeWarning: ROCARRAY_NUM_THREAD is not a rocarray setting; did you mean ROCARRAY_NUM_THREADS?" in r.stderr


def test_good_values_take_effect_in_a_new_process(tmp_path):
    code = ("import rocarray as ra, json\n"
            "from rocarray.compiler.cache import default_cache\n"
            "from rocarray import _interpreter\n"
            "rt = ra.Device('cpu').runtime\n"
            "print(json.dumps([rt._threads, rt.max_cached_bytes, default_cache().disk.max_bytes,"
            " _interpreter.ENABLED, _interpreter.ON_HOST]))")
    r = run_python(code, {"ROCARRAY_NUM_THREADS": "3", "ROCARRAY_HOST_POOL_BYTES": "1M",
                          "ROCARRAY_CACHE_MAX_BYTES": "2M", "ROCARRAY_INTERPRETER": "gpu",
                          "ROCARRAY_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"[3, {1 << 20}, {2 << 20}, true, false]"
    r = run_python(code, {"ROCARRAY_NUM_THREADS": "500", "ROCARRAY_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0 and r.stdout.startswith("[64,"), r.stderr  # the documented cap


# -- the tools and libraries named by path: checked when first looked for -----------------


def test_a_libdevice_that_is_not_there_is_an_error_not_another_one(monkeypatch, tmp_path):
    from rocarray.targets import nvptx

    monkeypatch.setenv("ROCARRAY_LIBDEVICE", str(tmp_path / "nothing.bc"))
    with pytest.raises(ValueError, match=r"ROCARRAY_LIBDEVICE='.*nothing.bc' is not valid \(no such file\); "
                                         r"allowed: libdevice.10.bc or a folder"):
        nvptx.find_libdevice()
    monkeypatch.setenv("ROCARRAY_LIBDEVICE", str(tmp_path))
    with pytest.raises(ValueError, match=r"is not valid \(a folder without libdevice\*.bc\)"):
        nvptx.find_libdevice()
    (tmp_path / "libdevice.10.bc").write_bytes(b"BC")
    assert nvptx.find_libdevice() == str(tmp_path / "libdevice.10.bc")


def test_a_ptxas_that_does_not_run_is_an_error(monkeypatch, tmp_path):
    from rocarray.targets import nvptx

    plain = tmp_path / "ptxas"
    plain.write_text("not a program")
    monkeypatch.setenv("ROCARRAY_PTXAS", str(plain))
    with pytest.raises(ValueError, match=r"ROCARRAY_PTXAS='.*ptxas' is not valid \(not an executable file\)"):
        nvptx.find_ptxas()
    # and a target that would take the first assembler that works does not quietly take
    # another one
    with pytest.raises(ValueError, match="ROCARRAY_PTXAS"):
        nvptx.NVPTXTarget("sm_90", assembler="ptxas").assembler
    monkeypatch.setenv("ROCARRAY_PTXAS", str(tmp_path))
    with pytest.raises(ValueError, match="not an executable file"):
        nvptx.find_ptxas()
    plain.chmod(plain.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ROCARRAY_PTXAS", str(plain))
    assert nvptx.find_ptxas() == str(plain)


def test_an_lld_that_does_not_run_is_an_error(monkeypatch, tmp_path):
    from rocarray.targets import rocm as amdgpu

    monkeypatch.setattr(amdgpu, "_lld_choice", [])
    monkeypatch.setenv("ROCARRAY_LLD", str(tmp_path / "no-such-lld"))
    with pytest.raises(ValueError, match=r"ROCARRAY_LLD='.*no-such-lld' is not valid \(it does not run as "
                                         r"ld.lld --version\); allowed: the path or command line of an ld.lld >= 17"):
        amdgpu.find_lld()
    monkeypatch.setenv("ROCARRAY_LLD", "'unclosed")
    with pytest.raises(ValueError, match=r"ROCARRAY_LLD=\"'unclosed\" is not valid \(No closing quotation\)"):
        amdgpu.find_lld()
    assert "ROCARRAY_LLD" in amdgpu.toolchain_info()["ld_lld_problem"]  # info reports it


def test_device_libs_that_are_not_there_are_an_error(monkeypatch, tmp_path):
    from rocarray.targets import amdgpu

    monkeypatch.setenv("ROCARRAY_DEVICE_LIBS", str(tmp_path / "none"))
    with pytest.raises(ValueError, match=r"ROCARRAY_DEVICE_LIBS='.*none' is not valid \(no such folder\); "
                                         "allowed: a folder holding ocml.bc"):
        amdgpu.find_device_libs()


def test_info_lists_the_settings_in_force(tmp_path):
    r = run_python("import sys, rocarray.__main__ as m; sys.exit(m.main(['info']))",
                   {"ROCARRAY_CACHE_DIR": str(tmp_path), "ROCARRAY_NUM_THREADS": "2",
                    "ROCARRAY_TIERED": "off", "ROCARRAY_DEVICE": None}, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    start = lines.index("settings (rocarray/_settings.py says what each one does):")
    listed = [line.split("=", 1)[0].strip() for line in lines[start + 1:]]
    assert listed == list(SETTINGS)
    assert "  ROCARRAY_NUM_THREADS=2  (set)" in lines
    assert "  ROCARRAY_TIERED=0  (set)" in lines
    assert "  ROCARRAY_DISK_CACHE=1  (default)" in lines
    assert "  ROCARRAY_DEVICE=  (unset)" in lines
