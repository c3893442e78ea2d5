"""The per-paper output record (one line of ``extractions.jsonl``) with canonical ids."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from kg.resolve.resolver import LocalEntity, Resolution

if TYPE_CHECKING:  # spaCy loads with kg.nlp; resolution does not need it
    from kg.nlp.extraction import PaperExtraction

__all__ = ["paper_record", "result_id"]


def result_id(paper_id: str, start: int, value: float) -> str:
    """Return the deterministic key of a result row.

    Examples
    --------
    >>> result_id("p1", 10, 60.2) == result_id("p1", 10, 60.2)
    True
    """
    digest = hashlib.sha1(f"{paper_id}|{start}|{value!r}".encode()).hexdigest()[:16]
    return f"result:{digest}"


def paper_record(
    ex: PaperExtraction, locals_: list[LocalEntity], resolution: Resolution
) -> dict[str, Any]:
    """Return the JSON-ready record of one paper: entities, relations, results, evidence."""
    rec = ex.record
    key_of_mention: dict[int, str] = {}
    local_of_mention: dict[int, LocalEntity] = {}
    entities: dict[str, dict[str, Any]] = {}
    for ent in locals_:
        key = resolution.key_for(ent)
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
        benchmark = ent.benchmark if ent.type == "Dataset" else False
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
            "type": ent.type,
            "name": ent.name,
            "aliases": list(ent.aliases),
            "proposed": ent.proposed,
            "benchmark": benchmark,
            "mentions": mentions,
        }
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    for rel in ex.relations:
        head, tail = key_of_mention[rel.head], key_of_mention[rel.tail]
        if head == tail:
            continue
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
        item["evidence"].append(
            {
                "sentence": rel.sentence,
                "text": ex.sentence_text(rel.sentence),
                "head_span": [h.start, h.end],
                "tail_span": [t.start, t.end],
                "rule": rel.rule,
                "confidence": rel.confidence,
            }
        )
    results = []
    for res in ex.results:

        def ref(i: int | None) -> tuple[str | None, str | None]:
            if i is None or i not in key_of_mention:
                return None, None
            return key_of_mention[i], local_of_mention[i].name

        method_id, method = ref(res.method)
        dataset_id, dataset = ref(res.dataset)
        task_id, task = ref(res.task)
        metric_id, metric_name = ref(res.metric_mention)
        results.append(
            {
                "id": result_id(rec.id, res.start, res.value),
                "value": res.value,
                "unit": res.unit,
                "delta": res.delta,
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
                },
            }
        )
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
        "entities": list(entities.values()),
        "relations": list(relations.values()),
        "results": results,
    }
