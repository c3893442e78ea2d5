"""CSV files for ``neo4j-admin database import full`` (bulk import into an empty database)."""

from __future__ import annotations

import csv
import json
import shlex
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import ExportError
from kg.graph.model import EDGE_ENDS, NODE_LABELS, NODE_PROPERTIES, check_label, edge_properties

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


def _array_delimiter(G: nx.MultiDiGraph) -> str:
    items: set[str] = set()
    for _, data in G.nodes(data=True):
        for key in ("aliases", "authors"):
            items.update(data.get(key) or ())
    for _, _, data in G.edges(data=True):
        items.update(data.get("papers") or ())
    for delim in ARRAY_DELIMITERS:
        if not any(delim in item for item in items):
            return delim
    raise ExportError("every array delimiter kg knows occurs in some name; cannot write CSV")


def _cell(value: Any, kind: str, delim: str) -> Any:
    if value is None:
        return ""
    if kind == "STRING[]":
        return delim.join(value)
    if kind == "BOOLEAN":
        return "true" if value else "false"
    return value


def write_neo4j_csv(G: nx.MultiDiGraph, directory: str | Path) -> CsvExport:
    """Write one node file per label and one relationship file per type; return what was written.

    Keys are globally unique (``paper:…``, ``method:…``, ``result:…``), so one ID space
    serves every label and relationships refer to nodes by key.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    delim = _array_delimiter(G)
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, data in G.nodes(data=True):
        by_label[check_label(data["label"])].append(data)
    node_files: dict[str, Path] = {}
    for label in NODE_LABELS:
        props = NODE_PROPERTIES[label]
        path = directory / f"nodes_{label}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(
                ["key:ID" if k == "key" else f"{k}:{_TYPES[t]}" for k, t in props.items()]
            )
            for data in by_label.get(label, []):
                writer.writerow([_cell(data.get(k), t, delim) for k, t in props.items()])
        node_files[label] = path
    by_type: dict[str, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
    for u, v, rtype, data in G.edges(keys=True, data=True):
        pair = (G.nodes[u]["label"], G.nodes[v]["label"])
        if pair not in EDGE_ENDS.get(rtype, ()):
            raise ExportError(f"edge {rtype} from {pair[0]} to {pair[1]} is not in the schema")
        by_type[rtype].append((u, v, data))
    rel_files: dict[str, Path] = {}
    for rtype in EDGE_ENDS:
        props = edge_properties(rtype)
        path = directory / f"relationships_{rtype}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(
                [":START_ID", ":END_ID", ":TYPE", *(f"{k}:{_TYPES[t]}" for k, t in props.items())]
            )
            for u, v, data in by_type.get(rtype, []):
                values = {**data, "evidence": json.dumps(data["evidence"], ensure_ascii=False)}
                writer.writerow(
                    [u, v, rtype, *(_cell(values.get(k), t, delim) for k, t in props.items())]
                )
        rel_files[rtype] = path
    export = CsvExport(directory, node_files, rel_files, delim)
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
