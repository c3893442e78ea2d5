"""Help pages in words a user knows: ``PATH``, ``N``, ``TEXT`` instead of Python type names."""

from __future__ import annotations

from typing import get_args

from typer.core import TyperArgument, TyperCommand

__all__ = ["KgCommand", "value_name"]


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
