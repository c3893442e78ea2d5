"""Length-preserving clean-up of abstract text before parsing (LaTeX markup, math dollars)."""

from __future__ import annotations

import re

__all__ = ["clean_text"]

_WRAPPERS = re.compile(
    r"\\(?:textbf|textit|emph|texttt|underline|textsc|text|mathbf|mathrm|mathit|mathcal|"
    r"textrm|textsf|mathsf|boldsymbol|bm)\{([^{}]*)\}"
)
_TIMES = re.compile(r"\$?\s?\\times\s?\$?")
_ESCAPED = re.compile(r"\\([%&_#])")
_DROP_CMD = re.compile(r"\\(?:cite[pt]?|ref|href|url|footnote)\{[^{}]*\}")


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def clean_text(text: str) -> str:
    """Return ``text`` with LaTeX markup blanked out; offsets stay valid (same length).

    Examples
    --------
    >>> clean_text(r"a \\textbf{bold} 11\\% gain, 4.6$\\times$ faster")
    'a         bold  11 % gain, 4.6x        faster'
    >>> len(clean_text(r"\\emph{x}")) == len(r"\\emph{x}")
    True
    """
    out = _WRAPPERS.sub(lambda m: " " * (m.start(1) - m.start(0)) + m.group(1) + " ", text)
    out = _DROP_CMD.sub(_blank, out)
    out = _TIMES.sub(lambda m: "x" + " " * (len(m.group(0)) - 1), out)
    out = _ESCAPED.sub(lambda m: " " + m.group(1), out)
    out = out.replace("$", " ").replace("~", " ")
    assert len(out) == len(text)
    return out
