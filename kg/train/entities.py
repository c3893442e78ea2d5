"""The training data and the entity candidate examples the training scripts share: the gold
papers, their abstracts from the shared corpus, the pipeline a model is trained for."""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from thinc.api import Config

from kg.nlp.pipeline import PIPELINES, pipeline_config
from kg.nlp.text import clean_text
from kg.resolve.keys import normalise_name
from kg.schema import ENTITY_TYPES

ROOT = Path(__file__).resolve().parents[2]  # the checkout kg runs from


SHARED = ROOT.parent / "shared"


CLASSES = ["O", *ENTITY_TYPES]


TRAINING = [SHARED / "gold/train.jsonl", SHARED / "gold/silver/train.jsonl"]


def load_records(path: Path, ids: set[str]) -> dict[str, dict]:
    """Return the corpus records (arXiv metadata) whose ``id`` is in ``ids``."""
    out = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["id"] in ids:
                out[rec["id"]] = rec
    return out


def load_abstracts(path: Path, ids: set[str]) -> dict[str, str]:
    """Return the abstract text of each corpus record whose ``id`` is in ``ids``."""
    return {key: rec["abstract"] for key, rec in load_records(path, ids).items()}


def examples(
    nlp, gold: list[dict], texts: dict[str, str], unprojected: list[dict] | None = None
) -> list[tuple[list[str], str]]:
    """Return ``(features, label)`` for every candidate span of the gold papers' texts."""
    return [x for paper in examples_by_paper(nlp, gold, texts, unprojected) for x in paper]


def examples_by_paper(
    nlp, gold: list[dict], texts: dict[str, str], unprojected: list[dict] | None = None
) -> list[list[tuple[list[str], str]]]:
    """Return the candidate examples of each gold paper (an empty list for a paper whose
    text is missing), in the order of ``gold``. With ``unprojected``, append to it each
    gold entity that no candidate span matches (the classifier cannot learn it), saying
    whether its name is in the text at all."""
    recognizer = nlp.get_pipe("kg_entities")
    known = [g for g in gold if g["id"] in texts]
    docs = nlp.pipe((clean_text(texts[g["id"]]) for g in known), batch_size=64)
    by_id: dict[str, list[tuple[list[str], str]]] = {}
    for g, doc in zip(known, docs, strict=True):
        labels = {}
        for ent in g["entities"]:
            for form in [ent["name"], *ent.get("aliases", [])]:
                labels.setdefault(normalise_name(form), ent["type"])
        spans = recognizer.featurised_spans(doc)
        by_id[g["id"]] = [
            (feats, labels.get(normalise_name(span.text), "O")) for span, _, feats in spans
        ]
        if unprojected is not None:
            found = {normalise_name(span.text) for span, _, _ in spans}
            text = doc.text.lower()
            for ent in g["entities"]:
                forms = [ent["name"], *ent.get("aliases", [])]
                if not any(normalise_name(f) in found for f in forms):
                    in_text = any(f.lower() in text for f in forms)
                    unprojected.append({"paper": g["id"], "type": ent["type"],
                                        "name": ent["name"], "in_text": in_text})  # fmt: skip
    if unprojected is not None:
        unprojected += [{"paper": g["id"], "type": ent["type"], "name": ent["name"],
                         "in_text": False} for g in gold if g["id"] not in texts
                        for ent in g["entities"]]  # fmt: skip
    return [by_id.get(g["id"], []) for g in gold]


def projection_report(gold: list[dict], unprojected: list[dict]) -> dict:
    """Return how many gold entities (per type) no candidate span matched, split into
    those whose name is not in the cleaned text and those the candidate rules missed."""
    total = Counter(ent["type"] for g in gold for ent in g["entities"])
    missed = Counter(row["type"] for row in unprojected)
    absent = Counter(row["type"] for row in unprojected if not row["in_text"])
    return {
        "entities": sum(total.values()),
        "unprojected": len(unprojected),
        "not_in_text": sum(absent.values()),
        "by_type": {
            t: {"entities": total[t], "unprojected": missed[t], "not_in_text": absent[t]}
            for t in sorted(total)
        },  # fmt: skip
        "examples": unprojected[:200],
    }


def add_training_inputs(parser: argparse.ArgumentParser) -> None:
    """Add the --gold and --abstracts options every training script reads."""
    parser.add_argument(
        "--gold",
        type=Path,
        action="append",
        help="annotated papers (JSONL; repeatable; default: gold/train.jsonl "
        "and gold/silver/train.jsonl, the 1,340 training abstracts)",
    )
    parser.add_argument("--abstracts", type=Path, default=SHARED / "corpora/ml_abstracts.jsonl.gz",
                        help="the corpus holding the annotated papers' abstracts")  # fmt: skip


def add_pipeline_inputs(parser: argparse.ArgumentParser) -> None:
    """Add the --pipeline and --set options: which shipped pipeline's config, changed how."""
    parser.add_argument("--pipeline", choices=sorted(PIPELINES), default="fast",
                        help="the shipped pipeline whose config to train or measure")  # fmt: skip
    parser.add_argument("--set", dest="settings", type=parse_setting, action="append",
                        default=[], metavar="KEY=VALUE", help="a pipeline setting, in spaCy's "
                        "dotted form (components.kg_tagger.outputs=FILE)")  # fmt: skip


def parse_setting(text: str) -> tuple[str, object]:
    """Return ``(dotted key, value)`` from ``KEY=VALUE``; the value is read as JSON if it
    parses, else kept as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def run_config(pipeline: str, settings: dict[str, object] | None = None) -> Config:
    """Return the shipped pipeline's config with ``settings`` (spaCy's dotted keys) applied."""
    path = pipeline_config(pipeline)
    return Config().from_disk(path, interpolate=False, overrides=settings or {})


def shipped_file(pipeline: str, component: str, default: str) -> Path:
    """Return the file in kg/nlp/data that ``pipeline`` loads ``component``'s classifier
    from: its config's ``shipped`` setting, else ``default``."""
    classifier = run_config(pipeline)["components"][component]["classifier"]
    return pipeline_config(pipeline).parent / classifier.get("shipped", default)


def read_gold(paths: list[Path]) -> list[dict]:
    """Return the annotated papers of all ``paths`` (JSONL), in order."""
    return [json.loads(line) for path in paths for line in path.open(encoding="utf-8")]
