"""``kg eval``: score extractions against paper-level gold annotations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from kg.eval import evaluate_files, format_table

from ._output import check_save, print_json, renamed, save_json

OutOption = Annotated[
    Path | None, typer.Option("-o", "--out", help="Also write the scores as JSON to this file.")
]
SaveAlias = Annotated[Path | None, typer.Option("--save", hidden=True)]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Let --out replace a file kg did not write.")
]
ScoresFormat = Annotated[
    Literal["table", "json"], typer.Option("--format", help="How to print the scores.")
]
JsonAlias = Annotated[bool, typer.Option("--json", hidden=True)]


def eval_cmd(
    build: Annotated[Path, typer.Argument(help="A build directory, or its extractions.jsonl.")],
    gold: Annotated[
        Path | None, typer.Argument(help="Gold JSONL (see ../shared/gold/README.md).")
    ] = None,
    fmt: ScoresFormat = "table",
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="List false positives and negatives, under the paper each is from."
        ),
    ] = False,
    pairs: Annotated[
        Path | None,
        typer.Option(
            "--pairs",
            help="Also score the build's merges on these labelled name pairs (TSV: type, a, "
            "b, same, source; benchmarks/head/merge_pairs.tsv): precision and recall.",
        ),
    ] = None,
    out: OutOption = None,
    force: ForceOption = False,
    pred: Annotated[Path | None, typer.Option("--pred", hidden=True)] = None,
    json_out: JsonAlias = False,
    save: SaveAlias = None,
) -> None:
    """Score a build against gold annotations.

    Entities (typed, untyped, per type), relations and results, paper by paper as
    ../shared/gold/README.md says; with --pairs, the build's merges too.

    Examples:

        kg eval out ../shared/gold/dev.jsonl

        kg eval out ../shared/gold/dev.jsonl --pairs benchmarks/head/merge_pairs.tsv -o scores.json

        kg eval out --pairs benchmarks/head/merge_pairs.tsv
    """
    if pred is not None:  # the old `kg eval GOLD --pred BUILD`
        renamed("kg eval GOLD --pred BUILD", "kg eval BUILD GOLD")
        build, gold = pred, gold or build
    if gold is None and pairs is None:
        raise typer.BadParameter(
            "give the gold file after the build: kg eval BUILD GOLD "
            "(or --pairs FILE alone to score the build's merges)"
        )
    if explain and gold is None:
        raise typer.BadParameter("--explain lists what a build misses of a gold file: give GOLD")
    out, fmt = _old_output(out, save, fmt, json_out)
    read = build / "extractions.jsonl" if build.is_dir() else build
    check_save(out, force, inputs=[gold, read, pairs])
    scores = evaluate_files(gold, build, explain=explain) if gold is not None else {}
    if pairs is not None:
        from kg.eval.merges import read_pairs, score_merges

        scores["merges"] = score_merges(_build_dir(build), read_pairs(pairs))
    save_json(scores, out)
    if fmt == "json":
        print_json(scores)
        return
    if gold is not None:
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
    corpus_format: Annotated[
        Literal["scierc", "scirex"] | None,
        typer.Option("--corpus-format", help="The corpus's format (default: from the file name)."),
    ] = None,
    limit: Annotated[int, typer.Option(min=0, help="Score only the first N documents.")] = 0,
    fmt: ScoresFormat = "table",
    out: OutOption = None,
    force: ForceOption = False,
    json_out: JsonAlias = False,
    save: SaveAlias = None,
) -> None:
    """Score the entity recognizer on the mentions of SciERC or SciREX.

    A mention counts when its type and exact span match; Material counts as Dataset.

    Example:

        kg eval-mentions ../shared/datasets/scierc/test.json
    """
    from itertools import islice

    from kg.eval.mentions import predicted_mentions, read_scierc, read_scirex, score_mentions
    from kg.nlp import load_pipeline

    out, fmt = _old_output(out, save, fmt, json_out)
    check_save(out, force, inputs=[corpus])
    kind = corpus_format or ("scirex" if "scirex" in str(corpus).lower() else "scierc")
    docs = {"scierc": read_scierc, "scirex": read_scirex}[kind](corpus)
    if limit:
        docs = islice(docs, limit)
    nlp = load_pipeline()
    nlp.max_length = max(nlp.max_length, 5_000_000)  # SciREX documents are whole papers
    scores = score_mentions(predicted_mentions(nlp, docs, batch_size=4))
    save_json(scores, out)
    if fmt == "json":
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


def _old_output(out: Path | None, save: Path | None, fmt: str, json_out: bool):
    """``--out`` and ``--format`` given the old ``--save`` and ``--json`` too."""
    if save is not None:
        renamed("--save", "-o/--out")
        out = out or save
    if json_out:
        renamed("--json", "--format json")
        fmt = "json"
    return out, fmt


def _build_dir(pred: Path) -> Path:
    """The build a BUILD argument names (its folder, or the folder of its extractions.jsonl)."""
    from kg.errors import KgError
    from kg.graph.store import ENTITIES, TABLES

    build = pred if pred.is_dir() else pred.parent
    if not (build / TABLES / ENTITIES).is_file():
        raise KgError(f"--pairs needs a build folder with {TABLES}/{ENTITIES}; {pred} is none")
    return build
