"""Cross-paper entity resolution: one canonical entity per real thing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import groupby
from pathlib import Path

from kg.resolve.acronyms import (
    MIN_LETTERS,
    LongForms,
    acronym_claims,
    acronym_slugs,
    conventional_long_forms,
    shipped_long_forms,
    spelled_out_pairs,
    spells_key,
    twin_acronyms,
)
from kg.resolve.curation import Curated, Curation, apply_curation
from kg.resolve.entities import write_entities
from kg.resolve.keys import key_type, normalise_name, slug
from kg.resolve.local import (
    GENERIC_HEADS,
    MAPPING_HEADS,
    MEASURE_HEADS,
    NAMING_HEADS,
    LocalEntity,
)
from kg.resolve.matching import (
    compact_key,
    defines_acronym,
    is_acronym,
    name_like,
    near_pairs,
    spelling_variants,
    spells_acronym,
    version_words,
)
from kg.resolve.merges import MERGE_PAPERS, Merge, apart_path, merges_path, write_merges
from kg.util.tables import iter_rows

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


TYPE_VOTE_SHARE = 0.75
"""The share of the papers naming a thing that must give it one type before its other
types' entities are folded into that one (a rougher split keeps homonyms apart)."""

TYPE_VOTE_MIN = 3
"""The fewest papers that can outvote the others on a name's type."""

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
    beside it (``merges.parquet``, see :func:`write_merges`).

    Merges, each union keeping the key that more papers use:

    - **acronym**: an acronym joins the long form that most of the papers defining it give
      (a share of at least :data:`ACRONYM_SHARE`; each capital of the acronym starts a
      word of the long form, in order), when two papers define it that way (and it has
      :data:`~kg.resolve.acronyms.MIN_LETTERS` letters: "PD" stands for many things), when the
      shared corpus's papers spell it out so (the same share of them, ``long_forms``: what a
      reader is expected to know an undefined acronym to mean), or when it is used bare only
      in the paper defining it (one paper's definition is its own coinage: another paper's
      bare "SWIM" is another thing);
    - **twin acronyms**: acronyms of one type that stand for one long form in
      ``long_forms`` (by default what the shared corpus's papers spell them out as,
      :func:`kg.resolve.acronyms.shipped_long_forms`; ``{}`` for none): ``AUROC``,
      ``ROC-AUC``;
    - **spelled out**: a name of several words with an acronym in it and the same name
      with the acronym spelled out as the shared corpus does (``multimodal LLMs``,
      ``multimodal large language models``; the acronym's conventional long forms, as
      above);
    - **separators**: names of one type equal once spaces and hyphens go
      (``CIFAR100``, ``CIFAR-100``);
    - **fuzzy**: names of one type whose normalised forms are near-identical (ratio >=
      ``fuzzy_threshold``, at least ``fuzzy_min_length`` characters), whose words with
      digits are the same (``GPT-4`` is not ``GPT-4o``, ``ResNet-50`` not ``ResNet-101``)
      and whose other words are spellings of each other (:func:`spelling_variants`);
    - **head word**: a name (with a capital or digit) and the same name with a generic
      head word (``Dice score``, ``Dice``); a mapping task and the same with its process
      named (``text-to-image``, ``text-to-image generation``);
    - **type vote**: a name (longer than an acronym) that papers give several types
      takes the type of at least :data:`TYPE_VOTE_SHARE` of them.

    Then ``curation`` (a lab's own fixes, :mod:`kg.resolve.curation`) applies, its
    merges recorded like the others (rule ``curation``). Only merged keys are held in
    memory; everything else is grouped by DuckDB.
    """
    import duckdb
    import networkx as nx

    for name, fn, args, ret in (
        ("kg_acronym", is_acronym, ["VARCHAR"], "BOOLEAN"),
        ("kg_norm", normalise_name, ["VARCHAR"], "VARCHAR"),
        ("kg_spells", spells_acronym, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
        ("kg_defines", defines_acronym, ["VARCHAR", "VARCHAR[]"], "BOOLEAN"),
        ("kg_compact", compact_key, ["VARCHAR"], "VARCHAR"),
    ):
        try:
            con.create_function(name, fn, args, ret, side_effects=False)
        except duckdb.CatalogException:
            pass  # registered on this connection already
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE kg_keys AS SELECT raw_key, any_value(type) AS type, "
        f"count(DISTINCT paper) AS support, count(DISTINCT paper) FILTER (WHERE proposed) "
        f"AS proposed FROM {table} GROUP BY raw_key"
    )
    # each key's name: the form most of its mentions use (the first in sort order on ties)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE kg_names AS SELECT raw_key, name FROM (SELECT raw_key, "
        f"name, count(*) AS n FROM {table} GROUP BY raw_key, name) QUALIFY row_number() OVER "
        "(PARTITION BY raw_key ORDER BY n DESC, name) = 1"
    )
    support: dict[str, int] = {}
    own: set[str] = set()  # keys that every paper naming them proposes

    def support_of(keys: Iterable[str]) -> None:
        wanted = [k for k in set(keys) if k not in support]
        if wanted:
            rows = con.execute(
                "SELECT raw_key, support, proposed = support FROM kg_keys "
                "WHERE raw_key IN (SELECT unnest(?))",
                [wanted],
            ).fetchall()
            support.update((k, n) for k, n, _ in rows)
            own.update(k for k, _, mine in rows if mine)
            papers_behind([k for k, _, mine in rows if mine])  # for each_own, in one query

    papers_of: dict[str, tuple[tuple[str, ...], int]] = {}

    def papers_behind(keys: list[str]) -> None:
        wanted = [k for k in set(keys) if k not in papers_of]
        if wanted:
            rows = con.execute(
                f"SELECT raw_key, list(DISTINCT paper ORDER BY paper)[1:{MERGE_PAPERS}], "
                f"count(DISTINCT paper) FROM {table} "
                "WHERE raw_key IN (SELECT unnest(?)) GROUP BY raw_key",
                [wanted],
            ).fetchall()
            papers_of.update((k, (tuple(p), n)) for k, p, n in rows)

    uf = nx.utils.UnionFind()
    merges: list[Merge] = []
    apart: list[Merge] = []  # what a rule proposed and resolution kept apart, and why
    prefer_type: dict[str, str] = {}  # keys whose type their whole entity takes

    def union(source: str, target: str, merge: Merge) -> None:
        if uf[source] == uf[target]:
            return
        if each_own(source, target):
            why = "each proposed by its own papers, which do not share one"
            apart.append(replace(merge, reason=f"{merge.reason}; kept apart: {why}"))
            return
        uf.union(source, target)
        merges.append(merge)

    def each_own(a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are each proposed by every paper naming them, and no
        paper names both: two papers' own things ("ECHO" and "ECHO"), not one."""
        if a not in own or b not in own:
            return False
        (pa, na), (pb, nb) = papers_of[a], papers_of[b]
        return na == len(pa) and nb == len(pb) and not set(pa) & set(pb)

    claims_of, joins = acronym_claims(con, table, ACRONYM_SHARE)
    if long_forms is None:
        long_forms = shipped_long_forms()
    conventional = conventional_long_forms(long_forms, ACRONYM_SHARE)
    support_of(k for short_key, long_key, *_ in joins for k in (short_key, long_key))
    papers_behind([short_key for short_key, _, _, n, _, _ in joins if n < 2])
    for short_key, long_key, short, n, total, papers in joins:
        if short_key not in support or short_key == long_key:
            continue
        coined = n < 2 or sum(ch.isalnum() for ch in short) < MIN_LETTERS  # "PD": many things
        if coined and not (
            papers_of.get(short_key, ((), 0)) == (papers, 1)  # bare only where defined
            or spells_key(conventional.get(slug(short)), long_key)
        ):
            continue  # one paper's coinage, used bare elsewhere: maybe another thing
        merge = Merge(short_key, long_key, f"acronym {short!r} ({n} of {total} definitions)",
                      "acronym", round(n / total, 3), papers, n)  # fmt: skip
        union(short_key, long_key, merge)

    # an acronym used bare as one type but defined only as another type's long form, by two
    # papers or more, is that thing: "ECE" taken for a data set, defined as a metric
    defined_as: dict[str, set[str]] = {}  # slug -> the types of every definition of it
    for short_key in claims_of:
        defined_as.setdefault(short_key.split(":", 1)[1], set()).add(key_type(short_key))
    winner = {short_key.split(":", 1)[1]: (long_key, short, n, papers)
              for short_key, long_key, short, n, _, papers in joins}  # fmt: skip
    bare = con.execute(
        "SELECT raw_key FROM kg_keys WHERE split_part(raw_key, ':', 2) IN (SELECT unnest(?))",
        [sorted(winner)],
    ).fetchall() if winner else []  # fmt: skip
    for (key,) in bare:
        slug_ = key.split(":", 1)[1]
        long_key, short, n, papers = winner[slug_]
        if defined_as[slug_] != {key_type(long_key)} or key_type(key) == key_type(long_key):
            continue  # defined as its own type too, or as several others: homonyms
        if n < 2:
            continue
        support_of([key, long_key])
        why = f"acronym {short!r} used as a {key_type(key)}, defined only as a {key_type(long_key)}"
        union(key, long_key, Merge(key, long_key, why, "acronym", 1.0, papers, n))
        prefer_type[long_key] = key_type(long_key)

    # twin acronyms: two acronyms of one type that the shared corpus's papers spell out the
    # same way ("AUROC", "ROC-AUC"), though no paper here defines them
    if long_forms:
        rows = con.execute(
            "SELECT raw_key FROM kg_keys WHERE split_part(raw_key, ':', 2) IN (SELECT unnest(?))",
            [acronym_slugs(long_forms)],
        ).fetchall()
        twins = twin_acronyms([key for (key,) in rows], long_forms)
        support_of(k for _, keys in twins for k in keys)
        papers_behind([k for _, keys in twins for k in keys])
        for long, keys in twins:
            keys = sorted(keys, key=lambda k: (-support[k], k))
            for other in keys[1:]:
                papers, n = papers_of.get(other, ((), 0))
                why = f"acronyms of one long form in the shared corpus: {long!r}"
                union(other, keys[0], Merge(other, keys[0], why, "acronym", 1.0, papers, n))

    # spelled out: a name with an acronym in it and the same name with the acronym spelled
    # out as the corpus does ("multimodal LLMs", "multimodal large language models")
    spelled = spelled_out_pairs(con, "kg_names", conventional)
    support_of(k for pair in spelled for k in pair)
    papers_behind([short for short, _ in spelled])
    for short, long in spelled:
        papers, n = papers_of.get(short, ((), 0))
        merge = Merge(short, long, "the same name with its acronym spelled out as the corpus "
                      "does", "spelled out", 1.0, papers, n)  # fmt: skip
        union(short, long, merge)

    # separators: keys equal once hyphens and articles go ("CIFAR100", "LLM-as-a-judge")
    rows = con.execute(
        "SELECT list(raw_key ORDER BY support DESC, raw_key) FROM kg_keys "
        "GROUP BY type, kg_compact(raw_key) HAVING count(*) > 1"
    ).fetchall()
    groups = [keys for (keys,) in rows]
    # head words: a key that is another's with a generic head word ("Dice score", "Dice")
    heads = "|".join(sorted(GENERIC_HEADS | MEASURE_HEADS))
    rows = con.execute(
        "SELECT b.raw_key, a.raw_key FROM kg_keys a JOIN kg_keys b ON a.type = b.type AND "
        f"regexp_replace(a.raw_key, '-({heads})$', '') = b.raw_key "
        "WHERE a.raw_key <> b.raw_key ORDER BY a.raw_key"
    ).fetchall()
    named = {}
    if rows:  # only a name stays itself without its head: "Dice score", not "hybrid model"
        named = dict(con.execute(
            "SELECT raw_key, arg_max(name, (n, name)) FROM (SELECT raw_key, name, count(*) AS n "
            f"FROM {table} WHERE raw_key IN (SELECT unnest(?)) GROUP BY ALL) GROUP BY raw_key",
            [sorted({short for short, _ in rows})],
        ).fetchall())  # fmt: skip
    headed = [
        (short, long)
        for short, long in rows
        if name_like(named.get(short, ""))
        and sum(ch.isalnum() for ch in named.get(short, "")) > 1  # "R scores": one letter
        # "X framework" may be a framework for X ("emotion recognition framework", "LLM
        # pipeline", "greedy strategy"); "X model" is X ("Random Forest models")
        and long[len(short) + 1 :] in NAMING_HEADS
    ]
    # a mapping task is the same task with the process named ("text-to-image generation")
    mapping = "|".join(sorted(MAPPING_HEADS))
    headed += con.execute(
        "SELECT b.raw_key, a.raw_key FROM kg_keys a JOIN kg_keys b ON a.type = b.type AND "
        f"regexp_replace(a.raw_key, '-({mapping})$', '') = b.raw_key "
        "WHERE a.type = 'Task' AND a.raw_key <> b.raw_key AND b.raw_key LIKE '%-to-%' "
        "ORDER BY a.raw_key"
    ).fetchall()
    support_of(k for keys in groups for k in keys)
    support_of(k for pair in headed for k in pair)
    papers_behind([k for keys in groups for k in keys[1:]] + [long for _, long in headed])
    for keys in groups:
        for other in keys[1:]:
            papers, n = papers_of.get(other, ((), 0))
            merge = Merge(other, keys[0], "same name without separators", "separators",
                          1.0, papers, n)  # fmt: skip
            union(other, keys[0], merge)
    for short, long in headed:
        papers, n = papers_of.get(long, ((), 0))
        head = long[len(short) + 1 :]
        merge = Merge(long, short, f"the same name with the head word {head!r}", "head word",
                      1.0, papers, n)  # fmt: skip
        union(long, short, merge)

    # fuzzy: blocks of (type, first four characters of the normalised name); one paper's
    # unnamed proposals (keys with "~paper") are not merged with other papers' by name
    rows = iter_rows(
        con,
        "WITH normed AS (SELECT k.raw_key, k.type, k.support, kg_norm(named.name) AS norm "
        "FROM kg_names named JOIN kg_keys k USING (raw_key)) "
        "SELECT type, substr(norm, 1, 4) AS block, norm, raw_key, support FROM normed "
        f"WHERE length(norm) >= {int(fuzzy_min_length)} AND NOT contains(raw_key, '~') "
        "ORDER BY type, block, support DESC, raw_key",
    )
    fuzzy = []
    for _, block in groupby(rows, key=lambda r: (r[0], r[1])):
        items = list(block)
        for i, j, score in near_pairs([norm for _, _, norm, _, _ in items], fuzzy_threshold):
            (_, _, norm_a, key_a, _), (_, _, norm_b, key_b, _) = items[i], items[j]
            if version_words(norm_a) != version_words(norm_b):
                continue  # GPT-3 vs GPT-4, GPT-4 vs GPT-4o, ResNet-50 vs ResNet-101
            if not spelling_variants(norm_a, norm_b):
                continue  # RouterBench vs RouterXBench, open-ended QA vs VQA
            fuzzy.append((key_b, key_a, score))
    support_of(k for pair in fuzzy for k in pair[:2])
    papers_behind([source for source, _, _ in fuzzy])
    for source, target, score in fuzzy:
        papers, n = papers_of.get(source, ((), 0))
        merge = Merge(source, target, f"fuzzy {score:.0f}", "fuzzy", round(score / 100, 3),
                      papers, n)  # fmt: skip
        union(source, target, merge)

    # one type per thing: a name that papers give several types takes the type most give it
    # (by the papers of each type's whole entity), where one type clearly dominates
    rows = con.execute(
        "SELECT list(raw_key ORDER BY raw_key) FROM kg_keys "
        "GROUP BY split_part(raw_key, ':', 2) HAVING count(*) > 1 "
        # a short word may be an acronym of several things (SR: super-resolution, success
        # rate): only longer names are voted on
        "AND (length(split_part(any_value(raw_key), ':', 2)) > 5 "
        "OR contains(split_part(any_value(raw_key), ':', 2), '-'))"
    ).fetchall()
    if rows:
        sets = {k: s for s in uf.to_sets() for k in s}
        support_of(k for (keys,) in rows for key in keys for k in sets.get(key, {key}))
        for (keys,) in rows:
            weight = {k: sum(support[m] for m in sets.get(k, {k})) for k in keys}
            top = max(keys, key=lambda k: (weight[k], k))
            total = sum(weight.values())
            if weight[top] < TYPE_VOTE_MIN or weight[top] < TYPE_VOTE_SHARE * total:
                continue  # no clear winner: homonyms (GQA the data set, GQA the attention)
            papers_behind([k for k in keys if k != top])
            for key in keys:
                if key != top and uf[key] != uf[top]:
                    papers, n = papers_of.get(key, ((), 0))
                    why = f"{weight[top]} of {total} papers make it a {key_type(top)}"
                    union(key, top, Merge(key, top, why, "type vote",
                                          round(weight[top] / total, 3), papers, n))  # fmt: skip

    canonical = {}
    for group in uf.to_sets():  # the key more papers use, of the type most papers give
        votes: Counter = Counter()
        for k in group:
            votes[key_type(k)] += support[k]
        kind = max(votes, key=lambda t: (votes[t], t))
        kind = next((prefer_type[k] for k in sorted(group) if k in prefer_type), kind)
        kept = min((k for k in group if key_type(k) == kind), key=lambda k: (-support[k], k))
        canonical.update((k, kept) for k in group if k != kept)
    curated = apply_curation(con, table, curation, canonical) if curation else None
    if curated is not None:
        merges += curated.merges
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
    con.execute("DROP TABLE kg_keys")
    con.execute("DROP TABLE kg_names")
    merges = [replace(m, key=canonical.get(m.source, m.source)) for m in merges]
    write_merges(merges, merges_path(entities_path))
    apart = [replace(m, key=canonical.get(m.source, m.source)) for m in apart]
    write_merges(apart, apart_path(entities_path))
    resolution = Resolution(canonical, merges, Path(entities_path), curated, apart)
    return resolution
