"""``kg analyze``: the analytics of a build as Markdown, JSON or HTML, with plots."""

from __future__ import annotations

import base64
import html
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import networkx as nx

from kg.analytics.communities import communities
from kg.analytics.curation import likely_duplicates, papers_without_entities, single_paper_entities
from kg.analytics.leaderboards import LeaderboardRow, boards_of, comparable_rows
from kg.analytics.lineage import outperforms_summary
from kg.analytics.ranking import degree_histogram, top_entities
from kg.analytics.trends import trends
from kg.graph.model import ENTITY_LABELS

__all__ = ["analysis", "write_plots", "write_analysis", "FORMATS"]

FORMATS = ("md", "json", "html")


def analysis(G: nx.MultiDiGraph, top: int = 10, max_boards: int = 50) -> dict[str, Any]:
    """Return every analytics table of ``G`` as plain JSON-ready data (the ``max_boards``
    leaderboards with the most rows)."""
    counts: dict[str, int] = {}
    for _, data in G.nodes(data=True):
        counts[data["label"]] = counts.get(data["label"], 0) + 1
    boards = boards_of(G)
    boards_sorted = sorted(boards.items(), key=lambda kv: (-len(kv[1].rows), kv[0]))[:max_boards]
    return {
        "counts": {"nodes": counts, "relationships": G.number_of_edges()},
        "top_by_support": {
            t: [asdict(e) for e in top_entities(G, t, "support", top)] for t in ENTITY_LABELS
        },
        "top_by_pagerank": {
            t: [asdict(e) for e in top_entities(G, t, "pagerank", top)] for t in ENTITY_LABELS
        },
        "degree_distribution": degree_histogram(G),
        "communities": [asdict(c) for c in communities(G)],
        "leaderboards": [
            {
                "dataset": dataset,
                "metric": metric,
                "direction": board.direction,
                "rows": [asdict(r) for r in board.rows],
                "hidden": board.hidden,
            }
            for (dataset, metric), board in boards_sorted
        ],
        "outperforms": [asdict(o) for o in outperforms_summary(G, top)],
        "trends": [asdict(t) for t in trends(G)],
        "curation": {
            "likely_duplicates": [asdict(d) for d in likely_duplicates(G)],
            "single_paper_entities": len(single_paper_entities(G)),
            "papers_without_entities": papers_without_entities(G),
        },
    }


def write_plots(data: dict[str, Any], directory: Path, fmt: str = "png") -> dict[str, Path]:
    """Draw the report's plots into ``directory``; return {plot name: file}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    directory.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}

    def save(fig, name: str) -> None:
        path = directory / f"{name}.{fmt}"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        out[name] = path

    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, label in zip(axes.flat, ENTITY_LABELS, strict=True):
        rows = data["top_by_support"][label][::-1]
        ax.barh([r["name"][:32] for r in rows], [r["support"] for r in rows], color="#2563EB")
        ax.set_title(f"Top {label.lower()}s by papers")
        ax.tick_params(axis="y", labelsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    save(fig, "top_entities")

    degrees = data["degree_distribution"]
    fig, ax = plt.subplots(figsize=(6, 4))
    points = [(d, n) for d, n in degrees.items() if d > 0]
    if points:
        ax.loglog(*zip(*points, strict=True), "o", color="#EA580C")
    ax.set_xlabel("relations of an entity (degree)")
    ax.set_ylabel("entities")
    ax.set_title("Degree distribution")
    save(fig, "degree_distribution")

    fig = communities_figure(data["communities"])
    if fig is not None:
        save(fig, "communities")

    boards = plotted_leaderboards(data["leaderboards"])[:4]
    if boards:
        fig, axes = plt.subplots(len(boards), 1, figsize=(8, 2.4 * len(boards)), squeeze=False)
        for ax, (board, rows) in zip(axes[:, 0], boards, strict=True):
            rows = rows[:8][::-1]
            labels = [f"{r.method or '?'} ({r.paper_id[-6:]})"[:40] for r in rows]
            ax.barh(labels, [r.value for r in rows], color="#9333EA")
            arrow = "lower is better" if board["direction"] == "lower" else "higher is better"
            unit = f", {rows[0].unit}" if rows[0].unit else ""
            ax.set_title(f"{board['dataset']} — {board['metric']}{unit} ({arrow})", fontsize=9)
            ax.tick_params(axis="y", labelsize=7)
        save(fig, "leaderboards")

    if data["trends"]:
        fig, ax = plt.subplots(figsize=(8, 4))
        shown = data["trends"][:4] + data["trends"][-4:]
        for t in {t["key"]: t for t in shown}.values():
            years = sorted(int(y) for y in t["counts"])
            ax.plot(years, [t["counts"][y] for y in years], marker="o", label=t["name"][:30])
        ax.set_xlabel("year")
        ax.set_ylabel("papers")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title("Rising and falling entities")
        ax.legend(fontsize=7)
        save(fig, "trends")
    return out


def communities_figure(found: list[dict[str, Any]], n: int = 15):
    """A bar per community (largest ``n``), labelled by its best-supported members' names;
    None when there is none."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    shown = found[:n][::-1]
    if not shown:
        return None
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.35 * len(shown)))
    labels = [c["label"] if len(c["label"]) <= 60 else c["label"][:59] + "…" for c in shown]
    ax.barh(labels, [c["size"] for c in shown], color="#16A34A")
    ax.set_xlabel("members")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(axis="y", labelsize=8)
    ax.set_title("Communities of methods and tasks, by their best-supported members")
    return fig


def plotted_leaderboards(
    boards: list[dict[str, Any]], min_papers: int = 3
) -> list[tuple[dict[str, Any], list[LeaderboardRow]]]:
    """The leaderboards worth a plot, with their rows: results from at least ``min_papers``
    papers, one value per paper and method, in one unit (see :func:`comparable_rows`)."""
    out = []
    for board in boards:
        rows = [LeaderboardRow(**r) for r in board["rows"]]
        kept = comparable_rows(rows, board["direction"], min_papers)
        if kept:
            out.append((board, kept))
    return out


BOARD_HEADER = ["method", "value", "unit", "reported as", "paper", "sentence"]


def board_cells(row: dict[str, Any]) -> list[Any]:
    """A leaderboard row as the report shows it: the method, value (and how it was read),
    unit, own or baseline, paper and the sentence that reports it."""
    value = f"{row['value']:g}" + (f" ({row['note']})" if row.get("note") else "")
    flag = {True: "own", False: "baseline"}.get(row.get("own"), "")
    return [row["method"] or "", value, row["unit"] or "", flag, row["paper_id"],
            row.get("evidence") or ""]  # fmt: skip


def hidden_line(board: dict[str, Any]) -> str:
    """What a board left out, per reason ("Hid 3 rows: no method named (2); ...").

    >>> hidden_line({"hidden": {"no method named": 2, "a value the metric cannot take": 1}})
    'Hid 3 rows: no method named (2); a value the metric cannot take (1).'
    """
    hidden = board.get("hidden") or {}
    if not hidden:
        return "Hid no rows."
    reasons = "; ".join(f"{why} ({n})" for why, n in sorted(hidden.items(), key=lambda x: -x[1]))
    total = sum(hidden.values())
    return f"Hid {total} row{'' if total == 1 else 's'}: {reasons}."


def _md_table(header: list[str], rows: list[list[Any]]) -> str:
    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _markdown(data: dict[str, Any], plots: dict[str, Path], base: Path) -> str:
    parts = ["# kg analysis", ""]
    nodes = data["counts"]["nodes"]
    parts.append(
        ", ".join(f"{n} {label}" for label, n in sorted(nodes.items()))
        + f"; {data['counts']['relationships']} relationships."
    )
    parts += ["", "## Top entities", ""]
    for label in ENTITY_LABELS:
        rows = data["top_by_support"][label]
        pr = {r["key"]: i + 1 for i, r in enumerate(data["top_by_pagerank"][label])}
        parts += [f"### {label}", ""]
        parts.append(
            _md_table(
                ["name", "papers", "PageRank rank"],
                [[r["name"], r["support"], pr.get(r["key"], "")] for r in rows],
            )
        )
        parts.append("")
    for name in ("top_entities", "degree_distribution", "communities"):
        if name in plots:
            parts += [f"![{name}]({plots[name].relative_to(base).as_posix()})", ""]
    parts += ["## Communities", ""]
    parts.append(
        _md_table(["community", "size"], [[c["label"], c["size"]] for c in data["communities"]])
    )
    parts += ["", "## Leaderboards", ""]
    if "leaderboards" in plots:
        parts += [f"![leaderboards]({plots['leaderboards'].relative_to(base).as_posix()})", ""]
    for board in data["leaderboards"]:
        parts += [f"### {board['dataset']} — {board['metric']} ({board['direction']} is better)"]
        parts.append("")
        parts.append(_md_table(BOARD_HEADER, [board_cells(r) for r in board["rows"]]))
        parts += ["", hidden_line(board), ""]
    parts += ["## Who outperforms whom", ""]
    parts.append(
        _md_table(
            ["method", "wins", "losses", "beats"],
            [
                [o["name"], o["wins"], o["losses"], ", ".join(o["beats"])]
                for o in data["outperforms"]
            ],
        )
    )
    parts += ["", "## Trends", ""]
    if data["trends"]:
        if "trends" in plots:
            parts += [f"![trends]({plots['trends'].relative_to(base).as_posix()})", ""]
        parts.append(
            _md_table(
                ["entity", "type", "papers per year", "slope of share"],
                [
                    [t["name"], t["type"], json.dumps(t["counts"]), f"{t['slope']:+.4f}"]
                    for t in data["trends"][:10] + data["trends"][-10:]
                ],
            )
        )
    else:
        parts.append("Fewer than two years have papers; no trends.")
    cur = data["curation"]
    parts += ["", "## Curation", ""]
    parts.append(
        f"{cur['single_paper_entities']} entities are named in one paper only; "
        f"{len(cur['papers_without_entities'])} papers have no entities."
    )
    parts += ["", "Likely duplicates:", ""]
    parts.append(
        _md_table(
            ["a", "b", "type", "why"],
            [[d["a"], d["b"], d["type"], d["reason"]] for d in cur["likely_duplicates"][:50]],
        )
    )
    return "\n".join(parts) + "\n"


def _html(data: dict[str, Any], plots: dict[str, Path]) -> str:

    def table(header: list[str], rows: list[list[Any]]) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
            for row in rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def img(name: str) -> str:
        if name not in plots:
            return ""
        payload = base64.b64encode(plots[name].read_bytes()).decode()
        return f'<img alt="{name}" src="data:image/png;base64,{payload}">'

    parts = ["<h1>kg analysis</h1>", img("top_entities")]
    for label in ENTITY_LABELS:
        rows = data["top_by_support"][label]
        parts += [
            f"<h3>{label}</h3>",
            table(["name", "papers"], [[r["name"], r["support"]] for r in rows]),
        ]
    parts += ["<h2>Structure</h2>", img("degree_distribution"), img("communities")]
    parts.append(
        table(["community", "size"], [[c["label"], c["size"]] for c in data["communities"]])
    )
    parts += ["<h2>Leaderboards</h2>", img("leaderboards")]
    for board in data["leaderboards"]:
        parts.append(
            f"<h3>{html.escape(board['dataset'])} — {html.escape(board['metric'])} "
            f"({board['direction']} is better)</h3>"
        )
        parts.append(table(BOARD_HEADER, [board_cells(r) for r in board["rows"]]))
        parts.append(f"<p>{html.escape(hidden_line(board))}</p>")
    parts += ["<h2>Trends</h2>", img("trends") or "<p>Fewer than two years have papers.</p>"]
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;"
        "padding:2px 8px;font-size:13px}img{max-width:100%}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>kg analysis</title>"
        f"<style>{style}</style></head><body>{''.join(parts)}</body></html>\n"
    )


def write_analysis(
    G: nx.MultiDiGraph, directory: str | Path, fmt: str = "md", top: int = 10
) -> list[Path]:
    """Write the analysis of ``G`` into ``directory`` as ``fmt``, plus its plots; return files."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = analysis(G, top)
    plots = write_plots(data, directory / "plots")
    if fmt == "json":
        path = directory / "analysis.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    elif fmt == "html":
        path = directory / "analysis.html"
        path.write_text(_html(data, plots), encoding="utf-8")
    else:
        path = directory / "analysis.md"
        path.write_text(_markdown(data, plots, directory), encoding="utf-8")
    return [path, *plots.values()]
