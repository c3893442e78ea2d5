"""Help pages in words a user knows: ``PATH``, ``N``, ``TEXT`` instead of Python type names."""

from __future__ import annotations

import inspect
from typing import get_args

from typer.core import TyperArgument, TyperCommand

__all__ = ["KgCommand", "reflow", "value_name"]


def reflow(text: str | None) -> str | None:
    r"""Join the lines of each prose paragraph of a docstring, so the terminal wraps the
    help to its width; indented paragraphs (examples, crontab lines) keep their lines.

    >>> reflow("Score a build\nagainst gold.\n\nExamples:\n\n    kg eval g --pred out")
    'Score a build against gold.\n\nExamples:\n\n    kg eval g --pred out'
    """
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if any(line.startswith((" ", "\b")) for line in p.splitlines()) else " ".join(p.split())
        for p in paragraphs
    )


def value_name(param) -> str | None:
    """What to call the value of ``param`` in help: None for a flag, choices joined by ``|``."""
    if getattr(param, "is_flag", False):
        return None
    desc = param.type_descriptor
    if desc.is_choice:
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices)
    if desc.is_path or desc.is_file:
        return "PATH"
    annotation = desc.annotation
    if desc.is_list:
        (annotation,) = get_args(annotation)
    if annotation is int:
        return "N"
    if annotation is float:
        return "NUMBER"
    return "TEXT"


class KgCommand(TyperCommand):
    """A typer command whose help names values ``PATH``, ``N``, ``TEXT`` or their choices."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def format_help(self, ctx, formatter) -> None:
        for param in self.get_params(ctx):
            name = value_name(param)
            if isinstance(param, TyperArgument):
                if param.metavar is None:
                    param.metavar = param.name.upper()
                param.display_type_rich = lambda ctx, name=name: None  # the name says it
            elif param.metavar is None:
                param.display_type_rich = lambda ctx, name=name: name
        super().format_help(ctx, formatter)
