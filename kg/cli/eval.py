"""``kg eval``: score extractions against paper-level gold annotations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.eval import evaluate_files, format_table

from ._output import print_json


def eval_cmd(
    gold: Annotated[Path, typer.Argument(help="Gold JSONL (see ../shared/gold/README.md).")],
    pred: Annotated[
        Path, typer.Option("--pred", help="extractions.jsonl or a build directory.")
    ] = Path("kg-out"),
    json_out: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
    explain: Annotated[bool, typer.Option(help="List false positives and negatives.")] = False,
) -> None:
    """Score a build against gold: entities (typed, untyped, per type), relations, results.

    Example:

        kg eval ../shared/gold/dev.jsonl --pred out/extractions.jsonl
    """
    scores = evaluate_files(gold, pred, explain=explain)
    if json_out:
        print_json(scores)
        return
    print(format_table(scores))
    if explain:
        for note in scores["explain"]:
            print(f"{note['kind']:12} {' | '.join(str(x) for x in note['item'])}")
