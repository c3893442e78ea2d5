"""Saved Cypher queries: one ``.cypher`` file each in ``queries/``, with a comment header.

A header looks like this::

    // Title: Leaderboard for a dataset and metric
    // Answers: Which methods report the best values for a metric on a dataset?
    // Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
    // Param: $limit = 20 -- rows to return

``= value`` gives a default; ``e.g. value`` an example of a required parameter.
Values are JSON. A file ``NAME.ENGINE.cypher`` next to ``NAME.cypher`` is the
variant that engine (``neo4j`` or ``ladybug``) runs instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kg.errors import KgError
from kg.resources import queries_dir

__all__ = ["Param", "SavedQuery", "ENGINES", "list_queries", "get_query", "parse_query"]

ENGINES = ("neo4j", "ladybug")
_PARAM = re.compile(
    r"^\$(?P<name>\w+)\s*(?:=\s*(?P<default>.+?)|e\.g\.\s*(?P<example>.+?))\s*(?:--\s*(?P<help>.*))?$"
)


@dataclass(frozen=True)
class Param:
    """A query parameter: its name, a default or an example value, and what it means."""

    name: str
    example: Any
    required: bool
    help: str = ""


@dataclass(frozen=True)
class SavedQuery:
    """A saved query: its name, header fields and Cypher text per engine."""

    name: str
    title: str
    answers: str
    params: tuple[Param, ...]
    text: str
    variants: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    def text_for(self, engine: str) -> str:
        """Return the Cypher this query runs on ``engine``."""
        if engine not in ENGINES:
            raise KgError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
        return self.variants.get(engine, self.text)

    def bind(self, values: dict[str, Any]) -> dict[str, Any]:
        """Return the parameters to run with: ``values`` over the defaults; check required ones."""
        known = {p.name for p in self.params}
        unknown = sorted(set(values) - known)
        if unknown:
            raise KgError(
                f"query {self.name!r} has no parameter {', '.join(unknown)}; "
                f"it takes: {', '.join(sorted(known)) or 'none'}"
            )
        out = {}
        for p in self.params:
            if p.name in values:
                out[p.name] = values[p.name]
            elif p.required:
                raise KgError(
                    f"query {self.name!r} needs --param {p.name}=VALUE "
                    f"(e.g. {p.name}={json.dumps(p.example)}): {p.help}"
                )
            else:
                out[p.name] = p.example
        return out

    def examples(self) -> dict[str, Any]:
        """Return every parameter at its default or example value."""
        return {p.name: p.example for p in self.params}


def parse_query(
    name: str, text: str, path: Path | None = None, *, comment: str = "//"
) -> SavedQuery:
    """Parse a saved query's header (lines starting with ``comment``: ``//`` in Cypher,
    ``#`` in SPARQL); raise ``KgError`` naming the file when it is malformed."""
    where = str(path or name)
    fields: dict[str, str] = {}
    params: list[Param] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.startswith(comment):
            break
        body = line[len(comment) :].strip()
        key, sep, value = body.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "param":
            match = _PARAM.match(value)
            if not match:
                raise KgError(f"{where}:{lineno}: cannot read parameter {value!r}")
            raw = match["default"] if match["default"] is not None else match["example"]
            try:
                example = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise KgError(f"{where}:{lineno}: parameter value {raw!r} is not JSON") from exc
            params.append(
                Param(
                    match["name"], example, match["default"] is None, (match["help"] or "").strip()
                )
            )
        elif key in {"title", "answers"}:
            fields[key] = value
    for key in ("title", "answers"):
        if key not in fields:
            raise KgError(f"{where}: the header lacks a '{comment} {key.title()}:' line")
    return SavedQuery(name, fields["title"], fields["answers"], tuple(params), text, path=path)


def list_queries(directory: str | Path | None = None) -> list[SavedQuery]:
    """Return the saved queries in ``directory`` (default: kg's ``queries/``), by name."""
    directory = Path(directory) if directory else queries_dir()
    variants: dict[str, dict[str, str]] = {}
    base: dict[str, Path] = {}
    for path in sorted(directory.glob("*.cypher")):
        stem = path.name[: -len(".cypher")]
        name, _, engine = stem.partition(".")
        if engine:
            if engine not in ENGINES:
                raise KgError(f"{path}: unknown engine suffix {engine!r}")
            variants.setdefault(name, {})[engine] = path.read_text(encoding="utf-8")
        else:
            base[name] = path
    out = []
    for name, path in sorted(base.items()):
        query = parse_query(name, path.read_text(encoding="utf-8"), path)
        out.append(replace(query, variants=variants.get(name, {})))
    return out


def get_query(name: str, directory: str | Path | None = None) -> SavedQuery:
    """Return the saved query called ``name``."""
    queries = {q.name: q for q in list_queries(directory)}
    if name not in queries:
        raise KgError(
            f"no saved query {name!r}; `kg query --list` shows them: {', '.join(sorted(queries))}"
        )
    return queries[name]
