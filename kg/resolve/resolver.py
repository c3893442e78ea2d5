"""Cross-paper entity resolution: one canonical entity per real thing."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from kg.resolve.acronyms import LongForms, acronym_slugs, shipped_long_forms, twin_acronyms
from kg.resolve.curation import Curated, Curation, apply_curation
from kg.resolve.keys import entity_key, key_type, normalise_name, slug
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
    "unnamed_proposal",
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
    scope: str = ""  # the paper an unnamed proposal belongs to (see unnamed_proposal)

    @property
    def raw_key(self) -> str:
        """The entity's key before resolution; an unnamed proposal's names its paper
        (``dataset:synthetic-dataset~2512.24097``): one paper's own thing."""
        key = entity_key(self.type, self.name)
        return f"{key}~{slug(self.scope)}" if self.scope else key


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
    """One key folded into another: the rule that did it, its score, and the papers behind it
    (those that define the acronym, or that use the merged name; at most
    :data:`MERGE_PAPERS` of them, ``paper_count`` all of them)."""

    source: str
    target: str
    reason: str
    rule: str = ""
    score: float = 1.0
    papers: tuple[str, ...] = ()
    paper_count: int = 0
    key: str = ""  # the canonical key the source ended in (filled once resolution is done)


MERGE_PAPERS = 20
"""How many of the papers behind a merge its record lists."""

TYPE_VOTE_SHARE = 0.75
"""The share of the papers naming a thing that must give it one type before its other
types' entities are folded into that one (a rougher split keeps homonyms apart)."""

TYPE_VOTE_MIN = 3
"""The fewest papers that can outvote the others on a name's type."""

ACRONYM_SHARE = 0.75
"""The share of the papers that define an acronym that must give it one long form before
every use of the acronym joins that long form (the rest stay apart: a duplicate is better
than a wrong merge)."""

ACRONYM_LONE_USES = 3
"""An acronym that only one paper defines joins that paper's long form only when at most
this many papers use the bare acronym (one definition is weak evidence for many uses)."""


@dataclass
class Resolution:
    """The map from each merged raw key to its canonical key, the merges made, and where
    the canonical entities are (a Parquet table, read on demand so big builds stream it).
    """

    canonical: dict[str, str]
    merges: list[Merge] = field(default_factory=list)
    entities_path: Path | None = None
    curated: Curated | None = None  # what a curation file changed, when one was applied

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

NAMING_HEADS = frozenset(
    {"model", "models", "network", "architecture", "algorithm", "dataset", "benchmark",
     "corpus", "suite", "series", "family", "score"}
)  # fmt: skip
"""Generic heads that name the thing itself ("Random Forest models", "BLEU score"), unlike
"framework", "approach" or "system", which may name something made for it."""

MAPPING_HEADS = frozenset({"generation", "synthesis", "translation", "conversion"})
"""Process words after a mapping task's name that still name the same task
("text-to-image" and "text-to-image generation", "text-to-speech synthesis"); retrieval
is another task."""

MEASURE_HEADS = frozenset({"score"})
"""Trailing words of measures whose removal still names the same measure ("F1 score")."""


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


UNNAMED_HEADS = frozenset(
    {"framework", "method", "approach", "pipeline", "system", "strategy", "scheme",
     "module", "mechanism", "technique", "paradigm", "dataset", "data", "benchmark",
     "corpus", "suite", "collection"}
)  # fmt: skip
"""Head words of a description that stands in for a name ("a two-stage framework", "a
synthetic dataset"): made by one paper, not a thing across papers."""


def unnamed_proposal(name: str, proposed: bool) -> bool:
    """Whether a paper's entity is something it made but did not name: proposed, and named
    by a lower-case description ending in a head word such as "framework" or "dataset"
    (the guidelines name unnamed proposals from the text; two papers' "synthetic
    dataset" are different data).

    >>> unnamed_proposal("synthetic dataset", True), unnamed_proposal("COCO dataset", True)
    (True, False)
    >>> unnamed_proposal("synthetic datasets", False), unnamed_proposal("diffusion model", True)
    (False, False)
    """
    words = name.split()
    if not proposed or len(words) < 2 or name != name.lower() or any(ch.isdigit() for ch in name):
        return False
    head = words[-1]
    return head in UNNAMED_HEADS or (head.endswith("s") and head[:-1] in UNNAMED_HEADS)


def local_entities(extraction: PaperExtraction) -> list[LocalEntity]:
    """Group a paper's mentions into entities: same type and normalised name, or acronym.
    An :func:`unnamed_proposal` is scoped to its paper."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, m in enumerate(extraction.mentions):
        name = m.long_form or m.text
        groups.setdefault((m.type, normalise_name(name)), []).append(i)
    out = []
    for local_id, ((type_, _), indexes) in enumerate(groups.items()):
        ms = [extraction.mentions[i] for i in indexes]
        proposed = any(m.proposed for m in ms)
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
                proposed=proposed,
                benchmark=any(m.benchmark for m in ms),
                scope=extraction.record.id if unnamed_proposal(name, proposed) else "",
            )
        )
    return out


class Resolver:
    """Collect the local entities of papers in memory, then resolve them (small inputs).

    Call :meth:`add` once per paper, then :meth:`resolve`. Builds stream the same
    resolution from a Parquet table with :func:`resolve_table` instead.
    """

    def __init__(
        self,
        *,
        fuzzy_threshold: float = 95.0,
        fuzzy_min_length: int = 20,
        long_forms: LongForms | None = None,
    ) -> None:
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_length = fuzzy_min_length
        self.long_forms = long_forms
        self._rows: list[dict] = []
        self._papers = 0

    def add(self, entities: list[LocalEntity], paper: str | None = None) -> None:
        """Record one paper's local entities (``paper`` is its id; a counter by default)."""
        self._rows += local_rows(paper if paper is not None else f"#{self._papers}", entities)
        self._papers += 1

    def resolve(self, curation: Curation | None = None) -> Resolution:
        """Return the canonical entities with the merges made (held in a temporary table),
        and ``curation`` applied."""
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
                curation=curation,
                long_forms=self.long_forms,
            )
        entities = resolution.entities  # read once, then drop the temporary file
        shutil.rmtree(tmp, ignore_errors=True)
        return _MemoryResolution(
            resolution.canonical, resolution.merges, None, resolution.curated, held=entities
        )


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
      word of the long form, in order), when two papers define it that way or few papers
      use it bare (:data:`ACRONYM_LONE_USES`);
    - **twin acronyms**: acronyms of one type that stand for one long form in
      ``long_forms`` (by default what the shared corpus's papers spell them out as,
      :func:`kg.resolve.acronyms.shipped_long_forms`; ``{}`` for none): ``AUROC``,
      ``ROC-AUC``;
    - **separators**: names of one type equal once spaces and hyphens go
      (``CIFAR100``, ``CIFAR-100``);
    - **fuzzy**: names of one type whose normalised forms are near-identical (ratio >=
      ``fuzzy_threshold``, at least ``fuzzy_min_length`` characters), whose words with
      digits are the same (``GPT-4`` is not ``GPT-4o``, ``ResNet-50`` not ``ResNet-101``)
      and whose other words are spellings of each other (:func:`_spelling_variants`);
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
    prefer_type: dict[str, str] = {}  # keys whose type their whole entity takes

    def union(source: str, target: str, merge: Merge) -> None:
        if uf[source] != uf[target]:
            uf.union(source, target)
            merges.append(merge)

    # acronym: (type, acronym) -> each long-form key that papers define it as
    rows = con.execute(
        f"SELECT type, alias, raw_key, count(DISTINCT paper) AS n, "
        f"list(DISTINCT paper ORDER BY paper)[1:{MERGE_PAPERS}] FROM "
        f"(SELECT type, unnest(aliases) AS alias, raw_key, name, paper FROM {table}) "
        "WHERE kg_acronym(alias) AND NOT kg_acronym(name) AND kg_spells(alias, name) "
        "GROUP BY type, alias, raw_key ORDER BY type, alias, n DESC, raw_key"
    ).fetchall()
    claims_of: dict[str, list[tuple[int, str, list[str], str]]] = {}
    for type_, short, long_key, n, papers in rows:  # "SFT" and "SfT" claim one key
        claims_of.setdefault(entity_key(type_, short), []).append((n, long_key, papers, short))
    joins = []
    for short_key, claims in sorted(claims_of.items()):
        # long form (spellings alike once separators and articles go: one long form) ->
        # [papers defining it, some of them, short, its key most papers use]
        by_long: dict[str, list] = {}
        for n, long_key, papers, short in claims:  # most papers first
            held = by_long.setdefault(compact_key(long_key), [0, set(), short, long_key])
            held[0] += n
            held[1].update(papers)
        total = sum(held[0] for held in by_long.values())
        _, (n, papers, short, long_key) = max(by_long.items(), key=lambda kv: (kv[1][0], kv[0]))
        if n / total >= ACRONYM_SHARE:
            papers = tuple(sorted(papers)[:MERGE_PAPERS])
            joins.append((short_key, long_key, short, n, total, papers))
    support_of(k for short_key, long_key, *_ in joins for k in (short_key, long_key))
    for short_key, long_key, short, n, total, papers in joins:
        if short_key not in support or short_key == long_key:
            continue
        if n < 2 and support[short_key] > ACRONYM_LONE_USES:
            continue  # one paper's definition, many bare uses: maybe another thing
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

    if long_forms is None:
        long_forms = shipped_long_forms()
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
            "SELECT raw_key, arg_max(name, n) FROM (SELECT raw_key, name, count(*) AS n "
            f"FROM {table} WHERE raw_key IN (SELECT unnest(?)) GROUP BY ALL) GROUP BY raw_key",
            [sorted({short for short, _ in rows})],
        ).fetchall())  # fmt: skip
    headed = [
        (short, long)
        for short, long in rows
        if _name_like(named.get(short, ""))
        # "X framework" may be a framework for X ("emotion recognition framework"): only
        # a one-word name keeps such a head (SPARROW); "X model" is X in more words too
        and (long[len(short) + 1 :] in NAMING_HEADS or " " not in named.get(short, " "))
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
        "WITH named AS (SELECT raw_key, name, count(*) AS n FROM "
        f"{table} GROUP BY raw_key, name QUALIFY row_number() OVER "
        "(PARTITION BY raw_key ORDER BY n DESC, name) = 1), "
        "normed AS (SELECT k.raw_key, k.type, k.support, kg_norm(named.name) AS norm "
        "FROM named JOIN kg_keys k USING (raw_key)) "
        "SELECT type, substr(norm, 1, 4) AS block, norm, raw_key, support FROM normed "
        f"WHERE length(norm) >= {int(fuzzy_min_length)} AND NOT contains(raw_key, '~') "
        "ORDER BY type, block, support DESC, raw_key",
    )
    fuzzy = []
    for _, block in groupby(rows, key=lambda r: (r[0], r[1])):
        items = list(block)
        for i, j, score in _near_pairs([norm for _, _, norm, _, _ in items], fuzzy_threshold):
            (_, _, norm_a, key_a, sup_a), (_, _, norm_b, key_b, sup_b) = items[i], items[j]
            if _versions(norm_a) != _versions(norm_b):
                continue  # GPT-3 vs GPT-4, GPT-4 vs GPT-4o, ResNet-50 vs ResNet-101
            if not _spelling_variants(norm_a, norm_b):
                continue  # RouterBench vs RouterXBench, open-ended QA vs VQA
            support[key_a], support[key_b] = sup_a, sup_b
            fuzzy.append((key_b, key_a, score))
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
    path = Path(entities_path).as_posix().replace("'", "''")
    con.execute(
        "COPY ("
        # every surface form of each entity, and whether a paper gave it as the long form
        # that defines an acronym, spelling the acronym out
        "WITH forms AS ("
        "SELECT key, paper, name AS form, kg_acronym(name) AS short, "
        "len(list_filter(aliases, lambda a: kg_acronym(a))) > 0 AND NOT kg_acronym(name) "
        "AS long_form, kg_defines(name, aliases) AS spelled FROM kg_member UNION ALL "
        "SELECT key, paper, unnest(aliases) AS form, kg_acronym(unnest(aliases)), false, "
        "false FROM kg_member), "
        "scored AS (SELECT key, form, any_value(short) AS short, "
        "count(DISTINCT paper) AS papers, "
        "count(DISTINCT paper) FILTER (WHERE NOT long_form) AS plain, "
        "count(DISTINCT paper) FILTER (WHERE spelled) AS spelled FROM forms "
        "GROUP BY key, form), "
        # the form most papers use; a long form only where two papers define it
        "chosen AS (SELECT key, arg_min(form, (plain = 0 AND spelled < 2, -papers, short, "
        "form)) AS name FROM scored GROUP BY key), "
        "best AS (SELECT key, coalesce(r.to, c.name) AS name FROM chosen c "
        "LEFT JOIN kg_renames r USING (key)), "
        "alias AS (SELECT key, list(DISTINCT form) AS aliases FROM scored GROUP BY key), "
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
    con.unregister("kg_renames")
    con.execute("DROP TABLE kg_keys")
    merges = [replace(m, key=canonical.get(m.source, m.source)) for m in merges]
    write_merges(merges, merges_path(entities_path))
    resolution = Resolution(canonical, merges, Path(entities_path), curated)
    return resolution


MERGES_SCHEMA_FIELDS = (
    ("source", "string"),
    ("target", "string"),
    ("key", "string"),
    ("rule", "string"),
    ("reason", "string"),
    ("score", "double"),
    ("papers", "list<string>"),
    ("paper_count", "int64"),
)
"""The columns of ``merges.parquet``: each merge with the canonical ``key`` it ended in."""


def merges_path(entities_path: str | Path) -> Path:
    """Return where the merges of the entities at ``entities_path`` are written."""
    return Path(entities_path).with_name("merges.parquet")


def write_merges(merges: list[Merge], path: str | Path) -> None:
    """Write ``merges`` to ``path`` (Parquet, :data:`MERGES_SCHEMA_FIELDS`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = {"string": pa.string(), "double": pa.float64(), "int64": pa.int64(),
             "list<string>": pa.list_(pa.string())}  # fmt: skip
    schema = pa.schema([(n, kinds[k]) for n, k in MERGES_SCHEMA_FIELDS])
    rows = [{**asdict(m), "papers": list(m.papers)} for m in merges]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="zstd")


def read_merges(path: str | Path, keys: Iterable[str] | None = None) -> list[Merge]:
    """Return the merges written by :func:`write_merges` (none when there is no file),
    only those that ended in one of ``keys`` when given."""
    keys = None if keys is None else sorted(set(keys))
    if not Path(path).exists() or keys == []:
        return []
    import pyarrow.parquet as pq

    filters = None if keys is None else [("key", "in", keys)]
    rows = pq.read_table(path, filters=filters).to_pylist()
    return [Merge(**{**r, "papers": tuple(r["papers"])}) for r in rows]


FUZZY_ROWS = 1024
"""Names compared with a whole block at once (bounds the score matrix's memory)."""


def _near_pairs(names: list[str], threshold: float) -> list[tuple[int, int, float]]:
    """``(i, j, score)`` for each pair ``i < j`` of ``names`` whose RapidFuzz ratio is at
    least ``threshold``, every pair of the block compared (in C, :data:`FUZZY_ROWS` rows of
    the score matrix at a time).

    >>> _near_pairs(["low rank adaptation", "low-rank adaptation", "prompt tuning"], 90)
    [(0, 1, 94.73684210526316)]
    """
    import numpy as np
    from rapidfuzz import process

    out = []
    for lo in range(0, len(names), FUZZY_ROWS):
        near = process.cdist(
            names[lo : lo + FUZZY_ROWS], names, scorer=fuzz.ratio,
            score_cutoff=threshold - 0.01, dtype=np.float32,
        )  # fmt: skip
        for i, j in zip(*np.nonzero(near), strict=True):
            a, b = int(lo + i), int(j)
            if a < b and (score := fuzz.ratio(names[a], names[b])) >= threshold:
                out.append((a, b, score))  # the exact score, not the matrix's float32
    return out


def _name_like(text: str) -> bool:
    """Whether ``text`` is written as a name: a capital or a digit in it (``Dice``, ``F1``,
    ``LIBERO``), not a common word (``hybrid``)."""
    return any(ch.isupper() or ch.isdigit() for ch in text)


_ARTICLES = frozenset({"a", "an", "the"})


def compact_key(key: str) -> str:
    """Return a key without its hyphens and articles: keys equal so name one thing.

    >>> compact_key("method:llm-as-a-judge") == compact_key("method:llm-as-judge")
    True
    """
    type_, _, slug_ = key.partition(":")
    return type_ + ":" + "".join(w for w in slug_.split("-") if w not in _ARTICLES)


def _spelling_variants(a: str, b: str) -> bool:
    """Whether two names differ only as spellings of the same words: as many words, at
    least two, each pair alike or sharing its first four letters ("modelling",
    "modeling"; "position", "positional"), so a letter that changes a name does not."""
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb) or len(wa) < 2:
        return False
    return all(
        x == y or (len(x) >= 4 and len(y) >= 4 and x[:4] == y[:4])
        for x, y in zip(wa, wb, strict=True)
    )


def _versions(text: str) -> list[str]:
    """Return the words of ``text`` that hold a digit (versions and sizes, compared exactly)."""
    return [w for w in text.split() if any(ch.isdigit() for ch in w)]


def spells_acronym(short: str, long: str) -> bool:
    """Whether each capital of ``short`` starts a word of ``long`` (or is a capital inside
    one), in order; a comma list of examples spells nothing.

    Examples
    --------
    >>> spells_acronym("LoRA", "Low-Rank Adaptation")
    True
    >>> spells_acronym("3DGS", "3D Gaussian Splatting")
    True
    >>> spells_acronym("AIME", "with extensive evaluation across mathematical")
    False
    """
    if not short or not long or "," in long or ";" in long:
        return False
    letters = [ch.lower() for ch in short if ch.isupper()]
    starts = []
    for word in re.split(r"[\s\-/]+", long):
        if word:
            starts.append(word[0].lower())
            starts += [ch.lower() for ch in word[1:] if ch.isupper()]
    it = iter(starts)
    return bool(letters) and all(ch in it for ch in letters)


def defines_acronym(name: str, aliases: list[str] | None) -> bool:
    """Whether ``name`` is a long form that spells out one of its acronym ``aliases``."""
    return not is_acronym(name) and any(
        is_acronym(a) and spells_acronym(a, name) for a in aliases or ()
    )


def is_acronym(text: str) -> bool:
    """Whether ``text`` is written as an acronym: one word of at most ten characters, at
    least half of its letters (and two) capitals (``LoRA``, ``ROC-AUC``; not ``Adam``)."""
    letters = [c for c in text if c.isalpha()]
    return (
        bool(letters)
        and len(text) <= 10
        and " " not in text
        and sum(c.isupper() for c in letters) >= max(2, len(letters) // 2)
    )
