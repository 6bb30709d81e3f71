"""The smoke suite: recall on 50 real units must not fall more than 2 points.

Both the defaults and the shipped reference profile are guarded, in one run
(``--ablation reference`` shares the index and the model).

Indexes benchmarks/smoke/catalog (22 real ontology files, the three large ones
cut to the units' gold and a share of distractors: 3.6k atoms, about a minute)
with the packaged model and runs ``bench recall`` on benchmarks/smoke/units.jsonl;
the recorded value is benchmarks/smoke/baseline.json (re-record it with
``python benchmarks/smoke_baseline.py`` when a change moves recall on purpose).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve.cli import app

pytestmark = pytest.mark.integration

SMOKE = Path(__file__).parents[2] / "benchmarks" / "smoke"


def test_smoke_context_recall_holds_the_recorded_value(tmp_path: Path) -> None:
    baseline = json.loads((SMOKE / "baseline.json").read_text())
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(SMOKE / "units.jsonl"),
        "--catalog", str(SMOKE / "catalog"), "--data-dir", str(tmp_path / "data"),
        "--out", str(tmp_path / "run"), "--no-warm-up", "--ablation", "reference", "--json"])
    assert result.exit_code == 0, result.output
    variants = json.loads(result.stdout)["variants"]
    tolerance = baseline["tolerance_points"] / 100
    for name, recorded in baseline["variants"].items():
        summary = variants[name]["summary"]
        assert summary["overall"]["units"] == 50
        for metric in ("context_term_recall", "seed_term_recall"):
            now = summary["overall"][metric]
            by_source = {s: (recorded["sources"][s][metric], v[metric])
                         for s, v in summary["sources"].items()}
            assert now >= recorded[metric] - tolerance, (
                f"{name}: smoke {metric.replace('_', ' ')} fell from {recorded[metric]:.1%} "
                f"to {now:.1%} (more than {baseline['tolerance_points']} points); per source "
                f"(recorded, now): {by_source}")
        if "context_tokens" in recorded:  # recall must not be bought back with size
            tokens = summary["overall"]["context_tokens"]["mean"]
            assert tokens <= 1.1 * recorded["context_tokens"] + 50, (
                f"{name}: smoke contexts grew from {recorded['context_tokens']:.0f} to "
                f"{tokens:.0f} tokens on average")
