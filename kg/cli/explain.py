"""``kg explain``: an entity of a build, its names and the merges behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from kg.errors import KgError
from kg.query.explain import explain

from ._output import print_json, renamed, stdout


def explain_cmd(
    build: Annotated[Path, typer.Argument(help="The build to read.")],
    what: Annotated[
        str | None, typer.Argument(help="An entity key (method:lora), name or alias.")
    ] = None,
    fmt: Annotated[
        Literal["text", "json"], typer.Option("--format", help="How to print it.")
    ] = "text",
    db: Annotated[Path | None, typer.Option("--db", hidden=True)] = None,
) -> None:
    """Show an entity of a build and the merges behind it.

    Its key, type, display name, aliases and support, and each merge that folded another
    key into it, with its rule (acronym, separators, fuzzy), score
    and the papers behind it. Reads the build's tables; writes nothing.

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
        raise KgError(
            f"no entity of {db} has the key, name or alias {what!r}; "
            "`kg query find-entity -p name=...` searches by part of a name"
        )
    if fmt == "json":
        print_json([e.as_dict() for e in found])
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
