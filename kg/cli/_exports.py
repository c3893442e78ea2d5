"""The exporters' limits as options of the commands that build (``kg build``, ``kg update``),
each with the environment variable that sets it."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = [
    "LadybugEvidenceMax",
    "LadybugForwardOnlyAbove",
    "LadybugMemory",
    "LadybugMemoryMax",
    "LadybugTextMax",
    "export_options",
]

LadybugMemory = Annotated[
    int | None,
    typer.Option(
        min=0,
        envvar="KG_LADYBUG_MEMORY_MB",
        rich_help_panel="LadybugDB store",
        show_default=False,
        help="The LadybugDB store's write buffer pool in MB as it starts (0: most of "
        "the machine's memory; default 512).",
    ),
]

LadybugMemoryMax = Annotated[
    int | None,
    typer.Option(
        min=0,
        envvar="KG_LADYBUG_MEMORY_MAX_MB",
        rich_help_panel="LadybugDB store",
        show_default=False,
        help="What that pool may grow to, in MB, when a COPY finds it full (default: a "
        "quarter of the machine's memory).",
    ),
]

LadybugTextMax = Annotated[
    int | None,
    typer.Option(
        min=0,
        envvar="KG_LADYBUG_TEXT_MAX_PAPERS",
        rich_help_panel="LadybugDB store",
        show_default=False,
        help="A store of more papers leaves their abstracts (Paper.text) out (default 20,000).",
    ),
]

LadybugEvidenceMax = Annotated[
    int | None,
    typer.Option(
        min=0,
        envvar="KG_LADYBUG_EVIDENCE_MAX_PAPERS",
        rich_help_panel="LadybugDB store",
        show_default=False,
        help="A store of more papers leaves its relationships' evidence out (default: never).",
    ),
]

LadybugForwardOnlyAbove = Annotated[
    int | None,
    typer.Option(
        min=0,
        envvar="KG_LADYBUG_FORWARD_ONLY_ABOVE_MB",
        rich_help_panel="LadybugDB store",
        show_default=False,
        help="A relationship table heavier than this many MB is stored forward only "
        "(default: an eighth of the pool).",
    ),
]


def export_options(**limits: int | None):
    """The :class:`~kg.exporters.registry.ExportOptions` of the limits given."""
    from kg.exporters.registry import ExportOptions

    return ExportOptions(**limits)
