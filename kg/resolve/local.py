"""The entities of one paper, as resolution reads them: the local-entity table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.resolve.keys import entity_key, normalise_name, slug

if TYPE_CHECKING:  # spaCy loads with kg.nlp; resolution does not need it
    from kg.nlp.extraction import PaperExtraction


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


LOCALS_SCHEMA_FIELDS = (
    ("paper", "string"),
    ("type", "string"),
    ("raw_key", "string"),
    ("name", "string"),
    ("aliases", "list<string>"),
    ("mentions", "int32"),
    ("proposed", "bool"),
    ("benchmark", "bool"),
    ("local_id", "int32"),
    ("mention_ids", "list<int32>"),
    ("scope", "string"),
)
"""The columns of the local-entity table (one row per paper entity): resolution reads the
first eight; the graph stage reads the rest back into each paper's :class:`LocalEntity`."""


def locals_schema():
    """Return the pyarrow schema of the local-entity table."""
    import pyarrow as pa

    kinds = {"string": pa.string(), "list<string>": pa.list_(pa.string()), "int32": pa.int32(),
             "list<int32>": pa.list_(pa.int32()), "bool": pa.bool_()}  # fmt: skip
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
            "local_id": e.local_id,
            "mention_ids": list(e.mentions),
            "scope": e.scope,
        }
        for e in entities
    ]


def entities_of_rows(rows: Iterable[dict]) -> list[LocalEntity]:
    """Return the :class:`LocalEntity` list of one paper's rows of the local-entity table
    (:func:`local_rows` wrote them), in local id order."""
    return [
        LocalEntity(local_id=r["local_id"], type=r["type"], name=r["name"],
                    aliases=tuple(r["aliases"]), mentions=tuple(r["mention_ids"]),
                    proposed=r["proposed"], benchmark=r["benchmark"], scope=r["scope"] or "")
        for r in sorted(rows, key=lambda r: r["local_id"])
    ]  # fmt: skip


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
