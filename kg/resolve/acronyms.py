"""What acronyms stand for across the shared corpus: two acronyms that papers spell out
the same way name one thing ("AUROC" and "ROC-AUC": area under the receiver operating
characteristic curve), even where no paper of a build defines them.

The table (``kg/resolve/data/acronyms.tsv``) is made by ``scripts/learn_acronyms.py`` from
the definitions ("long form (SHORT)") in the 71,908 abstracts of the shared corpus; no
row is written by hand.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from kg.resolve.keys import entity_key, key_type, slug
from kg.resolve.matching import compact_key, is_acronym
from kg.resolve.merges import MERGE_PAPERS

__all__ = [
    "acronym_claims",
    "acronym_slugs",
    "conventional_long_forms",
    "LONG_FORM_SHARE",
    "MIN_DEFINITIONS",
    "MIN_LETTERS",
    "expand_long_form",
    "long_form_key",
    "majority_long_forms",
    "spells_key",
    "shipped_long_forms",
    "spelled_out",
    "spelled_out_pairs",
    "twin_acronyms",
]

LONG_FORM_SHARE = 0.5
"""More than this share of an acronym's definitions must give one long form before the
acronym is taken to stand for it (two acronyms must also agree: two signals)."""

MIN_DEFINITIONS = 2
"""The fewest definitions that must give the long form."""

MIN_LETTERS = 3
"""Acronyms shorter than this (ID, RM, MU) stand for too many things to be joined."""

LongForms = dict[str, tuple[str, int, int]]
"""Acronym -> (long form key, definitions giving it, all its definitions)."""

_ARTICLES = frozenset({"a", "an", "the"})


def long_form_key(text: str) -> str:
    """Return the comparison form of a long form: lower case, words without hyphens,
    articles and punctuation.

    >>> long_form_key("Area Under the Receiver-Operating Characteristic curve")
    'area under receiver operating characteristic curve'
    >>> long_form_key("Fréchet Inception Distance")
    'frechet inception distance'
    """
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(ch)
    )
    words = re.split(r"[\s\-/]+", re.sub(r"[^\w\s\-/&]", "", text))
    return " ".join(w for w in words if w and w not in _ARTICLES)


def expand_long_form(key: str, long_forms: LongForms) -> str:
    """Spell out the acronyms inside a long form key by their own long forms.

    >>> expand_long_form("area under roc curve",
    ...                  {"ROC": ("receiver operating characteristic", 9, 10)})
    'area under receiver operating characteristic curve'
    """
    lower = {short.lower(): long for short, (long, _, _) in long_forms.items()}
    return " ".join(lower.get(w, w) for w in key.split())


def majority_long_forms(
    definitions: dict[str, Counter],
    *,
    min_definitions: int = MIN_DEFINITIONS,
    share: float = LONG_FORM_SHARE,
) -> LongForms:
    """Return each acronym's long form where more than ``share`` of its definitions (and
    at least ``min_definitions``) give it, after the acronyms inside long forms are spelled
    out by a first pass ("area under the ROC curve").

    >>> majority_long_forms({"AUROC": Counter({"area under roc curve": 2,
    ...                                        "area under receiver operating "
    ...                                        "characteristic curve": 1}),
    ...                      "ROC": Counter({"receiver operating characteristic": 3})})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'AUROC': ('area under receiver operating characteristic curve', 3, 3),
     'ROC': ('receiver operating characteristic', 3, 3)}
    """

    def majority(counts: dict[str, Counter]) -> LongForms:
        out = {}
        for short, counter in counts.items():
            if not counter:
                continue
            total = sum(counter.values())
            long, n = max(counter.items(), key=lambda kv: (kv[1], kv[0]))
            if n >= min_definitions and n / total > share:
                out[short] = (long, n, total)
        return out

    first = majority(definitions)
    expanded = {}
    for short, counter in definitions.items():
        again: Counter = Counter()
        for long, n in counter.items():
            again[expand_long_form(long, {s: v for s, v in first.items() if s != short})] += n
        expanded[short] = again
    return dict(sorted(majority(expanded).items()))


@lru_cache(maxsize=1)
def shipped_long_forms() -> LongForms:
    """The long forms of the acronyms the shared corpus defines
    (``kg/resolve/data/acronyms.tsv``, made by scripts/learn_acronyms.py)."""
    path = Path(__file__).with_name("data") / "acronyms.tsv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            r["acronym"]: (r["long_form"], int(r["definitions"]), int(r["all_definitions"]))
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")
        }


def _by_slug(long_forms: LongForms, min_letters: int = 0) -> LongForms:
    """``long_forms`` by the acronym's slug (where spellings share one, the one more
    definitions give wins), acronyms of fewer than ``min_letters`` letters and digits left
    out."""
    out: LongForms = {}
    for short, (long, n, total) in long_forms.items():
        if sum(ch.isalnum() for ch in short) >= min_letters:
            held = out.get(slug(short))
            if held is None or n > held[1]:
                out[slug(short)] = (long, n, total)
    return out


def twin_acronyms(keys: Iterable[str], long_forms: LongForms) -> list[tuple[str, list[str]]]:
    """Group entity keys (``type:slug``) whose names are acronyms standing for one long form.

    Returns ``(long form, [key, ...])`` for each type and long form that two keys or more
    share ("multi modal" and "multimodal" spell one long form). An acronym is matched by
    its slug (where spellings share one, the one more definitions give wins); acronyms of
    fewer than :data:`MIN_LETTERS` letters and digits are left out.

    >>> forms = {"AUROC": ("area under roc", 8, 9), "ROC-AUC": ("area under roc", 3, 3)}
    >>> twin_acronyms(["metric:auroc", "metric:roc-auc", "task:auroc"], forms)
    [('area under roc', ['metric:auroc', 'metric:roc-auc'])]
    """
    by_slug = _by_slug(long_forms, MIN_LETTERS)
    groups: dict[tuple[str, str], set[str]] = {}
    for key in keys:
        type_, _, name = key.partition(":")
        if name in by_slug:
            groups.setdefault((type_, by_slug[name][0].replace(" ", "")), set()).add(key)
    twins = [sorted(members) for members in groups.values() if len(members) > 1]
    return [(by_slug[m[0].partition(":")[2]][0], m) for m in sorted(twins)]


def acronym_slugs(long_forms: LongForms) -> list[str]:
    """The slugs of the acronyms in ``long_forms`` that :func:`twin_acronyms` may join."""
    return sorted({slug(s) for s in long_forms if sum(ch.isalnum() for ch in s) >= MIN_LETTERS})


def conventional_long_forms(long_forms: LongForms, share: float) -> dict[str, str]:
    """Return ``{acronym slug: long form}`` for the acronyms that at least ``share`` of
    their definitions spell out one way: what a reader is expected to know an acronym a
    paper leaves undefined to mean (where spellings share a slug, the one more definitions
    give wins).

    >>> conventional_long_forms({"PSNR": ("peak signal to noise ratio", 55, 56),
    ...                          "PD": ("parkinsons disease", 22, 30)}, 0.75)
    {'psnr': 'peak signal to noise ratio'}
    """
    return {
        key: long
        for key, (long, n, total) in sorted(_by_slug(long_forms).items())
        if n >= share * total
    }


def spelled_out(name: str, conventional: dict[str, str]) -> str | None:
    """Return ``name`` with each acronym inside it spelled out the way the corpus does
    (``conventional``, from :func:`conventional_long_forms`), or None when it holds none;
    a name that is one acronym is left to the acronym rule.

    >>> spelled_out("multimodal LLMs", {"llm": "large language models"})
    'multimodal large language models'
    >>> spelled_out("LLM", {"llm": "large language models"}) is None
    True
    """
    parts = re.split(r"([\s\-]+)", name)
    if len(parts) < 3:
        return None
    out = [conventional.get(slug(p), p) if is_acronym(p) else p for p in parts]
    return "".join(out) if out != parts else None


def spells_key(long_form: str | None, key: str) -> bool:
    """Whether ``long_form`` spells out ``key``: the key it gives in ``key``'s type is the
    same once separators and articles go."""
    return long_form is not None and compact_key(entity_key(key_type(key), long_form)) == (
        compact_key(key)
    )


def spelled_out_pairs(con, names: str, conventional: dict[str, str]) -> list[tuple[str, str]]:
    """``(key, other key)`` for each name of several words with an acronym in it whose
    spelled-out form (:func:`spelled_out`) is another key of its type, equal once
    separators and articles go; ``names`` is a DuckDB table of (raw_key, name), the keys
    in ``kg_keys``. The names stream through; only those with an acronym are held."""
    from kg.util.tables import iter_rows

    rows = iter_rows(
        con,
        f"SELECT raw_key, name FROM {names} WHERE contains(raw_key, '-') "
        "AND NOT contains(raw_key, '~') ORDER BY raw_key",
    )
    wanted = {}
    for key, name in rows:
        long = spelled_out(name, conventional)
        if long is not None:
            wanted[key] = compact_key(entity_key(key_type(key), long))
    if not wanted:
        return []
    found = dict(con.execute(
        "SELECT kg_compact(raw_key), min(raw_key) FROM kg_keys WHERE kg_compact(raw_key) IN "
        "(SELECT unnest(?)) GROUP BY ALL", [sorted(set(wanted.values()))],
    ).fetchall())  # fmt: skip
    return [(key, found[c]) for key, c in sorted(wanted.items()) if found.get(c, key) != key]


Claims = dict[str, list[tuple[int, str, list[str], str]]]
"""Each acronym's key -> (papers, long-form key, some of those papers, the acronym as
written) for every long form that papers define it as."""


def acronym_claims(con, table: str, share: float) -> tuple[Claims, list[tuple]]:
    """Return what the papers of DuckDB relation ``table`` define each acronym as, and the
    joins it suggests: (acronym key, long-form key, acronym, papers defining it so, papers
    defining it at all, some of the first) where one long form holds at least ``share`` of
    the definitions. Needs the ``kg_acronym`` and ``kg_spells`` functions on ``con``."""
    rows = con.execute(
        f"SELECT type, alias, raw_key, count(DISTINCT paper) AS n, "
        f"list(DISTINCT paper ORDER BY paper)[1:{MERGE_PAPERS}] FROM "
        f"(SELECT type, unnest(aliases) AS alias, raw_key, name, paper FROM {table}) "
        "WHERE kg_acronym(alias) AND NOT kg_acronym(name) AND kg_spells(alias, name) "
        "GROUP BY type, alias, raw_key ORDER BY type, alias, n DESC, raw_key"
    ).fetchall()
    claims_of: Claims = {}
    for type_, short, long_key, n, papers in rows:  # "SFT" and "SfT" claim one key
        claims_of.setdefault(entity_key(type_, short), []).append((n, long_key, papers, short))
    joins = []
    for short_key, claims in sorted(claims_of.items()):
        # long form (spellings alike once separators and articles go: one long form) ->
        # [papers defining it, some of them, short, its key most papers use]
        by_long: dict[str, list] = {}
        for n, long_key, papers, short in claims:  # most papers first
            held = by_long.setdefault(compact_key(long_key), [0, set(), short, long_key])
            held[0] += n
            held[1].update(papers)
        total = sum(held[0] for held in by_long.values())
        _, (n, papers, short, long_key) = max(by_long.items(), key=lambda kv: (kv[1][0], kv[0]))
        if n / total >= share:
            papers = tuple(sorted(papers)[:MERGE_PAPERS])
            joins.append((short_key, long_key, short, n, total, papers))
    return claims_of, joins
