"""The seed confidence model as gradient-boosted trees: load, check and evaluate.

Pure (numpy only). A logistic model gives each signal of a seed's evidence
one weight, whatever the others say; trees split on thresholds and weigh a
signal by the others it comes with, which ranked the gold seeds of held-out
articles better (benchmarks/RESULTS.md, session 25). The trees are fitted by
``benchmarks/fit_seed_confidence.py --model trees`` (scikit-learn's
``GradientBoostingClassifier``, at fit time only) and shipped as JSON in
``ontoretrieve/models/seed-confidence/trees.json``; nothing here imports
scikit-learn.

The JSON holds the feature names, the prior log-odds (``base``) and, per tree,
its nodes as parallel lists: ``feature`` (the feature's index, -1 at a leaf),
``threshold`` (go left when the value is at most it), ``left``, ``right`` and
``value`` (a leaf's contribution to the log-odds, the learning rate included).

>>> model = TreeModel.from_dict({
...     "features": ["fit"], "base": -1.0,
...     "trees": [{"feature": [0, -1, -1], "threshold": [0.3, 0.0, 0.0],
...                "left": [1, -1, -1], "right": [2, -1, -1], "value": [0.0, -1.0, 2.0]}]})
>>> [round(p, 4) for p in model.confidences([{"fit": 0.1}, {"fit": 0.5}])]
[0.1192, 0.7311]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ontoretrieve.errors import ConfidenceModelError

__all__ = ["PACKAGED_TREES", "TreeModel", "from_gradient_boosting", "packaged_trees"]

PACKAGED_TREES = ("models", "seed-confidence", "trees.json")
"""Where the fitted trees ship, under the ``ontoretrieve`` package."""

_NODE_FIELDS = ("feature", "threshold", "left", "right", "value")


@dataclass(frozen=True, eq=False)
class TreeModel:
    """Boosted trees over named features, evaluated for many seeds at once.

    Nodes of every tree are padded to one width so a whole forest steps in
    one numpy operation per level; a leaf points at itself, so a seed that
    reaches one early stays there.
    """

    features: tuple[str, ...]
    base: float
    feature: npt.NDArray[np.intp]
    threshold: npt.NDArray[np.float64]
    left: npt.NDArray[np.intp]
    right: npt.NDArray[np.intp]
    value: npt.NDArray[np.float64]
    depth: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "the tree model") -> TreeModel:
        """A model from its JSON form; a malformed one is refused naming ``source``."""
        try:
            features = tuple(str(f) for f in data["features"])
            base = float(data["base"])
            trees = list(data["trees"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfidenceModelError(f"{source}: needs 'features', 'base' and 'trees' ({exc})"
                                 ) from exc
        if not trees or not features:
            raise ConfidenceModelError(f"{source}: has no {'trees' if features else 'features'}")
        width = max(len(t.get("feature", ())) if isinstance(t, Mapping) else 1 for t in trees)
        arrays = {name: np.zeros((len(trees), width)) for name in _NODE_FIELDS}
        # Padding nodes are leaves worth nothing that point at themselves.
        arrays["feature"][:] = -1
        arrays["left"][:] = arrays["right"][:] = np.arange(width)
        for number, tree in enumerate(trees):
            _fill(arrays, number, tree, len(features), f"{source}, tree {number}")
        left, right = arrays["left"].astype(np.intp), arrays["right"].astype(np.intp)
        return cls(features=features, base=base, feature=arrays["feature"].astype(np.intp),
                   threshold=arrays["threshold"], left=left, right=right,
                   value=arrays["value"], depth=_depth(left, right))

    def log_odds(self, rows: Sequence[Mapping[str, float]]) -> npt.NDArray[np.float64]:
        """Each row's log-odds; a feature a row lacks counts as 0."""
        x = np.array([[row.get(name, 0.0) for name in self.features] for row in rows],
                     dtype=np.float64).reshape(len(rows), len(self.features))
        trees = np.arange(self.feature.shape[0])
        node = np.zeros((len(rows), trees.size), dtype=np.intp)
        seeds = np.arange(len(rows))[:, None]
        for _ in range(self.depth):
            # A leaf's feature is -1 (the last column): harmless, it points at itself.
            values = x[seeds, self.feature[trees, node]]
            go_left = values <= self.threshold[trees, node]
            node = np.where(go_left, self.left[trees, node], self.right[trees, node])
        total: npt.NDArray[np.float64] = self.base + self.value[trees, node].sum(axis=1)
        return total

    def confidences(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        """Each row's probability of being a term the text is about."""
        if not rows:
            return []
        return [float(p) for p in 1.0 / (1.0 + np.exp(-self.log_odds(rows)))]


def _fill(arrays: dict[str, npt.NDArray[np.float64]], number: int, tree: Mapping[str, Any],
          features: int, where: str) -> None:
    """Copy one tree's nodes in, leaves pointing at themselves; refuse bad links."""
    try:
        nodes = {name: [float(v) for v in tree[name]] for name in _NODE_FIELDS}
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfidenceModelError(f"{where}: needs lists {', '.join(_NODE_FIELDS)} ({exc})"
                             ) from exc
    size = len(nodes["feature"])
    if any(len(column) != size for column in nodes.values()) or not size:
        raise ConfidenceModelError(f"{where}: its node lists differ in length or are empty")
    for index in range(size):
        feature = int(nodes["feature"][index])
        if feature < 0:
            nodes["left"][index] = nodes["right"][index] = index
        elif feature >= features or not all(
                index < int(nodes[side][index]) < size for side in ("left", "right")):
            raise ConfidenceModelError(f"{where}, node {index}: feature {feature} or its children "
                                 f"are out of range")
    for name in _NODE_FIELDS:
        arrays[name][number, :size] = nodes[name]


def _depth(left: npt.NDArray[np.intp], right: npt.NDArray[np.intp]) -> int:
    """Levels from the roots to the deepest leaf (children always follow their parent)."""
    level = np.zeros(left.shape, dtype=np.intp)
    for index in range(left.shape[1]):
        inner = (left[:, index] != index)
        rows = np.nonzero(inner)[0]
        level[rows, left[rows, index]] = level[rows, index] + 1
        level[rows, right[rows, index]] = level[rows, index] + 1
    return int(level.max())


@cache
def packaged_trees() -> TreeModel:
    """The shipped model (read once per process)."""
    path = resources.files("ontoretrieve").joinpath(*PACKAGED_TREES)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfidenceModelError(f"{path}: cannot read the seed confidence trees ({exc})"
                             ) from exc
    return TreeModel.from_dict(data, source=str(path))


def from_gradient_boosting(classifier: Any, features: Sequence[str]) -> dict[str, Any]:
    """The JSON form of a fitted scikit-learn ``GradientBoostingClassifier`` (binary, log
    loss, the default prior): its public ``init_`` prior, ``estimators_`` trees and
    ``learning_rate``, leaf values scaled by the rate. Read by duck typing; scikit-learn
    is needed to fit, never to evaluate."""
    prior = float(classifier.init_.class_prior_[1])
    rate = float(classifier.learning_rate)
    trees = []
    for estimator in classifier.estimators_[:, 0]:
        tree = estimator.tree_
        leaf = tree.children_left == -1
        trees.append({
            "feature": [-1 if is_leaf else int(f)
                        for f, is_leaf in zip(tree.feature, leaf, strict=True)],
            "threshold": [0.0 if is_leaf else float(t)
                          for t, is_leaf in zip(tree.threshold, leaf, strict=True)],
            "left": [int(c) for c in tree.children_left],
            "right": [int(c) for c in tree.children_right],
            "value": [round(rate * float(v), 8) for v in tree.value[:, 0, 0]]})
    return {"features": list(features), "base": float(np.log(prior / (1.0 - prior))),
            "trees": trees}
