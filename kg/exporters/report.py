"""``report.md``: counts per type, top entities, what was skipped and what resolution merged."""

from __future__ import annotations

import heapq
import shlex
from collections import Counter
from pathlib import Path

import networkx as nx

from kg.graph.model import ENTITY_LABELS
from kg.graph.store import GraphSource, graph_source
from kg.resolve.near import qualified_pairs

__all__ = ["render_report", "write_report"]


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


HEAD = 60
"""How many of each type's best-supported entities are searched for possible duplicates
(what a reader sees first)."""


def _possible_duplicates(head: list[tuple[str, str, str, int]]) -> list[str]:
    """The report's lines on names of the head that are another's with a qualifier."""
    pairs = qualified_pairs(head)
    lines = ["", f"## Possible duplicates among the top {HEAD} of each type", ""]
    if not pairs:
        return lines + ["None: no name there is another's with a qualifier."]
    lines += [
        "One name is the other's with a qualifier, which may name the same thing (a "
        "publisher, the usual version) or another one (a subset, a later version); "
        "resolution keeps them apart. Where they are one thing, merge them "
        "(BUILD is this build's folder):",
        "",
        "| type | name | papers | other | papers | to merge them |",
        "|---|---|---|---|---|---|",
    ]
    for p in pairs:
        command = f"kg curate merge BUILD {shlex.quote(p.key)} {shlex.quote(p.other)}"
        lines.append(
            f"| {p.type} | {_md(p.name)} | {p.support} | {_md(p.other_name)} | "
            f"{p.other_support} | `{_md(command)}` |"
        )
    return lines


APART_SHOWN = 20
"""How many of the pairs resolution kept apart the report lists (most papers first)."""


def _kept_apart(apart: list, canonical: dict[str, str]) -> list[str]:
    """The report's lines on pairs a merge rule proposed and resolution kept apart (named by
    the keys they ended in, ``canonical``)."""
    lines = ["", "## Kept apart by resolution", ""]
    if not apart:
        return lines + ["None: every pair a merge rule proposed was merged."]
    shown = sorted(apart, key=lambda m: (-m.paper_count, m.source, m.target))[:APART_SHOWN]
    lines += [
        f"{len(apart)} pairs that a merge rule proposed stayed apart, each two papers' own "
        "things of one name. Where a pair is one thing, merge it (the "
        f"{len(shown)} with most papers; all are in tables/apart.parquet):",
        "",
        "| rule | name | other | papers | why | to merge them |",
        "|---|---|---|---|---|---|",
    ]
    for m in shown:
        a, b = (canonical.get(k, k) for k in (m.source, m.target))
        command = f"kg curate merge BUILD {shlex.quote(a)} {shlex.quote(b)}"
        why = m.reason.split("kept apart: ", 1)[-1]
        lines.append(f"| {m.rule} | {_md(a)} | {_md(b)} | {m.paper_count} | "
                     f"{_md(why)} | `{_md(command)}` |")  # fmt: skip
    return lines


def render_report(G: nx.MultiDiGraph | GraphSource, summary, resolution, *, top: int = 10) -> str:
    """Return the Markdown report of a build (``G`` is its graph or its tables)."""
    source = graph_source(G)
    lines = ["# kg build report", "", *_overview(source, summary, resolution), ""]
    lines += ["## Nodes per label", "", "| label | count |", "|---|---|"]
    for label, count in summary.entity_counts.items():
        lines.append(f"| {label} | {count} |")
    lines += ["", "## Relationships per type", "", "| type | count |", "|---|---|"]
    for rtype, count in sorted(summary.relation_counts.items()):
        lines.append(f"| {rtype} | {count} |")
    top_lines, head = _top_entities(source, top)
    lines += top_lines
    lines += _possible_duplicates(head)
    lines += _kept_apart(getattr(resolution, "apart", []), getattr(resolution, "canonical", {}))
    lines += ["", "## Skipped input", "", *_skipped(summary.skipped)]
    curated = getattr(resolution, "curated", None)
    if curated is not None:
        lines += ["", "## Curation", "", *_curation(curated)]
    lines += ["", "## Resolution merges", "", *_merges(resolution.merges)]
    lines += ["", "## Stage timings (s)", ""]
    lines += [f"- {k}: {v:.2f}" for k, v in summary.timings.items()]
    return "\n".join(lines) + "\n"


def _overview(source: GraphSource, summary, resolution) -> list[str]:
    n_nodes, n_edges = sum(source.label_counts().values()), sum(source.type_counts().values())
    lines = [
        f"- pipeline: {getattr(summary, 'pipeline', 'fast')}",
        f"- papers: {summary.papers}",
        f"- skipped: {len(summary.skipped)}",
        f"- nodes: {n_nodes}, relationships: {n_edges}",
        f"- entities merged by resolution: {len(resolution.merges)}",
    ]
    if getattr(summary, "unchanged", 0) or getattr(summary, "replaced", 0):
        lines.append(
            f"- added to an earlier build: {summary.unchanged} input papers were already "
            f"there unchanged; {summary.replaced} had a changed abstract and were replaced"
        )
    if getattr(summary, "resumed", 0):
        lines.append(f"- resumed: {summary.resumed} papers extracted by an interrupted run")
    return lines + [f"- note: {note}" for note in getattr(summary, "notes", ())]


def _top_entities(source: GraphSource, top: int) -> tuple[list[str], list[tuple]]:
    """The tables of each type's ``top`` best-supported entities, and each type's
    :data:`HEAD` best-supported (key, label, name, support)."""
    lines: list[str] = []
    head: list[tuple[str, str, str, int]] = []
    for label in ENTITY_LABELS:
        nodes = heapq.nsmallest(
            max(top, HEAD),
            ((-d.get("support", 0), d["name"].lower(), d["name"], d.get("aliases") or [], key)
             for key, d in source.nodes(label)),
            key=lambda t: t[:3],
        )  # fmt: skip
        head += [(key, label, name, -neg) for neg, _, name, _, key in nodes[:HEAD]]
        lines += ["", f"## Top {label} entities (by papers)", "", "| name | papers | aliases |",
                  "|---|---|---|"]  # fmt: skip
        for neg, _, name, aliases, _ in nodes[:top]:
            lines.append(f"| {_md(name)} | {-neg} | {_md(', '.join(aliases[:5]))} |")
    return lines, head


def _skipped(skipped: list) -> list[str]:
    if not skipped:
        return ["Nothing was skipped."]
    reasons = Counter(s.reason.split(" (")[0].split(":")[0] for s in skipped)
    lines = ["| reason | count |", "|---|---|"]
    lines += [f"| {_md(r)} | {c} |" for r, c in reasons.most_common()]
    lines += ["", "| where | reason | excerpt |", "|---|---|---|"]
    for s in skipped[:500]:
        where = f"{s.source}:{s.line}" if s.line is not None else s.source
        lines.append(f"| {_md(where)} | {_md(s.reason)} | {_md(s.excerpt)} |")
    if len(skipped) > 500:
        lines.append(f"| … | {len(skipped) - 500} more | |")
    return lines


def _curation(curated) -> list[str]:
    changed = [e for e in curated.log if e["matched"]]
    lines = [
        f"{len(changed)} of {len(curated.log)} entries of the curation file changed the "
        f"graph; {len(curated.stale)} matched nothing in this build (stale: fix or "
        "remove them)."
    ]
    lines += ["", "| entry | what it did |", "|---|---|"]
    return lines + [f"| {_md(e['entry'])} | {_md(e['what'])} |" for e in curated.log]


def _merges(merges: list) -> list[str]:
    if not merges:
        return ["No merges beyond exact normalised names."]
    rules = Counter(m.rule or m.reason.split()[0] for m in merges)
    lines = [
        "Each merge with its rule, score and papers behind it (all of them in "
        "`tables/merges.parquet`; `kg explain KEY` shows one entity's): "
        + ", ".join(f"{n} by {rule}" for rule, n in rules.most_common())
        + "."
    ]
    lines += ["", "| merged key | into | rule | score | papers | reason |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for m in merges[:1000]:
        papers = ", ".join(m.papers[:3]) + (" …" if m.paper_count > 3 else "")
        lines.append(
            f"| {_md(m.source)} | {_md(m.target)} | {_md(m.rule)} | {m.score:g} | "
            f"{m.paper_count}: {_md(papers)} | {_md(m.reason)} |"
        )
    if len(merges) > 1000:
        lines.append(f"| … | {len(merges) - 1000} more | | | | |")
    return lines


def write_report(G: nx.MultiDiGraph | GraphSource, summary, resolution, path: str | Path) -> None:
    """Write :func:`render_report` to ``path``."""
    Path(path).write_text(render_report(G, summary, resolution), encoding="utf-8")
