"""What the query commands refuse: a query that writes, or that reaches out of the machine.

``kg query``, ``kg cypher`` and ``kg sparql`` read a build; they never change it. The stores
are opened read-only, which stops writes to the stores themselves, but a read-only
LadybugDB still runs ``COPY ... TO 'file'`` (it overwrites any file, a build's tables
included), ``EXPORT DATABASE``, ``INSTALL`` (a download) and ``LOAD FROM`` a URL; and a
SPARQL ``SERVICE`` clause makes Oxigraph send an HTTP request wherever it points. The
checks here read the query's keywords, outside its strings, names and comments, and
refuse those before the query runs.
"""

from __future__ import annotations

import re

from kg.errors import KgError

__all__ = ["QueryRefused", "check_cypher", "check_sparql"]


class QueryRefused(KgError):
    """A query the read-only query commands do not run."""


# Cypher: strings, backquoted names and comments are skipped; a keyword is a word not
# preceded by "." (a property), ":" (a label), "$" (a parameter) or another word character.
_CYPHER_SKIP = re.compile(
    r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|//[^\n]*|/\*.*?\*/""", re.DOTALL
)
_CYPHER_WORD = re.compile(r"(?<![\w.:$])([A-Za-z_]\w*)")
_CYPHER_WRITES = {
    "COPY": "COPY writes files (or the store)",
    "EXPORT": "EXPORT DATABASE writes files",
    "IMPORT": "IMPORT DATABASE writes the store",
    "INSTALL": "INSTALL downloads an extension",
    "LOAD": "LOAD reads files or URLs, or loads an extension",
    "ATTACH": "ATTACH opens another database",
    "DETACH": "DETACH changes the store",
    "USE": "USE switches to another database",
    "CREATE": "CREATE writes to the store",
    "MERGE": "MERGE writes to the store",
    "SET": "SET writes to the store",
    "DELETE": "DELETE writes to the store",
    "REMOVE": "REMOVE writes to the store",
    "DROP": "DROP writes to the store",
    "ALTER": "ALTER writes to the store",
    "CHECKPOINT": "CHECKPOINT writes to the store",
    "BEGIN": "transactions are for writing",
    "COMMIT": "transactions are for writing",
    "ROLLBACK": "transactions are for writing",
}
# Table functions that only read the store's catalogue or settings: the one kind of CALL
# kg runs.
_CYPHER_READ_CALLS = {
    "show_tables",
    "table_info",
    "show_connection",
    "db_version",
    "current_setting",
    "show_functions",
    "show_indexes",
    "show_sequences",
    "show_warnings",
}


def check_cypher(query: str) -> None:
    """Raise :class:`QueryRefused` if ``query`` would write anything, or read files, URLs
    or other databases; only reading Cypher (and ``CALL`` of catalogue functions) passes.

    >>> check_cypher("MATCH (m:Method) WHERE m.name = 'COPY' RETURN m.copy AS `set` LIMIT 5")
    >>> check_cypher("MATCH (m) RETURN m; COPY Method TO '/tmp/x.csv'")
    Traceback (most recent call last):
    ...
    kg.query.guard.QueryRefused: kg runs only queries that read: COPY writes files (or the \
store). Write with `kg build`; save answers with --format csv > FILE
    """
    text = _CYPHER_SKIP.sub(" ", query)
    for match in _CYPHER_WORD.finditer(text):
        word = match[1].upper()
        if word in _CYPHER_WRITES:
            raise QueryRefused(
                f"kg runs only queries that read: {_CYPHER_WRITES[word]}. Write with "
                "`kg build`; save answers with --format csv > FILE"
            )
        if word == "CALL":
            rest = text[match.end() :]
            called = re.match(r"\s*([A-Za-z_]\w*)\s*\(", rest)
            if called is None or called[1].lower() not in _CYPHER_READ_CALLS:
                allowed = ", ".join(sorted(_CYPHER_READ_CALLS))
                raise QueryRefused(
                    "kg runs only queries that read: CALL is allowed only for the "
                    f"catalogue functions ({allowed})"
                )


# SPARQL: strings, IRIs and comments are skipped; a keyword is a word not part of a
# prefixed name (":"), a variable ("?", "$"), a language tag ("@") or another word.
_SPARQL_SKIP = re.compile(
    r"""("{3}.*?"{3}|'{3}.*?'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
    r"""|<[^<>"{}|^`\\\s]*>|\#[^\n]*)""",
    re.DOTALL,
)
_SPARQL_WORD = re.compile(r"(?<![\w:?$@-])([A-Za-z]+)(?![\w:-])")
_SPARQL_UPDATES = {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD"}


def check_sparql(query: str, *, allow_service: bool = False) -> None:
    """Raise :class:`QueryRefused` for SPARQL Update (``INSERT``, ``DELETE``, ``LOAD``...),
    and for a ``SERVICE`` clause unless ``allow_service``.

    >>> check_sparql('SELECT ?s WHERE { ?s ex:service "DELETE" } # INSERT')
    >>> check_sparql("INSERT DATA { <a:x> <a:y> <a:z> }")
    Traceback (most recent call last):
    ...
    kg.query.guard.QueryRefused: kg sparql runs only queries (SELECT, ASK, CONSTRUCT, \
DESCRIBE): INSERT is SPARQL Update, which changes a store; kg never changes a build's \
store (rebuild it with `kg build`)
    """
    text = _SPARQL_SKIP.sub(" ", query)
    for match in _SPARQL_WORD.finditer(text):
        word = match[1].upper()
        if word in _SPARQL_UPDATES:
            raise QueryRefused(
                "kg sparql runs only queries (SELECT, ASK, CONSTRUCT, DESCRIBE): "
                f"{word} is SPARQL Update, which changes a store; kg never changes a "
                "build's store (rebuild it with `kg build`)"
            )
        if word == "SERVICE" and not allow_service:
            raise QueryRefused(
                "the query has a SERVICE clause, which sends a request to another "
                "endpoint over the network; kg does not do that unless asked: pass "
                "--allow-service to run it"
            )
