"""Paired comparison of two benchmark runs: terms gained and lost, and whether it is noise.

Pure. A run is a list of per-unit rows (the JSONL a recall benchmark writes
with ``--out``): ``id``, the gold groups (``gold``: lists of IRIs, one of each
list suffices) and what the run returned (``context_subjects``, and
``retrieved_term_iris`` for the seeds). Units are paired by id; the
difference in micro recall gets a percentile bootstrap interval over units,
so that a change inside the interval of zero is called noise.

>>> a = [{"id": "u1", "gold": [["x"], ["y"]], "context_subjects": ["x"]}]
>>> b = [{"id": "u1", "gold": [["x"], ["y"]], "context_subjects": ["x", "y"]}]
>>> c = compare_runs(a, b, resamples=200)
>>> c.recall_a, c.recall_b, c.gained
(0.5, 1.0, [('u1', 'y')])
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ontoretrieve.errors import OntoRetrieveError

__all__ = ["Comparison", "Metric", "check_metric", "compare_runs", "read_jsonl", "read_run"]

Metric = str
"""``context`` (gold among the context's subjects), ``seed``, or ``context@N``: the
context cut to a budget of N tokens, as ``bench recall`` records it per curve budget
(``gold_at_tokens``); ``named`` and ``named@N`` count only the gold subjects the
context also names by a label or a symbol (not a bare IRI: ``gold_unnamed``)."""
_FIELD: dict[str, str] = {"context": "context_subjects", "seed": "retrieved_term_iris",
                          "named": "context_subjects"}
_AT = ("context@", "named@")


def check_metric(metric: str) -> Metric:
    """``metric`` when it is one ``compare_runs`` knows, else a clear error.

    >>> check_metric("context@8000"), check_metric("named@500")
    ('context@8000', 'named@500')
    """
    for prefix in _AT:
        budget = metric.removeprefix(prefix)
        if budget != metric and budget.isdigit():
            return metric
    if metric in _FIELD:
        return metric
    raise OntoRetrieveError(f"--metric {metric!r}: use context, named, seed, context@TOKENS "
                            "or named@TOKENS (a budget of the recall-against-tokens curve, "
                            "e.g. context@8000)")


class Comparison(BaseModel):
    metric: Metric
    units: int
    """Units present in both runs (the others are listed in ``unpaired``)."""
    gold_terms: int
    recall_a: float
    recall_b: float
    difference: float
    """recall_b - recall_a, micro over unit-term pairs."""
    ci_low: float
    ci_high: float
    confidence: float
    noise: bool
    """True when the interval contains 0."""
    gained: list[tuple[str, str]]
    """(unit, term) found by B and not by A; a term of an any-of group is its first IRI."""
    lost: list[tuple[str, str]]
    unpaired: list[str]
    by_source: dict[str, tuple[float, float]] = {}
    """Recall of A and of B per ``source`` of the rows, when the rows name one."""


def read_run(path: Path) -> list[dict[str, Any]]:
    """Rows of a run file (each with an ``id``), with the line of any bad row named."""
    return read_jsonl(path, "id")


def read_jsonl(path: Path, key: str) -> list[dict[str, Any]]:
    """JSON objects one per line, each with ``key``; a bad line is named by number."""
    rows: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise OntoRetrieveError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise OntoRetrieveError(f"{path}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(row, dict) or key not in row:
            raise OntoRetrieveError(f"{path}:{number}: expected an object with {key!r}")
        rows.append(row)
    return rows


def _hits(row: Mapping[str, Any], gold: Sequence[Sequence[str]], metric: Metric) -> list[bool]:
    kind, _, budget = metric.partition("@")
    if budget:
        found = set(_at_budget(row, "gold_at_tokens", budget))
    else:
        found = set(row.get(_FIELD[metric]) or [])
    if kind == "named":
        found -= set(_at_budget(row, "gold_unnamed_at_tokens", budget) if budget
                     else _unnamed(row))
    return [bool(found.intersection(group)) for group in gold]


def _at_budget(row: Mapping[str, Any], field: str, budget: str) -> list[str]:
    at = row.get(field)
    if at is None or budget not in at:
        what = "recall" if field == "gold_at_tokens" else "naming"
        raise OntoRetrieveError(f"unit {row.get('id')!r} has no {what} at {budget} tokens "
                                f"(recorded: {', '.join(at or {}) or 'none'})")
    return list(at[budget])


def _unnamed(row: Mapping[str, Any]) -> list[str]:
    if "gold_unnamed" not in row:
        raise OntoRetrieveError(f"unit {row.get('id')!r} does not record which gold terms its "
                                "context leaves unnamed (a run from before `named` recall): "
                                "run it again to compare on named recall")
    return list(row["gold_unnamed"])


def compare_runs(run_a: Sequence[Mapping[str, Any]], run_b: Sequence[Mapping[str, Any]], *,
                 metric: Metric = "context", gold: Mapping[str, list[list[str]]] | None = None,
                 resamples: int = 2000, confidence: float = 0.95, seed: int = 0) -> Comparison:
    """Pair the runs by unit id and compare their micro term recall."""
    by_id_a = {str(r["id"]): r for r in run_a}
    by_id_b = {str(r["id"]): r for r in run_b}
    paired = sorted(by_id_a.keys() & by_id_b.keys())
    unpaired = sorted(by_id_a.keys() ^ by_id_b.keys())
    per_unit: list[tuple[int, int, int]] = []  # (gold terms, hits A, hits B)
    per_source: dict[str, list[int]] = {}  # source -> [gold terms, hits A, hits B]
    gained: list[tuple[str, str]] = []
    lost: list[tuple[str, str]] = []
    for unit in paired:
        groups = (gold or {}).get(unit) or by_id_a[unit].get("gold") or by_id_b[unit].get("gold")
        if groups is None:
            raise OntoRetrieveError(
                f"unit {unit}: the runs carry no gold; pass the units files it came from")
        hits_a = _hits(by_id_a[unit], groups, metric)
        hits_b = _hits(by_id_b[unit], groups, metric)
        for group, a, b in zip(groups, hits_a, hits_b, strict=True):
            if b and not a:
                gained.append((unit, group[0]))
            elif a and not b:
                lost.append((unit, group[0]))
        per_unit.append((len(groups), sum(hits_a), sum(hits_b)))
        source = str(by_id_a[unit].get("source") or "")
        if source:
            counts = per_source.setdefault(source, [0, 0, 0])
            for k, value in enumerate(per_unit[-1]):
                counts[k] += value
    total = sum(n for n, _, _ in per_unit)
    if not total:
        raise OntoRetrieveError("the runs share no unit with gold terms: nothing to compare")
    recall_a = sum(a for _, a, _ in per_unit) / total
    recall_b = sum(b for _, _, b in per_unit) / total
    rng = random.Random(seed)
    diffs = []
    for _ in range(resamples):
        draw = [per_unit[rng.randrange(len(per_unit))] for _ in per_unit]
        terms = sum(n for n, _, _ in draw) or 1
        diffs.append((sum(b for _, _, b in draw) - sum(a for _, a, _ in draw)) / terms)
    diffs.sort()
    tail = (1 - confidence) / 2
    low = diffs[int(tail * (resamples - 1))] if diffs else 0.0
    high = diffs[int((1 - tail) * (resamples - 1))] if diffs else 0.0
    return Comparison(
        metric=metric, units=len(paired), gold_terms=total, recall_a=round(recall_a, 6),
        recall_b=round(recall_b, 6), difference=round(recall_b - recall_a, 6),
        ci_low=round(low, 6), ci_high=round(high, 6), confidence=confidence,
        noise=low <= 0 <= high, gained=gained, lost=lost, unpaired=unpaired,
        by_source={name: (round(a / n, 6), round(b / n, 6))
                   for name, (n, a, b) in sorted(per_source.items()) if n})
