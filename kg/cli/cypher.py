"""``kg cypher``: run a Cypher query on a build's embedded LadybugDB store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.query import LadybugEngine

from ._output import OutputFormat, ParamOption, parse_params, print_rows


def cypher(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (or its graph.lbdb).")],
    query: Annotated[str, typer.Argument(help="A Cypher query; use $name for parameters.")],
    param: ParamOption = None,
    fmt: OutputFormat = "table",
) -> None:
    """Run a Cypher query on a build's embedded store.

    Reading only: a query that writes, COPY, LOAD, INSTALL, ATTACH or CALL of anything
    but the catalogue functions is refused.

    Example:

        kg cypher out "MATCH (m:Method)<-[:PROPOSES]-(p:Paper) RETURN m.name LIMIT 5"
    """
    result = LadybugEngine(out_dir).run(query, parse_params(param or []))
    print_rows(result.columns, result.rows, fmt)
