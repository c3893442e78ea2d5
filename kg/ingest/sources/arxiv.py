"""arXiv: bulk harvests through OAI-PMH (``ListRecords``, ``metadataPrefix=arXiv``) and
searches through the query API (Atom).

Both parse with lxml and ask through :class:`~kg.ingest.sources.http.PoliteClient`
(one connection, a delay between requests, ``Retry-After`` honoured). Every page is
returned with the cursor of the page after it, so a harvest that stops can go on from
where it stopped (:func:`kg.ingest.sources.harvest.fetch_to_file` keeps that cursor).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from kg.errors import FetchError
from kg.ingest.record import Skipped
from kg.ingest.sources.endpoints import OAI_URL, QUERY_URL
from kg.ingest.sources.http import PoliteClient, Transient
from kg.ingest.sources.paper import FetchedPaper, Page

__all__ = [
    "OAI_URL",
    "QUERY_URL",
    "ArxivOai",
    "ArxivQuery",
    "oai_set_of",
    "parse_oai_page",
    "parse_atom_page",
    "split_version",
]


_OAI = "http://www.openarchives.org/OAI/2.0/"
_ARXIV = "http://arxiv.org/OAI/arXiv/"
_ATOM = "http://www.w3.org/2005/Atom"
_ATOM_ARXIV = "http://arxiv.org/schemas/atom"
_OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
_NS = {"oai": _OAI, "a": _ARXIV, "atom": _ATOM, "arxiv": _ATOM_ARXIV, "os": _OPENSEARCH}
_PHYSICS_ARCHIVES = {
    "astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph",
    "nlin", "nucl-ex", "nucl-th", "physics", "quant-ph",
}  # fmt: skip
_VERSION = re.compile(r"^(?P<id>.+?)v(?P<version>\d+)$")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


def oai_set_of(category: str) -> str:
    """Return the OAI-PMH set that holds ``category``: its archive (``cs.CL`` → ``cs``),
    physics archives under ``physics:`` (``hep-th`` → ``physics:hep-th``).

    >>> oai_set_of("cs.CL"), oai_set_of("stat.ML"), oai_set_of("quant-ph")
    ('cs', 'stat', 'physics:quant-ph')
    """
    archive = category.split(".", 1)[0]
    return f"physics:{archive}" if archive in _PHYSICS_ARCHIVES else archive


def split_version(identifier: str) -> tuple[str, int | None]:
    """Return ``(id, version)`` of an arXiv identifier or abstract URL.

    >>> split_version("http://arxiv.org/abs/2401.01234v3")
    ('2401.01234', 3)
    >>> split_version("hep-th/9901001")
    ('hep-th/9901001', None)
    """
    ident = identifier.strip()
    ident = re.sub(r"^(https?://(export\.)?arxiv\.org/abs/|oai:arXiv\.org:)", "", ident)
    match = _VERSION.match(ident)
    if match:
        return match.group("id"), int(match.group("version"))
    return ident, None


def _text(elem: Any, path: str) -> str | None:
    found = elem.find(path, _NS) if elem is not None else None
    if found is None or found.text is None:
        return None
    return found.text.strip() or None


def _xml(body: bytes, what: str) -> Any:
    try:
        return etree.fromstring(body, parser=_PARSER)
    except etree.XMLSyntaxError as exc:  # a page cut off on the way: ask again
        raise Transient(f"{what} is not well-formed XML ({exc})") from exc


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _oai_paper(record: Any, source: str, line: int) -> FetchedPaper | Skipped | None:
    header = record.find("oai:header", _NS)
    identifier = _text(header, "oai:identifier") or "(no identifier)"
    if header is not None and header.get("status") == "deleted":
        return None
    meta = record.find("oai:metadata/a:arXiv", _NS)
    if meta is None:
        return Skipped(source, line, f"record {identifier}: no arXiv metadata")
    ident = _text(meta, "a:id")
    title = _text(meta, "a:title")
    abstract = meta.find("a:abstract", _NS)
    abstract_text = abstract.text if abstract is not None and abstract.text else ""
    missing = [n for n, v in (("id", ident), ("title", title), ("abstract", abstract_text.strip()))
               if not v]  # fmt: skip
    if missing:
        return Skipped(source, line, f"record {ident or identifier}: no {', '.join(missing)}")
    authors = []
    for author in meta.iterfind("a:authors/a:author", _NS):
        parts = [
            _text(author, "a:forenames"),
            _text(author, "a:keyname"),
            _text(author, "a:suffix"),
        ]
        name = " ".join(p for p in parts if p)
        if name:
            authors.append(_one_line(name))
    paper_id, version = split_version(ident)
    created = _text(meta, "a:created")
    return FetchedPaper(
        id=paper_id,
        version=version,
        title=_one_line(title),
        abstract=abstract_text.strip(),
        authors=tuple(authors),
        categories=tuple((_text(meta, "a:categories") or "").split()),
        date=created,
        updated=_text(meta, "a:updated") or _text(header, "oai:datestamp") or created,
        url=f"https://arxiv.org/abs/{paper_id}",
        doi=_text(meta, "a:doi"),
        source="arxiv-oai",
    )


def parse_oai_page(body: bytes, source: str = "arxiv-oai") -> tuple[list, str | None, int | None]:
    """Return ``(records, resumption token or None, complete list size)`` of one OAI-PMH
    ``ListRecords`` response; records are :class:`FetchedPaper` or :class:`Skipped`
    (malformed, with the record's id). ``noRecordsMatch`` is an empty page; any other
    OAI-PMH error raises :class:`FetchError`."""
    root = _xml(body, "the OAI-PMH response")
    if root.tag != f"{{{_OAI}}}OAI-PMH":
        raise Transient(f"not an OAI-PMH response (root element {root.tag})")
    error = root.find("oai:error", _NS)
    if error is not None:
        code = error.get("code", "")
        if code == "noRecordsMatch":
            return [], None, 0
        raise FetchError(f"the OAI-PMH server answered {code}: {_one_line(error.text or '')}")
    listing = root.find("oai:ListRecords", _NS)
    if listing is None:
        raise Transient("the OAI-PMH response has no ListRecords element")
    records: list[FetchedPaper | Skipped] = []
    for n, record in enumerate(listing.iterfind("oai:record", _NS), start=1):
        paper = _oai_paper(record, source, n)
        if paper is not None:
            records.append(paper)
    token_elem = listing.find("oai:resumptionToken", _NS)
    token = (token_elem.text or "").strip() if token_elem is not None else ""
    size = token_elem.get("completeListSize") if token_elem is not None else None
    return records, token or None, int(size) if size and size.isdigit() else None


def _atom_paper(entry: Any, source: str, line: int) -> FetchedPaper | Skipped:
    ident = _text(entry, "atom:id") or ""
    title = _text(entry, "atom:title")
    summary = entry.find("atom:summary", _NS)
    abstract = summary.text.strip() if summary is not None and summary.text else ""
    paper_id, version = split_version(ident)
    missing = [n for n, v in (("id", ident), ("title", title), ("abstract", abstract)) if not v]
    if missing:
        return Skipped(source, line, f"entry {paper_id or '(no id)'}: no {', '.join(missing)}")
    authors = [_one_line(n) for n in (_text(a, "atom:name") for a in
               entry.iterfind("atom:author", _NS)) if n]  # fmt: skip
    categories = [c.get("term") for c in entry.iterfind("atom:category", _NS) if c.get("term")]
    published = _text(entry, "atom:published")
    updated = _text(entry, "atom:updated")
    return FetchedPaper(
        id=paper_id,
        version=version,
        title=_one_line(title),
        abstract=abstract,
        authors=tuple(authors),
        categories=tuple(categories),
        date=published[:10] if published else None,
        updated=updated[:10] if updated else None,
        url=f"https://arxiv.org/abs/{paper_id}",
        doi=_text(entry, "arxiv:doi"),
        source="arxiv-query",
    )


def parse_atom_page(body: bytes, source: str = "arxiv-query") -> tuple[list, int]:
    """Return ``(records, total results)`` of one query-API Atom response; an API error
    (an entry titled ``Error``) raises :class:`FetchError`."""
    root = _xml(body, "the Atom feed")
    if root.tag != f"{{{_ATOM}}}feed":
        raise Transient(f"not an Atom feed (root element {root.tag})")
    total = int(_text(root, "os:totalResults") or 0)
    records: list[FetchedPaper | Skipped] = []
    for n, entry in enumerate(root.iterfind("atom:entry", _NS), start=1):
        if _text(entry, "atom:title") == "Error" and "/api/errors" in (
            _text(entry, "atom:id") or ""
        ):
            raise FetchError(f"the arXiv API answered an error: {_text(entry, 'atom:summary')}")
        records.append(_atom_paper(entry, source, n))
    return records, total


@dataclass(frozen=True)
class ArxivOai:
    """A harvest of arXiv's OAI-PMH interface: the records of ``categories`` (all of arXiv
    when empty) whose datestamp is between ``date_from`` and ``date_until`` (inclusive).

    A category is asked for through its archive's set and the records are kept when one
    of their categories is asked for (``cs.CL`` harvests ``cs`` and keeps cs.CL papers).
    """

    categories: tuple[str, ...] = ()
    date_from: str | None = None
    date_until: str | None = None
    base_url: str = OAI_URL
    metadata_prefix: str = "arXiv"

    name = "arxiv"

    def describe(self) -> dict[str, Any]:
        """What identifies this harvest (a resumed one must ask for the same)."""
        return {"source": "arxiv-oai", "categories": list(self.categories),
                "from": self.date_from, "until": self.date_until,
                "base_url": self.base_url}  # fmt: skip

    def _sets(self) -> list[str | None]:
        sets = sorted({oai_set_of(c) for c in self.categories})
        return list(sets) or [None]

    def _wanted(self, paper: FetchedPaper) -> bool:
        if not self.categories:
            return True
        wanted = set(self.categories)
        archives = {c for c in wanted if "." not in c}
        return any(c in wanted or c.split(".", 1)[0] in archives for c in paper.categories)

    def pages(self, client: PoliteClient, cursor: dict | None = None) -> Iterator[Page]:
        """Yield the harvest's pages from ``cursor`` on (``None``: from the start); each
        page carries the cursor of the next one (``None`` after the last)."""
        sets = self._sets()
        cursor = cursor or {"set": 0, "token": None}
        for index in range(cursor["set"], len(sets)):
            token = cursor["token"] if index == cursor["set"] else None
            while True:
                if token:
                    params = {"verb": "ListRecords", "resumptionToken": token}
                else:
                    params = {"verb": "ListRecords", "metadataPrefix": self.metadata_prefix}
                    if sets[index]:
                        params["set"] = sets[index]
                    if self.date_from:
                        params["from"] = self.date_from
                    if self.date_until:
                        params["until"] = self.date_until
                records, token, size = client.get(self.base_url, params, parse=parse_oai_page)
                kept = [r for r in records if isinstance(r, Skipped) or self._wanted(r)]
                last_set = index == len(sets) - 1
                if token:
                    nxt: dict | None = {"set": index, "token": token}
                else:
                    nxt = None if last_set else {"set": index + 1, "token": None}
                yield Page(kept, nxt, size, dropped=len(records) - len(kept))
                if not token:
                    break


@dataclass(frozen=True)
class ArxivQuery:
    """A search of arXiv's query API (``search_query``, e.g. ``all:"retrieval augmented"``),
    at most ``max_results`` papers, newest submissions first, ``page_size`` per request."""

    query: str
    max_results: int = 100
    page_size: int = 100
    base_url: str = QUERY_URL
    empty_page_retries: int = 3

    name = "arxiv"

    def describe(self) -> dict[str, Any]:
        """What identifies this search (a resumed one must ask for the same)."""
        return {"source": "arxiv-query", "query": self.query, "max": self.max_results,
                "base_url": self.base_url}  # fmt: skip

    def pages(self, client: PoliteClient, cursor: dict | None = None) -> Iterator[Page]:
        """Yield pages of results from ``cursor`` (``{"start": n}``) on."""
        start = (cursor or {}).get("start", 0)
        empty = 0
        while start < self.max_results:
            size = min(self.page_size, self.max_results - start)
            params = {"search_query": self.query, "start": start, "max_results": size,
                      "sortBy": "submittedDate", "sortOrder": "descending"}  # fmt: skip
            records, total = client.get(self.base_url, params, parse=parse_atom_page)
            end = min(total, self.max_results)
            if not records and start < end and empty < self.empty_page_retries:
                empty += 1  # the API sometimes answers an empty page mid-way: ask again
                continue
            empty = 0
            start += len(records)
            done = not records or start >= end
            yield Page(records, None if done else {"start": start}, total)
            if done:
                return
