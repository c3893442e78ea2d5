"""A real local HTTP server for the source tests, and answers in each API's documented
format (OAI-PMH 2.0 with the ``arXiv`` metadata format, the query API's Atom feed, the
Daily Papers JSON), all written for these tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse
from xml.sax.saxutils import escape


@dataclass
class Answer:
    """One response: status, headers, body; ``cut`` sends only that many bytes of the body
    (with the full Content-Length) and then drops the connection."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    cut: int | None = None


@dataclass
class Seen:
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    port: int


class SourceServer:
    """Serves ``handler(path, params) -> Answer`` on 127.0.0.1; records every request."""

    def __init__(self, handler: Callable[[str, dict[str, str]], Answer]) -> None:
        self.handler = handler
        self.seen: list[Seen] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: one connection unless dropped

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlparse(self.path)
                params = {k: v[-1] for k, v in parse_qs(url.query).items()}
                outer.seen.append(
                    Seen(url.path, params, dict(self.headers), self.client_address[1])
                )
                answer = outer.handler(url.path, params)
                self.send_response(answer.status)
                for k, v in answer.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                if answer.cut is not None:
                    self.wfile.write(answer.body[: answer.cut])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.wfile.write(answer.body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> SourceServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- papers, in our own words ---------------------------------------------------------------

_TOPICS = [
    ("sparse retrieval", "passage ranking", "MS MARCO", "MRR@10"),
    ("graph attention networks", "node classification", "Cora", "accuracy"),
    ("contrastive pretraining", "image classification", "ImageNet", "top-1 accuracy"),
    ("speculative decoding", "machine translation", "WMT14 English-German", "BLEU"),
    ("low-rank adapters", "question answering", "SQuAD", "F1"),
    ("diffusion transformers", "image generation", "CIFAR-10", "FID"),
    ("mixture of experts", "language modeling", "WikiText-103", "perplexity"),
    ("curriculum sampling", "speech recognition", "LibriSpeech", "word error rate"),
]


def paper(n: int, *, version: int = 1, category: str = "cs.CL", tweak: str = "") -> dict:
    """A made-up paper ``n``: id ``2611.0000n``, an abstract about one of the topics."""
    method, task, dataset, metric = _TOPICS[n % len(_TOPICS)]
    abstract = (
        f"We study {method} for {task}. Our model, Probe-{n}, adds a light gating layer "
        f"on top of {method} and trains in one stage. On {dataset} it improves {metric} "
        f"by 2.{n} points over the strongest baseline, with $\\ell_2$ regularisation and "
        f"a 4$\\times$ smaller memory budget; about 11\\% of the gain comes from gating.{tweak}"
    )
    return {
        "id": f"2611.{n:05d}",
        "version": version,
        "title": f"Probe-{n}: gated {method} for {task}",
        "abstract": abstract,
        "authors": [("Ada", "Lovelace"), ("Alan", "Turing")],
        "categories": [category],
        "created": f"2026-11-{1 + n % 27:02d}",
        "updated": f"2026-11-{1 + n % 27:02d}",
    }


def oai_record(p: dict | None = None, *, deleted: str | None = None, broken: str = "") -> str:
    """One OAI-PMH ``<record>`` in the arXiv metadata format (``broken`` drops that element)."""
    if deleted:
        return (
            f'<record><header status="deleted"><identifier>oai:arXiv.org:{deleted}'
            "</identifier><datestamp>2026-11-30</datestamp></header></record>"
        )
    authors = "".join(
        f"<author><keyname>{escape(last)}</keyname><forenames>{escape(first)}</forenames></author>"
        for first, last in p["authors"]
    )
    parts = {
        "id": f"<id>{p['id']}</id>",
        "created": f"<created>{p['created']}</created>",
        "updated": f"<updated>{p['updated']}</updated>",
        "authors": f"<authors>{authors}</authors>",
        "title": f"<title>{escape(p['title'])}</title>",
        "categories": f"<categories>{' '.join(p['categories'])}</categories>",
        "abstract": f"<abstract>  {escape(p['abstract'])}\n</abstract>",
    }
    body = "".join(v for k, v in parts.items() if k != broken)
    return (
        f"<record><header><identifier>oai:arXiv.org:{p['id']}</identifier>"
        f"<datestamp>{p['updated']}</datestamp><setSpec>cs</setSpec></header><metadata>"
        '<arXiv xmlns="http://arxiv.org/OAI/arXiv/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"{body}</arXiv></metadata></record>"
    )


def oai_page(records: list[str], token: str | None, size: int | None = None) -> bytes:
    """A ListRecords response; ``token=""`` writes the empty token that ends a list."""
    tok = ""
    if token is not None:
        attrs = f' completeListSize="{size}"' if size is not None else ""
        tok = f"<resumptionToken{attrs}>{token}</resumptionToken>"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
        "<responseDate>2026-12-01T00:00:00Z</responseDate>"
        '<request verb="ListRecords">http://127.0.0.1/oai</request>'
        f"<ListRecords>{''.join(records)}{tok}</ListRecords></OAI-PMH>"
    ).encode()


def oai_error(code: str, message: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
        "<responseDate>2026-12-01T00:00:00Z</responseDate>"
        '<request verb="ListRecords">http://127.0.0.1/oai</request>'
        f'<error code="{code}">{escape(message)}</error></OAI-PMH>'
    ).encode()


def atom_feed(papers: list[dict], total: int, start: int) -> bytes:
    """A query-API answer: an Atom feed with OpenSearch totals and arXiv extensions."""
    entries = "".join(
        "<entry>"
        f"<id>http://arxiv.org/abs/{p['id']}v{p['version']}</id>"
        f"<updated>{p['updated']}T10:00:00Z</updated>"
        f"<published>{p['created']}T10:00:00Z</published>"
        f"<title>{escape(p['title'])}</title>"
        f"<summary>{escape(p['abstract'])}</summary>"
        + "".join(f"<author><name>{f} {last}</name></author>" for f, last in p["authors"])
        + f'<arxiv:primary_category term="{p["categories"][0]}" '
        'scheme="http://arxiv.org/schemas/atom"/>'
        + "".join(
            f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>'
            for c in p["categories"]
        )  # fmt: skip
        + f'<link href="http://arxiv.org/abs/{p["id"]}v{p["version"]}" rel="alternate" '
        'type="text/html"/></entry>'
        for p in papers
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "<title>arXiv Query: test</title><id>http://arxiv.org/api/test</id>"
        "<updated>2026-12-01T00:00:00-05:00</updated>"
        f"<opensearch:totalResults>{total}</opensearch:totalResults>"
        f"<opensearch:startIndex>{start}</opensearch:startIndex>"
        f"<opensearch:itemsPerPage>{len(papers)}</opensearch:itemsPerPage>"
        f"{entries}</feed>"
    ).encode()


def daily_papers(papers: list[dict], upvotes: list[int]) -> bytes:
    """A Daily Papers answer: a list of items with a ``paper`` object each."""
    items = [
        {
            "paper": {
                "id": p["id"],
                "authors": [
                    {"_id": f"a{i}", "name": f"{f} {last}", "hidden": False}
                    for i, (f, last) in enumerate(p["authors"])
                ],  # fmt: skip
                "publishedAt": f"{p['created']}T10:00:00.000Z",
                "title": p["title"],
                "summary": p["abstract"],
                "upvotes": votes,
            },
            "publishedAt": f"{p['created']}T12:00:00.000Z",
            "title": p["title"],
            "numComments": 1,
        }
        for p, votes in zip(papers, upvotes, strict=True)
    ]
    return json.dumps(items).encode()
