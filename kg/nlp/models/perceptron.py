"""A small averaged perceptron over sparse string features (multi-class)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np

__all__ = ["AveragedPerceptron", "WEIGHT_SCALE"]

WEIGHT_SCALE = 10_000
"""Model files hold weights as integers in units of 1/WEIGHT_SCALE (4 decimals)."""


class AveragedPerceptron:
    """Multi-class averaged perceptron (Collins 2002) with string features.

    Examples
    --------
    >>> model = AveragedPerceptron(["O", "A"])
    >>> data = [(["x"], "A"), (["y"], "O")] * 5
    >>> model.train(data, epochs=3, seed=0)
    >>> model.predict(["x"])[0], model.predict(["y"])[0]
    ('A', 'O')
    """

    def __init__(
        self,
        classes: Sequence[str],
        weights: dict[str, dict[str, float]] | None = None,
        meta: dict | None = None,
    ):
        self.classes = list(classes)
        self.weights: dict[str, dict[str, float]] = weights or {}
        self.meta: dict = meta or {}  # what the trainer measured (e.g. a calibration)
        self._matrix: tuple[dict[str, int], np.ndarray] | None = None

    def scores(self, features: Iterable[str]) -> dict[str, float]:
        """Return the score of each class for a feature set."""
        return self.scores_many([features])[0]

    def scores_many(self, feature_sets: Sequence[Iterable[str]]) -> list[dict[str, float]]:
        """Return :meth:`scores` of each feature set, computed together.

        Examples
        --------
        >>> model = AveragedPerceptron(["O", "A"], {"x": {"A": 2.0}, "y": {"O": 1.0, "A": -0.5}})
        >>> model.scores_many([["x", "y"], [], ["unknown"]])
        [{'O': 1.0, 'A': 1.5}, {'O': 0.0, 'A': 0.0}, {'O': 0.0, 'A': 0.0}]
        """
        totals = self.score_matrix(feature_sets).tolist()
        return [dict(zip(self.classes, row, strict=True)) for row in totals]

    def score_matrix(self, feature_sets: Sequence[Iterable[str]]) -> np.ndarray:
        """Return the scores of each feature set as a row, a column per class in
        :attr:`classes` order.

        Examples
        --------
        >>> model = AveragedPerceptron(["O", "A"], {"x": {"A": 2.0}})
        >>> model.score_matrix([["x"], ["y"]]).tolist(), model.score_matrix([]).shape
        ([[0.0, 2.0], [0.0, 0.0]], (0, 2))
        """
        rows, matrix = self._weight_matrix()
        row_of, unknown = rows.get, len(rows)  # the last row is all zeros
        index: list[int] = []
        offsets: list[int] = []
        for features in feature_sets:
            offsets.append(len(index))
            index += [row_of(f, unknown) for f in features] or [unknown]
        if not offsets:
            return np.zeros((0, len(self.classes)))
        picked = matrix.take(np.fromiter(index, np.intp, len(index)), axis=0)
        return np.add.reduceat(picked, offsets, axis=0)

    def predict(self, features: Iterable[str]) -> tuple[str, float]:
        """Return the best class and its margin over the runner-up."""
        return _best(self.scores(features))

    def _weight_matrix(self) -> tuple[dict[str, int], np.ndarray]:
        """The weights as a row per feature and a column per class (built once)."""
        if self._matrix is None:
            rows = {feat: k for k, feat in enumerate(self.weights)}
            matrix = np.zeros((len(rows) + 1, len(self.classes)))
            column = {cls: j for j, cls in enumerate(self.classes)}
            for feat, per_class in self.weights.items():
                for cls, w in per_class.items():
                    matrix[rows[feat], column[cls]] = w
            self._matrix = (rows, matrix)
        return self._matrix

    def train(self, data: list[tuple[list[str], str]], *, epochs: int = 10, seed: int = 0) -> None:
        """Fit on ``(features, class)`` pairs; the final weights are averaged over updates.

        Features are numbered and the weights kept as a numpy matrix while training
        (a row per feature), so a pass over 150,000 examples takes seconds.
        """
        rows: dict[str, int] = {}
        examples = []
        for feats, gold in data:  # a feature listed twice counts twice, in scores and updates
            ids = np.fromiter((rows.setdefault(f, len(rows)) for f in feats), np.intp)
            unique, counts = np.unique(ids, return_counts=True)
            examples.append((unique, counts.astype(float), self.classes.index(gold)))
        n_classes = len(self.classes)
        # ties go to the first class name, as in `_best`: scores are compared in name order
        by_name = sorted(range(n_classes), key=lambda j: self.classes[j])
        weights = np.zeros((len(rows), n_classes))
        totals = np.zeros_like(weights)
        stamps = np.zeros(weights.shape, dtype=np.int64)
        step = 0
        order = list(range(len(examples)))
        rng = random.Random(seed)
        for _ in range(epochs):
            rng.shuffle(order)
            for k in order:
                step += 1
                feats, counts, gold = examples[k]
                scores = counts @ weights[feats]
                guess = by_name[int(np.argmax(scores[by_name]))]
                if guess == gold:
                    continue
                for cls, delta in ((gold, 1.0), (guess, -1.0)):
                    totals[feats, cls] += (step - stamps[feats, cls]) * weights[feats, cls]
                    stamps[feats, cls] = step
                    weights[feats, cls] += delta * counts
        averaged_matrix = np.round((totals + (step - stamps) * weights) / max(step, 1), 4)
        names = list(rows)
        averaged: dict[str, dict[str, float]] = {}
        for r, c in zip(*np.nonzero(averaged_matrix), strict=True):
            averaged.setdefault(names[r], {})[self.classes[c]] = float(averaged_matrix[r, c])
        self.weights = averaged
        self._matrix = None

    @classmethod
    def ensemble(
        cls,
        classes: Sequence[str],
        data: list[tuple[list[str], str]],
        *,
        seeds: int = 5,
        epochs: int = 10,
        jobs: int = 1,
    ) -> AveragedPerceptron:
        """Train one model per shuffling seed (``jobs`` processes at a time) and return
        their mean (lower variance)."""
        train = partial(_trained_weights, cls, list(classes), data, epochs)
        if jobs > 1 and seeds > 1:
            with ProcessPoolExecutor(min(jobs, seeds)) as pool:
                models = list(pool.map(train, range(seeds)))
        else:
            models = [train(seed) for seed in range(seeds)]
        total: dict[str, dict[str, float]] = {}
        for weights in models:
            for feat, per_class in weights.items():
                slot = total.setdefault(feat, {})
                for c, w in per_class.items():
                    slot[c] = slot.get(c, 0.0) + w / seeds
        rounded = {
            f: {c: round(w, 4) for c, w in d.items() if round(w, 4)} for f, d in total.items()
        }
        return cls(classes, {f: d for f, d in rounded.items() if d})

    def to_bytes(self) -> bytes:
        """The classes, weights and :attr:`meta` in MessagePack: the features' names, and
        their weights as one matrix of int32 in units of 1e-4 (a row per feature, a
        column per class; trained weights are kept to 4 decimals, so this is exact).

        Examples
        --------
        >>> model = AveragedPerceptron(["O", "A"], {"x": {"A": 2.5}, "y": {"O": -1.0}})
        >>> AveragedPerceptron.from_bytes(model.to_bytes()).weights == model.weights
        True
        """
        import srsly

        features = sorted(self.weights)
        column = {c: i for i, c in enumerate(self.classes)}
        matrix = np.zeros((len(features), len(self.classes)), dtype=np.int64)
        for row, feat in enumerate(features):
            for c, w in self.weights[feat].items():
                matrix[row, column[c]] = round(w * WEIGHT_SCALE)
        if matrix.size and np.abs(matrix).max() >= 2**31:
            raise ValueError("a weight is too large for the model file (|w| < 200,000)")
        data = {
            "classes": self.classes,
            "features": features,
            "scale": WEIGHT_SCALE,
            "weights": matrix.astype(np.int32),
        }
        if self.meta:
            data["meta"] = self.meta
        return srsly.msgpack_dumps(data)

    @classmethod
    def from_bytes(cls, data: bytes) -> AveragedPerceptron:
        """Read a model :meth:`to_bytes` wrote (zero weights are left out, as trained)."""
        import srsly

        msg = srsly.msgpack_loads(data)
        classes, scale = list(msg["classes"]), msg["scale"]
        weights = {
            feat: {c: q / scale for c, q in zip(classes, row.tolist(), strict=True) if q}
            for feat, row in zip(msg["features"], msg["weights"], strict=True)
        }
        return cls(classes, weights, msg.get("meta"))

    def to_disk(self, path: str | Path) -> None:
        """Write :meth:`to_bytes` to ``path``."""
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def from_disk(cls, path: str | Path) -> AveragedPerceptron:
        """Read a model written by :meth:`to_disk` (or, until the next release, the JSON
        that kg 0.x wrote)."""
        data = Path(path).read_bytes()
        if data[:1] == b"{":
            old = json.loads(data)
            return cls(old["classes"], old["weights"], old.get("meta"))
        return cls.from_bytes(data)


def _trained_weights(
    cls: type[AveragedPerceptron], classes: list[str], data, epochs: int, seed: int
) -> dict[str, dict[str, float]]:
    """The weights of one model trained with ``seed`` (a picklable task for a pool)."""
    model = cls(classes)
    model.train(data, epochs=epochs, seed=seed)
    return model.weights


def _best(totals: dict[str, float]) -> tuple[str, float]:
    """The best class and its margin over the runner-up (ties go to the first name)."""
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    margin = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else ranked[0][1]
    return ranked[0][0], margin
