"""SPARQL builders escape every value; user SPARQL is checked read-only."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from ontoretrieve.rdf import sparql

HOSTILE = ['a"b', "x\ny", "} ; DROP ALL ; {", "back\\slash", "tab\there", '"""', "'single'"]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_literals_round_trip_unchanged(value: str) -> None:
    store = ox.Store()
    triple = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal(value))
    store.update(sparql.insert_data("urn:g", [triple]))
    (row,) = list(store.query("SELECT ?o WHERE { GRAPH <urn:g> { ?s ?p ?o } }"))
    assert row["o"].value == value
    assert len(store) == 1  # nothing else was written, nothing dropped


@pytest.mark.parametrize("value", ["http://x/a>b", "http://x/a b", "http://x/{}", 'http://x/"',
                                   "http://x/\n", "no-scheme"])
def test_hostile_iris_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        sparql.iri(value)
