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
