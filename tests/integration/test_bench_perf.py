"""``ontoretrieve bench perf`` end to end on a tiny catalog (child processes, real model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve.cli import app

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_perf_measures_each_size_and_replicates_past_the_catalog(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    for name in ("context/zoo.ttl", "context/ext.ttl"):
        shutil.copy(FIXTURES / name, catalog)
    units = tmp_path / "units.jsonl"
    units.write_text(json.dumps({"unit_id": "u1", "source": "zoo", "text":
                                 "The keeper feeds the cat.", "gold_iris": []}) + "\n")
    out = tmp_path / "perf"
    result = CliRunner().invoke(app, [
        "bench", "perf", "--catalog", str(catalog), "--units", str(units), "--out", str(out),
        "--sizes", "5,40", "--raw-texts", "100", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    small, large = data["sizes"]
    assert small["atoms"] >= 5 and large["atoms"] >= 40 and large["copies"] >= 1
    for size in data["sizes"]:
        assert size["atoms_embedded"] + size["atoms_reused"] == size["atoms"]
        assert min(size["raw_dense_texts_per_second"].values()) > 0
        assert size["index_over_raw"] > 0
        assert size["index_peak_rss_mib"] > 0 and size["query_peak_rss_mib"] > 0
        assert {"total", "embedding", "subgraph"} <= set(size["latency_ms"])
    assert (out / "perf.json").exists() and "| atoms |" in (out / "perf.md").read_text()


def test_perf_names_bad_sizes_and_missing_units(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "perf", "--catalog", str(FIXTURES / "context"),
                                 "--out", str(tmp_path), "--sizes", "ten"])
    assert result.exit_code == 2 and "--sizes 'ten'" in result.output
    result = runner.invoke(app, ["bench", "perf", "--catalog", str(FIXTURES / "context"),
                                 "--out", str(tmp_path), "--units", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "do not exist" in result.output
