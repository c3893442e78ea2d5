"""``kg sparql``: run a saved SPARQL query from ``queries/sparql/`` (or any query) on a build."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.errors import KgError
from kg.query import with_learned_direction
from kg.query.sparql import (
    SparqlEngine,
    list_sparql_queries,
    render_query,
)

from ._output import FORMATS, parse_params, print_rows, print_saved_queries
from .query import run_explained

DEFAULT_BUILD = Path("kg-out")


def sparql(
    first: Annotated[
        str | None,
        typer.Argument(metavar="NAME|OUT", help="A saved query (see --list), or a build."),
    ] = None,
    second: Annotated[
        str | None,
        typer.Argument(
            metavar="OUT|QUERY",
            help="The build to query (after NAME), or a SPARQL query or .rq file (after OUT).",
        ),
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE, repeatable.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
    show: Annotated[
        bool,
        typer.Option(
            "--show",
            help="Print the saved query; with --param, with the values written in as RDF "
            "terms, for endpoints that take no bindings (Oxigraph server, Fuseki).",
        ),
    ] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the saved SPARQL queries.")] = False,
    allow_service: Annotated[
        bool,
        typer.Option(
            "--allow-service",
            help="Run SERVICE clauses, which send requests to other SPARQL endpoints over "
            "the network (refused by default).",
        ),
    ] = False,
) -> None:
    """Run SPARQL on a build: a saved query by name, or any query you write.

    The build's Oxigraph store (OUT/graph.oxigraph) answers when it has one; otherwise
    OUT/graph.ttl is parsed first. Parameters are bound as typed RDF terms (never pasted
    into the query text). Without OUT, ./kg-out is used if it is a build. Only queries
    run: SPARQL Update is refused, and a SERVICE clause needs --allow-service.

    Examples:

        kg sparql --list

        kg sparql leaderboard out -p dataset=ImageNet -p metric=accuracy

        kg sparql out "SELECT ?name WHERE { ?m a kgo:Method ; skos:prefLabel ?name } LIMIT 5"

        kg sparql out my-query.rq -p limit=10 --format csv
    """
    if list_ or first is None:
        print_saved_queries(list_sparql_queries())
        return
    if fmt not in FORMATS:
        raise typer.BadParameter("--format must be table, json or csv")
    saved_queries = {q.name: q for q in list_sparql_queries()}  # the files are read once
    if first in saved_queries:
        saved = saved_queries[first]
        if show and not param:
            print(saved.text, end="")
            return
        params = saved.bind(
            with_learned_direction(saved, parse_params(param or [], saved.examples()))
        )
        if show:
            print(render_query(saved.text, params), end="")
            return
        engine = SparqlEngine(_build_dir(second), allow_service=allow_service)
        result = run_explained(engine, saved, params, saved.text)
    elif Path(first).exists():
        if second is None:
            raise typer.BadParameter(f"give a SPARQL query (or a .rq file) after {first}")
        text = _query_text(second)
        if show:
            print(text)
            return
        engine = SparqlEngine(Path(first), allow_service=allow_service)
        result = engine.run(text, parse_params(param or []))
    else:
        raise KgError(
            f"{first!r} is neither a saved SPARQL query nor a build directory; "
            f"`kg sparql --list` shows the queries: {', '.join(sorted(saved_queries))}"
        )
    print_rows(result.columns, result.rows, fmt)


def _build_dir(given: str | None) -> Path:
    if given is not None:
        return Path(given)
    if (DEFAULT_BUILD / "graph.oxigraph").is_dir() or (DEFAULT_BUILD / "graph.ttl").is_file():
        return DEFAULT_BUILD
    raise typer.BadParameter("say which build to query: kg sparql NAME OUT")


def _query_text(given: str) -> str:
    """The query itself, or the contents of the ``.rq`` (or ``.sparql``) file it names."""
    if "\n" in given or not given.endswith((".rq", ".sparql")):
        return given
    path = Path(given)
    if not path.is_file():
        raise KgError(f"{path}: no such query file")
    return path.read_text(encoding="utf-8")
