"""Map kg's known exceptions to one-line messages and exit codes."""

from __future__ import annotations

import os
import sys

import typer

from kg.errors import KgError

from ._help import KgHelpGroup

# OSError: a read-only or full disk, a missing folder... said in one line, not a traceback
_KNOWN = (KgError, OSError, ModuleNotFoundError)


class KgGroup(KgHelpGroup):
    """The ``kg`` command group: a known error prints ``kg: error: …`` and exits 1.

    Handled here rather than around the app, so that every way of running a command
    (the console script, ``python -m``, typer's test runner) says the same thing.
    """

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _KNOWN as exc:
            if os.environ.get("KG_DEBUG"):
                raise
            print(f"kg: error: {exc}", file=sys.stderr)
            if not isinstance(exc, KgError) or exc.__cause__ is not None:
                print("(set KG_DEBUG=1 to see the traceback)", file=sys.stderr)
            raise typer.Exit(1) from None
