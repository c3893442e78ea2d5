"""Cross-paper entity resolution: one canonical entity per real thing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from kg.resolve.acronyms import (
    LongForms,
    acronym_claims,
    conventional_long_forms,
    shipped_long_forms,
)
from kg.resolve.curation import Curated, Curation, apply_curation
from kg.resolve.entities import write_entities
from kg.resolve.keys import key_type
from kg.resolve.local import LocalEntity
from kg.resolve.merges import Merge, apart_path, merges_path, write_merges
from kg.resolve.rules import (
    Keys,
    acronym_merges,
    cross_type_acronym_merges,
    fuzzy_merges,
    head_word_merges,
    separator_merges,
    spelled_out_merges,
    twin_acronym_merges,
    type_vote_merges,
)

__all__ = [
    "Entity",
    "Resolution",
    "resolve_table",
]


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


ACRONYM_SHARE = 0.75
"""The share of the papers that define an acronym that must give it one long form before
every use of the acronym joins that long form (the rest stay apart: a duplicate is better
than a wrong merge)."""


@dataclass
class Resolution:
    """The map from each merged raw key to its canonical key, the merges made, and where
    the canonical entities are (a Parquet table, read on demand so big builds stream it).
    """

    canonical: dict[str, str]
    merges: list[Merge] = field(default_factory=list)
    entities_path: Path | None = None
    curated: Curated | None = None  # what a curation file changed, when one was applied
    apart: list[Merge] = field(default_factory=list)  # proposed by a rule, kept apart

    def key_for(self, local: LocalEntity) -> str | None:
        """Return the canonical key of a paper-local entity (None when curation dropped it)."""
        if self.curated is not None and local.raw_key in self.curated.dropped:
            return None
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


def resolve_table(
    con,
    table: str,
    entities_path: str | Path,
    *,
    fuzzy_threshold: float = 95.0,
    fuzzy_min_length: int = 20,
    curation: Curation | None = None,
    long_forms: LongForms | None = None,
) -> Resolution:
    """Resolve the local entities in DuckDB relation ``table`` (a table name or
    ``read_parquet(...)``, with the columns of :data:`LOCALS_SCHEMA_FIELDS`) into canonical
    entities written to ``entities_path`` (Parquet, sorted by key); the merges are written
    beside it (``merges.parquet``, see :func:`write_merges`), and the merges a rule
    proposed but resolution kept apart too (``apart.parquet``).

    The rules of :mod:`kg.resolve.rules` propose merges, in this order:

    - **acronym**: an acronym joins the long form that most of the papers defining it give
      (a share of at least :data:`ACRONYM_SHARE`), when two papers define it that way (and
      it has :data:`~kg.resolve.acronyms.MIN_LETTERS` letters: "PD" stands for many
      things), when the shared corpus's papers spell it out so (``long_forms``: what a
      reader is expected to know an undefined acronym to mean; by default
      :func:`kg.resolve.acronyms.shipped_long_forms`, ``{}`` for none), or when it is used
      bare only in the paper defining it; an acronym used bare as one type and defined
      only as another's long form; two acronyms of one long form (``AUROC``, ``ROC-AUC``);
    - **spelled out**: ``multimodal LLMs``, ``multimodal large language models``;
    - **separators**: ``CIFAR100``, ``CIFAR-100``;
    - **head word**: ``Dice score``, ``Dice``; ``text-to-image generation``,
      ``text-to-image``;
    - **fuzzy**: near-identical names (ratio >= ``fuzzy_threshold``, at least
      ``fuzzy_min_length`` characters) with the same version words;
    - **type vote**: a name that papers give several types takes the type most give it.

    Each union keeps the key that more papers use, except that two keys each proposed by
    every paper naming them, where no paper names both, stay apart (two papers' own
    things). Then ``curation`` (a lab's own fixes, :mod:`kg.resolve.curation`) applies,
    its merges recorded like the others (rule ``curation``). Only merged keys are held in
    memory; everything else is grouped by DuckDB.
    """
    keys = Keys.load(con, table)
    unions = Unions(keys)
    claims_of, joins = acronym_claims(con, table, ACRONYM_SHARE)
    if long_forms is None:
        long_forms = shipped_long_forms()
    conventional = conventional_long_forms(long_forms, ACRONYM_SHARE)
    unions.make(acronym_merges(keys, joins, conventional))
    for merge in cross_type_acronym_merges(keys, claims_of, joins):
        unions.make([merge])
        unions.prefer_type[merge.target] = key_type(merge.target)
    unions.make(twin_acronym_merges(keys, long_forms))
    unions.make(spelled_out_merges(keys, conventional))
    unions.make(separator_merges(keys))
    unions.make(head_word_merges(keys))
    unions.make(fuzzy_merges(keys, fuzzy_threshold, fuzzy_min_length))
    unions.make(type_vote_merges(keys, unions.groups))
    canonical = unions.canonical()
    curated = apply_curation(con, table, curation, canonical) if curation else None
    merges = unions.merges + (curated.merges if curated is not None else [])
    _write_entities(con, table, entities_path, canonical, curated)
    keys.drop()
    merges = [replace(m, key=canonical.get(m.source, m.source)) for m in merges]
    write_merges(merges, merges_path(entities_path))
    apart = [replace(m, key=canonical.get(m.source, m.source)) for m in unions.apart]
    write_merges(apart, apart_path(entities_path))
    return Resolution(canonical, merges, Path(entities_path), curated, apart)


class Unions:
    """The merges made so far over ``keys``: a union-find of keys, the merges that joined
    them and those kept apart, and the keys whose type their whole entity takes."""

    def __init__(self, keys: Keys) -> None:
        import networkx as nx

        self.keys = keys
        self.groups = nx.utils.UnionFind()
        self.merges: list[Merge] = []
        self.apart: list[Merge] = []  # what a rule proposed and resolution kept apart, and why
        self.prefer_type: dict[str, str] = {}

    def make(self, proposed: Iterable[Merge]) -> None:
        """Join each proposed merge's keys unless they are joined already or are two
        papers' own things (:meth:`Keys.each_own`, recorded as kept apart)."""
        for merge in proposed:
            source, target = merge.source, merge.target
            if self.groups[source] == self.groups[target]:
                continue
            if self.keys.each_own(source, target):
                why = "each proposed by its own papers, which do not share one"
                self.apart.append(replace(merge, reason=f"{merge.reason}; kept apart: {why}"))
                continue
            self.groups.union(source, target)
            self.merges.append(merge)

    def canonical(self) -> dict[str, str]:
        """Each merged key's canonical key: of its group, the key more papers use among
        those of the type most papers give (or the type a rule fixed)."""
        support, canonical = self.keys.support, {}
        for group in self.groups.to_sets():
            votes: Counter = Counter()
            for k in group:
                votes[key_type(k)] += support[k]
            kind = max(votes, key=lambda t: (votes[t], t))
            kind = next((self.prefer_type[k] for k in sorted(group) if k in self.prefer_type),
                        kind)  # fmt: skip
            kept = min((k for k in group if key_type(k) == kind), key=lambda k: (-support[k], k))
            canonical.update((k, kept) for k in group if k != kept)
        return canonical


def _write_entities(con, table: str, entities_path: str | Path, canonical: dict[str, str],
                    curated: Curated | None) -> None:  # fmt: skip
    """Write the canonical entities of ``table``'s rows once ``canonical`` and curation
    (its dropped keys and new names) are applied."""
    import pyarrow as pa

    dropped = sorted(curated.dropped) if curated else []
    keymap = pa.table(
        {
            "raw_key": list(canonical) + dropped,
            "key": list(canonical.values()) + [None] * len(dropped),
            "ctype": [key_type(k) for k in canonical.values()] + [None] * len(dropped),
        },
        schema=pa.schema(
            [("raw_key", pa.string()), ("key", pa.string()), ("ctype", pa.string())]
        ),  # fmt: skip
    )
    renames = curated.names if curated else {}
    con.register("kg_keymap", keymap)
    con.register("kg_renames", pa.table({"key": list(renames), "to": list(renames.values())},
                                        schema=pa.schema([("key", pa.string()),
                                                          ("to", pa.string())])))  # fmt: skip
    con.execute(
        "CREATE OR REPLACE TEMP TABLE kg_member AS SELECT l.* REPLACE "
        "(coalesce(m.ctype, l.type) AS type), coalesce(m.key, l.raw_key) AS key FROM "
        f"{table} l LEFT JOIN kg_keymap m USING (raw_key) "
        "WHERE m.raw_key IS NULL OR m.key IS NOT NULL"
    )
    write_entities(con, "kg_member", entities_path)
    con.execute("DROP TABLE kg_member")
    con.unregister("kg_keymap")
    con.unregister("kg_renames")
