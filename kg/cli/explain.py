"""``kg explain``: an entity of a build, its names and the merges behind it."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Literal

import typer

from kg.errors import KgError
from kg.query.explain import explain, relations_of
from kg.schema import RELATION_FLOOR

from ._output import MinConfidence, print_json, renamed, stdout


def no_entity(db: Path, what: str) -> KgError:
    """The error for a name no entity of the build ``db`` has, with the saved query that
    searches by part of a name (its parameter as that query names it)."""
    from kg.query import get_query

    param = get_query("find-entity").params[0].name
    return KgError(
        f"no entity of {db} has the key, name or alias {what!r}; "
        f"`kg query {db} find-entity -p {param}=...` searches by part of a name"
    )


def explain_cmd(
    build: Annotated[Path, typer.Argument(help="The build to read.")],
    what: Annotated[
        str | None, typer.Argument(help="An entity key (method:lora), name or alias.")
    ] = None,
    fmt: Annotated[
        Literal["text", "json"], typer.Option("--format", help="How to print it.")
    ] = "text",
    relations: Annotated[
        int, typer.Option(min=0, help="Its best-supported relations shown, with evidence.")
    ] = 5,
    min_confidence: MinConfidence = RELATION_FLOOR,
    db: Annotated[Path | None, typer.Option("--db", hidden=True)] = None,
) -> None:
    """Show an entity of a build, the merges behind it and its relations' evidence.

    Its key, type, display name, aliases and support, and each merge that folded another
    key into it, with its rule (acronym, separators, fuzzy), score and the papers behind
    it; then its best-supported relations with the sentence (or the two sentences) of
    their best paper, the head mention in [[ ]] and the tail in {{ }}. Reads the build's
    tables; writes nothing.

    Examples:

        kg explain out method:low-rank-adaptation

        kg explain out CLIP --format json
    """
    if db is not None:  # the old `kg explain WHAT --db BUILD`
        renamed("kg explain WHAT --db BUILD", "kg explain BUILD WHAT")
        build, what = db, what or str(build)
    if what is None:
        raise typer.BadParameter("give the entity after the build: kg explain BUILD WHAT")
    db = build
    found = explain(db, what)
    if not found:
        raise no_entity(db, what)
    keys = [e.entity["key"] for e in found]
    edges = relations_of(db, keys, floor=min_confidence, limit=relations) if relations else {}
    if fmt == "json":
        print_json([{**e.as_dict(), "relations": [asdict(r) for r in
                     edges.get(e.entity["key"], ([], 0))[0]]} for e in found])  # fmt: skip
        return
    for e in found:
        ent = e.entity
        stdout.print(f"[bold]{ent['key']}[/bold]  {ent['type']}  {ent['name']!r}", markup=True)
        stdout.print(
            f"  papers {ent['support']}, mentions {ent['mention_count']}, "
            f"proposed by {ent['proposed_count']}",
            markup=False,
        )
        if ent["aliases"]:
            stdout.print("  aliases: " + ", ".join(ent["aliases"][:30]), markup=False)
        if not e.merges:
            stdout.print("  no other key was merged into it", markup=False)
        for m in e.merges:
            papers = ", ".join(m.papers[:5]) + (" …" if m.paper_count > 5 else "")
            stdout.print(
                f"  merged {m.source} ({m.rule}, score {m.score:g}: {m.reason}); "
                f"{m.paper_count} papers: {papers}",
                markup=False,
            )
        if ent["key"] in edges:
            _print_relations(*edges[ent["key"]], min_confidence)


def _print_relations(rels, hidden: int, floor: float) -> None:
    for r in rels:
        stdout.print(f"  {r.head} {r.type} {r.tail}: {r.support} papers, confidence "
                     f"{r.confidence:g}", markup=False)  # fmt: skip
        for ev in r.evidence:
            stdout.print(f"    {ev['paper']}: {ev['text']}", markup=False, soft_wrap=True)
    if hidden:
        stdout.print(f"  {hidden} relations below confidence {floor} not shown "
                     "(--min-confidence 0 shows them)", markup=False)  # fmt: skip
