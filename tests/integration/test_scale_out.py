"""Scale-out: one catalog on a SPARQL server and a Qdrant index answers as the embedded pair.

The engine against a real ``oxigraph serve`` (store.backend = sparql) and
qdrant-client (vector_index.backend = qdrant; local mode here, a server or
cluster by URL in production) gives the contexts the embedded default gives,
one by one and in a batch; docs/scale-out.md says what changes and what not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib.compare import to_canonical_graph

from ontoretrieve import Engine, load_settings
from ontoretrieve.context.model import Context
from ontoretrieve.records import OntologyVersion
from ontoretrieve.settings import Settings
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

TEXTS = ["The probe recorded a 5 mV signal for 4-15 days.",
         "A sensor observes the weight of a device.",
         "thing two and a current of 3 kV"]


def _answer(context: Context) -> tuple[object, ...]:
    """What a retrieval answers, without timings and store-specific access counters: its
    terms, seeds with their scores, diagnosis and graph (up to blank-node labels, which a
    store chooses)."""
    return (context.terms, [(s.iri, s.score) for s in context.seeds], context.diagnosis,
            frozenset(to_canonical_graph(context.graph())))


def test_sparql_server_and_qdrant_answer_as_the_embedded_pair(
        tmp_path: Path, catalog_dir: Path, oxigraph_server: str) -> None:
    (catalog_dir / "units.ttl").write_bytes((FIXTURES / "qudt-units-subset.ttl").read_bytes())
    embedded = load_settings(data_dir=tmp_path / "embedded")
    scaled = load_settings(data_dir=tmp_path / "scaled",
                           store={"backend": "sparql", "query_url": oxigraph_server},
                           vector_index={"backend": "qdrant"})
    answers = []
    for settings in (embedded, scaled):
        with Engine.open(settings) as engine:
            _, report = engine.catalog_load(catalog_dir)
            assert report.ontologies_added == 3
            one_by_one = [engine.retrieve(t, mode="vector") for t in TEXTS]
            engine.cache.clear("default")
            batch = engine.retrieve_many(TEXTS, mode="vector")
            assert [_answer(c) for c in batch] == [_answer(c) for c in one_by_one]
            answers.append([_answer(c) for c in one_by_one])
            assert engine.index_status().backend == settings.vector_index.backend.value
    assert answers[0] == answers[1]
    assert any(terms for terms, *_ in answers[1])


def test_an_update_applied_on_a_sparql_server_is_stored_as_a_layer(
        tmp_path: Path, catalog_dir: Path, oxigraph_server: str) -> None:
    from ontoretrieve import Mode
    from ontoretrieve.catalog.store import Catalog
    from ontoretrieve.rdf.canonical import graph_hash
    from ontoretrieve.rdf.vocab import OWL, RDFS

    mini = "http://example.org/mini"
    add = (f"<{mini}#Thermometer> a <{OWL}Class> ; <{RDFS}label> \"thermometer\" ; "
           f"<{RDFS}subClassOf> <{mini}#Sensor> , [ a <{OWL}Restriction> ; "
           f"<{OWL}onProperty> <{mini}#observes> ; <{OWL}someValuesFrom> <{mini}#Property> ] .")
    settings, base, new = _applied_on_server(tmp_path, catalog_dir, oxigraph_server, add)
    with Engine.open(settings) as engine:  # nothing cached: read from the server
        version = next(v for v in engine.catalog_list() if v.ontology_iri == mini)
        assert version.content_hash == new and version.added_graph is not None
        assert version.graph == base.graph  # the base's graph, shared
        catalog = Catalog(engine.store)
        assert graph_hash(catalog.graph_triples(version)) == new
        assert f"{mini}#Thermometer" in engine.retrieve("a thermometer", mode=Mode.VECTOR).terms
        engine.rollback(mini)
        assert next(v.content_hash for v in engine.catalog_list()
                    if v.ontology_iri == mini) == base.content_hash


def test_an_update_that_removes_is_written_whole_on_a_sparql_server(
        tmp_path: Path, catalog_dir: Path, oxigraph_server: str) -> None:
    """The new version's statements are written whole through the Graph Store protocol
    (the apply never makes them into triples before the write)."""
    from ontoretrieve import Mode
    from ontoretrieve.rdf.canonical import graph_hash
    from ontoretrieve.rdf.vocab import RDFS, graph_name

    mini = "http://example.org/mini"
    settings, base, new = _applied_on_server(
        tmp_path, catalog_dir, oxigraph_server,
        f"<{mini}#Device> <{RDFS}label> \"instrument\"@en .",
        f"<{mini}#Device> <{RDFS}label> \"device\"@en .")
    with Engine.open(settings) as engine:  # nothing cached: read from the server
        version = next(v for v in engine.catalog_list() if v.ontology_iri == mini)
        assert version.content_hash == new and version.added_graph is None
        stored = engine.store.graph_triples(graph_name(new))
        assert len(stored) == base.triple_count and graph_hash(stored) == new
        assert f"{mini}#Device" in engine.retrieve("an instrument", mode=Mode.VECTOR).terms


def _applied_on_server(tmp_path: Path, catalog_dir: Path, server: str, add: str,
                       remove: str = "") -> tuple[Settings, OntologyVersion, str]:
    """Load the catalog into the SPARQL server and apply one update to the mini ontology:
    the settings, the base version and the new version's content hash."""
    from ontoretrieve import OntologyUpdate, Proposal

    settings = load_settings(data_dir=tmp_path / "scaled",
                             store={"backend": "sparql", "query_url": server})
    with Engine.open(settings) as engine:
        engine.catalog_load(catalog_dir)
        base = next(v for v in engine.catalog_list()
                    if v.ontology_iri == "http://example.org/mini")
        new = engine.apply(Proposal(updates=[OntologyUpdate(
            ontology_iri=base.ontology_iri, base_hash=base.content_hash, add=add,
            remove=remove)])).applied[0].content_hash
    return settings, base, new
