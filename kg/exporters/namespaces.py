"""The namespaces kg's RDF uses, as plain strings (no rdflib), with the prefixes kg writes
and that ``kg sparql`` declares for every query."""

from __future__ import annotations

__all__ = ["PREFIXES"]

PREFIXES: dict[str, str] = {
    "kg": "https://w3id.org/kg-abstracts/id/",
    "kgo": "https://w3id.org/kg-abstracts/ontology#",
    "mls": "http://www.w3.org/ns/mls#",
    "fabio": "http://purl.org/spar/fabio/",
    "schema": "https://schema.org/",
    "dcterms": "http://purl.org/dc/terms/",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "prov": "http://www.w3.org/ns/prov#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}
