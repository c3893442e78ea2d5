"""Exceptions raised by kg; the CLI maps them to one-line messages and exit codes."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "KgError",
    "InputError",
    "SchemaError",
    "ExportError",
    "BuildError",
    "FetchError",
]


class KgError(Exception):
    """Base class of every error kg raises on purpose."""


class InputError(KgError):
    """An input file or record that cannot be read.

    Parameters
    ----------
    path : str or Path
        The file (``-`` for standard input).
    line : int or None
        1-based line number of the bad record, when there is one.
    reason : str
        What is wrong and, where possible, how to fix it.
    """

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")


class SchemaError(KgError):
    """A label, relation type or record that is not in kg's fixed schema."""


class ExportError(KgError):
    """An exporter could not write its output."""


class BuildError(KgError):
    """A build that failed; its message says what happened to the previous output."""


class FetchError(KgError):
    """A source that could not be fetched from (after retries), or answered an error."""
