"""The working graph's answers do not depend on the order the store hands triples back in."""

from __future__ import annotations

import random

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import GraphIndex, WorkingGraph
from ontoretrieve.rdf.vocab import OWL_ONTOLOGY_NODE, RDF_TYPE_NODE, RDFS, SUBCLASS_OF_NODE

X = "http://x/"
LABEL = ox.NamedNode(RDFS + "label")


def _triples() -> list[ox.Triple]:
    nodes = [ox.NamedNode(f"{X}{i}") for i in range(12)]
    triples = [ox.Triple(n, SUBCLASS_OF_NODE, nodes[(i * 7) % 12]) for i, n in enumerate(nodes)]
    triples += [ox.Triple(n, LABEL, ox.Literal(f"term {i}", language="en"))
                for i, n in enumerate(nodes)]
    triples += [ox.Triple(nodes[0], LABEL, ox.Literal(f"zero {i}")) for i in range(5)]
    triples += [ox.Triple(nodes[0], ox.NamedNode(f"{X}p{i % 3}"), nodes[i]) for i in range(12)]
    return triples


def test_neighbours_and_whole_graphs_come_in_one_order_whatever_the_store_order() -> None:
    triples = _triples()
    shuffled = list(triples)
    random.Random(7).shuffle(shuffled)
    one = WorkingGraph([GraphIndex("a", triples), GraphIndex("b", triples[:9])])
    other = WorkingGraph([GraphIndex("a", shuffled), GraphIndex("b", list(reversed(
        triples[:9])))])
    for node in {t.subject for t in triples} | {t.object for t in triples
                                                if isinstance(t.object, ox.NamedNode)}:
        assert one.out(node) == other.out(node)  # type: ignore[arg-type]
        assert one.incoming(node) == other.incoming(node)  # type: ignore[arg-type]
    assert GraphIndex("a", triples).ordered() == GraphIndex("a", shuffled).ordered()


def test_a_triple_in_two_versions_is_one_neighbour() -> None:
    triples = _triples()
    merged = WorkingGraph([GraphIndex("a", triples), GraphIndex("b", triples)])
    node = ox.NamedNode(f"{X}0")
    assert len(merged.out(node)) == len(GraphIndex("a", triples).out(node))


def test_an_index_changed_by_a_delta_answers_as_one_built_from_the_new_triples() -> None:
    rng = random.Random(11)
    base = [*_triples(), ox.Triple(ox.NamedNode(f"{X}o"), RDF_TYPE_NODE, OWL_ONTOLOGY_NODE)]
    old = GraphIndex("old", base)
    for _ in range(30):
        removed = rng.sample(base, rng.randint(0, 4))
        added = [ox.Triple(ox.NamedNode(f"{X}{rng.randint(0, 14)}"), LABEL,
                           ox.Literal(f"new {rng.randint(0, 3)}")) for _ in range(3)]
        # One already there (added once, nothing doubled); a delta never adds and
        # removes one statement.
        added += rng.sample([t for t in base if t not in removed], 1)
        new_triples = list(dict.fromkeys([t for t in base if t not in removed] + added))
        derived = old.changed("new", added, removed)
        built = GraphIndex("new", new_triples)
        assert derived.ordered() == built.ordered() and len(derived) == len(built)
        assert derived.headers == built.headers
        one, other = WorkingGraph([derived]), WorkingGraph([built])
        for node in {t.subject for t in base + added}:
            assert one.out(node) == other.out(node)  # type: ignore[arg-type]
            assert one.incoming(node) == other.incoming(node)  # type: ignore[arg-type]
            assert derived.describes(node) == built.describes(node)  # type: ignore[arg-type]
    assert old.ordered() == GraphIndex("old", base).ordered()  # the base is never touched
