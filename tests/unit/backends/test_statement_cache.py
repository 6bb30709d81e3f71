"""Graph statements kept beside the embedded store: used only while the store agrees.

A reader process keeps what it decoded; the next process loads it, unless the
store's graph changed meanwhile (another count) or was loaded again (new
blank-node labels), or the file is damaged: then the store is read again.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.backends.oxigraph import OxigraphStore

TURTLE = b"""
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://x/A> a owl:Class ; rdfs:label "a" ;
    rdfs:subClassOf [ a owl:Restriction ; owl:onProperty <http://x/p> ;
                      owl:someValuesFrom <http://x/B> ] .
<http://x/B> a owl:Class ; rdfs:label "b" .
"""


def _parsed() -> list[ox.Triple]:
    """The graph read afresh: new blank-node labels each time, as a reload has."""
    return [q.triple for q in ox.parse(TURTLE, format=ox.RdfFormat.TURTLE)]


def _as_stored(store: OxigraphStore, graph: str) -> set[tuple[object, ...]]:
    return {(t.subject, t.predicate, t.object) for t in store.graph_triples(graph)}


@pytest.fixture
def stores(tmp_path: Path) -> tuple[OxigraphStore, OxigraphStore, Path]:
    path = tmp_path / "oxigraph"
    writer = OxigraphStore.open(path)
    writer.replace_graph("urn:g", _parsed())
    return writer, OxigraphStore.open_reader(path), tmp_path / "oxigraph.statements"


def test_kept_statements_equal_the_stores_labels_included(
        stores: tuple[OxigraphStore, OxigraphStore, Path]) -> None:
    writer, reader, folder = stores
    decoded = reader.graph_statements("urn:g")
    assert len(list(folder.iterdir())) == 1
    loaded = OxigraphStore.open_reader(writer_path(folder)).graph_statements("urn:g")
    assert set(loaded) == set(decoded) == _as_stored(writer, "urn:g")
    assert len(loaded) == len(decoded) == 8


@contextmanager
def _kept_before(folder: Path) -> Iterator[None]:
    """The kept files as they were before the block, put back after it: as if another
    process had kept them while the store's graph changed."""
    stale = folder.with_name("stale")
    shutil.copytree(folder, stale)
    yield
    shutil.rmtree(folder)
    shutil.copytree(stale, folder)


def test_a_graph_loaded_again_is_read_from_the_store_not_the_stale_file(
        stores: tuple[OxigraphStore, OxigraphStore, Path]) -> None:
    writer, reader, folder = stores
    reader.graph_statements("urn:g")
    with _kept_before(folder):
        writer.replace_graph("urn:g", _parsed())  # same content, new blank-node labels
    assert set(reader.graph_statements("urn:g")) == _as_stored(writer, "urn:g")


def test_a_graph_with_other_triples_is_read_from_the_store(
        stores: tuple[OxigraphStore, OxigraphStore, Path]) -> None:
    writer, reader, folder = stores
    reader.graph_statements("urn:g")
    # The same statements plus one, every old one kept (labels too): only the count says.
    extra = ox.Triple(ox.NamedNode("http://x/C"), ox.NamedNode("http://x/p"), ox.Literal("c"))
    with _kept_before(folder):
        writer.update(f"INSERT DATA {{ GRAPH <urn:g> {{ {extra} }} }}")
    assert len(reader.graph_statements("urn:g")) == 9


def test_a_damaged_file_is_made_again(stores: tuple[OxigraphStore, OxigraphStore, Path],
                                      caplog: pytest.LogCaptureFixture) -> None:
    writer, reader, folder = stores
    reader.graph_statements("urn:g")
    [kept] = folder.iterdir()
    kept.write_bytes(kept.read_bytes()[:100])
    with caplog.at_level(logging.WARNING):
        fresh = OxigraphStore.open_reader(writer_path(folder)).graph_statements("urn:g")
    assert set(fresh) == _as_stored(writer, "urn:g")
    assert "unreadable" in caplog.text
    assert len(kept.read_bytes()) > 100  # kept again, whole


def test_the_writer_forgets_a_graph_it_replaces_or_drops(
        stores: tuple[OxigraphStore, OxigraphStore, Path]) -> None:
    writer, _, folder = stores
    writer.graph_statements("urn:g")
    assert list(folder.iterdir())
    writer.replace_graph("urn:g", _parsed())
    assert not list(folder.iterdir())
    writer.graph_statements("urn:g")
    writer.drop_graph("urn:g")
    assert not list(folder.iterdir())
    assert writer.graph_statements("urn:g") == []


def test_a_folder_that_cannot_be_written_leaves_reads_as_they_were(
        stores: tuple[OxigraphStore, OxigraphStore, Path]) -> None:
    writer, reader, folder = stores
    folder.write_text("not a folder")  # mkdir and writes inside fail
    assert set(reader.graph_statements("urn:g")) == _as_stored(writer, "urn:g")
    assert set(reader.graph_statements("urn:g")) == _as_stored(writer, "urn:g")


def writer_path(folder: Path) -> Path:
    return folder.with_name("oxigraph")
