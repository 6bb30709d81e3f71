"""Careless or hostile input gets one clear error (exit 2) or a partial load, never a
traceback (issue 20, finding 9)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.cli import app
from tests.support import FIXTURES

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_tenants_that_are_not_json_are_named(tmp_path: Path) -> None:
    done = runner.invoke(app, ["catalog", "list", "--data-dir", str(tmp_path)],
                         env={"ONTORETRIEVE_TENANTS": "not json"})
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert '"tenants"' in done.output and "must be JSON" in done.output


def test_a_binary_settings_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "ontoretrieve.toml"
    config.write_bytes(b"\x7fELF\x02\x01\x01\x00\xd0\xff" * 20)
    done = runner.invoke(app, ["catalog", "list", "--data-dir", str(tmp_path),
                               "--config", str(config)])
    assert done.exit_code == 2 and "is not UTF-8 text" in done.output
    assert "Traceback" not in done.output


def test_file_names_that_look_like_markup_load_and_list(tmp_path: Path) -> None:
    folder = tmp_path / "catalog" / "x["
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "second.ttl", folder / "]closing[b].ttl")
    shutil.copy(FIXTURES / "mini.ttl", tmp_path / "catalog" / "mini.ttl")
    data = str(tmp_path / "data")
    loaded = runner.invoke(app, ["catalog", "load", str(tmp_path / "catalog"), "--data-dir",
                                 data], env={"COLUMNS": "300"})
    assert loaded.exit_code == 0, loaded.output
    assert "x[/]closing[b].ttl" in loaded.output
    listed = runner.invoke(app, ["catalog", "list", "--data-dir", data],
                           env={"COLUMNS": "300"})
    assert listed.exit_code == 0 and "]closing[b].ttl" in listed.output


def test_a_file_deleted_during_a_load_fails_alone(tmp_path: Path) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    for name in ("a.ttl", "b.ttl", "c.ttl"):
        shutil.copy(FIXTURES / ("mini.ttl" if name != "b.ttl" else "second.ttl"),
                    folder / name)
    (folder / "c.ttl").write_text((FIXTURES / "mini.ttl").read_text().replace(
        "example.org/mini", "example.org/third"))

    def vanish(file: Path, done: int, total: int) -> None:
        if file.name == "a.ttl":
            (folder / "b.ttl").unlink()  # gone after the folder was listed

    report = Catalog(OxigraphStore.in_memory()).load(folder, progress=vanish)
    assert [p.path.endswith("b.ttl") for p in report.failed] == [True]
    assert "cannot read" in report.failed[0].reason and report.partial
    assert len(report.added) == 2
