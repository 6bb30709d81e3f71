"""The seed confidence trees: evaluated as scikit-learn fitted them, refused when malformed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ontoretrieve.errors import ConfidenceModelError
from ontoretrieve.query.confidence import FEATURES, confidence_model
from ontoretrieve.query.confidence_trees import (
    TreeModel,
    from_gradient_boosting,
    packaged_trees,
)
from ontoretrieve.settings.groups import ConfidenceModelKind, SeedSettings


def test_the_trees_give_what_scikit_learn_gives_for_the_same_rows() -> None:
    from sklearn import ensemble as sklearn
    rng = np.random.default_rng(7)
    x = np.column_stack([rng.random(600), rng.integers(0, 2, 600), rng.normal(size=600)])
    # Interactions and a threshold a linear model cannot draw.
    y = ((x[:, 0] > 0.6) & (x[:, 1] == 1) | (x[:, 2] > 1.2)).astype(float)
    classifier = sklearn.GradientBoostingClassifier(
        n_estimators=30, max_depth=3, learning_rate=0.2, subsample=0.8,
        random_state=0).fit(x, y)
    names = ("fit", "exact_case", "shared")
    model = TreeModel.from_dict(from_gradient_boosting(classifier, names))
    rows = [dict(zip(names, map(float, row), strict=True)) for row in x[:200]]
    expected = classifier.predict_proba(x[:200])[:, 1]
    assert np.allclose(model.confidences(rows), expected, atol=1e-7)
    assert model.depth == 3


def test_the_shipped_trees_read_exactly_the_features_the_engine_gives() -> None:
    model = packaged_trees()
    assert model.features == FEATURES
    assert model.feature.shape[0] >= 50
    assert confidence_model(ConfidenceModelKind.TREES) is model


def test_trees_are_the_default_model() -> None:
    assert SeedSettings().confidence_model is ConfidenceModelKind.TREES


def test_an_unknown_model_is_refused_naming_the_setting() -> None:
    with pytest.raises(ValueError, match="confidence_model"):
        SeedSettings(confidence_model="forest")  # type: ignore[arg-type]


def stump(**changes: Any) -> dict[str, Any]:
    tree = {"feature": [0, -1, -1], "threshold": [0.5, 0.0, 0.0], "left": [1, -1, -1],
            "right": [2, -1, -1], "value": [0.0, -1.0, 1.0]}
    return {"features": ["fit"], "base": 0.0, "trees": [{**tree, **changes}]}


@pytest.mark.parametrize(("data", "message"), [
    ({"features": ["fit"], "trees": []}, "needs 'features', 'base' and 'trees'"),
    ({"features": ["fit"], "base": 0.0, "trees": []}, "has no trees"),
    ({"features": [], "base": 0.0, "trees": [{}]}, "has no features"),
    ({"features": ["fit"], "base": 0.0, "trees": [[0, 1]]}, "tree 0: needs lists"),
    (stump(left=[1, -1]), "differ in length"),
    (stump(left=[0, -1, -1]), "node 0: feature 0 or its children are out of range"),
    (stump(feature=[3, -1, -1]), "node 0: feature 3"),
    (stump(value=[0.0, "x", 1.0]), "needs lists"),
])
def test_a_malformed_model_is_refused_naming_its_file_and_tree(
        data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfidenceModelError, match=message) as caught:
        TreeModel.from_dict(data, source="trees.json")
    assert str(caught.value).startswith("trees.json")


def test_rows_of_unequal_depth_each_stop_at_their_own_leaf() -> None:
    # Tree: fit <= 0.5 -> leaf -1; else exact_case <= 0.5 -> leaf 0.5, else leaf 2.
    model = TreeModel.from_dict({
        "features": ["fit", "exact_case"], "base": 0.0,
        "trees": [{"feature": [0, -1, 1, -1, -1], "threshold": [0.5, 0, 0.5, 0, 0],
                   "left": [1, -1, 3, -1, -1], "right": [2, -1, 4, -1, -1],
                   "value": [0, -1.0, 0, 0.5, 2.0]}]})
    odds = model.log_odds([{"fit": 0.2, "exact_case": 1.0}, {"fit": 0.9},
                           {"fit": 0.9, "exact_case": 1.0}])
    assert odds.tolist() == [-1.0, 0.5, 2.0]
    assert model.confidences([]) == []


def test_trees_fitted_on_signals_the_engine_lacks_are_refused_by_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ontoretrieve.query import confidence

    odd = TreeModel.from_dict({**stump(), "features": ["fit", "colour"],
                               "trees": [{**stump()["trees"][0]}]})
    monkeypatch.setattr(confidence, "packaged_trees", lambda: odd)
    confidence.confidence_model.cache_clear()  # the shipped model is read once a process
    try:
        with pytest.raises(ConfidenceModelError, match="does not compute: colour"):
            confidence.confidence_model(ConfidenceModelKind.TREES)
    finally:
        confidence.confidence_model.cache_clear()
