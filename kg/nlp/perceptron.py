"""A small averaged perceptron over sparse string features (multi-class)."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["AveragedPerceptron"]


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

    def __init__(self, classes: Sequence[str], weights: dict[str, dict[str, float]] | None = None):
        self.classes = list(classes)
        self.weights: dict[str, dict[str, float]] = weights or {}
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
        """Fit on ``(features, class)`` pairs; the final weights are averaged over updates."""
        weights: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        totals: dict[tuple[str, str], float] = defaultdict(float)
        stamps: dict[tuple[str, str], int] = defaultdict(int)
        step = 0
        rng = random.Random(seed)
        data = list(data)
        for _ in range(epochs):
            rng.shuffle(data)
            for feats, gold in data:
                step += 1
                guess, _ = _best(_dict_scores(weights, self.classes, feats))
                if guess == gold:
                    continue
                for feat in feats:
                    for cls, delta in ((gold, 1.0), (guess, -1.0)):
                        key = (feat, cls)
                        totals[key] += (step - stamps[key]) * weights[feat][cls]
                        stamps[key] = step
                        weights[feat][cls] += delta
        averaged: dict[str, dict[str, float]] = {}
        for feat, per_class in weights.items():
            for cls, w in per_class.items():
                key = (feat, cls)
                total = totals[key] + (step - stamps[key]) * w
                avg = round(total / max(step, 1), 4)
                if avg:
                    averaged.setdefault(feat, {})[cls] = avg
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
    ) -> AveragedPerceptron:
        """Train one model per shuffling seed and return their mean (lower variance)."""
        total: dict[str, dict[str, float]] = {}
        for seed in range(seeds):
            model = cls(classes)
            model.train(data, epochs=epochs, seed=seed)
            for feat, per_class in model.weights.items():
                slot = total.setdefault(feat, {})
                for c, w in per_class.items():
                    slot[c] = slot.get(c, 0.0) + w / seeds
        rounded = {
            f: {c: round(w, 4) for c, w in d.items() if round(w, 4)} for f, d in total.items()
        }
        return cls(classes, {f: d for f, d in rounded.items() if d})

    def to_disk(self, path: str | Path) -> None:
        """Write the classes and weights as JSON."""
        Path(path).write_text(
            json.dumps({"classes": self.classes, "weights": self.weights}, sort_keys=True),
            encoding="utf-8",
        )

    @classmethod
    def from_disk(cls, path: str | Path) -> AveragedPerceptron:
        """Read a model written by :meth:`to_disk`."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["classes"], data["weights"])


def _dict_scores(
    weights: dict[str, dict[str, float]], classes: Sequence[str], features: Iterable[str]
) -> dict[str, float]:
    """Class scores straight from weights that are still being updated."""
    totals = dict.fromkeys(classes, 0.0)
    for feat in features:
        for cls, w in weights.get(feat, {}).items():
            totals[cls] += w
    return totals


def _best(totals: dict[str, float]) -> tuple[str, float]:
    """The best class and its margin over the runner-up (ties go to the first name)."""
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    margin = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else ranked[0][1]
    return ranked[0][0], margin
