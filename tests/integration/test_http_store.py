"""The SPARQL HTTP adapter against a real `oxigraph serve` process."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.backends import OxigraphStore, SparqlHttpStore
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.errors import StoreQueryError, StoreUnavailableError

pytestmark = pytest.mark.integration


def test_embedded_and_http_list_the_same_catalog(oxigraph_server: str, catalog_dir: Path) -> None:
    embedded = Catalog(OxigraphStore.in_memory())
    remote = Catalog(SparqlHttpStore(oxigraph_server))
    embedded.load(catalog_dir)
    report = remote.load(catalog_dir)
    assert len(report.added) == 2

    def summary(catalog: Catalog) -> list[tuple[str, str | None, str, int, int]]:
        return [(v.ontology_iri, v.version, v.content_hash, v.triple_count,
                 len(catalog.graph_triples(v))) for v in catalog.versions()]

    assert summary(embedded) == summary(remote)
    assert not remote.load(catalog_dir).changed


def test_hostile_literal_round_trips(oxigraph_server: str) -> None:
    store = SparqlHttpStore(oxigraph_server)
    nasty = 'a "quote" } ; DROP ALL ; \n>'
    triple = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal(nasty))
    store.replace_graph("urn:g", [triple])
    assert store.graph_triples("urn:g") == [triple]


def test_rejected_query_and_unreachable_endpoint(oxigraph_server: str) -> None:
    with pytest.raises(StoreQueryError):
        SparqlHttpStore(oxigraph_server).select("SELECT WHERE nonsense")
    with pytest.raises(StoreUnavailableError):
        SparqlHttpStore("http://127.0.0.1:9/query", timeout_seconds=2).select(
            "SELECT * WHERE { ?s ?p ?o }")
