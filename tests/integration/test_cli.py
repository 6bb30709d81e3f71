"""The CLI contract: --data-dir and --json on every command, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve.cli import app
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

runner = CliRunner()


def test_load_then_list_as_json(tmp_path: Path, catalog_dir: Path) -> None:
    data = str(tmp_path / "data")
    loaded = runner.invoke(app, ["catalog", "load", str(catalog_dir), "--data-dir", data, "--json"])
    assert loaded.exit_code == 0, loaded.output
    report = json.loads(loaded.stdout)
    assert len(report["added"]) == 2 and report["partial"] is False
    listed = runner.invoke(app, ["catalog", "list", "--data-dir", data, "--json"])
    assert listed.exit_code == 0
    payload = json.loads(listed.stdout)
    assert sorted(o["ontology_iri"] for o in payload["ontologies"]) == [
        "http://example.org/mini", "http://example.org/second"]
    assert payload["last_load"]["partial"] is False


def test_data_dir_from_environment(tmp_path: Path, catalog_dir: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTORETRIEVE_DATA_DIR", str(tmp_path / "envdata"))
    assert runner.invoke(app, ["catalog", "load", str(catalog_dir), "--json"]).exit_code == 0
    assert (tmp_path / "envdata" / "oxigraph").is_dir()


def test_partial_load_exits_1_and_names_the_file(tmp_path: Path, catalog_dir: Path) -> None:
    shutil.copy(FIXTURES / "broken.ttl", catalog_dir / "broken.ttl")
    result = runner.invoke(app, ["catalog", "load", str(catalog_dir),
                                 "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 1
    assert "broken.ttl:3:37" in result.output


def test_missing_path_exits_2_with_a_message(tmp_path: Path) -> None:
    result = runner.invoke(app, ["catalog", "load", str(tmp_path / "nope"),
                                 "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_config_show_json_reports_origins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECTOR_STORE_TOP_K", "9")
    result = runner.invoke(app, ["config", "show", "--json", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["settings"]["fusion"]["top_k"] == 9
    assert payload["origins"]["fusion.top_k"] == "env VECTOR_STORE_TOP_K"
    assert payload["origins"]["data_dir"] == "init"
    assert payload["reference_names"]["fusion.top_k"] == "VECTOR_STORE_TOP_K"


def test_bad_setting_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOLOGY_PATCH_MAX_ATOMS", "lots")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 2
    assert "ONTOLOGY_PATCH_MAX_ATOMS" in result.output


def test_index_json_then_status(tmp_path: Path, catalog_dir: Path) -> None:
    data = str(tmp_path / "data")
    built = runner.invoke(app, ["index", "--catalog", str(catalog_dir), "--data-dir", data,
                                "--json"])
    assert built.exit_code == 0, built.output
    report = json.loads(built.stdout)
    assert report["atoms_total"] == report["atoms_embedded"] > 0
    assert report["catalog_load"]["partial"] is False
    for key in ("atoms_total", "atoms_embedded", "atoms_deleted", "seconds"):
        assert key in report
    status = runner.invoke(app, ["index", "status", "--data-dir", data, "--json"])
    assert status.exit_code == 0, status.output
    payload = json.loads(status.stdout)
    assert payload["exists"] and payload["fingerprint_matches"]
    assert payload["atoms"] == report["atoms_total"]


def test_index_with_changed_settings_names_the_rebuild(
        tmp_path: Path, catalog_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = str(tmp_path / "data")
    assert runner.invoke(app, ["index", "--catalog", str(catalog_dir), "--data-dir", data,
                               "--json"]).exit_code == 0
    monkeypatch.setenv("VECTOR_STORE_MINIMAL_LABEL_LIMIT", "2")
    result = runner.invoke(app, ["index", "--catalog", str(catalog_dir), "--data-dir", data])
    assert result.exit_code == 2
    assert "ontoretrieve index --rebuild" in result.output
    status = json.loads(runner.invoke(app, ["index", "status", "--data-dir", data,
                                            "--json"]).stdout)
    assert status["fingerprint_matches"] is False
    assert "index.minimal_label_limit" in status["fingerprint_differences"]


def test_seeds_json_lists_ranked_iris_with_evidence(tmp_path: Path, catalog_dir: Path) -> None:
    data = str(tmp_path / "data")
    assert runner.invoke(app, ["index", "--catalog", str(catalog_dir), "--data-dir", data,
                               "--json"]).exit_code == 0
    result = runner.invoke(app, ["seeds", "Each sensor observes an observable property.",
                                 "--data-dir", data, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    iris = [s["iri"] for s in payload["seeds"]]
    assert "http://example.org/mini#Sensor" in iris[:3]
    # Evidence order: by tier, then by confidence (the fit among its signals).
    assert all(s["fit"] is not None for s in payload["seeds"])
    ranks = [(s["evidence_tier"], -s["confidence"]) for s in payload["seeds"]]
    assert ranks == sorted(ranks)
    assert payload["funnel"]["final_seeds"] == len(iris)
    text_file = tmp_path / "unit.txt"
    text_file.write_text("A thermal sensor.")
    assert runner.invoke(app, ["seeds", "--file", str(text_file), "--data-dir", data]
                         ).exit_code == 0
    both = runner.invoke(app, ["seeds", "x", "--file", str(text_file), "--data-dir", data])
    assert both.exit_code == 2 and "not both" in both.output


def test_seeds_without_an_index_says_what_to_run(tmp_path: Path) -> None:
    result = runner.invoke(app, ["seeds", "anything", "--data-dir", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "ontoretrieve index" in result.output


def test_index_with_no_catalog_anywhere_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./catalog here
    result = runner.invoke(app, ["index", "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2
    assert "--catalog PATH" in result.output
