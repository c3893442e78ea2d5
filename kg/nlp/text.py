"""Abstract text as the pipeline reads it: LaTeX markup removed, with a map back to the
characters of the original (so every offset kg reports points into the text as given)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["CleanText", "clean_text", "clean_text_map"]

# commands whose braced argument is kept as plain text
_WRAPPERS = frozenset(
    "textbf textit emph texttt underline textsc text mathbf mathrm mathit mathcal textrm "
    "textsf mathsf boldsymbol bm mathbb mathtt textnormal operatorname mbox hbox".split()
)
# commands dropped with their braced argument
_DROPPED = frozenset("cite citep citet ref eqref url footnote label".split())
# commands written as a word or sign
_SYMBOLS = {
    "times": "x", "ell": "ℓ", "cdot": "·", "approx": "≈", "sim": "~", "pm": "±",
    "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "infty": "∞", "rightarrow": "→",
    "to": "→", "ldots": "...", "dots": "...", "cdots": "...", "alpha": "α", "beta": "β",
    "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "theta": "θ",
    "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Delta": "Δ", "Omega": "Ω",
    "ae": "æ", "o": "ø", "ss": "ß", "i": "ı",
}  # fmt: skip
# accent commands and the combining mark each puts on the next letter
_ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
            "H": "\u030b", "r": "\u030a"}  # fmt: skip
_ESCAPED = frozenset("%&_#${} ,;")
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_ACCENTED = re.compile(r"\s*\{?([A-Za-z])\}?")


@dataclass(frozen=True)
class CleanText:
    """Cleaned text and, for each of its characters, the offset it came from."""

    text: str
    origin: list[int]
    original_length: int

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Return the original ``(start, end)`` of the cleaned characters ``[start, end)``.

        >>> c = clean_text_map(r"the \\textbf{Fast} net")
        >>> c.text, c.span(4, 8)
        ('the Fast net', (12, 16))
        """
        if end <= start:
            at = self.origin[start] if start < len(self.origin) else self.original_length
            return at, at
        return self.origin[start], self.origin[end - 1] + 1


def clean_text_map(text: str) -> CleanText:
    """Return ``text`` with LaTeX markup removed and the origin of every kept character.

    Wrappers (``\\textbf{x}``) keep their argument, citations and URLs go, ``\\times``
    becomes ``x``, accents compose (``Fr\\'echet`` -> ``Fréchet``), escapes lose their
    backslash, math dollars, stray braces and subscript marks go and ``~`` is a space; a
    brace group glued to a word stays in it (``\\texttt{D}ual`` -> ``Dual``). Text without
    a backslash, a dollar, a brace or a tilde is returned as it is.

    Examples
    --------
    >>> clean_text(r"a \\textbf{bold} 11\\% gain, 4.6$\\times$ faster")
    'a bold 11% gain, 4.6x faster'
    >>> clean_text(r"\\texttt{D}ual-\\texttt{H}ead and Fr\\'echet, $\\ell_2$ loss~\\cite{x}.")
    'Dual-Head and Fréchet, ℓ2 loss .'
    """
    if not any(c in text for c in "\\${}~"):
        return CleanText(text, list(range(len(text))), len(text))
    out: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    math = False

    def emit(chars: str, at: int) -> None:
        out.extend(chars)
        origin.extend([at] * len(chars))

    while i < n:
        c = text[i]
        if c == "\\":
            m = _COMMAND.match(text, i)
            if m is None:  # a lone backslash at the end
                i += 1
                continue
            name, after = m.group(1), m.end()
            if name in _ACCENTS and (acc := _ACCENTED.match(text, after)):
                emit(unicodedata.normalize("NFC", acc.group(1) + _ACCENTS[name]), i)
                i = acc.end()
            elif name in _DROPPED or name == "href":  # \href{url}{text} keeps its text
                i = _skip_group(text, after)
            elif name in _SYMBOLS:
                emit(_SYMBOLS[name], i)
                i = after
            elif name in _ESCAPED:
                emit(name if name not in " ,;" else " ", i)
                i = after
            elif name == "\\":
                emit(" ", i)
                i = after
            else:  # a wrapper or an unknown command: drop the name, keep what follows
                i = after
                if name not in _WRAPPERS and name.isalpha() and text[i : i + 1] == " ":
                    i += 1  # "\mname is" -> "is": a macro's trailing space is not text
        elif c == "$":
            math = not math
            i += 1
        elif c in "{}" or (math and c == "_"):
            i += 1
        elif c == "~":
            emit(" ", i)
            i += 1
        else:
            emit(c, i)
            i += 1
    return CleanText("".join(out), origin, n)


def clean_text(text: str) -> str:
    """Return the text the pipeline reads (:func:`clean_text_map` without the map)."""
    return clean_text_map(text).text


def _skip_group(text: str, i: int) -> int:
    """Return the index after the brace group starting at ``i`` (or ``i`` if none)."""
    j = i
    while j < len(text) and text[j] == " ":
        j += 1
    if j >= len(text) or text[j] != "{":
        return i
    depth = 0
    for k in range(j, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return k + 1
    return len(text)
