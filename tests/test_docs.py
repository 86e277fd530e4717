"""The documentation: every public name documented and in the API reference, every docstring
example true, the benchmarks' report parser (what the performance plots read) exact.

The site itself is built by ``mkdocs build --strict`` in ``.ci/run``; these checks need no
MkDocs and run with the tests.
"""

from __future__ import annotations

import doctest
import glob
import importlib.util
import inspect
import json
import math
import os
import re
import types

import pytest

import rocarray as ra
from rocarray import (_array_object, _copy, _creation_functions, _data_type_functions, _device, _dlpack, _dtypes,
                      _elementwise_functions, _fusion, _info, _linear_algebra_functions, _manipulation_functions,
                      _numpy_methods, _numpy_names, _numpy_more, _numpy_numerics, _numpy_poly, _numpy_select,
                      _numpy_stats, _numpy_utils, _primitives, _statistical_functions, _user_kernels, _views, cache,
                      fft as _fft)
from rocarray.lib import stride_tricks
from rocarray.linalg import _numpy_linalg, _standard as _linalg_standard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "docs", "reference")

_spec = importlib.util.spec_from_file_location("bench_report", os.path.join(ROOT, "benchmarks", "report.py"))
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)

#: names documented in a table of the reference (NumPy's dtype objects and Python floats
#: carry no docstring of their own)
TABLE_NAMES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "complex64", "complex128", "e", "pi", "inf", "nan", "newaxis",
               # NumPy's abstract scalar classes, re-exported (the reference's "Types" table)
               "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
               "complexfloating", "bool_"}


def public_names() -> list:
    """Every public name of the namespace (its submodules of internals excepted)."""
    names = [n for n in dir(ra) if not n.startswith("_") and not isinstance(getattr(ra, n), types.ModuleType)]
    return sorted(names + ["__array_namespace_info__", "cache"])


def _reference_text() -> str:
    text = []
    for path in glob.glob(os.path.join(REFERENCE, "*.md")):
        with open(path, encoding="utf-8") as f:
            text.append(f.read())
    return "\n".join(text)


def test_every_public_name_is_in_the_reference():
    text = _reference_text()
    directives = set(re.findall(r"^::: rocarray\.(\w+)", text, re.M))
    missing = [n for n in public_names()
               if n not in directives
               and not (n in TABLE_NAMES and (f"`{n}`" in text or f"`rocarray.{n}`" in text))
               and not (n == "ndarray" and "`ndarray`" in text)]
    assert not missing, f"public names missing from docs/reference/: {missing}"
    unknown = sorted(d for d in directives if not hasattr(ra, d))
    assert not unknown, f"docs/reference/ names what rocarray does not have: {unknown}"


@pytest.mark.parametrize("name", [n for n in public_names() if n not in TABLE_NAMES])
def test_every_public_name_has_a_docstring(name):
    obj = getattr(ra, name)
    doc = inspect.getdoc(obj) or ""
    own = obj.__doc__ if not inspect.isclass(obj) else doc
    assert own and len(doc.strip()) > 20, f"rocarray.{name} has no docstring of its own"


def test_elementwise_functions_say_signature_dtypes_and_example():
    for name in ("add", "exp", "equal", "abs", "bitwise_left_shift", "logical_and", "divide"):
        fn = getattr(ra, name)
        params = list(inspect.signature(fn).parameters)
        assert params[-1] == "out" and params[0] in ("x", "x1")
        doc = fn.__doc__
        assert "Args:" in doc and "Returns:" in doc and ">>> " in doc, name


#: the modules whose docstring examples are checked (on the CPU, where reprs have no device)
DOCTEST_MODULES = [_array_object, _copy, _creation_functions, _data_type_functions, _device, _dlpack, _dtypes,
                   _elementwise_functions, _fusion, _info, _manipulation_functions, _statistical_functions,
                   _user_kernels, _views, cache, _numpy_names, _numpy_stats, _numpy_methods, _numpy_select, _numpy_more,
                   _numpy_numerics, _numpy_poly, _numpy_utils, _numpy_linalg, stride_tricks, _linalg_standard, _fft,
                   _primitives, _linear_algebra_functions]


@pytest.mark.parametrize("module", DOCTEST_MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    # (``ra`` is there, as ``np`` is in NumPy's examples: a docstring's first example imports it)
    tests = finder.find(module, module.__name__, globs={"ra": ra})
    if module is _elementwise_functions:  # the functions made from the catalogue's rows
        for name in dir(module):
            obj = getattr(module, name)
            if isinstance(obj, type(ra.add)):
                tests += finder.find(obj, name, globs={})
    if module is _statistical_functions:
        for name in ("sum", "prod", "max", "min", "all", "any", "argmax", "argmin"):
            tests += finder.find(getattr(module, name), name, globs={})
    with ra.Device("cpu"):
        for t in tests:
            runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_report_parser_reads_a_benchmark_report():
    text = "\n".join([
        "## rocarray reduction benchmark", "",
        "- date: 2026-12-02 04:29 UTC", "- command: `python bench_reductions.py --device cpu`",
        "- device: cpu (x86_64, target host)", "- python 3.11.7, numpy 2.4.6", "",
        "### Throughput, float32 (4,194,304 elements)", "",
        "| reduction | rocarray ms | NumPy ms | NumPy / rocarray |", "|---|---|---|---|",
        "| sum, full | 0.32 | 0.63 | 2.00 |", "| max, full | nan | 1,024 | 0.66 |", "",
        "median first call: **5.6 ms**",
    ])
    r = report.parse(text)
    assert r["title"] == "rocarray reduction benchmark"
    assert r["meta"]["date"] == "2026-12-02 04:29 UTC"
    assert r["meta"]["command"] == "python bench_reductions.py --device cpu"
    assert r["meta"]["versions"] == ["python 3.11.7, numpy 2.4.6"]
    (section,) = [s for s in r["sections"] if s["heading"].startswith("Throughput")]
    (table,) = section["tables"]
    assert table["columns"] == ["reduction", "rocarray ms", "NumPy ms", "NumPy / rocarray"]
    assert table["rows"][0] == ["sum, full", 0.32, 0.63, 2.0]
    assert math.isnan(table["rows"][1][1]) and table["rows"][1][2] == 1024
    assert section["text"] == ["median first call: **5.6 ms**"]


def test_stored_reports_match_their_json():
    """The JSON beside each stored Markdown report is that report, parsed (the plots read it)."""
    pairs = 0
    for path in glob.glob(os.path.join(ROOT, "benchmarks", "results", "**", "*.json"), recursive=True):
        md = path[:-5] + ".md"
        if not os.path.exists(md):
            continue
        with open(md, encoding="utf-8") as f:
            parsed = report.parse(f.read())
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
        parsed["lines"] = stored["lines"] = None  # (a printed report may end in a blank line)
        assert json.dumps(stored, sort_keys=True) == json.dumps(parsed, sort_keys=True), path
        pairs += 1
    assert pairs >= 4
