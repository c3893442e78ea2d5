"""Train word clusters on the unlabelled corpus (kg/nlp/data/word_clusters.tsv).

Usage: python scripts/train_clusters.py [--abstracts FILE] [--exclude GOLD ...] [--out FILE]

The entity classifier's words are sparse: a head word seen once in the 1,340 training
abstracts says little about its type. Word vectors learnt from the 71,908 unlabelled
abstracts put words used alike near each other ("segmentation" by "detection"), and
clusters of those vectors give the classifier features that generalise from the words it
saw to ones it did not. Tokens are kg's own (its tokenizer on cleaned text), lowercased;
vectors are gensim's skip-gram word2vec; the clusters are a hierarchy, made by k-means
into the finest level and k-means of those centroids into each coarser one, so a word's
coarse cluster always contains its fine one. The measuring papers (``--exclude``,
default gold/silver/test.jsonl) are left out of the text the vectors are learnt from.

Needs the `train` extra (gensim, scikit-learn); kg itself reads only the TSV.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from kg.nlp.pipeline import load_pipeline
from kg.nlp.text import clean_text
from kg.train.entities import ROOT, SHARED, read_gold

LEVELS = (64, 256, 1024)


def corpus_sentences(path: Path, exclude: set[str], nlp, limit: int = 0) -> list[list[str]]:
    """Return each abstract (title first) of ``path`` not in ``exclude`` as lowercased kg
    tokens; with ``limit``, only the first ``limit`` of them."""
    texts = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("id") not in exclude and rec.get("abstract"):
                title = rec.get("title") or ""
                texts.append(clean_text(f"{title} {rec['abstract']}".strip()))
            if limit and len(texts) == limit:
                break
    return [[t.lower_ for t in doc if not t.is_space] for doc in nlp.tokenizer.pipe(texts)]


def hierarchical_clusters(vectors: np.ndarray, levels: tuple[int, ...], seed: int) -> np.ndarray:
    """Return one column of cluster ids per level (coarse to fine) for each row of
    ``vectors``: k-means into the finest level, then k-means of its centroids."""
    from sklearn.cluster import KMeans

    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    finest = KMeans(n_clusters=levels[-1], n_init=1, random_state=seed).fit(unit)
    columns = [finest.labels_]
    for k in reversed(levels[:-1]):
        coarse = KMeans(n_clusters=k, n_init=4, random_state=seed).fit(finest.cluster_centers_)
        columns.append(coarse.labels_[finest.labels_])
    return np.stack(columns[::-1], axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=SHARED / "corpora/ml_abstracts.jsonl.gz")
    parser.add_argument("--exclude", type=Path, action="append",
                        help="annotated papers whose abstracts are left out "
                        "(default: gold/silver/test.jsonl)")  # fmt: skip
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS),
                        help="clusters per level, coarse to fine")  # fmt: skip
    parser.add_argument("--limit", type=int, default=0, help="first N abstracts (smoke runs)")
    parser.add_argument("--out", type=Path, default=ROOT / "kg/nlp/data/word_clusters.tsv")
    args = parser.parse_args()
    from gensim.models import Word2Vec

    exclude = {g["id"] for g in read_gold(args.exclude or [SHARED / "gold/silver/test.jsonl"])}
    nlp = load_pipeline()
    sentences = corpus_sentences(args.abstracts, exclude, nlp, args.limit)
    print(f"{len(sentences)} abstracts, {sum(map(len, sentences))} tokens "
          f"({len(exclude)} ids excluded)", file=sys.stderr)  # fmt: skip
    model = Word2Vec(
        sentences, vector_size=args.dim, window=5, min_count=args.min_count, sg=1,
        epochs=args.epochs, workers=args.workers, seed=args.seed,
    )  # fmt: skip
    words = [w for w in model.wv.index_to_key if any(ch.isalpha() for ch in w)]
    levels = tuple(sorted(args.levels))
    if len(words) < levels[-1]:
        raise SystemExit(f"{len(words)} words for {levels[-1]} clusters: lower --levels")
    clusters = hierarchical_clusters(model.wv[words], levels, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        fh.write("# word\t" + "\t".join(f"c{k}" for k in levels) + "\n")
        for word, row in sorted(zip(words, clusters.tolist(), strict=True)):
            fh.write(word + "\t" + "\t".join(map(str, row)) + "\n")
    print(f"wrote {args.out} ({len(words)} words)", file=sys.stderr)


if __name__ == "__main__":
    main()
