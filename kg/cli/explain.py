"""``kg explain``: an entity of a build, its names and the merges behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.errors import KgError
from kg.query.explain import explain

from ._output import print_json, stdout


def explain_cmd(
    what: Annotated[str, typer.Argument(help="An entity key (method:lora), name or alias.")],
    db: Annotated[Path, typer.Option("--db", help="The build to read.")] = Path("kg-out"),
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Show an entity of a build: its key, type, display name, aliases and support, and each
    merge that folded another key into it, with its rule (acronym, separators, fuzzy), score
    and the papers behind it. Reads the build's tables; writes nothing.

    Examples:

        kg explain method:low-rank-adaptation --db out

        kg explain CLIP --db out --format json
    """
    if fmt not in ("text", "json"):
        raise typer.BadParameter("--format must be text or json")
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
