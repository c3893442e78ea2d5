"""CSV files for ``neo4j-admin database import full`` (bulk import into an empty database)."""

from __future__ import annotations

import csv
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import ExportError
from kg.graph.model import EDGE_ENDS, NODE_LABELS, NODE_PROPERTIES, edge_properties, label_of_key
from kg.graph.store import GraphSource, graph_source

__all__ = ["CsvExport", "write_neo4j_csv", "ARRAY_DELIMITERS"]

ARRAY_DELIMITERS = (";", "|", "\u00a6", "\u241f")
"""Array delimiters tried in order; the first that no list item contains is used."""

_TYPES = {
    "STRING": "string",
    "STRING[]": "string[]",
    "INT64": "long",
    "DOUBLE": "double",
    "BOOLEAN": "boolean",
}


@dataclass(frozen=True)
class CsvExport:
    """The files written and the ``neo4j-admin`` arguments that import them."""

    directory: Path
    node_files: dict[str, Path]
    relationship_files: dict[str, Path]
    array_delimiter: str

    def import_args(self, database: str = "neo4j") -> list[str]:
        """Return the arguments after ``neo4j-admin`` that import these files."""
        args = [
            "database",
            "import",
            "full",
            database,
            f"--array-delimiter={self.array_delimiter}",
            "--multiline-fields=true",
            "--overwrite-destination=true",
            f"--report-file={self.directory / 'import.report'}",
        ]
        args += [f"--nodes={label}={path}" for label, path in self.node_files.items()]
        args += [f"--relationships={path}" for path in self.relationship_files.values()]
        return args


def _array_delimiter(source: GraphSource) -> str:
    free = list(ARRAY_DELIMITERS)  # a streamed pass: drop each delimiter some item contains

    def check(items) -> None:
        for item in items or ():
            for delim in [d for d in free if d in item]:
                free.remove(delim)

    for _, data in source.nodes():
        check(data.get("aliases"))
        check(data.get("authors"))
    for _, _, _, data in source.edges(evidence_json=True):
        check(data.get("papers"))
    if free:
        return free[0]
    raise ExportError("every array delimiter kg knows occurs in some name; cannot write CSV")


def _cell(value: Any, kind: str, delim: str) -> Any:
    if value is None:
        return ""
    if kind == "STRING[]":
        return delim.join(value)
    if kind == "BOOLEAN":
        return "true" if value else "false"
    return value


def write_neo4j_csv(
    G: nx.MultiDiGraph | GraphSource, directory: str | Path, *, final: str | Path | None = None
) -> CsvExport:
    """Write one node file per label and one relationship file per type; return what was written.

    ``G`` is a graph or a build's tables (streamed). Keys are globally unique
    (``paper:…``, ``method:…``, ``result:…``), so one ID space serves every label and
    relationships refer to nodes by key. ``final`` is the folder the files will be moved
    to, when they are written elsewhere first (IMPORT.md names the files there).
    """
    source = graph_source(G)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    delim = _array_delimiter(source)
    node_files: dict[str, Path] = {}
    for label in NODE_LABELS:
        props = NODE_PROPERTIES[label]
        path = directory / f"nodes_{label}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(
                ["key:ID" if k == "key" else f"{k}:{_TYPES[t]}" for k, t in props.items()]
            )
            for _, data in source.nodes(label):
                writer.writerow([_cell(data.get(k), t, delim) for k, t in props.items()])
        node_files[label] = path
    rel_files: dict[str, Path] = {}
    for rtype, ends in EDGE_ENDS.items():
        props = edge_properties(rtype)
        path = directory / f"relationships_{rtype}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(
                [":START_ID", ":END_ID", ":TYPE", *(f"{k}:{_TYPES[t]}" for k, t in props.items())]
            )
            for u, v, _, data in source.edges(rtype, evidence_json=True):
                pair = (label_of_key(u), label_of_key(v))
                if pair not in ends:
                    raise ExportError(
                        f"edge {rtype} from {pair[0]} to {pair[1]} is not in the schema"
                    )
                writer.writerow(
                    [u, v, rtype, *(_cell(data.get(k), t, delim) for k, t in props.items())]
                )
        rel_files[rtype] = path
    if final is not None:  # written elsewhere first: IMPORT.md names where the files end up
        final = Path(final)
        node_files = {k: final / p.name for k, p in node_files.items()}
        rel_files = {k: final / p.name for k, p in rel_files.items()}
    export = CsvExport(final or directory, node_files, rel_files, delim)
    command = "neo4j-admin " + shlex.join(export.import_args())
    (directory / "IMPORT.md").write_text(
        "# Importing these files into Neo4j\n\n"
        "Stop the server, import into an empty database (this replaces database `neo4j`),\n"
        "start the server, then create kg's constraints and indexes with\n"
        "`kg load neo4j BUILD_DIR --schema-only` (or run `schemas/neo4j.cypher`).\n\n"
        f"```\n{command}\n```\n",
        encoding="utf-8",
    )
    return export
