"""Fit the seed confidence model (``ontoretrieve/query/confidence.py``) on a bench run.

Reads the rows of a ``bench recall`` run (``base.jsonl``: each unit's text and
gold), takes the seeds of each unscoped unit again with the confidence order
off, and fits a model of "the seed is a gold term" on ``features_of``:

- ``--model trees`` (the default model): scikit-learn's gradient-boosted trees
  (``pip install scikit-learn``, fit time only), written as JSON to ``--out``
  (the shipped file is ``ontoretrieve/models/seed-confidence/trees.json``);
- ``--model logistic``: an L2-regularized logistic regression, printed as the
  ``WEIGHTS`` literal to paste.

Then prints, per source, the gold terms among each unit's first K seeds in the
engine's order without confidence, in the shipped models' orders and in the
new model's, on the fitted run and on ``--check`` runs (other samples: units
the fit never saw), and with ``--folds N`` the same out of fold over every
run given, units grouped by article (a CRAFT article's paragraphs share terms,
so a fold holds whole articles).

    HF_HUB_OFFLINE=1 python benchmarks/fit_seed_confidence.py RUN1/base.jsonl \
        --data-dir DATA --check RUN2/base.jsonl --model trees --out trees.json

Scoped units (Text2KGBench's, which name their ontology) keep the score order
in the engine and are left out.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ontoretrieve.errors import ConfidenceModelError
from ontoretrieve.query.confidence import (
    FEATURES,
    ConfidenceModel,
    LogisticModel,
    in_confidence_order,
    seed_features,
)
from ontoretrieve.query.confidence_trees import (
    TreeModel,
    from_gradient_boosting,
    packaged_trees,
)
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.records import SeedEvidence
from ontoretrieve.settings import load_settings

TOP = (5, 10, 15, 20, 25)

TREES = {"n_estimators": 200, "max_depth": 4, "learning_rate": 0.05, "min_samples_leaf": 40,
         "subsample": 0.8, "random_state": 0}
"""Chosen by out-of-fold gold among the first 10 seeds (article folds; RESULTS, session 25)."""

Unit = tuple[str, set[str], list[SeedEvidence]]


def unit_seeds(rows_file: Path, retriever: SeedRetriever, seen: set[str] | None = None
               ) -> list[tuple[str, Unit]]:
    """(unit id, (source, gold IRIs, seeds in the engine's order)) of each unscoped unit
    not in ``seen`` (which it extends)."""
    found = []
    for line in rows_file.read_text().splitlines():
        row: dict[str, Any] = json.loads(line)
        if row.get("unit_ontology_named") or (seen is not None and row["id"] in seen):
            continue
        if seen is not None:
            seen.add(row["id"])
        gold = {iri for group in row["gold"] for iri in group}
        found.append((row["id"], (row["source"], gold, retriever.seeds(row["text"]).seeds)))
    return found


def article(unit_id: str) -> str:
    """A unit's document: ``craft:11532192:102-467`` -> ``craft:11532192``,
    ``measeval:trial:S0012821X13002185-1217`` -> ``measeval:trial:S0012821X13002185``."""
    head, _, last = unit_id.rpartition(":")
    if re.fullmatch(r"\d+-\d+", last):
        return head
    return re.sub(r"-\d+$", "", unit_id)


def design(units: Sequence[Unit]) -> tuple[np.ndarray, np.ndarray]:
    """Features (one row a seed, ``FEATURES`` order) and gold labels."""
    rows, labels = [], []
    for _, gold, seeds in units:
        for s, f in zip(seeds, seed_features(seeds), strict=True):
            rows.append([f[k] for k in FEATURES])
            labels.append(float(s.iri in gold))
    return np.array(rows), np.array(labels)


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 3000) -> dict[str, float]:
    """Logistic regression by gradient descent on standardized features, the weights
    mapped back to the raw features (so the engine needs no scaling)."""
    mean, scale = x.mean(0), x.std(0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        w -= 0.5 * (z.T @ (p - y) + l2 * w) / len(y)
        b -= 0.5 * float(np.sum(p - y)) / len(y)
    raw = w / scale
    weights = {"bias": round(float(b - raw @ mean), 4)}
    weights.update({k: round(float(v), 4) for k, v in zip(FEATURES, raw, strict=True)})
    return weights


def fit_trees(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Gradient-boosted trees (``TREES``) in the JSON form the engine reads."""
    try:
        from sklearn.ensemble import GradientBoostingClassifier
    except ImportError as exc:
        raise SystemExit("--model trees needs scikit-learn: pip install scikit-learn") from exc
    classifier = GradientBoostingClassifier(**TREES).fit(x, y)
    return from_gradient_boosting(classifier, FEATURES)


def fitted(units: Sequence[Unit], kind: str, l2: float) -> tuple[ConfidenceModel, Any]:
    """A model of ``kind`` fitted on ``units``, and what to print or write of it."""
    x, y = design(units)
    if kind == "trees":
        data = fit_trees(x, y)
        return TreeModel.from_dict(data), data
    weights = fit(x, y, l2=l2)
    return LogisticModel(weights), weights


def out_of_fold(units: Sequence[tuple[str, Unit]], kind: str, l2: float, folds: int
                ) -> dict[str, Counter[int]]:
    """Gold among the first K seeds, each unit ordered by a model fitted on the other
    folds' units (whole articles a fold, assigned in sorted order)."""
    articles = sorted({article(uid) for uid, _ in units})
    fold_of = {name: i % folds for i, name in enumerate(articles)}
    out: dict[str, Counter[int]] = {}
    for fold in range(folds):
        train = [u for uid, u in units if fold_of[article(uid)] != fold]
        model, _ = fitted(train, kind, l2)
        for source, counts in gold_at([u for uid, u in units
                                       if fold_of[article(uid)] == fold], model).items():
            out.setdefault(source, Counter()).update(counts)
    return out


def gold_at(units: Sequence[Unit], model: ConfidenceModel | None) -> dict[str, Counter[int]]:
    """Per source, gold terms among the first K seeds (engine order, or by tier then
    the ``model``'s confidence)."""
    out: dict[str, Counter[int]] = {}
    for source, gold, seeds in units:
        ordered = list(seeds) if model is None else in_confidence_order(seeds, model)
        counts = out.setdefault(source, Counter())
        for k in TOP:
            counts[k] += sum(s.iri in gold for s in ordered[:k])
    return out


def report(name: str, orders: dict[str, dict[str, Counter[int]]]) -> None:
    """One line a source and order: gold among the first K seeds."""
    for source in sorted(next(iter(orders.values()))):
        for label, counts in orders.items():
            print(f"{name} {source} {label}: gold among the first K seeds "
                  + ", ".join(f"K={k}: {counts[source][k]}" for k in TOP))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, help="base.jsonl of the run to fit on")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--check", type=Path, action="append", default=[],
                        help="base.jsonl of another run to check on (repeat)")
    parser.add_argument("--model", choices=("trees", "logistic"), default="trees")
    parser.add_argument("--out", type=Path, help="where to write the trees' JSON")
    parser.add_argument("--folds", type=int, default=0,
                        help="also report out of fold over every run given, by article")
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    settings = load_settings(data_dir=args.data_dir,
                             seeds={"confidence_order": False})
    retriever = SeedRetriever.open(settings)
    seen: set[str] = set()
    runs = [(str(p), unit_seeds(p, retriever, seen)) for p in [args.rows, *args.check]]
    model, data = fitted([u for _, u in runs[0][1]], args.model, args.l2)
    if args.model == "trees":
        if args.out is None:
            raise SystemExit("--model trees writes its model: give --out FILE")
        args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.out}: {len(data['trees'])} trees")
    else:
        print("WEIGHTS = " + json.dumps(data, indent=4))
    shipped: dict[str, ConfidenceModel] = {"shipped logistic": LogisticModel()}
    try:
        shipped["shipped trees"] = packaged_trees()
    except ConfidenceModelError as exc:  # the first fit, before any trees ship
        print(f"no shipped trees: {exc}")
    for name, units in runs:
        plain = [u for _, u in units]
        report(name, {"engine": gold_at(plain, None),
                      **{label: gold_at(plain, m) for label, m in shipped.items()},
                      f"new {args.model}": gold_at(plain, model)})
    if args.folds:
        pooled = [unit for _, units in runs for unit in units]
        report(f"out of {args.folds} article folds", {
            kind: out_of_fold(pooled, kind, args.l2, args.folds)
            for kind in ("logistic", "trees")})


if __name__ == "__main__":
    main()
