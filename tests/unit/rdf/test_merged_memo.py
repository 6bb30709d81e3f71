"""Merged neighbour lists are shared by views holding a node in the same versions, only those."""

from __future__ import annotations

import random

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.rdf.graph_index import GraphIndex, WorkingGraph
from ontoretrieve.rdf.merged_memo import MergedLookups
from ontoretrieve.rdf.vocab import SUBCLASS_OF_NODE

X = "http://x/"
HUB = ox.NamedNode(X + "hub")


def _child(version: str, i: int) -> ox.Triple:
    return ox.Triple(ox.NamedNode(f"{X}{version}{i}"), SUBCLASS_OF_NODE, HUB)


def _version(name: str, children: int = 3) -> GraphIndex:
    triples = [_child(name, i) for i in range(children)]
    triples.append(ox.Triple(HUB, ox.NamedNode(X + "said"), ox.Literal(name)))
    return GraphIndex(name, triples)


def test_a_later_view_takes_the_merge_of_an_earlier_one_with_the_same_holders() -> None:
    memo = MergedLookups()
    a, b, c = _version("a"), _version("b"), GraphIndex("c", [_child("c", 0)])
    first = WorkingGraph([a, b], memo)
    # c holds no triple from the hub: its out list comes from a and b alone.
    later = WorkingGraph([a, b, c], memo)
    assert later.out(HUB) is first.out(HUB)
    assert later.incoming(HUB) is not first.incoming(HUB)  # c points at the hub too


def test_shared_merges_equal_the_merges_of_a_view_of_its_own() -> None:
    versions = [_version(name, children=i + 2) for i, name in enumerate("abcd")]
    memo = MergedLookups()
    rng = random.Random(3)
    for _ in range(30):
        parts = rng.sample(versions, rng.randint(1, 4))
        shared, alone = WorkingGraph(parts, memo), WorkingGraph(parts)
        assert shared.incoming(HUB) == alone.incoming(HUB)
        assert shared.out(HUB) == alone.out(HUB)
    assert len(memo) > 0


def test_the_memo_keeps_its_bound_and_drops_the_least_recently_used() -> None:
    memo = MergedLookups(max_pairs=4)
    memo.get("in", "x", ("a", "b"), lambda: [1, 2])
    memo.get("in", "y", ("a", "b"), lambda: [3])
    memo.get("in", "x", ("a", "b"), lambda: [0])  # a hit: x is now the most recent
    memo.get("in", "z", ("a", "b"), lambda: [4, 5])  # 5 pairs: y goes, not x
    assert memo.get("in", "x", ("a", "b"), lambda: [0]) == [1, 2]
    assert memo.get("in", "y", ("a", "b"), lambda: [6]) == [6]
    assert memo.pairs <= 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 3)), max_size=40),
       st.integers(1, 6))
def test_the_pairs_counted_are_the_pairs_held(lookups: list[tuple[str, int]], bound: int
                                               ) -> None:
    memo = MergedLookups(max_pairs=bound)
    for node, size in lookups:
        memo.get("out", node, ("a",), lambda size=size: list(range(size)))
        assert memo.pairs == sum(len(v) for v in memo._lists.values()) <= bound
