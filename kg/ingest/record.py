"""The ``Record`` every reader yields, the ``Skipped`` note for what it could not use."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

__all__ = [
    "Record",
    "Skipped",
    "FieldMap",
    "paper_id_for",
    "find_code_url",
    "normalise_space",
    "without_controls",
    "text_problem",
    "DEFAULT_MAX_CHARS",
    "Item",
]

_SPACE = re.compile(r"\s+")
_CODE_URL = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", re.I
)


@dataclass(frozen=True)
class Record:
    """One paper as read from an input file."""

    id: str
    text: str
    title: str | None = None
    year: int | None = None
    date: str | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    code_url: str | None = None
    categories: tuple[str, ...] = ()
    upvotes: int | None = None
    """Votes the paper got where it was picked (Hugging Face Daily Papers)."""
    source: str = ""
    line: int | None = None
    notes: tuple[str, ...] = ()
    """What of the record's metadata could not be read and was left out (a bad year...)."""


@dataclass(frozen=True)
class Note:
    """Something said of a record that was kept: a metadata value left out, for one."""

    source: str
    line: int | None
    text: str

    def __str__(self) -> str:
        return f"{_where(self.source, self.line)}: {self.text}"


@dataclass(frozen=True)
class Skipped:
    """A record or file a reader could not use, and why."""

    source: str
    line: int | None
    reason: str
    excerpt: str = ""

    def __str__(self) -> str:
        return f"{_where(self.source, self.line)}: {self.reason}"


def _where(source: str, line: int | None) -> str:
    """``file:line``, or the file alone when the line is not known."""
    return f"{source}:{line}" if line is not None else source


@dataclass(frozen=True)
class FieldMap:
    """Which JSON keys hold each field; the first key present wins."""

    id: tuple[str, ...] = ("id", "paper_id", "arxiv_id", "doi")
    title: tuple[str, ...] = ("title",)
    text: tuple[str, ...] = ("abstract", "text", "summary")
    year: tuple[str, ...] = ("year",)
    date: tuple[str, ...] = ("date", "update_date", "published", "versions_date")
    authors: tuple[str, ...] = ("authors", "author")
    url: tuple[str, ...] = ("url", "abs", "link")
    code_url: tuple[str, ...] = ("code_url",)
    categories: tuple[str, ...] = ("categories",)
    upvotes: tuple[str, ...] = ("upvotes",)
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def with_overrides(cls, overrides: dict[str, str]) -> FieldMap:
        """Return a map where ``{"text": "body"}`` makes ``body`` the first key tried for text."""
        base = cls()
        kwargs = {}
        for name, key in overrides.items():
            if name not in cls.__dataclass_fields__ or name == "extra":
                known = ", ".join(f for f in cls.__dataclass_fields__ if f != "extra")
                raise ValueError(f"unknown field {name!r} in field mapping; use one of {known}")
            kwargs[name] = (key, *getattr(base, name))
        return cls(**kwargs)


def normalise_space(text: str) -> str:
    """Collapse runs of whitespace into one space and trim."""
    return _SPACE.sub(" ", text).strip()


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def without_controls(text: str) -> str:
    """Return ``text`` with control characters (NUL, ...) as spaces and whitespace collapsed.

    >>> without_controls("a\\x00b \\n c")
    'a b c'
    """
    return normalise_space(_CONTROL.sub(" ", text))


def paper_id_for(text: str) -> str:
    """Return the content id ``sha1:<12 hex>`` of an abstract without a given id.

    Examples
    --------
    >>> paper_id_for("A  b") == paper_id_for("A b")
    True
    >>> paper_id_for("A b").startswith("sha1:")
    True
    """
    digest = hashlib.sha1(normalise_space(text).encode("utf-8")).hexdigest()
    return f"sha1:{digest[:12]}"


def find_code_url(text: str) -> str | None:
    """Return the first GitHub/GitLab repository URL in ``text``, without trailing dots.

    Examples
    --------
    >>> find_code_url("Code is at https://github.com/acme/tool.")
    'https://github.com/acme/tool'
    """
    match = _CODE_URL.search(text)
    return match.group(0).rstrip(".") if match else None


DEFAULT_MAX_CHARS = 100_000
"""The longest abstract read (``--max-chars``); a longer one is skipped, said why."""

Item = Record | Skipped
"""What a reader yields: a record, or the input it skipped and why."""


def text_problem(text: str, max_chars: int) -> str | None:
    """Why an abstract cannot be read (empty, over ``max_chars``), or None."""
    if not text:
        return "empty abstract"
    if len(text) > max_chars:
        return (
            f"abstract has {len(text):,} characters, over the limit of {max_chars:,} (--max-chars)"
        )
    return None
