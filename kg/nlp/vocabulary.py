"""Word lists the rule-based components read: the gazetteer and the head-word lexicon."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from spacy.util import registry

from kg.resources import nlp_data_dir, trained_file

__all__ = [
    "Lexicon",
    "Gazetteer",
    "load_lexicon",
    "load_gazetteer",
    "load_head_priors",
    "load_word_clusters",
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
