"""``kg cypher``: run a Cypher query on a build's embedded LadybugDB store."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Annotated

import typer

from kg.exporters.ladybug import run_query

from ._output import print_json


def cypher(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (or its graph.lbdb).")],
    query: Annotated[str, typer.Argument(help="A Cypher query; use $name for parameters.")],
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE, repeatable.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
) -> None:
    """Query the embedded store of a build with Cypher.

    Example:

        kg cypher out "MATCH (m:Method)<-[:PROPOSES]-(p:Paper) RETURN m.name LIMIT 5"
    """
    if fmt not in {"table", "json", "csv"}:
        raise typer.BadParameter("--format must be table, json or csv")
    params = {}
    for item in param or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"--param {item!r}: write NAME=VALUE")
        params[name] = int(value) if value.lstrip("-").isdigit() else value
    try:
        columns, rows = run_query(out_dir, query, params)
    except RuntimeError as exc:
        raise typer.BadParameter(f"query failed: {exc}") from exc
    if fmt == "json":
        print_json([dict(zip(columns, row, strict=True)) for row in rows])
    elif fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        from rich.table import Table

        from ._output import stdout

        table = Table(*columns)
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row))
        stdout.print(table)
