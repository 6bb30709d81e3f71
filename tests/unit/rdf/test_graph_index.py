"""The working graph's answers do not depend on the order the store hands triples back in."""

from __future__ import annotations

import gc
import random

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import GraphIndex, WorkingGraph, blank_shape, term_order
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


def _merged(parts: list[GraphIndex], node: ox.NamedNode | ox.BlankNode
            ) -> tuple[list[object], list[object]]:
    """The view's answers worked out from scratch: every part's pairs merged, then sorted."""
    def shape(blank: ox.BlankNode) -> str:
        return blank_shape(dict.fromkeys(e for p in parts for e in p.out(blank)))
    out = sorted(dict.fromkeys(e for p in parts for e in p.out(node)),
                 key=lambda e: (e[0].value, term_order(e[1], shape)))
    incoming = sorted(dict.fromkeys(e for p in parts for e in p.incoming(node)),
                      key=lambda e: (e[1].value, term_order(e[0], shape)))
    return out, incoming


def test_views_take_each_versions_remembered_lookups_and_answer_as_a_merge() -> None:
    rng = random.Random(5)
    p = [ox.NamedNode(f"{X}p{i}") for i in range(3)]
    for _ in range(40):
        nodes = [ox.NamedNode(f"{X}{i}") for i in range(8)]
        blanks = [ox.BlankNode() for _ in range(4)]
        shared = [ox.Triple(blanks[0], p[0], nodes[1]), ox.Triple(nodes[0], p[1], blanks[0])]
        versions = []
        for _ in range(rng.randint(1, 4)):
            own = [ox.Triple(rng.choice(nodes + blanks[1:]), rng.choice(p),
                             rng.choice([*nodes, *blanks[1:], ox.Literal(str(rng.random()))]))
                   for _ in range(rng.randint(3, 15))]
            versions.append(GraphIndex(f"v{len(versions)}", shared + own))
        first, second = WorkingGraph(versions), WorkingGraph(list(reversed(versions)))
        for node in [*nodes, *blanks]:
            out, incoming = _merged(versions, node)
            assert first.out(node) == out and second.out(node) == out
            assert first.incoming(node) == incoming and second.incoming(node) == incoming
            assert first.content_key(node) == second.content_key(node)
            assert first.describes(node) == any(v.describes(node) for v in versions)
            assert first.statements_of(node) == second.statements_of(node)
    one = GraphIndex("one", _triples())
    node = ox.NamedNode(f"{X}0")
    # Two views over one version share its remembered answer: a unit's view is new, the
    # version's index is not.
    assert WorkingGraph([one]).out(node) is WorkingGraph([one]).out(node)


def test_changes_made_one_after_another_answer_as_the_graph_built_afresh() -> None:
    rng = random.Random(3)
    triples = list(dict.fromkeys(_triples()))
    index = GraphIndex("v0", triples)
    for step in range(1, 25):
        removed = rng.sample(triples, rng.randint(0, 3))
        added = [ox.Triple(ox.NamedNode(f"{X}{rng.randint(0, 14)}"), LABEL,
                           ox.Literal(f"step {step}.{i}")) for i in range(rng.randint(0, 3))]
        triples = [t for t in triples if t not in removed] + added
        index = index.changed(f"v{step}", added, removed)
        built = GraphIndex(f"v{step}", triples)
        assert index.triples == built.triples and len(index) == len(built)
        one, other = WorkingGraph([index]), WorkingGraph([built])
        for node in {t.subject for t in _triples() + added}:
            assert one.out(node) == other.out(node)  # type: ignore[arg-type]
            assert one.incoming(node) == other.incoming(node)  # type: ignore[arg-type]


def test_an_index_holds_no_python_container_per_statement() -> None:
    """The collector walks every tracked object at each full collection: an index's
    statements must not each add tuples and lists (three per statement, once)."""
    nodes = [ox.NamedNode(f"{X}{i}") for i in range(2_000)]
    statements = [(nodes[i], LABEL, ox.Literal(f"term {i}")) for i in range(2_000)]
    statements += [(nodes[i], SUBCLASS_OF_NODE, nodes[(i * 7) % 2_000]) for i in range(2_000)]
    terms = [t for s in statements for t in s]  # the terms stay alive either way
    gc.collect()
    before = len(gc.get_objects())
    index = GraphIndex("h", statements)
    del statements
    gc.collect()
    assert len(index) == 4_000
    assert len(gc.get_objects()) - before < 100
    assert terms
