"""``kg export``: write a build in other formats."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._help import KgCommand, KgHelpGroup
from ._output import renamed, stdout

app = typer.Typer(help="Write a build in other formats.", no_args_is_help=True, cls=KgHelpGroup)


@app.command("neo4j-csv", cls=KgCommand)
def neo4j_csv_cmd(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")],
    out: Annotated[
        Path | None,
        typer.Option("-o", "--out", help="Where to write the CSVs (default: OUT_DIR/neo4j-csv)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a folder kg export did not write.")
    ] = False,
    to: Annotated[Path | None, typer.Option("--to", hidden=True)] = None,
) -> None:
    """Write CSV files for `neo4j-admin database import full`.

    One file per node label (key:ID, typed properties, arrays joined by a delimiter
    no value contains) and one per relationship type (:START_ID, :END_ID, :TYPE);
    IMPORT.md in the same folder holds the exact neo4j-admin command. The folder is
    replaced whole; one kg did not write is refused unless --force, a build's own never.

    Example:

        kg export neo4j-csv out -o out-csv
    """
    from kg.exporters.jsonio import read_build_source
    from kg.exporters.neo4j_csv import write_neo4j_csv
    from kg.orchestrate.outdir import check_output_folder, write_folder

    if to is not None:
        renamed("--to", "-o/--out")
    target = out or to or Path(out_dir) / "neo4j-csv"
    tool = "kg export neo4j-csv"
    check_output_folder(target, force=force, tool=tool, option="-o/--out")
    G = read_build_source(out_dir)
    export = write_folder(target, tool, lambda folder: write_neo4j_csv(G, folder, final=target))
    files = len(export.node_files) + len(export.relationship_files)
    stdout.print(
        f"wrote {files} CSV files to {export.directory} (array delimiter "
        f"{export.array_delimiter!r}); see {export.directory / 'IMPORT.md'}"
    )
