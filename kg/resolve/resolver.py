"""Cross-paper entity resolution: one canonical entity per real thing."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from kg.nlp.extraction import PaperExtraction
from kg.resolve.keys import entity_key, normalise_name

__all__ = ["LocalEntity", "Entity", "Merge", "Resolution", "Resolver", "local_entities"]


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
    """The canonical entities and the map from each raw key to its canonical key."""

    entities: dict[str, Entity]
    canonical: dict[str, str]
    merges: list[Merge] = field(default_factory=list)

    def key_for(self, local: LocalEntity) -> str:
        """Return the canonical key of a paper-local entity."""
        return self.canonical.get(local.raw_key, local.raw_key)


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
    """Collect the local entities of every paper, then resolve them into canonical ones.

    Call :meth:`add` once per paper (streaming), then :meth:`resolve`.
    """

    def __init__(self, *, fuzzy_threshold: float = 95.0, fuzzy_min_length: int = 10) -> None:
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_length = fuzzy_min_length
        self._names: dict[str, Counter] = defaultdict(Counter)
        self._aliases: dict[str, set[str]] = defaultdict(set)
        self._type: dict[str, str] = {}
        self._papers: dict[str, set[int]] = defaultdict(set)
        self._mentions: Counter = Counter()
        self._proposing: dict[str, set[int]] = defaultdict(set)
        self._paper_count = 0
        self._benchmark: set[str] = set()
        self._acronyms: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(self, entities: list[LocalEntity]) -> None:
        """Record one paper's local entities."""
        paper = self._paper_count
        self._paper_count += 1
        for ent in entities:
            key = ent.raw_key
            self._type[key] = ent.type
            self._names[key][ent.name] += 1
            self._aliases[key].update(ent.aliases)
            self._papers[key].add(paper)
            self._mentions[key] += len(ent.mentions)
            if ent.proposed:
                self._proposing[key].add(paper)
            if ent.benchmark:
                self._benchmark.add(key)
            for alias in ent.aliases:
                if _is_acronym(alias) and not _is_acronym(ent.name):
                    self._acronyms[(ent.type, alias)].add(key)

    def resolve(self) -> Resolution:
        """Return the canonical entities with the merges made."""
        parent = {key: key for key in self._type}
        merges: list[Merge] = []

        def find(key: str) -> str:
            while parent[key] != key:
                parent[key] = parent[parent[key]]
                key = parent[key]
            return key

        def union(source: str, target: str, reason: str) -> None:
            a, b = find(source), find(target)
            if a == b:
                return
            if len(self._papers[a]) > len(self._papers[b]):  # keep the better-supported key
                a, b = b, a
            parent[a] = b
            merges.append(Merge(a, b, reason))

        for (type_, short), long_keys in self._acronyms.items():
            if len(long_keys) != 1:
                continue  # ambiguous across papers: keep apart
            short_key = entity_key(type_, short)
            if short_key in parent:
                union(short_key, next(iter(long_keys)), f"acronym {short!r}")
        self._fuzzy(union)
        entities: dict[str, Entity] = {}
        members: dict[str, list[str]] = defaultdict(list)
        for key in parent:
            members[find(key)].append(key)
        for root, keys in members.items():
            names: Counter = Counter()
            aliases: set[str] = set()
            for key in keys:
                names.update(self._names[key])
                aliases |= self._aliases[key]
            name = names.most_common(1)[0][0]
            if _is_acronym(name):  # prefer a long form as the display name
                long_names = [n for n, _ in names.most_common() if not _is_acronym(n)]
                name = long_names[0] if long_names else name
            aliases |= set(names)
            aliases.discard(name)
            entities[root] = Entity(
                key=root,
                type=self._type[root],
                name=name,
                aliases=sorted(aliases),
                support=len(set().union(*(self._papers[k] for k in keys))),
                mention_count=sum(self._mentions[k] for k in keys),
                proposed_count=len(set().union(*(self._proposing.get(k, ()) for k in keys))),
                benchmark=any(k in self._benchmark for k in keys),
            )
        canonical = {key: find(key) for key in parent}
        return Resolution(entities, canonical, merges)

    def _fuzzy(self, union) -> None:
        blocks: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for key, type_ in self._type.items():
            norm = normalise_name(self._names[key].most_common(1)[0][0])
            if len(norm) >= self.fuzzy_min_length:
                blocks[(type_, norm[:4])].append((norm, key))
        for items in blocks.values():
            if len(items) > 400:
                items = sorted(items, key=lambda nk: -len(self._papers[nk[1]]))[:400]
            for i, (norm_a, key_a) in enumerate(items):
                for norm_b, key_b in items[i + 1 :]:
                    if _digits(norm_a) != _digits(norm_b):
                        continue  # GPT-3 vs GPT-4, ResNet-50 vs ResNet-101
                    score = fuzz.ratio(norm_a, norm_b)
                    if score >= self.fuzzy_threshold:
                        union(key_a, key_b, f"fuzzy {score:.0f}")


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
