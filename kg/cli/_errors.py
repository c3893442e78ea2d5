"""Map kg's known exceptions to one-line messages and exit codes."""

from __future__ import annotations

import os
import sys

import typer

from kg.errors import KgError

_KNOWN = (KgError, FileNotFoundError, ModuleNotFoundError, PermissionError, IsADirectoryError)


def run_with_errors(app: typer.Typer) -> None:
    """Run ``app``; a known error prints ``kg: error: …`` to stderr and exits 1."""
    try:
        app(standalone_mode=True)
    except _KNOWN as exc:
        if os.environ.get("KG_DEBUG"):
            raise
        print(f"kg: error: {exc}", file=sys.stderr)
        print("(set KG_DEBUG=1 to see the traceback)", file=sys.stderr)
        sys.exit(1)
