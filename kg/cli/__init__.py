"""The ``kg`` command line: thin wrappers over library functions."""

from __future__ import annotations

import typer

from kg.cli import analyze as _analyze
from kg.cli import build as _build
from kg.cli import cypher as _cypher
from kg.cli import eval as _eval
from kg.cli import export as _export
from kg.cli import load as _load
from kg.cli import query as _query
from kg.cli._errors import KgGroup

__all__ = ["app", "main"]

app = typer.Typer(
    name="kg",
    help="Turn ML paper abstracts into a knowledge graph (Turtle, JSON, LadybugDB, Neo4j).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=KgGroup,
)
app.command("build")(_build.build)
app.command("eval")(_eval.eval_cmd)
app.command("eval-mentions")(_eval.eval_mentions_cmd)
app.command("cypher")(_cypher.cypher)
app.command("query")(_query.query)
app.command("analyze")(_analyze.analyze)
app.command("viz")(_analyze.viz)
app.add_typer(_load.app, name="load")
app.add_typer(_export.app, name="export")


def main() -> None:
    """Entry point of the ``kg`` console script."""
    app()
