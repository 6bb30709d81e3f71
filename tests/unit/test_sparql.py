"""SPARQL builders escape every value; user SPARQL is checked read-only."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from ontoretrieve.errors import UnsafeQueryError
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


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { ?s ?p ?o }", "ASK {}", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "DESCRIBE <http://x/a>", 'SELECT * WHERE { ?s ?p "DROP ALL; INSERT" }',
    "SELECT * WHERE { ?s <http://x/p>? ?o }"])
def test_read_only_queries_pass(query: str) -> None:
    sparql.check_read_only(query)


@pytest.mark.parametrize("query", [
    "INSERT DATA { <http://a> <http://b> <http://c> }", "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://x>", "CLEAR ALL", "DROP GRAPH <urn:g>", "CREATE GRAPH <urn:g>",
    "ADD <urn:a> TO <urn:b>", "MOVE <urn:a> TO <urn:b>", "COPY <urn:a> TO <urn:b>",
    "SELECT * WHERE { SERVICE <http://e/> { ?a ?b ?c } }",
    "SELECT * WHERE { ?s <http://x/p>* ?o }",
    "SELECT * WHERE { ?s (<http://x/p>/<http://x/q>)+ ?o }",
    "SELECT * WHERE { ?s ?p ?o } ; DROP ALL", "not sparql at all"])
def test_unsafe_queries_are_refused(query: str) -> None:
    with pytest.raises(UnsafeQueryError):
        sparql.check_read_only(query)
