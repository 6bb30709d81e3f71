"""The mention lane with the real model and stores: forms follow the sync, seeds show spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.index.build import mention_store, sync_index, tenant_dir
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.index.mention_keys import keyed_forms
from ontoretrieve.index.state import IndexState
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.settings import Settings, load_settings
from ontoretrieve.settings.groups import SeedSettings

pytestmark = pytest.mark.integration

MINI = "http://example.org/mini#"


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    return load_settings(data_dir=tmp_path / "data", **overrides)


def forms_files(settings: Settings) -> set[str]:
    folder = mention_store(settings).folder
    return {p.name.split("-")[0] for p in folder.glob("*.json.gz")}


def hashes(store: OxigraphStore) -> set[str]:
    return {v.content_hash for v in Catalog(store).versions()}


def kept(settings: Settings) -> set[str]:
    """Versions the index keeps as layers of newer ones (their forms stay for a rollback)."""
    state = IndexState.load(tenant_dir(settings) / "state.json")
    return set(state.retained) if state else set()


def named(settings: Settings, embedder: FastEmbedder, text: str) -> dict[str, list[str]]:
    retriever = SeedRetriever.open(settings, embedder=embedder)
    try:
        return {s.iri: [m["text"] for m in s.mentions] for s in retriever.seeds(text).seeds
                if s.mentions}
    finally:
        retriever.close()


@pytest.mark.parametrize("backend", ["edge", "qdrant"])
def test_forms_follow_add_change_and_remove(tmp_path: Path, catalog_dir: Path,
                                            real_embedder: FastEmbedder, backend: str) -> None:
    settings = settings_for(tmp_path, vector_index={"backend": backend})
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert forms_files(settings) == hashes(store)
    assert named(settings, real_embedder, "Each sensor observes things.") == {
        MINI + "Sensor": ["sensor"], MINI + "observes": ["observes"]}

    mini = catalog_dir / "mini.ttl"  # change: a new label is a new form
    mini.write_text(mini.read_text().replace('rdfs:label "device"@en .',
                                             'rdfs:label "device"@en , "gadget"@en .'))
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert len(kept(settings)) == 1  # the old version, read by the new one as a layer
    assert forms_files(settings) == hashes(store) | kept(settings)
    forms = mention_store(settings)
    for content_hash in hashes(store):  # the layer's keys, merged, equal its forms' keys
        assert forms.keyed(content_hash) == keyed_forms(forms.read(content_hash))
    assert MINI + "Device" in named(settings, real_embedder, "A gadget was used.")

    (catalog_dir / "sub" / "second.ttl").unlink()  # remove: its forms go with it
    (catalog_dir / "extra.ttl").write_text(  # add: a new ontology's forms join
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "<http://example.org/extra#Probe> rdfs:label \"voltage probe\" .\n")
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    assert forms_files(settings) == hashes(store) | kept(settings) and len(hashes(store)) == 2
    found = named(settings, real_embedder, "The voltage probes and thing two.")
    assert "http://example.org/extra#Probe" in found
    assert "http://example.org/second#Thing2" not in found


def test_an_index_without_forms_gets_them_without_reembedding(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    folder = mention_store(settings).folder
    for path in folder.iterdir():  # as an index built before the mention lane
        path.unlink()
    _, report = sync_index(settings, store, embedder=real_embedder)
    assert report.atoms_embedded == 0 and forms_files(settings) == hashes(store)


def test_seed_evidence_and_the_reference_profile(tmp_path: Path, catalog_dir: Path,
                                                  real_embedder: FastEmbedder) -> None:
    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    retriever = SeedRetriever.open(settings, embedder=real_embedder)
    try:
        result = retriever.seeds("The sensor observes an observable property.")
    finally:
        retriever.close()
    by_iri = {s.iri: s for s in result.seeds}
    span, inner = by_iri[MINI + "Property"].mentions  # strongest first
    assert span["span"] == [23, 42] and span["text"] == "observable property"
    assert span["kind"] == "label" and span["shared_by"] == 1 and not span["contained"]
    assert inner["kind"] == "local_name" and inner["text"] == "property" and inner["contained"]
    assert any(e["lane"] == "mention" for e in by_iri[MINI + "Property"].lanes)
    assert result.funnel.hits_per_lane["mention"] >= 3
    assert result.funnel.after_evidence is not None
    json.dumps(result.model_dump())  # the evidence is JSON as it stands

    reference = load_settings("reference", data_dir=tmp_path / "data")
    old = SeedRetriever.open(reference, embedder=real_embedder)
    try:
        plain = old.seeds("The sensor observes an observable property.")
    finally:
        old.close()
    assert all(not s.mentions for s in plain.seeds)
    assert "mention" not in plain.funnel.hits_per_lane and plain.funnel.after_evidence is None


def test_a_rebuild_embeds_only_texts_it_has_not_seen(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder) -> None:
    from ontoretrieve.index.build import open_query_index

    settings = settings_for(tmp_path)
    store = OxigraphStore.in_memory()
    _, first = sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    before, _ = open_query_index(settings)
    vectors = {p["core_text"]: v.core for batch in before.scroll_vectors() for p, v in batch}
    before.close()
    for path in (tmp_path / "data" / "embeddings").iterdir():  # as before the cache existed
        path.unlink()
    # A label limit of 1 is a fingerprint change: Sensor loses "Sensor"@de, nothing else.
    changed = settings_for(tmp_path, index={"minimal_label_limit": 1})
    _, rebuilt = sync_index(changed, store, embedder=real_embedder, rebuild=True)
    assert rebuilt.atoms_total == first.atoms_total
    assert rebuilt.texts_from_cache >= rebuilt.atoms_total  # core and most neighbourhoods
    after, _ = open_query_index(changed)
    try:  # reused vectors are the very ones the model gave
        for batch in after.scroll_vectors():
            for payload, stored in batch:
                if payload["core_text"] in vectors:
                    assert (stored.core == vectors[payload["core_text"]]).all()
    finally:
        after.close()


def test_lookup_uses_the_mention_lane(tmp_path: Path, catalog_dir: Path) -> None:
    from ontoretrieve import Engine

    with Engine.open(settings_for(tmp_path), in_memory=True) as engine:
        engine.catalog_load(catalog_dir)
        found = engine.lookup("Observable-properties")  # plural, hyphen, case
    best = found.candidates[0]
    assert (best.iri, best.match) == (MINI + "Property", "normalized")


@pytest.mark.parametrize("backend", ["edge", "qdrant"])
def test_a_scoped_query_seeds_only_from_the_named_ontologies(
        tmp_path: Path, catalog_dir: Path, real_embedder: FastEmbedder, backend: str) -> None:
    settings = settings_for(tmp_path, vector_index={"backend": backend})
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=catalog_dir, embedder=real_embedder)
    versions = {v.source.rsplit("/", 1)[-1]: v.content_hash for v in Catalog(store).versions()}
    text = "Each sensor observes thing two."
    retriever = SeedRetriever.open(settings, embedder=real_embedder)
    try:
        everywhere = {s.ontology_hash for s in retriever.seeds(text).seeds}
        assert everywhere == set(versions.values())  # both ontologies answer unscoped
        for name, content_hash in versions.items():
            scoped = retriever.seeds(text, frozenset({content_hash})).seeds
            assert scoped and {s.ontology_hash for s in scoped} == {content_hash}, name
            assert all(m["text"] for s in scoped for m in s.mentions)
        assert retriever.seeds(text, frozenset({"0" * 16})).seeds == []
        # The store applies the scope (before its limit), for triggers and lexemes too.
        iris = [MINI + "Sensor", "http://example.org/second#Thing2"]
        everyone = retriever.index.matching("iri", iris)
        assert {p["ontology_hash"] for p in everyone} == set(versions.values())
        for content_hash in versions.values():
            scoped_payloads = retriever.index.matching("iri", iris, ontology_hashes=[content_hash])
            assert {p["ontology_hash"] for p in scoped_payloads} == {content_hash}
    finally:
        retriever.close()


PREFIXES = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
"""
QUANTITIES = PREFIXES + """@prefix q: <http://example.org/quantities#> .
q:Activity a owl:Class ; rdfs:label "Activity"@en ;
    skos:definition '''The number of radioactive nuclear decays of a radionuclide per unit
        time, measured in becquerel.'''@en .
q:Becquerel a owl:Class ; rdfs:label "becquerel"@en ;
    skos:definition "The SI unit of radioactivity: one nuclear decay per second."@en .
"""
BIOLOGY = PREFIXES + """@prefix b: <http://example.org/biology#> .
b:GeneExpression a owl:Class ; rdfs:label "gene expression"@en ;
    skos:definition '''The process by which a gene's sequence is transcribed and
        translated into a gene product.'''@en .
b:Liver a owl:Class ; rdfs:label "liver"@en ;
    skos:definition "An organ of vertebrates that metabolizes nutrients and detoxifies blood."@en .
"""


def test_a_word_naming_a_term_off_the_topic_is_a_misfit(
        tmp_path: Path, real_embedder: FastEmbedder) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "quantities.ttl").write_text(QUANTITIES)
    (folder / "biology.ttl").write_text(BIOLOGY)
    texts = ["Gene expression in the liver rose, and so did the activity of its cells.",
             "Liver cells took up a tracer of 5 becquerel."]
    found: dict[str, dict[str, tuple[dict[str, Any], int]]] = {}
    for name, mentions in (("on", {}), ("off", {"fit_floor": 0.0}),
                           ("demoted", {"misfit_weight": 1.0})):
        settings = settings_for(tmp_path / name, mentions=mentions)
        sync_index(settings, OxigraphStore.in_memory(), catalog_path=folder,
                   embedder=real_embedder)
        retriever = SeedRetriever.open(settings, embedder=real_embedder)
        try:
            found[name] = {s.iri.split("#")[1]: (s.mentions[0], s.evidence_tier)
                           for text in texts for s in retriever.seeds(text).seeds
                           if s.mentions}
        finally:
            retriever.close()
    on, off, demoted = found["on"], found["off"], found["demoted"]
    # radioactivity does not fit a passage on livers and genes: too weak to keep its term
    # alone (kept here by the dense lanes of a four-term catalog), never first
    assert on["Activity"][0]["misfit"] and on["Activity"][1] > 0
    assert on["Activity"][0]["strength"] < SeedSettings().mention_min_strength
    assert demoted["Activity"][0]["strength"] == 1.0 and demoted["Activity"][1] > 0
    assert not off["Activity"][0]["misfit"] and off["Activity"][1] == 0
    # the topic's own terms, and a unit right after a number (named on purpose), fit
    for term in ("GeneExpression", "Liver", "Becquerel"):
        assert not on[term][0]["misfit"] and on[term][1] == 0, term
