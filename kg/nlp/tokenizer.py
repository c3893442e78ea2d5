"""Tokenizer adjustments for scientific abstracts, applied when the pipeline is created."""

from __future__ import annotations

from collections.abc import Callable

from spacy.language import Language
from spacy.util import compile_suffix_regex, registry

__all__ = ["make_tokenizer_tweaks"]

EXTRA_SUFFIXES = (
    r"(?<=[A-Za-z0-9]{2}[A-Z])\.",  # "54.3 mIoU. Next" -> "mIoU" "."
)


@registry.callbacks("kg.tokenizer_tweaks.v1")
def make_tokenizer_tweaks() -> Callable[[Language], Language]:
    """Return a callback that splits a sentence-final period off mixed-case names."""

    def tweak(nlp: Language) -> Language:
        suffixes = list(nlp.Defaults.suffixes or ()) + list(EXTRA_SUFFIXES)
        nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search
        return nlp

    return tweak
