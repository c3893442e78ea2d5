"""Near-duplicates a user decides: entities that resolution keeps apart although one's
name is the other's with a qualifier ("MS COCO" and "COCO", "ImageNet-1K" and
"ImageNet"). A qualifier may name the same thing (a publisher, the usual version) or
another one (a subset, a later version), which no text of the build says, so the pairs
are listed for ``kg curate merge``, never merged."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["NearDuplicate", "QUALIFIER", "qualified_pairs"]

QUALIFIER = re.compile(r"[A-Za-z]*\d[\w.]*|[A-Z]{2,4}")
"""A word that qualifies a name: one with a digit (``1K``, ``v2``, ``2017``) or of two to
four capitals (``MS``, ``HQ``), not a word that names another thing (``Tiny``, ``Pro``)."""

_SEPARATOR = re.compile(r"([\s\-]+)")


@dataclass(frozen=True)
class NearDuplicate:
    """Two entities of one type, the first named as the second with a qualifier."""

    key: str
    other: str
    type: str
    name: str
    other_name: str
    qualifier: str
    support: int
    other_support: int


def qualified_pairs(rows: Iterable[tuple[str, str, str, int]]) -> list[NearDuplicate]:
    """Return the pairs among ``rows`` (key, type, name, support) where one name is the
    other's with a :data:`QUALIFIER` word before or after it, the pairs with the most papers
    on their weaker side first.

    >>> [p.qualifier for p in qualified_pairs([("d:1", "Dataset", "MS COCO", 17),
    ...                                        ("d:2", "Dataset", "COCO", 26),
    ...                                        ("d:3", "Dataset", "Tiny COCO", 5)])]
    ['MS']
    """
    rows = list(rows)
    bare = {(type_, name.lower()): (key, name, n) for key, type_, name, n in rows}
    out = []
    for key, type_, name, n in rows:
        parts = _SEPARATOR.split(name)
        if len(parts) < 3:
            continue
        for word, rest in ((parts[0], "".join(parts[2:])), (parts[-1], "".join(parts[:-2]))):
            other = bare.get((type_, rest.lower()))
            if other is not None and other[0] != key and QUALIFIER.fullmatch(word):
                out.append(NearDuplicate(key, other[0], type_, name, other[1], word, n, other[2]))
    return sorted(out, key=lambda p: (-min(p.support, p.other_support), p.key, p.other))
