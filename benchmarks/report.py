"""A benchmark report as JSON: the Markdown report's metadata, sections and tables, parsed.

Every benchmark prints a Markdown report (a title, ``- key: value`` machine lines, ``###``
sections holding tables and sentences). ``--json PATH`` writes the same report as JSON,
which the plot script (``benchmarks/plot.py``) reads; this module is the one parser, so a
report kept as text (``benchmarks/results/``) converts to the same JSON:

    python benchmarks/report.py benchmarks/results/RUN/elementwise.md -o elementwise.json

JSON layout: ``{"title", "meta": {"date", "command", "host", "device", ..., "versions": [...]},
"lines": [...], "sections": [{"heading", "text": [...], "tables": [{"columns": [...],
"rows": [[...], ...]}]}]}``; table cells are numbers where they parse as numbers (``nan``
included), else strings.
"""

from __future__ import annotations

import argparse
import json
import re

_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")


def _cell(text: str):
    t = text.strip().strip("*")
    if _NUMBER.match(t.replace(",", "")):
        v = float(t.replace(",", ""))
        return int(v) if v.is_integer() and "." not in t and "e" not in t.lower() else v
    if t.lower() == "nan":
        return float("nan")
    return text.strip()


def _row(line: str) -> list:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text: str) -> dict:
    """The report ``text`` (Markdown) as a dict (see the module's docstring)."""
    lines = text.splitlines()
    out = {"title": "", "meta": {"versions": []}, "lines": lines, "sections": []}
    section = {"heading": "", "text": [], "tables": []}
    out["sections"].append(section)
    table = None
    for line in lines:
        s = line.strip()
        if s.startswith("|") and s.endswith("|"):
            cells = _row(s)
            if table is None:
                table = {"columns": cells, "rows": []}
                section["tables"].append(table)
            elif not all(set(c) <= set("-: ") for c in cells):
                table["rows"].append([cells[0]] + [_cell(c) for c in cells[1:]])
            continue
        table = None
        if s.startswith("## ") and not out["title"]:
            out["title"] = s[3:].strip()
        elif s.startswith("#"):
            section = {"heading": s.lstrip("#").strip(), "text": [], "tables": []}
            out["sections"].append(section)
        elif s.startswith("- ") and len(out["sections"]) == 1 and not section["tables"]:
            key, sep, value = s[2:].partition(": ")
            if sep:
                out["meta"][key] = value.strip("`")
            else:
                out["meta"]["versions"].append(s[2:])
                section["text"].append(s)
        elif s:
            section["text"].append(s)
    return out


def write_json(path: str, lines: list) -> None:
    """Write the report made of ``lines`` to ``path`` as JSON."""
    with open(path, "w") as f:
        json.dump(parse("\n".join(lines)), f, indent=1)


def main() -> None:
    p = argparse.ArgumentParser(description="Convert a benchmark's Markdown report to its JSON.")
    p.add_argument("report", help="a Markdown report a benchmark printed")
    p.add_argument("-o", "--output", required=True, help="the JSON file to write")
    args = p.parse_args()
    with open(args.report) as f:
        write_json(args.output, f.read().splitlines())


if __name__ == "__main__":
    main()
