"""Errors of the kernel language: each one points at a line and column of the snippet.

The message is built when it is shown, so a parse error raised (and cached nowhere) deep in
the parser can be given the kernel's name and the snippet's text on its way out.
"""

from __future__ import annotations


class KernelError(ValueError):
    """A kernel snippet could not be compiled.

    ``line`` and ``column`` are 1-based positions in the snippet named by ``where``
    ("body", "preamble", "params"), or None when the error has no position (a placeholder
    bound to two dtypes).
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 *, source: str | None = None, where: str = "body",
                 kernel_name: str = "kernel"):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.source = source
        self.where = where
        self.kernel_name = kernel_name

    def attach(self, source: str | None, where: str, kernel_name: str) -> "KernelError":
        """Fill in the snippet text and names if still unknown; return self (for ``raise``)."""
        if self.source is None:
            self.source = source
            self.where = where
        self.kernel_name = kernel_name
        return self

    def __str__(self) -> str:
        head = f"kernel '{self.kernel_name}'"
        if self.line is None:
            return f"{head}: {self.message}"
        where = "" if self.where == "body" else f"{self.where} "
        text = f"{head}, {where}line {self.line}, column {self.column}: {self.message}"
        if self.source is not None:
            lines = self.source.splitlines()
            if 1 <= self.line <= len(lines):
                src = lines[self.line - 1].expandtabs(1)
                text += "\n    " + src + "\n    " + " " * (max(self.column, 1) - 1) + "^"
        return text

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.line, self.column, self.source,
                           self.where, self.kernel_name))


def _rebuild(cls, message, line, column, source, where, kernel_name):
    return cls(message, line, column, source=source, where=where, kernel_name=kernel_name)


class KernelSyntaxError(KernelError):
    """The snippet is not valid kernel-language text, or uses an unsupported construct."""


class KernelTypeError(KernelError, TypeError):
    """Operand types do not fit an operation (e.g. assigning to an input, ``~`` on a float)."""


class KernelNameError(KernelError, NameError):
    """An identifier, type or function name is unknown."""
