"""``kg sparql``: run a saved SPARQL query from ``queries/sparql/`` (or any query) on a build."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.errors import KgError
from kg.query.sparql import (
    SparqlEngine,
    list_sparql_queries,
    render_query,
)

from ._output import (
    OutputFormat,
    ParamOption,
    build_or_default,
    parse_params,
    print_rows,
    print_saved_queries,
    renamed,
)
from .query import run_explained

ArgsOption = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[BUILD] NAME|QUERY",
        help="The build to query (default ./kg-out), then a saved query (see --list), "
        "a SPARQL query or a .rq file.",
        show_default=False,
    ),
]

ShowOption = Annotated[
    bool,
    typer.Option(
        "--show",
        help="Print the query (no build needed); with --param, with the values written "
        "in as RDF terms, for endpoints that take no bindings (Oxigraph server, Fuseki).",
    ),
]

ListOption = Annotated[bool, typer.Option("--list", help="List the saved SPARQL queries.")]

AllowServiceOption = Annotated[
    bool,
    typer.Option(
        "--allow-service",
        help="Run SERVICE clauses, which send requests to other SPARQL endpoints over "
        "the network (refused by default).",
    ),
]


def sparql(
    args: ArgsOption = None,
    param: ParamOption = None,
    fmt: OutputFormat = "table",
    show: ShowOption = False,
    list_: ListOption = False,
    allow_service: AllowServiceOption = False,
) -> None:
    """Run SPARQL on a build: a saved query by name, or any query you write.

    The build's Oxigraph store (BUILD/graph.oxigraph) answers when it has one; otherwise
    BUILD/graph.ttl is parsed first. Parameters are bound as typed RDF terms (never pasted
    into the query text). Without BUILD, ./kg-out is used if it is a build. Only queries
    run: SPARQL Update is refused, and a SERVICE clause needs --allow-service.

    Examples:

        kg sparql --list

        kg sparql out leaderboard -p dataset=ImageNet -p metric=accuracy

        kg sparql out "SELECT ?name WHERE { ?m a kgo:Method ; skos:prefLabel ?name } LIMIT 5"

        kg sparql out my-query.rq -p limit=10 --format csv
    """
    args = list(args or [])
    if list_ or not args:
        print_saved_queries(list_sparql_queries())
        return
    if len(args) > 2:
        raise typer.BadParameter("give at most a build and a query: kg sparql BUILD NAME|QUERY")
    saved_queries = {q.name: q for q in list_sparql_queries()}  # the files are read once
    if (
        len(args) == 2
        and args[0] in saved_queries
        and not any((Path(args[0]) / x).exists() for x in STORES)
    ):
        renamed(f"kg sparql {args[0]} BUILD", f"kg sparql BUILD {args[0]}")
        args.reverse()
    *build, what = args
    if what in saved_queries:
        saved = saved_queries[what]
        if show and not param:
            print(saved.text, end="")
            return
        params = saved.bind(parse_params(param or [], saved.examples()))
        if show:
            print(render_query(saved.text, params), end="")
            return
        engine = SparqlEngine(_build_dir(build), allow_service=allow_service)
        result = run_explained(engine, saved, params, saved.text)
    elif any(c in what for c in "{ \n") or what.endswith((".rq", ".sparql")):
        text = _query_text(what)
        params = parse_params(param or [])
        if show:
            print(render_query(text, params), end="") if params else print(text)
            return
        engine = SparqlEngine(_build_dir(build), allow_service=allow_service)
        result = engine.run(text, params)
    else:
        raise KgError(
            f"{what!r} is neither a saved SPARQL query nor a query or .rq file; "
            f"`kg sparql --list` shows the queries: {', '.join(sorted(saved_queries))}"
        )
    print_rows(result.columns, result.rows, fmt)


STORES = ("graph.oxigraph", "graph.ttl")
"""What kg sparql reads of a build: the Oxigraph store, else the Turtle."""


def _build_dir(given: list[str]) -> Path:
    return build_or_default(given, STORES, "say which build to query: kg sparql BUILD NAME")


def _query_text(given: str) -> str:
    """The query itself, or the contents of the ``.rq`` (or ``.sparql``) file it names."""
    if "\n" in given or not given.endswith((".rq", ".sparql")):
        return given
    path = Path(given)
    if not path.is_file():
        raise KgError(f"{path}: no such query file")
    return path.read_text(encoding="utf-8")
