"""Cross-paper entity resolution: one canonical entity per real thing."""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from kg.resolve.keys import entity_key, normalise_name
from kg.tables import iter_rows

if TYPE_CHECKING:  # spaCy loads with kg.nlp; resolution does not need it
    from kg.nlp.extraction import PaperExtraction

__all__ = [
    "LocalEntity",
    "Entity",
    "Merge",
    "Resolution",
    "Resolver",
    "local_entities",
    "local_rows",
    "locals_schema",
    "resolve_table",
]


@dataclass(frozen=True)
class LocalEntity:
    """The entity of one paper that a group of its mentions names."""

    local_id: int
    type: str
    name: str
    aliases: tuple[str, ...]
    mentions: tuple[int, ...]
    proposed: bool
    benchmark: bool

    @property
    def raw_key(self) -> str:
        return entity_key(self.type, self.name)


@dataclass
class Entity:
    """A canonical entity across papers."""

    key: str
    type: str
    name: str
    aliases: list[str]
    support: int
    mention_count: int
    proposed_count: int
    benchmark: bool


@dataclass(frozen=True)
class Merge:
    """One key folded into another, and why."""

    source: str
    target: str
    reason: str


@dataclass
class Resolution:
    """The map from each merged raw key to its canonical key, the merges made, and where
    the canonical entities are (a Parquet table, read on demand so big builds stream it).
    """

    canonical: dict[str, str]
    merges: list[Merge] = field(default_factory=list)
    entities_path: Path | None = None

    def key_for(self, local: LocalEntity) -> str:
        """Return the canonical key of a paper-local entity."""
        return self.canonical.get(local.raw_key, local.raw_key)

    def iter_entities(self, *, batch: int = 10_000) -> Iterator[Entity]:
        """Yield the canonical entities, sorted by key, reading ``batch`` at a time."""
        if self.entities_path is None:
            return
        import pyarrow.parquet as pq

        for chunk in pq.ParquetFile(self.entities_path).iter_batches(batch_size=batch):
            for row in chunk.to_pylist():
                yield Entity(**row)

    @property
    def entities(self) -> dict[str, Entity]:
        """Every canonical entity by key, in memory (use :meth:`iter_entities` for big ones)."""
        return {e.key: e for e in self.iter_entities()}


LOCALS_SCHEMA_FIELDS = (
    ("paper", "string"),
    ("type", "string"),
    ("raw_key", "string"),
    ("name", "string"),
    ("aliases", "list<string>"),
    ("mentions", "int32"),
    ("proposed", "bool"),
    ("benchmark", "bool"),
)
"""The columns of the local-entity table that resolution reads (one row per paper entity)."""


def locals_schema():
    """Return the pyarrow schema of the local-entity table."""
    import pyarrow as pa

    kinds = {"string": pa.string(), "list<string>": pa.list_(pa.string()),
             "int32": pa.int32(), "bool": pa.bool_()}  # fmt: skip
    return pa.schema([(name, kinds[kind]) for name, kind in LOCALS_SCHEMA_FIELDS])


def local_rows(paper: str, entities: Iterable[LocalEntity]) -> list[dict]:
    """Return the local-entity table rows of one paper."""
    return [
        {
            "paper": paper,
            "type": e.type,
            "raw_key": e.raw_key,
            "name": e.name,
            "aliases": list(e.aliases),
            "mentions": len(e.mentions),
            "proposed": e.proposed,
            "benchmark": e.benchmark,
        }
        for e in entities
    ]


GENERIC_HEADS = frozenset(
    {
        "framework",
        "model",
        "models",
        "method",
        "approach",
        "architecture",
        "network",
        "module",
        "strategy",
        "technique",
        "mechanism",
        "system",
        "pipeline",
        "scheme",
        "paradigm",
        "dataset",
        "benchmark",
        "task",
        "problem",
        "algorithm",
        "suite",
        "corpus",
        "series",
        "family",
    }
)
"""Trailing words whose removal still names the same thing ("LIBERO benchmark" -> "LIBERO")."""


def name_variants(text: str, generic_heads: frozenset[str] = GENERIC_HEADS) -> set[str]:
    """Return other names for the same thing: ``text`` without a trailing generic head.

    Examples
    --------
    >>> sorted(name_variants("LIBERO benchmark"))
    ['LIBERO']
    >>> name_variants("benchmark"), name_variants("Large Language Models")
    (set(), set())
    """
    words = text.split()
    if len(words) >= 2 and words[-1].lower() in generic_heads:
        rest = " ".join(words[:-1])
        if any(any(ch.isupper() or ch.isdigit() for ch in w[1:]) for w in words[:-1]):
            return {rest}  # a name stays a name without its head; "Large Language" does not
    return set()


def local_entities(extraction: PaperExtraction) -> list[LocalEntity]:
    """Group a paper's mentions into entities: same type and normalised name, or acronym."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, m in enumerate(extraction.mentions):
        name = m.long_form or m.text
        groups.setdefault((m.type, normalise_name(name)), []).append(i)
    out = []
    for local_id, ((type_, _), indexes) in enumerate(groups.items()):
        ms = [extraction.mentions[i] for i in indexes]
        long_forms = [m.long_form for m in ms if m.long_form]
        name = long_forms[0] if long_forms else Counter(m.text for m in ms).most_common(1)[0][0]
        forms = {m.text for m in ms}
        for form in list(forms) + [name]:
            forms |= name_variants(form)
        aliases = tuple(sorted(forms - {name}))
        out.append(
            LocalEntity(
                local_id=local_id,
                type=type_,
                name=name,
                aliases=aliases,
                mentions=tuple(indexes),
                proposed=any(m.proposed for m in ms),
                benchmark=any(m.benchmark for m in ms),
            )
        )
    return out


class Resolver:
    """Collect the local entities of papers in memory, then resolve them (small inputs).

    Call :meth:`add` once per paper, then :meth:`resolve`. Builds stream the same
    resolution from a Parquet table with :func:`resolve_table` instead.
    """

    def __init__(self, *, fuzzy_threshold: float = 95.0, fuzzy_min_length: int = 10) -> None:
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_length = fuzzy_min_length
        self._rows: list[dict] = []
        self._papers = 0

    def add(self, entities: list[LocalEntity], paper: str | None = None) -> None:
        """Record one paper's local entities (``paper`` is its id; a counter by default)."""
        self._rows += local_rows(paper if paper is not None else f"#{self._papers}", entities)
        self._papers += 1

    def resolve(self) -> Resolution:
        """Return the canonical entities with the merges made (held in a temporary table)."""
        import pyarrow as pa

        from kg.tables import duckdb_connection

        with duckdb_connection() as con:
            rows = pa.Table.from_pylist(self._rows, schema=locals_schema())
            con.register("kg_rows", rows)
            con.execute("CREATE TEMP TABLE kg_locals AS SELECT * FROM kg_rows")
            tmp = Path(tempfile.mkdtemp(prefix="kg-resolve-"))
            resolution = resolve_table(
                con,
                "kg_locals",
                tmp / "entities.parquet",
                fuzzy_threshold=self.fuzzy_threshold,
                fuzzy_min_length=self.fuzzy_min_length,
            )
        entities = resolution.entities  # read once, then drop the temporary file
        shutil.rmtree(tmp, ignore_errors=True)
        return _MemoryResolution(resolution.canonical, resolution.merges, None, entities)


@dataclass
class _MemoryResolution(Resolution):
    held: dict[str, Entity] = field(default_factory=dict)

    def iter_entities(self, *, batch: int = 10_000) -> Iterator[Entity]:
        yield from (self.held[k] for k in sorted(self.held))


def resolve_table(
    con,
    table: str,
    entities_path: str | Path,
    *,
    fuzzy_threshold: float = 95.0,
    fuzzy_min_length: int = 10,
) -> Resolution:
    """Resolve the local entities in DuckDB relation ``table`` (a table name or
    ``read_parquet(...)``, with the columns of :data:`LOCALS_SCHEMA_FIELDS`) into canonical
    entities written to ``entities_path`` (Parquet, sorted by key).

    Merges: an acronym that one paper defines goes with its long form when no other long
    form claims it across the corpus; names of the same type whose normalised forms are
    near-identical (fuzzy ratio >= ``fuzzy_threshold``, at least ``fuzzy_min_length``
    characters, same digits) are one. Each union keeps the key that more papers use.
    Only merged keys are held in memory; everything else is grouped by DuckDB.
    """
    import duckdb

    for name, fn, args, ret in (
        ("kg_acronym", _is_acronym, ["VARCHAR"], "BOOLEAN"),
        ("kg_norm", normalise_name, ["VARCHAR"], "VARCHAR"),
    ):
        try:
            con.create_function(name, fn, args, ret, side_effects=False)
        except duckdb.CatalogException:
            pass  # registered on this connection already
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE kg_keys AS SELECT raw_key, any_value(type) AS type, "
        f"count(DISTINCT paper) AS support FROM {table} GROUP BY raw_key"
    )
    support: dict[str, int] = {}

    def support_of(keys: Iterable[str]) -> None:
        wanted = [k for k in set(keys) if k not in support]
        if wanted:
            rows = con.execute(
                "SELECT raw_key, support FROM kg_keys WHERE raw_key IN (SELECT unnest(?))",
                [wanted],
            ).fetchall()
            support.update(rows)

    parent: dict[str, str] = {}
    merges: list[Merge] = []

    def find(key: str) -> str:
        root = key
        while parent.get(root, root) != root:
            root = parent[root]
        while key != root:  # path compression
            parent[key], key = root, parent[key]
        return root

    def union(source: str, target: str, reason: str) -> None:
        a, b = find(source), find(target)
        if a == b:
            return
        if support[a] > support[b]:  # keep the better-supported key
            a, b = b, a
        parent[a] = b
        merges.append(Merge(a, b, reason))

    # acronyms: (type, acronym) -> the long-form keys whose papers define it
    acronyms = con.execute(
        f"SELECT type, alias, list(DISTINCT raw_key ORDER BY raw_key) AS keys FROM "
        f"(SELECT type, unnest(aliases) AS alias, raw_key, name FROM {table}) "
        "WHERE kg_acronym(alias) AND NOT kg_acronym(name) "
        "GROUP BY type, alias HAVING count(DISTINCT raw_key) = 1 ORDER BY type, alias"
    ).fetchall()
    pairs = [(entity_key(type_, short), keys[0], short) for type_, short, keys in acronyms]
    support_of(k for short_key, long_key, _ in pairs for k in (short_key, long_key))
    for short_key, long_key, short in pairs:
        if short_key in support:
            union(short_key, long_key, f"acronym {short!r}")

    # fuzzy: blocks of (type, first four characters of the normalised name)
    rows = iter_rows(
        con,
        "WITH named AS (SELECT raw_key, name, count(*) AS n FROM "
        f"{table} GROUP BY raw_key, name QUALIFY row_number() OVER "
        "(PARTITION BY raw_key ORDER BY n DESC, name) = 1), "
        "normed AS (SELECT k.raw_key, k.type, k.support, kg_norm(named.name) AS norm "
        "FROM named JOIN kg_keys k USING (raw_key)) "
        "SELECT type, substr(norm, 1, 4) AS block, norm, raw_key, support FROM normed "
        f"WHERE length(norm) >= {int(fuzzy_min_length)} "
        "ORDER BY type, block, support DESC, raw_key",
    )
    for _, block in groupby(rows, key=lambda r: (r[0], r[1])):
        items = list(block)[:400]
        for i, (_, _, norm_a, key_a, sup_a) in enumerate(items):
            for _, _, norm_b, key_b, sup_b in items[i + 1 :]:
                if _digits(norm_a) != _digits(norm_b):
                    continue  # GPT-3 vs GPT-4, ResNet-50 vs ResNet-101
                score = fuzz.ratio(norm_a, norm_b)
                if score >= fuzzy_threshold:
                    support[key_a], support[key_b] = sup_a, sup_b
                    union(key_a, key_b, f"fuzzy {score:.0f}")

    canonical = {key: find(key) for key in parent}
    import pyarrow as pa

    keymap = pa.table(
        {"raw_key": list(canonical), "key": list(canonical.values())},
        schema=pa.schema([("raw_key", pa.string()), ("key", pa.string())]),
    )
    con.register("kg_keymap", keymap)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE kg_member AS SELECT l.*, "
        "coalesce(m.key, l.raw_key) AS key FROM "
        f"{table} l LEFT JOIN kg_keymap m USING (raw_key)"
    )
    path = Path(entities_path).as_posix().replace("'", "''")
    con.execute(
        "COPY ("
        "WITH names AS (SELECT key, name, count(*) AS n FROM kg_member GROUP BY key, name), "
        "best AS (SELECT key, arg_min(name, (kg_acronym(name), -n, name)) AS name "
        "FROM names GROUP BY key), "
        "alias AS (SELECT key, list(DISTINCT a) AS aliases FROM ("
        "SELECT key, unnest(aliases) AS a FROM kg_member UNION ALL "
        "SELECT key, name AS a FROM names) GROUP BY key), "
        "counts AS (SELECT key, any_value(type) AS type, count(DISTINCT paper) AS support, "
        "sum(mentions) AS mention_count, "
        "count(DISTINCT paper) FILTER (WHERE proposed) AS proposed_count, "
        "bool_or(benchmark) AS benchmark FROM kg_member GROUP BY key) "
        "SELECT c.key, c.type, b.name, "
        "list_sort(list_filter(a.aliases, lambda x: x <> b.name)) AS aliases, "
        "c.support::BIGINT AS support, c.mention_count::BIGINT AS mention_count, "
        "c.proposed_count::BIGINT AS proposed_count, c.benchmark "
        "FROM counts c JOIN best b USING (key) JOIN alias a USING (key) ORDER BY c.key"
        f") TO '{path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 10000)"
    )
    con.execute("DROP TABLE kg_member")
    con.unregister("kg_keymap")
    con.execute("DROP TABLE kg_keys")
    return Resolution(canonical, merges, Path(entities_path))


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _is_acronym(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return (
        bool(letters)
        and len(text) <= 10
        and " " not in text
        and sum(c.isupper() for c in letters) >= max(2, len(letters) // 2)
    )
