"""The endpoints kg fetches papers from (plain constants, so that ``kg --help`` needs no
HTTP client)."""

OAI_URL = "https://oaipmh.arxiv.org/oai"
"""arXiv's OAI-PMH 2.0 base URL (``export.arxiv.org/oai2``, the older one, redirects)."""
QUERY_URL = "https://export.arxiv.org/api/query"
"""arXiv's query API (Atom 1.0 responses)."""
HF_URL = "https://huggingface.co/api/daily_papers"
"""Hugging Face Daily Papers API (one request per day)."""
