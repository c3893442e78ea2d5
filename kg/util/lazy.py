"""Packages whose public names load on first use, so that importing a light part of kg
does not import spaCy, an HTTP client or the like."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, sources: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return a package's ``__getattr__`` and ``__dir__`` for ``sources`` (name -> module).

    >>> getattr_, dir_ = lazy_names("pkg", {"sqrt": "math"})
    >>> getattr_("sqrt")(9.0), dir_()
    (3.0, ['sqrt'])
    """

    def __getattr__(name: str) -> Any:
        if name not in sources:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(sources[name]), name)

    def __dir__() -> list[str]:
        return sorted(sources)

    return __getattr__, __dir__
