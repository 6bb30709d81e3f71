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


def test_an_empty_data_dir_and_shared_or_empty_keys_are_refused(tmp_path: Path) -> None:
    empty = runner.invoke(app, ["catalog", "list"], env={"ONTORETRIEVE_DATA_DIR": ""})
    assert empty.exit_code == 2 and "data directory is empty" in empty.output
    config = tmp_path / "t.toml"
    config.write_text('[tenants.a]\napi_key = "k1"\n[tenants.b]\napi_key = "k1"\n')
    shared = runner.invoke(app, ["catalog", "list", "--data-dir", str(tmp_path / "d"),
                                 "--config", str(config)])
    assert shared.exit_code == 2 and "have the same api_key" in shared.output
    config.write_text('[tenants.a]\napi_key = " "\n')
    blank = runner.invoke(app, ["catalog", "list", "--data-dir", str(tmp_path / "d"),
                                "--config", str(config)])
    assert blank.exit_code == 2 and "empty api_key" in blank.output
    assert "k1" not in shared.output  # the key itself is never printed


def test_an_unknown_variable_is_named_with_the_setting_it_resembles(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    from ontoretrieve.settings import load_settings

    with caplog.at_level("WARNING"), pytest.MonkeyPatch.context() as env:
        env.setenv("ONTORETRIEVE_SEED__MAX_ATOMS", "5")  # "seed", not "seeds"
        load_settings(data_dir=tmp_path)
    assert "ONTORETRIEVE_SEED__MAX_ATOMS names no setting" in caplog.text
    assert "did you mean ONTORETRIEVE_SEEDS__MAX_ATOMS" in caplog.text


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    from ontoretrieve.catalog.files import parse_file

    marked = tmp_path / "bom.ttl"
    marked.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "mini.ttl").read_bytes())
    assert len(parse_file(marked).triples) == len(parse_file(FIXTURES / "mini.ttl").triples)


def test_a_state_file_location_outside_the_data_dir_is_refused(tmp_path: Path) -> None:
    import json

    from ontoretrieve.errors import IndexError_
    from ontoretrieve.index.state import IndexState

    path = tmp_path / "state.json"
    path.write_text(json.dumps({"backend": "edge", "location": "../../outside",
                                "dimension": 384, "fingerprint": {}}))
    with pytest.raises(IndexError_, match=r"(?s)unreadable .*location.*pattern"):
        IndexState.load(path)


def test_a_linked_folder_is_named_not_skipped_silently(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(FIXTURES / "second.ttl", outside / "second.ttl")
    folder = tmp_path / "catalog"
    folder.mkdir()
    shutil.copy(FIXTURES / "mini.ttl", folder / "mini.ttl")
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    report = Catalog(OxigraphStore.in_memory()).load(folder)
    assert len(report.added) == 1
    assert any("linked: a link to a folder, not followed" in w for w in report.warnings)


@pytest.mark.parametrize("folder", ["system", "bogus"])
def test_a_dense_model_path_that_holds_no_model_is_named(tmp_path: Path, folder: str) -> None:
    target = Path("/etc") if folder == "system" else tmp_path / "model"
    if folder == "bogus":
        target.mkdir()
        (target / "model.onnx").write_text("not a model")
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    shutil.copy(FIXTURES / "mini.ttl", catalog)
    done = runner.invoke(app, ["index", "--catalog", str(catalog), "--data-dir",
                               str(tmp_path / "data")],
                         env={"ONTORETRIEVE_EMBED__DENSE_MODEL_PATH": str(target),
                              "HF_HUB_OFFLINE": "1"})
    assert done.exit_code == 2 and "Traceback" not in done.output, done.output
    assert str(target) in done.output and ("no ONNX model" in done.output
                                           or "cannot load embedding model" in done.output)


STAR = """@prefix : <http://example.org/star#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://example.org/star> a owl:Ontology .
:Probe a owl:Class ; rdfs:label "probe" ; rdfs:subClassOf :Device .
:Device a owl:Class ; rdfs:label "device" .
<< :Probe rdfs:subClassOf :Device >> :assertedBy :curator .
:Probe :asserts <<( :Probe rdfs:subClassOf :Device )>> .
"""


def test_json_ld_of_an_rdf_star_context_is_a_clear_error(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "star.ttl").write_text(STAR)
    data = str(tmp_path / "data")
    turtle = runner.invoke(app, ["retrieve", "a probe is a device", "--catalog", str(catalog),
                                 "--data-dir", data, "--mode", "full"],
                           env={"HF_HUB_OFFLINE": "1"})
    assert turtle.exit_code == 0, turtle.output
    jsonld = runner.invoke(app, ["retrieve", "a probe is a device", "--data-dir", data,
                                 "--mode", "full", "--format", "jsonld"],
                           env={"HF_HUB_OFFLINE": "1"})
    assert jsonld.exit_code == 2 and "Traceback" not in jsonld.output
    assert "RDF 1.2 triple terms" in jsonld.output and "turtle" in jsonld.output

    from ontoretrieve import Engine, OntoRetrieveError, load_settings

    with Engine.open(load_settings(data_dir=data)) as engine:
        context = engine.retrieve("a probe is a device", mode="full")
        with pytest.raises(OntoRetrieveError, match=r"RDF 1\.2 triple terms"):
            context.graph()
