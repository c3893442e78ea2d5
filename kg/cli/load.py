"""``kg load neo4j``: merge a build into a Neo4j database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.exporters.neo4j_settings import DEFAULT_BATCH, DEFAULT_PARALLEL

from ._help import KgCommand, KgHelpGroup
from ._neo4j import neo4j_settings
from ._output import stderr, stdout

app = typer.Typer(help="Load a build into a graph database.", no_args_is_help=True, cls=KgHelpGroup)


OutDirOption = Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")]

UriOption = Annotated[
    str | None, typer.Option(help="Bolt URI (env NEO4J_URI, default bolt://localhost:7687).")
]

UsernameOption = Annotated[
    str | None, typer.Option("--user", help="User (env NEO4J_USERNAME, default neo4j).")
]

PasswordOption = Annotated[
    str | None, typer.Option(help="Password (env NEO4J_PASSWORD).", show_default=False)
]

DatabaseOption = Annotated[
    str | None, typer.Option(help="Database (env NEO4J_DATABASE, default: the server's).")
]

BatchSizeOption = Annotated[int, typer.Option(min=1, help="Rows per UNWIND batch.")]

ParallelOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Batches in flight at once, each in its own transaction; about the "
        "server's CPU cores (more wait on each other's locks and deadlock).",
    ),
]

ReplaceOption = Annotated[
    bool,
    typer.Option(
        "--replace",
        help="Papers already loaded take exactly this build's extraction: what they no "
        "longer say is removed (after a model change).",
    ),
]

SchemaOnlyOption = Annotated[
    bool,
    typer.Option(
        "--schema-only", help="Only create the constraints and indexes (e.g. after an import)."
    ),
]


@app.command("neo4j", cls=KgCommand)
def neo4j_cmd(
    out_dir: OutDirOption,
    uri: UriOption = None,
    username: UsernameOption = None,
    password: PasswordOption = None,
    database: DatabaseOption = None,
    batch_size: BatchSizeOption = DEFAULT_BATCH,
    parallel: ParallelOption = DEFAULT_PARALLEL,
    replace: ReplaceOption = False,
    schema_only: SchemaOnlyOption = False,
) -> None:
    """Merge a build into Neo4j: constraints first, then nodes and relationships in batches.

    Loading is idempotent (a second load of the same build creates nothing) and
    incremental (a build of new papers merges into the entities already there;
    supporting papers are counted once).

    Example:

        NEO4J_PASSWORD=secret kg load neo4j out --uri bolt://localhost:7687
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from kg.exporters.neo4j import apply_schema, connect, database_counts, load_neo4j
    from kg.orchestrate import curated_away

    settings = neo4j_settings(uri=uri, username=username, password=password, database=database)
    if schema_only:
        driver = connect(settings)
        try:
            apply_schema(driver, settings.database)
        finally:
            driver.close()
        stdout.print(f"{settings.uri}: constraints and indexes in place")
        return
    from kg.exporters.jsonio import read_build_source

    G = read_build_source(out_dir)
    driver = connect(settings)
    total = sum(G.label_counts().values()) + sum(G.type_counts().values())
    try:
        columns = [TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn()]
        with Progress(*columns, console=stderr, disable=not stderr.is_terminal) as bar:
            task = bar.add_task("loading", total=total)

            def on_batch(step: str, n: int) -> None:
                bar.update(task, advance=n, description=step)

            summary = load_neo4j(
                G,
                driver,
                database=settings.database,
                batch_size=batch_size,
                on_batch=on_batch,
                replace=replace,
                parallel=parallel,
                removed=curated_away(out_dir),
            )
        counts = database_counts(driver, settings.database)
    finally:
        driver.close()
    from rich.table import Table

    table = Table("label / type", "rows sent", "created", "now in database")
    for name, n in counts.items():
        created = summary.nodes_created.get(name, summary.relationships_created.get(name, 0))
        table.add_row(name, str(summary.rows.get(name, 0)), str(created), str(n))
    stdout.print(table)
    stdout.print(
        f"{settings.uri}: {summary.papers_new} new papers, {summary.papers_reloaded} already "
        f"there; created {sum(summary.nodes_created.values())} nodes and "
        f"{sum(summary.relationships_created.values())} relationships; "
        f"set {summary.properties_set} properties"
        + (
            "; removed what reloaded papers no longer say: "
            + ", ".join(f"{n} {k}" for k, n in sorted(summary.stale_removed.items()))
            if summary.stale_removed
            else ""
        )
    )
