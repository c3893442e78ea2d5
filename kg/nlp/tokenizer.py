"""Tokenizer adjustments for scientific abstracts, applied when the pipeline is created."""

from __future__ import annotations

from collections.abc import Callable

from spacy.language import Language
from spacy.util import compile_infix_regex, compile_suffix_regex, registry

__all__ = ["make_tokenizer_tweaks"]

EXTRA_SUFFIXES = (
    r"(?<=[A-Za-z0-9]{2}[A-Z])\.",  # "54.3 mIoU. Next" -> "mIoU" "."
    r"(?<=-[0-9][A-Za-z])\.",  # "SORCE-1K." -> "SORCE-1K" "."
    r"(?<=-[0-9]{2}[A-Za-z])\.",  # "Qwen-72B." -> "Qwen-72B" "."
    r"(?<=[0-9])%",  # "3-5%" still ends in "%"
)
EXTRA_INFIXES = (
    r"(?<=[A-Za-z])\((?=[A-Za-z])",  # "pipeline(TableLong)" -> "pipeline" "(" ...
)


_NAME_NUMBER = r"(?<!-[0-9])(?<!-[0-9]{2})(?<!-[0-9]{3})"


def _no_units_in_names(suffix: str) -> str:
    """Keep a unit suffix ("10 K", "5 km") from splitting names: "ImageNet-1K", "COCO-20K"."""
    return _NAME_NUMBER + suffix if suffix.startswith("(?<=[0-9])(?:km") else suffix


@registry.callbacks("kg.tokenizer_tweaks.v1")
def make_tokenizer_tweaks() -> Callable[[Language], Language]:
    """Return a callback that splits a final period off mixed-case names and "(" off words."""

    def tweak(nlp: Language) -> Language:
        suffixes = [_no_units_in_names(s) for s in nlp.Defaults.suffixes or ()]
        suffixes += list(EXTRA_SUFFIXES)
        nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search
        infixes = list(nlp.Defaults.infixes or ()) + list(EXTRA_INFIXES)
        nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
        return nlp

    return tweak
