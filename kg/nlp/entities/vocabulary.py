"""Word lists the rule-based components read: the gazetteer and the head-word lexicon."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from spacy.util import registry

from kg.resources import nlp_data_dir, trained_file
from kg.schema import ENTITY_TYPES

__all__ = [
    "Lexicon",
    "Gazetteer",
    "load_lexicon",
    "load_gazetteer",
    "load_head_priors",
    "load_word_clusters",
    "PHRASE_TYPES",
    "PhraseStats",
    "load_phrase_stats",
    "write_phrase_stats",
    "suffix_form",
    "phrase_patterns",
    "number_form",
]


@dataclass(frozen=True)
class Lexicon:
    """Head words and word classes used to type noun phrases (all lower case)."""

    task_heads: frozenset[str]
    method_heads: frozenset[str]
    metric_heads: frozenset[str]
    metric_words: frozenset[str]
    metric_modifiers: frozenset[str]
    dataset_heads: frozenset[str]
    benchmark_heads: frozenset[str]
    task_learning_modifiers: frozenset[str]
    generic_words: frozenset[str]
    vague_heads: frozenset[str]
    generic_acronyms: frozenset[str]
    research_fields: frozenset[str]
    eval_lemmas: frozenset[str]
    """Lemmas that say an evaluation is spoken of ("evaluate", "benchmark", "achieve")."""
    cue_lemmas: frozenset[str]
    """Lemmas that say a metric's value is reported or compared ("improve", "reach")."""
    context_nouns: frozenset[str]
    """Nouns a name modifies when it is used as a type ("the X task", "X benchmark")."""
    not_names: frozenset[str]
    """Words that with a number name a part of a paper or a step ("Table 3", "Stage 2")."""

    @cached_property
    def metric_last_words(self) -> frozenset[str]:
        """The last word of each metric name (what a phrase ending in one must end with)."""
        return frozenset(m.rpartition(" ")[2] for m in self.metric_words)


@dataclass(frozen=True, eq=False)
class Gazetteer:
    """Known names: ``(type, term)`` rows matched case-insensitively or exactly."""

    lower: tuple[tuple[str, str], ...]
    exact: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        index = {term.lower(): kind for kind, term in self.lower}
        index.update({term: kind for kind, term in self.exact})
        object.__setattr__(self, "_index", index)

    def type_of(self, text: str) -> str | None:
        """Return the type of ``text`` if it is a known name."""
        index: dict[str, str] = self._index  # type: ignore[attr-defined]
        return index.get(text) or index.get(text.lower())


@registry.misc("kg.lexicon.v1")
def load_lexicon(path: str = "") -> Lexicon:
    """Read the lexicon JSON (default: the one shipped with kg)."""
    return _read_lexicon(Path(path) if path else nlp_data_dir() / "lexicon.json")


@lru_cache(maxsize=4)
def _read_lexicon(path: Path) -> Lexicon:
    data = json.loads(path.read_text(encoding="utf-8"))
    keep_case = {"generic_acronyms"}
    return Lexicon(
        **{
            name: frozenset(w if name in keep_case else w.lower() for w in data[name])
            for name in Lexicon.__dataclass_fields__
        }
    )


@registry.misc("kg.gazetteer.v1")
def load_gazetteer(path: str = "") -> Gazetteer:
    """Read the gazetteer TSV (columns type, term, match) (default: the one shipped)."""
    return _read_gazetteer(Path(path) if path else nlp_data_dir() / "vocab.tsv")


@lru_cache(maxsize=4)
def _read_gazetteer(path: Path) -> Gazetteer:
    lower, exact = [], []
    with open(path, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            (lower if row["match"] == "lower" else exact).append((row["type"], row["term"]))
    return Gazetteer(tuple(lower), tuple(exact))


@registry.misc("kg.head_priors.v1")
def load_head_priors(path: str = "") -> dict[str, dict[str, int]]:
    """Read head word -> type counts (SciERC mentions and ml_vocab names)."""
    return _read_priors(Path(path) if path else nlp_data_dir() / "head_priors.json")


@lru_cache(maxsize=4)
def _read_priors(path: Path) -> dict[str, dict[str, int]]:
    return json.loads(path.read_text(encoding="utf-8"))


@registry.misc("kg.word_clusters.v1")
def load_word_clusters(path: str = "") -> dict[str, tuple[str, ...]] | None:
    """Read lowercased word -> cluster ids, coarse to fine (scripts/train_clusters.py);
    default: the shipped file if there is one; ``"none"``: no clusters."""
    file = trained_file(path, "word_clusters.tsv", "word clusters")
    return _read_clusters(file) if file else None


@lru_cache(maxsize=4)
def _read_clusters(path: Path) -> dict[str, tuple[str, ...]]:
    with open(path, encoding="utf-8") as fh:
        header = next(fh).rstrip("\n").split("\t")
        levels = [name.lstrip("c") for name in header[1:]]
        out = {}
        for line in fh:
            word, *ids = line.rstrip("\n").split("\t")
            out[word] = tuple(f"{k}:{c}" for k, c in zip(levels, ids, strict=True))
    return out


PHRASE_TYPES = ENTITY_TYPES


def suffix_form(text: str) -> str | None:
    """Return the pattern a phrase ending in a hyphenated compound shares with others of
    that compound's last part (``"LLM-based"``, ``"deep learning-based"`` -> ``"*-based"``),
    or None for other text."""
    last = text.split()[-1] if text.split() else ""
    if "-" not in last.strip("-"):
        return None
    return "*-" + last.rsplit("-", 1)[1].lower()


def phrase_patterns(span) -> list[str]:
    """Return the patterns a candidate span shares with others: its :func:`suffix_form`."""
    pattern = suffix_form(span.text)
    return [pattern] if pattern else []


NUMBER_MARK = " #n"
"""Marks a phrase's record beside a reported number (:func:`number_form`)."""


def number_form(form: str) -> str:
    """The form under which a phrase's mentions beside a reported number are counted
    ("score #n"): a measure the annotators take only where a number is reported
    (latency, parameter count) has its own record there."""
    return form + NUMBER_MARK


@dataclass(frozen=True)
class PhraseStats:
    """How often the annotators made each phrase an entity (scripts/learn_phrases.py):
    ``seen[form]`` abstracts where the rules proposed it, ``taken[form][type]`` those whose
    annotation made it an entity of ``type``. Forms are normalised names, a
    :func:`suffix_form` pattern for every one-word compound ending alike, or a
    :func:`number_form` for the mentions beside a reported number."""

    seen: dict[str, int]
    taken: dict[str, dict[str, int]]

    def verdict(
        self,
        form: str,
        *,
        min_seen: int = 5,
        max_rate: float = 0.1,
        min_taken: int = 3,
        type_share: float = 0.8,
        label: str | None = None,
    ) -> str | None:
        """Return ``"O"`` when ``form`` was seen in ``min_seen`` abstracts or more and
        taken in at most ``max_rate`` of them, the type the annotators gave it when they
        took it ``min_taken`` times or more, ``type_share`` of them with that type (or
        never with ``label``, the type a rule gave it); else None (no evidence either
        way)."""
        n = self.seen.get(form, 0)
        if n < min_seen and form not in self.taken:
            return None
        by_type = self.taken.get(form, {})
        total = sum(by_type.values())
        if n >= min_seen and total <= max_rate * n:
            return "O"
        if total >= min_taken:
            best = max(by_type, key=lambda t: (by_type[t], t))
            if by_type[best] >= type_share * total or (label and not by_type.get(label)):
                return best
        return None


def write_phrase_stats(rows: dict[str, tuple[int, dict[str, int]]], path: str | Path) -> None:
    """Write ``{form: (seen, {type: taken})}`` as the TSV :func:`load_phrase_stats` reads."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["form", "seen", *PHRASE_TYPES])
        for form in sorted(rows):
            seen, by_type = rows[form]
            writer.writerow([form, seen, *(by_type.get(t, 0) for t in PHRASE_TYPES)])


@registry.misc("kg.phrase_stats.v1")
def load_phrase_stats(path: str = "") -> PhraseStats | None:
    """Read the learned phrase statistics (default: the shipped phrase_stats.tsv if there
    is one; ``"none"``: none)."""
    file = trained_file(path, "phrase_stats.tsv", "phrase statistics")
    return _read_phrase_stats(file) if file else None


@lru_cache(maxsize=4)
def _read_phrase_stats(path: Path) -> PhraseStats:
    seen: dict[str, int] = {}
    taken: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            seen[row["form"]] = int(row["seen"])
            by_type = {t: int(row[t]) for t in PHRASE_TYPES if int(row[t])}
            if by_type:
                taken[row["form"]] = by_type
    return PhraseStats(seen, taken)
