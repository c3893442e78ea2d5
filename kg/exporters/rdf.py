"""Turtle export on kg's ontology; serialised through pyoxigraph when it is installed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import networkx as nx
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, SKOS, XSD

from kg.exporters.namespaces import PREFIXES
from kg.exporters.vocab import FABIO, KGD, KGO, MLS, SCHEMA
from kg.graph.model import label_of_key
from kg.graph.store import GraphSource, graph_source

__all__ = [
    "node_iri",
    "triples",
    "to_rdflib",
    "write_turtle",
    "oxigraph_term",
    "oxigraph_triples",
    "PREFIXES",
]

_CLASSES = {
    "Method": (KGO.Method, MLS.Algorithm),
    "Task": (KGO.Task, MLS.Task),
    "Dataset": (KGO.Dataset, MLS.Dataset),
    "Metric": (KGO.Metric, MLS.EvaluationMeasure),
}
_PREDICATES = {
    "USES": KGO.uses,
    "APPLIED_TO": KGO.appliedTo,
    "EVALUATED_ON": KGO.evaluatedOn,
    "OUTPERFORMS": KGO.outperforms,
    "COMPARED_WITH": KGO.comparedWith,
    "BENCHMARK_FOR": KGO.benchmarkFor,
    "MEASURED_BY": KGO.measuredBy,
    "PROPOSES": KGO.proposes,
    "MENTIONS": KGO.mentions,
    "REPORTS": KGO.reports,
    "ON_DATASET": KGO.onDataset,
    "FOR_METHOD": KGO.forMethod,
    "FOR_TASK": KGO.forTask,
}

# edges whose evidence is the mention itself (its words and offsets), not a sentence
_MENTION_EDGES = frozenset({"MENTIONS", "PROPOSES"})

Triple = tuple[URIRef | BNode, URIRef, URIRef | BNode | Literal]


def node_iri(key: str) -> URIRef:
    """Return the IRI of a node key (``method:lora`` -> ``<...id/method/lora>``).

    Examples
    --------
    >>> str(node_iri("method:low-rank-adaptation")).endswith("id/method/low-rank-adaptation")
    True
    """
    kind, _, rest = key.partition(":")
    safe = "".join(ch if ch.isalnum() or ch in "-._~" else f"%{ord(ch):02X}" for ch in rest)
    return KGD[f"{kind}/{safe}"]


def _decimal(value: float | int | str) -> Literal:
    """``value`` as an ``xsd:decimal`` in its plain lexical form (``1e-05`` -> ``0.00001``)."""
    text = format(Decimal(repr(value) if isinstance(value, float) else str(value)), "f")
    return Literal(text if "." in text else text + ".0", datatype=XSD.decimal)


def triples(
    G: nx.MultiDiGraph | GraphSource, *, run_started: datetime | None = None
) -> Iterator[Triple]:
    """Yield the RDF triples of ``G`` (a graph or a build's tables, streamed): nodes, typed
    edges and their evidence."""
    source = graph_source(G)
    n_nodes, n_edges = sum(source.label_counts().values()), sum(source.type_counts().values())
    run = KGD[f"run/{_digest(str(n_nodes) + str(n_edges))}"]
    started = run_started or datetime.now(UTC)
    yield run, RDF.type, KGO.ExtractionRun
    yield run, RDF.type, PROV.Activity
    yield run, PROV.startedAtTime, Literal(started.isoformat(), datatype=XSD.dateTime)
    for node, data in source.nodes():
        yield from _node_triples(node, data, run)
    for u, v, rtype, data in source.edges():
        yield from _edge_triples(u, v, rtype, data, run)


def _node_triples(node: str, data: dict, run: URIRef) -> Iterator[Triple]:
    s = node_iri(node)
    label = data["label"]
    yield s, KGO.key, Literal(node)
    if label == "Paper":
        yield s, RDF.type, KGO.Paper
        yield s, RDF.type, FABIO.ResearchPaper
        yield s, RDF.type, SCHEMA.ScholarlyArticle
        yield s, DCTERMS.identifier, Literal(data["paper_id"])
        yield s, DCTERMS.abstract, Literal(data["text"])
        if data.get("title"):
            yield s, DCTERMS.title, Literal(data["title"])
        if data.get("date"):
            yield s, DCTERMS.date, Literal(data["date"])
        elif data.get("year"):
            yield s, DCTERMS.date, Literal(str(data["year"]), datatype=XSD.gYear)
        for author in data.get("authors") or []:
            yield s, DCTERMS.creator, Literal(author)
        if data.get("url"):
            yield s, SCHEMA.url, Literal(data["url"], datatype=XSD.anyURI)
        if data.get("code_url"):
            yield s, SCHEMA.codeRepository, Literal(data["code_url"], datatype=XSD.anyURI)
        if data.get("upvotes") is not None:
            yield s, KGO.upvotes, Literal(int(data["upvotes"]))
    elif label == "Result":
        yield s, RDF.type, KGO.Result
        yield s, RDF.type, MLS.ModelEvaluation
        yield s, MLS.hasValue, _decimal(data["value"])
        yield s, KGO.delta, Literal(bool(data["delta"]))
        if data.get("own") is not None:
            yield s, KGO.own, Literal(bool(data["own"]))
        if data.get("change"):
            yield s, KGO.change, Literal(data["change"])
        yield s, KGO.confidence, _decimal(data["confidence"])
        if data.get("unit"):
            yield s, KGO.unit, Literal(data["unit"])
        if data.get("condition"):
            yield s, KGO.condition, Literal(data["condition"])
        if data.get("metric_name"):
            yield s, SKOS.prefLabel, Literal(data["metric_name"])
        yield from _board_triples(s, data)
        yield s, KGO.sentenceText, Literal(data["evidence"])
        yield s, KGO.sentenceIndex, Literal(int(data["sentence"]))
        yield s, KGO.startChar, Literal(int(data["start"]))
        yield s, KGO.endChar, Literal(int(data["end"]))
        yield s, PROV.wasDerivedFrom, node_iri(f"paper:{data['paper_id']}")
        yield s, PROV.wasGeneratedBy, run
    else:
        own, shared = _CLASSES[label]
        yield s, RDF.type, own
        yield s, RDF.type, shared
        yield s, RDF.type, SKOS.Concept
        if label == "Dataset" and data.get("benchmark"):
            yield s, RDF.type, KGO.Benchmark
        yield s, SKOS.prefLabel, Literal(data["name"])
        yield s, KGO.foldedName, Literal(data["name"].lower())
        for alias in data.get("aliases") or []:
            yield s, SKOS.altLabel, Literal(alias)
        yield s, KGO.support, Literal(int(data.get("support", 0)))
        yield s, KGO.mentionCount, Literal(int(data.get("mention_count", 0)))
        yield s, KGO.proposedCount, Literal(int(data.get("proposed_count", 0)))


_BOARD_TEXTS = (
    ("board_metric", KGO.boardMetric),
    ("board_direction", KGO.boardDirection),
    ("board_unit", KGO.boardUnit),
    ("board_note", KGO.boardNote),
    ("board_hidden", KGO.boardHidden),
)


def _board_triples(s: URIRef, data: dict) -> Iterator[Triple]:
    """What the leaderboard rules decided for a result (:data:`~kg.graph.model.BOARD_PROPERTIES`;
    empty texts are left out)."""
    if data.get("board_shown") is None:
        return  # a graph the build did not place on boards
    yield s, KGO.boardShown, Literal(bool(data["board_shown"]))
    yield s, KGO.boardValue, _decimal(data["board_value"])
    for key, predicate in _BOARD_TEXTS:
        if data.get(key):
            yield s, predicate, Literal(data[key])


def _edge_triples(u: str, v: str, rtype: str, data: dict, run: URIRef) -> Iterator[Triple]:
    s, o = node_iri(u), node_iri(v)
    from_result = label_of_key(u) == "Result"
    if rtype == "MEASURED_BY" and from_result:
        p = MLS.specifiedBy
    else:
        p = _PREDICATES[rtype]
    yield s, p, o
    if rtype == "REPORTS" or from_result:
        return  # the provenance of these lies on the result itself
    stmt = KGD[f"evidence/{_digest(u + '|' + rtype + '|' + v)}"]
    yield stmt, RDF.type, RDF.Statement
    yield stmt, RDF.type, KGO.Evidence
    yield stmt, RDF.subject, s
    yield stmt, RDF.predicate, p
    yield stmt, RDF.object, o
    yield stmt, KGO.support, Literal(int(data["support"]))
    yield stmt, KGO.confidence, _decimal(data["confidence"])
    if rtype == "MENTIONS":
        yield stmt, KGO.mentionCount, Literal(int(data.get("mentions", len(data["evidence"]))))
    yield stmt, PROV.wasGeneratedBy, run
    for paper in data["papers"]:
        yield stmt, PROV.wasDerivedFrom, node_iri(f"paper:{paper}")
    for ev in data["evidence"]:
        node = KGD[f"evidence/{_digest(json.dumps(ev, sort_keys=True) + str(stmt))}"]
        yield stmt, PROV.qualifiedDerivation, node
        yield node, RDF.type, PROV.Derivation
        yield node, PROV.entity, node_iri(f"paper:{ev['paper']}")
        yield node, KGO.sentenceIndex, Literal(int(ev["sentence"]))
        if "text" in ev:  # a mention's own words, or the sentence a relation was read from
            text = KGO.mentionText if rtype in _MENTION_EDGES else KGO.sentenceText
            yield node, text, Literal(ev["text"])
        span = ev.get("head_span") or [ev.get("start"), ev.get("end")]
        if span[0] is not None:
            yield node, KGO.startChar, Literal(int(span[0]))
            yield node, KGO.endChar, Literal(int((ev.get("tail_span") or span)[1]))
        if ev.get("rule"):
            yield node, KGO.rule, Literal(ev["rule"])


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def to_rdflib(G: nx.MultiDiGraph | GraphSource) -> Graph:
    """Return ``G`` as an rdflib ``Graph`` with kg's prefixes bound."""
    g = Graph()
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns)
    for t in triples(G):
        g.add(t)
    return g


def write_turtle(
    G: nx.MultiDiGraph | GraphSource, path: str | Path, *, engine: str = "auto"
) -> None:
    """Write ``G`` as Turtle; ``engine`` is ``pyoxigraph`` (fast; also ``auto``, the
    default) or ``rdflib``."""
    if engine not in {"auto", "pyoxigraph", "rdflib"}:
        raise ValueError(f"engine must be auto, pyoxigraph or rdflib, not {engine!r}")
    if engine == "rdflib":
        to_rdflib(G).serialize(destination=str(path), format="turtle")
    else:
        _write_with_oxigraph(G, Path(path))


def oxigraph_term(t: URIRef | BNode | Literal):
    """Return an rdflib term as the pyoxigraph term it names."""
    import pyoxigraph as ox

    if isinstance(t, URIRef):
        return ox.NamedNode(str(t))
    if isinstance(t, BNode):
        return ox.BlankNode(str(t))
    if t.language:
        return ox.Literal(str(t), language=t.language)
    if t.datatype:
        return ox.Literal(str(t), datatype=ox.NamedNode(str(t.datatype)))
    return ox.Literal(str(t))


def oxigraph_triples(G: nx.MultiDiGraph | GraphSource) -> Iterator:
    """Yield the triples of ``G`` as pyoxigraph ``Triple`` objects."""
    import pyoxigraph as ox

    term = oxigraph_term
    for s, p, o in triples(G):
        yield ox.Triple(term(s), term(p), term(o))


def _write_with_oxigraph(G: nx.MultiDiGraph | GraphSource, path: Path) -> None:
    import pyoxigraph as ox

    with open(path, "wb") as fh:
        ox.serialize(oxigraph_triples(G), fh, ox.RdfFormat.TURTLE, prefixes=PREFIXES)
