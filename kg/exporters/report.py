"""``report.md``: counts per type, top entities, what was skipped and what resolution merged."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import networkx as nx

from kg.graph.model import ENTITY_LABELS

__all__ = ["render_report", "write_report"]


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_report(G: nx.MultiDiGraph, summary, resolution, *, top: int = 10) -> str:
    """Return the Markdown report of a build."""
    lines = ["# kg build report", ""]
    lines += [
        f"- papers: {summary.papers}",
        f"- skipped: {len(summary.skipped)}",
        f"- nodes: {G.number_of_nodes()}, relationships: {G.number_of_edges()}",
        f"- entities merged by resolution: {len(resolution.merges)}",
        "",
    ]
    lines += ["## Nodes per label", "", "| label | count |", "|---|---|"]
    for label, count in summary.entity_counts.items():
        lines.append(f"| {label} | {count} |")
    lines += ["", "## Relationships per type", "", "| type | count |", "|---|---|"]
    for rtype, count in sorted(summary.relation_counts.items()):
        lines.append(f"| {rtype} | {count} |")
    for label in ENTITY_LABELS:
        nodes = [
            (d.get("support", 0), d["name"], d.get("aliases") or [])
            for _, d in G.nodes(data=True)
            if d["label"] == label
        ]
        nodes.sort(key=lambda t: (-t[0], t[1].lower()))
        lines += [
            "",
            f"## Top {label} entities (by papers)",
            "",
            "| name | papers | aliases |",
            "|---|---|---|",
        ]
        for support, name, aliases in nodes[:top]:
            lines.append(f"| {_md(name)} | {support} | {_md(', '.join(aliases[:5]))} |")
    lines += ["", "## Skipped input", ""]
    if summary.skipped:
        reasons = Counter(s.reason.split(" (")[0].split(":")[0] for s in summary.skipped)
        lines += ["| reason | count |", "|---|---|"]
        lines += [f"| {_md(r)} | {c} |" for r, c in reasons.most_common()]
        lines += ["", "| where | reason | excerpt |", "|---|---|---|"]
        for s in summary.skipped[:500]:
            where = f"{s.source}:{s.line}" if s.line is not None else s.source
            lines.append(f"| {_md(where)} | {_md(s.reason)} | {_md(s.excerpt)} |")
        if len(summary.skipped) > 500:
            lines.append(f"| … | {len(summary.skipped) - 500} more | |")
    else:
        lines.append("Nothing was skipped.")
    lines += ["", "## Resolution merges", ""]
    if resolution.merges:
        lines += ["| merged key | into | reason |", "|---|---|---|"]
        for m in resolution.merges[:1000]:
            lines.append(f"| {_md(m.source)} | {_md(m.target)} | {_md(m.reason)} |")
        if len(resolution.merges) > 1000:
            lines.append(f"| … | {len(resolution.merges) - 1000} more | |")
    else:
        lines.append("No merges beyond exact normalised names.")
    lines += ["", "## Stage timings (s)", ""]
    lines += [f"- {k}: {v:.2f}" for k, v in summary.timings.items()]
    return "\n".join(lines) + "\n"


def write_report(G: nx.MultiDiGraph, summary, resolution, path: str | Path) -> None:
    """Write :func:`render_report` to ``path``."""
    Path(path).write_text(render_report(G, summary, resolution), encoding="utf-8")
