"""Build kg/nlp/data/vocab.tsv (gazetteer) and head_priors.json from ml_vocab and SciERC.

Usage: python scripts/build_vocab.py [../shared/datasets/ml_vocab/ml_terms.tsv [OUT_DIR]]

The source list (Papers with Code task tables, NLP-progress, NLP-TDMS, SciREX-train names;
CC BY-SA 4.0 / Apache-2.0) is noisy; this keeps names that look like real names and drops
leaderboard column headers, split names and spam. Nothing here looks at the sample corpus.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "kg" / "nlp" / "data" / "vocab.tsv"
DEFAULT_SRC = Path(__file__).resolve().parents[2] / "shared/datasets/ml_vocab/ml_terms.tsv"

_OK_CHARS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 .\-'/&+]*[A-Za-z0-9+]$")
_NAMEISH = re.compile(r"[A-Z].*[A-Z0-9]|[0-9]|[a-z][A-Z]")
_METRIC_STEMS = (
    "accuracy",
    "precision",
    "recall",
    "f1",
    "f-measure",
    "f-score",
    "score",
    "error",
    "rate",
    "auc",
    "bleu",
    "rouge",
    "meteor",
    "cider",
    "spice",
    "map",
    "iou",
    "psnr",
    "ssim",
    "lpips",
    "fid",
    "perplexity",
    "mae",
    "mse",
    "rmse",
    "ndcg",
    "mrr",
    "hits",
    "exact match",
    "latency",
    "throughput",
    "correlation",
    "distance",
    "loss",
    "likelihood",
    "entropy",
    "coefficient",
    "similarity",
    "dice",
    "ap",
    "wer",
    "cer",
    "ece",
    "inception",
    "success",
    "kappa",
    "ratio",
)


def _words(term: str) -> list[str]:
    return term.split()


def keep(kind: str, term: str, sources: set[str]) -> str | None:
    """Return the match mode (``lower`` or ``exact``) for a term worth matching, else None."""
    if not _OK_CHARS.match(term) or "et al" in term or len(term) < 2:
        return None
    n = len(_words(term))
    if kind == "Task":
        if n > 5 or any(ch.isdigit() for ch in term) and n > 3:
            return None
        if n == 1 and not re.search(r"(tion|sion|ing|sis|ment)$", term.lower()):
            return None
        return "lower"
    if kind == "Metric":
        low = term.lower()
        if n > 4 or not any(
            re.search(rf"(^|[^a-z]){re.escape(s)}([^a-z]|$)", low) for s in _METRIC_STEMS
        ):
            return None
        return "exact" if len(term) <= 4 else "lower"
    if kind == "Dataset":
        if sources == {"pwc_benchmark"} or n > 5 or len(term) < 3:
            return None
        if n == 1 and not _NAMEISH.search(term[1:] if term[:1].isupper() else term):
            return None
        if n > 1 and not all(w[:1].isupper() or w[:1].isdigit() for w in _words(term)):
            return None
        return "exact"
    if kind == "Method":
        if n > 4 or len(term) < 3:
            return None
        if n == 1 and not _NAMEISH.search(term):
            return None
        return "exact"
    return None


def main(src: Path, out: Path = OUT) -> None:
    rows: dict[tuple[str, str], tuple[str, str]] = {}
    with open(src, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            kind, term, sources = row["type"], row["term"].strip(), set(row["sources"].split(";"))
            mode = keep(kind, term, sources)
            if mode is None:
                continue
            key = (term.lower() if mode == "lower" else term, mode)
            rows.setdefault(key, (kind, term))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("type\tterm\tmatch\n")
        for (_, mode), (kind, term) in sorted(rows.items(), key=lambda kv: (kv[1][0], kv[1][1])):
            fh.write(f"{kind}\t{term}\t{mode}\n")
    print(f"wrote {len(rows)} terms to {out}")


def build_head_priors(terms: Path, scierc: Path, out: Path) -> None:
    """Write head word -> type counts from SciERC mentions and the ml_vocab names."""
    import json
    from collections import Counter, defaultdict

    counts: dict[str, Counter] = defaultdict(Counter)
    scierc_map = {
        "Method": "Method",
        "Task": "Task",
        "Metric": "Metric",
        "Material": "Dataset",
        "OtherScientificTerm": "O",
        "Generic": "O",
    }
    with open(scierc, encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            tokens = [t for sent in doc["sentences"] for t in sent]
            for sent in doc["ner"]:
                for _, end, label in sent:
                    counts[_head(tokens[end])][scierc_map[label]] += 1
    with open(terms, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            words = row["term"].split()
            if words and len(words) <= 6:
                counts[_head(words[-1])][row["type"]] += 1
    priors = {
        head: dict(c)
        for head, c in sorted(counts.items())
        if sum(c.values()) >= 3 and re.fullmatch(r"[a-z][a-z0-9\-]*", head)
    }
    out.write_text(json.dumps(priors, sort_keys=True), encoding="utf-8")
    print(f"wrote {len(priors)} head priors to {out}")


def _head(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


if __name__ == "__main__":
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SRC
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else OUT.parent
    main(source, target / "vocab.tsv")
    build_head_priors(
        source, source.parents[1] / "scierc" / "train.json", target / "head_priors.json"
    )
