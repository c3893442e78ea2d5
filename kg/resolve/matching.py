"""How resolution compares names: near spellings, separators, versions, acronyms."""

from __future__ import annotations

import os
import re

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

FUZZY_CELLS = 8_000_000
"""Scores held at once while a block is compared (float32: 32 MB), whatever its size."""


def similar_pairs(names: list[str], threshold: float) -> list[tuple[int, int, float]]:
    """``(i, j, score)`` for each pair ``i < j`` of ``names`` whose RapidFuzz ratio is at
    least ``threshold``, every pair of the block compared (in C, a band of rows of the
    score matrix's upper half at a time, at most :data:`FUZZY_CELLS` scores).

    >>> similar_pairs(["low rank adaptation", "low-rank adaptation", "prompt tuning"], 90)
    [(0, 1, 94.73684210526316)]
    """
    import numpy as np
    from rapidfuzz import process

    out = []
    rows = max(1, FUZZY_CELLS // max(1, len(names)))
    for lo in range(0, len(names), rows):
        near = process.cdist(
            names[lo : lo + rows], names[lo:], scorer=fuzz.ratio,
            score_cutoff=threshold - 0.01, dtype=np.float32,
        )  # fmt: skip
        for i, j in zip(*np.nonzero(near), strict=True):
            a, b = lo + int(i), lo + int(j)
            if a < b and (score := fuzz.ratio(names[a], names[b])) >= threshold:
                out.append((a, b, score))  # the exact score, not the matrix's float32
    return out


def name_like(text: str) -> bool:
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


_BRITISH = (
    (re.compile(r"is(ation|ations|e|es|ed|ing|er|ers)$"), r"iz\1"),  # optimisation
    (re.compile(r"our$"), "or"),  # tumour
    (re.compile(r"tre$"), "ter"),  # centre
    (re.compile(r"ll(ing|ed|er)$"), r"l\1"),  # modelling
)
"""British spellings and the American ones they compare as."""

ENDINGS = frozenset({"", "e", "s", "es", "d", "ed", "ing", "al", "ic", "ical", "ly"})
"""Endings that inflect a word or make it an adjective of itself ("position",
"positional"; "robot", "robotic"; the "e" of "processes" once its "s" is cut), not
another word ("tool", "toolkit"; "generator", "generation")."""


def _spelling(word: str) -> str:
    for pattern, american in _BRITISH:
        word = pattern.sub(american, word)
    return word


TYPO_LENGTH = 8
"""Words this long that one letter apart are the same word mistyped ("generaton"); in
shorter ones a letter makes another word ("content", "context")."""


def same_word(x: str, y: str) -> bool:
    """Whether two words are spellings or forms of one word: equal once British spellings
    are American, apart from an ending of :data:`ENDINGS` after a common stem of four
    letters or more, or one letter apart in words of :data:`TYPO_LENGTH` letters.

    >>> same_word("modelling", "modeling"), same_word("position", "positional")
    (True, True)
    >>> same_word("content", "context"), same_word("tool", "toolkit")
    (False, False)
    """
    x, y = _spelling(x), _spelling(y)
    if x == y:
        return True
    stem = len(os.path.commonprefix([x, y]))
    if stem >= 4 and x[stem:] in ENDINGS and y[stem:] in ENDINGS:
        return True
    return min(len(x), len(y)) >= TYPO_LENGTH and Levenshtein.distance(x, y) <= 1


def spelling_variants(a: str, b: str) -> bool:
    """Whether two names differ only as spellings of the same words: as many words, at
    least two, each pair the same word (:func:`same_word`), so a letter that changes a
    name does not ("content understanding", "context understanding")."""
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb) or len(wa) < 2:
        return False
    return all(same_word(x, y) for x, y in zip(wa, wb, strict=True))


def version_words(text: str) -> list[str]:
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
