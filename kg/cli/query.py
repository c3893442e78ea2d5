"""``kg query``: run a saved query from ``queries/`` on Neo4j or on a build's embedded store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.errors import KgError
from kg.query import (
    Engine,
    LadybugEngine,
    Neo4jEngine,
    QueryResult,
    SavedQuery,
    explain_empty,
    get_query,
    list_queries,
    resolve_papers,
    unknown_names,
)

from ._neo4j import neo4j_settings
from ._output import (
    OutputFormat,
    ParamOption,
    build_or_default,
    parse_params,
    print_rows,
    print_saved_queries,
    renamed,
    stderr,
)


def query(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[BUILD] NAME",
            help="The build whose embedded store answers (not with --neo4j; default ./kg-out), "
            "then a saved query (see --list).",
            show_default=False,
        ),
    ] = None,
    param: ParamOption = None,
    neo4j: Annotated[
        bool, typer.Option("--neo4j", help="Run on Neo4j (NEO4J_URI, NEO4J_USERNAME, ...).")
    ] = False,
    fmt: OutputFormat = "table",
    show: Annotated[
        bool, typer.Option("--show", help="Print the query's Cypher (no parameters needed).")
    ] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the saved queries.")] = False,
    db: Annotated[Path | None, typer.Option("--db", hidden=True)] = None,
) -> None:
    """Run a saved Cypher query on a build's embedded LadybugDB store, or on Neo4j.

    With --neo4j it runs on the Neo4j server the NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD
    and NEO4J_DATABASE environment variables name, and takes no build; without a build,
    on ./kg-out (the default output of `kg build`) if there is one.

    Examples:

        kg query --list

        kg query out leaderboard -p dataset=ImageNet -p metric=accuracy

        kg query --neo4j builds-on -p method=Transformer --format json
    """
    args = list(args or [])
    if db is not None:  # the old `kg query NAME --db BUILD`
        renamed("kg query NAME --db BUILD", "kg query BUILD NAME")
        args = [str(db), *args]
    if list_ or not args:
        print_saved_queries(list_queries())
        return
    if len(args) > 2:
        raise typer.BadParameter("give at most a build and a query name: kg query BUILD NAME")
    *build, name = args
    if neo4j and build:
        raise typer.BadParameter("--neo4j takes no build: kg query --neo4j NAME")
    saved = get_query(name)
    if show:  # the Cypher alone: no parameters or database needed
        print(saved.text_for("neo4j" if neo4j else "ladybug"))
        return
    params = saved.bind(parse_params(param or [], saved.examples()))
    if neo4j:
        from kg.exporters.neo4j import connect

        settings = neo4j_settings()
        driver = connect(settings)
        try:
            engine: Engine = Neo4jEngine(driver, settings.database)
            result = _run(engine, saved, params)
        finally:
            driver.close()
    else:
        usage = "say where to run it: kg query BUILD NAME, or kg query --neo4j NAME"
        db = build_or_default(build, ("graph.lbdb",), usage)
        result = _run(LadybugEngine(db), saved, params)
    print_rows(result.columns, result.rows, fmt)


def _run(engine: Engine, saved: SavedQuery, params: dict) -> QueryResult:
    """Run ``saved`` (a paper named by its title or first words stands for its id); an
    empty answer because a parameter names nothing is an error, and an empty leaderboard
    says why."""
    return run_explained(engine, saved, params, saved.text_for(engine.name))


def run_explained(engine, saved: SavedQuery, params: dict, text: str) -> QueryResult:
    """Run the saved query's ``text`` on ``engine`` as :func:`_run` says (both `kg query`
    and `kg sparql` run saved queries so)."""
    params, notes = resolve_papers(engine, saved, params)
    for note in notes:
        stderr.print(f"note: {note}", highlight=False)
    result = engine.run(text, params)
    if not result.rows:
        unknown = unknown_names(engine, saved, params)
        if unknown:
            raise KgError("; ".join(str(u) for u in unknown))
        why = explain_empty(engine, saved, params)
        if why:
            stderr.print(f"note: {why}", highlight=False)
    return result
