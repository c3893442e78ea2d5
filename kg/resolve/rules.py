"""The merge rules of cross-paper resolution, in the order the resolver tries them.

Each rule is a function over :class:`Keys` (the build's raw keys, grouped by DuckDB) that
proposes merges; the resolver (:func:`kg.resolve.resolver.resolve_table`) decides which it
makes. A rule fetches the support and papers of the keys it proposes before it yields them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from kg.resolve.acronyms import (
    MIN_LETTERS,
    Claims,
    LongForms,
    acronym_slugs,
    spelled_out_pairs,
    spells_key,
    twin_acronyms,
)
from kg.resolve.keys import key_type, normalise_name, slug
from kg.resolve.local import GENERIC_HEADS, MAPPING_HEADS, MEASURE_HEADS, NAMING_HEADS
from kg.resolve.matching import (
    compact_key,
    defines_acronym,
    is_acronym,
    name_like,
    similar_pairs,
    spelling_variants,
    spells_acronym,
    version_words,
)
from kg.resolve.merges import MERGE_PAPERS, Merge
from kg.util.tables import iter_rows

__all__ = [
    "Keys",
    "acronym_merges",
    "cross_type_acronym_merges",
    "fuzzy_merges",
    "head_word_merges",
    "separator_merges",
    "spelled_out_merges",
    "twin_acronym_merges",
    "type_vote_merges",
]

TYPE_VOTE_SHARE = 0.75
"""The share of the papers naming a thing that must give it one type before its other
types' entities are folded into that one (a rougher split keeps homonyms apart)."""

TYPE_VOTE_MIN = 3
"""The fewest papers that can outvote the others on a name's type."""

_FUNCTIONS = (
    ("kg_acronym", is_acronym, ["VARCHAR"], "BOOLEAN"),
    ("kg_norm", normalise_name, ["VARCHAR"], "VARCHAR"),
    ("kg_spells", spells_acronym, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    ("kg_defines", defines_acronym, ["VARCHAR", "VARCHAR[]"], "BOOLEAN"),
    ("kg_compact", compact_key, ["VARCHAR"], "VARCHAR"),
)

Papers = tuple[tuple[str, ...], int]
"""Some papers behind a key (at most :data:`MERGE_PAPERS`) and how many there are."""


@dataclass
class Keys:
    """The raw keys of the local-entity relation ``table`` on DuckDB connection ``con``:
    temporary tables ``kg_keys`` (raw_key, type, support, proposed) and ``kg_names``
    (raw_key, the name most of its mentions use), and the support and papers of the keys
    the rules asked about (only those are held in memory)."""

    con: Any
    table: str
    support: dict[str, int] = field(default_factory=dict)
    own: set[str] = field(default_factory=set)  # keys that every paper naming them proposes
    papers_of: dict[str, Papers] = field(default_factory=dict)

    @classmethod
    def load(cls, con, table: str) -> Keys:
        """Group ``table``'s rows by key on ``con`` (and register kg's SQL functions there)."""
        import duckdb

        for name, fn, args, ret in _FUNCTIONS:
            try:
                con.create_function(name, fn, args, ret, side_effects=False)
            except duckdb.CatalogException:
                pass  # registered on this connection already
        con.execute(
            "CREATE OR REPLACE TEMP TABLE kg_keys AS SELECT raw_key, any_value(type) AS type, "
            "count(DISTINCT paper) AS support, count(DISTINCT paper) FILTER (WHERE proposed) "
            f"AS proposed FROM {table} GROUP BY raw_key"
        )
        # each key's name: the form most of its mentions use (the first in sort order on ties)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE kg_names AS SELECT raw_key, name FROM (SELECT "
            f"raw_key, name, count(*) AS n FROM {table} GROUP BY raw_key, name) QUALIFY "
            "row_number() OVER (PARTITION BY raw_key ORDER BY n DESC, name) = 1"
        )
        return cls(con, table)

    def drop(self) -> None:
        """Drop the temporary tables."""
        self.con.execute("DROP TABLE kg_keys")
        self.con.execute("DROP TABLE kg_names")

    def fetch(self, keys: Iterable[str]) -> None:
        """Fetch the support of ``keys`` (and the papers of those every paper proposes)."""
        wanted = [k for k in set(keys) if k not in self.support]
        if wanted:
            rows = self.con.execute(
                "SELECT raw_key, support, proposed = support FROM kg_keys "
                "WHERE raw_key IN (SELECT unnest(?))",
                [wanted],
            ).fetchall()
            self.support.update((k, n) for k, n, _ in rows)
            self.own.update(k for k, _, mine in rows if mine)
            self.fetch_papers([k for k, _, mine in rows if mine])  # for each_own, in one query

    def fetch_papers(self, keys: Iterable[str]) -> None:
        """Fetch the papers behind ``keys``, in one query."""
        wanted = [k for k in set(keys) if k not in self.papers_of]
        if wanted:
            rows = self.con.execute(
                f"SELECT raw_key, list(DISTINCT paper ORDER BY paper)[1:{MERGE_PAPERS}], "
                f"count(DISTINCT paper) FROM {self.table} "
                "WHERE raw_key IN (SELECT unnest(?)) GROUP BY raw_key",
                [wanted],
            ).fetchall()
            self.papers_of.update((k, (tuple(p), n)) for k, p, n in rows)

    def papers(self, key: str) -> Papers:
        """The papers behind ``key`` (fetched before), or none."""
        return self.papers_of.get(key, ((), 0))

    def each_own(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are each proposed by every paper naming them, and no
        paper names both: two papers' own things ("ECHO" and "ECHO"), not one."""
        if a not in self.own or b not in self.own:
            return False
        (pa, na), (pb, nb) = self.papers_of[a], self.papers_of[b]
        return na == len(pa) and nb == len(pb) and not set(pa) & set(pb)

    def with_slugs(self, slugs: list[str]) -> list[str]:
        """The keys whose part after the type is one of ``slugs``."""
        rows = self.con.execute(
            "SELECT raw_key FROM kg_keys WHERE split_part(raw_key, ':', 2) IN (SELECT unnest(?)) "
            "ORDER BY raw_key",
            [slugs],
        ).fetchall()
        return [key for (key,) in rows]


def acronym_merges(keys: Keys, joins: list[tuple], conventional: dict[str, str]) -> Iterator[Merge]:
    """An acronym joins the long form most papers defining it give (``joins``, from
    :func:`kg.resolve.acronyms.acronym_claims`) when two papers define it so, when it is
    used bare only where it is defined, or when the corpus spells it out so by convention
    (``conventional``); one paper's coinage used bare elsewhere may be another thing."""
    keys.fetch(k for short_key, long_key, *_ in joins for k in (short_key, long_key))
    keys.fetch_papers([short_key for short_key, _, _, n, _, _ in joins if n < 2])
    for short_key, long_key, short, n, total, papers in joins:
        if short_key not in keys.support or short_key == long_key:
            continue
        coined = n < 2 or sum(ch.isalnum() for ch in short) < MIN_LETTERS  # "PD": many things
        if coined and not (
            keys.papers(short_key) == (papers, 1)  # bare only where defined
            or spells_key(conventional.get(slug(short)), long_key)
        ):
            continue
        yield Merge(short_key, long_key, f"acronym {short!r} ({n} of {total} definitions)",
                    "acronym", round(n / total, 3), papers, n)  # fmt: skip


def cross_type_acronym_merges(keys: Keys, claims_of: Claims, joins: list[tuple]) -> Iterator[Merge]:
    """An acronym used bare as one type but defined, by two papers or more, only as
    another type's long form is that thing ("ECE" taken for a data set, defined as a
    metric); the target's type is the whole entity's."""
    defined_as: dict[str, set[str]] = {}  # slug -> the types of every definition of it
    for short_key in claims_of:
        defined_as.setdefault(short_key.split(":", 1)[1], set()).add(key_type(short_key))
    winner = {short_key.split(":", 1)[1]: (long_key, short, n, papers)
              for short_key, long_key, short, n, _, papers in joins}  # fmt: skip
    for key in keys.with_slugs(sorted(winner)) if winner else []:
        long_key, short, n, papers = winner[key.split(":", 1)[1]]
        if defined_as[key.split(":", 1)[1]] != {key_type(long_key)}:
            continue  # defined as its own type too, or as several others: homonyms
        if key_type(key) == key_type(long_key) or n < 2:
            continue
        keys.fetch([key, long_key])
        why = f"acronym {short!r} used as a {key_type(key)}, defined only as a {key_type(long_key)}"
        yield Merge(key, long_key, why, "acronym", 1.0, papers, n)


def twin_acronym_merges(keys: Keys, long_forms: LongForms) -> Iterator[Merge]:
    """Two acronyms of one type that the shared corpus's papers spell out the same way
    (``long_forms``: "AUROC", "ROC-AUC"), though no paper here defines them, are one."""
    if not long_forms:
        return
    twins = twin_acronyms(keys.with_slugs(acronym_slugs(long_forms)), long_forms)
    keys.fetch(k for _, group in twins for k in group)
    keys.fetch_papers([k for _, group in twins for k in group])
    for long, group in twins:
        group = sorted(group, key=lambda k: (-keys.support[k], k))
        for other in group[1:]:
            papers, n = keys.papers(other)
            why = f"acronyms of one long form in the shared corpus: {long!r}"
            yield Merge(other, group[0], why, "acronym", 1.0, papers, n)


def spelled_out_merges(keys: Keys, conventional: dict[str, str]) -> Iterator[Merge]:
    """A name with an acronym in it is the same name with the acronym spelled out as the
    corpus does ("multimodal LLMs", "multimodal large language models")."""
    spelled = spelled_out_pairs(keys.con, "kg_names", conventional)
    keys.fetch(k for pair in spelled for k in pair)
    keys.fetch_papers([short for short, _ in spelled])
    for short, long in spelled:
        papers, n = keys.papers(short)
        yield Merge(short, long, "the same name with its acronym spelled out as the corpus "
                    "does", "spelled out", 1.0, papers, n)  # fmt: skip


def separator_merges(keys: Keys) -> Iterator[Merge]:
    """Keys of one type equal once hyphens and articles go ("CIFAR100", "LLM-as-a-judge")
    join the one more papers use."""
    rows = keys.con.execute(
        "SELECT list(raw_key ORDER BY support DESC, raw_key) FROM kg_keys "
        "GROUP BY type, kg_compact(raw_key) HAVING count(*) > 1 ORDER BY 1"
    ).fetchall()
    groups = [group for (group,) in rows]
    keys.fetch(k for group in groups for k in group)
    keys.fetch_papers([k for group in groups for k in group[1:]])
    for group in groups:
        for other in group[1:]:
            papers, n = keys.papers(other)
            yield Merge(other, group[0], "same name without separators", "separators",
                        1.0, papers, n)  # fmt: skip


def head_word_merges(keys: Keys) -> Iterator[Merge]:
    """A name (with a capital or digit) with a head word that names it joins the name
    alone ("Dice score", "Dice"; "Random Forest models"); a mapping task joins the same
    task with its process named ("text-to-image generation", "text-to-image")."""
    headed = [*_named_heads(keys), *_mapping_heads(keys)]
    keys.fetch(k for pair in headed for k in pair)
    keys.fetch_papers([long for _, long in headed])
    for short, long in headed:
        papers, n = keys.papers(long)
        head = long[len(short) + 1 :]
        yield Merge(long, short, f"the same name with the head word {head!r}", "head word",
                    1.0, papers, n)  # fmt: skip


def _named_heads(keys: Keys) -> list[tuple[str, str]]:
    heads = "|".join(sorted(GENERIC_HEADS | MEASURE_HEADS))
    rows = keys.con.execute(
        "SELECT b.raw_key, a.raw_key FROM kg_keys a JOIN kg_keys b ON a.type = b.type AND "
        f"regexp_replace(a.raw_key, '-({heads})$', '') = b.raw_key "
        "WHERE a.raw_key <> b.raw_key ORDER BY a.raw_key"
    ).fetchall()
    if not rows:
        return []
    # only a name stays itself without its head: "Dice score", not "hybrid model"
    named = dict(keys.con.execute(
        "SELECT raw_key, arg_max(name, (n, name)) FROM (SELECT raw_key, name, count(*) AS n "
        f"FROM {keys.table} WHERE raw_key IN (SELECT unnest(?)) GROUP BY ALL) GROUP BY raw_key",
        [sorted({short for short, _ in rows})],
    ).fetchall())  # fmt: skip
    return [
        (short, long)
        for short, long in rows
        if name_like(named.get(short, ""))
        and sum(ch.isalnum() for ch in named.get(short, "")) > 1  # "R scores": one letter
        # "X framework" may be a framework for X ("emotion recognition framework", "LLM
        # pipeline", "greedy strategy"); "X model" is X ("Random Forest models")
        and long[len(short) + 1 :] in NAMING_HEADS
    ]


def _mapping_heads(keys: Keys) -> list[tuple[str, str]]:
    mapping = "|".join(sorted(MAPPING_HEADS))
    return keys.con.execute(
        "SELECT b.raw_key, a.raw_key FROM kg_keys a JOIN kg_keys b ON a.type = b.type AND "
        f"regexp_replace(a.raw_key, '-({mapping})$', '') = b.raw_key "
        "WHERE a.type = 'Task' AND a.raw_key <> b.raw_key AND b.raw_key LIKE '%-to-%' "
        "ORDER BY a.raw_key"
    ).fetchall()


def fuzzy_merges(keys: Keys, threshold: float = 95.0, min_length: int = 20) -> Iterator[Merge]:
    """Names of one type whose normalised forms are near-identical (ratio >= ``threshold``,
    at least ``min_length`` characters), whose words with digits are the same and whose
    other words are spellings of each other. Blocks of (type, first four characters); one
    paper's unnamed proposals (keys with "~paper") are not merged with others' by name."""
    rows = iter_rows(
        keys.con,
        "WITH normed AS (SELECT k.raw_key, k.type, k.support, kg_norm(named.name) AS norm "
        "FROM kg_names named JOIN kg_keys k USING (raw_key)) "
        "SELECT type, substr(norm, 1, 4) AS block, norm, raw_key, support FROM normed "
        f"WHERE length(norm) >= {int(min_length)} AND NOT contains(raw_key, '~') "
        "ORDER BY type, block, support DESC, raw_key",
    )
    fuzzy = []
    for _, block in groupby(rows, key=lambda r: (r[0], r[1])):
        items = list(block)
        for i, j, score in similar_pairs([norm for _, _, norm, _, _ in items], threshold):
            (_, _, norm_a, key_a, _), (_, _, norm_b, key_b, _) = items[i], items[j]
            if version_words(norm_a) != version_words(norm_b):
                continue  # GPT-3 vs GPT-4, GPT-4 vs GPT-4o, ResNet-50 vs ResNet-101
            if not spelling_variants(norm_a, norm_b):
                continue  # RouterBench vs RouterXBench, open-ended QA vs VQA
            fuzzy.append((key_b, key_a, score))
    keys.fetch(k for pair in fuzzy for k in pair[:2])
    keys.fetch_papers([source for source, _, _ in fuzzy])
    for source, target, score in fuzzy:
        papers, n = keys.papers(source)
        yield Merge(source, target, f"fuzzy {score:.0f}", "fuzzy", round(score / 100, 3),
                    papers, n)  # fmt: skip


def type_vote_merges(keys: Keys, groups) -> Iterator[Merge]:
    """A name (longer than an acronym) that papers give several types takes the type of
    at least :data:`TYPE_VOTE_SHARE` of them, counted by the papers of each type's whole
    entity so far (``groups``, a :class:`networkx.utils.UnionFind` of the merges made)."""
    rows = keys.con.execute(
        "SELECT list(raw_key ORDER BY raw_key) FROM kg_keys "
        "GROUP BY split_part(raw_key, ':', 2) HAVING count(*) > 1 "
        # a short word may be an acronym of several things (SR: super-resolution, success
        # rate): only longer names are voted on
        "AND (length(split_part(any_value(raw_key), ':', 2)) > 5 "
        "OR contains(split_part(any_value(raw_key), ':', 2), '-')) ORDER BY 1"
    ).fetchall()
    if not rows:
        return
    sets = {k: s for s in groups.to_sets() for k in s}
    keys.fetch(k for (names,) in rows for key in names for k in sets.get(key, {key}))
    for (names,) in rows:
        weight = {k: sum(keys.support[m] for m in sets.get(k, {k})) for k in names}
        top = max(names, key=lambda k: (weight[k], k))
        total = sum(weight.values())
        if weight[top] < TYPE_VOTE_MIN or weight[top] < TYPE_VOTE_SHARE * total:
            continue  # no clear winner: homonyms (GQA the data set, GQA the attention)
        keys.fetch_papers([k for k in names if k != top])
        for key in names:
            if key != top and groups[key] != groups[top]:
                papers, n = keys.papers(key)
                why = f"{weight[top]} of {total} papers make it a {key_type(top)}"
                yield Merge(key, top, why, "type vote", round(weight[top] / total, 3), papers, n)
