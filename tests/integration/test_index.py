"""Index sync with the real model: backends agree, fingerprint, incremental, pruning."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.errors import EmbeddingContractMismatchError
from ontoretrieve.index.build import index_status, open_query_index, sync_index
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.index.layers import VersionedIndex
from ontoretrieve.records import SyncReport
from ontoretrieve.settings import Settings, load_settings
from tests.support import FIXTURES

pytestmark = pytest.mark.integration


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    return load_settings(data_dir=tmp_path / "data", **overrides)


MINI = "http://example.org/mini"


def _current_hash(store: OxigraphStore, ontology_iri: str) -> str:
    return next(v.content_hash for v in Catalog(store).versions()
                if v.ontology_iri == ontology_iri)


def test_first_sync_then_no_op(tmp_path: Path, catalog_dir: Path,
                               real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert first.ontologies_added == 2 and first.atoms_embedded == first.atoms_total > 0
    _, again = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert (again.atoms_embedded, again.ontologies_added, again.ontologies_unchanged) == (0, 0, 2)
    assert again.atoms_total == first.atoms_total
    status = index_status(settings, store)
    assert status.fingerprint_matches and status.catalog_not_indexed == 0


@pytest.mark.parametrize("backend", ["edge", "qdrant"])
def test_touching_one_file_reembeds_only_its_changed_atoms(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder, backend: str) -> None:
    settings = settings_for(tmp_path, vector_index={"backend": backend})
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    mini = catalog_dir / "mini.ttl"
    # Renaming Device changes its own texts and Sensor's ("Parents: device"), nothing else.
    mini.write_text(mini.read_text().replace(':Device a owl:Class ; rdfs:label "device"@en .',
                                             ':Device a owl:Class ; rdfs:label "instrument"@en .'))
    load, second = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert load is not None and len(load.updated) == 1
    # Written as a layer: the two changed atoms are the only points written, and
    # the old version's other points are read by the new one, untouched.
    assert (second.atoms_embedded, second.atoms_reused, second.atoms_deleted) == (2, 0, 0)
    assert second.versions_layered == 1
    mini_atoms = 9
    assert second.atoms_total == first.atoms_total + 2  # the two old points stay, hidden
    new_hash = _current_hash(store, MINI)
    index, _ = open_query_index(settings)
    try:  # the new version answers with all its atoms, the changed ones new
        assert index.count(new_hash) == mini_atoms
        assert index.count() == first.atoms_total
        assert isinstance(index, VersionedIndex) and index.index.count(new_hash) == 2
        found = index.matching("iri", ["http://example.org/mini#Device",
                                       "http://example.org/mini#Property"])
        assert sorted((p["iri"].rsplit("#")[-1], p["labels"], p["ontology_hash"])
                      for p in found) == [("Device", ["instrument"], new_hash),
                                          ("Property", ["observable property"], new_hash)]
    finally:
        index.close()


def test_removed_file_is_pruned_but_not_after_a_partial_load(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    (catalog_dir / "sub" / "second.ttl").unlink()
    shutil.copy(FIXTURES / "broken.ttl", catalog_dir / "broken.ttl")
    _, partial = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert partial.pruning.startswith("skipped") and partial.atoms_total == first.atoms_total
    (catalog_dir / "broken.ttl").unlink()
    _, pruned = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert pruned.pruning == "done" and pruned.ontologies_removed == 1
    assert pruned.atoms_total == first.atoms_total - pruned.atoms_deleted > 0


def test_empty_catalog_refuses_pruning(tmp_path: Path, catalog_dir: Path,
                                       real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    store.update("DROP SILENT GRAPH <urn:ontoretrieve:catalog>")  # the catalog vanished
    _, after = sync_index(settings, store, embedder=real_embedder)
    assert after.pruning.startswith("skipped: the catalog is empty")
    assert after.atoms_total == first.atoms_total


def test_fingerprint_mismatch_raises_and_rebuild_fixes_it(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    store = OxigraphStore.in_memory()
    sync_index(settings_for(tmp_path), store, catalog_path=catalog_dir, embedder=real_embedder)
    changed = settings_for(tmp_path, index={"minimal_label_limit": 2})
    with pytest.raises(EmbeddingContractMismatchError) as caught:
        sync_index(changed, store, embedder=real_embedder)
    assert "index.minimal_label_limit" in str(caught.value)
    assert "ontoretrieve index --rebuild" in str(caught.value)
    with pytest.raises(EmbeddingContractMismatchError):
        open_query_index(changed)
    _, rebuilt = sync_index(changed, store, rebuild=True, embedder=real_embedder)
    assert rebuilt.rebuilt and rebuilt.ontologies_added == 2
    index, _ = open_query_index(changed)
    assert index.count() == rebuilt.atoms_total
    index.close()
    # The old location is gone: one shard folder remains.
    shards = [p for p in (tmp_path / "data" / "index" / "default").iterdir()
              if p.is_dir() and p.name not in ("mentions", "digests")]
    assert len(shards) == 1


def test_edge_and_qdrant_client_rank_alike(tmp_path: Path, catalog_dir: Path,
                                           real_embedder: FastEmbedder) -> None:
    store = OxigraphStore.in_memory()
    Catalog(store).load(catalog_dir)
    edge_settings = settings_for(tmp_path / "edge")
    qdrant_settings = settings_for(tmp_path / "qdrant", vector_index={"backend": "qdrant"})
    sync_index(edge_settings, store, embedder=real_embedder)
    sync_index(qdrant_settings, store, embedder=real_embedder)
    edge, _ = open_query_index(edge_settings)
    qdrant, _ = open_query_index(qdrant_settings)
    queries = ["a device that observes something", "thermal kind", "weight of a sensor"]
    dense = list(real_embedder.embed_queries(queries))
    sparse = real_embedder.sparse_queries(queries)
    try:
        for lane, vectors in [(Lane.CORE, dense), (Lane.NEIGHBORHOOD, dense),
                              (Lane.BM25, sparse)]:
            for a, b in zip(edge.search(lane, vectors, 5), qdrant.search(lane, vectors, 5),
                            strict=True):
                assert [h.payload["iri"] for h in a] == [h.payload["iri"] for h in b]
                assert [round(h.score, 4) for h in a] == [round(h.score, 4) for h in b]
    finally:
        edge.close()
        qdrant.close()


class _FailingEmbedder:
    """The real embedder, failing on its n-th document batch (a crash mid-sync)."""

    def __init__(self, inner: FastEmbedder, fail_on: int) -> None:
        self.inner = inner
        self.calls = 0
        self.fail_on = fail_on

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_documents(self, texts: Any) -> Any:
        self.calls += 1
        if self.calls == self.fail_on:
            raise KeyboardInterrupt("killed mid-sync")
        return self.inner.embed_documents(texts)


def test_interrupted_rebuild_keeps_the_index_in_use(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    # Without the document cache, so that the rebuild embeds (and is killed doing so).
    settings = settings_for(tmp_path, embed={"document_cache": False})
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    failing = _FailingEmbedder(real_embedder, fail_on=2)  # after the first ontology
    with pytest.raises(KeyboardInterrupt):
        sync_index(settings, store, rebuild=True, embedder=failing)  # type: ignore[arg-type]
    index, state = open_query_index(settings)
    assert state.location == first.location and index.count() == first.atoms_total
    index.close()
    _, rebuilt = sync_index(settings, store, rebuild=True, embedder=real_embedder)
    assert rebuilt.location != first.location and rebuilt.atoms_total == first.atoms_total
    folders = [p.name for p in (tmp_path / "data" / "index" / "default").iterdir()
               if p.is_dir() and p.name not in ("mentions", "digests")]
    assert folders == [rebuilt.location]  # the old and the abandoned shard are gone


def _renamed_and_killed(settings: Settings, store: OxigraphStore, catalog_dir: Path,
                        embedder: FastEmbedder) -> tuple[SyncReport, str]:
    """Index the catalog, rename mini's ``weight``, and kill the sync that follows while it
    embeds the changed atom; the first sync's report and the new version's hash."""
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=embedder)
    mini = catalog_dir / "mini.ttl"
    mini.write_text(mini.read_text().replace('rdfs:label "weight"', 'rdfs:label "mass"'))
    failing = _FailingEmbedder(embedder, fail_on=1)
    with pytest.raises(KeyboardInterrupt):
        sync_index(settings, store, catalog_path=catalog_dir,
                   embedder=failing)  # type: ignore[arg-type]
    return first, _current_hash(store, MINI)


def test_a_replacement_killed_midway_finishes_without_duplicates(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import ontoretrieve.index.replace as replace_module
    import ontoretrieve.index.sync as sync_module

    monkeypatch.setattr(sync_module, "_CHUNK", 2)  # many chunks: the kill lands mid-version
    monkeypatch.setattr(replace_module, "MAX_LAYERS", 0)  # written whole, not as a layer
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    first, new_hash = _renamed_and_killed(settings, store, catalog_dir, real_embedder)
    index, _ = open_query_index(settings)
    written_before_the_kill = index.count(new_hash)
    index.close()
    assert 0 < written_before_the_kill < 9  # the kill came mid-version

    _, rerun = sync_index(settings, store, embedder=real_embedder)
    assert rerun.atoms_embedded == 1 and rerun.atoms_total == first.atoms_total
    index, _ = open_query_index(settings)
    try:  # both versions' points were there at the kill; now only the new one's, once
        assert index.count(new_hash) == 9 and index.count() == first.atoms_total
        assert [p["labels"] for p in index.matching(
            "iri", ["http://example.org/mini#weight"])] == [["mass"]]
    finally:
        index.close()


def test_a_layer_killed_midway_finishes_and_answers_once(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    first, new_hash = _renamed_and_killed(settings, store, catalog_dir, real_embedder)
    index, state = open_query_index(settings)
    try:  # the old version still answers alone
        assert new_hash in state.pending and new_hash not in state.ontologies
        assert [p["labels"] for p in index.matching(
            "iri", ["http://example.org/mini#weight"])] == [["weight"]]
    finally:
        index.close()
    _, rerun = sync_index(settings, store, embedder=real_embedder)
    assert rerun.versions_layered == 1 and rerun.atoms_embedded == 1
    index, state = open_query_index(settings)
    try:
        assert not state.pending and index.count(new_hash) == 9
        assert index.count() == first.atoms_total
        assert [p["labels"] for p in index.matching(
            "iri", ["http://example.org/mini#weight"])] == [["mass"]]
    finally:
        index.close()


def test_a_build_streams_one_ontology_at_a_time(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A version is atomized only once the ones before it (bar the look-ahead) are written."""
    import ontoretrieve.index.sync as sync_module

    shutil.copy(FIXTURES / "qudt-units-subset.ttl", catalog_dir / "units.ttl")
    events: list[tuple[str, str]] = []
    atomize, write = sync_module.atomize, sync_module.IndexSync._write

    def recording_atomize(triples: Any, source: Any, *args: Any) -> Any:
        events.append(("atomize", source.content_hash))
        return atomize(triples, source, *args)

    def recording_write(self: Any, index: Any, atoms: Any, counters: Any) -> None:
        events.append(("write", atoms[0].ontology_hash))
        write(self, index, atoms, counters)

    monkeypatch.setattr(sync_module, "atomize", recording_atomize)
    monkeypatch.setattr(sync_module.IndexSync, "_write", recording_write)
    settings = settings_for(tmp_path, embed={"reindex_concurrency": 1})
    _, report = sync_index(settings, OxigraphStore.in_memory(), catalog_path=catalog_dir,
                           embedder=real_embedder)
    assert report.ontologies_added == 3
    order = [h for kind, h in events if kind == "atomize"]
    assert len(order) == 3
    first_write = events.index(("write", order[0]))
    # One version atomized ahead, never the whole catalog before the first write.
    assert events.index(("atomize", order[2])) > first_write


def test_a_build_optimizes_in_parts(tmp_path: Path, catalog_dir: Path,
                                    real_embedder: FastEmbedder,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The HNSW graphs of a big build are made every OPTIMIZE_EVERY atoms, not all at the
    end (the whole-shard build was the peak of a 100k-atom index)."""
    import ontoretrieve.index.sync as sync_module
    from ontoretrieve.backends.qdrant_edge import EdgeIndex

    shutil.copy(FIXTURES / "qudt-units-subset.ttl", catalog_dir / "units.ttl")
    monkeypatch.setattr(sync_module, "OPTIMIZE_EVERY", 5)
    calls: list[int] = []
    optimize = EdgeIndex.optimize

    def counting(self: EdgeIndex) -> None:
        calls.append(self.count())
        optimize(self)

    monkeypatch.setattr(EdgeIndex, "optimize", counting)
    settings = settings_for(tmp_path, embed={"reindex_concurrency": 1})
    store = OxigraphStore.in_memory()
    _, report = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert len(calls) >= 3 and calls[0] < report.atoms_total  # parts, then the end
    index, _ = open_query_index(settings)
    try:
        assert index.count() == report.atoms_total
        hits = index.search(Lane.CORE, list(real_embedder.embed_queries(["millivolt"])), 3)
        assert hits[0] and hits[0][0].payload["iri"].endswith("MilliV")
    finally:
        index.close()


def test_search_threads_change_no_hit_and_do_not_outlive_their_open(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """annotate's workers search with a share of the cores (vector_index.search_threads):
    their hits must be those of Edge's own pool, and the share (which Edge writes into
    the shard's config) must not stay for the next open that sets none."""
    import json

    import ontoretrieve.index.sync as sync_module

    shutil.copy(FIXTURES / "qudt-units-subset.ttl", catalog_dir / "units.ttl")
    monkeypatch.setattr(sync_module, "OPTIMIZE_EVERY", 5)  # several segments to search
    settings = settings_for(tmp_path)
    sync_index(settings, OxigraphStore.in_memory(), catalog_path=catalog_dir,
               embedder=real_embedder)
    texts = ["millivolt", "a cat in a cage", "degree Celsius per day", "mouse"]
    dense = list(real_embedder.embed_queries(texts))
    sparse = list(real_embedder.sparse_queries(texts))

    def hits_and_threads(threads: int | None) -> tuple[list[Any], int]:
        opened = settings.model_copy(update={"vector_index": settings.vector_index.model_copy(
            update={"search_threads": threads})})
        index, state = open_query_index(opened)
        try:
            found = [[(h.payload["iri"], h.score) for h in hits]
                     for lane, queries in ((Lane.CORE, dense), (Lane.NEIGHBORHOOD, dense),
                                           (Lane.BM25, sparse))
                     for hits in index.search(lane, queries, 10)]  # type: ignore[arg-type]
        finally:
            index.close()
        config = settings.data_dir / "index" / "default" / state.location / "edge_config.json"
        return found, json.loads(config.read_text())["max_search_threads"]

    one, kept = hits_and_threads(1)
    assert kept == 1 and any(one)
    default, kept = hits_and_threads(None)
    assert kept == 0  # Edge's own choice again, not the share given before
    assert default == one


def test_a_big_build_gives_the_encoder_memory_back_and_vectors_stay(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import ontoretrieve.index.sync as sync_module

    texts = ["a thermometer measures temperature", "millivolt"]
    before = real_embedder.embed_documents(texts)
    released: list[int] = []
    release = real_embedder.release_buffers

    def counting() -> None:
        released.append(1)
        release()

    monkeypatch.setattr(real_embedder, "release_buffers", counting)
    monkeypatch.setattr(sync_module, "RELEASE_AFTER_TEXTS", 1)  # every build is "big"
    _, report = sync_index(settings_for(tmp_path), OxigraphStore.in_memory(),
                           catalog_path=catalog_dir, embedder=real_embedder)
    assert report.atoms_embedded > 0 and released == [1]
    assert (real_embedder.embed_documents(texts) == before).all()  # the model, reloaded
