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

The shipped trees are fitted on every unscoped unit of a whole dev-suite run
(CRAFT and MeasEval), MeasEval's seeds weighted as ``SOURCE_WEIGHTS`` says, each
corpus's seeds labelled only where its annotators could have said yes
(``unlabelled``).

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


SOURCE_WEIGHTS: dict[str, float] = {"measeval": 3.0}
"""How much a seed of each source weighs in a fit (1 unless named; ``--source-weight``).
The whole dev suite has 14 CRAFT paragraphs for every MeasEval one; at weight 1 the trees
put a unit named after a number behind the OBO terms of a measurement paragraph about
diatoms ("33.7 Ma", out of 500 tokens on held-out articles), at 3 they keep MeasEval's
order and most of CRAFT's gain (RESULTS, session 27)."""


def annotated_ontologies(units: Sequence[Unit]) -> dict[str, set[str]]:
    """Per source, the ontologies some gold term of its units comes from (as seeds
    carry them): what its annotators could say yes to."""
    found: dict[str, set[str]] = {}
    for source, gold, seeds in units:
        found.setdefault(source, set()).update(s.ontology_iri for s in seeds if s.iri in gold)
    return found


def unlabelled(source: str, ontology: str, annotated: dict[str, set[str]]) -> bool:
    """A seed says nothing about its source's gold when its ontology is one another
    source annotates and its own never does: CRAFT's annotators had no units of
    measure to choose, MeasEval's no cell types, so a unit in a CRAFT paragraph is no
    counterexample of a unit MeasEval would annotate. Ontologies no source annotates
    (schema.org, a quantity kind) stay negatives everywhere.

    >>> annotated = {"craft": {"obo"}, "measeval": {"unit"}}
    >>> [unlabelled("craft", o, annotated) for o in ("obo", "unit", "schema")]
    [False, True, False]
    """
    return ontology not in annotated.get(source, set()) and any(
        ontology in ontologies for other, ontologies in annotated.items() if other != source)


def design(units: Sequence[Unit], source_weights: dict[str, float] | None = None,
           annotated: dict[str, set[str]] | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (one row a seed, ``FEATURES`` order), gold labels and each row's weight
    (its source's in ``source_weights``, else 1); with ``annotated``
    (``annotated_ontologies``) the ``unlabelled`` seeds are left out."""
    weights_of = source_weights or {}
    rows, labels, weights = [], [], []
    for source, gold, seeds in units:
        for s, f in zip(seeds, seed_features(seeds), strict=True):
            if annotated is not None and unlabelled(source, s.ontology_iri, annotated):
                continue
            rows.append([f[k] for k in FEATURES])
            labels.append(float(s.iri in gold))
            weights.append(weights_of.get(source, 1.0))
    return np.array(rows), np.array(labels), np.array(weights)


def fit(x: np.ndarray, y: np.ndarray, l2: float, weights: np.ndarray | None = None,
        steps: int = 3000) -> dict[str, float]:
    """Logistic regression by gradient descent on standardized features, each row
    weighted, the weights mapped back to the raw features (so the engine needs no
    scaling)."""
    sample = np.ones(len(y)) if weights is None else weights
    mean, scale = x.mean(0), x.std(0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    w, b = np.zeros(x.shape[1]), 0.0
    total = float(sample.sum())
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        error = (p - y) * sample
        w -= 0.5 * (z.T @ error + l2 * w) / total
        b -= 0.5 * float(np.sum(error)) / total
    raw = w / scale
    weights = {"bias": round(float(b - raw @ mean), 4)}
    weights.update({k: round(float(v), 4) for k, v in zip(FEATURES, raw, strict=True)})
    return weights


def fit_trees(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
              ) -> dict[str, Any]:
    """Gradient-boosted trees (``TREES``), rows weighted, in the JSON form the engine
    reads."""
    try:
        from sklearn.ensemble import GradientBoostingClassifier
    except ImportError as exc:
        raise SystemExit("--model trees needs scikit-learn: pip install scikit-learn") from exc
    classifier = GradientBoostingClassifier(**TREES).fit(x, y, sample_weight=weights)
    return from_gradient_boosting(classifier, FEATURES)


def fitted(units: Sequence[Unit], kind: str, l2: float,
           source_weights: dict[str, float] | None = None) -> tuple[ConfidenceModel, Any]:
    """A model of ``kind`` fitted on ``units``, and what to print or write of it."""
    x, y, row_weights = design(units, source_weights, annotated_ontologies(units))
    if kind == "trees":
        data = fit_trees(x, y, row_weights)
        return TreeModel.from_dict(data), data
    weights = fit(x, y, l2=l2, weights=row_weights)
    return LogisticModel(weights), weights


def out_of_fold(units: Sequence[tuple[str, Unit]], kind: str, l2: float, folds: int,
                source_weights: dict[str, float] | None = None) -> dict[str, Counter[int]]:
    """Gold among the first K seeds, each unit ordered by a model fitted on the other
    folds' units (whole articles a fold, assigned in sorted order)."""
    articles = sorted({article(uid) for uid, _ in units})
    fold_of = {name: i % folds for i, name in enumerate(articles)}
    out: dict[str, Counter[int]] = {}
    for fold in range(folds):
        train = [u for uid, u in units if fold_of[article(uid)] != fold]
        model, _ = fitted(train, kind, l2, source_weights)
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
    parser.add_argument("--source-weight", action="append", default=[], metavar="SOURCE=W",
                        help="weight of a source's seeds in the fit (repeat; default "
                             + ", ".join(f"{k}={v:g}" for k, v in SOURCE_WEIGHTS.items())
                             + "; other sources 1)")
    args = parser.parse_args()
    source_weights = dict(SOURCE_WEIGHTS)
    for given in args.source_weight:
        source, _, value = given.partition("=")
        try:
            source_weights[source] = float(value)
        except ValueError:
            parser.error(f"--source-weight {given!r}: expected SOURCE=NUMBER, e.g. measeval=8")
    settings = load_settings(data_dir=args.data_dir,
                             seeds={"confidence_order": False})
    retriever = SeedRetriever.open(settings)
    seen: set[str] = set()
    runs = [(str(p), unit_seeds(p, retriever, seen)) for p in [args.rows, *args.check]]
    model, data = fitted([u for _, u in runs[0][1]], args.model, args.l2, source_weights)
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
            kind: out_of_fold(pooled, kind, args.l2, args.folds, source_weights)
            for kind in ("logistic", "trees")})


if __name__ == "__main__":
    main()
