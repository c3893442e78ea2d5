"""Sources of fresh papers: arXiv (OAI-PMH harvests, query-API searches) and Hugging Face
Daily Papers, fetched politely and resumably into the JSON Lines ``kg build`` reads."""

from kg.ingest.sources.arxiv import OAI_URL, QUERY_URL, ArxivOai, ArxivQuery
from kg.ingest.sources.harvest import FetchSummary, Source, fetch_to_file, state_path
from kg.ingest.sources.hf_daily import HF_URL, HfDaily
from kg.ingest.sources.http import PoliteClient, Politeness, user_agent
from kg.ingest.sources.paper import FetchedPaper, Page

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
