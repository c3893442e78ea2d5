"""The ``kg`` command line: thin wrappers over library functions."""

from __future__ import annotations

from typing import Annotated

import typer

from kg.cli import analyze as _analyze
from kg.cli import build as _build
from kg.cli import curate as _curate
from kg.cli import cypher as _cypher
from kg.cli import eval as _eval
from kg.cli import explain as _explain
from kg.cli import export as _export
from kg.cli import fetch as _fetch
from kg.cli import load as _load
from kg.cli import query as _query
from kg.cli import sparql as _sparql
from kg.cli import update as _update
from kg.cli._errors import KgGroup
from kg.cli._help import KgCommand

__all__ = ["app", "main"]

app = typer.Typer(
    name="kg",
    help="Turn ML paper abstracts into a knowledge graph (Turtle, JSON, LadybugDB, Neo4j).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=KgGroup,
)
app.command("build", cls=KgCommand)(_build.build)
app.command("eval", cls=KgCommand)(_eval.eval_cmd)
app.command("eval-mentions", cls=KgCommand)(_eval.eval_mentions_cmd)
app.command("cypher", cls=KgCommand)(_cypher.cypher)
app.command("query", cls=KgCommand)(_query.query)
app.command("sparql", cls=KgCommand)(_sparql.sparql)
app.command("analyze", cls=KgCommand)(_analyze.analyze)
app.command("viz", cls=KgCommand)(_analyze.viz)
app.command("update", cls=KgCommand)(_update.update)
app.command("explain", cls=KgCommand)(_explain.explain_cmd)


def _version(value: bool) -> None:
    if value:
        from kg import __version__

        print(f"kg {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_version, help="Print kg's version and exit."
        ),
    ] = False,
) -> None:
    """Turn ML paper abstracts into a knowledge graph (Turtle, JSON, LadybugDB, Neo4j)."""


app.add_typer(_load.app, name="load")
app.add_typer(_export.app, name="export")
app.add_typer(_fetch.app, name="fetch")
app.add_typer(_curate.app, name="curate")


def main() -> None:
    """Entry point of the ``kg`` console script."""
    app()
