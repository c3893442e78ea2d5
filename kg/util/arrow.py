"""Arrow types read off dataclasses, so that a table's columns are declared once: by the
dataclass whose values it stores (a paper's extraction is a struct column of
:class:`~kg.nlp.extraction.PaperExtraction`, not JSON text)."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

__all__ = ["arrow_type"]


def arrow_type(hint: Any):
    """Return the pyarrow type that holds values of the type ``hint``: a dataclass as a
    struct of its fields, a tuple or list as a list, ``X | None`` as a nullable ``X``.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Span:
    ...     text: str
    ...     start: int
    ...     score: float | None = None
    ...     tags: tuple[str, ...] = ()
    >>> str(arrow_type(Span))
    'struct<text: string, start: int64, score: double, tags: list<item: string>>'
    """
    import pyarrow as pa

    scalars = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
    if hint in scalars:
        return scalars[hint]
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return pa.struct([(f.name, arrow_type(hints[f.name])) for f in dataclasses.fields(hint)])
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        kinds = [a for a in args if a is not type(None)]
        if len(kinds) == 1:
            return arrow_type(kinds[0])
    elif origin in (tuple, list):
        items = {a for a in args if a is not Ellipsis}
        if len(items) == 1:
            return pa.list_(arrow_type(items.pop()))
    raise TypeError(f"no Arrow type for {hint!r}: give the field a plainer type")
