"""The content hash ignores serialization, order and blank-node labels."""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.rdf.canonical import graph_hash

P = ox.NamedNode("http://x/p")
Q = ox.NamedNode("http://x/q")


def _restrictions(n: int, labels: list[str]) -> list[ox.Triple]:
    """n subjects, each with one blank-node restriction, bnode labels given."""
    triples = []
    for i in range(n):
        node = ox.BlankNode(labels[i])
        triples.append(ox.Triple(ox.NamedNode(f"http://x/s{i}"), P, node))
        triples.append(ox.Triple(node, Q, ox.Literal(str(i))))
    return triples


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 8), data=st.data())
def test_hash_ignores_order_and_blank_labels(n: int, data: st.DataObject) -> None:
    names = data.draw(st.lists(st.from_regex(r"[a-z]{3,8}", fullmatch=True),
                               min_size=n, max_size=n, unique=True))
    other = [f"b{i}" for i in range(n)]
    first = _restrictions(n, names)
    second = data.draw(st.permutations(_restrictions(n, other)))
    assert graph_hash(first) == graph_hash(second)


def test_hash_changes_with_content() -> None:
    base = _restrictions(3, ["a", "b", "c"])
    changed = [*base[:-1], ox.Triple(base[-1].subject, Q, ox.Literal("other"))]
    assert graph_hash(base) != graph_hash(changed)


def test_hash_tells_blank_structures_apart() -> None:
    """One shared blank node is not two separate ones."""
    shared = ox.BlankNode("z")
    one = [ox.Triple(ox.NamedNode("http://x/a"), P, shared),
           ox.Triple(ox.NamedNode("http://x/b"), P, shared)]
    two = [ox.Triple(ox.NamedNode("http://x/a"), P, ox.BlankNode("y1")),
           ox.Triple(ox.NamedNode("http://x/b"), P, ox.BlankNode("y2"))]
    assert graph_hash(one) != graph_hash(two)


def test_duplicates_count_once() -> None:
    triple = ox.Triple(ox.NamedNode("http://x/a"), P, ox.Literal("v"))
    assert graph_hash([triple, triple]) == graph_hash([triple])
