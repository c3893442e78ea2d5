"""The graph stage of a build: paper records into the graph's tables, their edges merged,
then each result placed on its leaderboard, now that the whole graph is known."""

from __future__ import annotations

import shutil
from pathlib import Path

from kg.graph.boards import board_properties
from kg.graph.store import GraphTables, GraphTableWriter, merge_edge_tables, set_node_properties
from kg.orchestrate.shards import _extractions
from kg.resolve import paper_record
from kg.util.tables import DUCKDB_MEMORY

__all__ = ["store_boards", "write_graph_tables"]


def write_graph_tables(
    tmp: Path, resolution, *, records: Path, spill: Path, memory: str = DUCKDB_MEMORY
) -> int:
    """Write each extracted paper of ``tmp/tables`` as a record (to ``records``, a JSON
    object per line) and as graph rows, with the names ``resolution`` resolved; merge
    the rows of each edge (DuckDB held to ``memory``, spilling to ``spill``); then place
    each result on its leaderboard (:func:`store_boards`). Return how many papers."""
    from kg.exporters.jsonio import write_record

    tables = tmp / "tables"
    graph = GraphTableWriter(tables)
    papers = 0
    with open(records, "w", encoding="utf-8") as out:
        for ex, locals_ in _extractions(tables):
            record = paper_record(ex, locals_, resolution)
            write_record(out, record)
            graph.add_paper(record)
            papers += 1
    graph.close()
    merge_edge_tables(tables, spill_dir=spill, memory=memory)
    shutil.rmtree(tables / "paper_edges", ignore_errors=True)
    shutil.rmtree(spill, ignore_errors=True)
    store_boards(tables)
    return papers


def store_boards(tables: Path) -> int:
    """Store on each Result node of the graph's ``tables`` what the leaderboard rules
    decide over the whole graph (:func:`kg.graph.boards.board_properties`: its
    board, its value on the metric's scale, whether it is shown and why not), so that
    every export and saved query reads it; return how many Result nodes."""
    return set_node_properties(tables, "Result", board_properties(GraphTables(tables)))
