"""Map kg's known exceptions to one-line messages and exit codes."""

from __future__ import annotations

import os
import sys

import typer

from kg.errors import KgError

from ._help import KgHelpGroup

# OSError: a read-only or full disk, a missing folder... said in one line, not a traceback
_KNOWN = (KgError, OSError, ModuleNotFoundError)

# a user's file that no reader said ``file:line: reason`` of: what it is, in words
_BAD_INPUT = {
    UnicodeDecodeError: "a file holds bytes that are not UTF-8 text ({exc.reason} at byte "
    "{exc.start}); save it as UTF-8",
    RecursionError: "an input is nested too deeply to read",
}


def non_utf8_argument(args: list[str]) -> str | None:
    r"""The message for the first argument that is not UTF-8 text (Python keeps the bytes
    of such an argument as lone surrogates), or None when all are.

    >>> non_utf8_argument(["explain", "out", "caf\udce9"])
    "argument 3 (b'caf\\xe9') is not UTF-8 text; give names and values in UTF-8"
    """
    for n, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape")
            return f"argument {n} ({raw!r}) is not UTF-8 text; give names and values in UTF-8"
    return None


class KgGroup(KgHelpGroup):
    """The ``kg`` command group: a known error prints ``kg: error: …`` and exits 1.

    Handled here rather than around the app, so that every way of running a command
    (the console script, ``python -m``, typer's test runner) says the same thing.
    """

    def parse_args(self, ctx, args):
        bad = non_utf8_argument(args)  # every argument, the subcommands' too, comes here
        if bad is not None:
            print(f"kg: error: {bad}", file=sys.stderr)
            raise typer.Exit(2)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _KNOWN as exc:
            _fail(exc, str(exc), hint=not isinstance(exc, KgError) or exc.__cause__ is not None)
        except tuple(_BAD_INPUT) as exc:
            _fail(exc, _BAD_INPUT[type(exc)].format(exc=exc), hint=True)


def _fail(exc: BaseException, message: str, *, hint: bool):
    """Print ``kg: error: message`` (and how to see the traceback) and exit 1."""
    if os.environ.get("KG_DEBUG"):
        raise exc
    print(f"kg: error: {message}", file=sys.stderr)
    if hint:
        print("(set KG_DEBUG=1 to see the traceback)", file=sys.stderr)
    raise typer.Exit(1) from None
