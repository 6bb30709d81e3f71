"""A damaged index is reported as damaged, never served as an empty one, and repaired
from the catalog by the next sync (issue 20, finding 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve import Engine, load_settings
from ontoretrieve.cli import app
from ontoretrieve.errors import IndexError_
from ontoretrieve.index.build import tenant_dir
from ontoretrieve.index.embed import FastEmbedder

pytestmark = pytest.mark.integration
TEXT = "a sensor observes a property"


@pytest.fixture
def data(indexed_data_dir: Path) -> Path:
    return indexed_data_dir


def _shard(data: Path) -> Path:
    settings = load_settings(data_dir=data)
    state = json.loads((tenant_dir(settings) / "state.json").read_text())
    return tenant_dir(settings) / state["location"]


def test_a_deleted_shard_is_reported_then_rebuilt(data: Path,
                                                  real_embedder: FastEmbedder) -> None:
    shutil.rmtree(_shard(data))
    status = CliRunner().invoke(app, ["index", "status", "--json", "--data-dir", str(data)])
    assert status.exit_code == 1 and "damaged" in json.loads(status.stdout)["damaged"]
    settings = load_settings(data_dir=data)
    with Engine.open(settings, embedder=real_embedder) as engine:
        with pytest.raises(IndexError_, match=r"is damaged .*folder is gone.*doctor --repair"):
            engine.retrieve(TEXT)
        assert not _shard(data).exists()  # opening did not make an empty shard in its place
        report = engine.refresh()
        assert report.repaired and report.atoms_total > 0
        assert "http://example.org/mini#Sensor" in engine.retrieve(TEXT).terms


def test_a_shard_that_lost_its_segments_is_not_served(data: Path,
                                                      real_embedder: FastEmbedder) -> None:
    for part in ("segments", "wal"):  # (the write-ahead log alone would restore them)
        shutil.rmtree(_shard(data) / part)
        (_shard(data) / part).mkdir()  # the folders are there, the points are not
    settings = load_settings(data_dir=data)
    with Engine.open(settings, embedder=real_embedder) as engine:
        with pytest.raises(IndexError_, match=r"holds no points, its state"):
            engine.retrieve(TEXT)
        report = engine.doctor(repair=True)
        assert report.healthy and "rebuilt" in report.findings[1].detail
        assert "http://example.org/mini#Sensor" in engine.retrieve(TEXT).terms


def test_a_sync_sweeps_the_shards_killed_rebuilds_left(data: Path,
                                                       real_embedder: FastEmbedder) -> None:
    leftover = tenant_dir(load_settings(data_dir=data)) / "edge_20260101000000_000001"
    shutil.copytree(_shard(data), leftover)  # as a rebuild killed before its switch leaves
    with Engine.open(load_settings(data_dir=data), embedder=real_embedder) as engine:
        engine.refresh()
    assert not leftover.exists() and _shard(data).exists()


def _doctor(data: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = CliRunner().invoke(app, ["doctor", "--json", "--data-dir", str(data), *args],
                              env={"HF_HUB_OFFLINE": "1"})
    return done.exit_code, json.loads(done.stdout)


def test_the_doctor_finds_repairs_and_never_replaces_the_store(data: Path) -> None:
    code, healthy = _doctor(data)
    assert code == 0 and healthy["healthy"] is True
    shutil.rmtree(_shard(data))
    leftover = tenant_dir(load_settings(data_dir=data)) / "edge_20260101000000_000002"
    leftover.mkdir()
    code, sick = _doctor(data)
    verdicts = {f["check"]: f["verdict"] for f in sick["findings"]}  # type: ignore[union-attr]
    assert code == 1 and verdicts["index of default"] == "problem"
    assert verdicts["shards of default"] == "problem"
    code, repaired = _doctor(data, "--repair")
    verdicts = {f["check"]: f["verdict"] for f in repaired["findings"]}  # type: ignore[union-attr]
    assert code == 0 and verdicts["index of default"] == "repaired"
    assert not leftover.exists() and _shard(data).exists()
    assert _doctor(data)[0] == 0
    store = data / "oxigraph"
    (store / "CURRENT").unlink()
    before = sorted(p.name for p in store.iterdir())
    for args in ((), ("--repair",)):
        code, damaged = _doctor(data, *args)
        assert code == 1 and "damaged" in json.dumps(damaged)
    assert sorted(p.name for p in store.iterdir()) == before  # left exactly as it was


def test_forms_from_older_rules_are_reported_and_rewritten_without_embedding(
        data: Path, real_embedder: FastEmbedder, caplog: pytest.LogCaptureFixture) -> None:
    """After an upgrade that changes the form rules the mention lane is empty for the old
    forms: one warning says so, the doctor names it, a sync rewrites the forms and
    embeds nothing."""
    mentions = tenant_dir(load_settings(data_dir=data)) / "mentions"
    for path in mentions.iterdir():  # forms under another key: an older ontoretrieve's
        if path.name.endswith(".json.gz"):
            path.rename(path.with_name(path.name.replace(".json.gz", "-old.json.gz")))
        else:
            path.unlink()
    code, sick = _doctor(data)
    assert code == 1 and "mention forms of" in json.dumps(sick)
    status = CliRunner().invoke(app, ["index", "status", "--data-dir", str(data)])
    assert "mention forms of 2 version(s)" in status.stdout
    with Engine.open(load_settings(data_dir=data), embedder=real_embedder) as engine:
        with caplog.at_level("WARNING"):
            assert engine.retrieve("a sensor").seeds == engine.retrieve("a sensor").seeds
        said = [r.getMessage() for r in caplog.records if "mention forms" in r.getMessage()]
        assert len(said) == 1 and "`ontoretrieve index` rewrites them" in said[0]
        report = engine.refresh()  # what `ontoretrieve index` and `doctor --repair` run
        assert report.atoms_embedded == 0 and report.texts_encoded == 0
    code, healthy = _doctor(data)
    assert code == 0 and healthy["healthy"] is True
