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
    with_learned_direction,
)

from ._neo4j import neo4j_settings
from ._output import FORMATS, parse_params, print_rows, print_saved_queries, stderr


def query(
    name: Annotated[str | None, typer.Argument(help="A saved query (see --list).")] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE, repeatable.")
    ] = None,
    neo4j: Annotated[
        bool, typer.Option("--neo4j", help="Run on Neo4j (NEO4J_URI, NEO4J_USERNAME, ...).")
    ] = False,
    db: Annotated[
        Path | None, typer.Option("--db", help="Run on the embedded store of this build.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
    show: Annotated[
        bool, typer.Option("--show", help="Print the query's Cypher (no parameters needed).")
    ] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the saved queries.")] = False,
) -> None:
    """Run a saved Cypher query on Neo4j or on a build's embedded LadybugDB store.

    With --neo4j it runs on the Neo4j server the NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD
    and NEO4J_DATABASE environment variables name; without --neo4j or --db, on the build in
    ./kg-out (the default output of `kg build`) if there is one.

    Examples:

        kg query --list

        kg query leaderboard --db out -p dataset=ImageNet -p metric=accuracy

        kg query builds-on --neo4j -p method=Transformer --format json
    """
    if list_ or name is None:
        print_saved_queries(list_queries())
        return
    if fmt not in FORMATS:
        raise typer.BadParameter("--format must be table, json or csv")
    if neo4j and db:
        raise typer.BadParameter("give --neo4j or --db, not both")
    saved = get_query(name)
    use_neo4j = neo4j
    if show:  # the Cypher alone: no parameters or database needed
        print(saved.text_for("neo4j" if use_neo4j else "ladybug"))
        return
    params = saved.bind(with_learned_direction(saved, parse_params(param or [], saved.examples())))
    if not use_neo4j and db is None:
        if not (Path("kg-out") / "graph.lbdb").exists():
            raise typer.BadParameter("say where to run it: --db BUILD_DIR, or --neo4j")
        db = Path("kg-out")
    if use_neo4j:
        from kg.exporters.neo4j import connect

        settings = neo4j_settings()
        driver = connect(settings)
        try:
            engine: Engine = Neo4jEngine(driver, settings.database)
            result = _run(engine, saved, params)
        finally:
            driver.close()
    else:
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
