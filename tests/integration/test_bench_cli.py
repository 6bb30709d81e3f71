"""``ontoretrieve bench recall`` and ``compare`` end to end: real model, real stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ontoretrieve.bench.report import PLOTS
from ontoretrieve.cli import app
from tests.support import write_text2kg

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).parent.parent / "fixtures"
ZOO = "http://example.org/zoo#"
UNIT = "http://qudt.org/vocab/unit/"
ROW_FIELDS = {"id", "retrieved_term_iris", "context_subjects", "context_triples_count",
              "context_tokens", "seconds", "funnel", "gold", "graph_stage", "gold_unnamed",
              "gold_unnamed_at_tokens", "context_bare_subjects"}


def _corpus(folder: Path) -> Path:
    (folder / "ontologies").mkdir(parents=True)
    for name in ("context/zoo.ttl", "context/ext.ttl", "qudt-units-subset.ttl"):
        shutil.copy(FIXTURES / name, folder / "ontologies")
    cases = [
        {"id": "zoo", "text": "The keeper feeds the cat, which eats a mouse.",
         "expected_iris": [ZOO + "Keeper", ZOO + "feeds", ZOO + "Cat"],
         "ontology_iri": "http://example.org/zoo"},
        {"id": "probe", "text": "The probe recorded a 5 mV signal for 4-15 days.",
         "expected_iris": [UNIT + "MilliV", UNIT + "DAY"]},
    ]
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("bench")
    out = root / "run"
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(_corpus(root / "corpus")),
        "--units", str(write_text2kg(root / "t2k")), "--out", str(out),
        "--data-dir", str(root / "data"), "--ablation", "no_expansion",
        "--ablation", "sparse_only", "--ablation", "dense_only",
        "--sweep", "expand.max_total_triples=40,2000", "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def _rows(out: Path, variant: str) -> dict[str, dict[str, Any]]:
    lines = (out / f"{variant}.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_both_layouts_run_with_every_variant(run: tuple[Path, dict[str, Any]]) -> None:
    out, data = run
    assert list(data["variants"]) == ["base", "no_expansion", "sparse_only", "dense_only",
                                      "expand.max_total_triples=40",
                                      "expand.max_total_triples=2000"]
    assert data["units_per_source"] == {"corpus": 2, "text2kg": 2}
    rows = _rows(out, "base")
    assert set(rows) == {"zoo", "probe", "text2kg:ont_1_university_train_1",
                         "text2kg:ont_1_university_test_1"}
    for row in rows.values():
        assert set(row) >= ROW_FIELDS
    base = data["variants"]["base"]["summary"]
    assert base["sources"]["corpus"]["context_term_recall"] == 1.0
    assert base["sources"]["corpus"]["on_topic_precision"] is not None
    assert set(rows["zoo"]["context_subjects"]) >= {ZOO + "Keeper", ZOO + "feeds"}
    assert rows["zoo"]["gold_ontologies"][ZOO + "Cat"] == "zoo"
    assert "ont_1_university" in base["ontologies"]  # the converted Text2KGBench catalog
    assert base["unknown_unit_ontologies"] == {}  # both units' ontologies were matched
    assert base["sources"]["text2kg"]["on_topic_precision"] > 0
    # A unit naming its own ontology is scoped to it; the others search everything.
    assert data["scoped"] is True
    assert {i: r["scoped"] for i, r in rows.items()} == {
        "zoo": True, "probe": False, "text2kg:ont_1_university_train_1": True,
        "text2kg:ont_1_university_test_1": True}
    assert all(iri.startswith(ZOO) for iri in rows["zoo"]["retrieved_term_iris"])
    # The fixtures label every term: no context lists one by a bare IRI.
    assert all(r["context_bare_subjects"] == 0 and r["gold_unnamed"] == [] for r in rows.values())
    assert base["overall"]["bare_subject_share"] == 0.0


def test_ablations_really_switch_things_off(run: tuple[Path, dict[str, Any]]) -> None:
    out, _ = run
    sparse = [row["funnel"]["hits_per_lane"] for row in _rows(out, "sparse_only").values()]
    assert all(lanes["core"] == lanes["neighborhood"] == 0 for lanes in sparse)
    assert any(lanes["bm25"] > 0 for lanes in sparse)
    for row in _rows(out, "dense_only").values():
        assert row["funnel"]["hits_per_lane"]["bm25"] == 0
        assert row["funnel"]["added_by_triggers"] == 0
    base, bare = _rows(out, "base"), _rows(out, "no_expansion")
    for uid, row in bare.items():
        stage = row["graph_stage"]
        assert stage["promoted_types"] == stage["schema_closure_added"] == 0
        assert stage["small_module_triples"] == 0
        assert row["context_triples_count"] <= base[uid]["context_triples_count"]


def test_budget_sweep_orders_context_sizes(run: tuple[Path, dict[str, Any]]) -> None:
    _, data = run
    sizes = [data["variants"][f"expand.max_total_triples={b}"]["summary"]["overall"]
             ["context_triples"]["mean"] for b in (40, 2000)]
    assert sizes[0] < sizes[1]


def test_report_and_compare(run: tuple[Path, dict[str, Any]]) -> None:
    out, _ = run
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(PLOTS)
    assert "no_expansion" in (out / "summary.md").read_text()
    result = CliRunner().invoke(app, ["bench", "compare", str(out / "base.jsonl"),
                                      str(out / "no_expansion.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["units"] == 4


def test_a_variant_that_needs_another_index_is_refused_before_any_work(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(corpus), "--out", str(tmp_path / "out"),
        "--data-dir", str(tmp_path / "data"), "--sweep", "index.obo_synonyms=false"])
    assert result.exit_code == 2
    assert "changes how the index is built" in result.output
    assert not (tmp_path / "data").exists()


def test_bad_units_path_is_named(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(tmp_path), "--out", str(tmp_path / "out"),
        "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2 and "not a units file" in result.output


# What a second run over the fixture's units retrieves as the first did (ontology names
# differ: its corpus files are written under its own output folder, so they are loaded
# as other sources).
SAME_RETRIEVAL = ("retrieved_term_iris", "context_subjects", "context_triples_count",
                  "context_tokens", "funnel", "gold", "gold_at_tokens", "gold_unnamed",
                  "gold_unnamed_at_tokens", "context_bare_subjects", "graph_stage", "scoped")


def _run_again(run: tuple[Path, dict[str, Any]], name: str, *options: str
               ) -> tuple[Path, dict[str, Any]]:
    """``bench recall`` over the fixture run's units and data directory, with ``options``."""
    root = run[0].parent
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(root / "corpus"), "--units", str(root / "t2k"),
        "--out", str(root / name), "--data-dir", str(root / "data"), *options, "--json"])
    assert result.exit_code == 0, result.output
    return root / name, json.loads(result.stdout)


def _assert_same_retrievals(first: Path, second: Path, variant: str) -> None:
    one, other = _rows(first, variant), _rows(second, variant)
    assert list(one) == list(other), variant  # unit order
    for unit_id, row in one.items():
        assert {k: row[k] for k in SAME_RETRIEVAL} == {
            k: other[unit_id][k] for k in SAME_RETRIEVAL}, (variant, unit_id)


def test_batched_run_writes_the_same_rows(run: tuple[Path, dict[str, Any]]) -> None:
    batched, data = _run_again(run, "batched", "--batch", "2")
    assert data["batch"] == 2
    _assert_same_retrievals(run[0], batched, "base")


def test_workers_write_the_same_rows_in_the_same_order(run: tuple[Path, dict[str, Any]]) -> None:
    # One unit per chunk, so both workers make rows and the order is the parent's to keep.
    pooled, data = _run_again(run, "pooled", "--ablation", "no_expansion", "--batch", "1",
                              "--workers", "2")
    assert data["workers"] == 2 and list(data["variants"]) == ["base", "no_expansion"]
    assert data["warm_up_seconds"] > 0
    for variant in ("base", "no_expansion"):
        _assert_same_retrievals(run[0], pooled, variant)
        assert all(r["seconds"]["total"] > 0 for r in _rows(pooled, variant).values())


@pytest.mark.parametrize("workers", ["0", "many", "257"])
def test_a_bad_workers_value_is_refused_before_any_work(tmp_path: Path, workers: str) -> None:
    result = CliRunner().invoke(app, [
        "bench", "recall", "--units", str(_corpus(tmp_path / "corpus")),
        "--out", str(tmp_path / "out"), "--data-dir", str(tmp_path / "data"),
        "--workers", workers])
    assert result.exit_code == 2
    assert "--workers" in result.output and repr(workers) in result.output
    assert not (tmp_path / "data").exists() and not (tmp_path / "out").exists()
