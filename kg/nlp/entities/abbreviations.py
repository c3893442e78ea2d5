"""Abbreviation detection: long form <-> short form pairs such as "Low-Rank Adaptation (LoRA)".

The algorithm follows Schwartz & Hearst (2003), "A simple algorithm for identifying
abbreviation definitions in biomedical text": a short form in parentheses is matched,
character by character from its end, against the words before it.
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc

from kg.nlp.component import KgComponent
from kg.nlp.extensions import doc_data

__all__ = [
    "AbbreviationDetector",
    "find_abbreviations",
    "find_long_form",
    "is_short_form",
    "paren_short_forms",
]

_PAREN = re.compile(r"\(([^()]{1,20})\)")
_SHORT_FIRST = re.compile(r"(?<![\w-])([A-Za-z][\w.-]{1,9}) \(([^()]{5,120})\)")


def is_short_form(text: str) -> bool:
    """Return True when ``text`` can be an abbreviation (2-10 chars, a letter, one or two words).

    Examples
    --------
    >>> is_short_form("LoRA"), is_short_form("e.g."), is_short_form("see below")
    (True, True, False)
    """
    text = text.strip()
    if not 2 <= len(text) <= 10 or len(text.split()) > 2:
        return False
    if not text[0].isalnum() or not any(ch.isalpha() for ch in text):
        return False
    return any(ch.isupper() for ch in text) or "." in text


def find_long_form(short: str, before: str, max_words: int | None = None) -> int | None:
    """Return the offset in ``before`` where the long form of ``short`` starts, or None.

    The long form is sought among the last ``max_words`` words (by default as many as
    Schwartz & Hearst allow for the short form's length).

    Examples
    --------
    >>> text = "we use Low-Rank Adaptation "
    >>> text[find_long_form("LoRA", text):].strip()
    'Low-Rank Adaptation'
    >>> find_long_form("TAD", "nothing to see ") is None
    True
    """
    chars = [ch.lower() for ch in short if ch.isalnum()]
    if not chars:
        return None
    words = before.rstrip().split(" ")
    if max_words is None:
        max_words = min(len(chars) + 5, len(chars) * 2)
    window = " ".join(words[-max_words:])
    offset = len(before.rstrip()) - len(window)
    s_index, l_index = len(chars) - 1, len(window) - 1
    while s_index >= 0:
        ch = chars[s_index]
        while l_index >= 0 and (
            window[l_index].lower() != ch
            or (s_index == 0 and l_index > 0 and window[l_index - 1].isalnum())
        ):
            l_index -= 1
        if l_index < 0:
            return None
        s_index -= 1
        l_index -= 1
    start = l_index + 1
    while start > 1 and window[start - 1] == "-" and window[start - 2].isalnum():
        start = window.rfind(" ", 0, start - 1) + 1  # the whole word: "Non-negative"
    long_form = window[start:]
    if len(long_form.split()) < 1 or len(long_form) <= len(short):
        return None
    if not long_form[:1].isalnum():
        return None
    return offset + start


def paren_short_forms(text: str) -> list[tuple[str, int, int]]:
    """Return ``(short form, its offset, the offset of its opening parenthesis)`` for each
    parenthesis of ``text`` that opens with a short form ("(LoRA)", "(FID; lower is
    better)").

    >>> paren_short_forms("Low-Rank Adaptation (LoRA) and (see below)")
    [('LoRA', 21, 20)]
    """
    out = []
    for match in _PAREN.finditer(text):
        inner = match.group(1)
        short = inner.split(";")[0].split(",")[0].strip()
        if is_short_form(short):
            out.append((short, match.start(1) + inner.index(short), match.start()))
    return out


def find_abbreviations(text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Return ``((short_start, short_end), (long_start, long_end))`` char spans in ``text``.

    Examples
    --------
    >>> t = "Temporal action detection (TAD) is hard."
    >>> [(t[s[0]:s[1]], t[lf[0]:lf[1]]) for s, lf in find_abbreviations(t)]
    [('TAD', 'Temporal action detection')]
    """
    pairs = []
    for short, s_start, paren in paren_short_forms(text):
        before = text[:paren]
        start = find_long_form(short, before)
        if start is None:
            continue
        pairs.append(((s_start, s_start + len(short)), (start, len(before.rstrip()))))
    for match in _SHORT_FIRST.finditer(text):  # "PAVe (Personalized Agentic Vehicular Routing)"
        short, inner = match.group(1), match.group(2)
        if not is_short_form(short) or len(inner.split()) < 2:
            continue
        inner = inner.rstrip()
        if find_long_form(short, inner + " ") != 0:
            continue
        pairs.append((match.span(1), (match.start(2), match.start(2) + len(inner))))
    return sorted(pairs)


class AbbreviationDetector(KgComponent):
    """Find abbreviation definitions and every later use of their short forms.

    Reads ``doc.text``; writes ``doc._.kg_abbreviations``, a list of
    ``{"short": [start_char, end_char], "long": [start_char, end_char]}``, one item per
    definition and one per later occurrence of a defined short form (pointing to the
    defining long form).
    """

    def __init__(self, nlp: Language, name: str = "kg_abbreviations") -> None:
        self.name = name

    def process(self, doc: Doc) -> None:
        found = doc_data(doc, "kg_abbreviations")
        defined: dict[str, tuple[int, int]] = {}
        text = doc.text  # joined from the tokens on each access
        for short, long in find_abbreviations(text):
            found.append({"short": list(short), "long": list(long)})
            defined.setdefault(text[short[0] : short[1]], long)
        seen = {tuple(item["short"]) for item in found}
        for short, long in defined.items():
            stem = short[:-1] if short.endswith("s") and len(short) > 2 else short
            pattern = rf"(?<![\w-]){re.escape(stem)}s?(?![\w-])"
            for match in re.finditer(pattern, text):
                span = (match.start(), match.end())
                if span not in seen and match.start() > long[1]:
                    found.append({"short": list(span), "long": list(long)})


@Language.factory("kg_abbreviations", assigns=["doc._.kg_abbreviations"])
def make_abbreviation_detector(nlp: Language, name: str) -> AbbreviationDetector:
    """Build the abbreviation detector."""
    return AbbreviationDetector(nlp, name)
