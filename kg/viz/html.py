"""Build the data of the interactive view and write it, with Cytoscape.js, into one HTML file."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

import networkx as nx

from kg.analytics.leaderboards import Board, boards_of
from kg.graph.model import ENTITY_LABELS, RELATION_TYPES
from kg.util.files import atomic_write_text

__all__ = ["viz_data", "write_html", "written_by_viz", "read_sentences", "paper_label", "LABELLED"]

_HERE = Path(__file__).resolve().parent
_COLOURS = {"Method": "#2563EB", "Task": "#16A34A", "Dataset": "#EA580C", "Metric": "#9333EA"}
_SPRING_MAX = 450  # nodes laid out by force (dense, NumPy only); the rest sit by neighbours
LABELLED = 30  # the best-supported nodes, labelled in the first view (the rest on zooming in)


_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                  "\u2028": "\\u2028", "\u2029": "\\u2029"}  # fmt: skip


def script_json(data: Any) -> str:
    """``data`` as JSON that can sit inside a ``<script>`` element whatever its strings
    hold: ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no string can end the
    script (``</script>``) or open a comment (``<!--``) in it.

    >>> script_json({"t": "</script><!--&"})
    '{"t":"\\\\u003c/script\\\\u003e\\\\u003c!--\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_UNSAFE[m[0]], text)


def shown(text: str) -> str:
    """``text`` without bidirectional control characters, which would show it reversed
    (``Evil\\u202eteN`` as "EvilNet").

    >>> shown("Evil\\u202eteN")
    'EvilteN'
    """
    return _BIDI.sub("", text)


def safe_url(url: str | None) -> str:
    """``url`` when it is an http(s) link, else "" (no ``javascript:`` or ``data:`` links).

    >>> safe_url("https://arxiv.org/abs/1"), safe_url(" JavaScript:alert(1)")
    ('https://arxiv.org/abs/1', '')
    """
    url = (url or "").strip()
    return url if re.match(r"https?://", url, re.IGNORECASE) else ""


def read_sentences(path: str | Path, papers: set[str]) -> dict[str, list[tuple[int, int]]]:
    """Return {paper id: sentence spans} for ``papers`` from an ``extractions.jsonl``."""
    out: dict[str, list[tuple[int, int]]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["id"] in papers:
                out[rec["id"]] = [tuple(s) for s in rec.get("sentences", [])]
    return out


def _sentence(text: str, spans: list[tuple[int, int]] | None, index: int, start: int, end: int):
    """The sentence around a mention and the mention's offsets inside it."""
    if spans and 0 <= index < len(spans):
        s, e = spans[index]
    else:  # no sentence spans: the text between the sentence ends around the mention
        s = max(text.rfind(". ", 0, start) + 2, 0) if text.rfind(". ", 0, start) >= 0 else 0
        e = text.find(". ", end)
        e = len(text) if e < 0 else e + 1
    return text[s:e], start - s, end - s


def _layout(H: nx.Graph, order: list[str], seed: int) -> dict[str, tuple[float, float]]:
    """Positions: the ``LABELLED`` best-supported nodes laid out first, on their own, so
    they spread over the view; the next nodes by force around them, the rest by their
    neighbours (or on an outer ring)."""
    top = order[:LABELLED]
    # Among the labelled nodes, weak springs between every pair keep unrelated ones from
    # flying apart and squeezing the related ones into a knot: they spread over the view
    # (the nearest neighbour of each is ~0.15 of the width away, against ~0.03 without).
    J = nx.complete_graph(top)
    nx.set_edge_attributes(J, 0.1, "weight")
    for u, v in H.subgraph(top).edges():
        J[u][v]["weight"] = 1.0
    placed = {
        k: (float(x), float(y))
        for k, (x, y) in nx.spring_layout(J, seed=seed, iterations=200, weight="weight").items()
    }
    core = order[:_SPRING_MAX]
    if len(core) > len(top):
        pos = nx.spring_layout(
            H.subgraph(core), pos=placed, fixed=top, seed=seed, iterations=60, weight="weight"
        )
        placed = {k: (float(x), float(y)) for k, (x, y) in pos.items()}
    for i, key in enumerate(order[_SPRING_MAX:]):
        near = [placed[v] for v in H.neighbors(key) if v in placed]
        angle = (i * 2.399963) % (2 * math.pi)  # golden-angle jitter, deterministic
        if near:
            x = sum(p[0] for p in near) / len(near) + 0.04 * math.cos(angle)
            y = sum(p[1] for p in near) / len(near) + 0.04 * math.sin(angle)
        else:
            radius = 1.15 + 0.1 * (i % 5)
            x, y = radius * math.cos(angle), radius * math.sin(angle)
        placed[key] = (x, y)
    return placed


def paper_label(paper: dict[str, Any], words: int = 8) -> str:
    """What a paper is called on the page: its title, else the first words of its text
    (a text input has no title, and its id is a hash).

    >>> paper_label({"title": None, "text": "We study sparse attention for long inputs."}, 4)
    'We study sparse attention …'
    """
    if paper.get("title"):
        return paper["title"]
    text = (paper.get("text") or "").split()
    return " ".join(text[:words]) + (" …" if len(text) > words else "")


def _top_entities(G: nx.MultiDiGraph, max_nodes: int) -> list[str]:
    """The keys of the ``max_nodes`` entities with the most support, best first."""
    keys = [n for n, d in G.nodes(data=True) if d.get("label") in ENTITY_LABELS]
    keys.sort(key=lambda k: (-G.nodes[k].get("support", 0), G.nodes[k]["name"], k))
    return keys[:max_nodes]


def _edges_between(G: nx.MultiDiGraph, keys: list[str]) -> tuple[list[list], nx.Graph]:
    """The relations between ``keys`` as compact ``[source index, target index, type,
    papers]`` rows, strongest first, and the graph weighted by support that lays them out."""
    chosen, index = set(keys), {key: i for i, key in enumerate(keys)}
    H = nx.Graph()
    H.add_nodes_from(keys)
    edges = []
    for u, v, rtype, data in G.edges(keys=True, data=True):
        if u in chosen and v in chosen:
            edges.append([index[u], index[v], rtype, data.get("support", 1)])
            w = data.get("support", 1) + (H[u][v]["weight"] if H.has_edge(u, v) else 0)
            H.add_edge(u, v, weight=w)
    edges.sort(key=lambda e: (-e[3], e[0], e[1], e[2]))
    return edges, H


def _mentions(G, key, evidence_per_node, sentences):
    """The ``(paper id, paper key)`` of the papers mentioning ``key``, sorted, and up to
    ``evidence_per_node`` of their sentences with the mention's offsets."""
    evidence, mentioning = [], []
    for p, _, rtype, data in G.in_edges(key, keys=True, data=True):
        if rtype != "MENTIONS":
            continue
        paper = G.nodes[p]
        pid = paper["paper_id"]
        mentioning.append((pid, p))
        if len(evidence) < evidence_per_node and data.get("evidence"):
            ev = data["evidence"][0]
            text, s, e = _sentence(
                paper["text"], (sentences or {}).get(pid), ev["sentence"], ev["start"], ev["end"]
            )
            evidence.append({"paper": pid, "text": text, "start": s, "end": e})
    mentioning.sort()
    return mentioning, evidence


def _add_papers(G, papers: dict, mentioning, evidence, papers_per_node: int) -> None:
    """Add the title, label and link of the papers a node shows to ``papers``."""
    keys_of = dict(mentioning)
    shown_ids = {pid for pid, _ in mentioning[:papers_per_node]} | {ev["paper"] for ev in evidence}
    for pid in sorted(shown_ids):
        if pid not in papers:
            paper = G.nodes[keys_of[pid]]
            papers[pid] = {
                "title": shown(paper.get("title") or ""),
                "label": shown(paper_label(paper)),
                "url": safe_url(paper.get("url")),
            }


def viz_data(
    G: nx.MultiDiGraph,
    max_nodes: int = 5000,
    evidence_per_node: int = 5,
    papers_per_node: int = 20,
    sentences: dict[str, list[tuple[int, int]]] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Return the nodes, edges and details the page shows: the ``max_nodes`` entities with
    the most support, their relations, and per node up to ``papers_per_node`` papers and
    ``evidence_per_node`` evidence sentences."""
    keys = _top_entities(G, max_nodes)
    edges, H = _edges_between(G, keys)
    pos = _layout(H, keys, seed)
    scale = 60 * math.sqrt(max(len(keys), 1))
    papers: dict[str, dict[str, Any]] = {}
    boards = dataset_boards(G)
    nodes = []
    for rank, key in enumerate(keys):
        node = G.nodes[key]
        mentioning, evidence = _mentions(G, key, evidence_per_node, sentences)
        _add_papers(G, papers, mentioning, evidence, papers_per_node)
        nodes.append(
            {
                "id": key,
                "name": shown(node["name"]),
                "type": node["label"],
                "support": node.get("support", 0),
                "aliases": [shown(a) for a in node.get("aliases") or []],
                "papers": [pid for pid, _ in mentioning[:papers_per_node]],
                "evidence": evidence,
                "relations": _relations(G, key, evidence_per_node),
                "boards": boards.get(node["name"], []) if node["label"] == "Dataset" else [],
                "rank": rank,
                "x": round(pos[key][0] * scale, 1),
                "y": round(pos[key][1] * scale, 1),
            }
        )
    return {
        "nodes": nodes,
        "edges": edges,
        "papers": papers,
        "colours": _COLOURS,
        "labelled": LABELLED,
        "total_entities": sum(1 for _, d in G.nodes(data=True) if d.get("label") in ENTITY_LABELS),
    }


def dataset_boards(
    G: nx.MultiDiGraph, per_dataset: int = 5, rows: int = 5
) -> dict[str, list[dict[str, Any]]]:
    """The leaderboards of each data set (by name) as the page shows them: its
    ``per_dataset`` largest boards, the best ``rows`` rows of each, and what each hid
    (the rules of :func:`kg.analytics.leaderboards.boards_of`)."""
    by_dataset: dict[str, list[tuple[str, Board]]] = {}
    for (dataset, metric), board in boards_of(G).items():
        by_dataset.setdefault(dataset, []).append((metric, board))
    out = {}
    for dataset, items in by_dataset.items():
        items.sort(key=lambda mb: (-len(mb[1].rows), mb[0]))
        out[dataset] = [
            {"metric": shown(metric), "direction": board.direction,
             "rows": [_board_row(r) for r in board.rows[:rows]],
             "more": max(0, len(board.rows) - rows), "hidden": board.hidden}
            for metric, board in items[:per_dataset]
        ]  # fmt: skip
    return out


def _board_row(row) -> dict[str, Any]:
    flag = {True: "own", False: "baseline"}.get(row.own, "")
    return {"method": shown(row.method or ""), "value": row.value, "unit": row.unit or "",
            "own": flag, "paper": row.paper_id, "note": row.note or "",
            "text": shown(row.evidence or "")}  # fmt: skip


def _relations(G: nx.MultiDiGraph, key: str, limit: int) -> list[dict[str, Any]]:
    """The best-supported relations of an entity with the evidence of their best paper:
    the sentence (or two) with the offsets of both mentions in it."""
    edges = [(u, v, t, d) for u, v, t, d in G.out_edges(key, keys=True, data=True)]
    edges += [(u, v, t, d) for u, v, t, d in G.in_edges(key, keys=True, data=True)]
    edges = [e for e in edges if e[2] in RELATION_TYPES and G.nodes[e[0]].get("label")
             in ENTITY_LABELS and e[3].get("evidence")]  # fmt: skip
    edges.sort(key=lambda e: (-e[3].get("support", 1), -e[3].get("confidence", 0), *e[:3]))
    out = []
    for u, v, rtype, data in edges[:limit]:
        ev = data["evidence"][0]
        text = _BIDI.sub(lambda m: " " * len(m.group()), ev.get("text", ""))  # offsets kept
        marks = [ev.get("head_at") or [0, 0], ev.get("tail_at") or [0, 0]]
        out.append({"head": shown(G.nodes[u]["name"]), "type": rtype,
                    "tail": shown(G.nodes[v]["name"]), "support": data.get("support", 1),
                    "confidence": data.get("confidence"), "paper": ev["paper"],
                    "text": text, "marks": marks})  # fmt: skip
    return out


def write_html(
    G: nx.MultiDiGraph,
    path: str | Path,
    *,
    show: int = 300,
    max_nodes: int = 5000,
    sentences: dict[str, list[tuple[int, int]]] | None = None,
    title: str = "kg graph",
) -> Path:
    """Write the interactive view of ``G`` to ``path``; the first ``show`` nodes are drawn
    at first, and a control draws more, up to ``max_nodes``."""
    data = viz_data(G, max_nodes=max_nodes, sentences=sentences)
    data["show"] = min(show, len(data["nodes"]))
    data["title"] = shown(title)
    payload = script_json(data)
    template = (_HERE / "template.html").read_text(encoding="utf-8")
    library = (_HERE / "vendor" / "cytoscape.min.js").read_text(encoding="utf-8")
    page = (
        template.replace("/*KG_TITLE*/", html.escape(shown(title)))
        .replace("/*CYTOSCAPE*/", library.replace("</script", "<\\/script"))
        .replace("/*KG_DATA*/", payload)
    )
    return atomic_write_text(Path(path), page)


GENERATOR = '<meta name="generator" content="kg viz">'
"""How a page written by :func:`write_html` starts (in its head): what
:func:`written_by_viz` looks for before a page is written over."""


def written_by_viz(path: Path) -> bool:
    """Whether the file at ``path`` is a page kg viz wrote."""
    try:
        with open(path, "rb") as fh:
            return GENERATOR.encode() in fh.read(4096)
    except OSError:
        return False
