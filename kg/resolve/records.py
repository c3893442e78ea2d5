"""The per-paper output record (one line of ``extractions.jsonl``) with canonical ids."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from kg.resolve.keys import key_type
from kg.resolve.local import LocalEntity
from kg.resolve.resolver import Resolution
from kg.schema import RELATION_ENDS

if TYPE_CHECKING:  # spaCy loads with kg.nlp; resolution does not need it
    from kg.nlp.extraction import PaperExtraction

__all__ = ["paper_record", "relation_evidence", "result_id"]


def result_id(paper_id: str, start: int, value: float) -> str:
    """Return the deterministic key of a result row.

    Examples
    --------
    >>> result_id("p1", 10, 60.2) == result_id("p1", 10, 60.2)
    True
    """
    digest = hashlib.sha1(f"{paper_id}|{start}|{value!r}".encode()).hexdigest()[:16]
    return f"result:{digest}"


def relation_evidence(ex: PaperExtraction, rel, head, tail) -> dict[str, Any]:
    """Return the evidence of one relation read in a paper: the sentence that holds both
    mentions, or the two sentences when they lie in two (``sentences``, joined in
    ``text``, a gap between them marked " … "), with both mentions' offsets in the paper
    (``head_span``, ``tail_span``) and in ``text`` (``head_at``, ``tail_at``)."""
    sentences = sorted({head.sentence, tail.sentence})
    parts, starts = [], {}
    for k, i in enumerate(sentences):
        if k:
            parts.append(" " if i == sentences[0] + 1 else " … ")
        starts[i] = sum(len(p) for p in parts)
        parts.append(ex.sentence_text(i))

    def at(m) -> list[int]:
        shift = starts[m.sentence] - ex.sentences[m.sentence][0]
        return [m.start + shift, m.end + shift]

    return {
        "sentence": rel.sentence,
        "sentences": sentences,
        "text": "".join(parts),
        "head_span": [head.start, head.end],
        "tail_span": [tail.start, tail.end],
        "head_at": at(head),
        "tail_at": at(tail),
        "rule": rel.rule,
        "confidence": rel.confidence,
    }


def paper_record(
    ex: PaperExtraction, locals_: list[LocalEntity], resolution: Resolution
) -> dict[str, Any]:
    """Return the JSON-ready record of one paper: entities, relations, results, evidence.

    An entity takes the type of its canonical key (a curation may retype it); what a
    curation dropped is left out, with the relations it ends and its place in results,
    and so is a relation whose ends no longer have the types it joins."""
    rec = ex.record
    entities, key_of_mention, local_of_mention = _entities(ex, locals_, resolution)
    relations = _relations(ex, key_of_mention)
    results = _results(ex, key_of_mention, local_of_mention)
    return {
        "id": rec.id,
        "title": rec.title,
        "year": rec.year,
        "date": rec.date,
        "authors": list(rec.authors),
        "url": rec.url,
        "code_url": rec.code_url,
        "categories": list(rec.categories),
        "upvotes": rec.upvotes,
        "source": {"file": rec.source, "line": rec.line},
        "text": rec.text,
        "sentences": [list(s) for s in ex.sentences],
        "entities": entities,
        "relations": relations,
        "results": results,
    }


def _entities(ex: PaperExtraction, locals_: list[LocalEntity], resolution: Resolution):
    """The paper's entities by canonical key (two local entities of one key merged), and
    each kept mention's canonical key and local entity."""
    key_of_mention: dict[int, str] = {}
    local_of_mention: dict[int, LocalEntity] = {}
    entities: dict[str, dict[str, Any]] = {}
    for ent in locals_:
        key = resolution.key_for(ent)
        if key is None:
            continue
        for i in ent.mentions:
            key_of_mention[i] = key
            local_of_mention[i] = ent
        mentions = [
            {
                "text": m.text,
                "start": m.start,
                "end": m.end,
                "sentence": m.sentence,
                "rule": m.rule,
                "confidence": m.confidence,
            }
            for m in (ex.mentions[i] for i in ent.mentions)
        ]
        benchmark = ent.benchmark if key_type(key) == "Dataset" else False
        if key in entities:  # two local entities of this paper resolve to one: merge them
            item = entities[key]
            aliases = dict.fromkeys([*item["aliases"], ent.name, *ent.aliases])
            aliases.pop(item["name"], None)
            item["aliases"] = list(aliases)
            item["proposed"] = item["proposed"] or ent.proposed
            item["benchmark"] = item["benchmark"] or benchmark
            item["mentions"] = sorted([*item["mentions"], *mentions], key=lambda m: m["start"])
            continue
        entities[key] = {
            "id": key,
            "type": key_type(key),
            "name": ent.name,
            "aliases": list(ent.aliases),
            "proposed": ent.proposed,
            "benchmark": benchmark,
            "mentions": mentions,
        }
    return list(entities.values()), key_of_mention, local_of_mention


def _relations(ex: PaperExtraction, key_of_mention: dict[int, str]) -> list[dict[str, Any]]:
    """The paper's relations between canonical entities, one per (head, type, tail) with
    the evidence of each mention pair."""
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    for rel in ex.relations:
        head, tail = key_of_mention.get(rel.head), key_of_mention.get(rel.tail)
        if head is None or tail is None or head == tail:
            continue
        heads, tails = RELATION_ENDS[rel.type]
        if key_type(head) not in heads or key_type(tail) not in tails:
            continue  # a curation retyped an end
        h, t = ex.mentions[rel.head], ex.mentions[rel.tail]
        item = relations.setdefault(
            (head, rel.type, tail),
            {
                "head": head,
                "type": rel.type,
                "tail": tail,
                "confidence": 0.0,
                "evidence": [],
            },
        )
        item["confidence"] = max(item["confidence"], rel.confidence)
        item["evidence"].append(relation_evidence(ex, rel, h, t))
    return list(relations.values())


def _results(ex: PaperExtraction, key_of_mention: dict[int, str],
             local_of_mention: dict[int, LocalEntity]) -> list[dict[str, Any]]:  # fmt: skip
    """The paper's results, each with the canonical entities it names."""
    rec = ex.record
    results = []
    for res in ex.results:

        def ref(i: int | None, type_: str) -> tuple[str | None, str | None]:
            if i is None or i not in key_of_mention or key_type(key_of_mention[i]) != type_:
                return None, None
            return key_of_mention[i], local_of_mention[i].name

        method_id, method = ref(res.method, "Method")
        dataset_id, dataset = ref(res.dataset, "Dataset")
        task_id, task = ref(res.task, "Task")
        metric_id, metric_name = ref(res.metric_mention, "Metric")
        results.append(
            {
                "id": result_id(rec.id, res.start, res.value),
                "value": res.value,
                "unit": res.unit,
                "delta": res.delta,
                "own": res.own if method_id else None,
                "change": res.change,
                "metric": metric_name or res.metric,
                "metric_id": metric_id,
                "method": method,
                "method_id": method_id,
                "dataset": dataset,
                "dataset_id": dataset_id,
                "task": task,
                "task_id": task_id,
                "condition": res.condition,
                "confidence": res.confidence,
                "evidence": {
                    "sentence": res.sentence,
                    "text": ex.sentence_text(res.sentence),
                    "start": res.start,
                    "end": res.end,
                    "rule": res.rule,
                    **_result_spans(ex, res, (method_id, dataset_id, metric_id)),
                },
            }
        )
    return results


def _result_spans(ex, res, ids: tuple[str | None, ...]) -> dict[str, list[int]]:
    """Where a result's method, data set and metric mentions are in the paper (those it
    kept): ``method_span``, ``dataset_span``, ``metric_span``."""
    out = {}
    for field, index, kept in zip(("method_span", "dataset_span", "metric_span"),
                                  (res.method, res.dataset, res.metric_mention), ids,
                                  strict=True):  # fmt: skip
        if index is not None and kept is not None:
            out[field] = [ex.mentions[index].start, ex.mentions[index].end]
    return out
