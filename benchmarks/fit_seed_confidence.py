"""Fit the seed confidence model (``ontoretrieve/query/confidence.py``) on a bench run.

Reads the rows of a ``bench recall`` run (``base.jsonl``: each unit's text and
gold), takes the seeds of each unscoped unit again with the confidence order
off, and fits an L2-regularized logistic regression of "the seed is a gold
term" on ``features_of``. Prints the weights as the ``WEIGHTS`` literal to
paste, and, per source, the gold terms among each unit's first K seeds in the
engine's order and in confidence order, on the fitted run and on
``--check`` runs (other samples: units the fit never saw).

    HF_HUB_OFFLINE=1 python benchmarks/fit_seed_confidence.py RUN1/base.jsonl \
        --data-dir DATA --check RUN2/base.jsonl

Scoped units (Text2KGBench's, which name their ontology) keep the score order
in the engine and are left out.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ontoretrieve.query.confidence import FEATURES, in_confidence_order, seed_features
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.records import SeedEvidence
from ontoretrieve.settings import load_settings

TOP = (10, 15, 20, 25)


def unit_seeds(rows_file: Path, retriever: SeedRetriever
               ) -> list[tuple[str, set[str], list[SeedEvidence]]]:
    """(source, gold IRIs, seeds in the engine's order) of each unscoped unit."""
    found = []
    for line in rows_file.read_text().splitlines():
        row: dict[str, Any] = json.loads(line)
        if row.get("unit_ontology_named"):
            continue
        gold = {iri for group in row["gold"] for iri in group}
        found.append((row["source"], gold, retriever.seeds(row["text"]).seeds))
    return found


def design(units: Sequence[tuple[str, set[str], list[SeedEvidence]]]
           ) -> tuple[np.ndarray, np.ndarray]:
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


def gold_at(units: Sequence[tuple[str, set[str], list[SeedEvidence]]],
            weights: dict[str, float] | None) -> dict[str, Counter[int]]:
    """Per source, gold terms among the first K seeds (engine order, or by tier then
    confidence with ``weights``)."""
    out: dict[str, Counter[int]] = {}
    for source, gold, seeds in units:
        ordered = list(seeds) if weights is None else in_confidence_order(seeds, weights)
        counts = out.setdefault(source, Counter())
        for k in TOP:
            counts[k] += sum(s.iri in gold for s in ordered[:k])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, help="base.jsonl of the run to fit on")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--check", type=Path, action="append", default=[],
                        help="base.jsonl of another run to check on (repeat)")
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    settings = load_settings(data_dir=args.data_dir,
                             seeds={"confidence_order": False})
    retriever = SeedRetriever.open(settings)
    train = unit_seeds(args.rows, retriever)
    weights = fit(*design(train), l2=args.l2)
    print("WEIGHTS = " + json.dumps(weights, indent=4))
    for name, units in [(str(args.rows), train)] + [
            (str(p), unit_seeds(p, retriever)) for p in args.check]:
        before, after = gold_at(units, None), gold_at(units, weights)
        for source in sorted(before):
            print(f"{name} {source}: gold among the first K seeds "
                  + ", ".join(f"K={k}: {before[source][k]} -> {after[source][k]}"
                              for k in TOP))


if __name__ == "__main__":
    main()
