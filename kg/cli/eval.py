"""``kg eval``: score extractions against paper-level gold annotations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.eval import evaluate_files, format_table

from ._output import check_save, print_json, save_json

SaveOption = Annotated[
    Path | None, typer.Option("--save", help="Also write the scores as JSON to this file.")
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Let --save replace a file kg did not write.")
]


def eval_cmd(
    gold: Annotated[Path, typer.Argument(help="Gold JSONL (see ../shared/gold/README.md).")],
    pred: Annotated[
        Path, typer.Option("--pred", help="extractions.jsonl or a build directory.")
    ] = Path("kg-out"),
    json_out: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
    explain: Annotated[
        bool, typer.Option(help="List false positives and negatives, under the paper each is from.")
    ] = False,
    pairs: Annotated[
        Path | None,
        typer.Option(
            "--pairs",
            help="Also score the build's merges on these labelled name pairs (TSV: type, a, "
            "b, same, source; benchmarks/head/merge_pairs.tsv): precision and recall.",
        ),
    ] = None,
    save: SaveOption = None,
    force: ForceOption = False,
) -> None:
    """Score a build against gold: entities (typed, untyped, per type), relations, results;
    with --pairs, its merges too.

    Examples:

        kg eval ../shared/gold/dev.jsonl --pred out/extractions.jsonl

        kg eval ../shared/gold/dev.jsonl --pred out --pairs benchmarks/head/merge_pairs.tsv
    """
    check_save(save, force)
    scores = evaluate_files(gold, pred, explain=explain)
    if pairs is not None:
        from kg.eval.merges import read_pairs, score_merges

        scores["merges"] = score_merges(_build_dir(pred), read_pairs(pairs))
    save_json(scores, save)
    if json_out:
        print_json(scores)
        return
    print(format_table(scores))
    if pairs is not None:
        m = scores["merges"]
        print(
            f"merges: precision {m['precision']:.3f} ({m['merged']} labelled pairs merged), "
            f"recall {m['recall']:.3f} (of {m['same_pairs']} same-thing pairs in the build); "
            f"{m['not_in_build']} of {m['pairs']} pairs name something the build lacks"
        )
        for type_, a, b, source in m["wrong"]:
            print(f"  wrong merge: {type_} {a!r} + {b!r} ({source})")
    if explain:
        paper = None
        for note in scores["explain"]:
            if note["paper"] != paper:
                paper = note["paper"]
                print(f"\n{paper}")
            print(f"  {note['kind']:12} {' | '.join(str(x) for x in note['item'])}")


def eval_mentions_cmd(
    corpus: Annotated[Path, typer.Argument(help="SciERC JSON lines or SciREX .jsonl(.gz).")],
    fmt: Annotated[
        str, typer.Option("--format", help="scierc or scirex (default: from the file name).")
    ] = "",
    limit: Annotated[int, typer.Option(min=0, help="Score only the first N documents.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    save: SaveOption = None,
    force: ForceOption = False,
) -> None:
    """Score kg's entity recognizer at mention level on SciERC or SciREX (typed exact span;
    Material counts as Dataset).

    Example:

        kg eval-mentions ../shared/datasets/scierc/test.json
    """
    from itertools import islice

    from kg.eval.mentions import predicted_mentions, read_scierc, read_scirex, score_mentions
    from kg.nlp import load_pipeline

    check_save(save, force)
    fmt = fmt or ("scirex" if "scirex" in str(corpus).lower() else "scierc")
    readers = {"scierc": read_scierc, "scirex": read_scirex}
    if fmt not in readers:
        raise typer.BadParameter("--format must be scierc or scirex")
    docs = readers[fmt](corpus)
    if limit:
        docs = islice(docs, limit)
    nlp = load_pipeline()
    nlp.max_length = max(nlp.max_length, 5_000_000)  # SciREX documents are whole papers
    scores = score_mentions(predicted_mentions(nlp, docs, batch_size=4))
    save_json(scores, save)
    if json_out:
        print_json(scores)
        return
    rows = [("typed", scores["typed"]), ("untyped", scores["untyped"])]
    rows += [(f"  {t}", s) for t, s in scores["per_type"].items()]
    print(f"{'':20} {'P':>6} {'R':>6} {'F1':>6} {'pred':>7} {'gold':>7}")
    for name, s in rows:
        print(
            f"{name:20} {s['precision']:6.3f} {s['recall']:6.3f} {s['f1']:6.3f} "
            f"{s['pred']:7d} {s['gold']:7d}"
        )
    print(f"documents: {scores['documents']}")


def _build_dir(pred: Path) -> Path:
    """The build a --pred names (its folder, or the folder of its extractions.jsonl)."""
    from kg.errors import KgError
    from kg.graph.store import ENTITIES, TABLES

    build = pred if pred.is_dir() else pred.parent
    if not (build / TABLES / ENTITIES).is_file():
        raise KgError(f"--pairs needs a build folder with {TABLES}/{ENTITIES}; {pred} is none")
    return build
