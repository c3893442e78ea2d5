"""Help pages in words a user knows: ``PATH``, ``N``, ``TEXT`` instead of Python type names."""

from __future__ import annotations

import inspect
from typing import get_args

from typer.core import TyperArgument, TyperCommand, TyperGroup

__all__ = ["KgCommand", "KgHelpGroup", "reflow", "split_examples", "value_name"]


def reflow(text: str | None) -> str | None:
    r"""Join the lines of each prose paragraph of a docstring, so the terminal wraps the
    help to its width; indented paragraphs (examples, crontab lines) keep their lines.

    >>> reflow("Score a build\nagainst gold.\n\nExamples:\n\n    kg eval out g")
    'Score a build against gold.\n\nExamples:\n\n    kg eval out g'
    """
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if any(line.startswith((" ", "\b")) for line in p.splitlines()) else " ".join(p.split())
        for p in paragraphs
    )


def split_examples(text: str | None, epilog: str | None = None) -> tuple[str | None, str | None]:
    r"""The help text without its closing ``Example(s):`` section, and that section as the
    epilog (printed after the options).

    >>> split_examples("Score it.\n\nExample:\n\n    kg eval out gold.jsonl")
    ('Score it.', 'Example:\n\n    kg eval out gold.jsonl')
    """
    if not text or epilog is not None:
        return text, epilog
    head, sep, tail = text.partition("\n\nExample")
    if not sep:
        return text, epilog
    return head, "Example" + tail


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
        self.help, self.epilog = split_examples(reflow(self.help), self.epilog)

    def format_help(self, ctx, formatter) -> None:
        name_values(self.get_params(ctx))
        super().format_help(ctx, formatter)


class KgHelpGroup(TyperGroup):
    """A typer command group whose help names values as :class:`KgCommand` does."""

    def format_help(self, ctx, formatter) -> None:
        name_values(self.get_params(ctx))
        super().format_help(ctx, formatter)


def name_values(params) -> None:
    """Let help show each of ``params`` with :func:`value_name`'s name for its value."""
    for param in params:
        name = value_name(param)
        if isinstance(param, TyperArgument):
            if param.metavar is None:
                param.metavar = param.name.upper()
            param.display_type_rich = lambda ctx, name=name: None  # the name says it
        elif param.metavar is None:
            param.display_type_rich = lambda ctx, name=name: name
