"""Numbers in text that may be reported values: where they are, their sign and unit.

:func:`find_numbers` is what the results extractor (:mod:`kg.nlp.results.component`) and the score
decision's training read numbers with; :func:`parse_number` gives their value.
"""

from __future__ import annotations

import re

from spacy.util import registry

__all__ = ["RANGE_GAP", "find_numbers", "make_number_parser", "parse_number"]

_NUMBER = re.compile(
    r"(?<![\w./])(?<!\d,)(\+?)"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)\s?"
    r"(\\?%|percent\b|×|x(?![A-Za-z])|X(?![A-Za-z])|-?times\b|times(?![a-z])|-fold\b|fold\b)?"
)
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
RANGE_GAP = re.compile(r"\s?(?:[-–—]|to)\s?")
_SIZE_NEXT = re.compile(r"\s?\d")  # "256×256": a size, no result
_SIZE_BEFORE = re.compile(r"\d\s?[×xX]\s?$")
_NOT_A_RESULT_BEFORE = re.compile(r"(?:±|\+/-|\+-)\s?$|\[[\d,\s–-]*$")  # "± 1.2", "[12]"
_NAME_HYPHEN = re.compile(r"[A-Za-z][-–]$")  # "GPT-4", "top-1": part of a name


@registry.misc("kg.parse_number.v1")
def make_number_parser():
    """Return the number parser the results extractor uses."""
    return parse_number


def parse_number(text: str) -> float | None:
    """Return the value of a written number ("2,552", "60.2", a decimal comma "72,64"),
    or None.

    Examples
    --------
    >>> parse_number("2,552"), parse_number("60.2"), parse_number("72,64"), parse_number("abc")
    (2552.0, 60.2, 72.64, None)
    """
    if _DECIMAL_COMMA.fullmatch(text):
        text = text.replace(",", ".")
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def find_numbers(text: str) -> list[tuple[int, int, str, str, str | None]]:
    """Return ``(start, end, sign, number, unit)`` for each number in ``text`` that may be
    a reported value: a decimal comma is a decimal point ("72,64%"), both ends of a range
    take its unit ("5-15%"), and sizes ("256×256"), spreads ("± 1.2"), citations
    ("[12]") and numbers in names ("GPT-4") are left out.

    Examples
    --------
    >>> [(n, u) for _, _, _, n, u in find_numbers("gains 11\\\\% and runs 4times faster")]
    [('11', '%'), ('4', 'x')]
    >>> [(n, u) for _, _, _, n, u in find_numbers("BLEU-4 of 72,64% and 5-15% at 256×256")]
    [('72,64', '%'), ('5', '%'), ('15', '%')]
    """
    found = []
    for m in _NUMBER.finditer(text):
        unit_raw = m.group(3)
        unit = None
        if unit_raw:
            unit = "%" if "%" in unit_raw or unit_raw == "percent" else "x"
        end = m.end(3) if unit_raw else m.end(2)
        found.append([m.start(), end, m.group(1), m.group(2), unit])
    out: list[tuple[int, int, str, str, str | None]] = []
    for i, (start, end, sign, number, unit) in enumerate(found):
        before = text[max(0, start - 12) : start]
        if unit == "x" and _SIZE_NEXT.match(text, end):
            continue  # 256×256: the first side of a size
        if _SIZE_BEFORE.search(before):
            continue  # the second side
        if _NOT_A_RESULT_BEFORE.search(before) or _NAME_HYPHEN.search(before):
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        if unit is None and nxt is not None and nxt[4] and RANGE_GAP.fullmatch(text[end : nxt[0]]):
            unit = nxt[4]  # "5-15%": the first end of a range
        out.append((start, end, sign, number, unit))
    return out
