"""MkDocs hooks of the documentation site: the settings table, written from rocarray/_settings.py.

``<!-- rocarray-settings -->`` in a page becomes a table of every ``ROCARRAY_*`` setting --
name, default, allowed values, meaning -- read from the one module that declares them, so
the page cannot drift from the code.
"""

from __future__ import annotations

from rocarray import _settings

MARKER = "<!-- rocarray-settings -->"


def settings_table() -> str:
    """The Markdown table of every declared setting."""
    rows = ["| variable | default | allowed values | what it does |", "|---|---|---|---|"]
    for s in _settings.SETTINGS.values():
        # (a default computed on the machine, as the CPU count, is said in the meaning)
        shown = "computed" if callable(s.default) else "unset" if s.default is None else f"`{s.default}`"
        rows.append(f"| `{s.name}` | {shown} | {s.allowed} | {s.help} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **kwargs) -> str:
    """Replace the marker with the table."""
    return markdown.replace(MARKER, settings_table()) if MARKER in markdown else markdown
