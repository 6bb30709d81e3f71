"""The checks' scan of a new version follows from the base's scan and the change."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pyoxigraph as ox

from ontoretrieve.proposals.model import (
    apply_change,
    change_effect,
    scan_terms,
    touched_nodes,
)
from ontoretrieve.rdf.vocab import RDF_TYPE, RDFS

X = "http://x/"
TYPE, SUB, LABEL = ox.NamedNode(RDF_TYPE), ox.NamedNode(RDFS + "subClassOf"), \
    ox.NamedNode(RDFS + "label")


def _random_graph(rng: random.Random) -> list[ox.Triple]:
    """Named terms with types, parents, labels and restrictions (blank nodes, nested)."""
    triples: list[ox.Triple] = []
    for n in range(12):
        term = ox.NamedNode(f"{X}{n}")
        triples.append(ox.Triple(term, TYPE, ox.NamedNode(f"{X}C{rng.randint(0, 2)}")))
        if rng.random() < 0.6:
            triples.append(ox.Triple(term, SUB, ox.NamedNode(f"{X}{rng.randint(0, 11)}")))
        if rng.random() < 0.5:
            triples.append(ox.Triple(term, LABEL, ox.Literal(f"term {n}")))
        if rng.random() < 0.4:
            outer, inner = ox.BlankNode(), ox.BlankNode()
            triples += [ox.Triple(term, SUB, outer),
                        ox.Triple(outer, ox.NamedNode(f"{X}on"), inner),
                        ox.Triple(inner, ox.NamedNode(f"{X}to"), ox.NamedNode(f"{X}{n}"))]
    return triples


def _random_change(rng: random.Random, old: list[ox.Triple]
                   ) -> tuple[list[ox.Triple], list[ox.Triple]]:
    remove = rng.sample(old, rng.randint(0, 5))
    remove.append(ox.Triple(ox.NamedNode(f"{X}absent"), TYPE, ox.NamedNode(f"{X}C0")))
    add = [ox.Triple(ox.NamedNode(f"{X}{rng.randint(0, 14)}"),
                     rng.choice([TYPE, SUB, LABEL]), ox.NamedNode(f"{X}{rng.randint(0, 14)}"))
           for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.5:  # a new restriction
        node = ox.BlankNode()
        add += [ox.Triple(ox.NamedNode(f"{X}{rng.randint(0, 14)}"), SUB, node),
                ox.Triple(node, ox.NamedNode(f"{X}on"), ox.NamedNode(f"{X}1"))]
    add += rng.sample(old, 1) + rng.sample(remove, min(1, len(remove)))  # kept; re-added
    return add, remove


def _cases(seed: int, count: int
           ) -> Iterator[tuple[list[ox.Triple], list[ox.Triple], list[ox.Triple]]]:
    """(old version, added, removed), random and reproducible."""
    rng = random.Random(seed)
    for _ in range(count):
        old = _random_graph(rng)
        yield old, *_random_change(rng, old)


def test_the_scan_of_a_change_equals_a_scan_of_the_new_version() -> None:
    for old, add, remove in _cases(5, 300):
        present = set(old)
        new, _ = apply_change(old, add, remove, present)
        touched = touched_nodes(add, remove)
        subjects = {t.subject.value for t in [*add, *remove]
                    if isinstance(t.subject, ox.NamedNode)}
        derived = scan_terms(old, touched, also=subjects).changed(
            *change_effect(present, add, remove))
        scanned = scan_terms(new, touched)
        assert derived.described == scanned.described
        assert derived.statements == scanned.statements
        assert derived.types == scanned.types


def test_change_effect_replays_apply_change() -> None:
    for old, add, remove in _cases(7, 200):
        gone, appended = change_effect(set(old), add, remove)
        new, _ = apply_change(old, add, remove)
        assert new == [t for t in old if t not in gone] + appended


def test_apply_change_is_removal_then_each_addition_the_list_lacks() -> None:
    """Against the plain definition: drop what is removed, then append each added
    statement the list does not hold yet (a statement added twice, one the version has,
    one removed and added back)."""
    for old, add, remove in _cases(11, 300):
        add = [*add, *add[:2], *old[:2], *remove[:1]]
        expected = [t for t in old if t not in set(remove)]
        for t in add:
            if t not in expected:
                expected.append(t)
        new, missing = apply_change(old, add, remove)
        assert new == expected
        assert missing == [t for t in remove if t not in set(old)]
