"""Catalog loading on the embedded store: formats, identity, versions, failures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.errors import CatalogPathError
from ontoretrieve.records import VersionStatus
from tests.support import FIXTURES, write_format

pytestmark = pytest.mark.integration


@pytest.fixture
def catalog() -> Catalog:
    return Catalog(OxigraphStore.in_memory())


@pytest.mark.parametrize(
    ("suffix", "rdflib_format"),
    [(".ttl", "turtle"), (".owl", "xml"), (".rdf", "xml"), (".nt", "nt"),
     (".nq", "nquads"), (".trig", "trig"), (".jsonld", "json-ld")],
)
def test_each_format_loads_with_the_same_identity_and_hash(
        tmp_path: Path, catalog: Catalog, mini_ttl: Path, suffix: str,
        rdflib_format: str) -> None:
    reference = Catalog(OxigraphStore.in_memory()).load(mini_ttl).added[0]
    target = write_format(mini_ttl, tmp_path / f"mini{suffix}", rdflib_format)
    report = catalog.load(target)
    assert not report.failed
    (version,) = report.added
    assert version.ontology_iri == "http://example.org/mini"
    assert version.version == "http://example.org/mini/1.0"
    assert version.triple_count == reference.triple_count
    assert version.content_hash == reference.content_hash
    assert len(catalog.graph_triples(version)) == version.triple_count


def test_version_info_and_derived_iri(tmp_path: Path, catalog: Catalog) -> None:
    (tmp_path / "plain.ttl").write_text(
        '<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "a" .\n')
    shutil.copy(FIXTURES / "second.ttl", tmp_path / "second.ttl")
    report = catalog.load(tmp_path)
    by_source = {Path(v.source).name: v for v in report.added}
    assert by_source["second.ttl"].version == "2.1"
    assert by_source["plain.ttl"].ontology_iri == "urn:ontoretrieve:ontology:plain"
    assert by_source["plain.ttl"].iri_derived


def test_unchanged_reload_is_a_no_op(catalog: Catalog, catalog_dir: Path) -> None:
    first = catalog.load(catalog_dir)
    before = catalog.versions(include_inactive=True)
    second = catalog.load(catalog_dir)
    assert len(first.added) == 2 and first.skipped[0].endswith("README.md")
    assert not second.changed and len(second.unchanged) == 2
    assert catalog.versions(include_inactive=True) == before


def test_reformatted_file_is_not_a_new_version(catalog: Catalog, catalog_dir: Path) -> None:
    catalog.load(catalog_dir)
    mini = catalog_dir / "mini.ttl"
    write_format(FIXTURES / "mini.ttl", mini, "nt")  # same triples, other bytes
    report = catalog.load(catalog_dir)
    assert not report.changed
    assert len(catalog.versions(include_inactive=True)) == 2


def test_changed_file_becomes_a_new_version(catalog: Catalog, catalog_dir: Path) -> None:
    catalog.load(catalog_dir)
    mini = catalog_dir / "mini.ttl"
    mini.write_text(mini.read_text() + '\n:Extra a owl:Class ; rdfs:label "extra" .\n')
    report = catalog.load(catalog_dir)
    (new,) = report.updated
    assert len(report.unchanged) == 1
    old = [v for v in catalog.versions(include_inactive=True)
           if v.source == new.source and v.status is VersionStatus.SUPERSEDED]
    assert len(old) == 1 and old[0].content_hash != new.content_hash
    assert new.triple_count == old[0].triple_count + 2
    # The old version's graph is kept for rollback.
    assert len(catalog.graph_triples(old[0])) == old[0].triple_count


def test_file_gone_from_the_folder_is_reported(catalog: Catalog, catalog_dir: Path) -> None:
    catalog.load(catalog_dir)
    (catalog_dir / "sub" / "second.ttl").unlink()
    report = catalog.load(catalog_dir)
    assert [v.ontology_iri for v in report.removed] == ["http://example.org/second"]
    assert [v.ontology_iri for v in catalog.versions()] == ["http://example.org/mini"]


def test_broken_file_is_reported_and_the_load_is_partial(
        catalog: Catalog, catalog_dir: Path) -> None:
    shutil.copy(FIXTURES / "broken.ttl", catalog_dir / "broken.ttl")
    report = catalog.load(catalog_dir)
    (problem,) = report.failed
    assert problem.path.endswith("broken.ttl")
    assert (problem.line, problem.column) == (3, 37)  # the opening quote
    assert "end of file" in problem.reason.lower()
    assert report.partial and len(report.added) == 2
    state = catalog.last_load()
    assert state is not None and state.partial and state.failed_files == 1
    (catalog_dir / "broken.ttl").unlink()
    assert catalog.load(catalog_dir).partial is False
    assert catalog.last_load().partial is False  # type: ignore[union-attr]


def test_missing_and_empty_paths_are_clear_errors(catalog: Catalog, tmp_path: Path) -> None:
    with pytest.raises(CatalogPathError, match="does not exist"):
        catalog.load(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogPathError, match="holds no RDF file"):
        catalog.load(tmp_path / "empty")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(CatalogPathError, match="not an RDF file"):
        catalog.load(tmp_path / "notes.txt")


def test_blank_nodes_of_two_files_stay_apart(tmp_path: Path, catalog: Catalog) -> None:
    text = '_:b0 <http://x/p> "{v}" .\n<http://x/{v}> <http://x/q> _:b0 .\n'
    (tmp_path / "a.nt").write_text(text.format(v="a"))
    (tmp_path / "b.nt").write_text(text.format(v="b"))
    catalog.load(tmp_path)
    blanks = {
        t.subject for v in catalog.versions() for t in catalog.graph_triples(v)
        if isinstance(t.subject, ox.BlankNode)
    }
    assert len(blanks) == 2


def test_on_disk_store_keeps_the_catalog(tmp_path: Path, catalog_dir: Path) -> None:
    store = OxigraphStore.open(tmp_path / "data")
    Catalog(store).load(catalog_dir)
    store.close()
    reopened = OxigraphStore.open(tmp_path / "data")
    assert len(Catalog(reopened).versions()) == 2
    reopened.close()


def test_remote_jsonld_context_and_empty_files_are_named(tmp_path: Path,
                                                         catalog: Catalog) -> None:
    (tmp_path / "remote.jsonld").write_text(
        '{"@context": "http://schema.org/", "@id": "http://x/a", "name": "x"}')
    (tmp_path / "empty.ttl").write_text("")
    shutil.copy(FIXTURES / "second.ttl", tmp_path / "second.ttl")
    report = catalog.load(tmp_path)
    reasons = {Path(p.path).name: p.reason for p in report.failed}
    assert "inline the context" in reasons["remote.jsonld"]
    assert "no triple" in reasons["empty.ttl"]
    assert len(report.added) == 1 and report.partial
