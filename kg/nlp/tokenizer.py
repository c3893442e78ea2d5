"""Tokenizer adjustments for scientific abstracts, applied when the pipeline is created."""

from __future__ import annotations

from collections.abc import Callable

from spacy.language import Language
from spacy.util import compile_infix_regex, compile_suffix_regex, registry

__all__ = ["make_tokenizer_tweaks"]

EXTRA_SUFFIXES = (
    r"(?<=[A-Za-z0-9]{2}[A-Z])\.",  # "54.3 mIoU. Next" -> "mIoU" "."
)
EXTRA_INFIXES = (
    r"(?<=[A-Za-z])\((?=[A-Za-z])",  # "pipeline(TableLong)" -> "pipeline" "(" ...
)


@registry.callbacks("kg.tokenizer_tweaks.v1")
def make_tokenizer_tweaks() -> Callable[[Language], Language]:
    """Return a callback that splits a final period off mixed-case names and "(" off words."""

    def tweak(nlp: Language) -> Language:
        suffixes = list(nlp.Defaults.suffixes or ()) + list(EXTRA_SUFFIXES)
        nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search
        infixes = list(nlp.Defaults.infixes or ()) + list(EXTRA_INFIXES)
        nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
        return nlp

    return tweak
