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


def _limit(envvar: str, help: str):
    """A limit of the LadybugDB store: a number, None when not given (the default)."""
    return typer.Option(
        min=0, envvar=envvar, rich_help_panel="LadybugDB store", show_default=False, help=help
    )


LadybugMemory = Annotated[
    int | None,
    _limit(
        "KG_LADYBUG_MEMORY_MB",
        "The LadybugDB store's write buffer pool in MB as it starts (0: most of "
        "the machine's memory; default 512).",
    ),
]
LadybugMemoryMax = Annotated[
    int | None,
    _limit(
        "KG_LADYBUG_MEMORY_MAX_MB",
        "What that pool may grow to, in MB, when a COPY finds it full (default: a "
        "quarter of the machine's memory).",
    ),
]
LadybugTextMax = Annotated[
    int | None,
    _limit(
        "KG_LADYBUG_TEXT_MAX_PAPERS",
        "A store of more papers leaves their abstracts (Paper.text) out (default 20,000).",
    ),
]
LadybugEvidenceMax = Annotated[
    int | None,
    _limit(
        "KG_LADYBUG_EVIDENCE_MAX_PAPERS",
        "A store of more papers leaves its relationships' evidence out (default: never).",
    ),
]
LadybugForwardOnlyAbove = Annotated[
    int | None,
    _limit(
        "KG_LADYBUG_FORWARD_ONLY_ABOVE_MB",
        "A relationship table heavier than this many MB is stored forward only "
        "(default: an eighth of the pool).",
    ),
]


def export_options(
    memory_mb: int | None,
    memory_max_mb: int | None,
    text_max_papers: int | None,
    evidence_max_papers: int | None,
    forward_only_above_mb: int | None,
    **others,
):
    """The :class:`~kg.exporters.registry.ExportOptions` of the LadybugDB limits given (in
    the order of the options above), and ``others`` (``outputs``, ``graph_json_max``)."""
    from kg.exporters.ladybug_options import LadybugOptions
    from kg.exporters.registry import ExportOptions

    limits = LadybugOptions(
        memory_mb, memory_max_mb, text_max_papers, evidence_max_papers, forward_only_above_mb
    )
    return ExportOptions(**others, ladybug=limits)
