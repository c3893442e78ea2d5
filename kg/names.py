"""Name normalisation and deterministic keys (``method:low-rank-adaptation``): shared by
every stage, so extraction and scoring need not import resolution."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["normalise_name", "key_name", "entity_key", "key_type", "slug"]

_DROP = re.compile(r"[^\w\s.%+]")
_SPACES = re.compile(r"\s+")


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def normalise_name(name: str) -> str:
    """Return the comparison form of a name (the gold scoring rules' normalisation).

    NFKC, lower case, ``-``/``_``/``/`` become spaces, other punctuation except ``.``,
    ``%`` and ``+`` is dropped, and a trailing ``s`` is cut from words longer than three
    letters (not ``ss``).

    Examples
    --------
    >>> normalise_name("Vision-Language Models")
    'vision language model'
    >>> normalise_name("LLMs"), normalise_name("loss")
    ('llm', 'loss')
    """
    text = unicodedata.normalize("NFKC", name).lower()
    text = re.sub(r"[-_/]", " ", text)
    text = _DROP.sub("", text)
    words = [_singular(w) for w in _SPACES.split(text.strip()) if w]
    return " ".join(words)


_KEEP_S = ("ss", "us", "is")
"""Endings whose ``s`` is no plural (``autonomous``, ``analysis``): keys keep those words."""


def _key_word(word: str) -> str:
    """Return one word of a key: a plural ``s`` cut (``LLMs``, ``models``), nothing more.

    An ``s`` in capitals is part of the name (``LPIPS``), and so is one after a digit
    (``YOLOv8s``) or ending ``ss``, ``us`` or ``is`` (``autonomous``, ``analysis``).
    """
    if len(word) > 3 and word.endswith("s") and not word.endswith(_KEEP_S):
        if not word[-2].isdigit():
            return word[:-1]
    return word


def key_name(name: str) -> str:
    """Return the form of a name that its key is made from: whole words, lower case.

    Like :func:`normalise_name`, but a plural ``s`` is cut only where it is one.

    Examples
    --------
    >>> key_name("Autonomous Driving"), key_name("LPIPS"), key_name("VLMs")
    ('autonomous driving', 'lpips', 'vlm')
    """
    text = unicodedata.normalize("NFKC", name)
    text = re.sub(r"[-_/]", " ", text)
    text = _DROP.sub("", text)
    return " ".join(_key_word(w).lower() for w in _SPACES.split(text.strip()) if w)


def slug(name: str) -> str:
    """Return the URL- and key-safe form of a name (whole words, see :func:`key_name`).

    Examples
    --------
    >>> slug("Low-Rank Adaptation")
    'low-rank-adaptation'
    >>> slug("mAP@0.5")
    'map0.5'
    >>> slug("Autonomous Driving")
    'autonomous-driving'
    """
    text = key_name(name)
    text = re.sub(r"[^a-z0-9.+%]+", "-", text.replace("%", "pct").replace("+", "plus"))
    ascii_text = re.sub(r"[^\x00-\x7f]", "", text).strip("-.")
    if ascii_text != text.strip("-.") or not ascii_text:  # keep non-ASCII names distinct
        digest = hashlib.sha1(key_name(name).encode("utf-8")).hexdigest()[:8]
        return f"{ascii_text}-{digest}" if ascii_text else digest
    return ascii_text


def entity_key(type_: str, name: str) -> str:
    """Return the deterministic key of an entity.

    Examples
    --------
    >>> entity_key("Method", "Low-Rank Adaptation")
    'method:low-rank-adaptation'
    """
    return f"{type_.lower()}:{slug(name)}"


_TYPES = {"method": "Method", "task": "Task", "dataset": "Dataset", "metric": "Metric"}


def key_type(key: str) -> str:
    """Return the entity type a key names.

    >>> key_type("dataset:imagenet")
    'Dataset'
    """
    return _TYPES[key.split(":", 1)[0]]
