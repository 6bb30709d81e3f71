"""What a new user meets first: stdout that parses, clear errors, help that reads well."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from ontoretrieve import Engine, OntoRetrieveError, load_settings
from ontoretrieve.backends import OxigraphStore
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.cli import app

pytestmark = pytest.mark.integration
runner = CliRunner()


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command in a process of its own: stdout and stderr apart."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONTORETRIEVE_")}
    return subprocess.run([sys.executable, "-m", "ontoretrieve", *args], capture_output=True,
                          text=True, timeout=600, env=env, cwd=cwd)


def test_the_first_run_prints_only_the_graph_on_stdout(tmp_path: Path,
                                                       catalog_dir: Path) -> None:
    # As the README's first command: a folder with a catalog/, no data dir yet.
    fresh = tmp_path / "fresh"
    shutil.copytree(catalog_dir, fresh / "catalog")
    first = _cli("retrieve", "A sensor observes a property.", cwd=fresh)
    assert first.returncode == 0, first.stderr
    triples = list(ox.parse(first.stdout.encode(), format=ox.RdfFormat.TURTLE))
    assert triples and "added" in first.stderr and "added" not in first.stdout
    # --catalog on a later run: the same, and JSON-LD parses as JSON.
    again = _cli("retrieve", "A sensor observes a property.", "--catalog", "catalog",
                 "--format", "jsonld", cwd=fresh)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) and "unchanged" in again.stderr


def test_a_port_out_of_range_or_in_use_is_one_message_and_exit_2(tmp_path: Path) -> None:
    out_of_range = runner.invoke(app, ["serve", "--port", "99999",
                                       "--data-dir", str(tmp_path)])
    assert out_of_range.exit_code == 2 and "65535" in out_of_range.output
    assert "Traceback" not in out_of_range.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = _cli("serve", "--host", "127.0.0.1", "--port", port, cwd=tmp_path)
    assert busy.returncode == 2 and "Traceback" not in busy.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr
    assert len(busy.stderr.strip().splitlines()) == 1


def test_help_shows_the_tenants_table_and_no_value_for_flags() -> None:
    shown = runner.invoke(app, ["retrieve", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "tenants table" in shown.output and "(declared under )" not in shown.output
    explain = next(line for line in shown.output.splitlines() if "--explain" in line)
    assert "<bool>" not in explain
    for command in (["retrieve"], ["catalog", "load"], ["serve"], ["index"]):
        page = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output
        assert "--help" in page and "<bool>" not in page, command  # --help too


def test_version() -> None:
    from ontoretrieve import __version__

    shown = runner.invoke(app, ["--version"])
    assert shown.exit_code == 0 and shown.output.strip() == f"ontoretrieve {__version__}"


def test_the_python_api_takes_a_str_path_and_names_a_list_mistake(
        tmp_path: Path, catalog_dir: Path) -> None:
    with Engine.open(load_settings(data_dir=tmp_path / "data")) as engine:
        load, sync = engine.catalog_load(str(catalog_dir))  # a str, as a user types it
        assert load is not None and load.added and sync.atoms_total > 0
        with pytest.raises(OntoRetrieveError, match=r"must be a str, not list.*retrieve_many"):
            engine.retrieve(["a sensor", "a thermometer"])  # type: ignore[arg-type]


def test_the_default_catalog_has_no_template_iris_and_a_template_is_named(
        tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[2] / "catalog"
    for path in sorted(shipped.rglob("*.ttl")):  # IRIs are written <...> in these files
        assert not re.findall(r"<[^<>\s]*\$\$[^<>\s]*>", path.read_text(encoding="utf-8")), path
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "units.ttl").write_text(
        "<http://q.org/$$QUDT_VERSION$$/vocab/unit> a <http://www.w3.org/2002/07/owl#Ontology> .\n"
        "<http://q.org/unit/V> <http://www.w3.org/2000/01/rdf-schema#isDefinedBy> "
        "<http://q.org/$$QUDT_VERSION$$/vocab/unit> .\n", encoding="utf-8")
    report = Catalog(OxigraphStore.in_memory()).load(folder)
    assert any("units.ttl" in w and "$$QUDT_VERSION$$" in w and "template" in w
               for w in report.warnings), report.warnings


def test_the_progress_rate_counts_from_the_start_of_the_version(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.progress import Progress

    import ontoretrieve.cli.common as common

    now = [0.0]
    monkeypatch.setattr(common.time, "perf_counter", lambda: now[0])
    rates: list[str] = []
    update = Progress.update

    def recording(self: Progress, task: Any, **fields: Any) -> None:
        if "rate" in fields:
            rates.append(fields["rate"])
        update(self, task, **fields)

    monkeypatch.setattr(Progress, "update", recording)

    class Indexing:
        def catalog_load(self, path: Any, **kwargs: Any) -> Any:
            now[0] = 100.0  # the version starts
            kwargs["progress"]("ontology", 1, 1)
            now[0] = 122.0  # its 2,200 atoms are written, reported once at the end
            kwargs["progress"]("embed", 2_200, 2_200)
            return None, None

    common.sync_with_progress(Indexing(), None, False, "default", show=True)  # type: ignore[arg-type]
    assert rates == ["100 atoms/s"]  # 2,200 atoms in 22 s, not since the first report


def test_a_mistyped_data_dir_is_an_error_not_a_new_index(tmp_path: Path) -> None:
    typo = tmp_path / "dtaa"
    result = runner.invoke(app, ["retrieve", "a sensor", "--data-dir", str(typo)])
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not typo.exists()


def test_tables_show_iris_whole_at_80_columns(tmp_path: Path, catalog_dir: Path) -> None:
    data = str(tmp_path / "data")
    assert runner.invoke(app, ["index", "--catalog", str(catalog_dir), "--data-dir", data,
                               "--json"]).exit_code == 0
    shown = runner.invoke(app, ["seeds", "a thermometer observes the temperature",
                                "--data-dir", data], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    assert "http://example.org/" in shown.output and "…" not in shown.output


def test_term_matches_as_csv_and_sssom(tmp_path: Path, catalog_dir: Path) -> None:
    text = "A sensor observes an observable property."
    data = str(tmp_path / "data")
    done = _cli("retrieve", text, "--catalog", str(catalog_dir), "--data-dir", data,
                "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    spans = [r for r in rows if r["start"]]
    assert spans and all(text[int(r["start"]):int(r["end"])] == r["subject_label"]
                         for r in spans)  # every offset points at its span
    sensor = next(r for r in spans if r["object_id"] == "http://example.org/mini#Sensor")
    assert (sensor["subject_label"], sensor["object_label"]) == ("sensor", "sensor")
    assert sensor["match_type"].startswith("label") and sensor["predicate_id"] == "skos:exactMatch"
    sssom = _cli("retrieve", text, "--data-dir", data, "--format", "sssom")
    assert sssom.returncode == 0, sssom.stderr
    lines = sssom.stdout.splitlines()
    header = [line for line in lines if line.startswith("#")]
    table = [line.split("\t") for line in lines if not line.startswith("#")]
    assert "#curie_map:" in header and table[0][:4] == [
        "subject_id", "subject_label", "predicate_id", "object_id"]
    assert len(table) == len(rows) + 1 and all(len(r) == len(table[0]) for r in table)
    wrapped = "A sen-\nsor observes an observ-\nable property."  # as a PDF gives it
    broken = _cli("retrieve", wrapped, "--data-dir", data, "--format", "csv")
    assert broken.returncode == 0, broken.stderr
    found = next(r for r in csv.DictReader(io.StringIO(broken.stdout))
                 if r["object_id"] == "http://example.org/mini#Sensor")
    assert found["subject_label"] == "sensor"  # the word, read whole
    assert wrapped[int(found["start"]):int(found["end"])] == "sen-\nsor"  # the text's span
