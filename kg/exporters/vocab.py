"""RDF vocabularies kg emits beyond rdflib's own (DCTERMS, SKOS, PROV, RDF, RDFS, XSD)."""

from __future__ import annotations

from rdflib import Namespace, URIRef
from rdflib.namespace import DefinedNamespace

from kg.exporters.namespaces import PREFIXES

__all__ = ["KGO", "MLS", "FABIO", "SCHEMA", "KGD"]

KGD = Namespace(PREFIXES["kg"])
"""Namespace of kg's data: ``KGD["method/low-rank-adaptation"]``."""


class KGO(DefinedNamespace):
    """kg's ontology (``schemas/kg.ttl``)."""

    _fail = True
    _NS = Namespace(PREFIXES["kgo"])

    Paper: URIRef  # an abstract-bearing paper
    Method: URIRef  # an approach, model or algorithm
    Task: URIRef  # a research problem
    Dataset: URIRef  # a data set or benchmark
    Benchmark: URIRef  # a data set the abstract calls a benchmark
    Metric: URIRef  # an evaluation measure
    Result: URIRef  # a reported number
    Evidence: URIRef  # the sentence an assertion was read from
    ExtractionRun: URIRef  # one run of kg build
    key: URIRef  # deterministic key
    proposes: URIRef  # Paper -> entity it introduces
    mentions: URIRef  # Paper -> entity it mentions
    reports: URIRef  # Paper -> Result
    uses: URIRef  # Method -> Method
    appliedTo: URIRef  # Method -> Task
    evaluatedOn: URIRef  # Method -> Dataset
    outperforms: URIRef  # Method -> Method
    comparedWith: URIRef  # Method -> Method
    benchmarkFor: URIRef  # Dataset -> Task
    measuredBy: URIRef  # Task/Dataset -> Metric
    forMethod: URIRef  # Result -> Method
    forTask: URIRef  # Result -> Task
    onDataset: URIRef  # Result -> Dataset
    unit: URIRef  # unit of a result value
    delta: URIRef  # the result is an improvement or reduction
    own: URIRef  # the result is the paper's own method's (true) or a baseline's (false)
    change: URIRef  # which way a delta went as the text says: "up" or "down"
    condition: URIRef  # qualifier a result depends on
    boardMetric: URIRef  # the leaderboard a result is on (its metric, "[unit]" for a second unit)
    boardDirection: URIRef  # "higher" or "lower": which values that leaderboard ranks first
    boardValue: URIRef  # a result's value on its metric's scale
    boardUnit: URIRef  # the unit of that value
    boardNote: URIRef  # how the value was read ("0.875 read as 87.5%")
    boardShown: URIRef  # the leaderboard shows the result
    boardHidden: URIRef  # why the leaderboard hides the result
    foldedName: URIRef  # the preferred label in lower case, for lookups in any case
    support: URIRef  # number of papers behind an entity or assertion
    mentionCount: URIRef  # mentions of an entity (in all papers, or in one paper)
    proposedCount: URIRef  # papers that propose an entity
    confidence: URIRef  # extractor confidence in [0, 1]
    upvotes: URIRef  # votes where the paper was picked (Hugging Face Daily Papers)
    sentenceText: URIRef  # the sentence
    mentionText: URIRef  # the words of a mention, as written in the abstract
    sentenceIndex: URIRef  # 0-based index of the sentence in the abstract
    startChar: URIRef  # start offset in the abstract
    endChar: URIRef  # end offset in the abstract
    rule: URIRef  # the component and rule that made the assertion


class MLS(DefinedNamespace):
    """The parts of ML Schema (http://www.w3.org/ns/mls#) kg uses."""

    _fail = True
    _NS = Namespace(PREFIXES["mls"])

    Algorithm: URIRef
    Task: URIRef
    Dataset: URIRef
    EvaluationMeasure: URIRef
    ModelEvaluation: URIRef
    hasValue: URIRef
    specifiedBy: URIRef


class FABIO(DefinedNamespace):
    """The parts of FaBiO kg uses."""

    _fail = True
    _NS = Namespace(PREFIXES["fabio"])

    ResearchPaper: URIRef


class SCHEMA(DefinedNamespace):
    """The parts of schema.org kg uses."""

    _fail = True
    _NS = Namespace(PREFIXES["schema"])

    ScholarlyArticle: URIRef
    codeRepository: URIRef
    url: URIRef
