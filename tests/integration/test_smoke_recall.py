"""The smoke suite: recall on 50 real units must not fall more than 2 points.

Indexes benchmarks/smoke/catalog (22 real ontology files, about 8k atoms)
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
        "--out", str(tmp_path / "run"), "--no-warm-up", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["variants"]["base"]["summary"]
    assert summary["overall"]["units"] == 50
    tolerance = baseline["tolerance_points"] / 100
    now = summary["overall"]["context_term_recall"]
    by_source = {s: (baseline["sources"][s]["context_term_recall"], v["context_term_recall"])
                 for s, v in summary["sources"].items()}
    assert now >= baseline["context_term_recall"] - tolerance, (
        f"smoke context term recall fell from {baseline['context_term_recall']:.1%} to "
        f"{now:.1%} (more than {baseline['tolerance_points']} points); per source "
        f"(recorded, now): {by_source}")
