"""The three unit layouts of ``bench recall``, and their errors."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.bench.units import T2K_BASE, read_units, sample_units, text2kg_turtle
from ontoretrieve.errors import OntoRetrieveError
from tests.support import write_jsonl, write_text2kg


def test_bench_units_keep_any_of_groups_and_derived_gold(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "m.jsonl", [{
        "unit_id": "m:1", "source": "measeval", "text": "5 mV", "gold_iris": ["u:MilliV"],
        "gold_any_of": [["u:DAY", "u:DAY_Sidereal"]], "gold_iris_derived": ["q:Voltage"],
        "ontology": "ont_1"}])
    (unit,) = read_units([path], tmp_path).units
    assert unit.gold_groups() == [frozenset({"u:MilliV"}), frozenset({"u:DAY", "u:DAY_Sidereal"})]
    assert unit.derived == ["q:Voltage"] and unit.ontology == "ont_1"
    assert unit.source == "measeval"


def test_a_bad_row_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"unit_id": "a", "text": "x", "gold_iris": []}\n{not json\n')
    with pytest.raises(OntoRetrieveError, match=r"bad.jsonl:2"):
        read_units([path], tmp_path)
    path.write_text('{"unit_id": "a", "text": "x", "gold_iris": "http://x/not-a-list"}\n')
    with pytest.raises(OntoRetrieveError, match=r"bad.jsonl: row 1: expected a list"):
        read_units([path], tmp_path)


def test_duplicate_ids_and_unknown_layouts_are_refused(tmp_path: Path) -> None:
    row = {"unit_id": "a", "text": "x", "gold_iris": []}
    a, b = write_jsonl(tmp_path / "a.jsonl", [row]), write_jsonl(tmp_path / "b.jsonl", [row])
    with pytest.raises(OntoRetrieveError, match="'a' appears twice"):
        read_units([a, b], tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(OntoRetrieveError, match="not a units file, a corpus folder"):
        read_units([tmp_path / "empty"], tmp_path)


def test_reference_corpus_folder_brings_its_catalog(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "ontologies").mkdir(parents=True)
    write_jsonl(corpus / "cases.jsonl", [{"id": 7, "text": "t", "expected_iris": ["http://x/A"],
                                     "ontology_iri": "http://x/"}])
    found = read_units([corpus], tmp_path)
    assert found.catalogs == [corpus / "ontologies"]
    (unit,) = found.units
    assert (unit.id, unit.source, unit.gold, unit.ontology) == (
        "7", "corpus", [["http://x/A"]], "http://x/")


def test_text2kg_layout_gives_relation_gold_and_a_catalog_with_the_same_iris(
        tmp_path: Path) -> None:
    found = read_units([write_text2kg(tmp_path / "t2k")], tmp_path / "work")
    assert [u.id for u in found.units] == ["text2kg:ont_1_university_train_1",
                                           "text2kg:ont_1_university_test_1"]
    city = f"{T2K_BASE}ont_1_university/relations#city"
    first = found.units[0]
    assert first.gold == [[city]] and first.ontology == "ont_1_university"
    assert f"{T2K_BASE}ont_1_university/concepts#City" in first.derived
    (catalog,) = found.catalogs
    store = ox.Store()
    store.load(path=str(catalog / "ont_1_university.ttl"), format=ox.RdfFormat.TURTLE)
    subjects = {q.subject.value for q in store}
    assert city in subjects and f"{T2K_BASE}ont_1_university/concepts#City" in subjects


def test_text2kg_relation_missing_from_its_ontology_is_named(tmp_path: Path) -> None:
    folder = write_text2kg(tmp_path / "t2k")
    write_jsonl(folder / "train" / "ont_1_university_train.jsonl", [
        {"id": "x", "sent": "s", "triples": [{"sub": "a", "rel": "mayor", "obj": "b"}]}])
    with pytest.raises(OntoRetrieveError, match="relation 'mayor' is not in ontology"):
        read_units([folder], tmp_path / "work")


def test_text2kg_turtle_declares_properties_with_domain_and_range() -> None:
    turtle = text2kg_turtle({"id": "o", "relations": [
        {"pid": "p", "label": "p", "domain": "A", "range": "B"}], "concepts": []})
    triples = list(ox.parse(turtle.encode(), format=ox.RdfFormat.TURTLE))
    predicates = {t.predicate.value.rsplit("#", 1)[-1] for t in triples}
    assert {"type", "label", "domain", "range"} <= predicates


def test_sampling_is_per_source_and_fixed_by_the_seed(tmp_path: Path) -> None:
    rows = [{"unit_id": f"{s}{i}", "source": s, "text": "t", "gold_iris": []}
            for s in "ab" for i in range(20)]
    units = read_units([write_jsonl(tmp_path / "u.jsonl", rows)], tmp_path).units
    first = sample_units(units, 5, seed=3)
    assert [u.id for u in first] == [u.id for u in sample_units(units, 5, seed=3)]
    assert sorted(u.source for u in first) == ["a"] * 5 + ["b"] * 5
    assert [u.id for u in first] != [u.id for u in sample_units(units, 5, seed=4)]
