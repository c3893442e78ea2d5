"""Saved SPARQL queries (``queries/sparql/*.rq``) and the engine that runs SPARQL on a build.

A saved query has the same header as the Cypher ones, in SPARQL comments::

    # Title: Leaderboard for a dataset and metric
    # Answers: Which methods report the best scores for a metric on a dataset?
    # Param: $dataset e.g. "ImageNet" -- a Dataset name, alias or key
    # Param: $limit = 20 -- rows to return

A parameter is a SPARQL variable written with ``$``. Its value is bound as a typed RDF term
(a string, ``xsd:integer``, ``xsd:double`` or ``xsd:boolean`` literal) by substitution
(SEP-0007, as Oxigraph implements it), never pasted into the query text. Oxigraph binds only
variables the query projects, so a saved query lists its parameters at the end of its
``SELECT`` (and of its ``GROUP BY``); kg leaves those constant columns out of the answer.
``$limit`` is the one exception SPARQL forces: ``LIMIT`` takes no variable, so kg stops
reading rows after ``limit`` of them, and a saved query that takes ``$limit`` leaves
``LIMIT`` out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from kg.errors import KgError
from kg.query.engines import QueryResult
from kg.query.guard import check_sparql
from kg.query.saved import SavedQuery, parse_query
from kg.resources import queries_dir

__all__ = [
    "ROW_LIMIT",
    "SparqlEngine",
    "get_sparql_query",
    "list_sparql_queries",
    "render_query",
    "rdf_term",
    "run_saved_sparql",
    "sparql_dir",
]

ROW_LIMIT = "limit"
"""The parameter kg applies as a row cap rather than as a bound variable."""

_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = {
    _XSD + t
    for t in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
        "negativeInteger", "nonPositiveInteger", "unsignedLong", "unsignedInt",
        "unsignedShort", "unsignedByte",
    )
}  # fmt: skip
_FLOATS = {_XSD + "decimal", _XSD + "double", _XSD + "float"}


def sparql_dir() -> Path:
    """Return the folder of saved SPARQL queries (``queries/sparql/``)."""
    return queries_dir() / "sparql"


def list_sparql_queries(directory: str | Path | None = None) -> list[SavedQuery]:
    """Return the saved SPARQL queries in ``directory`` (default ``queries/sparql/``), by name."""
    directory = Path(directory) if directory else sparql_dir()
    return [
        parse_query(path.stem, path.read_text(encoding="utf-8"), path, comment="#")
        for path in sorted(directory.glob("*.rq"))
    ]


def get_sparql_query(name: str, directory: str | Path | None = None) -> SavedQuery:
    """Return the saved SPARQL query called ``name``."""
    queries = {q.name: q for q in list_sparql_queries(directory)}
    if name not in queries:
        raise KgError(
            f"no saved SPARQL query {name!r}; `kg sparql --list` shows them: "
            f"{', '.join(sorted(queries))}"
        )
    return queries[name]


def rdf_term(value: Any):
    """Return a parameter value as the typed RDF term it binds.

    >>> str(rdf_term(3)), str(rdf_term(True)), str(rdf_term('say "hi"'))
    ('"3"^^<http://www.w3.org/2001/XMLSchema#integer>', \
'"true"^^<http://www.w3.org/2001/XMLSchema#boolean>', '"say \\\\"hi\\\\""')
    """
    import pyoxigraph as ox

    if isinstance(value, bool):
        return ox.Literal("true" if value else "false", datatype=ox.NamedNode(_XSD + "boolean"))
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode(_XSD + "integer"))
    if isinstance(value, float):
        return ox.Literal(repr(value), datatype=ox.NamedNode(_XSD + "double"))
    if isinstance(value, str):
        return ox.Literal(value)
    raise KgError(f"cannot bind {value!r} in SPARQL: give a string, number or true/false")


def _plain(term: Any) -> Any:
    """A pyoxigraph term as plain data: numbers and booleans as Python values, IRIs and
    other literals as their text, unbound as None."""
    import pyoxigraph as ox

    if term is None:
        return None
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        try:
            if datatype in _INTEGERS:
                return int(term.value)
            if datatype in _FLOATS:
                return float(term.value)
        except ValueError:
            return term.value
        if datatype == _XSD + "boolean":
            return term.value in {"true", "1"}
        return term.value
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return term.value


def _split_limit(params: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    params = dict(params)
    if ROW_LIMIT not in params:
        return params, None
    limit = params.pop(ROW_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise KgError(f"--param limit must be a whole number ≥ 0, not {limit!r}")
    return params, limit


@dataclass
class SparqlEngine:
    """SPARQL on a build: its Oxigraph store (``graph.oxigraph/``) when it has one, else
    its ``graph.ttl`` parsed into memory. Queries only: SPARQL Update is refused, and so is
    ``SERVICE`` (a request to another endpoint) unless ``allow_service``."""

    path: Path
    name: str = "sparql"
    allow_service: bool = False

    def __post_init__(self) -> None:
        from kg.exporters.oxigraph import STORE_NAME, open_store

        path = Path(self.path)
        if (path / STORE_NAME).is_dir() or path.name == STORE_NAME:
            self.store, self.source = open_store(path), "store"
        else:
            turtle = path if path.suffix == ".ttl" else path / "graph.ttl"
            if not turtle.is_file():
                raise KgError(
                    f"{path} has neither {STORE_NAME}/ nor graph.ttl; "
                    "give a kg build directory (or a Turtle file)"
                )
            self.store, self.source = _parsed(turtle), "turtle"

    def run(self, query: str, params: dict[str, Any] | None = None) -> QueryResult:
        """Run ``query`` with ``params`` bound as typed terms (``limit`` caps the rows)."""
        import pyoxigraph as ox

        from kg.exporters.namespaces import PREFIXES

        check_sparql(query, allow_service=self.allow_service)
        values, limit = _split_limit(params or {})
        substitutions = {ox.Variable(k): rdf_term(v) for k, v in values.items()}
        try:
            answer = self.store.query(query, prefixes=PREFIXES, substitutions=substitutions)
            if isinstance(answer, ox.QueryBoolean):
                return QueryResult(["answer"], [(bool(answer),)])
            if isinstance(answer, ox.QueryTriples):
                rows = (tuple(map(_plain, (t.subject, t.predicate, t.object))) for t in answer)
                return QueryResult(["subject", "predicate", "object"], list(islice(rows, limit)))
            columns = [v.value for v in answer.variables if v.value not in values]
            rows = _rows(answer, columns)
            return QueryResult(columns, list(islice(rows, limit)))
        except SyntaxError as exc:
            raise KgError(f"SPARQL syntax: {exc}") from exc
        except OSError as exc:
            raise KgError(f"SPARQL on {self.path}: {exc}") from exc
        except RuntimeError as exc:  # evaluation errors, e.g. a parameter the query lacks
            hint = ""
            if "projection" in str(exc):
                hint = (
                    "; a --param must be a variable the query's SELECT lists "
                    "(Oxigraph binds only projected variables)"
                )
            raise KgError(f"SPARQL: {exc}{hint}") from exc


def _rows(solutions, columns: list[str]) -> Iterator[tuple[Any, ...]]:
    for solution in solutions:
        yield tuple(_plain(solution[c]) for c in columns)


def _parsed(turtle: Path):
    """An in-memory store holding ``turtle``."""
    import pyoxigraph as ox

    store = ox.Store()
    try:
        store.bulk_load(path=str(turtle), format=ox.RdfFormat.TURTLE)
    except SyntaxError as exc:
        raise KgError(f"{turtle}: not valid Turtle: {exc}") from exc
    return store


def run_saved_sparql(
    engine: SparqlEngine, name: str, params: dict[str, Any] | None = None
) -> QueryResult:
    """Run the saved SPARQL query ``name`` on ``engine`` with ``params`` over its defaults."""
    query = get_sparql_query(name)
    return engine.run(query.text, query.bind(params or {}))


_TOKEN = re.compile(
    r"""(?P<skip>"{3}.*?"{3}|'{3}.*?'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
    r"""|<[^<>"{}|^`\\\s]*>|\#[^\n]*)|\$(?P<var>\w+)""",
    re.DOTALL,
)
_PROJECTING = re.compile(r"^\s*(?:LATERAL\s*)?(?:\{\s*)?(?:SELECT|GROUP\s+BY)\b", re.IGNORECASE)


def render_query(text: str, params: dict[str, Any]) -> str:
    """Return the query with each ``$param`` written as its typed RDF term, for an endpoint
    that takes no bindings (Oxigraph server, Fuseki). Terms are serialised by pyoxigraph,
    which escapes them; strings, IRIs and comments of the query are left as they are, and
    the parameters listed in ``SELECT`` and ``GROUP BY`` lines are dropped from them."""
    values, limit = _split_limit(params)
    terms = {k: str(rdf_term(v)) for k, v in values.items()}
    lines = []
    for line in text.splitlines():
        projecting = bool(_PROJECTING.match(line))

        def swap(match: re.Match, projecting: bool = projecting) -> str:
            var = match["var"]
            if not var or var not in terms:
                return match[0]
            return "" if projecting else terms[var]

        lines.append(_TOKEN.sub(swap, line))
    out = "\n".join(lines)
    if limit is not None:
        out = out.rstrip() + f"\nLIMIT {int(limit)}"
    return out + "\n"
