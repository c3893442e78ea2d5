"""Sources of fresh papers: arXiv (OAI-PMH harvests, query-API searches) and Hugging Face
Daily Papers, fetched politely and resumably into the JSON Lines ``kg build`` reads.

The names below load on first use, so that ``kg --help`` and the endpoint constants
(``kg.ingest.sources.endpoints``) do not import the HTTP client.
"""

from __future__ import annotations

from kg.util.lazy import lazy_names

__all__ = [
    "OAI_URL",
    "QUERY_URL",
    "HF_URL",
    "ArxivOai",
    "ArxivQuery",
    "HfDaily",
    "FetchedPaper",
    "Page",
    "Source",
    "FetchSummary",
    "fetch_to_file",
    "state_path",
    "Politeness",
    "PoliteClient",
    "user_agent",
]

_FROM = {
    "OAI_URL": "kg.ingest.sources.endpoints",
    "QUERY_URL": "kg.ingest.sources.endpoints",
    "HF_URL": "kg.ingest.sources.endpoints",
    "ArxivOai": "kg.ingest.sources.arxiv",
    "ArxivQuery": "kg.ingest.sources.arxiv",
    "HfDaily": "kg.ingest.sources.hf_daily",
    "FetchedPaper": "kg.ingest.sources.paper",
    "Page": "kg.ingest.sources.paper",
    "Source": "kg.ingest.sources.harvest",
    "FetchSummary": "kg.ingest.sources.harvest",
    "fetch_to_file": "kg.ingest.sources.harvest",
    "state_path": "kg.ingest.sources.harvest",
    "Politeness": "kg.ingest.sources.http",
    "PoliteClient": "kg.ingest.sources.http",
    "user_agent": "kg.ingest.sources.http",
}


__getattr__, __dir__ = lazy_names(__name__, _FROM)
